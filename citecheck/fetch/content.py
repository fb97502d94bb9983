"""Bytes + content type → text, title and date, or a reason the content is not extractable.

- HTML: trafilatura's main text (plus title and date); when it finds no main text, or far
  less than the page shows, the page's whole visible text instead. A page of more than
  `MAX_MAIN_TEXT_TAGS` tags is read whole, without trafilatura, whose cost is by the element.
  Either way without the text a reader does not see (`hidden_xpaths`): a page could otherwise
  hide a sentence for the judge to quote as the page's evidence.
- PDF: pypdf, reading at most `PDF_MAX_PAGES` pages.
- text/plain and Markdown (and other `text/*`): as they are.
- Anything else (images, archives, …), binary data under a text type, HTML or text sent as a
  download (`application/octet-stream`; a PDF so sent is read), or no usable text (an empty
  page, a login or consent wall), is not extractable: a claim is never passed on a page we
  could not read.

Every page with text is read by `workers.ExtractionWorker` processes, which also run the
caller's `Prepare` on it (the claims' checks), each page under what is left of its source's
deadline: a page past it is stopped with its process (`extract_page` raises `TimeoutError`),
and a page that needs more than a worker's memory limit fails alone, so a hostile page can
neither hang nor exhaust the run. Only where no process can be started is a page read in a
thread (unbounded, and not prepared).

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
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import lxml.html
    from trafilatura.settings import Extractor

    from citecheck.fetch.workers import ExtractionWorker

T = TypeVar("T")
# What the caller makes of a page from its text and date, run in the worker process that
# reads the page, so that the work overlaps the downloads still under way and counts against
# the source's deadline; a page read otherwise (in a thread) is not prepared (the caller makes
# it itself). Opaque to this stage; it and what it returns must pickle (e.g. a
# `functools.partial` of a module-level function).
Prepare = Callable[[str, str | None], T]

PDF_MAX_PAGES = 300
# trafilatura's cost is by the element (20–60 µs and about 1.5 KB each); a page with more tags
# than this is read whole with lxml: 5 MB of `word<br>` (650,000 elements) took 2.6 s and 430 MB
# so, against 16.6 s and 1 GB; 100,000 links 0.6 s against 3.7 s (the same text either way). An
# ordinary article has a few thousand.
MAX_MAIN_TEXT_TAGS = 50_000
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
_DOWNLOAD_TYPES = {"application/octet-stream", "binary/octet-stream"}
# How much of a body `looks_binary` reads: binary formats show NUL bytes in their first header.
SNIFF_BYTES = 4096
# C0 control characters no text uses (tab, line feed, form feed, carriage return and escape are
# left out); NUL is tested on its own.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))
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
    kind: str = "unknown"  # html | pdf | text | binary (a text type on binary data) | unknown


# What reads a page's text from its body where the page is read (a worker process): picklable.
Read = Callable[[], ExtractedContent]


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _declared_text(mt: str) -> str | None:
    """The kind a declared media type promises: html, text, or None (not a text type)."""
    if mt in _HTML_TYPES:
        return "html"
    if mt.startswith("text/") or mt in _TEXT_TYPES or mt.endswith("+json") or mt.endswith("+xml"):
        return "text"
    return None


def looks_binary(body: bytes, content_type: str | None = None) -> bool:
    """Whether a body said to be text is binary data (an image, an archive, …): NUL bytes, or
    mostly control characters, in its first `SNIFF_BYTES` — unless it is UTF-16/32 text."""
    if body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    charset = (header_charset(content_type) or "").lower().replace("_", "-")
    if charset.startswith(("utf-16", "utf-32", "ucs-2", "ucs-4")):
        return False
    head = body[:SNIFF_BYTES]
    if b"\x00" in head:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls * 10 > len(head)


def sniff_kind(body: bytes, content_type: str | None) -> str:
    """html / pdf / text / binary / unknown, from the declared type, or the bytes when none is given.

    `binary`: a text type declared on binary data — not read as a page. A download type
    (`application/octet-stream`) is a page only if it is a PDF (servers often send PDFs so);
    HTML or text sent as a download is not what a reader sees in a browser, so it is not a page
    either. With no type at all, the bytes decide, as a browser would.
    """
    mt = media_type(content_type)
    declared = _declared_text(mt)
    if declared is not None:
        return "binary" if looks_binary(body, content_type) else declared
    if mt in _PDF_TYPES:
        return "pdf"
    head = body[:1024].lstrip().lower()
    if mt in _DOWNLOAD_TYPES:
        return "pdf" if head.startswith(b"%pdf-") else "unknown"
    if mt:
        return "unknown"
    if head.startswith(b"%pdf-"):
        return "pdf"
    if looks_binary(body):
        return "unknown"
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    return "text" if body else "unknown"


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
    # Imported here: the process that only downloads (its workers parse HTML) never needs it.
    import lxml.html
    from lxml import etree

    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


# Elements no reader sees: an inline style of `display: none` or `visibility: hidden /
# collapse` (any case and spacing, `!important` or not), the `hidden` attribute (whatever its
# value: `hidden="until-found"` too) and `aria-hidden="true"` (text kept from assistive
# technology is decoration or a copy, not the page's statement to every reader). Their
# descendants go with them; the text around them stays.
_STYLE = "translate(normalize-space(@style), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ ', 'abcdefghijklmnopqrstuvwxyz')"
# A union of three steps, each testing an attribute before reading it: a third of the time
# of one step testing them all on every element.
HIDDEN_XPATH = (
    "//*[@hidden] | //*[@aria-hidden][translate(@aria-hidden, 'TRUE', 'true') = 'true'] | "
    f"//*[@style][contains({_STYLE}, 'display:none') or contains({_STYLE}, 'visibility:hidden') or "
    f"contains({_STYLE}, 'visibility:collapse')]"
)
# A page's own `<style>` blocks: a rule at their top level that hides the elements of a class
# or id (`.x`, `#y`, `p.x.z`, in a comma list) hides them too, unless a rule in an at-rule
# (`@media print`, `@media (min-width: …)`) or another top-level rule shows that selector;
# a selector with a combinator, a pseudo-class or an attribute is not followed (a browser
# may not apply it), nor a bare tag. Linked stylesheets are not fetched: text hidden by a
# class they define is read as the page's, and meets the judge's evidence rules like any.
MAX_STYLE_CHARS = 200_000
MAX_HIDING_SELECTORS = 200
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.DOTALL)
_CSS_BRACE = re.compile(r"[{}]")
_CSS_HIDES = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))\s*(?:!\s*important\s*)?(?:;|$)",
    re.IGNORECASE,
)
_CSS_SHOWS = re.compile(r"(?:^|;)\s*(?:display|visibility)\s*:", re.IGNORECASE)
_CSS_SELECTOR = re.compile(r"([a-zA-Z][\w-]*)?((?:[.#][\w-]+)+)")
_CSS_PART = re.compile(r"([.#])([\w-]+)")


def _css_rules(css: str) -> list[tuple[str, str, bool]]:
    """(selector list, declarations, inside an at-rule) of each style rule of `css`."""
    rules: list[tuple[str, str, bool]] = []
    stack: list[tuple[str, int]] = []  # open blocks: prelude, where the body starts
    start = 0
    for m in _CSS_BRACE.finditer(css):
        if m.group() == "{":
            stack.append((css[start : m.start()].strip(), m.end()))
        elif stack:
            prelude, body = stack.pop()
            if not prelude.startswith("@"):
                rules.append((prelude, css[body : m.start()], bool(stack)))
        start = m.end()
    return rules


def _selector_xpath(selector: str) -> str | None:
    """The XPath test for a simple compound selector (`p.x#y`), or None for any other."""
    m = _CSS_SELECTOR.fullmatch(selector)
    if m is None:
        return None
    tests = [f"self::{m.group(1).lower()}"] if m.group(1) else []
    for kind, name in _CSS_PART.findall(m.group(2)):
        if kind == ".":
            tests.append(f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')")
        else:
            tests.append(f"@id = '{name}'")
    return "(" + " and ".join(tests) + ")"


def _style_block_xpath(tree: lxml.html.HtmlElement) -> str | None:
    """An XPath for the elements the page's `<style>` blocks hide (see above), or None."""
    css = "".join(str(t) for t in tree.xpath("//style/text()"))
    if "none" not in css and "hidden" not in css and "collapse" not in css:
        return None
    css = _CSS_COMMENT.sub(" ", css[:MAX_STYLE_CHARS])
    hiding: dict[str, None] = {}
    shown: set[str] = set()
    for prelude, declarations, conditional in _css_rules(css):
        selectors = [" ".join(s.split()) for s in prelude.split(",")]
        if not conditional and _CSS_HIDES.search(declarations):
            hiding.update(dict.fromkeys(selectors))
        elif conditional or _CSS_SHOWS.search(declarations):
            shown.update(selectors)
    tests = [t for s in hiding if s not in shown and (t := _selector_xpath(s)) is not None]
    return "//*[" + " or ".join(tests[:MAX_HIDING_SELECTORS]) + "]" if tests else None


