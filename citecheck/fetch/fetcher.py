"""The fetch stage: every cited URL fetched once, through the guard, and turned into text.

`fetch_all` takes the URLs of a run and returns one `FetchedSource` per URL as given. URLs
that differ only in their `#fragment` are one fetch (the fragment is never sent). Limits:
`Settings.concurrency` requests at once overall, `per_host_concurrency` per host with at
least `host_interval_s` between request starts to one host; 429 and 503 are retried (at most
`MAX_TRIES` tries, honouring `Retry-After`). `timeout_s` is a deadline on the whole fetch of
a source: connecting, every hop and every byte of every response, every retry and every
wait between them share it (`_Budget`), so neither a server trickling bytes, nor a redirect
chain, nor a stream of 429s can hold the run; a `Retry-After` beyond what is left of it ends
the source at once ("rate limited, retry after N s"). Time queued behind the run's own limits
(the slots above) is not the source's and does not count. The decoded body is cut at
`max_source_bytes` (the source is marked truncated; a gzip bomb is inflated only up to the
cap). Redirects are followed by hand, at most `MAX_REDIRECTS`, and every hop is checked
again against the allowlist and the SSRF guard (see `citecheck.fetch.guard`).

Outcomes: `ok` (text), `not_extractable` (see `content`; also a status listed in
`Settings.accept_status`: the link is live, its content unread), `blocked` (the site refuses
robots: 401/403/429 or a challenge page, see `blocking`), `unreachable` (404, 410, other
errors, DNS failure, timeout, an invalid URL), `disallowed` (allowlist or guard). No URL
crashes the run: whatever goes wrong fails that source alone.

With `archive: wayback`, a source that ends unreachable is looked up in the Internet Archive
(`archive.Archive.rescue`): its snapshot becomes `SourceInfo.archived`, and with
`archive_check` the source is the snapshot's text. The archive's requests go through this
fetcher (`_archive_answer`, `_fetch(…, archive=True)`): the same guard, limits, deadline and
cache, with the archive's hosts admitted past the allowlist for them alone (`check_hop`).

With a cache (`--cache-dir`), a source fetched less than `cache_max_age_s` ago is not
fetched again; an older one is revalidated with `If-None-Match` / `If-Modified-Since`, and a
304 reuses the stored text. Failures are kept only `FAILURE_CACHE_S`, and a refusal by the
allowlist or guard is never stored (it depends on the run's settings, not on the source), nor
a page read or checked past the deadline (it depends on the run's claims, deadline and load).
A cached entry is used only if it validates (`_cached`: its schema, its URL, a `fetched_at`
neither in the future nor older than `cache_ttl_s`, text matching `text_hash`); one that does
not is rejected, deleted and counted (`DiskCache.rejected`).

Text extraction is CPU-bound: it runs in `workers.ExtractionWorker` processes, so the event
loop's core is left to the downloads. There the caller's `prepare` callable of each page
(`content.Prepare`: the checks stage's checks of the claims citing it) runs too, as the page
arrives, and for a page from the cache; `fetch_all` returns what it made beside the sources.
This stage knows nothing of what it prepares. The deadline covers that work too: a page is
read and prepared in what is left of its source's `timeout_s` once a worker takes it (a page
from the cache, in all of it), and past it the worker is stopped and the source is
`not_extractable` ("not extractable: took longer than N s"). Time waiting for a worker, like
time waiting for a slot, is not the source's. Each page is handed to
the caller as soon as it is fetched (`fetch_all`'s `on_page`, an opaque callback), so the later
stages start on it while the other pages still download; a caller that only counts the pages
reads a `FetchTally` instead.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Generic, TypeVar

import httpx
from pydantic import ValidationError

from citecheck import USER_AGENT
from citecheck.cache import DiskCache, age_problem, digest
from citecheck.config import Settings
from citecheck.fetch.archive import Archive, ArchiveFault, archive_domains
from citecheck.fetch.blocking import (
    BLOCKED_STATUSES,
    CHALLENGE_TEXT_CHARS,
    SHORT_PAGE_BYTES,
    blocked_reason,
    challenge_page,
)
from citecheck.fetch.content import ExtractedContent, Prepare, extract_page, run_read
from citecheck.fetch.guard import (
    DOI_RESOLVERS,
    GuardError,
    check_url,
    domain_allowed,
    normalize_host,
    parse_url,
)
from citecheck.fetch.local import LocalPages, read_page
from citecheck.fetch.transport import GuardedTransport
from citecheck.fetch.workers import (
    HTML_IMPORTS,
    WORKER_MIN_URLS,
    ExtractionWorker,
    WorkerLauncher,
    worker_processes,
)
from citecheck.models import FetchedSource, FetchOutcome, SourceInfo

T = TypeVar("T")
# Told of each page as soon as it is fetched (its fetch key, the source, what was prepared of it
# in a worker or None), while other pages still download: see `fetch_all`.
OnPage = Callable[[str, FetchedSource, T | None], Awaitable[None]]


class FetchTally:
    """How many pages (once per fetch key) a run has finished so far, fetched or failed, from
    the network or the cache: read when the caller likes (the pipeline's progress, twice a
    second). Nothing is called per page, so with progress on the fetch tasks are those of a run
    without it: counting through `on_page` (awaited in each page's fetch task) took ~9 us of CPU
    a page against one addition here (docs/benchmarks.md, "Fetching")."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = 0


CACHE_NAMESPACE = "sources"
FAILURE_CACHE_S = 600.0
MAX_REDIRECTS = 3
MAX_TRIES = 3
RETRY_STATUSES = frozenset({429, 503})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
# Fetch tasks started per pass of the event loop (`_fetch_every`); on the loopback
# benchmark 16 took the last response ~0.1 s sooner than starting 1,000 at once (64: ~0.08 s).
_START_SLICE = 16


def fetch_key(url: str) -> str:
    """The URL as sent: without its fragment, which never reaches the server."""
    return url.split("#", 1)[0]


def page_key(target: str, local: LocalPages | None) -> str:
    """What one fetch is for: a URL's `fetch_key`, or a checkout page's key as it is (its
    anchor names the part of the page that is the source)."""
    return target if local is not None and target in local.keys else fetch_key(target)


def check_hop(url: httpx.URL, settings: Settings, *, first: bool, archive: bool = False) -> None:
    """Allowlist + guard for one hop; the DOI resolver is exempt from the allowlist as a first hop,
    and the archive's hosts (`archive.archive_domains`) on every hop of the archive's requests.

    Raises `GuardError` naming the reason.
    """
    host = normalize_host(url.host)
    check_url(
        url,
        allowed_domains=settings.allowed_domains,
        allow_private_hosts=settings.allow_private_hosts,
        allowlist_exempt=(first and host in DOI_RESOLVERS)
        or (archive and domain_allowed(host, archive_domains(settings))),
    )


class _Decoder:
    """Content-Encoding decoder that never inflates past the byte cap (gzip bombs)."""

    def __init__(self, encoding: str, cap: int) -> None:
        enc = encoding.strip().lower()
        if enc not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise ValueError(f"unsupported content-encoding {encoding!r}")
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if enc in ("gzip", "x-gzip") else None
        self._deflate_pending = enc == "deflate"
        self.cap = cap
        self.size = 0
        self.truncated = False
        self.parts: list[bytes] = []

    def feed(self, data: bytes) -> bool:
        """Add raw bytes; False once the cap is reached (stop reading)."""
        if self._deflate_pending and data:
            # "deflate" is zlib-wrapped by the standard, raw deflate by some servers.
            self._z = zlib.decompressobj(
                zlib.MAX_WBITS if (data[0] & 0x0F) == 8 and data[0] >> 4 <= 7 else -15
            )
            self._deflate_pending = False
        while data:
            room = self.cap - self.size
            if self._z is None:
                out, data = data[: room + 1], b""
            else:
                try:
                    out = self._z.decompress(data, room + 1)
                except zlib.error as exc:
                    raise ValueError(f"corrupt compressed body: {exc}") from None
                data = self._z.unconsumed_tail
                if self._z.eof:
                    data = b""
            if len(out) > room:
                self.parts.append(out[:room])
                self.size += room
                self.truncated = True
                return False
            self.parts.append(out)
            self.size += len(out)
            if not out and data:  # no progress: wait for more input
                break
        return True

    def body(self) -> bytes:
        return b"".join(self.parts)


@dataclass
class _Budget:
    """A source's deadline (`timeout_s`), as the time its requests and waits have used so far."""

    limit: float
    spent: float = 0.0

    def remaining(self) -> float:
        return self.limit - self.spent


@dataclass
class _Download:
    final_url: str
    status: int
    headers: httpx.Headers
    body: bytes = b""
    truncated: bool = False
    redirects: int = 0


@dataclass
class _HostState:
    slots: asyncio.Semaphore
    transport: GuardedTransport
    cookies: httpx.Cookies = field(default_factory=httpx.Cookies)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    next_start: float = 0.0


# Sent with every request. Accept-Encoding: only the encodings `_Decoder` inflates under the cap.
_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept-Encoding": "gzip, deflate",
    "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5",
}


