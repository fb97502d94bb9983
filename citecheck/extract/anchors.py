"""Where an anchor is in a Markdown text: the ids a document declares and the lines they name.

A link's `#id` finds its target the way the generators make ids:
- a heading's slug, as GitHub, Docusaurus and Hugo make it ("Context Provider" → "context-provider",
  a repeat gets "-1", "-2"), as kramdown makes it (no leading digits: "4 Federation" →
  "federation") and as Python-Markdown's `toc` makes it (MkDocs; accents dropped);
- an attribute list: pandoc's and kramdown's `{#id}` after a heading or on a span
  (`[Smith 2020]{#ref-a}`), kramdown's `{: #id}` on a line of its own (the block before it, or
  after it when none is before), MkDocs' `attr_list` `{ #id }` at a block's end, a pandoc div's
  `::: {#id}` (the block it opens);
- a MyST label, `(label)=` on the line before what it names; an equation's, `$$ … $$ (label)`; a
  directive's `:label: x` or `:name: x` option; d2l's `` :label:`x` ``. These are the book's
  labels, which any page may name (`{ref}`, `{eq}`, `{numref}`: `global_labels`);
- an HTML `name` or `id` attribute (`<a name="sec9"></a>`, `<span id="x">`).

`declared_lines` gives the attribute lists' and labels' ids by the line of the block they name
(the walk reads a reference entry's anchors from it: they are blanked before the parse, see
`citecheck.extract.markup`); `section` gives the lines an anchor's part of the page spans: the
heading it names (or stands just before) to the next heading of its level or above, or for an
anchor inside a section, that section. Headings are read line by line (ATX and setext, outside
fenced code), which is what the generators' slugs are made from. Linear in the text."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# `{#id}`, `{: #id .class}`, `{ #id }`: an attribute list naming an id (bounded: hostile input)
_ATTR_ID = re.compile(r"\{:?[ \t]*#([\w.:-]{1,200})[^{}\n]{0,200}\}")
_OWN_LINE_ATTR = re.compile(r"[ \t]*(:{3,}[ \t]*)?\{:?[ \t]*#([\w.:-]{1,200})[^{}\n]{0,200}\}[ \t]*")
_MYST_LABEL = re.compile(r"[ \t]*\(([\w.:-]{1,200})\)=[ \t]*")
_EQUATION_LABEL = re.compile(r"\$\$[ \t]*\(([\w.:-]{1,200})\)[ \t]*$")
_OPTION_LABEL = re.compile(r"[ \t]*:(?:label|name):[ \t]+([\w.:-]{1,200})[ \t]*")
_ROLE_LABEL = re.compile(r":label:`([\w.:-]{1,200})`")
_HTML_ID = re.compile(r"<[a-zA-Z][\w-]{0,20}\s[^>]{0,300}?\b(?:name|id)\s*=\s*[\"']?([^\"'\s>]{1,200})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# what a heading's slug is not made of
_LINK = re.compile(r"!?\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)")
_TAG = re.compile(r"<[^>\n]{0,500}>")
_MARKS = re.compile(r"[*_`~]")
# a line of nothing but HTML tags (`<a name="sec5"></a>`, `<div class="breaker"></div>`) or blank
_TAGS_ONLY = re.compile(r"\s*(?:<[^<>\n]{0,300}>\s*){0,20}")


@dataclass(frozen=True)
class Heading:
    line: int  # 0-based, the heading's own line (a setext heading's text line)
    level: int
    ids: frozenset[str]  # every id a generator gives it, and those declared on it


def slugs(title: str) -> tuple[str, str, str]:
    """The ids generators give a heading of this text (see the module's docstring): GitHub's
    (Docusaurus's, Hugo's), kramdown's and Python-Markdown's; "" where one gives none."""
    text = _TAG.sub("", _LINK.sub(r"\1", _ATTR_ID.sub("", title)))
    text = _MARKS.sub("", text).strip()
    low = text.lower()
    github = re.sub(r"[^\w\- ]", "", low).replace(" ", "-")
    kramdown = re.sub(r"^[^a-z]+", "", re.sub(r"[^a-z0-9 -]", "", low)).replace(" ", "-")
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    toc = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_).strip().lower())
    return github, kramdown, toc


def headings(lines: list[str]) -> list[Heading]:
    """The headings of a Markdown text, outside fenced code, with the ids each answers to (a
    repeated slug gets "-1", "-2", as GitHub numbers it)."""
    out: list[Heading] = []
    seen: dict[tuple[int, str], int] = {}  # (style, slug) → how many headings had it
    fence: str | None = None
    front = _front_matter_end(lines)
    for i, line in enumerate(lines):
        if i < front:
            continue
        if "`" in line or "~" in line:
            m = _FENCE.match(line)
            if m is not None:
                mark = m.group(1)
                if fence is None:
                    fence = mark
                    continue
                if mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :].strip():
                    fence = None
                    continue
        if fence is not None:
            continue
        level, title = 0, ""
        if line.lstrip(" ").startswith("#"):
            atx = _ATX.fullmatch(line)
            if atx is not None:
                level, title = len(atx.group(1)), atx.group(2) or ""
        elif i > 0 and lines[i - 1].strip() and line.strip() and line.lstrip()[0] in "=-":
            setext = _SETEXT.fullmatch(line)
            if setext is not None and not _is_block_start(lines[i - 1]):
                level, title = (1 if setext.group(1)[0] == "=" else 2), lines[i - 1].strip()
                i -= 1
        if not level:
            continue
        ids = set(_ATTR_ID.findall(title)) | set(_HTML_ID.findall(title))
        for style, slug in enumerate(slugs(title)):
            if slug:
                n = seen.get((style, slug), 0)
                seen[style, slug] = n + 1
                ids.add(slug if n == 0 else f"{slug}-{n}")
        out.append(Heading(i, level, frozenset(ids)))
    return out


def _front_matter_end(lines: list[str]) -> int:
    """The first line after a YAML or TOML front matter block (0: none)."""
    if lines and lines[0].strip() in ("---", "+++"):
        mark = lines[0].strip()
        for j in range(1, len(lines)):
            if lines[j].strip() == mark:
                return j + 1
    return 0


def _is_block_start(line: str) -> bool:
    """A line a setext underline cannot make a heading of (a list item, a quote, a table row)."""
    s = line.lstrip()
    return s.startswith((">", "- ", "* ", "+ ", "|", "#")) or bool(re.match(r"\d{1,9}[.)]\s", s))


def declared_lines(lines: list[str]) -> dict[int, list[str]]:
    """The ids attribute lists and MyST labels declare, by the 0-based line of the block they
    name (see the module's docstring)."""
    out: dict[int, list[str]] = {}
    n = len(lines)
    for i, line in enumerate(lines):
        if "{" in line and "#" in line:
            own = _OWN_LINE_ATTR.fullmatch(line)
            if own is not None:
                before = i > 0 and bool(lines[i - 1].strip()) and own.group(1) is None
                target = i - 1 if before else _next_text(lines, i + 1, n)
                if target is not None:
                    out.setdefault(target, []).append(own.group(2))
                continue
            for ident in _ATTR_ID.findall(line):
                out.setdefault(i, []).append(ident)
        elif ")=" in line:
            label = _MYST_LABEL.fullmatch(line)
            if label is not None and (target := _next_text(lines, i + 1, n)) is not None:
                out.setdefault(target, []).append(label.group(1))
        elif ":label" in line or ":name:" in line or "$$" in line:
            out.setdefault(i, []).extend(_line_labels(line))
    return out


def _line_labels(line: str) -> list[str]:
    """The labels an equation, a directive's option or d2l's role declare on this line."""
    if "$$" in line:
        m = _EQUATION_LABEL.search(line)
        return [m.group(1)] if m else []
    m = _OPTION_LABEL.fullmatch(line)
    return [m.group(1)] if m else _ROLE_LABEL.findall(line)


def global_labels(text: str) -> list[str]:
    """The book's labels a page declares (MyST, Sphinx, d2l: see the module's docstring), which
    a cross-reference on any other page may name; an attribute list's or an HTML id is the
    page's own."""
    if ")=" not in text and ":label" not in text and ":name:" not in text and "$$" not in text:
        return []
    found: list[str] = []
    for line in text.split("\n"):
        if ")=" in line:
            label = _MYST_LABEL.fullmatch(line)
            if label is not None:
                found.append(label.group(1))
        elif ":label" in line or ":name:" in line or "$$" in line:
            found.extend(_line_labels(line))
    return found


def _next_text(lines: list[str], start: int, n: int) -> int | None:
    for j in range(start, n):
        if lines[j].strip():
            return j
    return None


def anchor_line(lines: list[str], anchor: str, found: list[Heading] | None = None) -> int | None:
    """The 0-based line an anchor names in the text, or None: a heading's, else a declared
    one's (an attribute list, a MyST label, an HTML `name`/`id`)."""
    for h in found if found is not None else headings(lines):
        if anchor in h.ids:
            return h.line
    for line, ids in declared_lines(lines).items():
        if anchor in ids:
            return line
    needle = anchor if len(anchor) < 200 else anchor[:200]
    for i, line in enumerate(lines):
        if needle in line and ("name" in line or "id" in line) and anchor in _HTML_ID.findall(line):
            return i
    return None


def section(lines: list[str], anchor: str) -> tuple[int, int] | None:
    """The lines [start, end) of the part of the page `anchor` names (see the module's
    docstring), or None when the text declares no such anchor."""
    found = headings(lines)
    line = anchor_line(lines, anchor, found)
    if line is None:
        return None
    start, level = line, 0
    at = next((h for h in found if h.line == line), None)
    if at is None:
        # an anchor on the lines just before a heading names it ("<a name="sec9"></a>" then "## 9 …")
        nxt = next((h for h in found if h.line > line), None)
        if nxt is not None and all(_TAGS_ONLY.fullmatch(s) for s in lines[line : nxt.line]):
            at = nxt
    if at is not None:
        level = at.level
    else:
        # inside a section: that section
        enclosing = [h for h in found if h.line < line]
        if not enclosing:
            return 0, len(lines)
        start, level = enclosing[-1].line, enclosing[-1].level
    after = max(line, start, at.line if at is not None else 0)
    end = next((h.line for h in found if h.line > after and h.level <= level), len(lines))
    return start, end