def hidden_xpaths(tree: lxml.html.HtmlElement) -> list[str]:
    """XPaths of the elements of `tree` that no reader sees (see above)."""
    from_styles = _style_block_xpath(tree)
    return [HIDDEN_XPATH] if from_styles is None else [HIDDEN_XPATH, from_styles]


def _drop_hidden(tree: lxml.html.HtmlElement, xpaths: list[str]) -> None:
    for xpath in xpaths:
        for element in tree.xpath(xpath):
            if element.getparent() is not None:
                element.drop_tree()  # its tail stays


def _visible_at_most(tree: lxml.html.HtmlElement) -> int:
    """A bound on `len(_visible(tree))`, cheaper to get: all of the tree's text, scripts and
    head included, and one line break for each block (`_visible` only drops text, adds a
    break after each block, and shortens white space)."""
    return len(tree.text_content()) + sum(1 for _ in tree.iter(*_BLOCK_TAGS))


def _visible(tree: lxml.html.HtmlElement, hidden: list[str] | None = None) -> str:
    """All text a reader would see (mutates `tree`): no scripts, styles or head, nor the
    elements `hidden` finds (default: `hidden_xpaths`), one line a block."""
    _drop_hidden(tree, hidden_xpaths(tree) if hidden is None else hidden)
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


