"""The Markdown parser: markdown-it-py (CommonMark, tables, strikethrough, HTML) with the
mdit-py-plugins front matter, footnote, container and admonition plugins, and citecheck's own
inline rules: pandoc citation brackets (`_pandoc_cite`), bibliography roles (`_cite_role`) and
bare URLs kept as written (`_bare_url`). A file's parser leaves out the rules whose markers the
file lacks (`_disabled_rules`); blocks get their inline parse only when the walk asks for it
(`children`), and only those that may hold a claim (`may_hold_claim`, the parse gate).

Parsing is bounded (docs/ARCHITECTURE.md, hostile input is bounded): a linear link-destination
reader, a "]" looked up before a bracket rule runs, a block's inline parse cost checked before it
starts (`MAX_BLOCK_COST`) and the file's time budget (`Clock`); either stops the file (`Stopped`).
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from markdown_it import MarkdownIt
from markdown_it import helpers as _md_helpers
from markdown_it.common.utils import unescapeAll
from markdown_it.helpers.parse_link_destination import _Result as _DestResult
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from citecheck.extract import citations
from citecheck.extract.forms import bare_url, pandoc, roles
from citecheck.extract.kinds import has_kind
from citecheck.extract.markup import FILL

# One block's inline parse (markdown-it's, pure Python) cannot be interrupted, so a block
# costlier than this stops the file before it is parsed. The cost counts characters, a "[" that
# a "]" follows as 20 (markdown-it walks to the "]" from it, up to 20 levels deep) and an
# emphasis marker as 4 (nested ones are paired up the same way), so that each unit is 1 to
# 4 µs of parsing whatever the block holds (measured on a busy machine: "[a][" repeated took
# 24 µs a character, "*_" 11 µs, anything else under 4 µs). The costliest paragraph of the
# evaluation Markdown costs under 3,000; 1,000,000 is a few seconds of parsing at most.
MAX_BLOCK_COST = 1_000_000
BRACKET_COST = 20
EMPHASIS_COST = 4


class Stopped(Exception):
    """Extraction of a file stops: over its time budget, or a block too costly to parse."""

    def __init__(self, where: str, reason: str, line: int | None) -> None:
        super().__init__(where, reason, line)
        self.where = where  # "after 15.0 s"
        self.reason = reason
        self.line = line


class Clock:
    """The per-file time budget, checked between blocks (a regex or a block's parse cannot be
    interrupted, which is why each of them must be linear too, and a block's cost is bounded:
    docs/ARCHITECTURE.md, hostile input is bounded). `budget_s` None: no budget."""

    def __init__(self, budget_s: float | None) -> None:
        self.start = time.perf_counter()
        self.budget_s = budget_s
        self.deadline = None if budget_s is None else self.start + budget_s

    def check(self, line: int | None) -> None:
        if self.deadline is not None and (now := time.perf_counter()) > self.deadline:
            where = f"after {now - self.start:.1f} s"
            raise Stopped(where, f"over the {self.budget_s:g}-second time budget for one file", line)

    def check_block(self, tok: Token) -> None:
        """`check`, and that the block's inline parse is within `MAX_BLOCK_COST`."""
        line = tok.map[0] + 1 if tok.map else None
        self.check(line)
        content = tok.content
        if block_cost(content) > MAX_BLOCK_COST:
            reason = (
                f"a block of {len(content):,} characters with {_closed_brackets(content):,} bracketed spans"
                f" and {_emphasis_markers(content):,} emphasis markers is too costly to parse (limit:"
                f" {MAX_BLOCK_COST:,} characters, a bracket counting as {BRACKET_COST}, a marker as"
                f" {EMPHASIS_COST})"
            )
            raise Stopped("", reason, line)


def _closed_brackets(content: str) -> int:
    """How many "[" a "]" follows."""
    last = content.rfind("]")
    return content.count("[", 0, last) if last > 0 else 0


def _emphasis_markers(content: str) -> int:
    return content.count("*") + content.count("_")


def block_cost(content: str) -> int:
    """What a block's inline parse costs, in characters (see `MAX_BLOCK_COST`)."""
    return (
        len(content) + BRACKET_COST * _closed_brackets(content) + EMPHASIS_COST * _emphasis_markers(content)
    )


