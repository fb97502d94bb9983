"""Bytes + content type → text: charsets, HTML fallback, PDF limits, walls."""

from __future__ import annotations

import asyncio

import pytest

from citecheck.config import Settings
from citecheck.fetch.content import (
    ExtractedContent,
    _parse,
    _visible_at_most,
    decode_text,
    extract_html,
    extract_page,
    pdf_content,
    sniff_kind,
    unusable_reason,
    visible_text,
)
from citecheck.fetch.workers import ExtractionWorker
from tests.integration.fetching import alive, fetch_sources
from tests.servers import source_server as servers
from tests.servers.source_server import SourceServer, make_pdf

source_server = servers.source_server  # the fixture, by its usual name


def run(body: bytes, content_type: str | None) -> ExtractedContent:
    content, prepared = asyncio.run(extract_page(body, content_type))
    assert prepared is None  # nothing to prepare
    return content


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        ("café".encode(), "text/plain; charset=utf-8", "café"),
        ("café".encode("latin-1"), "text/plain; charset=ISO-8859-1", "café"),
        ("café".encode("latin-1"), "text/plain; charset=utf-8", "café"),  # header lies: falls through
        ("café".encode("cp1252"), "text/plain", "café"),  # no charset, not UTF-8
        ("café".encode("utf-8-sig"), "text/plain; charset=latin-1", "café"),  # BOM wins
        ("café".encode("utf-16"), None, "café"),
        ("café".encode(), "text/plain; charset=no-such-charset", "café"),
    ],
)
def test_decode_text(body: bytes, content_type: str | None, expected: str) -> None:
    assert decode_text(body, content_type) == expected


def test_meta_charset_used_when_header_has_none() -> None:
    html = '<html><head><meta charset="windows-1251"></head><body>Привет</body></html>'.encode("cp1251")
    assert "Привет" in decode_text(html, "text/html", html=True)


@pytest.mark.parametrize(
    ("body", "content_type", "kind"),
    [
        (b"<p>x</p>", "text/html; charset=utf-8", "html"),
        (b"<p>x</p>", "application/xhtml+xml", "html"),
        (b"%PDF-1.4", "application/pdf", "pdf"),
        (b"# md", "text/markdown", "text"),
        (b"{}", "application/json", "text"),
        (b"\x89PNG", "image/png", "unknown"),
        (b"%PDF-1.7\n...", None, "pdf"),
        # A page sent as a download is not a page (a PDF so sent is read).
        (b"<!DOCTYPE html><html>", "application/octet-stream", "unknown"),
        (b"%PDF-1.7\n...", "application/octet-stream", "pdf"),
        # Binary data under a text type is not text.
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "text/html; charset=utf-8", "binary"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "text/plain", "binary"),
        (bytes(range(1, 9)) * 100, "text/html", "binary"),
        # UTF-16 text has NUL bytes and is text all the same.
        ("<p>café</p>".encode("utf-16"), "text/html", "html"),
        ("<p>café</p>".encode("utf-16-le"), "text/html; charset=UTF-16LE", "html"),
        (b"tab\tand\r\nlines\f\x1b[0m", "text/plain", "text"),
        (b"plain words", None, "text"),
        (b"\x00\x01\x02", None, "unknown"),
    ],
)
def test_sniff_kind(body: bytes, content_type: str | None, kind: str) -> None:
    assert sniff_kind(body, content_type) == kind


def test_visible_text_drops_scripts_and_keeps_blocks() -> None:
    html = (
        "<html><head><title>t</title><style>p{}</style></head>"
        "<body><script>x=1</script><p>One</p><p>Two</p></body></html>"
    )
    assert visible_text(html) == "One\nTwo"


def test_html_without_main_text_falls_back_to_visible_text() -> None:
    # A page of short list items and a table: no "article" for trafilatura, but the
    # statistic a claim cites is on it.
    items = "".join(f"<li>Item {i}</li>" for i in range(30))
    html = (
        "<html><head><title>Figures</title></head><body><ul>" + items + "</ul>"
        "<table><tr><td>Residents</td><td>14,000,000</td></tr></table></body></html>"
    )
    result = extract_html(html)
    assert "14,000,000" in result.text
    assert result.title == "Figures"


