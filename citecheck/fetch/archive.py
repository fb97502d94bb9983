"""Link rot: a source that could not be fetched, looked up in the Internet Archive (`archive: wayback`).

When a cited page is unreachable (404, 410, a DNS failure, a timeout, a server that keeps
failing), `Archive.rescue` asks the Wayback Machine's availability API
(`Settings.archive_url`, `GET …?url=<the page>`) for its most recent snapshot. The answer is
documented JSON (https://archive.org/help/wayback_api.php)::

    {"archived_snapshots": {"closest": {"available": true, "status": "200",
      "url": "http://web.archive.org/web/20230501000000/https://example.com/page",
      "timestamp": "20230501000000"}}}

and `{"archived_snapshots": {}}` when the archive has none. No `timestamp` is sent: the
snapshot closest to now is the page as it was last seen alive. The snapshot becomes the
source's `SourceInfo.archived` (`ArchivedCopy`): the report names it as the link to cite
instead. With `archive_check`, the snapshot's own text is fetched (its `id_` form: the page as
captured, without the archive's banner) and the source is that text — the claim is checked
and judged against it, and its verdict rests on it (`ArchivedCopy.checked`).

What the archive may reach: its requests go through the fetcher like any other — the SSRF
guard on every connection and hop, the per-host limits, the per-source deadline and byte caps —
but the archive's hosts (`archive_domains`: the host of `archive_url`, and all of archive.org
for the Internet Archive's) are admitted past `allowed_domains`, for the archive's requests
only: a cited link to archive.org still needs the allowlist. A snapshot URL the answer points
outside the archive's hosts is a fault of the answer, never fetched.

A fault of the archive never changes a verdict: down, slow, rate-limited (429), no snapshot, a
snapshot that cannot be read, a malformed answer — the source stays unreachable, with
`SourceInfo.archive_error` saying why there is no copy. After a 429, a 5xx or a connection
failure, the run asks the archive nothing more (each later lookup says why): a struggling
archive is not hammered by a large audit's every dead link. Lookups take turns, at most
`per_host_concurrency` at once, so no more than that are in flight when the archive says stop.

The answers are kept in the run's cache (namespace `archive`) like the sources: a snapshot for
`cache_max_age_s`, "no snapshot" for `NO_SNAPSHOT_CACHE_S` (someone may save one meanwhile);
faults never. A cached answer is validated on load like every cache entry, its snapshot held
to the same rules as a fresh answer (within this run's archive hosts).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ValidationError

from citecheck.cache import DiskCache, age_problem
from citecheck.config import ArchiveMode, Settings
from citecheck.fetch.guard import domain_allowed, normalize_host, parse_url
from citecheck.models import ArchivedCopy, FetchedSource, FetchOutcome

CACHE_NAMESPACE = "archive"
NO_SNAPSHOT_CACHE_S = 600.0
INTERNET_ARCHIVE = "archive.org"
NO_SNAPSHOT = "no snapshot in the archive"
# The archive's own timestamps: YYYYMMDDhhmmss.
_TIMESTAMP = re.compile(r"^\d{14}$")
# A Wayback snapshot's address, /web/<timestamp>/<original URL>, without a mode suffix yet.
_SNAPSHOT_PATH = re.compile(r"^(https?://[^/?#]+/web/\d{14})/")


class ArchiveFault(Exception):
    """The archive gave no usable answer; `status` is its HTTP status when it answered one."""

    def __init__(self, reason: str, *, status: int | None = None, down: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.down = down  # not reached at all (connection failure, timeout)

    @property
    def ends_lookups(self) -> bool:
        """Whether the run should ask this archive nothing more: it throttles us or is down."""
        return self.down or self.status == 429 or (self.status is not None and self.status >= 500)


# The fetcher's side: the availability API's answer body at a URL (status 200), or an
# `ArchiveFault`; and a page fetched through the archive's admission (a snapshot).
Answer = Callable[[str], Awaitable[bytes]]
FetchCopy = Callable[[str], Awaitable[FetchedSource]]


def archive_domains(settings: Settings) -> tuple[str, ...]:
    """The archive's hosts, admitted past `allowed_domains` for its requests: the host of
    `archive_url`, and all of archive.org when that is the Internet Archive's (its snapshots
    are on web.archive.org)."""
    host = normalize_host(urlsplit(settings.archive_url).hostname or "")
    if host == INTERNET_ARCHIVE or host.endswith("." + INTERNET_ARCHIVE):
        return (INTERNET_ARCHIVE,)
    return (host,)


def lookup_url(settings: Settings, url: str) -> str:
    """The availability API's address for `url`."""
    base = settings.archive_url
    return f"{base}{'&' if '?' in base else '?'}url={quote(url, safe='')}"


