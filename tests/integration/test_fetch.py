"""The fetch stage against a real HTTP server on 127.0.0.1 (admitted with allow_private_hosts)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from citecheck import USER_AGENT
from citecheck.cache import DiskCache
from citecheck.config import Settings
from citecheck.fetch.fetcher import CACHE_NAMESPACE, fetch_all
from citecheck.models import FetchOutcome
from tests.integration.fetching import fetch_sources
from tests.servers import source_server as servers
from tests.servers.source_server import Page, SourceServer, make_pdf, respond

source_server = servers.source_server  # the fixture, by its usual name

ARTICLE = """<!doctype html><html><head><title>City census 2020</title>
<meta property="article:published_time" content="2021-03-04"></head>
<body><nav>Home | About | Contact</nav>
<article><h1>City census 2020</h1>
<p>The census counted 14 million residents in the metropolitan area in 2020, up from 12 million.</p>
<p>"Growth has been steady for a decade," said the chief statistician at the bureau.</p>
<p>Most of the growth came from the outer districts, where housing was cheaper than downtown.</p>
</article><footer>Copyright the bureau</footer></body></html>"""


def settings(**kw: object) -> Settings:
    return Settings(allow_private_hosts=["127.0.0.1", "127.0.0.2"], **kw)


def test_html_article(source_server: SourceServer) -> None:
    url = source_server.add("/census.html", ARTICLE)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok, src.error
    assert "14 million residents" in src.text
    assert "Home | About" not in src.text  # boilerplate left out
    assert src.title == "City census 2020"
    assert src.date == "2021-03-04"
    assert src.info.status == 200
    assert src.info.final_url == url
    assert src.info.content_type == "text/html; charset=utf-8"
    assert src.info.bytes_fetched == len(ARTICLE.encode())
    assert src.text_hash and src.fetched_at
    seen = source_server.requests[0]
    assert seen.headers["user-agent"] == USER_AGENT
    assert USER_AGENT.startswith("citecheck/")


def test_one_fetch_per_url_fragments_ignored(source_server: SourceServer) -> None:
    url = source_server.add("/census.html", ARTICLE)
    urls = [url, url, url + "#:~:text=14%20million", url + "#section"]
    results = fetch_sources(urls, settings())
    assert set(results) == set(urls)
    assert all(r.outcome is FetchOutcome.ok for r in results.values())
    assert source_server.hits() == 1
    assert source_server.requests[0].path == "/census.html"  # the fragment was never sent


def test_redirect_chain_followed(source_server: SourceServer) -> None:
    final = source_server.add("/census.html", ARTICLE)
    source_server.add_redirect("/a", "/b", 301)
    source_server.add_redirect("/b", source_server.url("/c"), 302)
    source_server.add_redirect("/c", "/census.html", 307)
    src = fetch_sources([source_server.url("/a")], settings())[source_server.url("/a")]
    assert src.outcome is FetchOutcome.ok
    assert src.info.final_url == final
    assert source_server.hits() == 4


def test_a_cookie_set_on_a_redirect_is_sent_on_the_next_hop(source_server: SourceServer) -> None:
    # Consent redirects set a cookie and send the reader back: the jar keeps what is set
    # (and only then parses anything, see fetch._Cookies).
    source_server.add("/census.html", ARTICLE)
    source_server.add("/consent", b"", None, 302, {"Location": "/census.html", "Set-Cookie": "ok=1; Path=/"})
    src = fetch_sources([source_server.url("/consent")], settings())[source_server.url("/consent")]
    assert src.outcome is FetchOutcome.ok
    first, second = source_server.requests
    assert "cookie" not in first.headers
    assert (second.path, second.headers.get("cookie")) == ("/census.html", "ok=1")


def test_too_many_redirects(source_server: SourceServer) -> None:
    for i in range(5):
        source_server.add_redirect(f"/r{i}", f"/r{i + 1}")
    source_server.add("/r5", ARTICLE)
    url = source_server.url("/r0")
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == "more than 3 redirects (last to /r4)"
    assert source_server.hits("/r4") == 0


@pytest.mark.parametrize(
    ("status", "reason"),
    [(404, "HTTP 404 Not Found"), (500, "HTTP 500 Internal Server Error"), (410, "HTTP 410 Gone")],
)
def test_http_errors_are_unreachable(source_server: SourceServer, status: int, reason: str) -> None:
    url = source_server.add("/x", "error page", "text/html", status=status)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == reason
    assert src.info.status == status
    assert source_server.hits() == 1


def test_429_retried_after_retry_after(source_server: SourceServer) -> None:
    url = source_server.add_sequence(
        "/busy",
        [Page(b"slow down", "text/plain", 429, {"Retry-After": "1"}), Page(ARTICLE.encode(), "text/html")],
    )
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok
    assert source_server.hits("/busy") == 2
    first, second = source_server.requests
    assert second.headers["user-agent"] == first.headers["user-agent"]


def test_503_gives_up_after_three_tries(source_server: SourceServer) -> None:
    url = source_server.add("/down", "maintenance", "text/plain", 503, {"Retry-After": "0"})
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == "HTTP 503 Service Unavailable after 3 tries"
    assert source_server.hits("/down") == 3


def test_retry_after_beyond_the_deadline_is_not_waited(source_server: SourceServer) -> None:
    url = source_server.add("/later", "come back tomorrow", "text/plain", 429, {"Retry-After": "3600"})
    src = fetch_sources([url], settings())[url]
    # A 429 is the site refusing robots: blocked, under verdict unreachable.
    assert src.outcome is FetchOutcome.blocked
    assert src.error == "rate limited, retry after 3600 s (HTTP 429, beyond the 10 s per-source deadline)"
    assert source_server.hits("/later") == 1


def test_slow_trickle_hits_the_per_source_deadline(source_server: SourceServer) -> None:
    url = source_server.add_trickle("/slow", total=1000, interval_s=0.1)
    src = fetch_sources([url], settings(timeout_s=1))[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == "timed out after 1 s"


def test_endless_body_cut_at_the_byte_cap(source_server: SourceServer) -> None:
    url = source_server.add_endless("/endless")
    src = fetch_sources([url], settings(max_source_bytes=300_000))[url]
    assert src.outcome is FetchOutcome.ok
    assert src.info.truncated
    assert src.info.bytes_fetched == 300_000
    assert len(src.text) == 300_000


def test_gzip_bomb_stops_at_the_cap(source_server: SourceServer) -> None:
    url = source_server.add_gzip_bomb("/bomb", decoded_bytes=64 * 1024 * 1024)
    src = fetch_sources([url], settings(max_source_bytes=1_000_000))[url]
    assert src.info.truncated
    assert src.info.bytes_fetched == 1_000_000
    assert src.outcome is FetchOutcome.ok
    assert set(src.text) == {"A"}


def test_gzip_page_is_decoded(source_server: SourceServer) -> None:
    import gzip

    url = source_server.add("/gz.html", gzip.compress(ARTICLE.encode()), headers={"Content-Encoding": "gzip"})
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok
    assert "14 million residents" in src.text
    assert not src.info.truncated


def test_wrong_header_charset_falls_back_to_the_document(source_server: SourceServer) -> None:
    page = ARTICLE.replace("<head>", '<head><meta charset="iso-8859-1">').replace("cheaper", "cheaper (café)")
    url = source_server.add("/latin.html", page.encode("latin-1"), "text/html; charset=utf-8")
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok
    assert "café" in src.text


def test_plain_text_and_markdown_as_is(source_server: SourceServer) -> None:
    body = "# Notes\n\nThe census counted 14 million residents in 2020.\n"
    txt = source_server.add("/a.txt", body, "text/plain")
    md = source_server.add("/a.md", body, "text/markdown; charset=utf-8")
    results = fetch_sources([txt, md], settings())
    assert results[txt].text == body
    assert results[md].text == body


def test_pdf_text(source_server: SourceServer) -> None:
    pdf = make_pdf(["The census counted 14 million residents.", "Second page."], title="Census report")
    url = source_server.add("/report.pdf", pdf, "application/pdf")
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok, src.error
    assert "14 million residents" in src.text
    assert "Second page." in src.text
    assert src.title == "Census report"


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "image/png", "content type image/png has no extractable text"),
        (
            b"PK\x03\x04" + b"\x00" * 100,
            "application/zip",
            "content type application/zip has no extractable text",
        ),
        (b"", "text/html", "no readable text on the page"),
        (
            b"<html><body><div id=app></div><script>boot()</script></body></html>",
            "text/html",
            "no readable text",
        ),
        (
            b"<html><body><h1>Please sign in</h1><form>Email <input> Password <input>"
            b"<button>Log in</button></form></body></html>",
            "text/html",
            "login, consent or bot-check wall",
        ),
        (b"%PDF-1.4 this is not really a pdf", "application/pdf", "unreadable PDF"),
    ],
)
def test_not_extractable(source_server: SourceServer, body: bytes, content_type: str, reason: str) -> None:
    url = source_server.add("/thing", body, content_type)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.not_extractable
    assert reason in (src.error or "")
    assert src.text == ""


def test_unreachable_host_and_invalid_url() -> None:
    with SourceServer("127.0.0.2") as server:
        port = server.port  # a port that is closed once the server stops
    closed = f"http://127.0.0.2:{port}/x"
    bad = "http://exa mple.com/"
    bad_port = "http://example.com:abc/"
    results = fetch_sources([closed, bad, bad_port], settings())
    assert results[bad_port].outcome is FetchOutcome.unreachable
    assert results[bad_port].error == "invalid URL (Invalid port: 'abc')"
    assert results[closed].outcome is FetchOutcome.unreachable
    assert "connection failed" in (results[closed].error or "")
    assert results[bad].outcome is FetchOutcome.unreachable
    assert "invalid URL" in (results[bad].error or "")


def test_fetch_disabled_sends_nothing(source_server: SourceServer) -> None:
    url = source_server.add("/census.html", ARTICLE)
    src = fetch_sources([url], settings(fetch=False))[url]
    assert src.outcome is FetchOutcome.skipped
    assert source_server.hits() == 0


class InFlight:
    """Counts concurrent requests at the server, per server and in total."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.total_now = 0
        self.total_peak = 0
        self.starts: list[float] = []

    def handler(self, name: str, hold_s: float) -> object:
        def handle(h: BaseHTTPRequestHandler) -> None:
            with self.lock:
                self.starts.append(time.monotonic())
                self.now[name] = self.now.get(name, 0) + 1
                self.peak[name] = max(self.peak.get(name, 0), self.now[name])
                self.total_now += 1
                self.total_peak = max(self.total_peak, self.total_now)
            time.sleep(hold_s)
            with self.lock:
                self.now[name] -= 1
                self.total_now -= 1
            respond(h, ARTICLE.encode())

        return handle


