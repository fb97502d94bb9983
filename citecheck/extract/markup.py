"""Template and MDX markup is not prose: it is blanked before the Markdown is parsed (see
docs/ARCHITECTURE.md).

Static-site generators render their templates before the Markdown, so a docs repository's
Markdown holds markup no reader sees:
- Liquid (Jekyll): `{% tag … %}` and `{{ output | filter }}`; the bodies of `{% highlight %}` and
  `{% comment %}` blocks are code and comments; `{% raw %}…{% endraw %}` shows its body as is;
  Jekyll-Scholar's `{% cite key %}` is a citation, left to the parser (`forms/roles.py`);
- Hugo shortcodes: `{{< name … >}}`, `{{% name … %}}`, their closing `{{< /name >}}`; a paired
  shortcode keeps its inner text (a note, a callout, a gallery), except the code-like ones
  (`highlight`, `code`, `mermaid`, `plotly`, `math`, `raw`, …: their body is blanked too);
- `{{macro(…)}}` (MDN, wikis, Go templates): blanked, except a cross-reference macro
  (`{{jsxref("Array.map")}}`, `{{Glossary("HTTP", "HTTP protocol")}}`, `{{HTMLElement("div")}}`),
  which keeps its visible text (its second string argument, else its first);
- MDX: `{/* comments */}`, JSX tags (`<Tabs>`, `<Figure src={img} />`: the tag and its props
  blanked, the children text kept) and, in `.mdx` files, `{expressions}` outside code;
- code includes: `{* ../../docs_src/app.py hl[11, 19] *}` (FastAPI's MkDocs docs), whose line
  numbers are no `[N]` citations;
- attribute lists: kramdown's `{: .class}`, pandoc's `{#id .class}` and Python-Markdown's
  `{ .md-button }` (a pandoc `{#id}` too: in-page links find the anchors of HTML `id` and
  `name` attributes, `citecheck.extract.inline`); Material for MkDocs icons (`:material-…:`,
  `:fontawesome-…:`, `:octicons-…:`, `:simple-…:`) and GitHub's emoji shortcodes (`:unicorn:`,
  `:+1:`);
- roles of MyST, Sphinx and d2lbook: a cross-reference to the project's pages (`` {doc}`page` ``,
  `` {ref}`label` ``, `` {numref}`fig-x` ``, `` {eq}`label` ``) is a link, left to the parser
  (`citecheck.extract.forms.roles`); another's label (`` :eqref:`eq_x` ``, `` :label:`sec_x` ``)
  is no prose (the rendered page shows a number or a title there) and is blanked whole; a glossary or
  text role (`` {term}`benchmarks <Benchmark>` ``, `` {abbr}`LLM` ``) shows its text, which stays
  as prose; any other role (`` {py:func}`load` ``, `` :class:`Model` ``) keeps its code span.
  Bibliography roles (`` {cite}`key` ``) are citations, read by the parser
  (`citecheck.extract.forms.roles`);
- MyST directives whose body is prose (```` ```{note} ````, ```` ```{table} Title ````,
  ```` ```{admonition} ````, `{seealso}`, `{epigraph}`, …): the fence lines and the `:option:`
  lines after the opening one are blanked, so the body is read as Markdown, not as code.
`:::type` admonitions and `!!! type` blocks are left to the parser (mdit-py-plugins' container
and admon plugins: their bodies are prose).
Front matter that is not YAML (TOML's `+++`), a Pelican, MultiMarkdown or Franklin metadata
block and, in MDX, top-level import/export statements are blanked too (`blank_non_markdown`).

Blanking keeps every character where it was, so lines and columns stay exact: markup that fills
its line becomes spaces (a blank line, as the rendered page has), markup inside a line becomes
`FILL` characters, which the walk drops from a claim's text (`drop_fill`). Each pass is linear in
the text: a construct's closing mark is looked up once for all the openings before it, and a
construct longer than `MAX_SPAN` characters is not markup (hostile input is bounded).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

from citecheck.extract.forms import roles
from citecheck.numbers import wordset

FILL = "\ue000"  # a private-use character: stands for blanked markup inside a line
MAX_SPAN = 2000  # characters: a longer "{{ … }}" or "<Tag …>" is not template markup

_CODE_SHORTCODES = frozenset(
    [
        "highlight",
        "code",
        "codeblock",
        "mermaid",
        "plotly",
        "chart",
        "echarts",
        "math",
        "katex",
        "raw",
        "rawhtml",
        "html",
        "svg",
        "diagram",
        "gist",
        "tweet",
        "x",
        "youtube",
        "vimeo",
        "asciinema",
    ]
)
_LIQUID_BODIES = frozenset({"highlight", "comment"})
_XREF_MACRO = re.compile(r"(?i)(?:xref|glossary|element|attr|header|method|status|event)$")
_STRING_ARG = re.compile(r"\"([^\"]{0,200})\"|'([^']{0,200})'")
_OPENERS = re.compile(r"\{\{|\{%|\{/\*|\{\*|\{(?::|[ \t]*[#.][A-Za-z])")
_LIQUID_END = re.compile(r"\{%-?\s*end(\w+)\s*-?%\}")
_SHORTCODE = re.compile(r"\{\{([<%])\s*(/?)\s*([\w.-]+)")
_LIQUID_NAME = re.compile(r"\{%-?\s*(\w+)")
_LIQUID_CITE = re.compile(roles.LIQUID_CITE_OPENING)  # Jekyll-Scholar's tag, a citation
_MACRO = re.compile(r"\{\{\s*([A-Za-z_][\w.-]*)\s*\(")
_ATTRIBUTES = re.compile(r"\{(?::|[ \t]*[#.][A-Za-z])[^{}\n]{0,200}\}")
# Material for MkDocs icons (pymdownx.emoji): ":material-newspaper-variant:", ":simple-github:",
# ":octicons-home-16:", ":fontawesome-brands-slack:"; an icon, no text.
_ICON_SETS = (":material-", ":fontawesome-", ":octicons-", ":simple-")
_ICON = re.compile(r":(?:material|fontawesome|octicons|simple)-[a-z0-9-]{1,80}:")
# GitHub's emoji shortcodes (":unicorn:", ":tada:", ":+1:"): a picture, no text. Not inside a
# word, a time or a path ("10:30:00", "a:b:c", "std::map"), not a table's alignment (":---:") nor
# a role (":cite:`key`").
# The colon first, so that the search skips to it (a lookbehind first makes it try every place);
# what stands before it is checked after (`_emoji_spans`).
_EMOJI = re.compile(r":[a-z0-9_+-]{0,39}[a-z][a-z0-9_+-]{0,39}:(?![\w:/`|])")


def _emoji_spans(text: str) -> list[tuple[int, int]]:
    return [
        m.span()
        for m in _EMOJI.finditer(text)
        if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:/|")
    ]


_JSX_START = re.compile(r"</?[A-Z][\w.]*")
_JSX_PROP = re.compile(r"<[A-Za-z][\w.]*\s[^<>]{0,500}?=\{")
_JSX_TOKEN = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[{}<>]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DIRECTIVE = re.compile(r"^ {0,3}(`{3,}|~{3,})\{([a-z][\w-]{0,30})\}[^\n]*$", re.MULTILINE)
_OPTION_LINE = re.compile(r"[ \t]*:[\w-]{1,40}:[^\n]*")
_PROSE_DIRECTIVES = wordset(
    "note warning tip important caution attention danger error hint seealso admonition table epigraph "
    "pull-quote highlights sidebar margin topic dropdown card tab-item tab-set grid-item-card"
)
# Any role: its name, then its content in backticks (group 1: the content's text, group 2 a
# " <target>" after it).
_ROLE = re.compile(
    r"(?<![\w.`/$])(?:\{[a-z][\w:.-]{0,30}\}|(?<![\w:]):[a-z][\w:.-]{0,30}:)`([^`<\n]{1,300}?)(\s*<[^`>\n]{1,200}>)?`"
)
_CITE_ROLE = re.compile(r"\{(?:foot)?cite|:cite")
# Roles whose content is text on the rendered page, and cross-references, whose content is a label.
_TEXT_ROLES = wordset("term abbr index dfn sub sup guilabel menuselection strong emphasis")
_XREF_ROLES = wordset("numref ref eq eqref label doc download any term-ref")


def may_hold_markup(text: str, *, mdx: bool) -> bool:
    """The cheap test before `blank_markup`: False means there is nothing to blank."""
    if "{" in text or ("`" in text and ":" in text and _ROLE.search(text) is not None):
        return True
    if any(icon in text for icon in _ICON_SETS) or (_EMOJI.search(text) is not None and _emoji_spans(text)):
        return True
    return "<" in text and (mdx or _JSX_PROP.search(text) is not None)


def blank_markup(text: str, *, mdx: bool) -> str:
    """`text` with its template and MDX markup blanked, every character kept in place."""
    if not may_hold_markup(text, mdx=mdx):
        return text
    spans: list[tuple[int, int]] = []  # blanked
    keep: list[tuple[int, int]] = []  # visible text inside a blanked span (a macro's)
    raw = _raw_bodies(text)
    _template_spans(text, raw, spans, keep)
    if mdx or "<" in text:
        _jsx_spans(text, spans, everything=mdx)
    if mdx:
        _expression_spans(text, spans)
    if "`" in text:
        _role_spans(text, spans)
        _directive_spans(text, spans)
    if any(icon in text for icon in _ICON_SETS):
        spans.extend(m.span() for m in _ICON.finditer(text))
    spans.extend(_emoji_spans(text))
    if not spans:
        return text
    chars = list(text)
    for s, e in spans:
        for k in range(s, e):
            if chars[k] != "\n":
                chars[k] = FILL
    for s, e in keep:
        chars[s:e] = text[s:e]
    out = "".join(chars)
    if FILL not in out:
        return out
    # A line that held nothing but markup is a blank line, as in the rendered page.
    lines = out.split("\n")
    for n, line in enumerate(lines):
        if FILL in line and not line.replace(FILL, "").strip():
            lines[n] = " " * len(line)
    return "\n".join(lines)


def blank_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with each [start, end) span made spaces, same length (offsets into it still hold)."""
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


