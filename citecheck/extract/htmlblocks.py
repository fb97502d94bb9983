"""HTML blocks in the walk: the prose elements of an HTML block (`html_prose`, read by
`citecheck.extract.htmlprose`) and kramdown's `markdown="1"` blocks (`html_markdown`), turned
into blocks of visible text and then drafts like a Markdown paragraph, table row or quotation."""

from __future__ import annotations

import re
from typing import Any

from markdown_it.token import Token

from citecheck.extract import htmlprose, resolve
from citecheck.extract.block import Block, Link, block_urls, navigation
from citecheck.extract.drafts import Draft, block_drafts
from citecheck.extract.inline import MARKER, base_col, scan_inline
from citecheck.extract.parser import Clock, children, may_hold_claim
from citecheck.extract.quotes import ATTRIB_LINE, NAME_LINE, inline_links, lead_in
from citecheck.extract.tables import defines_fields, row_drafts
from citecheck.models import Citation, CitationKind

KRAMDOWN = re.compile(r"\bmarkdown=[\"']?(?:1|block|span)")


def html_markdown(tok: Token, lines: list[str], file: str, env: dict[str, Any], clock: Clock) -> list[Draft]:
    """Claims from an HTML block whose Markdown content is marked `markdown="1"` (kramdown, as
    GitHub Pages / Jekyll sites write pull quotes): its text lines are Markdown; a line opening
    with a dash is the attribution, and the other lines are then attributed quotes."""
    if not tok.map:
        return []
    runs: list[Token] = []
    current: Token | None = None
    for ln in range(tok.map[0], min(tok.map[1], len(lines))):
        text = lines[ln].strip()
        if not text or text.startswith("<"):
            current = None
            continue
        if current is None:
            current = Token("inline", "", 0)
            current.map = [ln, ln]
            current.children = []
            runs.append(current)
        current.content = f"{current.content}\n{text}" if current.content else text
        current.map = [current.map[0], ln + 1]
    attribution = [t for t in runs if ATTRIB_LINE.match(t.content)]
    attributed = {id(t) for t in attribution}
    citations = resolve.attribution_citations(c for t in attribution for c in inline_links(t, env, clock))
    drafts: list[Draft] = []
    for t in runs:
        if id(t) in attributed:
            continue
        children(t, env, clock)
        block = scan_inline(t, lines)
        if not block.ignore:
            drafts.extend(block_drafts(block, file, quote=bool(attribution), extra=citations or None))
    return drafts


def html_prose(
    tokens: list[Token],
    i: int,
    lines: list[str],
    file: str,
    env: dict[str, Any],
    clock: Clock,
    prev_inline: Token | None,
    anchors: dict[str, list[str]],
) -> tuple[list[Draft], int]:
    """Claims from the prose elements of the HTML block at `tokens[i]`
    (`citecheck.extract.htmlprose`), and how many HTML blocks after it were read with it (a
    quotation or table that a blank line cut in two: `htmlprose.leaves_open`). Each block of text
    goes through the rules of a Markdown paragraph, a plain table row those of a Markdown table's
    row, and a `<blockquote>` is a quotation, attributed as a Markdown one is (`_html_quote`)."""
    tok = tokens[i]
    if not tok.map:
        return [], 0
    content = tok.content
    last = tok
    merged = 0
    while htmlprose.leaves_open(content) and i + merged + 1 < len(tokens):
        nxt = tokens[i + merged + 1]
        if nxt.type != "html_block" or not nxt.map or MARKER.search(nxt.content):
            break
        content += "\n" * (nxt.map[0] - last.map[1]) + nxt.content  # type: ignore[index]
        last = nxt
        merged += 1
    # the parse gate, as for a Markdown paragraph; a quotation may be attributed, which makes
    # each of its sentences a claim
    if not htmlprose.may_hold_prose(content) or not (may_hold_claim(content) or htmlprose.quotes(content)):
        return [], merged
    clock.check_block(tok)
    first = tok.map[0]
    bases = [
        base_col(lines[first + k] if first + k < len(lines) else "", c)
        for k, c in enumerate(content.split("\n"))
    ]
    found = htmlprose.read_prose(content, lambda ln: clock.check(first + ln + 1))
    drafts: list[Draft] = []
    k = 0
    while k < len(found):
        quote = found[k].quote
        end = k + 1
        while quote is not None and end < len(found) and found[end].quote == quote:
            end += 1
        group = found[k:end]
        extra: list[Citation] = []
        attributed = False
        if quote is not None:
            before = found[k - 1] if k > 0 else None
            group, extra, attributed = _html_quote(group, before, prev_inline if k == 0 else None, env, clock)
        for pb in group:
            if pb.cells is not None:
                cells = [_html_block(c, first, bases) for c in pb.cells]
                drafts.extend(row_drafts(cells, pb.headers, file, defines_fields(pb.headers)))
                continue
            block = _html_block(pb, first, bases)
            if block.anchors and (urls := block_urls(block)):
                for anchor in block.anchors:  # an entry with sources (one without is a section)
                    anchors.setdefault(anchor, urls)
            drafts.extend(
                block_drafts(block, file, quote=attributed, extra=extra or None, list_item=pb.element == "li")
            )
        k = end
    return drafts, merged