@pytest.fixture
def two_servers() -> Iterator[tuple[SourceServer, SourceServer]]:
    with SourceServer("127.0.0.1") as a, SourceServer("127.0.0.2") as b:
        yield a, b


def test_per_host_and_global_concurrency_limits(two_servers: tuple[SourceServer, SourceServer]) -> None:
    a, b = two_servers
    flight = InFlight()
    urls = []
    for server, name in ((a, "a"), (b, "b")):
        for i in range(8):
            urls.append(server.add_handler(f"/p{i}", flight.handler(name, 0.15)))  # type: ignore[arg-type]
    results = fetch_sources(urls, settings(concurrency=3, per_host_concurrency=2))
    assert all(r.outcome is FetchOutcome.ok for r in results.values())
    assert flight.peak["a"] <= 2 and flight.peak["b"] <= 2
    assert flight.total_peak <= 3
    assert a.hits() == 8 and b.hits() == 8


def test_minimum_interval_between_requests_to_a_host(source_server: SourceServer) -> None:
    flight = InFlight()
    urls = [source_server.add_handler(f"/p{i}", flight.handler("a", 0)) for i in range(4)]  # type: ignore[arg-type]
    fetch_sources(urls, settings(host_interval_s=0.2))
    starts = sorted(flight.starts)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(starts) == 4
    assert min(gaps) >= 0.15  # spaced by the interval (a little slack for clock granularity)