@pytest.mark.parametrize(
    "html",
    [
        "<html><body><p>One</p><p>Two</p></body></html>",
        "<html><head><title>Long title of the page</title><script>var x = 'lots of script text';</script>"
        "</head><body><p>a</p><br><br><div><p>b</p></div></body></html>",
        "<html><body><noscript><div><p>hidden</p></div></noscript><template><li>t</li></template>"
        "<ul><li>x</li><li>y</li></ul><table><tr><td>1</td><td>2</td></tr></table></body></html>",
        "<html><body><p>line\r\nbreaks\rand\x0cfeeds\u2028here</p><pre>  spaced   out  </pre></body></html>",
        "<html><body>" + "<p>&amp;&lt;&#x1F600;&NotEqualTilde;</p>" * 20 + "</body></html>",
        "<html><body><svg><text>drawn</text></svg><h1> </h1><p>\n\n</p></body></html>",
    ],
)
def test_the_visible_text_bound_holds(html: str) -> None:
    """`extract_html` skips the visible text when this bound shows trafilatura's text long
    enough: the bound must never be below the visible text's real length."""
    assert _visible_at_most(_parse(html)) >= len(visible_text(html))  # type: ignore[arg-type]


def test_a_teaser_gives_way_to_the_visible_text_and_an_article_does_not() -> None:
    body = "".join(
        f"<p>Paragraph {i} of the report says the district counted {i},000 residents.</p>" for i in range(9)
    )
    article = f"<html><body><nav>Home | About</nav><article><h1>Census</h1>{body}</article></body></html>"
    assert "Home | About" not in extract_html(article).text  # the article's text, not the page's
    # trafilatura keeps only the article's one sentence; the statistic is in the aside it
    # leaves out, so the whole visible text it is.
    rows = "".join(f"<p>District {i}: {1000 + i} residents</p>" for i in range(60))
    teaser = (
        "<html><body><article><p>The census counted the residents of all sixty districts in 2020."
        f"</p></article><aside>{rows}</aside></body></html>"
    )
    assert "District 59: 1059 residents" in extract_html(teaser).text


def test_unusable_text() -> None:
    assert unusable_reason("") == "no readable text on the page"
    assert unusable_reason("  ok  ") == "almost no text on the page"
    assert "wall" in (unusable_reason("We value your privacy. Accept all cookies to continue reading.") or "")
    assert unusable_reason("The census counted 14 million residents in 2020.") is None
    long_text = "Please log in to comment. " + "The census counted 14 million residents. " * 30
    assert unusable_reason(long_text) is None  # a real article with a login link is not a wall


def test_pdf_page_limit() -> None:
    pdf = make_pdf(["First page text here.", "Second page text here.", "Third page text here."])
    result = pdf_content(pdf, max_pages=2)
    assert "Second page" in result.text
    assert "Third page" not in result.text


def test_a_pdf_past_its_time_is_stopped_with_its_worker() -> None:
    pdf = make_pdf(["The census counted 14 million residents in 2020."], title="Census")
    long = make_pdf([f"Page {i} of the census tables." for i in range(300)])  # ~0.2 s to read

    async def run() -> tuple[int, ExtractedContent, int]:
        worker = await ExtractionWorker.start()
        assert worker is not None
        try:
            first = worker.pid
            with pytest.raises(TimeoutError):
                await extract_page(long, "application/pdf", worker=worker, limit_s=0.01)
            # The next PDF is read by a new process, in the stopped one's place.
            content, _ = await extract_page(pdf, "application/pdf", worker=worker, limit_s=60)
            return first, content, worker.replaced
        finally:
            await worker.aclose()

    first, content, replaced = asyncio.run(run())
    assert not alive(first)
    assert (content.title, content.error, replaced) == ("Census", None, 1)
    assert "14 million residents" in content.text


def test_plain_text_kept_as_is() -> None:
    body = "Line one: 14 million residents.\n\n  indented line\n"
    assert run(body.encode(), "text/plain").text == body


def test_image_not_extractable() -> None:
    result = run(b"GIF89a" + b"\x00" * 50, "image/gif")
    assert result.error == "content type image/gif has no extractable text"


def test_binary_served_as_html_is_not_extractable() -> None:
    # Decoded as Windows-1252, a PNG is "text" with letters enough to be judged: it must not be.
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40
    result = run(png, "text/html; charset=utf-8")
    assert result.error == (
        "the body is binary data, not the text/html its content type says: no extractable text"
    )
    assert result.text == ""


def test_html_sent_as_a_download_is_not_a_page() -> None:
    page = b"<!doctype html><html><body><article><p>" + b"Sales grew 25% in 2023, the report says. " * 20
    result = run(page + b"</p></article></body></html>", "application/octet-stream")
    assert result.error == "content type application/octet-stream has no extractable text"
    assert run(page, "text/html").error is None  # the same bytes, declared as a page, are one


