"""Block quotes and their attribution: whether a quotation is attributed (a last line or a
following paragraph starting with a dash, a "Name, role" last paragraph, an introducing
paragraph that ends with a colon and links the speaker), and the citations the attribution
carries, which cite every sentence of the quotation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from citecheck.extract import resolve
from citecheck.extract.inline import HTML_A
from citecheck.extract.markup import strip_fill
from citecheck.extract.parser import Clock, children
from citecheck.models import Citation, CitationKind

# A short "Name, role" line without a sentence's end: a quotation's attribution.
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")  # a link's "(url)", to read the line as it shows
NAME_LINE = re.compile(r"[\[*_]*[A-Z][^\n.!?:;]{0,60},[^\n.!?]{1,80}")
# A line that names who speaks in the list after it: "**Daniel Lemire:**", "Bryan Cantrill:"; and
# a list item that is one quotation of three words or more and nothing else (its words).
SPEAKER = re.compile(
    r"[*_]{0,2}[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|de|del|der|van|von|da|di|la|le)){0,4}"
    r"(?::[*_]{0,2}|[*_]{0,2}:)\s*"
)
WHOLE_QUOTE = re.compile(r"\s*[*_]{0,2}[\"“](?:[^\"“”\n]*?\s){2}[^\"“”\n]*[\"”][*_.\s]*")
# An attribution line: a dash and a name, or a label ("Author: [@iamdevloper](…)", "Source: …").
ATTRIB_LINE = re.compile(r"^\s*(?:—|―|–|--|~)\s*\S|^\s*(?i:author|source|credit|via)\s*:\s*\S")


def find_close(tokens: list[Token], i: int) -> int:
    """Index of the token closing the one opened at i."""
    level = tokens[i].level
    for j in range(i + 1, len(tokens)):
        if tokens[j].nesting == -1 and tokens[j].level == level:
            return j
    return len(tokens) - 1


def inline_links(tok: Token, env: dict[str, Any], clock: Clock) -> list[Citation]:
    """The citations of a paragraph's links and HTML links (an attribution's, a lead-in's)."""
    out: list[Citation] = []
    for ch in children(tok, env, clock):
        if ch.type == "link_open":
            c = resolve.link_citation(
                str(ch.attrs.get("href", "")), CitationKind.link, str(ch.attrs.get("href", ""))
            )
            if c:
                out.append(c)
        elif ch.type == "html_inline":
            m = HTML_A.match(ch.content)
            if m:
                href = m.group(1) or m.group(2) or m.group(3) or ""
                c = resolve.link_citation(f'<a href="{href}">', CitationKind.link, href)
                if c:
                    out.append(c)
    return out


@dataclass
class QuoteContext:
    """An open block quote: where it closes, and whether and by what it is attributed."""

    close: int  # token index of the blockquote_close
    citations: list[Citation]
    attributed: bool


def lead_in(prev_inline: Token | None, env: dict[str, Any], clock: Clock) -> list[Citation]:
    """The links of a paragraph that introduces a quotation ("… have seen benefits:")."""
    if prev_inline is not None and strip_fill(prev_inline.content).endswith(":"):
        return inline_links(prev_inline, env, clock)
    return []


def blockquote_context(
    tokens: list[Token], i: int, prev_inline: Token | None, env: dict[str, Any], clock: Clock
) -> tuple[QuoteContext, int | None]:
    """Whether the block quote opened at i is attributed; returns the attribution token to skip."""
    close = find_close(tokens, i)
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
            and NAME_LINE.fullmatch(_LINK_TARGET.sub("]", content).strip())
        ):
            # "[Marc Rousavy](…), creator of `react-native-mmkv`": the quote's last paragraph names
            # who said it
            cits = lead_in(prev_inline, env, clock) + inline_links(tokens[last_inline], env, clock)
            return QuoteContext(close, resolve.attribution_citations(cits), True), last_inline
        if ATTRIB_LINE.match(content[last_line_start:]):
            attribution = last_inline if last_line_start == 0 else None
            cits = resolve.attribution_citations(inline_links(tokens[last_inline], env, clock))
            return QuoteContext(close, cits, True), attribution
    if close + 2 < len(tokens) and tokens[close + 1].type == "paragraph_open":
        nxt = tokens[close + 2]
        if ATTRIB_LINE.match(nxt.content):
            cits = resolve.attribution_citations(inline_links(nxt, env, clock))
            return QuoteContext(close, cits, True), close + 2
    if (
        close + 5 < len(tokens)
        and tokens[close + 1].type == "blockquote_open"
        and tokens[close + 2].type == "paragraph_open"
        and tokens[close + 5].type == "blockquote_close"
    ):
        # a block quote of its own that holds only the attribution ("> Author: [@iamdevloper](…)")
        nxt = tokens[close + 3]
        if ATTRIB_LINE.match(nxt.content) and "\n" not in nxt.content.strip():
            cits = resolve.attribution_citations(inline_links(nxt, env, clock))
            return QuoteContext(close, cits, True), close + 3
    if prev_inline is not None and strip_fill(prev_inline.content).endswith(":"):
        cits = resolve.attribution_citations(inline_links(prev_inline, env, clock))
        if cits:
            return QuoteContext(close, cits, True), None
    return QuoteContext(close, [], False), None
