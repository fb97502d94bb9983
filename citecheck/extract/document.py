"""Extract stage: Markdown → verifiable claims with their citations, file, line and column.

Parsing is markdown-it-py (CommonMark + tables + strikethrough) with the mdit-py-plugins
footnote and front-matter plugins; each paragraph, list item, block-quote paragraph, table row
and footnote body is turned into the text a reader sees (link markup and emphasis markers
removed, link text and inline code kept), split into sentences (`citecheck.sentences`), and
every sentence start is mapped back to its exact line and column in the file.

What a claim is
  A sentence is a claim when it carries a citation (kind `hyperlinked`) or a checkable fact
  (`statistic`, `quote`, `temporal`, `comparative`: `citecheck.extract.kinds`). The walk adds
  `quote` to the sentences of a block quote that carries an attribution (a last line or a
  following paragraph starting with "—", "--" or "~"; or an introducing paragraph that ends
  with a colon and links the speaker), and of a kramdown pull quote (an HTML block marked
  `markdown="1"` whose credit line starts with a dash — the Jekyll / GitHub Pages idiom).
  A sentence with a fact kind and no citation is still a claim: it is reported as unsourced.

Citations
  Links, reference links, footnotes, `[N]` and author-year references are found here and in
  `citecheck.extract.resolve`; the forms with a syntax of their own (bare URLs, DOIs, arXiv
  ids, PMIDs, ISBNs) come from the registry in `citecheck.extract.citations`, which also decides
  which blocks are parsed at all (the parse gate). Code spans and what a running-text citation
  covers are masked before sentences are split and kinds detected. Pandoc citation brackets
  `[@key; …]` are a parser rule (`_pandoc_cite`): they leave the text and their keys resolve once
  the file is read (`_Keys`, `citecheck.extract.bibliography`). A link to an in-document anchor
  (`[text](#id)`, `<sup>[N]</sup>` with `[N]: #id`) cites the entry that declares the anchor
  (`<a name="id">`); a superscript citation marker leaves the text. A block that opens with a
  link standing alone as its first sentence cites it for its other sentences.

Template markup
  Liquid, Hugo shortcodes, `{{macros}}`, MDX comments, JSX and attribute lists are blanked before
  parsing (`citecheck.extract.markup`, positions kept); `:::`/`!!!` admonitions are parsed by
  mdit-py-plugins' container and admon plugins (the title is skipped, the body is prose).

What is skipped
  headings; code blocks and code spans (their text stays in the claim, but a URL or number in
  code is never a citation or a fact); HTML comments, and what HTML blocks hold other than prose
  (the text of their `p`, `li`, `blockquote`, `dd`, `td` and `figcaption` elements is read like a
  paragraph: `_html_prose`, `citecheck.extract.htmlprose`; a kramdown `markdown="1"` block's lines
  are Markdown); YAML and TOML front matter; MDX import/export lines; images and
  image-only lines; questions (a sentence ending in "?", even with a link: a question asserts
  nothing); imperatives ("Use …", "Don't …", "Tip: Try [X](…)"), advice, requirements and
  opinions ("you should …", "the key must be …", "I think …", "it's a good idea …", "in my
  experience …") and copyright lines — unless they carry a citation, in which case they are
  kept as `hyperlinked` claims about the cited page;
  link-only lines, navigation lists and fragments (a sentence with no fact kind needs three
  words outside its links); relative links, `mailto:` and anchors (not web sources); sentences
  whose only citations are marked `citecheck-ignore` and that state no fact; the reference
  list itself (a References / Sources / Bibliography / Notes section: it becomes
  `ExtractedDocument.references`); footnote bodies that cite a source (they are the citation
  of the sentence that points at them; a footnote without a URL is prose and is checked like
  any paragraph). Definitions state no fact kind and so are not claims unless they cite.
  Not claims even with a link (`citecheck.extract.kinds`): pointers and calls to action, thanks,
  bylines and date stamps, disclaimers and meta notes, image credits, metadata lines, lead-ins
  that only introduce a quotation or list, link-only titles (no verb, or Title Case), reading-list
  entries ("[Title](…) (Author, 2018)."), definitions and product descriptions, first-person
  feelings without a figure; an attributed block quote's "Name, role" last paragraph;
  instructions, offers and invitations to the reader and clear imperatives (`addresses_reader`),
  meta notes and pointers whose subject is a page; change-log entries whose only citations are
  pull-request, issue or commit cross-references (`citecheck.extract.urls.is_change_reference`).

Table rows
  Each body row is one claim candidate; its text is the cells joined with " | ", its position
  is the first cell's. Header rows are skipped.

Ignore markers
  `<!-- citecheck-ignore -->` on its own line skips the next block (a paragraph, a whole list,
  a table); inside a paragraph it skips that paragraph. `<!-- citecheck-disable -->` …
  `<!-- citecheck-enable -->` skip everything between them. A link whose title contains
  `citecheck-ignore` gives a citation with `resolve_status=skipped`.

Citations are resolved here too (`citecheck.extract.resolve`), so `extract_text` is the extract
and resolve stages together: every citation carries `url`, `resolve_status` and `resolve_error`.

Hostile input is bounded
  Extraction is linear in the file: no pattern is tried from each of many starting points over
  a long stretch of text, and no item is compared with every other (bench/hostile.py times the
  inputs that were quadratic). One bracket, parenthesis, footnote or quotation attribution
  cites at most `resolve.MAX_REFERENCES_PER_BRACKET` sources, repeats once. A file has a time
  budget (`extract_text(budget_s=…)`, `Settings.extract_budget_s`), checked between blocks, and
  a block whose inline parse would cost more than `MAX_BLOCK_COST` is not parsed: either way
  the file gives a `FileError` ("extraction stopped …") and no claims, and the run goes on.
See docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import os
import re
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from operator import attrgetter, itemgetter
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from typing import Any, TypeVar

from markdown_it import MarkdownIt
from markdown_it import helpers as _md_helpers
from markdown_it.common.utils import unescapeAll
from markdown_it.helpers.parse_link_destination import _Result as _DestResult
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from citecheck.config import DEFAULT_EXTRACT_BUDGET_S
from citecheck.extract import bibliography, citations, htmlprose, resolve
from citecheck.extract.forms import bare_url, pandoc, roles
from citecheck.extract.kinds import detect_kinds, has_kind
from citecheck.extract.markup import FILL, blank_markup, blank_spans, drop_fill, strip_fill
from citecheck.extract.phrases.boilerplate import points_to_source, reports_cited_finding
from citecheck.extract.phrases.grammar import is_fragment, reads_as_reference, reports_a_change
from citecheck.extract.skip import PRE_KINDS, Candidate, SkipRule, skip_rule, words_outside
from citecheck.models import (
    Citation,
    CitationKind,
    Claim,
    ClaimKind,
    ExtractedDocument,
    FileError,
    Reference,
    SkippedSentence,
)
from citecheck.models import ResolveStatus as RS
from citecheck.sentences import split_sentences

DEFAULT_MAX_BYTES = 5 * 1024 * 1024


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


class _Stopped(Exception):
    """Extraction of a file stops: over its time budget, or a block too costly to parse."""

    def __init__(self, where: str, reason: str, line: int | None) -> None:
        super().__init__(where, reason, line)
        self.where = where  # "after 15.0 s"
        self.reason = reason
        self.line = line


class _Clock:
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
            raise _Stopped(where, f"over the {self.budget_s:g}-second time budget for one file", line)

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
            raise _Stopped("", reason, line)


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


def _build_parser() -> MarkdownIt:
    # Built once per configuration (`_parser`); MarkdownIt.parse does not mutate the instance.
    # Inline parsing is done lazily, block by block (`_children`): most paragraphs can hold no
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
    scheme = bare_url.SCHEME_BEFORE.search(state.pending)
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
# empty table to the env; `_inline_footnotes` reads the table whether it is there or not.)
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


def _children(tok: Token, env: dict[str, Any], clock: _Clock) -> list[Token]:
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


def _may_hold_claim(content: str) -> bool:
    if _PARSE_GATE.search(content) is not None:
        return True
    # `str.replace` per character, not `str.translate`: thirty times faster on text that is not
    # pure ASCII, and most markers are absent anyway
    for ch in _MARKUP:
        if ch in content:
            content = content.replace(ch, "")
    return has_kind(content)


# --- inline scanning -----------------------------------------------------------------------------


@dataclass
class _Link:
    start: int  # offsets in the block's visible text
    end: int
    citation: Citation | None  # None: not a web source (relative link, mailto:)
    # "[text](#id)": an in-document anchor, followed once the file is read; "page.md#id" when the
    # link names a page (`_own_anchor`: an anchor only if the page is this file)
    anchor: str | None = None


@dataclass(frozen=True)
class _Anchor:
    """A link to an in-document anchor, resolved to the entry there once the file is read."""

    id: str
    raw: str


# A relative link to an anchor of a page ("compare-nats.md#references", GitBook's in-page links).
_PAGE_ANCHOR = re.compile(r"(?:\./)?[^\s:#?]+\.(?:md|mdx|markdown)#[^\s#]+")
# An in-page link whose text is a number: "[(1)](#references)", "[[2]](#refs)".
_NUMBER_LINK = re.compile(r"\[[\s(\[_*]*(\d{1,3})[\s)\]_*]*\]")


def _own_anchor(anchor: str, file: str) -> str | None:
    """The id an in-page link points to: "#id", or "page.md#id" when the page is this file."""
    page, sep, frag = anchor.partition("#")
    if not sep:
        return anchor
    return frag if frag and PurePosixPath(page).name == PurePosixPath(file).name else None


@dataclass(frozen=True)
class _PandocKeys:
    """The keys of one pandoc citation bracket or bibliography role, resolved once the file is
    read."""

    keys: tuple[str, ...]
    role: str | None = None  # the role as written (`{cite:p}`a,b``); None for a pandoc bracket


@dataclass
class _Block:
    """The visible text of one inline run (a paragraph, a cell), with its source positions."""

    text: str = ""
    seg_v: list[int] = field(default_factory=list)  # visible offset where a segment starts
    seg_line: list[int] = field(default_factory=list)  # 1-based file line of that offset
    seg_col: list[int] = field(default_factory=list)  # 1-based file column of that offset
    # Column of the text itself when markup (a link's "[", emphasis) starts at the same offset.
    seg_text_col: list[int] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    masked: list[tuple[int, int]] = field(default_factory=list)  # code and URL spans
    footnotes: list[tuple[int, str]] = field(default_factory=list)  # (offset, label or "#id")
    pandoc: list[tuple[int, _PandocKeys]] = field(default_factory=list)  # (offset, a bracket's keys)
    anchors: list[str] = field(default_factory=list)  # ids declared here (<a name="x">, id="x")
    # superscript note markers left out of the text: (offset, their numbers, opens a line)
    sups: list[tuple[int, str, bool]] = field(default_factory=list)
    breaks: list[int] = field(default_factory=list)  # offsets of line breaks
    ignore: bool = False  # an inline citecheck-ignore marker
    toggles: list[bool] = field(default_factory=list)  # inline disable (False) / enable (True)

    def position(self, offset: int) -> tuple[int, int]:
        i = bisect_right(self.seg_v, offset) - 1
        if i < 0:
            return (self.seg_line[0], self.seg_col[0]) if self.seg_line else (1, 1)
        if offset == self.seg_v[i]:
            return self.seg_line[i], self.seg_col[i]
        return self.seg_line[i], self.seg_text_col[i] + (offset - self.seg_v[i])


_HTML_A = re.compile(
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
_MARKER = re.compile(r"citecheck-(ignore|disable|enable)\b")


def _base_col(source_line: str, content_line: str) -> int:
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


def _target_titles(tokens: list[Token]) -> dict[str, str]:
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


def _scan_inline(tok: Token, lines: list[str], titles: Mapping[str, str] | None = None) -> _Block:
    """The visible text of an inline run, with its positions, links and citation markers.
    `titles`: what an empty in-page link shows (`_target_titles`)."""
    block = _Block()
    content_lines = tok.content.split("\n")
    first = tok.map[0] if tok.map else 0
    nlines = len(lines)
    bases = [
        _base_col(lines[first + i] if first + i < nlines else "", c) for i, c in enumerate(content_lines)
    ]
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
                    block.links.append(_Link(link_start, vlen, None, anchor=href[1:]))
                else:
                    cited = _link_citation(link_tok, link_text, line, cur)
                    # "[(1)](compare-nats.md#references)": an anchor of a page, maybe this one's
                    page_anchor = href if cited is None and _PAGE_ANCHOR.fullmatch(href) else None
                    block.links.append(_Link(link_start, vlen, cited, anchor=page_anchor))
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
                block.pandoc.append((vlen, _PandocKeys(tuple(keys), role)))
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
                for m in _MARKER.finditer(raw):
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
                    m = _HTML_A.match(raw)
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
                            block.links.append(_Link(link_start, vlen, None, anchor=href[1:]))
                        else:
                            text = "".join(parts[link_part:])
                            cit = resolve.link_citation(
                                f'<a href="{href}">{text}</a>', CitationKind.link, href, title
                            )
                            block.links.append(_Link(link_start, vlen, cit))
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
    block: _Block, parts: list[str], sup: tuple[int, int, int], vlen: int, last: str
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


# --- sentences → claims ---------------------------------------------------------------------------

# A callout's label: GitHub's alerts ("[!NOTE]" alone on its line) and the Obsidian-style callouts
# other sites render ("[!info] 🚀 Try it now", "[!tip]- Folded"), whose first line is the title.
_ALERT = re.compile(r"\[![A-Za-z][\w-]{0,30}\][+-]?")
_LABEL_STOP = re.compile(r"[\]\s]")


def _undefined_footnotes(text: str) -> Iterator[tuple[int, int, str]]:
    r"""(start, end, label) of each `[^label]` left in visible text (a footnote markdown-it did
    not resolve): the matches of `\[\^([^\]\s]+)\]` in linear time. That pattern tried every
    "[^" to the end of the label it starts, so a run of "[^[^[^…" was quadratic; here a "[^"
    that fails is skipped with every "[^" inside its label (they end where it ends, and fail too)."""
    pos = 0
    n = len(text)
    while (p := text.find("[^", pos)) >= 0:
        stop = _LABEL_STOP.search(text, p + 2)
        q = stop.start() if stop else n
        if q < n and text[q] == "]" and q > p + 2:
            yield p, q + 1, text[p + 2 : q]
            pos = q + 1
        else:
            pos = max(q, p + 1)


def _undefined_references(text: str) -> Iterator[tuple[int, int, str, str]]:
    r"""(start, end, text, label) of each `[text][label]` left in visible text (a reference
    link whose definition is missing): the matches of `\[([^\]]+)\]\[([^\]]*)\]` in linear time
    (the pattern was quadratic on a run of "[", as `_undefined_footnotes` explains)."""
    pos = 0
    n = len(text)
    while (p := text.find("[", pos)) >= 0:
        q = text.find("]", p + 1)
        if q < 0:
            return
        if q > p + 1 and q + 1 < n and text[q + 1] == "[":
            r = text.find("]", q + 2)
            if r < 0:
                return
            yield p, r + 1, text[p + 1 : q], text[q + 2 : r]
            pos = r + 1
        else:
            pos = q + 1


@dataclass
class _Draft:
    """A claim whose reference-list and footnote citations resolve once the file is read."""

    claim: Claim
    # (offset, item); str: a footnote; _PandocKeys: a pandoc bracket; _Anchor: an in-document link
    citations: list[tuple[int, Citation | resolve.Mention | str | _PandocKeys | _Anchor]]
    fact_kinds: list[ClaimKind]
    skipped_by: str | None = None  # the skip rule that set the sentence aside (`extract.skip`)


def _skipped(block: _Block, file: str, cand: Candidate, rule: SkipRule) -> _Draft:
    """A sentence a skip rule set aside, kept to say so (`ExtractedDocument.skipped`)."""
    line, col = block.position(cand.start)
    claim = Claim(text=cand.sentence, kinds=[], file=file, line=line, column=col)
    return _Draft(claim, [(0, c) for c in cand.citations], list(cand.kinds), rule.name)  # type: ignore[misc]


# A link whose text is a citation's number ("[4]: https://…" shown as "4"), right after a stop.
_MARKER_TEXT = re.compile(r"\[?\d{1,3}\]?")


def _marker_gaps(mask: str, links: list[_Link]) -> str:
    """`mask` with the text of each numbered link right after a sentence's stop blanked, so the
    sentence ends there: "… in 2018.4 It reached …" reads "… in 2018.  It reached …" (the link
    stays the sentence's citation)."""
    gaps = [
        (lk.start, lk.end)
        for lk in links
        if 0 < lk.start < lk.end <= len(mask)
        and mask[lk.start - 1] in '.!?…"”’)'
        and _MARKER_TEXT.fullmatch(mask, lk.start, lk.end)
    ]
    return blank_spans(mask, gaps) if gaps else mask


def _apply_mask(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out: list[str] = []
    prev = 0
    for s, e in sorted(spans):
        if s < prev:
            s = prev
        if e <= s:
            continue
        out.append(text[prev:s])
        # a capital first letter: a sentence may start with a code span ("`Intl` is a huge set")
        out.append("X" + "x" * (e - s - 1))
        prev = e
    out.append(text[prev:])
    return "".join(out)


class _Spans:
    """A set of [start, end) spans asked whether they cover a position, in log time (a block
    may hold thousands of links and running-text citations)."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []  # disjoint, merged, sorted
        for s, e in sorted(spans):
            self.add(s, e)

    def add(self, start: int, end: int) -> None:
        if end <= start:
            return
        i = bisect_right(self._ends, start - 1)  # first span ending at or after start
        j = bisect_right(self._starts, end)  # spans from i to j touch [start, end)
        if i < j:
            start = min(start, self._starts[i])
            end = max(end, self._ends[j - 1])
        self._starts[i:j] = [start]
        self._ends[i:j] = [end]

    def covers(self, pos: int) -> bool:
        i = bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self._ends[i]


_T = TypeVar("_T")


def _by_sentence(
    starts: list[int], n_text: int, items: list[_T], offset: Callable[[_T], int], *, markers: bool = False
) -> dict[int, list[_T]]:
    """The items by the index of the sentence each belongs to (the span from a sentence's start
    to the next one's; -1 before the first sentence or past the text), in their order.
    `markers`: the items are note markers, which follow what they mark, so one at a sentence's
    very start ("… approaches.[^13] [^14] The service …") or past the text's end ("… reports.
    [^11]", the block's trailing space stripped) marks the sentence before it."""
    out: dict[int, list[_T]] = {}
    for item in items:
        off = offset(item)
        k = bisect_right(starts, off) - 1
        if markers and k >= 1 and off == starts[k]:
            k -= 1
        if off > n_text and not markers:
            k = -1
        out.setdefault(k, []).append(item)
    return out


def _sup_numbers(inner: str) -> list[str]:
    """The note numbers a superscript marker holds: "1" → ["1"], "[1],[2]" → ["1", "2"], "3-5"."""
    return resolve.expand_numbers(inner.translate(_SUP_PUNCTUATION).strip(" ,"))


_SUP_PUNCTUATION = str.maketrans("", "", "[]. ")


def _sup_mentions(block: _Block) -> list[resolve.Mention]:
    """The note markers of a block's text ("indicators<sup>1</sup>"), as numbered mentions
    where they stood; a superscript that opens a line is a note's own number, no mention."""
    out: list[resolve.Mention] = []
    for off, inner, leading in block.sups:
        if leading:
            continue
        raw = f"<sup>{inner}</sup>"
        out.extend(
            resolve.Mention(raw, CitationKind.numbered, n, off, off, strong=False, superscript=True)
            for n in _sup_numbers(inner)
            if n.isdigit()
        )
    return out


def _note_entries(block: _Block, first_line: int) -> list[Reference]:
    """The notes a block defines: each line that opens with a superscript number ("<sup>1</sup>
    See Haustein and Larivière (2015) …", "<sup><a id="fn.1" href="#fnr.1">1</a></sup> For …"),
    up to the next such line; its sources are its links and the URLs its text names."""
    heads = [(off, inner) for off, inner, leading in block.sups if leading]
    out: list[Reference] = []
    for k, (s, inner) in enumerate(heads):
        e = heads[k + 1][0] if k + 1 < len(heads) else len(block.text)
        urls = [
            lk.citation.url
            for lk in block.links
            if s <= lk.start < e and lk.citation is not None and lk.citation.url
        ]
        line = block.position(s)[0] if block.seg_v else first_line
        numbers = _sup_numbers(inner)
        label = numbers[0] if numbers else None
        out.append(resolve.make_reference(block.text[s:e].strip(), urls, line, label))
    return out


def _block_drafts(
    block: _Block,
    file: str,
    *,
    split: bool = True,
    quote: bool = False,
    extra: list[Citation] | None = None,
    list_item: bool = False,
) -> list[_Draft]:
    text = block.text
    if not text.strip():
        return []
    masked = list(block.masked)
    # Citations in running text (bare URLs, DOIs, arXiv ids, PMIDs; not in link text or code).
    found: list[tuple[int, int, Citation]] = []
    forms = citations.running_forms(text)
    if forms:
        pre_mask = _apply_mask(text, masked)
        links = _Spans((lk.start, lk.end) for lk in block.links)
        taken = _Spans()
        for form in forms:
            for hit in form.hits(pre_mask):
                if links.covers(hit.start):
                    if form.marker is not None:
                        masked.append((hit.start, hit.end))  # an arXiv id as a link's text states no fact
                    continue
                if taken.covers(hit.start):
                    continue  # a DOI inside a URL belongs to the URL
                found.append((hit.start, hit.end, citations.citation(form, hit)))
                masked.append((hit.start, hit.end))
                taken.add(hit.start, hit.end)
    mask = _apply_mask(text, masked)
    alert = _ALERT.match(mask)
    if alert:  # a callout's label and title (the rest of its line) are not part of any sentence
        end = next((b for b in block.breaks if b >= alert.end()), alert.end())
        mask = " " * end + mask[end:]
    spans = (
        split_sentences(_marker_gaps(mask, block.links))
        if split
        else [(len(text) - len(text.lstrip()), len(text.rstrip()))]
    )
    mentions = resolve.find_mentions(mask) if "[" in mask or "(" in mask else []
    if block.sups:
        mentions = sorted([*mentions, *_sup_mentions(block)], key=attrgetter("start"))
    undefined: list[tuple[int, int, Citation]] = []
    if "[" in mask:
        for fs, fe, label in _undefined_footnotes(mask):
            undefined.append((fs, fe, resolve.footnote_citations(mask[fs:fe], label, None)[0]))
        for fs, fe, ref_text, ref_label in _undefined_references(mask):
            undefined.append((fs, fe, resolve.undefined_reference(mask[fs:fe], ref_label or ref_text)))
    # What each sentence holds (a sentence runs to the next one's start), gathered in one pass
    # over each kind of item rather than one pass per sentence, in the order the items come.
    n = len(text)
    starts = [s for s, _ in spans]
    link_items: dict[int, list[_Link]] = {}
    for lk in block.links:
        if lk.end <= lk.start:  # a marker dropped from the text: it cites the sentence it follows
            link_items.setdefault(max(bisect_right(starts, lk.start) - 1, 0), []).append(lk)
            continue
        # the sentences it overlaps: from the one holding its start to the one holding its end
        first = max(bisect_right(starts, lk.start) - 1, 0)
        last = bisect_right(starts, lk.end - 1) - 1
        for k in range(first, last + 1):
            nxt = spans[k + 1][0] if k + 1 < len(spans) else n + 1
            if lk.start < nxt and lk.end > spans[k][0]:
                link_items.setdefault(k, []).append(lk)
    point_items = _by_sentence(starts, n, found + undefined, itemgetter(0))
    if mentions and block.links:
        # "[Shallue et al. 2018](https://…)": the link is the citation; its text names it, and
        # its year is no date the sentence states
        # its year is no date the sentence states; so is "([Ince et al., 2012](…))", a parenthesis
        # around such a link
        in_links = _Spans((lk.start, lk.end) for lk in block.links)
        covered = [mn for mn in mentions if in_links.covers(mn.start) or _names_a_link(mn, text, block.links)]
        if covered:
            mentions = [mn for mn in mentions if mn not in covered]
            mask = _apply_mask(mask, [(mn.start, mn.end) for mn in covered])
    # an author-year citation's year is where the claim comes from, not a date it states; so is
    # a link's whose text is one ("[Shallue et al. 2018](…)", "[Alston and Rick, 2021](…)")
    not_facts = [(mn.start, mn.end) for mn in mentions if mn.kind == CitationKind.author_year]
    not_facts += [
        (lk.start, lk.end)
        for lk in block.links
        if lk.end - lk.start < 80 and _AUTHOR_YEAR_LINK.fullmatch(text, lk.start, lk.end)
    ]
    if "$" in mask:
        # the numbers of TeX math ("the path from node $0$ to node $14$") are no figures or years
        not_facts += [m.span() for m in _TEX_MATH.finditer(mask)]
    kind_mask = _apply_mask(mask, not_facts)
    mention_items = _by_sentence(starts, n, mentions, attrgetter("start"))
    footnote_items = _by_sentence(starts, n, block.footnotes, itemgetter(0), markers=True)
    pandoc_items = _by_sentence(starts, n, block.pandoc, itemgetter(0), markers=True)
    # "[Knight Capital](…). A combination of … caused a $460M loss.": a block that opens with a
    # link standing alone as its first sentence is about the linked page; its sentences cite it.
    lead: Citation | None = None
    if split and len(spans) > 1 and block.links and block.links[0].start <= spans[0][0]:
        first = block.links[0]
        if (
            first.citation is not None
            and words_outside(mask[spans[0][0] : spans[0][1]], link_items.get(0, []), *spans[0]) == 0
        ):
            lead = first.citation
    drafts: list[_Draft] = []
    prev_items: list[tuple[int, Citation | resolve.Mention | str | _PandocKeys | _Anchor]] = []
    for k, (s, e) in enumerate(spans):
        sentence = text[s:e]
        sentence_links = link_items.get(k, [])
        cand = Candidate(
            text=text,
            start=s,
            end=e,
            mask=mask,
            kind_mask=kind_mask,
            masked=block.masked,
            links=sentence_links,
            citations=[],
            mentions=len(mention_items.get(k, ())),
            kinds=[],
            first=k == 0,
            list_item=list_item,
            split=split,
            quote=quote,
        )
        if PRE_KINDS[0].matches(cand):  # a question: it cites nothing for the next one either
            prev_items = []
            drafts.append(_skipped(block, file, cand, PRE_KINDS[0]))
            continue
        items: list[tuple[int, Citation | resolve.Mention | str | _PandocKeys | _Anchor]] = []
        for lk in sentence_links:
            if lk.citation is not None:
                # one copy with its offsets set (setting them on a copy costs twice as much)
                c = lk.citation.model_copy(update={"start": max(lk.start, s) - s, "end": min(lk.end, e) - s})
                items.append((lk.start, c))
            elif lk.anchor is not None and (anchor := _own_anchor(lk.anchor, file)):
                items.append((lk.start, _Anchor(anchor, f"[{text[lk.start : lk.end]}](#{anchor})")))
        for fs, fe, c in point_items.get(k, ()):
            items.append((fs, c.model_copy(update={"start": fs - s, "end": min(fe, e) - s})))
        seen: set[tuple[str, str, str]] = set()
        for mn in mention_items.get(k, ()):
            key = (mn.kind, mn.raw, mn.identifier)
            if key in seen:
                continue  # the same reference again in this sentence: it cites the same source
            seen.add(key)
            # offsets inside the claim text, as for the other visible citations
            items.append((mn.start, replace(mn, start=mn.start - s, end=min(mn.end, e) - s)))
        items.extend(footnote_items.get(k, ()))
        items.extend(pandoc_items.get(k, ()))
        if lead is not None and k > 0:
            items.append((s, lead.model_copy(update={"start": None, "end": None})))
        if not items and prev_items and reports_cited_finding(sentence):
            # "… Koutsoukas et al. benchmarked … [@doi:…]. The researchers found that …": the
            # finding is the cited study's, so it cites what the sentence before it cites
            items = [(s, _inherited(item)) for _, item in prev_items if not isinstance(item, resolve.Mention)]
        prev_items = items
        if extra:
            # a quotation's attribution and lead-in cite every sentence of it
            items.extend((s, c) for c in extra)
        cand.citations = [item for _, item in items]
        # Titles first: the commonest skip on link-heavy pages, and it needs no kinds.
        if PRE_KINDS[1].matches(cand):
            drafts.append(_skipped(block, file, cand, PRE_KINDS[1]))
            continue
        kinds = detect_kinds(kind_mask[s:e])
        if quote and ClaimKind.quote not in kinds:
            kinds.append(ClaimKind.quote)
        if not items and k + 1 in link_items:
            # "The cache cut build times by 40%. See the [benchmark](…) for details.", "Version
            # 0.4.2 has been released. See the [release notes](…)": a fact's or a change's source
            # is what the pointer after it links, not nothing
            nxt = [lk.citation for lk in link_items[k + 1] if lk.citation is not None]
            if (
                nxt
                and points_to_source(text[spans[k + 1][0] : spans[k + 1][1]])
                and (kinds or reports_a_change(sentence))
            ):
                items = [(s, _inherited(c)) for c in nxt]
                cand.citations = nxt
        if not items and not kinds:
            continue  # states no fact and cites nothing (most sentences: no candidate)
        cand.kinds = kinds
        rule = skip_rule(cand)
        if rule is not None:
            drafts.append(_skipped(block, file, cand, rule))
            continue
        line, col = block.position(s)
        claim = Claim(text=sentence, kinds=[], file=file, line=line, column=col)
        drafts.append(_Draft(claim, items, kinds))
    return drafts


def _inherited(
    item: Citation | resolve.Mention | str | _PandocKeys | _Anchor,
) -> Citation | resolve.Mention | str | _PandocKeys | _Anchor:
    """A citation carried over to the next sentence: it has no place in that sentence's text."""
    return item.model_copy(update={"start": None, "end": None}) if isinstance(item, Citation) else item


_WORD = re.compile(r"[A-Za-z]{2,}")


def _names_a_link(mention: resolve.Mention, text: str, links: list[_Link]) -> bool:
    """Whether an author-year mention is a link's own text in parentheses: "([Ince et al.,
    2012](…))" names the work the link cites; or a numbered one a link's number in brackets:
    "[[1](https://…)]" is that link, no reference to look up."""
    if mention.kind != CitationKind.author_year:
        return mention.kind == CitationKind.numbered and any(
            lk.start == mention.start + 1 and lk.end == mention.end - 1 for lk in links
        )
    surname = mention.identifier.split()[0]
    return any(
        mention.start <= lk.start and lk.end <= mention.end and surname in text[lk.start : lk.end]
        for lk in links
    )


# A link's text that names a work by author and year: "Shallue et al. 2018", "Alston and Rick,
# 2021", "Lee & Ng 2019", "Smith, 2020" (one surname needs the comma: "Rust 2018" is a name,
# and a month is no author).
_AUTHOR_YEAR_LINK = re.compile(
    r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December)\b)"
    r"[A-Z][\w'’-]+(?:\s+et\s+al\.?,?|\s+(?:and|&)\s+[A-Z][\w'’-]+,?|,)\s+(?:1[5-9]|20)\d\d[a-z]?"
)
# Inline TeX math by pandoc's rule: "$" then a non-space, a non-space then "$" not followed by a
# digit, so "$5 and $10" is money, not math.
_TEX_MATH = re.compile(r"\$\$[^$]{1,500}?\$\$|\$(?=[^\s$])(?:[^$\n\\]|\\.){1,200}?(?<=\S)\$(?!\d)")


# --- the document walk ---------------------------------------------------------------------------

# A short "Name, role" line without a sentence's end: a quotation's attribution.
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")  # a link's "(url)", to read the line as it shows
_NAME_LINE = re.compile(r"[\[*_]*[A-Z][^\n.!?:;]{0,60},[^\n.!?]{1,80}")
# A line that names who speaks in the list after it: "**Daniel Lemire:**", "Bryan Cantrill:"; and
# a list item that is one quotation of three words or more and nothing else (its words).
_SPEAKER = re.compile(
    r"[*_]{0,2}[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|de|del|der|van|von|da|di|la|le)){0,4}"
    r"(?::[*_]{0,2}|[*_]{0,2}:)\s*"
)
_WHOLE_QUOTE = re.compile(r"\s*[*_]{0,2}[\"“](?:[^\"“”\n]*?\s){2}[^\"“”\n]*[\"”][*_.\s]*")
# An attribution line: a dash and a name, or a label ("Author: [@iamdevloper](…)", "Source: …").
_ATTRIB_LINE = re.compile(r"^\s*(?:—|―|–|--|~)\s*\S|^\s*(?i:author|source|credit|via)\s*:\s*\S")


@dataclass
class _Footnote:
    urls: list[str] = field(default_factory=list)
    mentions: list[resolve.Mention] = field(default_factory=list)
    drafts: list[_Draft] = field(default_factory=list)

    seen: set[str] = field(default_factory=set)  # `urls` as a set: a body may name thousands

    def add_urls(self, urls: list[str]) -> None:
        """Add the URLs not there yet, in order."""
        for u in urls:
            if u not in self.seen:
                self.seen.add(u)
                self.urls.append(u)


_URL_ONLY = re.compile(r"(?:https?://|www\.)\S{1,2000}")


def _block_urls(block: _Block) -> list[str]:
    urls = [lk.citation.url for lk in block.links if lk.citation is not None and lk.citation.url]
    seen = set(urls)
    link_spans = {(lk.start, lk.end) for lk in block.links}
    # a code span that is nothing but a URL names it (`[^1]: `http://…``); other code is code
    hidden = [
        (a, b)
        for a, b in block.masked
        if (a, b) not in link_spans and not _URL_ONLY.fullmatch(block.text[a:b].strip())
    ]
    for u in citations.urls_in(_apply_mask(block.text, hidden)):
        if u not in seen:
            seen.add(u)
            urls.append(u)
    return urls


def _find_close(tokens: list[Token], i: int) -> int:
    """Index of the token closing the one opened at i."""
    level = tokens[i].level
    for j in range(i + 1, len(tokens)):
        if tokens[j].nesting == -1 and tokens[j].level == level:
            return j
    return len(tokens) - 1


def _inline_links(tok: Token, env: dict[str, Any], clock: _Clock) -> list[Citation]:
    out: list[Citation] = []
    for ch in _children(tok, env, clock):
        if ch.type == "link_open":
            c = resolve.link_citation(
                str(ch.attrs.get("href", "")), CitationKind.link, str(ch.attrs.get("href", ""))
            )
            if c:
                out.append(c)
        elif ch.type == "html_inline":
            m = _HTML_A.match(ch.content)
            if m:
                href = m.group(1) or m.group(2) or m.group(3) or ""
                c = resolve.link_citation(f'<a href="{href}">', CitationKind.link, href)
                if c:
                    out.append(c)
    return out


_KRAMDOWN = re.compile(r"\bmarkdown=[\"']?(?:1|block|span)")


def _html_markdown(
    tok: Token, lines: list[str], file: str, env: dict[str, Any], clock: _Clock
) -> list[_Draft]:
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
    attribution = [t for t in runs if _ATTRIB_LINE.match(t.content)]
    attributed = {id(t) for t in attribution}
    citations = resolve.attribution_citations(c for t in attribution for c in _inline_links(t, env, clock))
    drafts: list[_Draft] = []
    for t in runs:
        if id(t) in attributed:
            continue
        _children(t, env, clock)
        block = _scan_inline(t, lines)
        if not block.ignore:
            drafts.extend(_block_drafts(block, file, quote=bool(attribution), extra=citations or None))
    return drafts


def _html_prose(
    tokens: list[Token],
    i: int,
    lines: list[str],
    file: str,
    env: dict[str, Any],
    clock: _Clock,
    prev_inline: Token | None,
    anchors: dict[str, list[str]],
) -> tuple[list[_Draft], int]:
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
        if nxt.type != "html_block" or not nxt.map or _MARKER.search(nxt.content):
            break
        content += "\n" * (nxt.map[0] - last.map[1]) + nxt.content  # type: ignore[index]
        last = nxt
        merged += 1
    # the parse gate, as for a Markdown paragraph; a quotation may be attributed, which makes
    # each of its sentences a claim
    if not htmlprose.may_hold_prose(content) or not (_may_hold_claim(content) or htmlprose.quotes(content)):
        return [], merged
    clock.check_block(tok)
    first = tok.map[0]
    bases = [
        _base_col(lines[first + k] if first + k < len(lines) else "", c)
        for k, c in enumerate(content.split("\n"))
    ]
    found = htmlprose.read_prose(content, lambda ln: clock.check(first + ln + 1))
    drafts: list[_Draft] = []
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
                drafts.extend(_row_drafts(cells, pb.headers, file, _defines_fields(pb.headers)))
                continue
            block = _html_block(pb, first, bases)
            for anchor in block.anchors:
                anchors.setdefault(anchor, _block_urls(block))
            drafts.extend(
                _block_drafts(
                    block, file, quote=attributed, extra=extra or None, list_item=pb.element == "li"
                )
            )
        k = end
    return drafts, merged


def _html_quote(
    group: list[htmlprose.ProseBlock],
    before: htmlprose.ProseBlock | None,
    prev_inline: Token | None,
    env: dict[str, Any],
    clock: _Clock,
) -> tuple[list[htmlprose.ProseBlock], list[Citation], bool]:
    """The blocks of an HTML `<blockquote>` that are quoted, the citations its attribution
    carries, and whether it is attributed: a last block or last line that is a credit ("&mdash;
    Roger Peng (@rdpeng) <a href=…>May 24, 2012</a>") or a "Name, role" last
    block, as `_blockquote_context` reads a Markdown quote; else a lead-in that ends with a colon
    and links the speaker (a block just before it, or the Markdown paragraph before the HTML)."""
    last = group[-1]
    credit: htmlprose.ProseBlock | None = None
    if _ATTRIB_LINE.match(last.text) or (
        len(group) > 1 and len(last.text) < 400 and _NAME_LINE.fullmatch(last.text)
    ):
        credit, group = last, group[:-1]
    elif (at := last.last_line_start()) and _ATTRIB_LINE.match(last.text[at:]):
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
        cits = resolve.attribution_citations(_lead_in(prev_inline, env, clock))
    return group, cits, bool(cits)


def _html_block(pb: htmlprose.ProseBlock, first: int, bases: list[int]) -> _Block:
    """A `_Block` of HTML prose: `first` the HTML block's first line (0-based), `bases` the
    column where each of its lines starts in the file."""
    block = _Block(text=pb.text, masked=list(pb.code), breaks=list(pb.breaks), anchors=list(pb.anchors))
    block.sups = list(pb.sups)
    for v, ln, col in zip(pb.seg_v, pb.seg_line, pb.seg_col, strict=True):
        c = (bases[ln] if ln < len(bases) else 0) + col + 1
        block.seg_v.append(v)
        block.seg_line.append(first + ln + 1)
        block.seg_col.append(c)
        block.seg_text_col.append(c)
    for lk in pb.links:
        if lk.href.startswith("#") and len(lk.href) > 1:
            block.links.append(_Link(lk.start, lk.end, None, anchor=lk.href[1:]))
        else:
            raw = f'<a href="{lk.href}">{pb.text[lk.start : lk.end]}</a>'
            block.links.append(
                _Link(lk.start, lk.end, resolve.link_citation(raw, CitationKind.link, lk.href, lk.title))
            )
    return block


@dataclass
class _QuoteContext:
    close: int  # token index of the blockquote_close
    citations: list[Citation]
    attributed: bool


def _lead_in(prev_inline: Token | None, env: dict[str, Any], clock: _Clock) -> list[Citation]:
    """The links of a paragraph that introduces a quotation ("… have seen benefits:")."""
    if prev_inline is not None and strip_fill(prev_inline.content).endswith(":"):
        return _inline_links(prev_inline, env, clock)
    return []


def _blockquote_context(
    tokens: list[Token], i: int, prev_inline: Token | None, env: dict[str, Any], clock: _Clock
) -> tuple[_QuoteContext, int | None]:
    """Whether the block quote opened at i is attributed; returns the attribution token to skip."""
    close = _find_close(tokens, i)
    last_inline = None
    for j in range(close - 1, i, -1):
        if tokens[j].type == "inline":
            last_inline = j
            break
    attribution: int | None = None
    if last_inline is not None:
        content = tokens[last_inline].content
        last_line_start = content.rfind("\n") + 1
        first_inline = next((j for j in range(i + 1, close) if tokens[j].type == "inline"), None)
        if (
            first_inline is not None
            and first_inline != last_inline
            and len(content) < 400
            and _NAME_LINE.fullmatch(_LINK_TARGET.sub("]", content).strip())
        ):
            # "[Marc Rousavy](…), creator of `react-native-mmkv`": the quote's last paragraph names
            # who said it
            cits = _lead_in(prev_inline, env, clock) + _inline_links(tokens[last_inline], env, clock)
            return _QuoteContext(close, resolve.attribution_citations(cits), True), last_inline
        if _ATTRIB_LINE.match(content[last_line_start:]):
            attribution = last_inline if last_line_start == 0 else None
            cits = resolve.attribution_citations(_inline_links(tokens[last_inline], env, clock))
            return _QuoteContext(close, cits, True), attribution
    if close + 2 < len(tokens) and tokens[close + 1].type == "paragraph_open":
        nxt = tokens[close + 2]
        if _ATTRIB_LINE.match(nxt.content):
            cits = resolve.attribution_citations(_inline_links(nxt, env, clock))
            return _QuoteContext(close, cits, True), close + 2
    if (
        close + 5 < len(tokens)
        and tokens[close + 1].type == "blockquote_open"
        and tokens[close + 2].type == "paragraph_open"
        and tokens[close + 5].type == "blockquote_close"
    ):
        # a block quote of its own that holds only the attribution ("> Author: [@iamdevloper](…)")
        nxt = tokens[close + 3]
        if _ATTRIB_LINE.match(nxt.content) and "\n" not in nxt.content.strip():
            cits = resolve.attribution_citations(_inline_links(nxt, env, clock))
            return _QuoteContext(close, cits, True), close + 3
    if prev_inline is not None and strip_fill(prev_inline.content).endswith(":"):
        cits = resolve.attribution_citations(_inline_links(prev_inline, env, clock))
        if cits:
            return _QuoteContext(close, cits, True), None
    return _QuoteContext(close, [], False), None


# The token types the walk acts on; any other token matters only to a pending citecheck-ignore
# marker (and the open block quotes are popped at the next of these, which reads the same).
_WALKED = frozenset(
    [
        "html_block",
        "admonition_title_open",
        "heading_open",
        "blockquote_open",
        "footnote_reference_open",
        "footnote_reference_close",
        "list_item_open",
        "list_item_close",
        "thead_open",
        "thead_close",
        "tr_close",
        "inline",
    ]
)


def _walk(
    tokens: list[Token],
    lines: list[str],
    file: str,
    doc: ExtractedDocument,
    env: dict[str, Any],
    clock: _Clock,
    source: Path | None,
) -> None:
    drafts: list[_Draft] = []
    references: list[Reference] = []
    notes: list[Reference] = []  # lines opening with a superscript number, outside a reference list
    open_references: list[_OpenReference] = []
    footnotes: dict[str, _Footnote] = {}
    disabled = False
    ignore_level: int | None = None  # a citecheck-ignore marker waits for the next block here
    skip_close_level: int | None = None  # skipping an ignored block until its close
    ref_section: int | None = None  # heading level of the current reference-list section
    notes_section = False  # that section is headed "Notes": its paragraphs of prose are prose
    ref_item: _OpenReference | None = None
    ref_item_level = -1
    quotes: list[_QuoteContext] = []
    skip_inline: set[int] = set()
    footnote_key: str | None = None
    prev_inline: Token | None = None
    row: list[_Block] = []
    in_thead = False
    headers: list[str] = []  # the current table's header cells
    definitions = False  # the current table is a data dictionary (`_defines_fields`)
    anchors: dict[str, list[str]] = {}  # id → the URLs of the entry that declares it
    titles = _target_titles(tokens) if any("](#" in ln for ln in lines) else {}
    linked: dict[str, str] = {}  # "zarin et al. 2016" → the URL of a link with that text
    spoken_until = -1  # the close of a list that a line naming its speaker introduces

    for i, tok in enumerate(tokens):
        ttype = tok.type
        if skip_close_level is not None:
            if tok.nesting == -1 and tok.level == skip_close_level:
                skip_close_level = None
            continue
        if ttype not in _WALKED and ignore_level is None:
            continue  # most tokens (paragraph and list opens and closes, cells): nothing to do
        if ttype == "html_block":
            if i in skip_inline:
                continue  # read with the HTML block before it
            clock.check(tok.map[0] + 1 if tok.map else None)
            markers = list(_MARKER.finditer(tok.content))
            for m in markers:
                kind = m.group(1)
                if kind == "disable":
                    disabled = True
                elif kind == "enable":
                    disabled = False
                elif "<!--" in tok.content:
                    ignore_level = tok.level
            if markers:
                continue
            if ignore_level is not None and tok.level == ignore_level:
                ignore_level = None  # the ignored block is this HTML block
                continue
            if not disabled and ref_section is None and footnote_key is None:
                if _KRAMDOWN.search(tok.content):
                    drafts.extend(_html_markdown(tok, lines, file, env, clock))
                else:
                    new, merged = _html_prose(tokens, i, lines, file, env, clock, prev_inline, anchors)
                    drafts.extend(new)
                    skip_inline.update(range(i + 1, i + 1 + merged))
            continue
        if ignore_level is not None:
            if tok.level < ignore_level:
                ignore_level = None
            elif tok.level == ignore_level and tok.nesting >= 0:
                ignore_level = None
                if tok.nesting == 1:
                    skip_close_level = tok.level
                continue
        while quotes and i > quotes[-1].close:
            quotes.pop()
        if ttype == "admonition_title_open":
            skip_inline.add(i + 1)  # an admonition's title, like a heading
            continue
        if ttype == "heading_open" and quotes:
            continue  # a heading inside a block quote is quoted text ("> ### “…” - Name"), not structure
        if ttype == "heading_open":
            level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
            if ref_section is not None and level <= ref_section:
                ref_section = None
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            if inline is not None and inline.type == "inline":
                skip_inline.add(i + 1)
                if resolve.is_reference_heading(inline.content):
                    ref_section = level
                    notes_section = resolve.is_notes_heading(inline.content)
            continue
        if ttype == "blockquote_open":
            ctx, attribution = _blockquote_context(tokens, i, prev_inline, env, clock)
            quotes.append(ctx)
            if attribution is not None:
                skip_inline.add(attribution)
            continue
        if ttype == "footnote_reference_open":
            footnote_key = str((tok.meta or {}).get("label", ""))
            footnotes[footnote_key] = _Footnote()
            continue
        if ttype == "footnote_reference_close":
            fn = footnotes.get(footnote_key or "")
            if fn is not None and not fn.urls and not fn.mentions:
                # an explanatory note: its own sentences are claims, but for a reference it gives
                drafts.extend(d for d in fn.drafts if not reads_as_reference(d.claim.text))
            elif fn is not None:
                # a note that cites: its sentences that state a figure, a date, a quotation or a
                # comparison are claims too ("The entire dataset has 100,000,000 rows in a single
                # 14 GB Parquet file"), each with its own citations; a reference's title and date
                # ("ACM SIGCOMM …, Volume 41 Issue 4 August 2011") is none
                drafts.extend(
                    d
                    for d in fn.drafts
                    if d.fact_kinds and not is_fragment(d.claim.text) and not reads_as_reference(d.claim.text)
                )
            footnote_key = None
            continue
        if (
            ttype == "list_item_open"
            and ref_section is not None
            and (ref_item is None or tok.level <= ref_item_level)
        ):
            line = (tok.map[0] + 1) if tok.map else 1
            ref_item = _OpenReference(Reference(label=tok.info or None, text="", urls=[], line=line))
            ref_item_level = tok.level
            references.append(ref_item.ref)
            open_references.append(ref_item)
            continue
        if ttype == "list_item_close" and ref_item is not None and tok.level == ref_item_level:
            ref_item = None
            continue
        if ttype == "thead_open":
            in_thead = True
            headers = []
            continue
        if ttype == "thead_close":
            in_thead = False
            definitions = _defines_fields(headers)
            continue
        if ttype == "tr_close" and row:
            if not disabled and ref_section is None:
                drafts.extend(_row_drafts(row, headers, file, definitions))
            row = []
            continue
        if ttype != "inline" or i in skip_inline:
            continue
        clock.check(tok.map[0] + 1 if tok.map else None)
        in_cell = i > 0 and tokens[i - 1].type in ("th_open", "td_open")
        if in_cell and in_thead:
            headers.append(tok.content)
            continue
        attributed = bool(quotes) and quotes[-1].attributed
        if (
            i > spoken_until
            and i + 2 < len(tokens)
            and tokens[i + 2].type == "bullet_list_open"
            and _SPEAKER.fullmatch(tok.content) is not None
        ):
            spoken_until = _find_close(tokens, i + 2)
        spoken = i < spoken_until and _WHOLE_QUOTE.fullmatch(tok.content) is not None
        if not (in_cell or attributed or spoken or ref_section is not None or _may_hold_claim(tok.content)):
            prev_inline = tok
            continue
        _children(tok, env, clock)
        block = _scan_inline(tok, lines, titles)
        for anchor in block.anchors:
            # the entry an in-document link points to: this reference-list item, or this block
            anchors.setdefault(anchor, ref_item.ref.urls if ref_item is not None else _block_urls(block))
        _note_linked_works(block, linked)
        prev_inline = tok
        was_disabled = disabled
        for t in block.toggles:
            disabled = not t
        if was_disabled or block.ignore:
            continue
        if ref_section is not None and footnote_key is None:
            _add_reference(block, tok, ref_item, references)
            if not (
                notes_section
                and ref_item is None
                and not block.sups
                and not resolve.opens_with_label(block.text)
            ):
                continue
        if block.sups:
            notes.extend(_note_entries(block, (tok.map[0] + 1) if tok.map else 1))
        if in_cell:
            row.append(block)
            continue
        extra = quotes[-1].citations if attributed else None
        # the first paragraph of a list item (markdown-it keeps a tight list's paragraphs, hidden)
        list_item = i >= 2 and tokens[i - 2].type == "list_item_open"
        if list_item and _TASK_BOX.match(block.text):
            continue  # a checklist's entry, ticked or not: a to-do or a sign-off, not a claim
        if spoken and list_item:
            attributed = True  # "**Ivica Bogosavljevic:**" then "- *"Memory bottlenecks are …"*"
        new = _block_drafts(block, file, quote=attributed, extra=extra, list_item=list_item)
        if footnote_key is not None:
            fn = footnotes[footnote_key]
            fn.add_urls(_block_urls(block))
            fn.mentions.extend(resolve.find_mentions(_apply_mask(block.text, block.masked)))
            fn.drafts.extend(new)
        else:
            drafts.extend(new)

    _inline_footnotes(env, footnotes, clock)
    for item in open_references:
        item.close()
    doc.references = references
    front = next((t.content for t in tokens[:1] if t.type == "front_matter"), "")
    keys = _Keys(front, _aliases(env), source)
    _finish(drafts, references, notes, footnotes, doc, clock, keys, anchors, linked)


def _inline_footnotes(env: dict[str, Any], footnotes: dict[str, _Footnote], clock: _Clock) -> None:
    """Bodies of inline footnotes (`^[…]`), which live only in the parser's env."""
    listed = (env.get("footnotes") or {}).get("list") or {}
    for fid, note in listed.items():
        if "tokens" not in note:
            continue
        clock.check(None)
        tok = Token("inline", "", 0)
        tok.content = note.get("content", "")
        tok.children = note["tokens"]
        block = _scan_inline(tok, [])
        footnotes[f"#{fid}"] = _Footnote(
            urls=_block_urls(block), mentions=resolve.find_mentions(_apply_mask(block.text, block.masked))
        )


# A cell that is a bare number that could pass for a year ("1800", "2048") in a column whose
# header names no date: a specification, not a year.
# A table row none of whose cells holds a word ("~1KB * 10 = 10KB | ~1KB * 200 = 200KB", a query's
# output "2000 | 1000.0 | 0.1"): its meaning is in headers or rows elsewhere, it states nothing.
_CELL_WORD = re.compile(r"[^\W\d_]{3,}")
# GitHub's task-list box: "- [ ] Docs updated", "- [x] (R) Enhancement issue in release milestone".
_TASK_BOX = re.compile(r"\[[ xX]\]\s")
_BARE_FIGURE = re.compile(r"\s*(?:1[6-9]|20)\d\d\s*")
_DATE_HEADER = re.compile(
    r"date|year|release|when|time|period|since|until|founded|launch|day|month", re.IGNORECASE
)


# A data dictionary or a parameter table: its first column names a field, another says what the
# field means ("Header | Definition" in fivethirtyeight/data's READMEs, "Name | Type | Description").
# Its rows define; "Title | Description" rows (a curated list's entries) state facts.
_FIELD_HEADER = re.compile(
    r"(?:header|column|field|variable|name|parameter|param|option|property|key|attribute|setting|flag|argument|"
    r"code|term|abbreviation|acronym)s?",
    re.IGNORECASE,
)
_MEANING_HEADER = re.compile(r"(?:definition|description|meaning|explanation)s?", re.IGNORECASE)
_HEADER_MARKUP = " *_`"


def _row_drafts(cells: list[_Block], headers: list[str], file: str, defines: bool) -> list[_Draft]:
    """The claim of a table's body row, one unit with its cells joined: none in a table whose
    rows define fields, nor for a row without a word."""
    if defines or not any(_CELL_WORD.search(c.text) for c in cells):
        return []
    return _block_drafts(_join(cells, headers), file, split=False)


def _defines_fields(headers: list[str]) -> bool:
    cells = [h.strip(_HEADER_MARKUP) for h in headers]
    return (
        len(cells) >= 2
        and _FIELD_HEADER.fullmatch(cells[0]) is not None
        and any(_MEANING_HEADER.fullmatch(c) is not None for c in cells[1:])
    )


def _join(cells: list[_Block], headers: list[str] | None = None) -> _Block:
    """One block for a table row: the cells' text joined with " | " (a bare figure in a column
    that is not a date column masked, so it is never read as a year)."""
    out = _Block()
    parts: list[str] = []
    off = 0
    for column, cell in enumerate(cells):
        if not cell.text:
            continue
        if parts:
            parts.append(" | ")
            off += 3
        parts.append(cell.text)
        out.seg_v.extend(v + off for v in cell.seg_v)
        out.seg_line.extend(cell.seg_line)
        out.seg_col.extend(cell.seg_col)
        out.seg_text_col.extend(cell.seg_text_col)
        out.links.extend(_Link(lk.start + off, lk.end + off, lk.citation, lk.anchor) for lk in cell.links)
        out.masked.extend((s + off, e + off) for s, e in cell.masked)
        out.footnotes.extend((o + off, key) for o, key in cell.footnotes)
        out.pandoc.extend((o + off, keys) for o, keys in cell.pandoc)
        out.ignore = out.ignore or cell.ignore
        header = headers[column] if headers and column < len(headers) else ""
        if _BARE_FIGURE.fullmatch(cell.text) and not _DATE_HEADER.search(header):
            out.masked.append((off, off + len(cell.text)))
        off += len(cell.text)
    out.text = "".join(parts)
    return out


@dataclass
class _OpenReference:
    """A reference-list entry being read (a list item of the reference section, over one or
    more blocks); its text is joined once the walk is done."""

    ref: Reference
    texts: list[str] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)

    def close(self) -> None:
        self.ref.text = " ".join(self.texts)


