"""Prose written as HTML: the text of an HTML block's prose elements, with positions and links.

Blogs imported from WordPress, Tumblr or Blogger, and many READMEs, write paragraphs, lists and
quotations as raw HTML inside the Markdown (`<p class="MsoNormal">… <a href="…">…</a></p>`,
`<blockquote class="twitter-tweet"><p>…</p>&mdash; Name <a href="…">date</a></blockquote>`).
CommonMark keeps such a block as one raw `html_block`; `read_prose` reads it as a browser would
show it, and `citecheck.extract.htmlblocks` puts each block of text through the same sentence and
claim rules as a Markdown paragraph (see docs/ARCHITECTURE.md).

What is read
  The text of the prose elements `p`, `li`, `blockquote`, `dd`, `td` and `figcaption`: each
  element's own text is one `ProseBlock` (a prose element inside another, or any block-level
  tag, starts a new one), entities decoded, whitespace collapsed, inline tags (`em`, `strong`,
  `span`, `font`, …) transparent. `<a href>` gives a link over its text; `<code>`, `<kbd>`,
  `<samp>`, `<tt>` and `<var>` give a code span (kept in the text, never a fact or citation);
  `<br>` and a new source line are breaks; `name`/`id` attributes are anchors. A superscript
  citation marker (`word<sup>3</sup>`, `<sup><a href="#fn1">[1]</a></sup>`) leaves the text, as
  in Markdown (an exponent, `m<sup>2</sup>`, stays).
What is not
  Text outside the prose elements (a `<div align="center">` of badges, a bare `<span>`),
  headings, `th`, `dt`, `summary`, `caption`, `pre`, `script`, `style`, `iframe`, `textarea`,
  `svg`, `math`, `nav`, `button` and the like (their whole content), comments, doctype and
  processing instructions, and `<img>` (its alt text is no prose).

Why not `html.parser` or lxml
  The standard library's `html.parser` (Python 3.11.7) backtracks over an unclosed start tag:
  `"<a " * 20_000` took 7 s to parse and four times as long at twice the size (measured), and
  extraction must stay linear (hostile input is bounded). lxml is linear but reports an
  element's line only, not where its text is, and a claim's column must point at the text. So
  this is a small tokenizer after the HTML5 rules that need no lookahead: a `<` that does not
  open a well-formed tag, comment or declaration is text; a tag runs to its `>` (quoted
  attribute values may hold `>`); `script`, `style`, `textarea`, `title` and `iframe` hold raw
  text up to their end tag. Entities are decoded by the standard library's `html.unescape`.
  Each character is looked at a bounded number of times: a failed tag stops at the first `<`
  after it, a quoted value is scanned once to its closing quote, and the next `>` after a
  position is looked up once for all the positions before it.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from citecheck.extract.markup import FILL

# Elements whose own text is prose.
PROSE = frozenset(["p", "li", "blockquote", "dd", "td", "figcaption"])
_CELLS = frozenset(["td", "th"])
# Elements whose whole content is no prose (headings, code, forms, embedded media, navigation).
_SKIPPED = frozenset(
    [
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "dt",
        "summary",
        "caption",
        "pre",
        "listing",
        "nav",
        "button",
        "select",
        "option",
        "svg",
        "math",
        "object",
        "video",
        "audio",
        "canvas",
        "template",
        "noscript",
        "head",
        "map",
        "picture",
        "legend",
        "label",
    ]
)
# Elements holding raw text up to their end tag (no tags inside); none of it is prose.
_RAW = frozenset(
    ["script", "style", "textarea", "title", "iframe", "xmp", "noembed", "noframes", "plaintext"]
)
# Block-level elements: opening or closing one ends the current block of text.
_BLOCK = (
    PROSE
    | _CELLS
    | _SKIPPED
    | frozenset(
        [
            "address",
            "article",
            "aside",
            "body",
            "center",
            "details",
            "dialog",
            "dir",
            "div",
            "dl",
            "fieldset",
            "figure",
            "footer",
            "form",
            "header",
            "hgroup",
            "hr",
            "html",
            "main",
            "menu",
            "ol",
            "section",
            "table",
            "tbody",
            "tfoot",
            "thead",
            "tr",
            "ul",
            "colgroup",
            "frameset",
        ]
    )
)
# Block-level elements that close an open `<p>` (HTML's implied end tag).
_CLOSES_P = _BLOCK - frozenset(["li", "dd", "td", "figcaption", "th", "dt", "tbody", "thead", "tfoot", "tr"])
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"]
)
_IMPLIED_DEPTH = 64
_CODE = frozenset(["code", "kbd", "samp", "tt", "var"])
# An open `<li>` is closed by the next one in the same list, a `<td>` by the next cell, and so on:
# the element opened, what it closes, and where the search for it stops.
_IMPLIED = {
    "li": (frozenset(["li"]), frozenset(["ul", "ol", "menu", "dir"])),
    "dd": (frozenset(["dd", "dt"]), frozenset(["dl"])),
    "dt": (frozenset(["dd", "dt"]), frozenset(["dl"])),
    "td": (frozenset(["td", "th"]), frozenset(["tr", "table"])),
    "th": (frozenset(["td", "th"]), frozenset(["tr", "table"])),
    "tr": (frozenset(["td", "th", "tr"]), frozenset(["table"])),
}

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:-]*")
# An attribute's name, and an unquoted value; "<" is in neither, so what is not a tag ("a < b",
# "<a <a <a …") fails at the next "<" rather than running on.
_ATTR_NAME = re.compile(r"[\s/]*([^\s\"'<>/=]+)")
_ATTR_VALUE = re.compile(r"\s*=\s*(?:([\"'])|([^\s\"'<>]*))")
_END = re.compile(r"\s*\Z")
_TAG_CLOSE = re.compile(r"[\s/]*>")
_ENTITY = re.compile(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};?)")
_WORDS = re.compile(r"[^\s\ue000]+|\ue000+")  # runs of visible characters, and runs of FILL
_SPACE = re.compile(r"\s+")
_PROSE_TAG = re.compile(r"<(?:p|li|blockquote|dd|td|figcaption)[\s>/]", re.IGNORECASE)
_RAW_END = {name: re.compile(rf"</{name}(?=[\s/>])", re.IGNORECASE) for name in _RAW}

# What a superscript holds when it is a citation marker ("7", "[10]", "2, 9"), and the words it
# may follow as a note's number: not a figure or a one- or two-letter symbol ("m<sup>2</sup>",
# "2<sup>53</sup>"), as `citecheck.extract.inline` reads a Markdown paragraph's superscripts.
_SUP_MARKER = re.compile(r"[\s\[\](),.\d–-]{1,60}")
_SUP_AFTER = re.compile(r"(?:[A-Za-z]{3}|[.,;:!?)\"”’'])\s?$")


_OPEN_CLOSE = re.compile(r"<(/?)(blockquote|table)[\s>]", re.IGNORECASE)


def leaves_open(content: str) -> bool:
    """Whether an HTML block opens more `<blockquote>`s or `<table>`s than it closes: CommonMark
    ends an HTML block at a blank line, so a tweet or a table with a blank line inside is cut in
    two, and the next HTML block holds the rest (its attribution, its other rows)."""
    depth = 0
    for m in _OPEN_CLOSE.finditer(content):
        depth += -1 if m.group(1) else 1
    return depth > 0


_QUOTE_TAG = re.compile(r"<blockquote[\s>]", re.IGNORECASE)


def quotes(content: str) -> bool:
    """Whether an HTML block holds a `<blockquote>`."""
    return _QUOTE_TAG.search(content) is not None


def may_hold_prose(content: str) -> bool:
    """Whether an HTML block has a prose element at all (most are images, badges, comments)."""
    return _PROSE_TAG.search(content) is not None


@dataclass
class HtmlLink:
    start: int  # offsets in the block's text; start == end: a dropped superscript marker's link
    end: int
    href: str  # as written, entities decoded
    title: str | None = None


@dataclass
class ProseBlock:
    """The text of one prose element (or of the part of it between nested blocks)."""

    text: str
    element: str  # the prose element it belongs to: "p", "li", "blockquote", …
    quote: int | None  # the outermost `<blockquote>` around it (its index in the HTML), if any
    # where the text's pieces start: text offset, and 0-based line and column in the HTML
    seg_v: list[int] = field(default_factory=list)
    seg_line: list[int] = field(default_factory=list)
    seg_col: list[int] = field(default_factory=list)
    links: list[HtmlLink] = field(default_factory=list)
    code: list[tuple[int, int]] = field(default_factory=list)
    breaks: list[int] = field(default_factory=list)  # offsets where a source line or a <br> starts
    anchors: list[str] = field(default_factory=list)
    # superscript markers left out of the text: (offset, what they held, the line opens with it)
    sups: list[tuple[int, str, bool]] = field(default_factory=list)
    # a table row whose cells are plain text: its cells (each a block; text "" here) and the
    # table's header cells, read as a Markdown table's row is
    cells: list[ProseBlock] | None = None
    headers: list[str] = field(default_factory=list)

    def last_line_start(self) -> int:
        """Offset where the block's last line starts (0 for a one-line block)."""
        n = len(self.text)
        return next((b for b in reversed(self.breaks) if b < n), 0)

    def split(self, at: int) -> tuple[ProseBlock, ProseBlock]:
        """The text before `at` and from `at` on, each with its positions and links."""
        head = self._part(0, len(self.text[:at].rstrip()))
        tail = self._part(at + len(self.text[at:]) - len(self.text[at:].lstrip()), len(self.text))
        return head, tail

    def _part(self, s: int, e: int) -> ProseBlock:
        out = ProseBlock(self.text[s:e], self.element, self.quote)
        k = max(bisect_right(self.seg_v, s) - 1, 0)
        for v, line, col in zip(self.seg_v[k:], self.seg_line[k:], self.seg_col[k:], strict=True):
            if v >= e:
                break
            out.seg_v.append(max(v - s, 0))
            out.seg_line.append(line)
            out.seg_col.append(col + max(s - v, 0))
        out.links = [
            HtmlLink(lk.start - s, min(lk.end, e) - s, lk.href, lk.title)
            for lk in self.links
            if s <= lk.start <= e
        ]
        out.code = [(a - s, min(b, e) - s) for a, b in self.code if s <= a < e]
        out.breaks = [b - s for b in self.breaks if s < b < e]
        out.sups = [(o - s, inner, lead) for o, inner, lead in self.sups if s <= o <= e]
        out.anchors = list(self.anchors) if s == 0 else []
        return out