@functools.cache
def _title_paths() -> tuple[Callable[[lxml.html.HtmlElement], list[object]], ...]:
    """Where a page's title is, in order of preference; compiled once, not at every page."""
    from lxml import etree

    return tuple(
        etree.XPath(p) for p in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()")
    )


def _title(tree: lxml.html.HtmlElement) -> str | None:
    for xpath in _title_paths():
        found = " ".join(" ".join(str(t) for t in xpath(tree)).split())
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
    if html.count("<") > MAX_MAIN_TEXT_TAGS:
        return ExtractedContent(text=_visible(tree), title=title, date=date, kind="html")
    options = copy.copy(_trafilatura_options())
    options.url = options.source = url  # what bare_extraction(url=…) would set
    hidden = hidden_xpaths(tree)
    doc = bare_extraction(html, options=options, prune_xpath=hidden)
    main = (getattr(doc, "text", None) or "").strip() if doc is not None else ""
    # trafilatura sometimes keeps only a teaser of a page with unusual markup; a claim's
    # evidence may be anywhere, so prefer the whole visible text when it is far longer. Most
    # pages need no visible text to know it is not (it cost ~5 % of a short page's extraction).
    if len(main) >= 2000 or len(main) * 3 >= _visible_at_most(tree):
        return ExtractedContent(text=main, title=title, date=date, kind="html")
    visible = _visible(tree, hidden)
    text = main if len(main) * 3 >= len(visible) else visible
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