def _add_reference(
    block: _Block, tok: Token, item: _OpenReference | None, references: list[Reference]
) -> None:
    urls = _block_urls(block)
    if item is not None:
        if item.texts:
            item.texts.append(block.text)
        else:
            numbered = _note_entries(block, item.ref.line)[:1]  # "* <sup>7</sup>[CDC …](…)"
            label = item.ref.label or (numbered[0].label if numbered and block.sups[0][0] == 0 else None)
            m = resolve.make_reference(block.text, [], item.ref.line, label)
            item.ref.label = m.label
            if m.text:
                item.texts.append(m.text)
        for u in urls:
            if u not in item.urls:
                item.urls.add(u)
                item.ref.urls.append(u)
        return
    first = (tok.map[0] + 1) if tok.map else 1
    if block.sups and block.sups[0][0] == 0 and block.sups[0][2]:
        # a paragraph of "<sup>1</sup> …" lines holds one entry per line
        references.extend(_note_entries(block, first))
        return
    # A paragraph of "[1] …" lines holds one entry per line.
    pieces: list[tuple[int, int]] = []
    starts = [0, *block.breaks]
    if len(starts) > 1 and all(resolve.starts_with_label(block.text, s) for s in starts):
        pieces = [
            (s, starts[k + 1] if k + 1 < len(starts) else len(block.text)) for k, s in enumerate(starts)
        ]
    else:
        pieces = [(0, len(block.text))]
    piece_starts = [s for s, _ in pieces]
    piece_urls: list[list[str]] = [[] for _ in pieces]
    for lk in block.links:
        k = bisect_right(piece_starts, lk.start) - 1
        if k >= 0 and lk.start < pieces[k][1] and lk.citation and lk.citation.url:
            piece_urls[k].append(lk.citation.url)
    for (s, e), sub_urls in zip(pieces, piece_urls, strict=True):
        sub = block.text[s:e].strip()
        if not sub:
            continue
        line = block.position(s)[0] if block.seg_v else first
        references.append(resolve.make_reference(sub, sub_urls, line))


