"""Inline scanning: the visible text of a block's inline tokens (link markup and emphasis
markers removed, link text and inline code kept), each offset mapped back to its file line and
column, with its links and their citations, HTML inline links and anchors, code spans,
footnote references, pandoc citation keys, superscript note markers and inline citecheck
markers (`scan_inline` → `Block`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from markdown_it.token import Token

from citecheck.extract import resolve
from citecheck.extract.block import Block, Link, PandocKeys, navigation
from citecheck.extract.markup import FILL, drop_fill
from citecheck.models import Citation, CitationKind

# A relative link to an anchor of a page ("compare-nats.md#references", GitBook's in-page links).
_PAGE_ANCHOR = re.compile(r"(?:\./)?[^\s:#?]+\.(?:md|mdx|markdown)#[^\s#]+")


HTML_A = re.compile(
    r"<a\s[^>]*?href\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))[^>]*>", re.IGNORECASE | re.DOTALL
)
# An element naming an anchor: <a name="x">, <a id="x">, <span id="x"> (a reference entry's target).
_HTML_ID = re.compile(r"<[a-z]+\s[^>]{0,300}?\b(?:name|id)\s*=\s*[\"']?([^\"'\s>]{1,200})", re.IGNORECASE)
# What a superscript holds when it is a citation marker: "7", "[10]", "[1],[2],[3]", "2, 9", " 1. ".
_SUP_MARKER = re.compile(r"[\s\[\](),.\d–-]{1,60}")
# A superscript after a word that is a note's number, not an exponent: "indicators<sup>1</sup>",
# "desirable<sup>2, 3</sup>" (an exponent follows a figure or a one- or two-letter symbol:
# "2<sup>53</sup>", "m<sup>2</sup>", "cm<sup>3</sup>", "x<sup>-1</sup>").
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SUP_NUMBERS = re.compile(r"\s*\d{1,3}\.?\s*(?:[,–-]\s*\d{1,3}\s*)*")
_HTML_TITLE = re.compile(r"title\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)
MARKER = re.compile(r"citecheck-(ignore|disable|enable)\b")


def base_col(source_line: str, content_line: str) -> int:
    """0-based column where a block's content line starts inside the raw source line."""
    if source_line.endswith(content_line):
        return len(source_line) - len(content_line)
    stripped = content_line.rstrip()
    pos = source_line.find(stripped) if stripped else -1
    if pos >= 0:
        return pos
    return len(source_line) - len(source_line.lstrip())


def _align(text: str, line: str, start: int) -> list[tuple[int, int]]:
    """(text offset, line position) pairs wherever a backslash escape or an entity shifts the
    text against its source, so positions inside `text` map back exactly."""
    out: list[tuple[int, int]] = []
    i, j, n, m = 0, start, len(text), len(line)
    shift = None
    while i < n and j < m:
        if line[j] == text[i]:
            if shift != j - i:
                shift = j - i
                out.append((i, j))
            i += 1
            j += 1
        elif line[j] == "\\":
            j += 1
        elif line[j] == "&" and line.find(";", j, j + 12) > 0:
            j = line.find(";", j, j + 12) + 1
            i += 1
            shift = None
        else:
            j += 1
    out.append((i, j))
    return out


_PARENS = re.compile(r"[()]")


def _skip_link_tail(line: str, pos: int) -> int:
    """Position after the `(dest "title")` or `[label]` that follows a link text's `]` at pos-1."""
    n = len(line)
    if pos < n and line[pos] == "(":
        # a destination may hold balanced parentheses: https://en.wikipedia.org/wiki/X_(y); the
        # tail ends at the first ")" that closes as many as were opened since pos
        depth = 0
        for m in _PARENS.finditer(line, pos):
            depth += 1 if m.group(0) == "(" else -1
            if depth <= 0:
                return m.end()
        return n
    if pos < n and line[pos] == "[":
        close = line.find("]", pos)
        return close + 1 if close >= 0 else n
    return pos


# MyST's target label, a paragraph of its own before the heading it names: "(mistral-7b)=".
_TARGET_LABEL = re.compile(r"\(([^()\s]{1,100})\)=\s*")
_HEADING_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_SLUG_DROP = re.compile(r"[^\w\- ]")