def _status_text(status: int) -> str:
    phrase = httpx.codes.get_reason_phrase(status)
    return f"HTTP {status} {phrase}".rstrip()


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe_error(exc: Exception, timeout_s: float) -> str:
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return f"timed out after {timeout_s:g} s"
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        if "certificate verify failed: " in text:
            why = text.split("certificate verify failed: ", 1)[1].split(" (_ssl.c", 1)[0].rstrip(".")
            return f"TLS certificate rejected: {why}"
        return text if text.startswith("could not resolve") else f"connection failed: {text}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the server broke the HTTP protocol: {text}"
    return f"{type(exc).__name__}: {text}"


class Fetcher:
    """One run's fetching state: connections and cookies per host, limits and the cache (no
    global state).

    Use as `async with Fetcher(settings, cache) as f: await f.fetch(url)`.
    """

    def __init__(
        self,
        settings: Settings,
        cache: DiskCache | None = None,
        *,
        ssl_context: ssl.SSLContext | None = None,
        worker: ExtractionWorker | None = None,
        prepare: Mapping[str, Prepare[Any]] | None = None,
        tally: FetchTally | None = None,
        local: LocalPages | None = None,
    ) -> None:
        self.settings = settings
        self.local = local  # the checkout's pages among the keys (`citecheck.fetch.local`)
        self.cache = cache
        self.worker = worker
        # What to prepare of each page where it is extracted, by fetch key (see `fetch_all`).
        self.prepare = prepare or {}
        # What was prepared of each page the worker extracted, by fetch key: this run's output,
        # with the sources, for `fetch_all` to return.
        self.prepared: dict[str, Any] = {}
        self.tally = tally if tally is not None else FetchTally()
        self._global = asyncio.Semaphore(settings.concurrency)
        self._hosts: dict[str, _HostState] = {}
        # Loading the CA certificates is slow: once per run, shared by every host's
        # connections, and only when an https page is fetched.
        self._tls = functools.cache(lambda: ssl_context or httpx.create_ssl_context(trust_env=False))
        timeout = httpx.Timeout(settings.timeout_s)
        self._extensions = {"timeout": timeout.as_dict()}
        self.archive = Archive(settings, cache, answer=self._archive_answer, fetch_copy=self._fetch_archived)

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(state.transport.aclose() for state in self._hosts.values()))

    def _host(self, host: str) -> _HostState:
        state = self._hosts.get(host)
        if state is None:
            # Each host its own keep-alive connections and cookies.
            transport = GuardedTransport(
                allow_private_hosts=self.settings.allow_private_hosts,
                tls_context=self._tls,
                max_keepalive=self.settings.per_host_concurrency,
            )
            state = self._hosts[host] = _HostState(
                asyncio.Semaphore(self.settings.per_host_concurrency), transport
            )
        return state

    async def _wait_interval(self, state: _HostState) -> None:
        interval = self.settings.host_interval_s
        if interval <= 0:
            return
        async with state.lock:
            now = time.monotonic()
            if state.next_start > now:
                await asyncio.sleep(state.next_start - now)
            state.next_start = max(now, state.next_start) + interval

    async def _request(self, url: httpx.URL, headers: dict[str, str], budget: _Budget) -> _Download:
        """One request, within the per-host and global limits and what is left of the source's
        deadline (the time it takes is charged to `budget`; waiting for a slot is not)."""
        state = self._host(normalize_host(url.host))
        async with state.slots:
            await self._wait_interval(state)
            async with self._global:
                started = time.monotonic()
                try:
                    async with asyncio.timeout(budget.remaining()):
                        return await self._exchange(state, url, headers)
                finally:
                    budget.spent += time.monotonic() - started

    async def _exchange(self, state: _HostState, url: httpx.URL, headers: dict[str, str]) -> _Download:
        # Straight to the transport: httpx's client would add nothing this fetcher uses
        # (it follows redirects and keeps limits itself) for a third of the HTTP CPU.
        request = httpx.Request("GET", url, headers={**_HEADERS, **headers}, extensions=self._extensions)
        if state.cookies:
            state.cookies.set_cookie_header(request)
        response = await state.transport.handle_async_request(request)
        response.request = request
        if "set-cookie" in response.headers:
            state.cookies.extract_cookies(response)
        try:
            result = _Download(str(url), response.status_code, response.headers)
            status = response.status_code
            # No body needed for a redirect, a 304 or an error — but a 503 may be a bot
            # challenge, told by its first bytes (then it is not worth retrying).
            if status >= 300 and status != 503:
                return result
            cap = self.settings.max_source_bytes if status < 300 else SHORT_PAGE_BYTES + 1
            decoder = _Decoder(response.headers.get("content-encoding", ""), cap)
            async for chunk in response.aiter_raw(_CHUNK):
                if not decoder.feed(chunk):
                    break
            result.body, result.truncated = decoder.body(), decoder.truncated
            return result
        finally:
            await response.aclose()

    async def _download(
        self,
        url: httpx.URL,
        validators: dict[str, str],
        revalidate_url: str | None,
        budget: _Budget,
        *,
        archive: bool = False,
    ) -> _Download:
        """Follow redirects by hand, checking every hop; returns the last response."""
        hop, redirects, extra_hop = url, 0, False
        while True:
            headers = validators if revalidate_url and str(hop) == revalidate_url else {}
            try:
                result = await self._request(hop, headers, budget)
            except GuardError as exc:
                if hop is url:
                    raise
                raise GuardError(f"redirected to {hop}: {exc.reason}") from None
            if result.status not in REDIRECT_STATUSES:
                result.redirects = redirects
                return result
            location = result.headers.get("location")
            if not location:
                raise _Unreachable(f"{_status_text(result.status)} without a Location header")
            # The DOI resolver's own hop does not count: its target is the real first hop.
            if redirects == 0 and not extra_hop and normalize_host(hop.host) in DOI_RESOLVERS:
                extra_hop = True
            else:
                redirects += 1
            if redirects > MAX_REDIRECTS:
                raise _Unreachable(f"more than {MAX_REDIRECTS} redirects (last to {location})")
            try:
                hop = parse_url(fetch_key(str(hop.join(location))))
                check_hop(hop, self.settings, first=False, archive=archive)
            except GuardError as exc:
                raise GuardError(f"redirected to {location}: {exc.reason}") from None
            except (ValueError, httpx.InvalidURL) as exc:
                raise _Unreachable(f"redirected to {location}: {exc}") from None

    async def fetch(self, url: str) -> FetchedSource:
        try:
            if self.local is not None and url in self.local.keys:
                source = await self._fetch_local(url)
            else:
                source = await self._fetch(url)
                if self.archive.wants(source):
                    source = await self.archive.rescue(source)
        except Exception as exc:
            # No URL may crash the run: whatever this one met fails it alone (the tests of
            # every input form make sure the known ones are named better than this).
            reason = f"fetch failed ({type(exc).__name__}: {exc})"[:300]
            source = FetchedSource(
                info=SourceInfo(url=fetch_key(url)), outcome=FetchOutcome.unreachable, error=reason
            )
        self.tally.done += 1
        return source

    async def _fetch(self, url: str, *, archive: bool = False) -> FetchedSource:
        """One source, from the cache or the network; `archive`: a request of the archive's
        (a snapshot), whose hosts are admitted past the allowlist (`check_hop`)."""
        key = fetch_key(url)
        info = SourceInfo(url=key)
        try:
            parsed = parse_url(key)
            check_hop(parsed, self.settings, first=True, archive=archive)
        except GuardError as exc:
            return FetchedSource(info=info, outcome=FetchOutcome.disallowed, error=exc.reason)
        except ValueError as exc:  # parse_url's "invalid URL (…)"
            return FetchedSource(info=info, outcome=FetchOutcome.unreachable, error=str(exc))
        if not self.settings.fetch:
            return FetchedSource(info=info, outcome=FetchOutcome.skipped, error="fetching is disabled")

        cached = self._cached(key)
        validators: dict[str, str] = {}
        if cached is not None:
            if (fresh := self._fresh(cached, archive=archive)) is not None:
                return await self._prepared_again(fresh, self.settings.timeout_s)
            if cached.outcome is FetchOutcome.ok:
                if cached.etag:
                    validators["If-None-Match"] = cached.etag
                if cached.last_modified:
                    validators["If-Modified-Since"] = cached.last_modified

        source = await self._fetch_network(parsed, info, validators, cached, archive=archive)
        if (
            self.cache is not None
            and source.outcome is not FetchOutcome.disallowed
            and not self._late(source)
        ):
            entry = source.model_dump(mode="json", exclude={"info": {"from_cache"}})
            self.cache.put(CACHE_NAMESPACE, key, entry)
        return source

    async def _fetch_local(self, key: str) -> FetchedSource:
        """A page of the checkout (`citecheck.fetch.local`): read from the tree, never cached
        (it is the commit's), its text made and its claims checked where a page's are, under
        the same deadline."""
        info = SourceInfo(url=key)
        if not self.settings.fetch:
            return FetchedSource(info=info, outcome=FetchOutcome.skipped, error="fetching is disabled")
        assert self.local is not None
        found = read_page(self.local.root, key, self.settings.max_source_bytes)
        if isinstance(found, FetchedSource):
            return found.model_copy(update={"fetched_at": time.time()})
        info, read, size = found
        common = {"info": info, "fetched_at": time.time()}
        try:
            content, prepared = await run_read(
                read,
                size,
                worker=self.worker,
                prepare=self.prepare.get(key),
                limit_s=self.settings.timeout_s,
            )
        except TimeoutError:
            return FetchedSource(outcome=FetchOutcome.not_extractable, error=self._overrun(), **common)
        return self._read_source(key, content, prepared, common)

    def _read_source(
        self, key: str, content: ExtractedContent, prepared: Any, common: dict[str, Any]
    ) -> FetchedSource:
        """The source a page's text makes: `ok` with its text, or not extractable saying why;
        what was prepared of it kept for `fetch_all` to return."""
        if prepared is not None:
            self.prepared[key] = prepared
        if content.error is not None:
            return FetchedSource(
                outcome=FetchOutcome.not_extractable, error=content.error, title=content.title, **common
            )
        return FetchedSource(
            outcome=FetchOutcome.ok,
            text=content.text,
            title=content.title,
            date=content.date,
            text_hash=digest(content.text),
            **common,
        )

    async def _fetch_network(
        self,
        url: httpx.URL,
        info: SourceInfo,
        validators: dict[str, str],
        cached: FetchedSource | None,
        *,
        archive: bool = False,
    ) -> FetchedSource:
        budget = _Budget(self.settings.timeout_s)
        revalidate_url = cached.info.final_url if cached is not None and validators else None
        for attempt in range(1, MAX_TRIES + 1):
            try:
                dl = await self._download(url, validators, revalidate_url, budget, archive=archive)
            except GuardError as exc:
                return FetchedSource(info=info, outcome=FetchOutcome.disallowed, error=exc.reason)
            except _Unreachable as exc:
                return self._failed(info, str(exc))
            except ValueError as exc:  # bad encoding
                return self._failed(info, str(exc))
            except (httpx.HTTPError, TimeoutError, OSError) as exc:
                return self._failed(info, _describe_error(exc, self.settings.timeout_s))
            info = info.model_copy(update={"final_url": dl.final_url, "status": dl.status})
            if dl.status in self.settings.accept_status:
                # Like lychee's --accept: the link is live; what it says was not read.
                return self._failed(
                    info,
                    f"{_status_text(dl.status)}, accepted by accept-status: the link is live, "
                    "its content was not read",
                    FetchOutcome.not_extractable,
                )
            if dl.status in RETRY_STATUSES:
                if dl.status == 503 and (page := challenge_page(dl.headers, dl.body)):
                    return self._failed(info, blocked_reason(dl.status, page), FetchOutcome.blocked)
                if (ended := self._retry_ends(dl, attempt, budget)) is not None:
                    return self._failed(info, *ended)
                delay = self._retry_delay(dl, attempt)
                await asyncio.sleep(delay)
                budget.spent += delay
                continue
            if dl.status in BLOCKED_STATUSES:
                page = challenge_page(dl.headers, b"")  # named by its headers, if they tell
                return self._failed(info, blocked_reason(dl.status, page or ""), FetchOutcome.blocked)
            if dl.status == 304 and cached is not None and revalidate_url == dl.final_url:
                revalidated = cached.model_copy(
                    update={
                        "fetched_at": time.time(),
                        "info": cached.info.model_copy(update={"from_cache": True}),
                    }
                )
                return await self._prepared_again(revalidated, budget.remaining())
            if dl.status >= 300:
                return self._failed(info, _status_text(dl.status))
            return await self._extracted(info, dl, budget)
        raise AssertionError("unreachable: the loop returns on its last try")

    async def _archive_answer(self, url: str) -> bytes:
        """The archive's answer at `url` (its availability API), through the guard with the
        archive's hosts admitted; raises `ArchiveFault` naming what went wrong."""
        try:
            budget = _Budget(self.settings.timeout_s)
            dl = await self._download(parse_url(url), {}, None, budget, archive=True)
        except GuardError as exc:
            raise ArchiveFault(f"the archive's address was refused: {exc.reason}") from None
        except (_Unreachable, ValueError) as exc:
            raise ArchiveFault(f"the archive's answer was unusable: {exc}") from None
        except (httpx.HTTPError, TimeoutError, OSError) as exc:
            why = _describe_error(exc, self.settings.timeout_s)
            raise ArchiveFault(f"the archive could not be reached: {why}", down=True) from None
        if dl.status != 200:
            raise ArchiveFault(f"the archive answered {_status_text(dl.status)}", status=dl.status)
        if dl.truncated:
            raise ArchiveFault("the archive's answer was too large")
        return dl.body

    async def _fetch_archived(self, url: str) -> FetchedSource:
        """A page of the archive's (a snapshot), its hosts admitted past the allowlist."""
        return await self._fetch(url, archive=True)

    @staticmethod
    def _retry_delay(dl: _Download, attempt: int) -> float:
        delay = _retry_after(dl.headers.get("retry-after"))
        return float(2 ** (attempt - 1)) if delay is None else delay

    def _retry_ends(self, dl: _Download, attempt: int, budget: _Budget) -> tuple[str, FetchOutcome] | None:
        """Why a 429 / 503 is not retried (and what the source then is), or None: retry it."""
        # A site that keeps answering 429 refuses robots; a 503 is a server in trouble.
        outcome = FetchOutcome.blocked if dl.status == 429 else FetchOutcome.unreachable
        if attempt == MAX_TRIES:
            if outcome is FetchOutcome.blocked:
                return blocked_reason(dl.status, after=f"after {MAX_TRIES} tries"), outcome
            return f"{_status_text(dl.status)} after {MAX_TRIES} tries", outcome
        delay = self._retry_delay(dl, attempt)
        if delay <= budget.remaining():
            return None
        deadline = f"beyond the {self.settings.timeout_s:g} s per-source deadline"
        advised = dl.headers.get("retry-after") is not None
        if dl.status == 429:
            wait = f", retry after {delay:g} s" if advised else ""
            return f"rate limited{wait} (HTTP 429, {deadline})", outcome
        wait = f"retry after {delay:g} s" if advised else "no time left to retry"
        return f"{_status_text(dl.status)}, {wait} ({deadline})", outcome

    async def _extracted(self, info: SourceInfo, dl: _Download, budget: _Budget) -> FetchedSource:
        content_type = dl.headers.get("content-type")
        info = info.model_copy(
            update={"content_type": content_type, "bytes_fetched": len(dl.body), "truncated": dl.truncated}
        )
        common = {
            "info": info,
            "etag": dl.headers.get("etag"),
            "last_modified": dl.headers.get("last-modified"),
            "fetched_at": time.time(),
        }
        try:
            content, prepared = await extract_page(
                dl.body,
                content_type,
                url=dl.final_url,
                worker=self.worker,
                prepare=self.prepare.get(info.url),
                limit_s=budget.remaining(),
            )
        except TimeoutError:
            return FetchedSource(outcome=FetchOutcome.not_extractable, error=self._overrun(), **common)
        # A challenge page has little or no text: only such a page is searched for one.
        if (content.error is not None or len(content.text) < CHALLENGE_TEXT_CHARS) and (
            page := challenge_page(dl.headers, dl.body)
        ):
            return FetchedSource(
                outcome=FetchOutcome.blocked, error=blocked_reason(dl.status, page), **common
            )
        return self._read_source(info.url, content, prepared, common)

    async def _prepared_again(self, source: FetchedSource, limit_s: float) -> FetchedSource:
        """A page from the cache, prepared (its claims checked) in a worker within `limit_s`
        seconds, as a page downloaded now is; past them, not extractable (the cache keeps the
        page: see `_late`)."""
        prepare = self.prepare.get(source.info.url)
        if source.outcome is not FetchOutcome.ok or prepare is None or self.worker is None:
            return source
        content = ExtractedContent(text=source.text, title=source.title, date=source.date)
        try:
            _, prepared = await self.worker.extract(
                content, prepare=prepare, limit_s=limit_s, size=len(source.text)
            )
        except TimeoutError:
            return source.model_copy(
                update={
                    "outcome": FetchOutcome.not_extractable,
                    "error": self._overrun(),
                    "text": "",
                    "text_hash": None,
                }
            )
        if prepared is not None:
            self.prepared[source.info.url] = prepared
        return source

    def _overrun(self) -> str:
        return f"not extractable: took longer than {self.settings.timeout_s:g} s"

    def _late(self, source: FetchedSource) -> bool:
        """Whether the source was read or checked past the deadline (`_overrun`)."""
        return source.outcome is FetchOutcome.not_extractable and source.error == self._overrun()

    def _failed(
        self, info: SourceInfo, reason: str, outcome: FetchOutcome = FetchOutcome.unreachable
    ) -> FetchedSource:
        return FetchedSource(info=info, outcome=outcome, error=reason, fetched_at=time.time())

    def _cached(self, key: str) -> FetchedSource | None:
        """The cache's entry for `key` if it validates; one that does not is rejected (counted
        and deleted by the cache): it may be corrupt, from another version, or forged."""
        if self.cache is None:
            return None
        raw = self.cache.get(CACHE_NAMESPACE, key)
        if raw is None:
            return None
        try:
            cached = FetchedSource.model_validate(raw)
        except ValidationError:
            self.cache.reject(CACHE_NAMESPACE, key, "not a valid source entry")
            return None
        if cached.info.url != key:
            why: str | None = "for another URL"
        elif cached.outcome is FetchOutcome.disallowed:
            why = "a refusal, which is never stored"
        elif stamp_problem := age_problem(cached.fetched_at, self.cache.ttl_s, time.time()):
            why = f"fetched_at {stamp_problem}"
        elif cached.outcome is FetchOutcome.ok and cached.text_hash != digest(cached.text):
            why = "text does not match its hash"
        else:
            why = None
        if why is not None:
            self.cache.reject(CACHE_NAMESPACE, key, why)
            return None
        return cached

    def _fresh(self, cached: FetchedSource, *, archive: bool = False) -> FetchedSource | None:
        """The cached source if it may be used without asking the server, else None."""
        if cached.fetched_at is None:
            return None
        max_age = self.settings.cache_max_age_s if cached.outcome is FetchOutcome.ok else FAILURE_CACHE_S
        if time.time() - cached.fetched_at >= max_age:
            return None
        # The run's allowlist and guard apply to a cached final URL too.
        final = cached.info.final_url
        if final:
            try:
                check_hop(parse_url(final), self.settings, first=False, archive=archive)
            except (GuardError, ValueError):
                return None
        return cached.model_copy(update={"info": cached.info.model_copy(update={"from_cache": True})})