def _aliases(env: dict[str, Any]) -> dict[str, str]:
    """The document's `[@key]: target` definitions (markdown-it reads them as link reference
    definitions; their labels are upper-cased, and keys are looked up case-insensitively)."""
    refs = env.get("references") or {}
    return {label[1:]: str(ref.get("href", "")) for label, ref in refs.items() if label.startswith("@")}


class _Keys:
    """Resolves a document's pandoc citation keys; its bibliography is read on first need."""

    def __init__(self, front: str, aliases: dict[str, str], source: Path | None) -> None:
        self.front, self.aliases, self.source = front, aliases, source
        self.bib: bibliography.Bibliography | None = None
        self.done: dict[tuple[str, str | None], Citation] = {}

    def citation(self, key: str, role: str | None = None) -> Citation:
        if (key, role) not in self.done:
            if self.bib is None and pandoc.identifier_url(key) is None:
                folder = self.source.parent if self.source is not None else None
                self.bib = bibliography.load(
                    folder, self.front, self.aliases, siblings=True, exclude=self.source
                )
            bib = self.bib or bibliography.Bibliography(aliases=self.aliases)
            self.done[key, role] = resolve.pandoc_citation(key, bib, role=role)
        return self.done[key, role]


def _work_key(identifier: str) -> str:
    return " ".join(identifier.casefold().split())


