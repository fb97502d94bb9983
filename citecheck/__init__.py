"""citecheck: check the claims in Markdown documentation against the sources they cite.

The stages, their hand-off types and where each kind of change goes: docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from typing import NoReturn

# The one place the version is written (pyproject.toml reads it from here): looking it up in
# the installed metadata cost every process, the extraction workers too, ~50 ms at start-up.
__version__ = "1.0.0"

USER_AGENT = f"citecheck/{__version__} (+https://github.com/citecheck/citecheck)"


def command() -> NoReturn:
    """The `citecheck` command (and `python -m citecheck`)."""
    from citecheck.process import exit_process, start_process

    start_process()
    from citecheck.cli import main

    exit_process(main())