class _Builder:
    """The block being read: its text in parts, and what was found in it."""

    def __init__(self, element: str, quote: int | None) -> None:
        self.block = ProseBlock("", element, quote)
        self.parts: list[str] = []
        self.vlen = 0
        self.last = " "  # the last visible character: whitespace collapses after a space
        self.link: tuple[int, str, str | None] | None = None  # an open <a href>: (start, href, title)
        self.sup: tuple[int, int, int] | None = None  # an open <sup>: (parts index, vlen, links)
        self.code_start: int | None = None
        self.depth = 0  # the index of its element in the reader's stack

    def space(self) -> None:
        if self.last != " ":
            self.parts.append(" ")
            self.vlen += 1
            self.last = " "

    def add(self, s: str, line: int, col: int) -> None:
        """Visible text `s` (no whitespace in it) that starts at `line`, `col` of the HTML."""
        b = self.block
        if not b.seg_v or b.seg_v[-1] != self.vlen:
            b.seg_v.append(self.vlen)
            b.seg_line.append(line)
            b.seg_col.append(col)
        self.parts.append(s)
        self.vlen += len(s)
        self.last = s[-1]

    def line_break(self) -> None:
        if self.vlen:
            self.space()
            self.block.breaks.append(self.vlen)

    def open_link(self, href: str, title: str | None) -> None:
        self.close_link()
        self.link = (self.vlen, href, title)

    def close_link(self) -> None:
        if self.link is not None:
            start, href, title = self.link
            end = self.vlen - (1 if self.last == " " and self.vlen > start else 0)
            self.block.links.append(HtmlLink(start, end, href, title))
            self.link = None

    def open_code(self) -> None:
        if self.code_start is None:
            self.code_start = self.vlen

    def close_code(self) -> None:
        if self.code_start is not None:
            if self.vlen > self.code_start:
                self.block.code.append((self.code_start, self.vlen))
            self.code_start = None

    def close_sup(self) -> None:
        """At `</sup>`: a citation marker leaves the text (its links stay, zero-width, where it
        stood); an exponent or a superscript word stays."""
        if self.sup is None:
            return
        index, start, links = self.sup
        self.sup = None
        inner = "".join(self.parts[index:])
        if not inner.strip() or _SUP_MARKER.fullmatch(inner) is None or not any(c.isdigit() for c in inner):
            return
        b = self.block
        leading = start == 0 or (bool(b.breaks) and b.breaks[-1] >= start - 1)
        before = "".join(self.parts[max(index - 3, 0) : index])[-5:]
        if not (leading or len(b.links) > links or "[" in inner or _SUP_AFTER.search(before)):
            return  # an exponent: "2<sup>53</sup>", "m<sup>2</sup>"
        del self.parts[index:]
        self.vlen = start
        self.last = self.parts[-1][-1] if self.parts and self.parts[-1] else " "
        if len(b.links) == links or leading:
            b.sups.append((start, inner.strip(), leading))
        for lk in b.links[links:]:
            lk.start = lk.end = start
        while b.seg_v and b.seg_v[-1] > start:
            b.seg_v.pop()
            b.seg_line.pop()
            b.seg_col.pop()
        b.code = [(a, min(e, start)) for a, e in b.code if a < start]

    def finish(self) -> ProseBlock | None:
        self.close_link()
        self.close_code()
        b = self.block
        b.text = "".join(self.parts).rstrip()
        n = len(b.text)
        if not any(c.isalnum() for c in b.text):
            return None
        for lk in b.links:
            lk.end = min(lk.end, n)
        b.code = [(a, min(e, n)) for a, e in b.code if a < n]
        b.breaks = [k for k in b.breaks if k < n]
        return b


