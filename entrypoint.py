"""Container entrypoint of the citecheck GitHub Action: a thin shim into `citecheck.action`."""

from citecheck import exit_process
from citecheck.action import main

if __name__ == "__main__":
    exit_process(main())