def _html_quote(
    group: list[htmlprose.ProseBlock],
    before: htmlprose.ProseBlock | None,
    prev_inline: Token | None,
    env: dict[str, Any],
    clock: Clock,
) -> tuple[list[htmlprose.ProseBlock], list[Citation], bool]:
    """The blocks of an HTML `<blockquote>` that are quoted, the citations its attribution
    carries, and whether it is attributed: a last block or last line that is a credit ("&mdash;
    Roger Peng (@rdpeng) <a href=…>May 24, 2012</a>") or a "Name, role" last
    block, as `blockquote_context` reads a Markdown quote; else a lead-in that ends with a colon
    and links the speaker (a block just before it, or the Markdown paragraph before the HTML)."""
    last = group[-1]
    credit: htmlprose.ProseBlock | None = None
    if ATTRIB_LINE.match(last.text) or (
        len(group) > 1 and len(last.text) < 400 and NAME_LINE.fullmatch(last.text)
    ):
        credit, group = last, group[:-1]
    elif (at := last.last_line_start()) and ATTRIB_LINE.match(last.text[at:]):
        head, credit = last.split(at)
        group = [*group[:-1], head]
    if credit is not None:
        links = _html_block(credit, 0, []).links
        cits = resolve.attribution_citations(lk.citation for lk in links if lk.citation is not None)
        return group, cits, True
    if before is not None and before.quote is None and before.text.endswith(":"):
        links = _html_block(before, 0, []).links
        cits = resolve.attribution_citations(lk.citation for lk in links if lk.citation is not None)
    else:
        cits = resolve.attribution_citations(lead_in(prev_inline, env, clock))
    return group, cits, bool(cits)


def _html_block(pb: htmlprose.ProseBlock, first: int, bases: list[int]) -> Block:
    """A `Block` of HTML prose: `first` the HTML block's first line (0-based), `bases` the
    column where each of its lines starts in the file."""
    block = Block(text=pb.text, masked=list(pb.code), breaks=list(pb.breaks), anchors=list(pb.anchors))
    block.sups = list(pb.sups)
    for v, ln, col in zip(pb.seg_v, pb.seg_line, pb.seg_col, strict=True):
        c = (bases[ln] if ln < len(bases) else 0) + col + 1
        block.seg_v.append(v)
        block.seg_line.append(first + ln + 1)
        block.seg_col.append(c)
        block.seg_text_col.append(c)
    for lk in pb.links:
        if lk.href.startswith("#") and len(lk.href) > 1:
            nav = navigation(pb.text[lk.start : lk.end])
            block.links.append(Link(lk.start, lk.end, None, anchor=None if nav else lk.href[1:]))
        else:
            raw = f'<a href="{lk.href}">{pb.text[lk.start : lk.end]}</a>'
            block.links.append(
                Link(lk.start, lk.end, resolve.link_citation(raw, CitationKind.link, lk.href, lk.title))
            )
    return block