# What ends a link destination's plain run (markdown-it's parseLinkDestination, which reads it
# a character at a time and was a tenth of extraction on link-heavy pages): a space or control
# character, a backslash, a parenthesis. Between them the same run is skipped by one search.
_DEST_STOP = re.compile(r"[\x00-\x20\x7f\\()]")
_MAX_DEST_PARENS = 32  # markdown-it's nesting limit for parentheses in a destination


def _link_destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's `parseLinkDestination`, same result, searching for the characters that
    matter instead of testing each one (linear: each search starts where the last one ended)."""
    if pos < len(string) and string[pos] == "<":
        return _md_helpers.parseLinkDestination(string, pos, maximum)
    start = pos
    level = 0
    result = _DestResult()
    while True:
        m = _DEST_STOP.search(string, pos, maximum)
        if m is None:
            pos = max(pos, min(maximum, len(string)))
            break
        pos = m.start()
        ch = string[pos]
        if ch == "\\":
            if pos + 1 < maximum:
                if string[pos + 1 : pos + 2] == " ":
                    break
                pos += 2
            else:
                pos += 1
        elif ch == "(":
            level += 1
            if level > _MAX_DEST_PARENS:
                return result
            pos += 1
        elif ch == ")":
            if level == 0:
                break
            level -= 1
            pos += 1
        else:
            break  # a space or a control character
    if start == pos or level != 0:
        return result
    result.str = unescapeAll(string[start:pos])
    result.pos = pos
    result.ok = True
    return result


# Rules that cannot match in a text without their marker, by the markers any of which they need
# (block rules run at every block start, and paragraph-terminating ones at every line; inline
# rules at every punctuation character). A file's parser leaves out those whose markers the file
# lacks, which gives the same tokens for less work: the variants are built once each (`_parser`).
_RULE_MARKERS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("front_matter",), ("---",)),  # checked at the text's start (`_disabled_rules`)
    (("table",), ("|",)),  # a table's header line holds a "|"
    (("container_div",), (":::",)),
    (("admonition",), ("!!!", "???")),
    (("fence",), ("```", "~~~")),
    (("blockquote",), (">",)),
    (("footnote_def", "footnote_ref"), ("[^",)),
    (("footnote_inline",), ("^[",)),
    (("reference",), ("]:",)),  # "[label]:", the "]" and ":" adjacent even over lines
    (("html_block", "html_inline", "autolink"), ("<",)),
    (("escape",), ("\\",)),
    (("backticks",), ("`",)),
    (("entity",), ("&",)),
    (("strikethrough",), ("~~",)),
    (("emphasis",), ("*", "_")),
    (("pandoc_cite",), ("@",)),  # a citation bracket holds a key "@…"
    (("cite_role",), ("cite",)),  # {cite}`key`, :cite:`key`
    (("xref_role",), ("}`", ":`", "ref{")),  # {doc}`page`, :ref:`label`, \ref{label}
)


def _disabled_rules(text: str) -> frozenset[str]:
    """The rules that cannot match anywhere in `text`."""
    off: list[str] = []
    for names, markers in _RULE_MARKERS:
        if names[0] == "front_matter":
            if not text.startswith("-"):
                off.extend(names)
        elif not any(m in text for m in markers):
            off.extend(names)
    return frozenset(off)


@lru_cache(maxsize=256)  # a variant is about 11 KB and takes 2 ms to build
def _parser(disabled: frozenset[str] = frozenset()) -> MarkdownIt:
    """The parser without the `disabled` rules (a file's variant: `_disabled_rules`)."""
    md = _build_parser()
    if disabled:
        md.disable(sorted(disabled))
    return md


def parse(text: str) -> tuple[list[Token], dict[str, Any]]:
    """The block tokens of `text`, and the parser's env, which their inline parse needs
    (`children`)."""
    md = _parser(_disabled_rules(text))
    env: dict[str, Any] = {_PARSER_KEY: md}
    return md.parse(text, env), env


def _build_parser() -> MarkdownIt:
    # Built once per configuration (`_parser`); MarkdownIt.parse does not mutate the instance.
    # Inline parsing is done lazily, block by block (`children`): most paragraphs can hold no
    # claim, and skipping their inline parse is what keeps extraction near the bare parse speed.
    # Footnote bodies stay where they are written (no footnote_tail), so they keep their lines.
    # `:::type` admonitions (Docusaurus, VuePress, pandoc fenced divs) and `!!! type` blocks
    # (MkDocs): their bodies are prose; without the plugins the fences were read as text and an
    # indented `!!!` body as code.
    md = (
        MarkdownIt("commonmark", {"html": True})
        .enable(["table", "strikethrough"])
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(container_plugin, name="div", validate=_any_container)
        .use(admon_plugin)
    )
    md.core.ruler.disable(["inline", "footnote_tail", "text_join"])
    # A citation keeps its URL as the author wrote it (markdown-it would percent-encode and
    # punycode it, and that costs a fifth of the extraction time); the fetcher encodes it.
    md.normalizeLink = _keep_link  # type: ignore[method-assign]
    # this instance's link helpers (markdown-it reads them from `md.helpers`, the module by default)
    md.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkDestination=_link_destination,
        parseLinkLabel=_md_helpers.parseLinkLabel,
        parseLinkTitle=_md_helpers.parseLinkTitle,
    )
    for rule in md.inline.ruler.__rules__:
        if rule.name in _BRACKET_RULES:
            md.inline.ruler.at(rule.name, _needs_closing_bracket(rule.fn, _BRACKET_RULES[rule.name]))
    md.inline.ruler.before("link", "pandoc_cite", _needs_closing_bracket(_pandoc_cite, "["))
    md.inline.ruler.before("backticks", "cite_role", _cite_role)
    # before the escape rule, which would take the backslash of "\ref{…}"
    md.inline.ruler.before("escape", "xref_role", _xref_role)
    md.inline.ruler.before("linkify", "bare_url", _bare_url)
    return md


