"""The fetcher's HTTP/1.1 transport: httpx's transport interface on h11 and asyncio streams.

The fetcher speaks httpx (its requests, responses, URLs, cookies and errors) and hands each
request straight to this transport. It replaces what httpx's default transport puts under
it — httpcore's connection pool on anyio — which cost about 1 ms of CPU per request on the
loopback benchmark (bench/fetch.py): a pool scan of every connection on each request, anyio's
cancel scopes around every read and write. (httpx's client, above a transport, cost another
0.35 ms a request for redirects, auth and hooks that the fetcher does not use.)
Here a request takes an idle keep-alive connection or opens one, speaks HTTP/1.1 through h11
(the sans-I/O protocol library httpcore itself uses), and hands the body over as it arrives.
Limits on connections are the fetcher's (its per-host semaphore); the transport keeps at most
`max_keepalive` idle connections per origin, each for at most `keepalive_expiry` seconds.

Every connection goes through `guard.resolve_checked`: the name is resolved once, every
address is checked, and the socket connects to a checked address — no second lookup. TLS
verifies the URL's host name (`server_hostname`), not the address connected to. Proxies are
never used: a proxy would make its own, unchecked, lookup.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable

import h11
import httpx

from citecheck.fetch.guard import GuardError, normalize_host, resolve_checked

_READ = 64 * 1024
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS"})
_Origin = tuple[str, str, int]


class _Connection:
    """One TCP (or TLS) connection and its HTTP/1.1 state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = 0.0
        self.received = 0  # bytes of the current response read so far

    def reusable(self, now: float, expiry: float) -> bool:
        # An idle connection the server has closed (EOF) or written to is of no further use.
        return (
            now - self.idle_since < expiry
            and not self.writer.is_closing()
            and not self.reader.at_eof()
            # Bytes the server sent unasked: the stream is out of step with the requests.
            and not self.reader._buffer
        )

    async def next_event(self) -> h11.Event | type[h11.PAUSED]:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                if not self.received:  # the peer closed before a byte of the response
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response."
                    ) from None
                raise httpx.RemoteProtocolError(str(exc)) from None
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.reader.read(_READ)
            except (OSError, ssl.SSLError) as exc:
                raise httpx.ReadError(str(exc) or type(exc).__name__) from None
            self.received += len(data)
            # b"" is the peer's close: h11 tells whether the message was complete.
            self.h11.receive_data(data)

    def close(self) -> None:
        self.writer.close()


class _Body(httpx.AsyncByteStream):
    """A response body read from its connection as the caller iterates; the connection goes
    back to the pool only when the whole message was read and both sides may go on."""

    def __init__(self, transport: GuardedTransport, origin: _Origin, conn: _Connection) -> None:
        self._transport, self._origin, self._conn = transport, origin, conn
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while not self._done:
            event = await self._conn.next_event()
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._done = True
                self._transport._release(self._origin, self._conn)
            elif isinstance(event, h11.ConnectionClosed):
                raise httpx.RemoteProtocolError("peer closed the connection before the end of the body")

    async def aclose(self) -> None:
        if not self._done:
            # Not read to its end: the connection is mid-message, so it cannot be reused.
            self._done = True
            self._transport._discard(self._conn)


class GuardedTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 with every connection through the SSRF guard (see the module docstring)."""

    def __init__(
        self,
        *,
        allow_private_hosts: Iterable[str],
        tls_context: Callable[[], ssl.SSLContext],
        max_keepalive: int = 8,
        keepalive_expiry: float = 5.0,
    ) -> None:
        self._allow = [normalize_host(a) for a in allow_private_hosts]
        # Called at the first https connection: loading CA certificates is slow, and a run
        # citing only http:// pages needs none.
        self._tls = tls_context
        self._max_keepalive = max_keepalive
        self._expiry = keepalive_expiry
        self._idle: dict[_Origin, list[_Connection]] = {}
        self._open: set[_Connection] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise GuardError(f"scheme {url.scheme!r} is not allowed (http and https only)")
        origin: _Origin = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        conn = self._idle_connection(origin)
        if conn is not None and request.method in _IDEMPOTENT:
            try:
                return await self._exchange(origin, conn, request)
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
                # A server may close an idle keep-alive connection just as it is reused; the
                # request is sent again once, on a new connection, as browsers do.
                pass
        elif conn is not None:
            return await self._exchange(origin, conn, request)
        return await self._exchange(origin, await self._connect(origin, request), request)

    async def _exchange(self, origin: _Origin, conn: _Connection, request: httpx.Request) -> httpx.Response:
        try:
            await self._send(conn, request)
            while True:
                event = await conn.next_event()
                if isinstance(event, h11.InformationalResponse):
                    continue  # 100 Continue and the like: the real response follows
                if isinstance(event, h11.Response):
                    break
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        except BaseException:
            self._discard(conn)
            raise
        return httpx.Response(
            event.status_code,
            headers=event.headers.raw_items(),
            stream=_Body(self, origin, conn),
            extensions={"http_version": b"HTTP/" + event.http_version, "reason_phrase": event.reason},
        )

    async def aclose(self) -> None:
        for conn in list(self._open):
            conn.close()
        self._open.clear()
        self._idle.clear()

    def _idle_connection(self, origin: _Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.reusable(now, self._expiry):
                return conn
            self._discard(conn)
        return None

    async def _connect(self, origin: _Origin, request: httpx.Request) -> _Connection:
        scheme, host, port = origin
        tls = scheme == "https"
        timeout = request.extensions.get("timeout", {}).get("connect")
        last: Exception | None = None
        for address in await resolve_checked(host, port, self._allow):
            try:
                async with asyncio.timeout(timeout):
                    reader, writer = await asyncio.open_connection(
                        address,
                        port,
                        ssl=self._tls() if tls else None,
                        server_hostname=host if tls else None,
                        limit=_READ,
                    )
            except TimeoutError:
                last = httpx.ConnectTimeout(f"connecting to {host} ({address}) timed out")
                continue
            except (OSError, ssl.SSLError) as exc:
                # str() of a certificate failure reads "… certificate verify failed: <why> (_ssl.c…)"
                last = httpx.ConnectError(str(exc) or type(exc).__name__)
                continue
            conn = _Connection(reader, writer)
            self._open.add(conn)
            return conn
        assert last is not None  # resolve_checked returns at least one address or raises
        raise last

    async def _send(self, conn: _Connection, request: httpx.Request) -> None:
        conn.received = 0
        head = h11.Request(method=request.method, target=request.url.raw_path, headers=request.headers.raw)
        data = conn.h11.send(head) or b""
        async for chunk in request.stream:  # type: ignore[union-attr]
            data += conn.h11.send(h11.Data(data=chunk)) or b""
        data += conn.h11.send(h11.EndOfMessage()) or b""
        try:
            conn.writer.write(data)
            await conn.writer.drain()
        except (OSError, ssl.SSLError) as exc:
            raise httpx.WriteError(str(exc) or type(exc).__name__) from None

    def _release(self, origin: _Origin, conn: _Connection) -> None:
        if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            conn.h11.start_next_cycle()
            idle = self._idle.setdefault(origin, [])
            if len(idle) < self._max_keepalive:
                conn.idle_since = time.monotonic()
                idle.append(conn)
                return
        self._discard(conn)

    def _discard(self, conn: _Connection) -> None:
        self._open.discard(conn)
        conn.close()
