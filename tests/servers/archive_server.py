"""The Internet Archive's availability API on 127.0.0.1, for the link-rot tests (no internet).

It answers `GET /wayback/available?url=<page>` with the JSON the real API gives
(https://archive.org/help/wayback_api.php)::

    {"archived_snapshots": {"closest": {"available": true, "status": "200",
      "url": "<snapshot>", "timestamp": "20230501000000"}}}

for a page given a snapshot (`snapshot`), and `{"archived_snapshots": {}}` for any other.
`answer_with(status)` makes every answer that HTTP status instead (429 with `Retry-After`, as
the real one rate-limits); `answer_raw(body)` a body of the test's own (a malformed answer).
`looked_up` lists the pages asked about, in order.

The snapshots themselves are pages like any other: a test serves them from the source stand-in
(`SourceServer`) at the Wayback's address shape, `/web/<timestamp>/<page>` for readers and
`/web/<timestamp>id_/<page>` for the page as captured (`snapshot_path`). Point citecheck at
this server with `archive_url=server.api_url` (`--archive-url`) and admit 127.0.0.1 with
`allow_private_hosts`, as for the source stand-in.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.servers.source_server import _QuietServer

API_PATH = "/wayback/available"


def snapshot_path(timestamp: str, page_url: str, *, raw: bool = False) -> str:
    """Where the Wayback keeps `page_url` captured at `timestamp` (`raw`: the `id_` form)."""
    return f"/web/{timestamp}{'id_' if raw else ''}/{page_url}"


def closed_port_url(host: str = "127.0.0.1") -> str:
    """An availability API address where nothing listens: an archive that is down."""
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    return f"http://{host}:{port}{API_PATH}"


class ArchiveServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self._lock = threading.Lock()
        self._snapshots: dict[str, dict[str, object]] = {}
        self._status: int | None = None
        self._raw: bytes | None = None
        self.looked_up: list[str] = []
        self._httpd = _QuietServer((host, 0), _make_handler(self))
        self.port = self._httpd.server_address[1]

    def __enter__(self) -> ArchiveServer:
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.port}{API_PATH}"

    def snapshot(self, page_url: str, snapshot_url: str, timestamp: str, *, status: str = "200") -> None:
        """Answer lookups of `page_url` with this snapshot."""
        with self._lock:
            self._snapshots[page_url] = {
                "available": True,
                "url": snapshot_url,
                "timestamp": timestamp,
                "status": status,
            }

    def answer_with(self, status: int | None) -> None:
        """Answer every lookup with this HTTP status (None: answer normally again)."""
        with self._lock:
            self._status = status

    def answer_raw(self, body: bytes | None) -> None:
        """Answer every lookup with this body, status 200 (None: answer normally again)."""
        with self._lock:
            self._raw = body

    def _answer(self, path: str) -> tuple[int, bytes]:
        parts = urlsplit(path)
        if parts.path != API_PATH:
            return 404, b"not found"
        page = parse_qs(parts.query).get("url", [""])[0]
        with self._lock:
            self.looked_up.append(page)
            if self._status is not None:
                return self._status, b'{"error": "scripted"}'
            if self._raw is not None:
                return 200, self._raw
            closest = self._snapshots.get(page)
        body = {"url": page, "archived_snapshots": {"closest": closest} if closest else {}}
        return 200, json.dumps(body).encode()


def _make_handler(server: ArchiveServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            status, body = server._answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if status == 429:
                self.send_header("Retry-After", "60")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return _Handler


@pytest.fixture
def archive_server() -> Iterator[ArchiveServer]:
    """A started availability API on 127.0.0.1 (admit it with allow_private_hosts=["127.0.0.1"])."""
    with ArchiveServer() as server:
        yield server