def _bare_url(state: Any, silent: bool) -> bool:
    """A bare URL in running text stays as written: its "_" and "*" open no emphasis
    ("…/wiki/African_Cemetery_No._2_(Lexington,_Kentucky)" keeps its underscores), as GitHub's
    autolinks keep them. At the ":" after "http(s)" (a terminator of the text rule, like
    markdown-it's linkify); the URL stays text, which the bare-URL form then finds."""
    src, pos = state.src, state.pos
    if state.linkLevel > 0 or not src.startswith("://", pos):
        return False
    # the scheme and the character before it, at most: a search of the whole text read so far
    # would cost its length at every URL of a paragraph
    scheme = bare_url.SCHEME_BEFORE.search(state.pending[-6:])
    if scheme is None:
        return False
    found = bare_url.BARE_URL.match(src, pos - len(scheme.group(0)))
    if found is None:
        return False
    if not silent:
        state.pending += src[pos : found.end()]
    state.pos = found.end()
    return True


def _cite_role(state: Any, silent: bool) -> bool:
    """A bibliography role, `` {cite:p}`a,b` `` or `` :cite:`key` ``, or Jekyll-Scholar's
    `{% cite key %}` (forms/roles.py): one token holding its keys, and no visible text."""
    src, pos = state.src, state.pos
    if not src.startswith(roles.STARTS, pos):
        return False
    found = roles.match(src, pos, state.posMax)
    if found is None:
        return False
    end, raw, keys = found
    if not silent:
        token = state.push("cite_role", "", 0)
        token.content = raw
        token.meta = {"keys": keys}
    state.pos = end
    return True


def _xref_role(state: Any, silent: bool) -> bool:
    """A cross-reference role, `` {doc}`page` `` or `` :ref:`title <label>` `` (forms/roles.py):
    the tokens of the link it stands for, `[title](target)`, marked "role" (the scan finds the
    role as written in the line, `content`)."""
    src, pos = state.src, state.pos
    if not src.startswith(roles.XREF_STARTS, pos):
        return False
    found = roles.xref_match(src, pos, state.posMax)
    if found is None:
        return False
    end, raw, text, href = found
    if not silent:
        opening = state.push("link_open", "a", 1)
        opening.attrs = {"href": href}
        opening.markup, opening.content, opening.meta = "role", raw, {"text": text}
        state.push("text", "", 0).content = text
        state.push("link_close", "a", -1).markup = "role"
    state.pos = end
    return True


