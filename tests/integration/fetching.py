"""The fetch stage called as the pipeline calls it, from a test outside an event loop; and
which processes are alive (the extraction workers)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from citecheck.cache import DiskCache
from citecheck.config import Settings
from citecheck.fetch.fetcher import fetch_all
from citecheck.models import FetchedSource


def fetch_sources(
    urls: Iterable[str], settings: Settings, cache: DiskCache | None = None, **options: Any
) -> dict[str, FetchedSource]:
    """The sources `fetch_all` fetched, by URL as given."""
    return asyncio.run(fetch_all(urls, settings, cache, **options)).sources


def children(pid: int) -> set[int]:
    """The live child processes of `pid` (Linux: /proc/PID/task/*/children)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return {c for c in found if alive(c)}


def alive(pid: int) -> bool:
    """Whether process `pid` runs (exists, and is not a zombie)."""
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    return False
