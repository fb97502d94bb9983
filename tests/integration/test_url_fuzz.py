"""No URL crashes the run: `fetch_all` gives every URL, however malformed, a `FetchedSource`
(issue 14: a port above 65535 ended the whole run with an OverflowError and no report).

Property test (hypothesis) over URL forms: schemes, userinfo, hosts (names, IDNs that cannot be
encoded, numeric and IPv6 forms, unclosed brackets), ports (none, out of range, not numbers),
paths, queries and fragments with any characters, surrogates included. Only the loopback source
server can be reached: every other host is outside the allowlist (refused before any
connection), and the loopback host is given only the server's port or an invalid one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citecheck.config import Settings
from citecheck.fetch.fetcher import fetch_all, fetch_key
from citecheck.fetch.guard import GuardError, parse_url
from citecheck.models import FetchedSource, FetchOutcome
from tests.servers.source_server import SourceServer

PAGE = (
    "<html><body><article><p>The survey collected 14,000 responses in 112 countries, the report "
    "says.</p></article></body></html>"
)


@pytest.fixture(scope="module")
def server() -> Iterator[SourceServer]:
    with SourceServer() as s:
        s.add("/ok", PAGE)
        yield s


ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=30)  # surrogates included
LABEL = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=70)
BAD_PORTS = st.one_of(
    st.integers(min_value=65536, max_value=10**7).map(str),
    st.integers(min_value=-99999, max_value=0).map(str),
    st.just(""),
    ANY_TEXT,
)
ELSEWHERE = st.one_of(
    st.sampled_from(
        ["example.com", "xn--a.com", "-.com", "a..b", "0x7f000001", "0177.0.0.1", "127.1", "[::1]"]
    ),
    st.sampled_from(["[::1", "[fe80::1%25eth0]", "[::ffff:127.0.0.1]", "1.2.3.4.5", "999.1.1.1", ""]),
    st.builds(lambda labels: ".".join(labels), st.lists(LABEL, min_size=1, max_size=4)),
    st.builds(lambda label: label * 70 + ".com", LABEL),  # a label IDNA cannot encode: too long
    ANY_TEXT,
)


@st.composite
def url_forms(draw: st.DrawFn, port: int) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTP", "ftp", "javascript", "", "h\u0000ttp"]))
    sep = draw(st.sampled_from(["://", ":/", ":", "//", ""]))
    userinfo = draw(st.one_of(st.just(""), st.builds(lambda t: t + "@", ANY_TEXT)))
    if draw(st.booleans()):
        host = "127.0.0.1"
        port_part = draw(st.one_of(st.just(f":{port}"), BAD_PORTS.map(lambda p: ":" + p)))
    else:
        host = draw(ELSEWHERE)
        port_part = draw(
            st.one_of(st.just(""), st.integers(min_value=0, max_value=10**6).map(lambda p: f":{p}"))
        )
    path = draw(st.one_of(st.just("/ok"), st.builds(lambda t: "/" + t, ANY_TEXT)))
    query = draw(st.one_of(st.just(""), st.builds(lambda t: "?" + t, ANY_TEXT)))
    fragment = draw(st.one_of(st.just(""), st.builds(lambda t: "#" + t, ANY_TEXT)))
    return scheme + sep + userinfo + host + port_part + path + query + fragment


def run_settings() -> Settings:
    # Only the loopback server is reachable; the rest is refused before any connection.
    return Settings(allowed_domains=["127.0.0.1"], allow_private_hosts=["127.0.0.1"], timeout_s=5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fetch_all_gives_every_url_a_source_and_never_raises(
    server: SourceServer, data: st.DataObject
) -> None:
    urls = data.draw(st.lists(url_forms(server.port), min_size=1, max_size=6))
    good = server.url("/ok")
    result = asyncio.run(fetch_all([*urls, good], run_settings()))
    assert set(result.sources) == {*urls, good}
    assert result.sources[good].outcome is FetchOutcome.ok  # the others never stop it
    for url in urls:
        source = result.sources[url]
        assert isinstance(source, FetchedSource)
        assert source.info.url == fetch_key(url)
        # Every malformed form is named; none falls through to the last-resort catch.
        assert not (source.error or "").startswith("fetch failed ("), (url, source.error)
        try:
            parse_url(fetch_key(url))
        except GuardError:
            assert source.outcome is FetchOutcome.disallowed, (url, source)
        except ValueError:
            assert source.outcome is FetchOutcome.unreachable, (url, source)
            assert (source.error or "").startswith("invalid URL ("), (url, source.error)


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("http://127.0.0.1:65536/x", "invalid URL (port 65536 is outside 1-65535)"),
        ("http://example.com:99999/", "invalid URL (port 99999 is outside 1-65535)"),
        ("http://example.com:0/", "invalid URL (port 0 is outside 1-65535)"),
        ("http://example.com:abc/", "invalid URL (Invalid port: 'abc')"),
        ("http://[::1/", "invalid URL (Invalid port: ':1')"),
        (
            "http://" + "\u00e4" * 70 + ".com/",
            "invalid URL (Invalid IDNA hostname: '" + "\u00e4" * 70 + ".com')",
        ),
        ("http://\ud800.com/", "invalid URL (Invalid IDNA hostname: '\\ud800.com')"),
        ("http://exa mple.com/", "invalid URL (bad host name 'exa%20mple.com')"),
        ("http://a..b.org/x", "invalid URL (bad host name 'a..b.org': an empty label)"),
        (
            "http://xn--a.org/x",
            "invalid URL (bad host name 'xn--a.org': Codepoint U+0080 at position 1 of '\\x80' not allowed)",
        ),
    ],
)
def test_invalid_urls_are_named(url: str, error: str) -> None:
    source = asyncio.run(fetch_all([url], run_settings())).sources[url]
    assert source.outcome is FetchOutcome.unreachable
    assert source.error == error


def test_a_redirect_to_an_invalid_port_fails_that_source(server: SourceServer) -> None:
    url = server.add_redirect("/moved", "http://127.0.0.1:70000/x")
    source = asyncio.run(fetch_all([url], run_settings())).sources[url]
    assert source.outcome is FetchOutcome.unreachable
    assert (
        source.error == "redirected to http://127.0.0.1:70000/x: invalid URL (port 70000 is outside 1-65535)"
    )