def raw_copy_url(snapshot_url: str) -> str:
    """The snapshot as captured (`/web/<timestamp>id_/…`): the archive's banner and rewritten
    links left out, so the text checked is the page's own. Other addresses are kept as they are."""
    return _SNAPSHOT_PATH.sub(r"\1id_/", snapshot_url, count=1)


class _Snapshot(BaseModel):
    url: str
    timestamp: str


def snapshot(url: object, timestamp: object, domains: Iterable[str]) -> _Snapshot:
    """A snapshot from an answer (or the cache), held to the rules: a 14-digit timestamp, an
    http(s) address on one of the archive's hosts (`domains`); the Internet Archive's own are
    given as https. Raises `ArchiveFault` otherwise."""
    if not isinstance(timestamp, str) or not _TIMESTAMP.match(timestamp):
        raise ArchiveFault(f"malformed answer from the archive (timestamp {str(timestamp)[:40]!r})")
    if not isinstance(url, str):
        raise ArchiveFault("malformed answer from the archive (no snapshot URL)")
    try:
        parsed = parse_url(url)
    except Exception:  # GuardError or ValueError: either way not an address to follow
        raise ArchiveFault(f"malformed answer from the archive (snapshot URL {url[:100]!r})") from None
    host = normalize_host(parsed.host)
    if parsed.scheme not in ("http", "https") or not domain_allowed(host, domains) or not host:
        raise ArchiveFault(f"the archive's answer points outside the archive ({url[:100]}): not followed")
    if parsed.scheme == "http" and domain_allowed(host, (INTERNET_ARCHIVE,)):
        url = "https" + url[4:]
    return _Snapshot(url=url, timestamp=timestamp)


def parse_answer(body: bytes, domains: Iterable[str]) -> _Snapshot | None:
    """The closest snapshot in an availability answer, or None when the archive has none (or
    only a capture of an error page). Raises `ArchiveFault` for a malformed answer."""
    try:
        data = json.loads(body)
    except ValueError:
        raise ArchiveFault("malformed answer from the archive (not JSON)") from None
    snapshots = data.get("archived_snapshots") if isinstance(data, dict) else None
    if not isinstance(snapshots, dict):
        raise ArchiveFault("malformed answer from the archive (no archived_snapshots)")
    closest = snapshots.get("closest")
    if closest is None:
        return None
    if not isinstance(closest, dict):
        raise ArchiveFault("malformed answer from the archive (closest is not an object)")
    if closest.get("available") is False:
        return None
    status = str(closest.get("status", "200"))
    if not (status.isdigit() and 200 <= int(status) < 400):
        return None  # the archive captured the page's error, not the page
    return snapshot(closest.get("url"), closest.get("timestamp"), domains)


class _Entry(BaseModel):
    """A cached availability answer."""

    url: str
    snapshot: _Snapshot | None
    looked_up_at: float