_A_DIGIT = re.compile(r"\d")


def _note_linked_works(block: _Block, linked: dict[str, str]) -> None:
    """The works a block's links name by author and year ("[Zarin et al. (2016)](https://doi.org/…)"),
    so that the same author-year citation elsewhere in the document cites that link."""
    for lk in block.links:
        if lk.citation is None or not lk.citation.url or lk.end <= lk.start:
            continue
        text = block.text[lk.start : lk.end]
        if _A_DIGIT.search(text) is None:
            continue
        for mn in resolve.find_mentions(text):
            if mn.kind == CitationKind.author_year:
                linked.setdefault(_work_key(mn.identifier), lk.citation.url)


def _finish(
    drafts: list[_Draft],
    references: list[Reference],
    notes: list[Reference],
    footnotes: dict[str, _Footnote],
    doc: ExtractedDocument,
    clock: _Clock,
    keys: _Keys,
    anchors: dict[str, list[str]],
    linked: Mapping[str, str],
) -> None:
    index = resolve.ReferenceIndex(references)
    # a superscript marker's number names a note ("<sup>1</sup> See …") before a reference entry
    note_index = resolve.ReferenceIndex(notes + references) if notes else index
    bodies: dict[str, list[Citation]] = {}  # a footnote's own references, resolved once
    for d in drafts:
        clock.check(d.claim.line)
        if d.skipped_by is not None:
            c = d.claim
            cited = bool(d.citations)
            doc.skipped.append(
                SkippedSentence(
                    text=c.text, file=c.file, line=c.line, column=c.column, rule=d.skipped_by, cited=cited
                )
            )
            continue
        cits: list[Citation] = []
        for _, item in sorted(d.citations, key=lambda x: x[0]):
            if isinstance(item, Citation):
                cits.append(item)
            elif isinstance(item, resolve.Mention):
                work = (
                    linked.get(_work_key(item.identifier)) if item.kind == CitationKind.author_year else None
                )
                if work is not None and index.find(item) is None:
                    # "… the original data from Zarin et al. (2016) …" after "[Zarin et al.
                    # (2016)](https://doi.org/…)": the document links the work it names
                    cits.append(
                        Citation(
                            raw=item.raw,
                            kind=item.kind,
                            identifier=item.identifier,
                            url=work,
                            start=item.start,
                            end=item.end,
                        )
                    )
                elif item.superscript:
                    if note_index.references:
                        cits.append(resolve.mention_citation(item, note_index))
                elif item.strong or references:
                    cits.append(resolve.mention_citation(item, index))
            elif isinstance(item, _PandocKeys):
                cits.extend(keys.citation(k, item.role) for k in item.keys)
            elif isinstance(item, _Anchor):
                # an in-page link to a reference entry cites what the entry cites; to anything
                # else (a heading, a note without a URL) it is navigation and cites nothing, but
                # for a number, "[(1)](#references)", which is that entry of the reference list
                for url in anchors.get(item.id, ())[: resolve.MAX_REFERENCES_PER_BRACKET]:
                    cits.append(
                        Citation(raw=item.raw, kind=CitationKind.reference, identifier=f"#{item.id}", url=url)
                    )
                number = _NUMBER_LINK.match(item.raw)
                if item.id not in anchors and number and index.references:
                    mention = resolve.Mention(item.raw, CitationKind.numbered, number.group(1), 0, 0, True)
                    cit = resolve.mention_citation(mention, index)
                    cits.append(cit.model_copy(update={"start": None, "end": None}))
            else:
                fn = footnotes.get(item)
                if item not in bodies:
                    bodies[item] = [resolve.mention_citation(m, index) for m in fn.mentions] if fn else []
                raw = "^[…]" if item.startswith("#") else f"[^{item}]"
                cits.extend(resolve.footnote_citations(raw, item, fn.urls if fn else None, bodies[item]))
        cits = resolve.dedupe(cits)
        kinds = list(d.fact_kinds)
        if cits:
            kinds.append(ClaimKind.hyperlinked)
        elif not kinds:
            continue  # its only "citation" was a weak author-year look-alike
        d.claim.kinds = kinds
        d.claim.citations = cits
        doc.claims.append(d.claim)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ESM = re.compile(r"^(?:import|export)\s")