def target_titles(tokens: list[Token]) -> dict[str, str]:
    """label or heading slug (lower case) → the heading's text, for MyST's empty in-page links
    (`[](#label)` shows the title of what it names). Empty when the file has no such link."""
    titles: dict[str, str] = {}
    label: str | None = None
    for i, tok in enumerate(tokens):
        if tok.type != "inline":
            continue
        m = _TARGET_LABEL.fullmatch(tok.content) if tok.content[:1] == "(" else None
        if m is not None:
            label = m.group(1).lower()
            continue
        if i > 0 and tokens[i - 1].type == "heading_open":
            title = _HEADING_LINK.sub(r"\1", tok.content).replace("`", "").replace("*", "").strip()
            if title:
                if label is not None:
                    titles.setdefault(label, title)
                titles.setdefault(_SLUG_DROP.sub("", title.lower()).replace(" ", "-"), title)
        label = None
    return titles


def scan_inline(tok: Token, lines: list[str], titles: Mapping[str, str] | None = None) -> Block:
    """The visible text of an inline run, with its positions, links and citation markers.
    `titles`: what an empty in-page link shows (`target_titles`)."""
    scan = _Scan(tok, lines, titles)
    handlers = _HANDLERS
    for child in tok.children or ():
        ctype = child.type
        handler = handlers.get(ctype)
        if handler is not None:
            handler(scan, child)
        elif ctype.endswith("_open") or ctype.endswith("_close"):
            scan.emphasis(child)
    scan.block.text = "".join(scan.parts).rstrip()
    return scan.block


