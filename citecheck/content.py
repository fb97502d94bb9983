"""Bytes + content type → text, title and date, or a reason the content is not extractable.

- HTML: trafilatura's main text (plus title and date); when it finds no main text, or far
  less than the page shows, the page's whole visible text instead. Extracted in a thread,
  or — for runs of many pages — in an `ExtractionWorker` process on another core, which
  also builds each page's `evidence.PageIndex`; the text is the same either way.
- PDF: pypdf in a separate process (`python -m citecheck.content`), killed after
  `PDF_TIMEOUT_S` and reading at most `PDF_MAX_PAGES` pages, so a hostile PDF cannot hang or
  exhaust the run.
- text/plain and Markdown (and other `text/*`): as they are.
- Anything else (images, archives, …), or no usable text (an empty page, a login or consent
  wall), is not extractable: a claim is never passed on a page we could not read.

Charset: a byte-order mark, then the `Content-Type` charset, then the document's own
`<meta charset>`, then UTF-8 — each tried strictly, so a wrong header charset falls through
to one that decodes — and finally Windows-1252, which a mislabelled legacy page almost
always is.
"""

from __future__ import annotations

import asyncio
import codecs
import copy
import functools
import gc
import io
import json
import pickle
import re
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import lxml.html
from lxml import etree

if TYPE_CHECKING:
    from trafilatura.settings import Extractor

    from citecheck.evidence import PageIndex
    from citecheck.models import Claim

PDF_TIMEOUT_S = 30.0
PDF_MAX_PAGES = 300
# Fewer letters than this and a page has no text worth checking a claim against.
MIN_LETTERS = 20
# A short page mostly asking to sign in or accept cookies is a wall, not the source.
WALL_MAX_CHARS = 600
_WALL_WORDS = re.compile(
    r"\b(sign[ -]?in|log[ -]?in|sign[ -]?up|subscribe to (continue|read)|create an account|"
    r"accept (all )?cookies|cookie (settings|preferences|consent)|we value your privacy|"
    r"enable javascript|javascript is (disabled|required)|verify you are (a )?human|"
    r"are you a robot|access denied|captcha)\b",
    re.IGNORECASE,
)
_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_PDF_TYPES = {"application/pdf", "application/x-pdf"}
_TEXT_TYPES = {"application/json", "application/xml", "application/x-markdown", "application/markdown"}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BLOCK_TAGS = (
    "p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6",
    "section", "article", "blockquote", "pre", "dd", "dt", "figcaption", "table", "ul", "ol",
)  # fmt: skip


@dataclass(frozen=True)
class ExtractedContent:
    text: str = ""
    title: str | None = None
    date: str | None = None
    error: str | None = None  # set: the content is not extractable, and this says why
    kind: str = "unknown"  # html | pdf | text | unknown


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def sniff_kind(body: bytes, content_type: str | None) -> str:
    """html / pdf / text / unknown, from the declared type, or the bytes when none is given."""
    mt = media_type(content_type)
    if mt in _HTML_TYPES:
        return "html"
    if mt in _PDF_TYPES:
        return "pdf"
    if mt.startswith("text/") or mt in _TEXT_TYPES or mt.endswith("+json") or mt.endswith("+xml"):
        return "text"
    if mt and mt not in ("application/octet-stream", "binary/octet-stream"):
        return "unknown"
    head = body[:1024].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "pdf"
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    if body and b"\x00" not in body[:4096]:
        return "text"
    return "unknown"


def _valid_codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_text(body: bytes, content_type: str | None = None, *, html: bool = False) -> str:
    """Decode bytes by BOM, header charset, `<meta charset>` (HTML), UTF-8, then Windows-1252."""
    for bom, enc in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if body.startswith(bom):
            return body.decode(enc, errors="replace").lstrip("\ufeff")
    candidates = [_valid_codec(header_charset(content_type))]
    if html:
        m = _META_CHARSET.search(body[:4096])
        candidates.append(_valid_codec(m.group(1).decode("ascii", "ignore")) if m else None)
    candidates.append("utf-8")
    for enc in candidates:
        if enc:
            try:
                return body.decode(enc)
            except (UnicodeDecodeError, LookupError):
                continue
    return body.decode("cp1252", errors="replace")