_DROP = re.compile(rf"(?<= ){FILL}+ | {FILL}+(?=[,.;:!?)])|{FILL}+")


def drop_fill(text: str) -> str:
    """Visible text without the blanked markup's `FILL` characters (and the doubled space a
    blanked word leaves)."""
    return _DROP.sub("", text) if FILL in text else text


def strip_fill(text: str) -> str:
    """`text` without `FILL` at its ends (and whitespace)."""
    return text.strip().strip(FILL).strip()


# --- the passes --------------------------------------------------------------------------------


def _raw_bodies(text: str) -> list[tuple[int, int]]:
    """The bodies of `{% raw %}…{% endraw %}`: shown as written, never blanked."""
    if "raw" not in text:
        return []
    out: list[tuple[int, int]] = []
    pos = 0
    opening = re.compile(r"\{%-?\s*raw\s*-?%\}")
    closing = re.compile(r"\{%-?\s*endraw\s*-?%\}")
    while (m := opening.search(text, pos)) is not None:
        c = closing.search(text, m.end())
        if c is None:
            break
        out.append((m.end(), c.start()))
        pos = c.end()
    return out


class _Closer:
    """Where the next `mark` stands after a position, looked up once for all the positions
    before it (so each construct's closing is found in linear time overall)."""

    def __init__(self, text: str, mark: str) -> None:
        self.text, self.mark = text, mark
        self.at = -2  # the next occurrence found so far (-1: none left)

    def after(self, pos: int) -> int:
        if self.at == -1:
            return -1
        if self.at < pos:
            self.at = self.text.find(self.mark, pos)
        return self.at