class _Scan:
    """One inline run being scanned: the visible text so far (`parts`, `vlen` characters long)
    and where the scan stands in the source (content line `li`, `line`, column `cur`)."""

    def __init__(self, tok: Token, lines: list[str], titles: Mapping[str, str] | None) -> None:
        self.block = Block()
        self.titles = titles
        self.content_lines = content_lines = tok.content.split("\n")
        self.first = first = tok.map[0] if tok.map else 0
        nlines = len(lines)
        self.bases = [
            base_col(lines[first + i] if first + i < nlines else "", c) for i, c in enumerate(content_lines)
        ]
        self.li = 0
        self.line = content_lines[0]
        self.cur = 0
        self.parts: list[str] = []
        self.vlen = 0
        self.last = " "  # the last visible character, to avoid doubled spaces
        self.link_start = -1
        self.link_part = 0  # index in `parts` where the link's text starts (link_start in visible text)
        self.link_tok: Token | None = None
        self.role_end = 0  # where the cross-reference role being read ends in the line
        self.html_link: tuple[str, str | None] | None = None
        self.code_depth = 0
        # a citation bracket dropped after a space: the space comes back before a word
        self.pending_space = False
        self.sup: tuple[int, int, int] | None = (
            None  # an open <sup>: (parts index, vlen, links) where it began
        )

    # --- positions and visible text

    def mark(self, pos: int) -> None:
        """The visible text from here on starts at column `pos` of the current line."""
        block, li, vlen = self.block, self.li, self.vlen
        seg_v, seg_line = block.seg_v, block.seg_line
        col = self.bases[li] + pos + 1 if li < len(self.bases) else pos + 1
        if seg_v and seg_v[-1] == vlen:
            if seg_line[-1] == self.first + li + 1:
                block.seg_text_col[-1] = col
            else:
                # nothing visible since the last mark, which was on a line before (an image-only
                # link, "[![alt](…)](…)", above a caption): the text starts here
                seg_line[-1], block.seg_col[-1], block.seg_text_col[-1] = self.first + li + 1, col, col
            return
        seg_v.append(vlen)
        seg_line.append(self.first + li + 1)
        block.seg_col.append(col)
        block.seg_text_col.append(col)

    def emit(self, s: str, *, masked: bool = False) -> None:
        """`s` joins the visible text (`masked`: as code, never a citation or a fact)."""
        if masked:
            self.block.masked.append((self.vlen, self.vlen + len(s)))
        self.parts.append(s)
        self.vlen += len(s)
        if s:
            self.last = s[-1]

    def space(self) -> None:
        self.parts.append(" ")
        self.vlen += 1
        self.last = " "

    def past(self, raw: str, pos: int, newline: bool) -> None:
        """The scan goes on after `raw`, found at `pos` of the current line (-1: not found);
        `newline`: `raw` runs over lines, and the scan goes on after its last one."""
        if newline:
            self.li += raw.count("\n")
            self.line = self.content_lines[self.li] if self.li < len(self.content_lines) else ""
            self.cur = len(raw) - raw.rfind("\n") - 1
        elif pos >= 0:
            self.cur = pos + len(raw)

    # --- one handler a token type (`_HANDLERS`)

    def text(self, child: Token) -> None:
        s = child.content
        if not s:
            return
        if FILL in s:
            s = drop_fill(s)
            if not s:
                return
        if self.pending_space:
            self.pending_space = False
            if s[0] not in " .,;:!?)]}”’'\"":
                self.space()
        if self.last == " " and s[0] == " ":
            s = s.lstrip(" ")
            if not s:
                return
        pos = self.line.find(s, self.cur)
        if pos >= 0:
            self.mark(pos)
            nxt = pos + len(s)
        else:
            nxt = self.align(s)
        self.emit(s, masked=self.code_depth > 0)
        self.cur = nxt

    def align(self, s: str) -> int:
        """Escapes or entities make the source differ from the text `s` about to join the
        visible text: a segment wherever they shift it. Returns where `s` ends in the line."""
        block, vlen, li = self.block, self.vlen, self.li
        seg_v = block.seg_v
        nxt = self.cur
        for vi, sj in _align(s, self.line, self.cur):
            if not seg_v or seg_v[-1] < vlen + vi:
                col = (self.bases[li] if li < len(self.bases) else 0) + sj + 1
                seg_v.append(vlen + vi)
                block.seg_line.append(self.first + li + 1)
                block.seg_col.append(col)
                block.seg_text_col.append(col)
            nxt = sj
        return nxt

    def text_special(self, child: Token) -> None:
        """A backslash escape or an entity."""
        pos = self.line.find(child.markup, self.cur) if child.markup else -1
        if pos >= 0:
            self.mark(pos)
            self.cur = pos + len(child.markup)
        self.emit(child.content, masked=self.code_depth > 0)

    def line_break(self, child: Token) -> None:
        self.li += 1
        self.line = self.content_lines[self.li] if self.li < len(self.content_lines) else ""
        self.cur = 0
        self.block.breaks.append(self.vlen)
        if self.last != " ":
            self.space()

    def code_inline(self, child: Token) -> None:
        markup = child.markup or "`"
        pos = self.line.find(markup, self.cur)
        if pos < 0:
            pos = self.cur
        self.mark(pos)
        s = child.content
        self.emit(s, masked=True)
        end = self.line.find(markup, pos + len(markup) + max(len(s) - 2, 0))
        while end < 0 and self.li + 1 < len(self.content_lines):
            # a code span over several lines: its line breaks are spaces, not softbreaks
            self.li += 1
            self.line = self.content_lines[self.li]
            end = self.line.find(markup)
        self.cur = end + len(markup) if end >= 0 else len(self.line)

    def link_open(self, child: Token) -> None:
        if child.markup == "role":
            # a cross-reference role: its text is found inside it, and the scan goes on after it
            pos = self.line.find(child.content, self.cur)
            self.cur, self.role_end = (pos, pos + len(child.content)) if pos >= 0 else (self.cur, self.cur)
            if not (child.meta or {}).get("text"):
                self.unspace()  # a label's role shows no text: "in {numref}`x`, which" reads "in, which"
        else:
            pos = self.line.find("<" if child.markup == "autolink" else "[", self.cur)
            if pos >= 0:
                self.mark(pos)
                self.cur = pos + 1
        self.link_start = self.vlen
        self.link_part = len(self.parts)
        self.link_tok = child

    def link_close(self, child: Token) -> None:
        link_tok = self.link_tok
        if link_tok is not None:
            href = str(link_tok.attrs.get("href", ""))
            if href.startswith("#") and len(href) > 1:
                if self.vlen == self.link_start and self.titles:
                    # MyST's "[](#mistral-7b)" shows the title of what it points to
                    title = self.titles.get(href[1:].lower())
                    if title:
                        self.emit(title)
                nav = navigation("".join(self.parts[self.link_part :]))
                self.block.links.append(
                    Link(self.link_start, self.vlen, None, anchor=None if nav else href[1:])
                )
            else:
                link_text = "".join(self.parts[self.link_part :])
                cited = _link_citation(link_tok, link_text, self.line, self.cur)
                # "[(1)](compare-nats.md#references)": an anchor of a page, maybe this one's
                page_anchor = (
                    href
                    if cited is not None
                    and cited.kind == CitationKind.internal
                    and _PAGE_ANCHOR.fullmatch(href)
                    else None
                )
                self.block.links.append(Link(self.link_start, self.vlen, cited, anchor=page_anchor))
            self.past_link_tail(link_tok)
        self.link_tok = None

    def past_link_tail(self, link_tok: Token) -> None:
        """The scan goes on after a link's closing ">" or its "](dest)" or "][label]"."""
        line, cur = self.line, self.cur
        if link_tok.markup == "role":
            self.cur = max(self.role_end, cur)
        elif link_tok.markup == "autolink":
            self.block.masked.append((self.link_start, self.vlen))
            end = line.find(">", cur)
            self.cur = end + 1 if end >= 0 else cur
        else:
            close = line.find("]", cur)
            if close >= 0:
                self.cur = _skip_link_tail(line, close + 1)

    def image(self, child: Token) -> None:
        pos = self.line.find("![", self.cur)
        if pos >= 0:
            close = self.line.find("]", pos + 2)
            self.cur = _skip_link_tail(self.line, close + 1) if close >= 0 else pos + 2

    def unspace(self) -> None:
        """What shows nothing drops the space before it, which comes back before a word:
        "overfit [@doi:…]." reads "overfit."."""
        parts = self.parts
        if parts and parts[-1].endswith(" "):
            parts[-1] = parts[-1][:-1]
            self.vlen -= 1
            self.pending_space = True
            # the last visible character (the space may have been a part of its own,
            # after "**MMLU**"): "**MMLU** {cite}`k` dataset" reads "MMLU dataset"
            self.last = next((p[-1] for p in reversed(parts) if p), " ")

    def citation_keys(self, child: Token) -> None:
        """A pandoc citation bracket or a bibliography role: no visible text, its keys noted."""
        raw = child.content
        first_line, _, rest = raw.partition("\n")
        self.past(raw, self.line.find(first_line, self.cur), bool(rest))
        self.unspace()
        keys = (child.meta or {}).get("keys") or []
        if keys:
            role = raw if child.type == "cite_role" else None
            self.block.pandoc.append((self.vlen, PandocKeys(tuple(keys), role)))

    def footnote_ref(self, child: Token) -> None:
        pos = self.line.find("[^", self.cur)
        if pos < 0:
            pos = self.line.find("^[", self.cur)
        if pos >= 0:
            close = self.line.find("]", pos)
            self.cur = close + 1 if close >= 0 else pos + 2
        meta = child.meta or {}
        label = meta.get("label")
        key = str(label) if label is not None else f"#{meta.get('id', '')}"
        self.block.footnotes.append((self.vlen, key))

    def html_inline(self, child: Token) -> None:
        raw = child.content
        pos = self.line.find(raw, self.cur)
        if raw.startswith("<!--"):
            for m in MARKER.finditer(raw):
                if m.group(1) == "ignore":
                    self.block.ignore = True
                else:
                    self.block.toggles.append(m.group(1) == "enable")
        else:
            self.html_tag(raw, pos)
        self.past(raw, pos, "\n" in raw)

    def html_tag(self, raw: str, pos: int) -> None:
        """An inline HTML tag: an anchor it declares, a superscript, a link, code, a line break."""
        low = raw[:6].lower()
        if " " in raw or "\n" in raw:
            declared = _HTML_ID.match(raw)
            if declared is not None and "href" not in raw[: declared.start(1)].lower():
                self.block.anchors.append(declared.group(1))
        if low.startswith("<sup"):
            self.sup = (len(self.parts), self.vlen, len(self.block.links))
        elif low.startswith("</sup") and self.sup is not None:
            self.vlen, self.last = _drop_marker(self.block, self.parts, self.sup, self.vlen, self.last)
            self.sup = None
        elif low.startswith("<a ") or low.startswith("<a\n"):
            self.html_link_open(raw, pos)
        elif low.startswith("</a"):
            self.html_link_close()
        elif low.startswith("<code"):
            self.code_depth += 1
        elif low.startswith("</code"):
            self.code_depth = max(0, self.code_depth - 1)
        elif low.startswith("<br") and self.last != " ":
            self.space()

    def html_link_open(self, raw: str, pos: int) -> None:
        m = HTML_A.match(raw)
        if m:
            if pos >= 0:
                self.mark(pos)
            t = _HTML_TITLE.search(raw)
            href = m.group(1) or m.group(2) or m.group(3) or ""
            self.html_link = (href, (t.group(1) or t.group(2)) if t else None)
            self.link_start = self.vlen
            self.link_part = len(self.parts)

    def html_link_close(self) -> None:
        if self.html_link is not None:
            href, title = self.html_link
            if href.startswith("#") and len(href) > 1:
                # '<sup><a href="#fn1">1</a></sup>': an in-document anchor, as "[1](#fn1)"
                nav = navigation("".join(self.parts[self.link_part :]))
                self.block.links.append(
                    Link(self.link_start, self.vlen, None, anchor=None if nav else href[1:])
                )
            else:
                text = "".join(self.parts[self.link_part :])
                cit = resolve.link_citation(f'<a href="{href}">{text}</a>', CitationKind.link, href, title)
                self.block.links.append(Link(self.link_start, self.vlen, cit))
        self.html_link = None

    def emphasis(self, child: Token) -> None:
        """Emphasis, strong, strikethrough: the markers are not visible text."""
        markup = child.markup
        if markup:
            # only a marker at cur or cur + 1 counts: looking further (to the end of a long
            # line, for each of many markers) would be quadratic
            pos = self.line.find(markup, self.cur, self.cur + 1 + len(markup))
            if pos >= 0:
                if child.type.endswith("_open"):
                    self.mark(pos)
                self.cur = pos + len(markup)


