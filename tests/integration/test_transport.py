"""The fetcher's HTTP/1.1 transport against real servers on 127.0.0.1: keep-alive, servers that
close or break connections, chunked bodies, and the guard on every connection."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from citecheck.config import Settings
from citecheck.fetch.guard import GuardError
from citecheck.fetch.transport import GuardedTransport
from citecheck.models import FetchOutcome
from tests.integration.fetching import fetch_sources
from tests.servers import source_server as servers
from tests.servers.source_server import SourceServer, respond

source_server = servers.source_server  # the fixture, by its usual name

PAGE = (
    "<html><body><article><p>The survey counted 4,200 nesting pairs on the island in 2019.</p>"
    "</article></body></html>"
)


def settings(**kw: object) -> Settings:
    return Settings(allow_private_hosts=["127.0.0.1"], **kw)


def client(allow: list[str], **kw: object) -> httpx.AsyncClient:
    transport = GuardedTransport(allow_private_hosts=allow, tls_context=httpx.create_ssl_context, **kw)
    return httpx.AsyncClient(transport=transport)


def get_all(urls: list[str], allow: list[str], *, pause_s: float = 0.0) -> list[httpx.Response]:
    """GET each URL in turn on one client (bodies read), pausing between requests."""

    async def run() -> list[httpx.Response]:
        out = []
        async with client(allow) as c:
            for url in urls:
                out.append(await c.get(url))
                await asyncio.sleep(pause_s)
        return out

    return asyncio.run(run())


def test_keep_alive_connection_is_reused(source_server: SourceServer) -> None:
    urls = [source_server.add(f"/p{i}.html", PAGE) for i in range(5)]
    responses = get_all(urls, [source_server.host])
    assert [r.status_code for r in responses] == [200] * 5
    assert all("4,200 nesting pairs" in r.text for r in responses)
    assert source_server.connections() == 1


def test_connection_close_opens_a_new_connection(source_server: SourceServer) -> None:
    urls = [source_server.add(f"/c{i}.html", PAGE, headers={"Connection": "close"}) for i in range(3)]
    responses = get_all(urls, [source_server.host])
    assert [r.status_code for r in responses] == [200] * 3
    assert source_server.connections() == 3


def _close_after_response(h: BaseHTTPRequestHandler) -> None:
    """Promise keep-alive, then close the connection once the response is out."""
    respond(h, PAGE.encode())
    h.wfile.flush()
    h.close_connection = True


@pytest.mark.parametrize("pause_s", [0.0, 0.2])
def test_idle_connection_closed_by_the_server_is_replaced(
    source_server: SourceServer, pause_s: float
) -> None:
    # With a pause, the close has arrived before the next request (the idle connection is seen
    # at its end); without one, the request may go out on the closing connection and is sent
    # again on a new one.
    first = source_server.add_handler("/closing.html", _close_after_response)
    second = source_server.add("/next.html", PAGE)
    responses = get_all([first, second], [source_server.host], pause_s=pause_s)
    assert [r.status_code for r in responses] == [200, 200]
    assert "4,200 nesting pairs" in responses[1].text
    assert source_server.hits("/next.html") == 1


def _chunked(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/html; charset=utf-8")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    for part in (PAGE[:40], PAGE[40:90], PAGE[90:]):
        data = part.encode()
        h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    h.wfile.write(b"0\r\n\r\n")


def test_chunked_body_then_the_connection_is_reused(source_server: SourceServer) -> None:
    chunked = source_server.add_handler("/chunked.html", _chunked)
    plain = source_server.add("/plain.html", PAGE)
    responses = get_all([chunked, plain], [source_server.host])
    assert responses[0].text == PAGE
    assert responses[1].status_code == 200
    assert source_server.connections() == 1


def test_unread_body_is_not_reused(source_server: SourceServer) -> None:
    # The fetcher never reads an error's or a redirect's body: that connection must be closed,
    # not handed to the next request mid-message.
    target = source_server.add("/target.html", PAGE)
    moved = source_server.add(
        "/moved", "<p>" + "moved " * 5000 + "</p>", status=301, headers={"Location": "/target.html"}
    )
    results = fetch_sources([moved], settings(concurrency=1, per_host_concurrency=1))
    assert results[moved].outcome is FetchOutcome.ok
    assert results[moved].info.final_url == target
    assert source_server.connections() == 2


class _RawServer:
    """A TCP server on 127.0.0.1 answering every connection with fixed bytes, then closing."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            with conn:
                conn.recv(65536)
                conn.sendall(self.reply)

    def __enter__(self) -> _RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


@pytest.fixture
def raw_server(request: pytest.FixtureRequest) -> Iterator[_RawServer]:
    with _RawServer(request.param) as server:
        yield server


@pytest.mark.parametrize(
    ("raw_server", "error"),
    [
        (b"", "the server broke the HTTP protocol: Server disconnected without sending a response."),
        (b"NOT HTTP AT ALL\r\n\r\n", "the server broke the HTTP protocol: "),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<p>cut",
            "the server broke the HTTP protocol: peer closed connection without sending complete",
        ),
    ],
    indirect=["raw_server"],
    ids=["no-response", "not-http", "short-body"],
)
def test_broken_servers_are_unreachable_with_the_reason(raw_server: _RawServer, error: str) -> None:
    url = f"http://127.0.0.1:{raw_server.port}/page.html"
    source = fetch_sources([url], settings())[url]
    assert source.outcome is FetchOutcome.unreachable
    assert source.error is not None and source.error.startswith(error)
    assert raw_server.accepted == 1  # a new connection is never retried


def test_refused_connection_is_unreachable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        url = f"http://127.0.0.1:{port}/x"
        source = fetch_sources([url], settings())[url]
    assert source.outcome is FetchOutcome.unreachable
    assert source.error is not None and source.error.startswith("connection failed: ")


def test_transport_itself_refuses_blocked_addresses(source_server: SourceServer) -> None:
    # The fetcher checks every URL before the transport sees it; the transport checks again,
    # so nothing built on it can reach a private address by forgetting to.
    url = source_server.add("/secret.html", PAGE)

    async def get(target: str) -> httpx.Response:
        async with client([]) as c:
            return await c.get(target)

    with pytest.raises(GuardError, match="loopback"):
        asyncio.run(get(url))
    with pytest.raises(GuardError, match=r"resolves to 127\.0\.0\.1"):
        asyncio.run(get(f"http://localhost:{source_server.port}/secret.html"))
    with pytest.raises(GuardError, match="scheme 'ftp'"):
        asyncio.run(get("ftp://127.0.0.1/secret.html"))
    assert source_server.hits() == 0


def test_idle_connections_are_capped(source_server: SourceServer) -> None:
    urls = [source_server.add(f"/k{i}.html", PAGE) for i in range(4)]

    async def run() -> int:
        async with client([source_server.host], max_keepalive=1) as c:
            await asyncio.gather(*(c.get(u) for u in urls))  # four connections at once
            await asyncio.gather(c.get(urls[0]), c.get(urls[1]))
        return source_server.connections()

    # Of the four, one was kept: of the two requests after, one reuses it, one connects anew.
    assert asyncio.run(run()) == 5