def _template_spans(
    text: str, raw: list[tuple[int, int]], spans: list[tuple[int, int]], keep: list[tuple[int, int]]
) -> None:
    raw_starts = [s for s, _ in raw]
    ends_by_name: dict[str, list[tuple[int, int]]] = {}
    if "{%" in text:
        for m in _LIQUID_END.finditer(text):
            ends_by_name.setdefault(m.group(1), []).append((m.start(), m.end()))
    shortcode_closes: dict[str, list[tuple[int, int]]] = {}
    closers = {
        "{{": _Closer(text, "}}"),
        "{%": _Closer(text, "%}"),
        "{/*": _Closer(text, "*/}"),
        "{*": _Closer(text, "*}"),
    }
    pos = 0
    for m in _OPENERS.finditer(text):
        start = m.start()
        if start < pos:
            continue
        i = bisect_right(raw_starts, start) - 1
        if i >= 0 and start < raw[i][1]:
            continue  # inside {% raw %}
        opener = m.group(0)
        if opener in closers:
            close = closers[opener].after(start + len(opener))
            if close < 0 or close - start > MAX_SPAN:
                continue
            end = close + len(closers[opener].mark)
            if opener == "{%":
                if _LIQUID_CITE.match(text, start) is not None:
                    continue  # a citation, read by the parser (forms/roles.py)
                end = _liquid_block_end(text, start, end, ends_by_name)
            elif opener == "{{":
                end = _shortcode_end(text, start, end, shortcode_closes, keep)
            spans.append((start, end))
            pos = end
        else:
            a = _ATTRIBUTES.match(text, start)
            if a is not None:
                spans.append(a.span())
                pos = a.end()


