"""The fetch stage called as the pipeline calls it, from a test outside an event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
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
