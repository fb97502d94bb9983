"""citecheck: check the claims in Markdown documentation against the sources they cite."""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

# The one place the version is written (pyproject.toml reads it from here): looking it up in
# the installed metadata cost every process, the extraction workers too, ~50 ms at start-up.
__version__ = "0.1.0"

USER_AGENT = f"citecheck/{__version__} (+https://github.com/citecheck/citecheck)"


def exit_process(code: int) -> NoReturn:
    """End a citecheck process (the CLI, the Action) with `code`.

    On its way out the interpreter runs one full cycle collection over every object still
    alive — a run's claims, pages and report: ~0.25 s after checking 1,000 cited pages, all of
    it spent finding nothing to free. Frozen, those objects are left to the operating system.
    """
    gc.freeze()
    sys.exit(code)