def _liquid_block_end(text: str, start: int, end: int, ends_by_name: dict[str, list[tuple[int, int]]]) -> int:
    """Where a Liquid tag's blanking ends: after its `{% end… %}` for a block whose body is
    code or a comment, else the tag itself."""
    name = _LIQUID_NAME.match(text, start)
    if name is None or name.group(1) not in _LIQUID_BODIES:
        return end
    closes = ends_by_name.get(name.group(1), [])
    k = bisect_right([s for s, _ in closes], end - 1)
    return closes[k][1] if k < len(closes) else end


def _shortcode_end(
    text: str,
    start: int,
    end: int,
    shortcode_closes: dict[str, list[tuple[int, int]]],
    keep: list[tuple[int, int]],
) -> int:
    """Where a `{{…}}` construct's blanking ends: a code-like paired shortcode takes its body
    along; a cross-reference macro keeps its visible text (recorded in `keep`)."""
    sc = _SHORTCODE.match(text, start)
    if sc is not None:
        name = sc.group(3)
        if sc.group(2) or name not in _CODE_SHORTCODES or text[end - 3 : end - 2] == "/":
            return end
        closes = shortcode_closes.get(name)
        if closes is None:
            pattern = re.compile(r"\{\{[<%]\s*/\s*" + re.escape(name) + r"\s*[>%]\}\}")
            closes = shortcode_closes[name] = [(c.start(), c.end()) for c in pattern.finditer(text)]
        k = bisect_right([s for s, _ in closes], end - 1)
        return closes[k][1] if k < len(closes) else end
    macro = _MACRO.match(text, start)
    if macro is not None and _XREF_MACRO.search(macro.group(1)):
        args = list(_STRING_ARG.finditer(text, macro.end(), end))
        pick = [a for a in args[:2] if (a.group(1) or a.group(2) or "").strip()]
        if pick:
            chosen = pick[-1]
            g = 1 if chosen.group(1) is not None else 2
            keep.append(chosen.span(g))
    return end


def _directive_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """A prose MyST directive's fences and option lines (see the module docstring). Linear: each
    line after an opening is looked at once, up to its closing fence."""
    pos = 0
    for m in _DIRECTIVE.finditer(text):
        if m.start() < pos or m.group(2) not in _PROSE_DIRECTIVES:
            continue
        fence = m.group(1)
        spans.append(m.span())
        line_start = m.end() + 1
        options = True
        while line_start < len(text):
            line_end = text.find("\n", line_start)
            if line_end < 0:
                line_end = len(text)
            line = text[line_start:line_end]
            if options and _OPTION_LINE.fullmatch(line):
                spans.append((line_start, line_end))
            else:
                options = False
                closing = line.strip()
                if closing and closing[0] == fence[0] and closing == closing[0] * len(closing) >= fence:
                    spans.append((line_start, line_end))
                    break
            line_start = line_end + 1
        pos = line_start


def _role_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """MyST and Sphinx roles (see the module docstring): a cross-reference blanked whole, a text
    role's name, backticks and target blanked around its text, another role's name alone."""
    for m in _ROLE.finditer(text):
        start = m.start()
        if _CITE_ROLE.match(text, start) or roles.XREF.match(text, start):
            continue  # a citation (a bibliography role, or a link written as a role): the parser's
        tick = text.index("`", start)
        name = text[start + 1 : tick - 1].rsplit(":", 1)[-1]  # "py:func" → "func", "prf:ref" → "ref"
        if name in _XREF_ROLES:
            spans.append(m.span())
        elif name in _TEXT_ROLES:
            spans.append((start, tick + 1))
            spans.append((m.end(1), m.end()))
        else:
            spans.append((start, tick))


def _jsx_spans(text: str, spans: list[tuple[int, int]], *, everything: bool) -> None:
    """JSX tags: a capitalised component's tags (in MDX), and any tag with a `={…}` prop."""
    pattern = _JSX_START if everything else _JSX_PROP
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        start = m.start()
        end, stop = _tag_end(text, m.end() if everything else start + 1)
        if end < 0:
            # no tag here; nor at an opening inside what was scanned that only a "<" at depth 0
            # could have ended: resume after it, so each character is scanned once
            pos = max(m.end(), stop)
            continue
        if end - start <= MAX_SPAN:
            spans.append((start, end))
        pos = end
    # `_JSX_PROP` finds lower-case tags with brace props too (`<img src={x} />`) in any file
    if everything and "={" in text:
        _jsx_spans(text, spans, everything=False)