_HANDLERS: dict[str, Callable[[_Scan, Token], None]] = {
    "text": _Scan.text,
    "text_special": _Scan.text_special,
    "softbreak": _Scan.line_break,
    "hardbreak": _Scan.line_break,
    "code_inline": _Scan.code_inline,
    "link_open": _Scan.link_open,
    "link_close": _Scan.link_close,
    "image": _Scan.image,
    "pandoc_cite": _Scan.citation_keys,
    "cite_role": _Scan.citation_keys,
    "footnote_ref": _Scan.footnote_ref,
    "html_inline": _Scan.html_inline,
}


def _word_before(parts: list[str], index: int) -> str:
    """Up to four characters of visible text before `parts[index]`, read from the end (a
    paragraph's parts are many: joining them all at each superscript would be quadratic)."""
    tail = ""
    for k in range(index - 1, -1, -1):
        tail = parts[k][-4:] + tail
        if len(tail) >= 4:
            break
    return tail[-4:]


def _drop_marker(
    block: Block, parts: list[str], sup: tuple[int, int, int], vlen: int, last: str
) -> tuple[int, str]:
    """At a `</sup>`: a superscript that is a citation marker ("eyes.<sup>7</sup>",
    "PR<sup>[10]</sup>", "indicators<sup>1</sup>") leaves the visible text, so its digits are no
    figure and the sentences around it split; its links stay, as zero-width links where it
    stood, and a marker without links is noted in `block.sups`, to be resolved to the note or
    reference-list entry with its number. A superscript that opens a line is a note's own
    number ("<sup>1</sup> See …"), and its in-page links lead back to the text. A superscript
    that is not a marker ("m<sup>2</sup>", "2<sup>53</sup>", "1<sup>st</sup>") stays. Returns
    the new (vlen, last)."""
    index, start, links = sup
    inner = "".join(parts[index:])
    if not inner or _SUP_MARKER.fullmatch(inner) is None:
        return vlen, last
    numbers = _SUP_NUMBERS.fullmatch(inner) is not None
    leading = start == 0 or (bool(block.breaks) and block.breaks[-1] >= start - 1)
    before = _word_before(parts, index)
    if (
        not (leading and numbers)
        and len(block.links) == links
        and "[" not in inner
        and before[-1:] not in '.,;:!?)"”’'
    ):
        # after a word: a note's number unless the word is a symbol or a figure's unit
        letters = len(before) - len(before.rstrip(_LETTERS))
        if letters < 3 or not numbers:
            return vlen, last
    del parts[index:]
    if leading:
        block.links[links:] = [lk for lk in block.links[links:] if lk.anchor is None]
    elif len(block.links) == links:
        block.sups.append((start, inner, False))
    if leading and numbers:
        block.sups.append((start, inner, True))
    for lk in block.links[links:]:
        lk.start = lk.end = start
    while block.seg_v and block.seg_v[-1] > start:
        block.seg_v.pop()
        block.seg_line.pop()
        block.seg_col.pop()
        block.seg_text_col.pop()
    block.masked = [(a, min(b, start)) for a, b in block.masked if a < start]
    return start, (parts[-1][-1] if parts and parts[-1] else " ")


def _link_citation(link_tok: Token, text: str, line: str, cur: int) -> Citation | None:
    """The citation of a link whose visible text is `text`."""
    href = str(link_tok.attrs.get("href", ""))
    title = link_tok.attrs.get("title")
    title_s = str(title) if title else None
    if link_tok.markup == "autolink":
        return resolve.link_citation(f"<{href}>", CitationKind.link, href, title_s)
    if link_tok.markup == "role":
        return resolve.link_citation(link_tok.content, CitationKind.link, href, title_s)
    close = line.find("]", cur)
    after = line[close + 1 : close + 2] if close >= 0 else "("
    if after == "(":
        return resolve.link_citation(f"[{text}]({href})", CitationKind.link, href, title_s)
    if after == "[":
        end = line.find("]", close + 2)
        label = line[close + 2 : end] if end > close + 2 else text
        return resolve.link_citation(f"[{text}][{label}]", CitationKind.reference, href, title_s, label)
    return resolve.link_citation(f"[{text}]", CitationKind.reference, href, title_s, text)