@dataclass
class _Row:
    """An open `<tr>`: the blocks of each of its cells, until it closes."""

    depth: int  # its index in the reader's stack
    cells: list[list[ProseBlock]] = field(default_factory=list)
    header: list[bool] = field(default_factory=list)  # the cell is a <th>
    plain: bool = True  # every block is a cell's own text (no paragraph or list inside a cell)


@dataclass
class _Reader:
    html: str
    check: Callable[[int], None] | None
    blocks: list[ProseBlock] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)  # the open block-level elements
    skipped: int = 0  # how many of them hide their content
    quote: int | None = None  # the outermost open <blockquote>
    quotes: int = 0
    current: _Builder | None = None
    line_starts: list[int] = field(default_factory=list)
    found: dict[str, int] = field(default_factory=dict)  # `next_char`'s last answers
    counts: dict[str, int] = field(default_factory=dict)  # how many of each element are open
    rows: list[_Row] = field(default_factory=list)  # the open <tr>s, innermost last
    # each open table's header cells (None: no row read yet)
    headers: list[list[str] | None] = field(default_factory=list)

    def position(self, pos: int) -> tuple[int, int]:
        i = bisect_right(self.line_starts, pos) - 1
        return i, pos - self.line_starts[i]

    def next_char(self, ch: str, pos: int) -> int:
        """The next `ch` at or after pos (-1: none): each is searched for once for all the
        positions before it, so unclosed tags and quotes cost linear time in all."""
        found = self.found.get(ch, -2)
        if found == -1 or found >= pos:
            return found
        found = self.html.find(ch, pos)
        self.found[ch] = found
        return found

    # --- blocks ---

    def flush(self, pos: int) -> None:
        if self.current is not None:
            block = self.current.finish()
            owner_depth = self.current.depth
            self.current = None
            if block is not None:
                self.emit(block, owner_depth)
                if self.check is not None:
                    self.check(self.position(pos)[0])

    def emit(self, block: ProseBlock, owner_depth: int) -> None:
        """A finished block: into the open row's last cell, if there is one, else out."""
        row = self.rows[-1] if self.rows else None
        if row is None or not row.cells or owner_depth <= row.depth:
            if block.element != "th":
                self.blocks.append(block)
            return
        if owner_depth != row.depth + 1 or row.cells[-1]:
            row.plain = False  # a paragraph or list inside a cell, or a cell of two blocks
        row.cells[-1].append(block)

    def close_row(self, row: _Row) -> None:
        """A `<tr>` closes: a row of plain cells is one block, as a Markdown table's row is (a
        row of <th> only is the table's header); otherwise its cells' blocks go out one by one."""
        self.rows.pop()
        if row.plain and (all(row.header) or (self.headers and self.headers[-1] is None)):
            # a row of <th>, or a table's first row, is its header, as a Markdown table's first
            # row is (tables converted from Word or WordPress mark none with <th>)
            if self.headers:
                self.headers[-1] = [c[0].text if c else "" for c in row.cells]
            return
        if self.headers and self.headers[-1] is None:
            self.headers[-1] = []
        if row.plain:
            cells = [c[0] if c else ProseBlock("", "td", None) for c in row.cells]
            first = next((c for c in cells if c.text), None)
            if first is None:
                return
            header = list(self.headers[-1] or []) if self.headers else []
            self.emit(ProseBlock("", "tr", first.quote, cells=cells, headers=header), row.depth)
            return
        for is_header, cell in zip(row.header, row.cells, strict=True):
            for block in cell:
                if not is_header:
                    self.emit(block, row.depth)

    def owner(self) -> str | None:
        return next((name for name in reversed(self.stack) if name in PROSE or name in _CELLS), None)

    def builder(self) -> _Builder | None:
        if self.skipped:
            return None
        if self.current is None:
            element = self.owner()
            if element is None:
                return None
            self.current = _Builder(element, self.quote)
            self.current.depth = max(k for k, name in enumerate(self.stack) if name == element)
        return self.current

    def push(self, name: str, pos: int) -> None:
        self.flush(pos)
        stack = self.stack
        if name in _CLOSES_P and stack and stack[-1] == "p":
            self.pop_to(len(stack) - 1)
        implied = _IMPLIED.get(name)
        if implied is not None and any(self.counts.get(c) for c in implied[0]):
            closes, stops = implied
            # a bounded look (a real page nests a few levels): a deep pile of unclosed tags
            # would otherwise be walked for each element opened on it
            for k in range(len(stack) - 1, max(len(stack) - _IMPLIED_DEPTH, 0) - 1, -1):
                if stack[k] in stops:
                    break
                if stack[k] in closes:
                    self.pop_to(k)
                    break
        if name == "hr":
            return
        if name == "blockquote" and self.quote is None:
            self.quote = self.quotes
            self.quotes += 1
        if name == "tr":
            self.rows.append(_Row(len(stack)))
        elif name in _CELLS and self.rows and self.rows[-1].depth == len(stack) - 1:
            self.rows[-1].cells.append([])
            self.rows[-1].header.append(name == "th")
        elif name == "table":
            self.headers.append(None)
        stack.append(name)
        self.counts[name] = self.counts.get(name, 0) + 1
        if name in _SKIPPED:
            self.skipped += 1

    def pop_to(self, k: int) -> None:
        while self.rows and self.rows[-1].depth >= k:
            self.close_row(self.rows[-1])
        for name in self.stack[k:]:
            if name == "table" and self.headers:
                self.headers.pop()
            self.counts[name] -= 1
            if name in _SKIPPED:
                self.skipped -= 1
        del self.stack[k:]
        if not self.counts.get("blockquote"):
            self.quote = None

    def close(self, name: str, pos: int) -> None:
        if not self.counts.get(name):
            return  # a stray end tag
        self.flush(pos)
        k = len(self.stack) - 1
        while self.stack[k] != name:
            k -= 1
        self.pop_to(k)  # what was left open inside closes with it

    # --- text ---

    def text(self, a: int, b: int) -> None:
        """The source text html[a:b], entities decoded."""
        if a >= b or self.builder() is None:
            return
        pos = a
        for m in _ENTITY.finditer(self.html, a, b):
            self.literal(pos, m.start())
            decoded = html.unescape(m.group(0))
            if decoded != m.group(0) and (bld := self.builder()) is not None:
                if decoded.isspace() or decoded == "\xa0":
                    bld.space()
                else:
                    bld.add(_SPACE.sub(" ", decoded), *self.position(m.start()))
                    if decoded[-1].isspace():
                        bld.space()
            else:
                self.literal(m.start(), m.end())
            pos = m.end()
        self.literal(pos, b)

    def literal(self, a: int, b: int) -> None:
        bld = self.builder()
        if bld is None or a >= b:
            return
        for m in _WORDS.finditer(self.html, a, b):
            s, e = m.span()
            if s > a:
                # whitespace before this run: a space, and a break where a source line starts
                if "\n" in self.html[a:s] and bld.vlen:
                    bld.line_break()
                else:
                    bld.space()
            a = e
            if self.html[s] != FILL:
                bld.add(m.group(0), *self.position(s))
        if a < b:
            if "\n" in self.html[a:b] and bld.vlen:
                bld.line_break()
            else:
                bld.space()

    # --- tags ---

    def start_tag(self, name: str, attrs: dict[str, str], pos: int, end: int) -> int:
        """Handle `<name …>` at pos (ending at end); returns where reading goes on."""
        if name in _RAW:
            m = _RAW_END[name].search(self.html, end)
            if m is None:
                return len(self.html)
            gt = self.next_char(">", m.end())
            return len(self.html) if gt < 0 else gt + 1
        if name in _BLOCK:
            self.push(name, pos)
            if name in PROSE or not self.skipped:
                self.anchor(attrs)
            return end
        if name == "br":
            if (bld := self.builder()) is not None:
                bld.line_break()
            return end
        bld = self.builder()
        if bld is None:
            return end
        self.anchor(attrs)
        if name == "a" and "href" in attrs:
            bld.open_link(attrs["href"], attrs.get("title"))
        elif name in _CODE:
            bld.open_code()
        elif name == "sup":
            bld.sup = (len(bld.parts), bld.vlen, len(bld.block.links))
        return end

    def anchor(self, attrs: dict[str, str]) -> None:
        ident = attrs.get("id") or attrs.get("name")
        if ident and "href" not in attrs and (bld := self.builder()) is not None:
            bld.block.anchors.append(ident)

    def end_tag(self, name: str, pos: int) -> None:
        if name in _BLOCK:
            self.close(name, pos)
            return
        bld = self.current
        if bld is None:
            return
        if name == "a":
            bld.close_link()
        elif name in _CODE:
            bld.close_code()
        elif name == "sup":
            bld.close_sup()
        elif name == "br" and not self.skipped:
            bld.line_break()

    def read(self) -> list[ProseBlock]:
        src = self.html
        n = len(src)
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", src))]
        pos = 0
        text_from = 0
        while pos < n:
            lt = src.find("<", pos)
            if lt < 0:
                break
            tag = self.markup(lt)
            if tag is None:  # not markup: a "<" of the text
                pos = lt + 1
                continue
            self.text(text_from, lt)
            name, attrs, closing, nxt = tag
            if name and closing:
                self.end_tag(name, lt)
            elif name:
                nxt = self.start_tag(name, attrs, lt, nxt)
            pos = text_from = nxt
        self.text(text_from, n)
        self.flush(n)
        self.pop_to(0)  # what is still open closes at the end
        return self.blocks

    def markup(self, lt: int) -> tuple[str, dict[str, str], bool, int] | None:
        """The tag, comment or declaration at `lt`: (the tag's name or "" for a comment or
        declaration, its attributes, whether it is an end tag, where it ends); None if the "<" is
        text."""
        src = self.html
        nxt = src[lt + 1 : lt + 2]
        if nxt == "!":
            if src.startswith("<!--", lt):
                end = src.find("-->", lt + 4)
                return "", {}, False, len(src) if end < 0 else end + 3
            gt = self.next_char(">", lt)
            return "", {}, False, len(src) if gt < 0 else gt + 1
        if nxt == "?":
            gt = self.next_char(">", lt)
            return "", {}, False, len(src) if gt < 0 else gt + 1
        if nxt == "/":
            m = _NAME.match(src, lt + 2)
            if m is None:
                return None
            gt = self.next_char(">", m.end())
            if gt < 0:
                return None
            return m.group(0).lower(), {}, True, gt + 1
        m = _NAME.match(src, lt + 1)
        if m is None:
            return None
        pos = m.end()
        attrs: dict[str, str] = {}
        while True:
            close = _TAG_CLOSE.match(src, pos)
            if close is not None:
                return m.group(0).lower(), attrs, False, close.end()
            a = _ATTR_NAME.match(src, pos)
            if a is None:
                if _END.match(src, pos):
                    return "", {}, False, len(src)  # a tag cut off by the block's end is dropped
                return None  # "a < b", "<a <a …", "<a b='c'd": no tag
            pos = a.end()
            v = _ATTR_VALUE.match(src, pos)
            value = ""
            if v is not None:
                if v.group(1):
                    end = self.next_char(v.group(1), v.end())
                    if end < 0:
                        return None  # a quoted value that never ends: no tag
                    value = src[v.end() : end]
                    pos = end + 1
                else:
                    value = v.group(2)
                    pos = v.end()
            attrs.setdefault(a.group(1).lower(), html.unescape(value))


def read_prose(content: str, check: Callable[[int], None] | None = None) -> list[ProseBlock]:
    """The blocks of prose in an HTML block's `content`, in order. Positions are 0-based lines and
    columns of `content`. `check(line)` is called after each block (the extraction's clock: it
    may raise to stop)."""
    return _Reader(content, check).read()