def _tag_end(text: str, pos: int) -> tuple[int, int]:
    """(end, stop): the end of a tag whose name ends before `pos`, after its `>` outside quotes
    and braces, or -1 if there is none within `MAX_SPAN` characters or a new tag opens first;
    `stop` is where the scan ended."""
    depth = 0
    limit = min(len(text), pos + MAX_SPAN)
    for t in _JSX_TOKEN.finditer(text, pos, limit):
        tok = t.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth = max(0, depth - 1)
        elif tok == ">" and depth == 0:
            return t.end(), t.end()
        elif tok == "<" and depth == 0:
            return -1, t.start()
    return -1, limit


def _expression_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """MDX `{expressions}` in running text (balanced within a line, outside code)."""
    fence = ""
    offset = 0
    for line in text.split("\n"):
        f = _FENCE.match(line)
        if f and (not fence or (f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence))):
            fence = "" if fence else f.group(1)
        elif not fence and "{" in line:
            parts = line.split("`")
            col = 0
            for n, part in enumerate(parts):
                if n % 2 == 0 and "{" in part:
                    _balanced(part, offset + col, spans)
                col += len(part) + 1
        offset += len(line) + 1


def _balanced(part: str, base: int, spans: list[tuple[int, int]]) -> None:
    depth = 0
    start = -1
    for k, ch in enumerate(part):
        if ch == "{":
            if depth == 0:
                start = k
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((base + start, base + k + 1))


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ESM = re.compile(r"^(?:import|export)\s")
_HEADING_LINE = re.compile(r" {0,3}#{1,6}(?:\s|$)")


# Franklin's page variables (Julia's sites): "@def title = "…"" lines at the top of a page.
_FRANKLIN_DEF = re.compile(r"@def\s+\w+\s*=")
# Pelican and MultiMarkdown metadata: "Key: value" lines that open the file, up to a blank line
# ("Title: This Week in Rust 201", "Date: 2017-09-26"); the first key is one of these.
_METADATA_START = re.compile(r"(?i:title|date|author|authors|slug|category|tags|summary|status|lang):[ \t]")
_METADATA_LINE = re.compile(r"[A-Za-z][\w -]{0,30}:[ \t]|[ \t]+\S")


def blank_non_markdown(text: str, *, mdx: bool) -> str:
    """Blank out TOML front matter (`+++`), a Pelican, MultiMarkdown or Franklin metadata block and, in MDX,
    top-level import/export statements (up to a blank line, as MDX reads them, or to the close
    of their brackets), keeping every line where it is so positions stay exact."""
    metadata = _METADATA_START.match(text) is not None or _FRANKLIN_DEF.match(text) is not None
    if not text.startswith("+++") and not metadata and not (mdx and ("import" in text or "export" in text)):
        return text
    lines = text.split("\n")
    if lines[0].strip() == "+++":
        for n in range(1, len(lines)):
            if lines[n].strip() == "+++":
                lines[: n + 1] = [""] * (n + 1)
                break
    if metadata:
        n = 0
        pattern = _FRANKLIN_DEF if lines[0].startswith("@def") else _METADATA_LINE
        while n < len(lines) and lines[n].strip() and pattern.match(lines[n]):
            n += 1
        if n >= 2 or pattern is _FRANKLIN_DEF:  # one "Title: …" line alone may be prose
            lines[:n] = [""] * n
    if mdx:
        fence = ""
        esm = False  # inside an import/export statement: MDX reads it up to a blank line
        depth = 0  # its open brackets: "export const post = {" … "}" may hold a blank line
        for n, line in enumerate(lines):
            # (a heading ends it whatever its brackets: a string's "{" must not take the page)
            if esm and (line.strip() or depth > 0) and _HEADING_LINE.match(line) is None:
                depth += _bracket_balance(line)
                lines[n] = ""
                continue
            esm = False
            m = _FENCE.match(line)
            if m and (not fence or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
                fence = "" if fence else m.group(1)
            elif not fence and _ESM.match(line):
                esm = True
                depth = max(_bracket_balance(line), 0)
                lines[n] = ""
    return "\n".join(lines)


def _bracket_balance(line: str) -> int:
    """Opening minus closing brackets of a line of code (strings are not told apart: an
    unbalanced one ends the statement at the next blank line, as MDX's own rule does)."""
    return sum(map(line.count, "{[(")) - sum(map(line.count, "}])"))