def _parse(html: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def _visible(tree: lxml.html.HtmlElement) -> str:
    """All text a reader would see (mutates `tree`): no scripts, styles or head, one line a block."""
    for bad in tree.xpath("//script|//style|//noscript|//template|//head|//svg"):
        bad.drop_tree()
    for el in tree.iter(*_BLOCK_TAGS):
        el.tail = "\n" + (el.tail or "")
    lines = (" ".join(line.split()) for line in tree.text_content().splitlines())
    return "\n".join(line for line in lines if line)


def visible_text(html: str) -> str:
    """All text a reader would see: no scripts, styles or head, one line per block."""
    tree = _parse(html)
    return _visible(tree) if tree is not None else ""


def _title(tree: lxml.html.HtmlElement) -> str | None:
    for xpath in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()"):
        found = " ".join(" ".join(str(t) for t in tree.xpath(xpath)).split())
        if found:
            return found
    return None


@functools.cache
def _trafilatura_options() -> Extractor:
    """trafilatura's options for our extraction, built once: building them (reading its config
    values) took 0.17 ms of the 1.1 ms a short page takes. trafilatura copies them before any
    change of its own, so one object serves every page (each call sets its URL on a copy)."""
    from trafilatura.settings import Extractor

    return Extractor(output_format="python", fast=True, comments=False, tables=True)


def extract_html(html: str, url: str | None = None) -> ExtractedContent:
    # Imported here: trafilatura is slow to import and only HTML needs it.
    from htmldate import find_date
    from trafilatura import bare_extraction

    tree = _parse(html)
    if tree is None:
        return ExtractedContent(kind="html")
    # trafilatura's own metadata pass costs as much as its text extraction; the title and
    # htmldate's fast (header and markup) date search give the same fields for a fraction.
    title = _title(tree)
    try:
        date = find_date(tree, extensive_search=False, original_date=True, url=url)
    except ValueError:
        date = None
    options = copy.copy(_trafilatura_options())
    options.url = options.source = url  # what bare_extraction(url=…) would set
    doc = bare_extraction(html, options=options)
    main = (getattr(doc, "text", None) or "").strip() if doc is not None else ""
    visible = _visible(tree)
    # trafilatura sometimes keeps only a teaser of a page with unusual markup; a claim's
    # evidence may be anywhere, so prefer the whole visible text when it is far longer.
    text = main if len(main) * 3 >= len(visible) or len(main) >= 2000 else visible
    return ExtractedContent(text=text, title=title, date=date, kind="html")


def unusable_reason(text: str) -> str | None:
    """Why a text is no source to check a claim against (empty, or a login/consent wall)."""
    letters = 0
    for ch in text:  # stops at MIN_LETTERS: a 5 MB page needs no full count
        if ch.isalpha():
            letters += 1
            if letters >= MIN_LETTERS:
                break
    if letters < MIN_LETTERS:
        return "no readable text on the page" if not text.strip() else "almost no text on the page"
    if len(text) <= WALL_MAX_CHARS and _WALL_WORDS.search(text):
        return "the page shows only a login, consent or bot-check wall"
    return None


def pdf_text(data: bytes, max_pages: int) -> tuple[str, str | None]:
    """Text and title of a PDF (runs in the child process)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            reader.decrypt("")
        except Exception:
            raise ValueError("the PDF is encrypted") from None
    pages = []
    for page in reader.pages[:max_pages]:
        pages.append(page.extract_text() or "")
    title = None
    try:
        meta = reader.metadata
        title = str(meta.title) if meta and meta.title else None
    except Exception:
        title = None
    return "\n\n".join(pages), title


async def extract_pdf(
    data: bytes, *, timeout_s: float = PDF_TIMEOUT_S, max_pages: int = PDF_MAX_PAGES
) -> ExtractedContent:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "citecheck.content", str(max_pages),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with asyncio.timeout(timeout_s):
            out, err = await proc.communicate(data)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return ExtractedContent(error=f"PDF text extraction took longer than {timeout_s:g} s", kind="pdf")
    try:
        result = json.loads(out.decode("utf-8"))
    except ValueError:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        return ExtractedContent(error=f"PDF text extraction failed: {tail[0]}", kind="pdf")
    if result.get("error"):
        return ExtractedContent(error=f"unreadable PDF: {result['error']}", kind="pdf")
    return ExtractedContent(text=result.get("text", ""), title=result.get("title"), kind="pdf")


async def extract_content(
    body: bytes, content_type: str | None, *, url: str | None = None, worker: ExtractionWorker | None = None
) -> ExtractedContent:
    """Text of a fetched body, or `error` saying why it is not extractable.

    HTML is extracted in a thread, or by `worker` (another process) when one is given.
    """
    content, _page = await extract_indexed(body, content_type, url=url, worker=worker)
    return content


async def extract_indexed(
    body: bytes,
    content_type: str | None,
    *,
    url: str | None = None,
    worker: ExtractionWorker | None = None,
    idle: Callable[[], bool] | None = None,
    claims: Sequence[Claim] = (),
) -> tuple[ExtractedContent, PageIndex | None]:
    """`extract_content`, plus the page's `evidence.PageIndex` when `worker` built it.

    `idle` tells the worker when this process has nothing else to do (see `ExtractionWorker`);
    `claims` (those citing the page) are checked there, their results kept in the index.
    """
    kind = sniff_kind(body, content_type)
    if kind == "unknown":
        shown = media_type(content_type) or "unknown"
        return ExtractedContent(error=f"content type {shown} has no extractable text", kind=kind), None
    if kind == "html" and worker is not None:
        return await worker.extract(body, content_type, url, idle=idle, claims=claims)
    if kind == "pdf":
        result = await extract_pdf(body)
    elif kind == "html":
        html = decode_text(body, content_type, html=True)
        # trafilatura is CPU-bound: off the event loop so other downloads keep flowing.
        result = await asyncio.to_thread(extract_html, html, url)
    else:
        result = ExtractedContent(text=decode_text(body, content_type), kind="text")
    return _usable(result), None


def _usable(result: ExtractedContent) -> ExtractedContent:
    if result.error is None and (why := unusable_reason(result.text)):
        return ExtractedContent(error=why, title=result.title, date=result.date, kind=result.kind)
    return result


# body, content type, URL, return the index, the claims citing the page (checked against it)
_Job = tuple[bytes, str | None, str | None, bool, "Sequence[Claim]"]
_Outcome = tuple[ExtractedContent, "PageIndex | None"] | BaseException
_FRAME = struct.Struct(">Q")
WORKER_FLAG = "--html-worker"
# How often a waiting pump asks whether this process is idle enough to help the worker.
_IDLE_POLL_S = 0.02


def _html_job(
    body: bytes, content_type: str | None, url: str | None, index: bool, claims: Sequence[Claim]
) -> tuple[ExtractedContent, PageIndex | None]:
    from citecheck.evidence import PageIndex, run_checks

    result = _usable(extract_html(decode_text(body, content_type, html=True), url))
    if result.error is not None or not (index or claims):
        return result, None
    page = PageIndex.build(result.text)
    for claim in claims:
        # As the pipeline would call it: the results stay in `page.checked` for it to use.
        run_checks(claim, result.text, page=page, source_date=result.date)
    return result, page


def _html_batch(jobs: list[_Job]) -> list[_Outcome]:
    """Each page extracted (indexed and checked if asked); an exception is returned, not raised
    (one bad page must not fail the others)."""
    out: list[_Outcome] = []
    for job in jobs:
        try:
            out.append(_html_job(*job))
        except Exception as exc:
            out.append(exc)
    return out


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _FRAME.pack(len(data)) + data


def _worker_main() -> int:
    """The worker process: read batches of pages on stdin, answer each on stdout, until EOF."""
    # Imported before the first batch arrives: the imports overlap the first downloads.
    import htmldate  # noqa: F401
    import trafilatura  # noqa: F401

    import citecheck.evidence  # noqa: F401

    # The imports stay for the process's life: the cycle collector need not scan them, and
    # extraction makes many small objects but few cycles (as `pipeline.check` does).
    gc.freeze()
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while len(head := stdin.read(_FRAME.size)) == _FRAME.size:
        jobs = pickle.loads(stdin.read(_FRAME.unpack(head)[0]))
        outcomes = _html_batch(jobs)
        try:
            data = _frame(outcomes)
        except Exception:  # an exception that does not pickle: send its text
            data = _frame(
                [o if not isinstance(o, BaseException) else RuntimeError(repr(o)) for o in outcomes]
            )
        stdout.write(data)
        stdout.flush()
    return 0


class ExtractionWorker:
    """HTML extraction (trafilatura), page indexing and the claims' checks in worker processes.

    All are CPU-bound and hold the GIL, so in a thread they compete with the event loop that
    drives the downloads; the workers (`python -m citecheck.content --html-worker`, plain
    child processes: nothing of the caller's `__main__` is re-run) put them on other cores.
    Pages go over a pipe in batches — whatever arrived while a worker was busy — so handing
    them over costs little; each worker takes the next batch as soon as it has answered.
    When the workers fall behind and the caller says it is idle (`idle()`: e.g. all downloads
    done), this process takes pages from the back of the queue too, in one thread. A worker
    that dies is replaced by a thread for its share from then on. Start with
    `await ExtractionWorker.start(processes=n)`, end with `await w.aclose()`.
    """

    def __init__(
        self, procs: list[asyncio.subprocess.Process], *, index: bool = True, max_batch: int = 64
    ) -> None:
        self.index = index  # also build each page's `evidence.PageIndex`
        self.max_batch = max_batch
        self._procs: list[asyncio.subprocess.Process | None] = list(procs)
        self._pumps: list[asyncio.Task[None] | None] = [None] * len(procs)
        self._queue: list[tuple[_Job, asyncio.Future[tuple[ExtractedContent, PageIndex | None]]]] = []
        self._idle: Callable[[], bool] | None = None
        self._helping = False  # this process is extracting a page in its thread

    @classmethod
    async def start(cls, *, index: bool = True, processes: int = 1) -> ExtractionWorker | None:
        """Running workers, or None when no process can be started (then use a thread)."""
        procs: list[asyncio.subprocess.Process] = []
        command = (sys.executable, "-m", "citecheck.content", WORKER_FLAG)
        pipe = asyncio.subprocess.PIPE
        for _ in range(max(1, processes)):
            try:
                procs.append(await asyncio.create_subprocess_exec(*command, stdin=pipe, stdout=pipe))
            except (OSError, ValueError):  # no interpreter path (embedded Python), no processes left
                break
        return cls(procs, index=index) if procs else None

    async def aclose(self) -> None:
        await asyncio.gather(*(p for p in self._pumps if p is not None), return_exceptions=True)
        for i, proc in enumerate(self._procs):
            self._procs[i] = None
            if proc is not None:
                # Every batch is answered: the worker holds nothing, and killing it spares the
                # run its interpreter shutdown (~0.15 s with trafilatura loaded).
                if proc.returncode is None:
                    proc.kill()
                await proc.wait()

    async def extract(
        self,
        body: bytes,
        content_type: str | None,
        url: str | None,
        *,
        idle: Callable[[], bool] | None = None,
        claims: Sequence[Claim] = (),
    ) -> tuple[ExtractedContent, PageIndex | None]:
        if idle is not None:
            self._idle = idle
        future: asyncio.Future[tuple[ExtractedContent, PageIndex | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._queue.append(((body, content_type, url, self.index, claims), future))
        for i, pump in enumerate(self._pumps):
            if pump is None or pump.done():
                self._pumps[i] = asyncio.create_task(self._run(i))
        return await future

    async def _in_worker(self, i: int, jobs: list[_Job]) -> list[_Outcome] | None:
        proc = self._procs[i]
        if proc is None or proc.stdin is None or proc.stdout is None:
            return None
        try:
            proc.stdin.write(_frame(jobs))
            await proc.stdin.drain()
            head = await proc.stdout.readexactly(_FRAME.size)
            outcomes: list[_Outcome] = pickle.loads(await proc.stdout.readexactly(_FRAME.unpack(head)[0]))
        except (OSError, asyncio.IncompleteReadError, pickle.UnpicklingError):
            return None
        return outcomes if len(outcomes) == len(jobs) else None

    async def _run(self, i: int) -> None:
        """Worker `i`'s pump: batches from the queue to the worker until the queue is empty."""
        while self._queue:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            jobs = [job for job, _ in batch]
            reply = asyncio.ensure_future(self._in_worker(i, jobs))
            while not reply.done():
                if self._queue and not self._helping and self._idle is not None and self._idle():
                    job, future = self._queue.pop()
                    self._helping = True
                    try:
                        self._settle([future], await asyncio.to_thread(_html_batch, [job]))
                    finally:
                        self._helping = False
                else:
                    await asyncio.wait({reply}, timeout=_IDLE_POLL_S)
            outcomes = reply.result()
            if outcomes is None:
                proc, self._procs[i] = self._procs[i], None
                if proc is not None and proc.returncode is None:
                    proc.kill()  # a dead or confused worker: a thread from here on
                outcomes = await asyncio.to_thread(_html_batch, jobs)
            self._settle([future for _, future in batch], outcomes)

    @staticmethod
    def _settle(
        futures: list[asyncio.Future[tuple[ExtractedContent, PageIndex | None]]], outcomes: list[_Outcome]
    ) -> None:
        for future, outcome in zip(futures, outcomes, strict=True):
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)


def _pdf_main(argv: list[str]) -> int:
    max_pages = int(argv[0]) if argv else PDF_MAX_PAGES
    data = sys.stdin.buffer.read()
    try:
        text, title = pdf_text(data, max_pages)
        out = {"text": text, "title": title}
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == [WORKER_FLAG]:
        # Through the module's own name, so what it pickles is `citecheck.content.…`, which
        # the parent can load (not `__main__.…`).
        from citecheck import content

        raise SystemExit(content._worker_main())
    raise SystemExit(_pdf_main(sys.argv[1:]))
