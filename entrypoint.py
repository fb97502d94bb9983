"""Container entrypoint of the citecheck GitHub Action: a thin shim into `citecheck.action`."""

import sys

from citecheck.action import main

if __name__ == "__main__":
    sys.exit(main())