class _Unreachable(Exception):
    """A response that ends the fetch as unreachable (bad redirect, too many redirects)."""


@dataclass(frozen=True)
class FetchResult(Generic[T]):
    """What `fetch_all` made: a source for every URL, and what was prepared of the pages
    extracted in a worker process; both keyed by each URL as given."""

    sources: dict[str, FetchedSource]
    prepared: dict[str, T]


async def fetch_all(
    urls: Iterable[str],
    settings: Settings,
    cache: DiskCache | None = None,
    *,
    ssl_context: ssl.SSLContext | None = None,
    prepare: Mapping[str, Prepare[T]] | None = None,
    worker: ExtractionWorker | None = None,
    launcher: WorkerLauncher | None = None,
    on_page: OnPage[T] | None = None,
    tally: FetchTally | None = None,
    local: LocalPages | None = None,
) -> FetchResult[T]:
    """Fetch every URL once (fragments ignored), and read every page of the checkout `local`
    names among them (their keys are paths, "docs/x.md#timeout", whose anchor names the part
    of the page that is the source: `citecheck.fetch.local`).

    `ssl_context` replaces the default verification context (certifi's CA bundle), e.g. to
    trust a test CA or an intranet CA; host names are verified either way. `prepare` gives,
    by page (`fetch_key`), what to make of its text and date where it is extracted: an
    extraction worker process runs it as the page arrives (or, for a page from the cache, when
    it is taken from there), overlapping the downloads still under way, within the source's
    deadline, and what it returns is in the result's `prepared`. A page read otherwise (in a
    thread, where no process can be started) is not prepared: the caller makes it itself, the
    same way.
    A `worker` given (see `worker_processes`) is used and left open; otherwise workers are
    started and closed here: from `launcher` when one is given (see `launch_workers_early`;
    discarded when nothing is fetched), else at once for many URLs, at the first page to read
    for a few.
    `on_page`, if given, is awaited for each page (once per fetch key) as soon as it is fetched
    and prepared, in that page's own fetch task, while the others still download: the caller's
    later stages start on it there (the judge's calls, in `citecheck.pipeline`). It should hand
    slow work to tasks of its own; an exception from it fails the run, like a bug of this stage.
    `tally`, if given, counts the pages finished as they finish (a caller showing progress reads
    it; without `on_page`, the pages' tasks run exactly as they would without a listener).
    """
    given = list(dict.fromkeys(urls))

    keys = list(dict.fromkeys(page_key(u, local) for u in given))
    processes = worker_processes(settings, len(keys)) if worker is None else 0
    own = processes > 0
    if launcher is not None and not own:
        launcher.discard()
    elif launcher is not None:
        worker = await launcher.start(processes)
    if own and worker is None and len(keys) >= WORKER_MIN_URLS:
        worker = ExtractionWorker(processes, preload=HTML_IMPORTS)
    elif own and worker is None:
        # Started at the first page to read, importing what its pages need as they come.
        worker = ExtractionWorker(processes)
    fetcher = Fetcher(
        settings, cache, ssl_context=ssl_context, worker=worker, prepare=prepare, tally=tally, local=local
    )

    async def fetch_one(key: str) -> FetchedSource:
        source = await fetcher.fetch(key)
        if on_page is not None:
            await on_page(key, source, fetcher.prepared.get(key))
        return source

    try:
        if own and worker is not None and len(keys) >= WORKER_MIN_URLS:
            await worker.begin()  # enough pages to read: the imports overlap the first downloads
        async with fetcher:
            sources = await _fetch_every(fetcher.fetch if on_page is None else fetch_one, keys)
    finally:
        if own and worker is not None:
            await worker.aclose()
    fetched = dict(zip(keys, sources, strict=True))
    return FetchResult(
        sources={u: fetched[page_key(u, local)] for u in given},
        prepared={
            u: fetcher.prepared[page_key(u, local)] for u in given if page_key(u, local) in fetcher.prepared
        },
    )


async def _fetch_every(
    fetch: Callable[[str], Awaitable[FetchedSource]], keys: list[str]
) -> list[FetchedSource]:
    """Each key fetched in its own task, the tasks started `_START_SLICE` at a time with a pass
    of the event loop between.

    A fetch's first step (parsing its URL, the guard's checks, and for the first ones opening
    a connection) runs before it waits for a free slot. Started all at once, 1,000 of them
    held the loop for ~0.1 s before the first request was written; in slices, the loop sends
    the first requests, and awaits their answers, while the rest are still being queued.
    """
    tasks: list[asyncio.Task[FetchedSource]] = []
    try:
        for start in range(0, len(keys), _START_SLICE):
            tasks += [asyncio.create_task(fetch(k)) for k in keys[start : start + _START_SLICE]]
            await asyncio.sleep(0)
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:  # cancelled or failed: none may go on fetching unawaited
            task.cancel()
        raise