def _pandoc_cite(state: Any, silent: bool) -> bool:
    """A pandoc citation bracket `[@key; see @other, p. 3]` (forms/pandoc.py): one token holding
    its keys, and no visible text. Linear: the closing "]" comes from the guard's table, and a
    bracket holding another "[" is not one (the search for it stops at the next "[")."""
    src, pos = state.src, state.pos
    closes = state.env[_CLOSES_KEY][id(src)][1]
    close = closes[bisect_right(closes, pos)]
    if close - pos > pandoc.MAX_BRACKET or src.find("[", pos + 1, close) >= 0:
        return False
    if close + 1 < state.posMax and src[close + 1] in "([":
        return False  # [text](url) or [text][ref]: a link
    keys = pandoc.bracket_keys(src[pos + 1 : close])
    if keys is None:
        return False
    if not silent:
        token = state.push("pandoc_cite", "", 0)
        token.content = src[pos : close + 1]
        token.meta = {"keys": keys}
    state.pos = close + 1
    return True


def _any_container(params: str, markup_: str) -> bool:
    return True


def _keep_link(url: str) -> str:
    if FILL in url:  # a template expression inside the URL: not a URL the page has
        url = url.replace(FILL, "")
    return url.replace(" ", "%20")


# The inline rules that read a bracketed label, by the character they start at: each fails
# unless a "]" follows before the end of the text it parses. markdown-it tries them at every
# "[" by walking to the closing "]" (token by token, up to its nesting limit), so a run of
# "[" with no "]" after it cost tens of microseconds a character; with the "]" looked up first
# it costs nothing. The result is the same: a rule is skipped only where it would fail (at
# another character, or with no "]" to close its label), and nothing is parsed after that
# point that a "]" could close. (Skipped at another character, footnote_ref does not add its
# empty table to the env; `inline_footnotes` reads the table whether it is there or not.)
_BRACKET_RULES = {"link": "[", "image": "!", "footnote_inline": "^", "footnote_ref": "["}
_CLOSES_KEY = "citecheck: closing brackets"  # in the parser's env: per source text, where "]" stands
_PARSER_KEY = "citecheck: parser"  # in the parser's env: the file's parser, for its blocks' inline parse


def _needs_closing_bracket(rule: Any, start: str) -> Any:
    def guarded(state: Any, silent: bool) -> Any:
        src, pos = state.src, state.pos
        if src[pos] != start:
            return False
        found = state.env.setdefault(_CLOSES_KEY, {})
        cached = found.get(id(src))
        if cached is None or cached[0] is not src:
            cached = (src, [m.start() for m in _CLOSE_BRACKET.finditer(src)])
            found[id(src)] = cached
        closes = cached[1]
        i = bisect_right(closes, pos)
        if i == len(closes) or closes[i] >= state.posMax:
            return False
        return rule(state, silent)

    return guarded


_CLOSE_BRACKET = re.compile(r"\]")


def children(tok: Token, env: dict[str, Any], clock: Clock) -> list[Token]:
    """The inline tokens of a block, parsed on first use."""
    if not tok.children and tok.content:
        clock.check_block(tok)
        children: list[Token] = []
        md = env[_PARSER_KEY]
        md.inline.parse(tok.content, md, env, children)
        tok.children = children
    return tok.children or []


# A block can hold a claim only if one of the registered citation forms may be in it (the
# gate is derived from the registry), it has an HTML comment (an inline citecheck marker
# toggles state), or one of the fact kinds shows even in its raw text (markup characters dropped).
_PARSE_GATE = citations.parse_gate(r"<!")
_MARKUP = "*_~`\\"


def may_hold_claim(content: str) -> bool:
    if _PARSE_GATE.search(content) is not None:
        return True
    # `str.replace` per character, not `str.translate`: thirty times faster on text that is not
    # pure ASCII, and most markers are absent anyway
    for ch in _MARKUP:
        if ch in content:
            content = content.replace(ch, "")
    return has_kind(content)
