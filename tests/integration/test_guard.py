"""The SSRF guard and the allowlist: blocked forms never reach the (real, loopback) server."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterator

import httpx
import pytest

from citecheck.config import Settings
from citecheck.fetch.fetcher import check_hop
from citecheck.fetch.guard import (
    GuardError,
    blocked_reason,
    check_url,
    domain_allowed,
    parse_url,
    resolve_checked,
)
from citecheck.models import FetchOutcome
from tests.integration.fetching import fetch_sources
from tests.servers import source_server as servers
from tests.servers.source_server import SourceServer

source_server = servers.source_server  # the fixture, by its usual name

PAGE = (
    "<html><head><title>Ok</title></head><body><p>" + "Plenty of readable words here. " * 10 + "</p></body>"
)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.100.100.200", "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3",
        "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255", "192.0.2.1", "198.51.100.7",
        "203.0.113.9", "198.18.0.1", "::1", "::", "fd00:ec2::254", "fc00::1", "fe80::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:8.8.8.8", "64:ff9b::7f00:1", "2001:db8::1", "2002:7f00:1::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ],
)  # fmt: skip
def test_blocked_addresses(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "100.63.0.1"]
)
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("url", "meaning"),
    [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0/", "0.0.0.0"),
        ("http://0x08.0x08.0x08.0x08/", "8.8.8.8"),  # refused even though it means a public address
    ],
)
def test_numeric_host_forms_are_refused(url: str, meaning: str) -> None:
    with pytest.raises(GuardError, match=f"numeric host form .* as {meaning}"):
        check_url(parse_url(url), allowed_domains=[], allow_private_hosts=[])


def test_scheme_and_credentials_refused() -> None:
    for url, why in [
        ("ftp://example.org/x", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("http://user:pw@example.org/", "credentials"),
    ]:
        with pytest.raises(GuardError, match=why):
            check_url(parse_url(url), allowed_domains=[], allow_private_hosts=[])


def test_allowlist_is_suffix_match_on_labels() -> None:
    allowed = ["nature.com"]
    assert domain_allowed("nature.com", allowed)
    assert domain_allowed("www.nature.com", allowed)
    assert domain_allowed("WWW.Nature.COM.", allowed)
    assert not domain_allowed("evilnature.com", allowed)
    assert not domain_allowed("nature.com.evil.org", allowed)
    assert domain_allowed("anything.example", [])  # empty allowlist: any public host
    with pytest.raises(GuardError, match=r"domain evilnature\.com is not in allowed-domains"):
        check_url(httpx.URL("https://evilnature.com/x"), allowed_domains=allowed, allow_private_hosts=[])


def test_doi_resolver_is_exempt_only_as_first_hop() -> None:
    settings = Settings(allowed_domains=["nature.com"])
    check_hop(httpx.URL("https://doi.org/10.1038/xyz"), settings, first=True)
    with pytest.raises(GuardError, match=r"doi\.org is not in allowed-domains"):
        check_hop(httpx.URL("https://doi.org/10.1038/xyz"), settings, first=False)
    check_hop(httpx.URL("https://www.nature.com/articles/xyz"), settings, first=False)
    with pytest.raises(GuardError, match="not in allowed-domains"):
        check_hop(httpx.URL("https://publisher.example/xyz"), settings, first=False)


def _blocked_forms(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/a.html",
        f"http://127.0.0.1.:{port}/a.html",
        f"http://localhost:{port}/a.html",  # a name that resolves to a blocked address
        f"http://localhost.:{port}/a.html",
        f"http://LOCALHOST:{port}/a.html",
        f"http://2130706433:{port}/a.html",
        f"http://0x7f000001:{port}/a.html",
        f"http://0177.0.0.1:{port}/a.html",
        f"http://127.1:{port}/a.html",
        f"http://0:{port}/a.html",
        f"http://[::ffff:127.0.0.1]:{port}/a.html",
        f"http://[::ffff:7f00:1]:{port}/a.html",
        f"http://[::1]:{port}/a.html",
        f"http://[64:ff9b::7f00:1]:{port}/a.html",
    ]


def test_every_blocked_form_is_refused_with_zero_requests(source_server: SourceServer) -> None:
    source_server.add("/a.html", PAGE)
    urls = _blocked_forms(source_server.port)
    results = fetch_sources(urls, Settings())
    for url in urls:
        assert results[url].outcome is FetchOutcome.disallowed, (url, results[url].error)
        assert "SSRF guard" in (results[url].error or ""), url
    assert source_server.hits() == 0


def test_allow_private_host_admits_only_the_named_host(source_server: SourceServer) -> None:
    source_server.add("/a.html", PAGE)
    admitted = source_server.url("/a.html")
    via_name = f"http://localhost:{source_server.port}/a.html"
    results = fetch_sources([admitted, via_name], Settings(allow_private_hosts=["127.0.0.1"]))
    assert results[admitted].outcome is FetchOutcome.ok
    # 127.0.0.1 is admitted as written; a name resolving to it is not (no back door via DNS).
    assert results[via_name].outcome is FetchOutcome.disallowed
    assert "host localhost resolves to 127.0.0.1" in (results[via_name].error or "")
    assert source_server.hits() == 1


def test_allowed_name_resolves_and_connects(source_server: SourceServer) -> None:
    source_server.add("/a.html", PAGE)
    url = f"http://localhost:{source_server.port}/a.html"
    results = fetch_sources([url], Settings(allow_private_hosts=["localhost"]))
    # localhost may also resolve to ::1, where nothing listens: the checked IPv4 address is tried next.
    assert results[url].outcome is FetchOutcome.ok, results[url].error
    assert source_server.hits() == 1


@pytest.fixture
def second_server() -> Iterator[SourceServer]:
    with SourceServer("127.0.0.2") as server:
        yield server


def test_redirect_to_blocked_address_is_refused(
    source_server: SourceServer, second_server: SourceServer
) -> None:
    second_server.add("/secret", "internal metadata " * 10, "text/plain")
    source_server.add_redirect("/r", second_server.url("/secret"))
    source_server.add_redirect("/r-name", f"http://localhost:{second_server.port}/secret")
    source_server.add_redirect("/r-numeric", f"http://2130706434:{second_server.port}/secret")
    urls = [source_server.url(p) for p in ("/r", "/r-name", "/r-numeric")]
    results = fetch_sources(urls, Settings(allow_private_hosts=["127.0.0.1"]))
    for url in urls:
        assert results[url].outcome is FetchOutcome.disallowed, (url, results[url].error)
    assert results[urls[0]].error == (
        f"redirected to {second_server.url('/secret')}: "
        "address 127.0.0.2 is loopback (blocked by the SSRF guard)"
    )
    assert "redirected to http://localhost:" in (results[urls[1]].error or "")
    assert second_server.hits() == 0
    assert source_server.hits() == 3


def test_allowlist_checked_before_connecting_and_on_redirects(
    source_server: SourceServer,
    second_server: SourceServer,
) -> None:
    source_server.add("/a.html", PAGE)
    second_server.add("/b.html", PAGE)
    source_server.add_redirect("/to-second", second_server.url("/b.html"))
    settings = Settings(allowed_domains=["127.0.0.1"], allow_private_hosts=["127.0.0.1", "127.0.0.2"])
    outside = second_server.url("/b.html")
    redirect = source_server.url("/to-second")
    results = fetch_sources([outside, redirect, source_server.url("/a.html")], settings)
    assert results[outside].outcome is FetchOutcome.disallowed
    assert results[outside].error == "domain 127.0.0.2 is not in allowed-domains"
    assert results[redirect].outcome is FetchOutcome.disallowed
    assert results[source_server.url("/a.html")].outcome is FetchOutcome.ok
    assert second_server.hits() == 0


def test_resolver_checks_every_resolved_address() -> None:
    async def resolve(host: str, allow: list[str]) -> list[str]:
        return await resolve_checked(host, 80, allow)

    with pytest.raises(GuardError, match="host localhost resolves to"):
        asyncio.run(resolve("localhost", []))
    assert "127.0.0.1" in asyncio.run(resolve("localhost", ["localhost"]))
    with pytest.raises(GuardError, match="numeric host form"):
        asyncio.run(resolve("2130706433", []))


def test_tls_verifies_the_host_name_while_connecting_to_the_checked_address() -> None:
    pytest.importorskip("cryptography")
    from tests.servers.source_server import make_tls

    good, wrong = make_tls(["localhost"]), make_tls(["elsewhere.test"])
    settings = Settings(allow_private_hosts=["localhost", "127.0.0.1"])
    with SourceServer(tls=good.server) as ok_server, SourceServer(tls=wrong.server) as bad_server:
        ok_url = f"https://localhost:{ok_server.port}/a.html"
        ok_server.add("/a.html", PAGE)
        bad_server.add("/a.html", PAGE)
        by_ip = ok_server.url("/a.html")  # https://127.0.0.1:…: the certificate names only localhost
        results = fetch_sources([ok_url, by_ip], settings, ssl_context=good.client)
        assert results[ok_url].outcome is FetchOutcome.ok, results[ok_url].error
        assert results[by_ip].outcome is FetchOutcome.unreachable
        assert results[by_ip].error == (
            "TLS certificate rejected: IP address mismatch, certificate is not valid for '127.0.0.1'"
        )
        bad_url = f"https://localhost:{bad_server.port}/a.html"
        mismatch = fetch_sources([bad_url], settings, ssl_context=wrong.client)[bad_url]
        assert mismatch.outcome is FetchOutcome.unreachable
        assert (mismatch.error or "").startswith("TLS certificate rejected: Hostname mismatch")
        assert ok_server.hits() == 1 and bad_server.hits() == 0
