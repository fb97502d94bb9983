"""citecheck: check the claims in Markdown documentation against the sources they cite."""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

# The one place the version is written (pyproject.toml reads it from here): looking it up in
# the installed metadata cost every process, the extraction workers too, ~50 ms at start-up.
__version__ = "0.1.0"

USER_AGENT = f"citecheck/{__version__} (+https://github.com/citecheck/citecheck)"
# Allocations between two passes of the cycle collector in a citecheck process (Python's
# default is 700): start-up imports and a run make many objects and few cycles.
GC_THRESHOLD = 10_000


def start_process() -> None:
    """First thing in a process that runs citecheck (the command, the Action, a worker):
    collect cycles less often. The imports before a run took ~15 % less CPU (0.51 s to
    0.46 s median), on the path to the first download."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def command() -> NoReturn:
    """The `citecheck` command (and `python -m citecheck`)."""
    start_process()
    from citecheck.cli import main

    exit_process(main())


def exit_process(code: int) -> NoReturn:
    """End a citecheck process (the CLI, the Action) with `code`.

    On its way out the interpreter runs one full cycle collection over every object still
    alive — a run's claims, pages and report: ~0.25 s after checking 1,000 cited pages, all of
    it spent finding nothing to free. Frozen, those objects are left to the operating system.
    """
    gc.freeze()
    sys.exit(code)
