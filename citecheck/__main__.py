import sys

from citecheck.cli import main

sys.exit(main())