class Archive:
    """One run's archive lookups (no global state): `rescue` a source that could not be
    fetched. `answer` and `fetch_copy` are the fetcher's: they go through its guard, limits
    and cache, with the archive's hosts admitted (`archive_domains`)."""

    def __init__(
        self, settings: Settings, cache: DiskCache | None, *, answer: Answer, fetch_copy: FetchCopy
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.domains = archive_domains(settings)
        self._answer = answer
        self._fetch_copy = fetch_copy
        self._stopped: str | None = None  # why this run asks the archive nothing more
        # Lookups in flight, at most the per-host limit: one that gets its turn after a 429
        # is not sent (`_stopped`), so at most that many meet a throttling archive.
        self._turns = asyncio.Semaphore(settings.per_host_concurrency)

    def wants(self, source: FetchedSource) -> bool:
        """Whether `source` is one to look up: fetched, and unreachable at a valid URL."""
        if self.settings.archive == ArchiveMode.off or source.outcome is not FetchOutcome.unreachable:
            return False
        try:
            parse_url(source.info.url)
        except Exception:  # an invalid URL was never a page: nothing to look up
            return False
        return True

    async def rescue(self, source: FetchedSource) -> FetchedSource:
        """`source` with what the archive has of it (see the module's docstring); never raises:
        whatever goes wrong is the source's `archive_error`, its outcome unchanged."""
        try:
            found = await self._lookup(source.info.url)
        except ArchiveFault as exc:
            return _noted(source, archive_error=exc.reason)
        except Exception as exc:  # no fault of the archive may fail the run or change a verdict
            return _noted(source, archive_error=f"archive lookup failed ({type(exc).__name__}: {exc})"[:300])
        if found is None:
            return _noted(source, archive_error=NO_SNAPSHOT)
        link_error = source.error or "the link could not be fetched"
        copy = ArchivedCopy(url=found.url, timestamp=found.timestamp, link_error=link_error)
        if not self.settings.archive_check:
            return _noted(source, archived=copy)
        try:
            page = await self._fetch_copy(raw_copy_url(found.url))
        except Exception as exc:
            page = FetchedSource(info=source.info, outcome=FetchOutcome.unreachable, error=type(exc).__name__)
        if page.outcome is not FetchOutcome.ok:
            why = f"the archived copy of {copy.date} could not be read: {page.error or page.outcome.value}"
            return _noted(source, archived=copy, archive_error=why)
        info = source.info.model_copy(
            update={"archived": copy.model_copy(update={"checked": True}), "from_cache": page.info.from_cache}
        )
        return page.model_copy(update={"info": info, "error": None, "etag": None, "last_modified": None})

    async def _lookup(self, url: str) -> _Snapshot | None:
        cached = self._cached(url)
        if cached is not None:
            return cached.snapshot
        async with self._turns:
            if self._stopped is not None:
                raise ArchiveFault(f"not looked up: {self._stopped}")
            try:
                body = await self._answer(lookup_url(self.settings, url))
            except ArchiveFault as exc:
                if exc.ends_lookups and self._stopped is None:
                    self._stopped = f"{exc.reason} earlier in this run"
                raise
        found = parse_answer(body, self.domains)
        if self.cache is not None:
            entry = _Entry(url=url, snapshot=found, looked_up_at=time.time())
            self.cache.put(CACHE_NAMESPACE, url, entry.model_dump(mode="json"))
        return found

    def _cached(self, url: str) -> _Entry | None:
        """A fresh cached answer for `url` that validates, else None (one that does not
        validate is rejected: counted and deleted)."""
        if self.cache is None:
            return None
        raw = self.cache.get(CACHE_NAMESPACE, url)
        if raw is None:
            return None
        now = time.time()
        try:
            entry = _Entry.model_validate(raw)
            if entry.url != url:
                why: str | None = "for another URL"
            elif problem := age_problem(entry.looked_up_at, self.cache.ttl_s, now):
                why = f"looked_up_at {problem}"
            else:
                why = None
                if entry.snapshot is not None:
                    entry.snapshot = snapshot(entry.snapshot.url, entry.snapshot.timestamp, self.domains)
        except ValidationError:
            why = "not a valid archive entry"
        except ArchiveFault:
            why = "a snapshot outside this run's archive"
        if why is not None:
            self.cache.reject(CACHE_NAMESPACE, url, why)
            return None
        max_age = self.settings.cache_max_age_s if entry.snapshot is not None else NO_SNAPSHOT_CACHE_S
        return entry if now - entry.looked_up_at < max_age else None


def _noted(source: FetchedSource, **found: object) -> FetchedSource:
    return source.model_copy(update={"info": source.info.model_copy(update=found)})


def archive_notes(settings: Settings, sources: Iterable[FetchedSource]) -> list[str]:
    """The report's notes on the archive: that it was asked and why its hosts could be reached,
    and what the lookups found."""
    if settings.archive == ArchiveMode.off or not settings.fetch:
        return []
    hosts = ", ".join(archive_domains(settings))
    checked = "; archive-check: claims are checked against the snapshot" if settings.archive_check else ""
    notes = [
        f"archive: {settings.archive.value} — a source that could not be fetched is looked up in the "
        f"archive ({hosts}, admitted past allowed-domains by the archive option, for the archive's "
        f"requests only){checked}"
    ]
    seen = {s.info.url: s.info for s in sources}.values()
    asked = [i for i in seen if i.archived is not None or i.archive_error is not None]
    if asked:
        found = sum(1 for i in asked if i.archived is not None)
        faults = [i.archive_error for i in asked if i.archived is None and i.archive_error != NO_SNAPSHOT]
        parts = [f"{found} with a snapshot", f"{len(asked) - found - len(faults)} without"]
        if faults:
            parts.append(f"{len(faults)} not answered ({faults[0]})")
        notes.append(f"archive: {len(asked)} unreachable source(s) looked up: {', '.join(parts)}")
    return notes