def pdf_content(data: bytes, max_pages: int = PDF_MAX_PAGES) -> ExtractedContent:
    """A PDF's text and title, or why it is unreadable."""
    try:
        text, title = pdf_text(data, max_pages)
    except Exception as exc:
        return ExtractedContent(error=f"unreadable PDF: {type(exc).__name__}: {exc}"[:300], kind="pdf")
    return ExtractedContent(text=text, title=title, kind="pdf")


def html_content(body: bytes, content_type: str | None, url: str | None) -> ExtractedContent:
    return extract_html(decode_text(body, content_type, html=True), url)


def text_content(body: bytes, content_type: str | None) -> ExtractedContent:
    return ExtractedContent(text=decode_text(body, content_type), kind="text")


# The modules reading a page of a kind imports, slow to import (trafilatura's ~0.5 s): a worker
# imports them before it takes its first page of the kind, so that no page's time pays for them.
READ_IMPORTS: dict[Callable[..., ExtractedContent], tuple[str, ...]] = {
    html_content: ("htmldate", "trafilatura"),
    pdf_content: ("pypdf",),
}


def reader(body: bytes, content_type: str | None, url: str | None = None) -> Read | ExtractedContent:
    """What reads the body's text (a picklable callable, to run where the page is read), or,
    for a body with no text to read (an image, binary data under a text type), why not."""
    kind = sniff_kind(body, content_type)
    if kind == "unknown":
        shown = media_type(content_type) or "unknown"
        return ExtractedContent(error=f"content type {shown} has no extractable text", kind=kind)
    if kind == "binary":
        shown = media_type(content_type)
        error = f"the body is binary data, not the {shown} its content type says: no extractable text"
        return ExtractedContent(error=error, kind=kind)
    if kind == "pdf":
        return functools.partial(pdf_content, body)
    if kind == "html":
        return functools.partial(html_content, body, content_type, url)
    return functools.partial(text_content, body, content_type)


async def extract_page(
    body: bytes,
    content_type: str | None,
    *,
    url: str | None = None,
    worker: ExtractionWorker | None = None,
    prepare: Prepare[T] | None = None,
    limit_s: float | None = None,
) -> tuple[ExtractedContent, T | None]:
    """Text of a fetched body, or `error` saying why it is not extractable; and what `prepare`
    made of it (None without a worker, or when the page has no usable text).

    With `worker`, the page is read and prepared in a worker process, in at most `limit_s`
    seconds from when the worker takes it (None: no limit); past them the worker is stopped and
    this raises `TimeoutError`. Without one (no process could be started), it is read in a
    thread, without a limit, and not prepared.
    """
    read = reader(body, content_type, url)
    if isinstance(read, ExtractedContent):
        return read, None
    return await run_read(read, len(body), worker=worker, prepare=prepare, limit_s=limit_s)


async def run_read(
    read: Read,
    size: int,
    *,
    worker: ExtractionWorker | None = None,
    prepare: Prepare[T] | None = None,
    limit_s: float | None = None,
) -> tuple[ExtractedContent, T | None]:
    """`read` run where a page is read (see `extract_page`): in a worker process within
    `limit_s`, prepared there; else in a thread, not prepared. `size`: the body's bytes."""
    if worker is not None:
        return await worker.extract(read, prepare=prepare, limit_s=limit_s, size=size)
    return usable(await asyncio.to_thread(read)), None


def usable(result: ExtractedContent) -> ExtractedContent:
    """`result`, or an error saying why its text is no source to check against."""
    if result.error is None and (why := unusable_reason(result.text)):
        return ExtractedContent(error=why, title=result.title, date=result.date, kind=result.kind)
    return result