# cache ----------------------------------------------------------------------------------------


def test_second_run_makes_no_request(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/census.html", ARTICLE)
    cache = DiskCache(tmp_path, "test-secret")
    first = fetch_sources([url], settings(), cache)[url]
    second = fetch_sources([url], settings(), cache)[url]
    assert source_server.hits() == 1
    assert second.from_cache and not first.from_cache
    assert second.text == first.text and second.text_hash == first.text_hash
    assert second.info.final_url == url


def test_stale_entry_revalidated_with_etag(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/census.html", ARTICLE, headers={"ETag": '"v1"'})
    cache = DiskCache(tmp_path, "test-secret")
    fetch_sources([url], settings(cache_max_age_s=0), cache)
    again = fetch_sources([url], settings(cache_max_age_s=0), cache)[url]
    assert source_server.hits() == 2
    assert source_server.full_hits() == 1  # the second was a 304
    assert source_server.requests[1].headers.get("if-none-match") == '"v1"'
    assert again.outcome is FetchOutcome.ok and again.from_cache
    assert "14 million residents" in again.text


def test_stale_entry_revalidated_with_last_modified_after_redirect(
    source_server: SourceServer,
    tmp_path: Path,
) -> None:
    stamp = "Wed, 21 Oct 2025 07:28:00 GMT"
    source_server.add("/census.html", ARTICLE, headers={"Last-Modified": stamp})
    url = source_server.add_redirect("/go", "/census.html")
    cache = DiskCache(tmp_path, "test-secret")
    fetch_sources([url], settings(cache_max_age_s=0), cache)
    again = fetch_sources([url], settings(cache_max_age_s=0), cache)[url]
    assert source_server.full_hits("/census.html") == 1
    assert source_server.hits("/census.html") == 2
    assert again.outcome is FetchOutcome.ok and again.from_cache


def test_changed_page_is_downloaded_again(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/census.html", ARTICLE, headers={"ETag": '"v1"'})
    cache = DiskCache(tmp_path, "test-secret")
    fetch_sources([url], settings(cache_max_age_s=0), cache)
    source_server.add("/census.html", ARTICLE.replace("14 million", "15 million"), headers={"ETag": '"v2"'})
    again = fetch_sources([url], settings(cache_max_age_s=0), cache)[url]
    assert "15 million" in again.text and not again.from_cache


def test_failures_cached_briefly_refusals_never(source_server: SourceServer, tmp_path: Path) -> None:
    missing = source_server.url("/missing")
    page = source_server.add("/census.html", ARTICLE)
    cache = DiskCache(tmp_path, "test-secret")
    fetch_sources([missing], settings(), cache)
    again = fetch_sources([missing], settings(), cache)[missing]
    assert again.outcome is FetchOutcome.unreachable and again.from_cache
    assert source_server.hits("/missing") == 1
    # Refused by one run's allowlist, the source is still fetched by a run that admits it.
    refused = fetch_sources([page], settings(allowed_domains=["example.org"]), cache)[page]
    assert refused.outcome is FetchOutcome.disallowed
    admitted = fetch_sources([page], settings(), cache)[page]
    assert admitted.outcome is FetchOutcome.ok
    # And a cached source is not served to a run whose allowlist excludes it.
    refused_again = fetch_sources([page], settings(allowed_domains=["example.org"]), cache)[page]
    assert refused_again.outcome is FetchOutcome.disallowed


def test_corrupt_cache_entry_is_ignored(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/census.html", ARTICLE)
    cache = DiskCache(tmp_path, "test-secret")
    fetch_sources([url], settings(), cache)
    for entry in (tmp_path / CACHE_NAMESPACE).glob("*.json"):
        entry.write_text('{"key": "trunc', encoding="utf-8")
    again = fetch_sources([url], settings(), cache)[url]
    assert again.outcome is FetchOutcome.ok and not again.from_cache
    assert source_server.hits() == 2


def test_fetch_all_inside_a_running_loop(source_server: SourceServer) -> None:
    import asyncio

    url = source_server.add("/census.html", ARTICLE)
    results = asyncio.run(fetch_all(iter([url]), settings())).sources
    assert results[url].outcome is FetchOutcome.ok


def test_many_pages_in_one_run(source_server: SourceServer) -> None:
    n = 80
    urls = [source_server.add(f"/d{i}.html", ARTICLE.replace("14 million", f"{i} million")) for i in range(n)]
    results = fetch_sources(urls, settings())
    for i, url in enumerate(urls):
        src = results[url]
        assert src.outcome is FetchOutcome.ok, src.error
        assert f"counted {i} million residents" in src.text
        assert src.title == "City census 2020" and src.date == "2021-03-04"
    assert source_server.hits() == n


@pytest.mark.parametrize("passes", [1, 2, 3, 50])
def test_a_cancelled_fetch_leaves_no_fetch_running(source_server: SourceServer, passes: int) -> None:
    """Cancelled at any point, also while its fetches are still being started (in slices, one
    pass of the event loop apart), no fetch goes on: none is left pending, no request follows."""
    import asyncio

    flight = InFlight()
    urls = [source_server.add_handler(f"/p{i}", flight.handler("a", 0.2)) for i in range(40)]  # type: ignore[arg-type]

    async def cancel_after_passes() -> list[asyncio.Task[object]]:
        run = asyncio.create_task(fetch_all(urls, settings(concurrency=2)))
        for _ in range(passes):
            await asyncio.sleep(0)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]

    assert asyncio.run(cancel_after_passes()) == []
    time.sleep(0.5)  # anything still going would have sent its next request by now
    assert len(flight.starts) <= 2  # at most the two in flight when it was cancelled
