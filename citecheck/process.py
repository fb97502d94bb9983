"""Start-up and shut-down tuning of a citecheck process, in one place.

A run allocates many small objects (models, mentions, coroutines) and few reference cycles,
so every citecheck process (the command, the Action, an extraction worker) collects cycles
less often than Python's default, from its first line; `fewer_gc_passes` does the same for
one run inside a library caller and restores the caller's setting afterwards.

A citecheck process also skips the command-line client that httpx imports with itself
(`_skip_httpx_cli`); a library caller's process keeps it.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

# Allocations between two passes of the cycle collector (Python's default is 700).
GC_THRESHOLD = 10_000

# httpx's command-line client (the `httpx` command), which `import httpx` loads whenever click
# is installed.
_HTTPX_CLI = "httpx._main"


def start_process() -> None:
    """First thing in a process that runs citecheck: the imports before a run took ~15 % less
    CPU (0.51 s to 0.46 s median), on the path to the first download."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    _skip_httpx_cli()


def _skip_httpx_cli() -> None:
    """`import httpx` also imports its command-line client, `httpx._main`, and with it click,
    rich's console, progress and syntax modules and pygments' lexers, whenever click can be
    imported — and it can wherever the `mcp` dependency is installed (its uvicorn needs click):
    ~60–75 ms of every run's start-up, on the path to the first download, for a client that a
    citecheck process never runs. Marked absent here, that import fails at once and httpx
    falls back to its own stand-in for `httpx.main` (which asks to install `httpx[cli]`);
    the rest of httpx is untouched. Only in citecheck's own processes (the CLI, the Action,
    an extraction worker): a library caller's `import httpx` stays as it was."""
    sys.modules.setdefault(_HTTPX_CLI, None)  # type: ignore[arg-type]  # None: "not importable"


@contextmanager
def fewer_gc_passes() -> Iterator[None]:
    """For one run: what exists before it (modules, settings) is never scanned again, and a
    collection comes every `GC_THRESHOLD` allocations. The default passes took a tenth of
    the CPU of checking 1,000 cited pages."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def exit_process(code: int) -> NoReturn:
    """End a citecheck process (the CLI, the Action) with `code`.

    On its way out the interpreter runs one full cycle collection over every object still
    alive — a run's claims, pages and report: ~0.25 s after checking 1,000 cited pages, all of
    it spent finding nothing to free. Frozen, those objects are left to the operating system.
    """
    gc.freeze()
    sys.exit(code)