# -- text a reader does not see is not on the page (issue 30, point 8) --------------------------

VISIBLE = "".join(
    f"<p>The Eiffel Tower in Paris was completed in 1889 for the World's Fair; paragraph {i} of the "
    "visitor guide.</p>"
    for i in range(6)
)
PLANTED = "PLANTED The Eiffel Tower is 500 metres tall."


def page_with(hidden: str, *, head: str = "", body: str = VISIBLE) -> str:
    return (
        f"<html><head><title>Guide</title>{head}</head><body><article>{body}{hidden}{body}</article>"
        "</body></html>"
    )


HIDDEN = {
    "display-none": f'<p style="display:none">{PLANTED}</p>',
    "display-none-spaced": f'<p style="color: red; DISPLAY :\tnone !important">{PLANTED}</p>',
    "visibility-hidden": f'<p style="visibility: hidden">{PLANTED}</p>',
    "visibility-collapse": f'<div style="visibility:collapse"><p>{PLANTED}</p></div>',
    "hidden-attribute": f"<p hidden>{PLANTED}</p>",
    "hidden-until-found": f'<div hidden="until-found"><p>{PLANTED}</p></div>',
    "aria-hidden": f'<div aria-hidden="true"><p>{PLANTED}</p></div>',
    "nested": f'<div style="display:none"><section><p>{PLANTED}</p></section></div>',
    "inline-span": f'<p>Visitors agree <span style="display:none">{PLANTED}</span> it is lovely.</p>',
}


@pytest.mark.parametrize(
    "body", [VISIBLE, "<p>The Eiffel Tower was completed in 1889.</p>"], ids=["long", "short"]
)
@pytest.mark.parametrize("hidden", list(HIDDEN.values()), ids=list(HIDDEN))
def test_hidden_text_is_not_extracted(hidden: str, body: str) -> None:
    # "short": trafilatura finds little main text and the whole visible text is taken instead;
    # hidden text is left out either way.
    text = extract_html(page_with(hidden, body=body)).text
    assert "PLANTED" not in text and "completed in 1889" in text
    if "Visitors agree" in hidden:
        assert "Visitors agree it is lovely." in text  # the text around a hidden span stays


@pytest.mark.parametrize(
    ("style", "hidden"),
    [
        (".x{display:none}", '<p class="x">'),
        (".a, .ghost { color: red; display: none !important }", '<p class="big ghost">'),
        ("#plant { visibility: hidden; }", '<p id="plant">'),
        ("p.x{display:none}", '<p class="x">'),
        ("/* hide */ .x { display : none }", '<p class="y x">'),
    ],
)
def test_text_hidden_by_a_rule_of_the_pages_style_block_is_not_extracted(style: str, hidden: str) -> None:
    html = page_with(f"{hidden}{PLANTED}</p>", head=f"<style>{style}</style>")
    assert "PLANTED" not in extract_html(html).text


@pytest.mark.parametrize(
    ("style", "shown"),
    [
        # Hidden only on some screens, or by a selector a browser may not apply to it: shown.
        ("@media print { .x { display: none } }", '<p class="x">'),
        (".x { display: none } @media (min-width: 40em) { .x { display: block } }", '<p class="x">'),
        (".x:hover { display: none }", '<p class="x">'),
        ("div .x { display: none }", '<p class="x">'),
        (".x { display: block }", '<p class="x">'),
        (".xy { display: none }", '<p class="x">'),
    ],
)
def test_text_a_style_block_does_not_hide_everywhere_is_kept(style: str, shown: str) -> None:
    html = page_with(f"{shown}{PLANTED}</p>", head=f"<style>{style}</style>")
    assert "PLANTED" in extract_html(html).text


def test_visible_text_with_words_like_hidden_is_kept() -> None:
    # Styles and attributes that do not hide: the text stays.
    html = page_with(
        '<p style="display:block" data-hidden="true" aria-hidden="false" class="hidden-gem" '
        f'title="display:none">{PLANTED}</p>'
    )
    assert "PLANTED" in extract_html(html).text


def test_a_fetched_page_has_no_hidden_text(source_server: SourceServer) -> None:
    url = source_server.add("/guide", page_with(HIDDEN["display-none"] + HIDDEN["hidden-attribute"]))
    [src] = fetch_sources([url], Settings(allow_private_hosts=["127.0.0.1"])).values()
    assert "completed in 1889" in src.text and "PLANTED" not in src.text