_HEADING_LINE = re.compile(r" {0,3}#{1,6}(?:\s|$)")


# Franklin's page variables (Julia's sites): "@def title = "…"" lines at the top of a page.
_FRANKLIN_DEF = re.compile(r"@def\s+\w+\s*=")
# Pelican and MultiMarkdown metadata: "Key: value" lines that open the file, up to a blank line
# ("Title: This Week in Rust 201", "Date: 2017-09-26"); the first key is one of these.
_METADATA_START = re.compile(r"(?i:title|date|author|authors|slug|category|tags|summary|status|lang):[ \t]")
_METADATA_LINE = re.compile(r"[A-Za-z][\w -]{0,30}:[ \t]|[ \t]+\S")


def _blank_non_markdown(text: str, *, mdx: bool) -> str:
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


# --- public entry points ----------------------------------------------------------------------------


def extract_text(
    text: str, file: str, *, budget_s: float | None = None, source: Path | None = None
) -> ExtractedDocument:
    """Claims and resolved citations of one Markdown text; `file` names it in every claim.

    `budget_s`: the time the file may take (None: no limit). A file still being read when it
    runs out gives no claims, only a `FileError` saying where extraction stopped. `source`: the
    file on disk, whose folder holds the bibliography its pandoc citations name (None: no
    bibliography file is read; `citecheck.extract.bibliography`)."""
    clock = _Clock(budget_s)
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    doc = ExtractedDocument(file=file)
    mdx = file.lower().endswith(".mdx")
    text = blank_markup(_blank_non_markdown(text, mdx=mdx), mdx=mdx)
    md = _parser(_disabled_rules(text))
    env: dict[str, Any] = {_PARSER_KEY: md}
    tokens = md.parse(text, env)
    try:
        _walk(tokens, text.split("\n"), file, doc, env, clock, source)
    except _Stopped as stop:
        where = "".join(
            [f" {stop.where}" if stop.where else "", f" at line {stop.line}" if stop.line is not None else ""]
        )
        message = f"extraction stopped{where}: {stop.reason}; none of the file's claims are checked"
        return ExtractedDocument(file=file, errors=[FileError(file=file, line=stop.line, message=message)])
    return doc


