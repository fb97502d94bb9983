"""`citecheck demo`: check the bundled example document against its bundled sources.

The sources are served by this command on 127.0.0.1 (a port the OS picks) and only that host is
admitted past the SSRF guard, for this run only. The example links point at the reserved name
`demo.citecheck.test`, rewritten to the local server in a temporary copy of the document.
No API key and no internet are needed: the judge is off, so only the deterministic checks run.
"""

from __future__ import annotations

import functools
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import as_file, files
from pathlib import Path

from citecheck.config import Settings
from citecheck.models import Report, SelectedFile
from citecheck.redact import Redactor

DEMO_HOST = "https://demo.citecheck.test/"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def run_demo(redact: Redactor) -> Report:
    from citecheck.pipeline import check

    with as_file(files("citecheck") / "examples") as examples:
        handler = functools.partial(_QuietHandler, directory=str(examples / "sources"))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{server.server_address[1]}/"
            with tempfile.TemporaryDirectory(prefix="citecheck-demo-") as tmp:
                doc = Path(tmp) / "demo.md"
                doc.write_text(
                    (examples / "demo.md").read_text(encoding="utf-8").replace(DEMO_HOST, base),
                    encoding="utf-8",
                )
                settings = Settings(judge="none", allow_private_hosts=["127.0.0.1"])
                demo = [SelectedFile(path=str(doc), display="examples/demo.md")]
                return check(settings, demo, environ={}, redact=redact)
        finally:
            server.shutdown()
            server.server_close()
