"""A real HTTP source server on 127.0.0.x for tests and benchmarks (no internet).

Usage::

    from tests.servers.source_server import source_server  # noqa: F401  (the fixture)

    def test_x(source_server):
        url = source_server.add("/a.html", "<html>…</html>", "text/html; charset=utf-8")
        ...
        assert source_server.hits("/a.html") == 1

`SourceServer(host="127.0.0.5")` binds another loopback address (Linux routes all of
127/8 to lo), for per-host limits and for SSRF tests. Every request is recorded
(`requests`, `hits`, `full_hits`), pages with an `ETag` / `Last-Modified` header answer
conditional requests with 304, and helpers add the awkward cases of a real web: redirects,
scripted status sequences (429 with Retry-After, then 200), a slow trickle, an endless body,
a gzip bomb, pages of hundreds of thousands of elements. Settings that admit the server past the
SSRF guard: `allow_private_hosts` with `server.host`.
"""

from __future__ import annotations

import contextlib
import datetime
import ssl
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

Handler = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Page:
    body: bytes
    content_type: str | None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    status: int
    headers: dict[str, str]
    peer: int = 0  # the client's port: one per connection


class SourceServer:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        latency_s: float = 0.0,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.host = host
        self.scheme = "https" if tls else "http"
        self.latency_s = latency_s  # added before every response (benchmarks)
        self._routes: dict[str, Page | Handler | list[Page]] = {}
        self._lock = threading.Lock()
        self.requests: list[Seen] = []
        self.stopping = threading.Event()
        self._httpd = _QuietServer((host, port), _make_handler(self))
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self.port = self._httpd.server_address[1]
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------
    def start(self) -> SourceServer:
        # A short poll interval keeps stop() (and so every test's teardown) quick.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> SourceServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    # routes ---------------------------------------------------------------------------------
    def add(
        self,
        path: str,
        body: bytes | str,
        content_type: str | None = "text/html; charset=utf-8",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Serve `body` at `path`; returns the page's URL."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        with self._lock:
            self._routes[path] = Page(data, content_type, status, dict(headers or {}))
        return self.url(path)

    def add_handler(self, path: str, handler: Handler) -> str:
        """Serve `path` with a function writing the whole response itself."""
        with self._lock:
            self._routes[path] = handler
        return self.url(path)

    def add_sequence(self, path: str, pages: list[Page]) -> str:
        """Answer successive requests with successive pages; the last one repeats."""
        with self._lock:
            self._routes[path] = list(pages)
        return self.url(path)

    def add_redirect(self, path: str, location: str, status: int = 302) -> str:
        return self.add(path, b"", None, status, {"Location": location})

    def add_trickle(self, path: str, *, total: int = 10_000, interval_s: float = 0.2) -> str:
        """A page that promises `total` bytes and sends one every `interval_s`."""

        def trickle(h: BaseHTTPRequestHandler) -> None:
            h.send_response(200)
            h.send_header("Content-Type", "text/plain; charset=utf-8")
            h.send_header("Content-Length", str(total))
            h.end_headers()
            for _ in range(total):
                if self.stopping.wait(interval_s):
                    return
                h.wfile.write(b"a")
                h.wfile.flush()

        return self.add_handler(path, trickle)

    def add_endless(self, path: str, content_type: str = "text/plain; charset=utf-8") -> str:
        """A body that never ends (no length; stops when the client hangs up)."""
        chunk = (b"All work and no play makes Jack a dull boy. " * 1500)[: 64 * 1024]

        def endless(h: BaseHTTPRequestHandler) -> None:
            h.close_connection = True
            h.send_response(200)
            h.send_header("Content-Type", content_type)
            h.send_header("Connection", "close")
            h.end_headers()
            while not self.stopping.is_set():
                h.wfile.write(chunk)

        return self.add_handler(path, endless)

    def add_br_flood(self, path: str, size: int = 5 * 1024 * 1024) -> str:
        """An HTML page of `size` bytes of `word<br>`: one element every 8 bytes (650,000 at
        5 MB), what HTML extraction pays for by the element."""
        return self.add(path, br_flood(size), "text/html; charset=utf-8")

    def add_link_flood(self, path: str, links: int = 100_000) -> str:
        """An HTML paragraph of `links` links (3 MB at 100,000)."""
        return self.add(path, link_flood(links), "text/html; charset=utf-8")

    def add_gzip_bomb(self, path: str, decoded_bytes: int = 200 * 1024 * 1024) -> str:
        """A small gzip body that inflates to `decoded_bytes` of text."""
        return self.add(
            path,
            gzip_bomb(decoded_bytes),
            "text/plain; charset=utf-8",
            headers={"Content-Encoding": "gzip"},
        )

    def remove(self, path: str) -> None:
        with self._lock:
            self._routes.pop(path, None)

    def route(self, path: str) -> Page | Handler | None:
        with self._lock:
            entry = self._routes.get(path) or self._routes.get(path.split("?", 1)[0])
            if isinstance(entry, list):
                return entry.pop(0) if len(entry) > 1 else entry[0]
            return entry

    # what the server saw --------------------------------------------------------------------
    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def hits(self, path: str | None = None) -> int:
        """Requests received (for `path`, or in total)."""
        with self._lock:
            return sum(1 for r in self.requests if path is None or r.path == path)

    def connections(self) -> int:
        """Distinct client connections the requests came on."""
        with self._lock:
            return len({r.peer for r in self.requests})

    def full_hits(self, path: str | None = None) -> int:
        """Requests answered with a full body (status 200), i.e. not 304s, redirects or errors."""
        with self._lock:
            return sum(1 for r in self.requests if r.status == 200 and (path is None or r.path == path))


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog of 5 makes concurrent clients wait for SYN retries (1 s each).
    request_queue_size = 1024

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients hanging up mid-response (timeouts, byte caps) are expected in these tests.
        pass


def respond(h: BaseHTTPRequestHandler, body: bytes, content_type: str = "text/html") -> None:
    """Write a whole 200 response with a Content-Length from a handler of `add_handler`."""
    h.send_response(200)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def br_flood(size: int) -> bytes:
    return b"<html><body>" + b"word<br>" * (size // 8) + b"</body></html>"


def link_flood(links: int) -> bytes:
    anchors = b"".join(b'<a href="/p/%d">link %d</a> ' % (i, i) for i in range(links))
    return b"<html><body><p>" + anchors + b"</p></body></html>"


def gzip_bomb(decoded_bytes: int) -> bytes:
    # Compressing in 1 MiB steps keeps the test process from ever holding the inflated text.
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"A" * (1024 * 1024)
    parts = [compressor.compress(block) for _ in range(decoded_bytes // len(block))]
    parts.append(compressor.flush())
    return b"".join(parts)


def _make_handler(server: SourceServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def _serve(self, head_only: bool) -> None:
            if server.latency_s:
                time.sleep(server.latency_s)
            route = server.route(self.path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            if route is None:
                page: Page | None = Page(b"not found", "text/plain", 404)
            elif isinstance(route, Page):
                page = route
            else:
                server.record(Seen(self.command, self.path, 200, headers, self.client_address[1]))
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    route(self)
                return
            status = page.status
            if status == 200 and _not_modified(page, headers):
                status = 304
            server.record(Seen(self.command, self.path, status, headers, self.client_address[1]))
            self.send_response(status)
            if page.content_type:
                self.send_header("Content-Type", page.content_type)
            for k, v in page.headers.items():
                self.send_header(k, v)
            body = b"" if status == 304 else page.body
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head_only and body:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        def do_GET(self) -> None:
            self._serve(head_only=False)

        def do_HEAD(self) -> None:
            self._serve(head_only=True)

    return _Handler


def _not_modified(page: Page, request_headers: dict[str, str]) -> bool:
    etag = next((v for k, v in page.headers.items() if k.lower() == "etag"), None)
    modified = next((v for k, v in page.headers.items() if k.lower() == "last-modified"), None)
    if etag and request_headers.get("if-none-match") == etag:
        return True
    return bool(modified and request_headers.get("if-modified-since") == modified)


@pytest.fixture
def source_server() -> Iterator[SourceServer]:
    """A started source server on 127.0.0.1 (admit it with allow_private_hosts=["127.0.0.1"])."""
    with SourceServer() as server:
        yield server


def make_pdf(pages: list[str], title: str | None = None) -> bytes:
    """A small valid PDF with one line of Helvetica text per page (pypdf extracts it)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    font_id = 3 + 2 * n_pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info_id = None
    if title is not None:
        objects.append(f"<< /Title ({title}) >>".encode("latin-1"))
        info_id = len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    trailer = (
        f"<< /Size {len(objects) + 1} /Root 1 0 R" + (f" /Info {info_id} 0 R" if info_id else "") + " >>"
    )
    out += b"trailer\n" + trailer.encode() + b"\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


@dataclass(frozen=True)
class TlsMaterial:
    """A throw-away CA and a server certificate it signed, as SSL contexts."""

    server: ssl.SSLContext  # for SourceServer(tls=...)
    client: ssl.SSLContext  # trusts only the throw-away CA, verifies host names


def make_tls(hostnames: list[str]) -> TlsMaterial:
    """A CA and a server certificate for `hostnames` (DNS names), made with `cryptography`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "citecheck test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostnames[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in hostnames]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as tmp:  # load_cert_chain reads only files
        cert_file, key_file = Path(tmp) / "cert.pem", Path(tmp) / "key.pem"
        cert_file.write_bytes(leaf.public_bytes(pem))
        key_file.write_bytes(
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cadata=ca.public_bytes(pem).decode("ascii"))
    return TlsMaterial(server=server, client=client)
