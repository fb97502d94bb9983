"""Inline scanning: the visible text of a block's inline tokens (link markup and emphasis
markers removed, link text and inline code kept), each offset mapped back to its file line and
column, with its links and their citations, HTML inline links and anchors, code spans,
footnote references, pandoc citation keys, superscript note markers and inline citecheck
markers (`scan_inline` → `Block`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from markdown_it.token import Token

from citecheck.extract import resolve
from citecheck.extract.block import Block, Link, PandocKeys
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
    block = Block()
    content_lines = tok.content.split("\n")
    first = tok.map[0] if tok.map else 0
    nlines = len(lines)
    bases = [base_col(lines[first + i] if first + i < nlines else "", c) for i, c in enumerate(content_lines)]
    li = 0
    line = content_lines[0]
    cur = 0
    parts: list[str] = []
    vlen = 0
    last = " "  # the last visible character, to avoid doubled spaces
    link_start = -1
    link_part = 0  # index in `parts` where the link's text starts (link_start in visible text)
    link_tok: Token | None = None
    html_link: tuple[str, str | None] | None = None
    code_depth = 0
    pending_space = False  # a citation bracket dropped after a space: the space comes back before a word
    sup: tuple[int, int, int] | None = None  # an open <sup>: (parts index, vlen, links) where it began
    seg_v, seg_line, seg_col, seg_text = block.seg_v, block.seg_line, block.seg_col, block.seg_text_col

    def mark(pos: int) -> None:
        col = bases[li] + pos + 1 if li < len(bases) else pos + 1
        if seg_v and seg_v[-1] == vlen:
            if seg_line[-1] == first + li + 1:
                seg_text[-1] = col
            else:
                # nothing visible since the last mark, which was on a line before (an image-only
                # link, "[![alt](…)](…)", above a caption): the text starts here
                seg_line[-1], seg_col[-1], seg_text[-1] = first + li + 1, col, col
            return
        seg_v.append(vlen)
        seg_line.append(first + li + 1)
        seg_col.append(col)
        seg_text.append(col)

    for child in tok.children or ():
        ctype = child.type
        if ctype == "text":
            s = child.content
            if not s:
                continue
            if FILL in s:
                s = drop_fill(s)
                if not s:
                    continue
            if pending_space:
                pending_space = False
                if s[0] not in " .,;:!?)]}”’'\"":
                    parts.append(" ")
                    vlen += 1
                    last = " "
            if last == " " and s[0] == " ":
                s = s.lstrip(" ")
                if not s:
                    continue
            pos = line.find(s, cur)
            if pos >= 0:
                mark(pos)
                nxt = pos + len(s)
            else:
                # Escapes or entities make the source differ from the text: align them.
                nxt = cur
                for vi, sj in _align(s, line, cur):
                    if not seg_v or seg_v[-1] < vlen + vi:
                        col = (bases[li] if li < len(bases) else 0) + sj + 1
                        seg_v.append(vlen + vi)
                        seg_line.append(first + li + 1)
                        seg_col.append(col)
                        seg_text.append(col)
                    nxt = sj
            if code_depth:
                block.masked.append((vlen, vlen + len(s)))
            parts.append(s)
            vlen += len(s)
            last = s[-1]
            cur = nxt
        elif ctype == "text_special":  # a backslash escape or an entity
            s = child.content
            pos = line.find(child.markup, cur) if child.markup else -1
            if pos >= 0:
                mark(pos)
                cur = pos + len(child.markup)
            if code_depth:
                block.masked.append((vlen, vlen + len(s)))
            parts.append(s)
            vlen += len(s)
            if s:
                last = s[-1]
        elif ctype in ("softbreak", "hardbreak"):
            li += 1
            line = content_lines[li] if li < len(content_lines) else ""
            cur = 0
            block.breaks.append(vlen)
            if last != " ":
                parts.append(" ")
                vlen += 1
                last = " "
        elif ctype == "code_inline":
            markup = child.markup or "`"
            pos = line.find(markup, cur)
            if pos < 0:
                pos = cur
            mark(pos)
            s = child.content
            block.masked.append((vlen, vlen + len(s)))
            parts.append(s)
            vlen += len(s)
            if s:
                last = s[-1]
            end = line.find(markup, pos + len(markup) + max(len(s) - 2, 0))
            while end < 0 and li + 1 < len(content_lines):
                # a code span over several lines: its line breaks are spaces, not softbreaks
                li += 1
                line = content_lines[li]
                end = line.find(markup)
            cur = end + len(markup) if end >= 0 else len(line)
        elif ctype == "link_open":
            pos = line.find("<" if child.markup == "autolink" else "[", cur)
            if pos >= 0:
                mark(pos)
                cur = pos + 1
            link_start = vlen
            link_part = len(parts)
            link_tok = child
        elif ctype == "link_close":
            if link_tok is not None:
                href = str(link_tok.attrs.get("href", ""))
                link_text = "".join(parts[link_part:])
                if href.startswith("#") and len(href) > 1:
                    if vlen == link_start and titles:
                        # MyST's "[](#mistral-7b)" shows the title of what it points to
                        title = titles.get(href[1:].lower())
                        if title:
                            parts.append(title)
                            vlen += len(title)
                            last = title[-1]
                    block.links.append(Link(link_start, vlen, None, anchor=href[1:]))
                else:
                    cited = _link_citation(link_tok, link_text, line, cur)
                    # "[(1)](compare-nats.md#references)": an anchor of a page, maybe this one's
                    page_anchor = href if cited is None and _PAGE_ANCHOR.fullmatch(href) else None
                    block.links.append(Link(link_start, vlen, cited, anchor=page_anchor))
                if link_tok.markup == "autolink":
                    block.masked.append((link_start, vlen))
                    end = line.find(">", cur)
                    cur = end + 1 if end >= 0 else cur
                else:
                    close = line.find("]", cur)
                    if close >= 0:
                        cur = _skip_link_tail(line, close + 1)
            link_tok = None
        elif ctype == "image":
            pos = line.find("![", cur)
            if pos >= 0:
                close = line.find("]", pos + 2)
                cur = _skip_link_tail(line, close + 1) if close >= 0 else pos + 2
        elif ctype in ("pandoc_cite", "cite_role"):
            raw = child.content
            first_line, _, rest = raw.partition("\n")
            pos = line.find(first_line, cur)
            if rest:
                li += raw.count("\n")
                line = content_lines[li] if li < len(content_lines) else ""
                cur = len(raw) - raw.rfind("\n") - 1
            elif pos >= 0:
                cur = pos + len(raw)
            if parts and parts[-1].endswith(" "):
                parts[-1] = parts[-1][:-1]  # "overfit [@doi:…]." reads "overfit."
                vlen -= 1
                pending_space = True
                # the last visible character (the space may have been a part of its own,
                # after "**MMLU**"): "**MMLU** {cite}`k` dataset" reads "MMLU dataset"
                last = next((p[-1] for p in reversed(parts) if p), " ")
            keys = (child.meta or {}).get("keys") or []
            if keys:
                role = raw if ctype == "cite_role" else None
                block.pandoc.append((vlen, PandocKeys(tuple(keys), role)))
        elif ctype == "footnote_ref":
            pos = line.find("[^", cur)
            if pos < 0:
                pos = line.find("^[", cur)
            if pos >= 0:
                close = line.find("]", pos)
                cur = close + 1 if close >= 0 else pos + 2
            meta = child.meta or {}
            label = meta.get("label")
            key = str(label) if label is not None else f"#{meta.get('id', '')}"
            block.footnotes.append((vlen, key))
        elif ctype == "html_inline":
            raw = child.content
            pos = line.find(raw, cur)
            if raw.startswith("<!--"):
                for m in MARKER.finditer(raw):
                    if m.group(1) == "ignore":
                        block.ignore = True
                    else:
                        block.toggles.append(m.group(1) == "enable")
            else:
                low = raw[:6].lower()
                if " " in raw or "\n" in raw:
                    declared = _HTML_ID.match(raw)
                    if declared is not None and "href" not in raw[: declared.start(1)].lower():
                        block.anchors.append(declared.group(1))
                if low.startswith("<sup"):
                    sup = (len(parts), vlen, len(block.links))
                elif low.startswith("</sup") and sup is not None:
                    vlen, last = _drop_marker(block, parts, sup, vlen, last)
                    sup = None
                elif low.startswith("<a ") or low.startswith("<a\n"):
                    m = HTML_A.match(raw)
                    if m:
                        if pos >= 0:
                            mark(pos)
                        t = _HTML_TITLE.search(raw)
                        href = m.group(1) or m.group(2) or m.group(3) or ""
                        html_link = (href, (t.group(1) or t.group(2)) if t else None)
                        link_start = vlen
                        link_part = len(parts)
                elif low.startswith("</a"):
                    if html_link is not None:
                        href, title = html_link
                        if href.startswith("#") and len(href) > 1:
                            # '<sup><a href="#fn1">1</a></sup>': an in-document anchor, as "[1](#fn1)"
                            block.links.append(Link(link_start, vlen, None, anchor=href[1:]))
                        else:
                            text = "".join(parts[link_part:])
                            cit = resolve.link_citation(
                                f'<a href="{href}">{text}</a>', CitationKind.link, href, title
                            )
                            block.links.append(Link(link_start, vlen, cit))
                    html_link = None
                elif low.startswith("<code"):
                    code_depth += 1
                elif low.startswith("</code"):
                    code_depth = max(0, code_depth - 1)
                elif low.startswith("<br") and last != " ":
                    parts.append(" ")
                    vlen += 1
                    last = " "
            if "\n" in raw:
                li += raw.count("\n")
                line = content_lines[li] if li < len(content_lines) else ""
                cur = len(raw) - raw.rfind("\n") - 1
            elif pos >= 0:
                cur = pos + len(raw)
        elif ctype.endswith("_open") or ctype.endswith("_close"):
            # emphasis / strong / strikethrough: the markers are not visible text
            markup = child.markup
            if markup:
                # only a marker at cur or cur + 1 counts: looking further (to the end of a long
                # line, for each of many markers) would be quadratic
                pos = line.find(markup, cur, cur + 1 + len(markup))
                if pos >= 0:
                    if ctype.endswith("_open"):
                        mark(pos)
                    cur = pos + len(markup)
    block.text = "".join(parts).rstrip()
    return block


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
    close = line.find("]", cur)
    after = line[close + 1 : close + 2] if close >= 0 else "("
    if after == "(":
        return resolve.link_citation(f"[{text}]({href})", CitationKind.link, href, title_s)
    if after == "[":
        end = line.find("]", close + 2)
        label = line[close + 2 : end] if end > close + 2 else text
        return resolve.link_citation(f"[{text}][{label}]", CitationKind.reference, href, title_s, label)
    return resolve.link_citation(f"[{text}]", CitationKind.reference, href, title_s, text)