def extract_file(
    path: Path,
    *,
    display: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    budget_s: float | None = DEFAULT_EXTRACT_BUDGET_S,
) -> ExtractedDocument:
    """`extract_text` of a file; never raises for bad input: problems go to `doc.errors`."""
    name = display or str(path)
    doc = ExtractedDocument(file=name)
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            doc.errors.append(
                FileError(
                    file=name, message=f"file is {size:,} bytes, over the {max_bytes:,}-byte limit; skipped"
                )
            )
            return doc
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except IsADirectoryError:
        doc.errors.append(FileError(file=name, message="is a directory, not a Markdown file"))
        return doc
    except OSError as exc:
        doc.errors.append(FileError(file=name, message=f"cannot read file: {exc.strerror or exc}"))
        return doc
    if len(data) > max_bytes:
        doc.errors.append(FileError(file=name, message=f"file is over the {max_bytes:,}-byte limit; skipped"))
        return doc
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a byte-order mark, as some editors save
        try:
            return _with_errors(
                extract_text(data.decode("utf-16"), name, budget_s=budget_s, source=path), doc.errors
            )
        except UnicodeDecodeError:
            pass
    if b"\x00" in data:
        doc.errors.append(
            FileError(file=name, message="binary file (contains NUL bytes), not Markdown; skipped")
        )
        return doc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        text = data.decode("utf-8", errors="replace")
        doc.errors.append(
            FileError(
                file=name,
                line=line,
                message=f"invalid UTF-8 at byte {exc.start}; decoded with replacement characters",
                fatal=False,
            )
        )
    return _with_errors(extract_text(text, name, budget_s=budget_s, source=path), doc.errors)


def _with_errors(doc: ExtractedDocument, errors: list[FileError]) -> ExtractedDocument:
    doc.errors = errors + doc.errors
    return doc


def render_text(docs: list[ExtractedDocument]) -> str:
    """One line a claim: `file:line  kinds  text  → urls` (unresolved citations say why)."""
    out: list[str] = []
    for doc in docs:
        for c in doc.claims:
            targets = []
            for cit in c.citations:
                if cit.resolve_status == RS.ok and cit.url:
                    targets.append(cit.url)
                elif cit.resolve_status == RS.skipped:
                    targets.append(f"{cit.raw} (skipped)")
                else:
                    targets.append(f"{cit.raw} (error: {cit.resolve_error})")
            arrow = "  → " + " ".join(targets) if targets else "  → (no citation)"
            out.append(f"{c.file}:{c.line}  {','.join(k.value for k in c.kinds)}  {c.text}{arrow}")
    return "\n".join(out) + ("\n" if out else "")
