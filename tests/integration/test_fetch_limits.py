"""The fetch stage's bounds and categories against a real server on 127.0.0.1: one deadline per
source over hops, retries and waits; sites that refuse robots (`blocked`) told apart from dead
links; `accept-status`; binary or download bodies that are not pages."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

import pytest

from citecheck.config import Settings
from citecheck.models import FetchOutcome
from tests.integration.fetching import fetch_sources
from tests.servers import source_server as servers
from tests.servers.source_server import Page, SourceServer

source_server = servers.source_server  # the fixture, by its usual name

ARTICLE = (
    "<html><head><title>Census</title></head><body><article><p>The census counted 14 million "
    "residents in 2020, up from 12 million a decade before, the bureau said.</p></article></body></html>"
)


def settings(**kw: object) -> Settings:
    return Settings(allow_private_hosts=["127.0.0.1"], **kw)


def slow_redirect(delay_s: float, location: str):  # type: ignore[no-untyped-def]
    def handler(h: BaseHTTPRequestHandler) -> None:
        time.sleep(delay_s)
        h.send_response(302)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()

    return handler


def slow_page(delay_s: float):  # type: ignore[no-untyped-def]
    def handler(h: BaseHTTPRequestHandler) -> None:
        time.sleep(delay_s)
        body = ARTICLE.encode()
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return handler


# the per-source deadline -------------------------------------------------------------------


def test_hops_share_one_deadline(source_server: SourceServer) -> None:
    # Each hop alone is well inside the timeout; together they are not. Before, each hop had
    # its own timeout (one URL held a run for minutes through hops, retries and waits).
    source_server.add_handler("/page", slow_page(0.9))
    url = source_server.add_handler("/hop", slow_redirect(0.9, "/page"))
    src = fetch_sources([url], settings(timeout_s=1.5))[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == "timed out after 1.5 s"
    assert source_server.hits("/page") == 1  # reached, but not allowed to finish


def test_a_retry_after_beyond_what_is_left_ends_the_source(source_server: SourceServer) -> None:
    # The first 429's Retry-After fits the deadline and is waited; the second one no longer
    # fits what is left of it, so the source ends there, before its third try.
    busy = Page(b"slow down", "text/plain", 429, {"Retry-After": "4"})
    url = source_server.add_sequence("/busy", [busy, busy, Page(ARTICLE.encode(), "text/html")])
    src = fetch_sources([url], settings(timeout_s=6))[url]
    assert src.outcome is FetchOutcome.blocked
    assert src.error == "rate limited, retry after 4 s (HTTP 429, beyond the 6 s per-source deadline)"
    assert source_server.hits("/busy") == 2


def test_a_503_retry_after_beyond_the_deadline_is_unreachable(source_server: SourceServer) -> None:
    url = source_server.add("/maintenance", "back soon", "text/plain", 503, {"Retry-After": "120"})
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.unreachable
    assert src.error == (
        "HTTP 503 Service Unavailable, retry after 120 s (beyond the 10 s per-source deadline)"
    )
    assert source_server.hits("/maintenance") == 1


def test_retries_within_the_deadline_still_recover(source_server: SourceServer) -> None:
    busy = Page(b"slow down", "text/plain", 429, {"Retry-After": "0"})
    url = source_server.add_sequence("/busy", [busy, busy, Page(ARTICLE.encode(), "text/html")])
    src = fetch_sources([url], settings(timeout_s=5))[url]
    assert src.outcome is FetchOutcome.ok and "14 million" in src.text
    assert source_server.hits("/busy") == 3


# blocked ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403])
def test_refusals_are_blocked_not_unreachable(source_server: SourceServer, status: int) -> None:
    url = source_server.add("/members", "go away", "text/html", status)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.blocked
    assert src.error == f"blocked by the site (HTTP {status})"
    assert source_server.hits("/members") == 1  # a refusal is not retried


def test_429_after_its_retries_is_blocked(source_server: SourceServer) -> None:
    url = source_server.add("/busy", "slow down", "text/plain", 429, {"Retry-After": "0"})
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.blocked
    assert src.error == "blocked by the site (HTTP 429 after 3 tries)"
    assert source_server.hits("/busy") == 3


@pytest.mark.parametrize("status", [404, 410, 500])
def test_dead_links_stay_unreachable(source_server: SourceServer, status: int) -> None:
    url = source_server.add("/gone", "nothing here", "text/html", status)
    assert fetch_sources([url], settings())[url].outcome is FetchOutcome.unreachable


CLOUDFLARE = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>'
    '<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper">'
    "<h1>example.com</h1><p>Verify you are human by completing the action below.</p></div>"
    "<script>(function(){window._cf_chl_opt={cvId: '3'};}());</script></body></html>"
)
DATADOME = (
    "<html><head><title>example.com</title></head><body style='margin:0'><p id='cmsg'>Please "
    "enable JS and disable any ad blocker</p><iframe src='https://geo.captcha-delivery.com/captcha/"
    "?initialCid=AHrlqAAA' width='100%' height='100%'></iframe></body></html>"
)
PERIMETERX = (
    "<html><head><title>Access to this page has been denied</title></head><body><h1>Press &amp; "
    'Hold to confirm you are a human (and not a bot).</h1><div id="px-captcha"></div></body></html>'
)
AKAMAI = (
    "<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>You don't have "
    "permission to access this server.<P>Reference #18.1234<P>https://errors.edgesuite.net/18.1234"
    "</BODY></HTML>"
)


@pytest.mark.parametrize(
    ("body", "status", "vendor"),
    [
        (CLOUDFLARE, 200, "Cloudflare"),
        (CLOUDFLARE, 503, "Cloudflare"),
        (DATADOME, 200, "DataDome"),
        (PERIMETERX, 200, "PerimeterX"),
        (AKAMAI, 200, "Akamai"),
    ],
)
def test_challenge_pages_are_blocked(
    source_server: SourceServer, body: str, status: int, vendor: str
) -> None:
    url = source_server.add("/article", body, "text/html; charset=utf-8", status)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.blocked, src.error
    assert src.error == f"blocked by the site ({vendor} challenge page, HTTP {status})"
    assert src.text == ""
    assert source_server.hits("/article") == 1  # a challenge is not retried, not even a 503


def test_a_cloudflare_challenge_is_named_by_its_header(source_server: SourceServer) -> None:
    url = source_server.add("/a", "", "text/html", 403, {"cf-mitigated": "challenge"})
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.blocked
    assert src.error == "blocked by the site (Cloudflare challenge page, HTTP 403)"


def test_an_article_about_captchas_is_not_a_challenge(source_server: SourceServer) -> None:
    # The phrases an article may quote count only on a page the size of a challenge page.
    paragraph = (
        "<p>Sites ask visitors to verify you are human with a puzzle; the survey found 42% of "
        "people fail the first one, and most give up after the second attempt.</p>"
    )
    page = (
        f"<html><head><title>CAPTCHAs</title></head><body><article>{paragraph * 300}</article></body></html>"
    )
    url = source_server.add("/captchas", page)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.ok and "42% of people" in src.text


# accept-status ------------------------------------------------------------------------------


def test_accepted_statuses_are_live_but_not_extractable(source_server: SourceServer) -> None:
    forbidden = source_server.add("/members", "go away", "text/html", 403)
    busy = source_server.add("/busy", "slow down", "text/plain", 429, {"Retry-After": "0"})
    linkedin = source_server.add("/in/someone", "", "text/html", 999)
    gone = source_server.add("/gone", "nothing", "text/html", 404)
    urls = [forbidden, busy, linkedin, gone]
    got = fetch_sources(urls, settings(accept_status=[403, 429, 999]))
    for url, status in ((forbidden, "403 Forbidden"), (busy, "429 Too Many Requests"), (linkedin, "999")):
        assert got[url].outcome is FetchOutcome.not_extractable
        assert got[url].error == (
            f"HTTP {status}, accepted by accept-status: the link is live, its content was not read"
        )
    assert source_server.hits("/busy") == 1  # accepted at once, not retried
    assert got[gone].outcome is FetchOutcome.unreachable  # a status not listed is what it was
    # Without the setting, the same answers are what they are.
    plain = fetch_sources(urls, settings())
    assert [plain[u].outcome for u in urls[:3]] == [FetchOutcome.blocked] * 3


# bodies that are not pages --------------------------------------------------------------------


def test_binary_served_as_html_is_not_judged(source_server: SourceServer) -> None:
    url = source_server.add("/logo", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40)
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.not_extractable
    assert "binary data, not the text/html its content type says" in (src.error or "")
    assert src.text == ""


def test_octet_stream_html_is_not_a_page(source_server: SourceServer) -> None:
    url = source_server.add("/dl", ARTICLE, "application/octet-stream")
    src = fetch_sources([url], settings())[url]
    assert src.outcome is FetchOutcome.not_extractable
    assert src.error == "content type application/octet-stream has no extractable text"
