"""What the checks read of a claim: its text without citation markup and attribution
(docs/ARCHITECTURE.md, the checks stage).

A claim names where its fact comes from in many ways — "… ([source](URL)).", "… ([IEA](URL)).",
"According to [Gartner](URL), …", "[The WHO reports](URL) that …", "…, [GitHub says](URL).",
"per the OECD", "the IEA's report found that" — and none of those words is the fact. The checks
look for what the claim states on the page: were the source's name, "according to" or "reports
that" part of it, the page's own sentence ("China accounted for about 60% of global sales.")
would not hold the claim's words, and a figure would be read as measuring "IEA". So before the
number, date and quote checks read a claim, `checked_text` blanks (same length: offsets hold):

- citation markers (`extract.citations.text_without_citations`: "[3]", "(Smith, 2020)", "^3");
- a link whose text stands alone in brackets ("([IEA](URL))", "([1](…), [2](…))"), or whose text
  says only that it is a link ("[source](URL)", "[here](URL)") or is a reference's number ("[1]"
  with "[1]: https://…" below), and "(source)", "(via X)";
- an attribution (`attributions`): "according to X", "X reports / says / found / estimates
  that" (and the other reporting verbs of `_VERBS`) at the start of a clause, "…, X says." and
  "…, says X." at the end, "per X", "X's report found that", "as reported by X". X is a
  source: a link's text, a name (capitalised words), or a phrase whose last word is a source
  (`_SOURCES`: "the study", "researchers at MIT", "a new survey"); never words with a digit
  ("a 2019 survey of 1,000 developers found that" is the claim's scope, and stays) nor a
  subject of the fact ("Most developers say that …" stays).

In a claim that quotes, only the link's own attribution goes: "Smith said: “…”" and
"according to Sir George Martin, Harrison was “…”" name whom the quote check looks for beside
the quotation on the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citecheck.extract.citations import text_without_citations
from citecheck.extract.markup import blank_spans
from citecheck.extract.words import REPORTING
from citecheck.models import Citation, CitationKind, Claim
from citecheck.numbers import wordset

# Reporting verbs: "X reports that", "…, X says.", "as X puts it"
_VERBS = rf"(?:{REPORTING}|puts? it)"
# Nouns that name where a fact comes from: the last word of a source that is not a name.
_SOURCES = wordset(
    "study studies report reports survey surveys analysis analyses paper papers review reviews "
    "researchers researcher scientists scientist authors author data census poll polls article "
    "research team experts expert figures statistics estimate estimates model models trial trials "
    "index database dataset agency government ministry department office bureau institute "
    "organization organisation company firm group investigators officials official spokesperson "
    "spokesman spokeswoman website site page blog post release announcement documentation docs "
    "changelog journal newspaper magazine tracker dashboard source sources findings paper "
    "report's study's survey's analysis's"
)
# Words of a source's phrase that are not its last: determiners and possessives, adjectives.
_CONNECTORS = wordset("of the for and on de du la & in at from by")
# Link texts that only say a link is there
_GENERIC = wordset(
    "source sources link links here this ref refs reference references cite citation more details via"
)

_WORD = r"[\w'’.&-]+"
_PHRASE = rf"(?:{_WORD}[ \u00a0]+){{0,5}}?{_WORD}"  # a source's name: up to six words
_STOP = r"(?=[ \u00a0]*(?:[,;:!?)]|\.(?:\s|$)|$))"
_END = r"(?=[ \u00a0]*[.!?]?[\"”’')]*[ \u00a0]*$)"
_CLAUSE_START = r"(?:^|(?<=[,;:(]))[ \u00a0]*"
_THAT = r"(?:[ \u00a0]+that\b|[ \u00a0]*[:,])"

# "According to X," at a clause's start; ", according to X" anywhere
_ACCORDING = re.compile(
    rf"(?P<lead>,[ \u00a0]*)?\baccording[ \u00a0]+to[ \u00a0]+(?P<x>{_PHRASE}){_STOP}", re.I
)
# "X reports that", "The study found:" at a clause's start; "X's report found that"
_LEADING = re.compile(
    rf"{_CLAUSE_START}(?P<x>{_PHRASE})(?:[ \u00a0]+(?:has|have|had))?[ \u00a0]+{_VERBS}\b(?P<that>{_THAT})?",
    re.I,
)
# A link whose text is a source and its reporting verb, whole
_LINK_SAYS = re.compile(
    rf"[ \u00a0]*(?P<x>{_PHRASE})(?:[ \u00a0]+(?:has|have|had))?[ \u00a0]+{_VERBS}[ \u00a0]*", re.I
)
_THAT_AFTER = re.compile(r"[ \u00a0]*(?:that\b|[:,])")
# "…, X says." and "…, says X." at the end
# (after a quotation's own closing mark too: '“…,” [GitHub says](URL).')
_TRAILING = re.compile(rf",(?P<q>[\"”’']?)[ \u00a0]*(?P<x>{_PHRASE})[ \u00a0]+{_VERBS}{_END}", re.I)
_TRAILING_VERB_FIRST = re.compile(
    rf",(?P<q>[\"”’']?)[ \u00a0]*{_VERBS}[ \u00a0]+(?P<x>{_PHRASE}){_END}", re.I
)
# "Per X," at a clause's start, ", per X" anywhere; "as reported by X", "(via X)"
_PER = re.compile(rf"(?:{_CLAUSE_START}|,[ \u00a0]*)\bper[ \u00a0]+(?P<x>{_PHRASE}){_STOP}", re.I)
_AS_BY = re.compile(rf",?[ \u00a0]*\bas[ \u00a0]+{_VERBS}[ \u00a0]+by[ \u00a0]+(?P<x>{_PHRASE}){_STOP}", re.I)
_PARENS = re.compile(r"\((?P<inside>[^()]{0,300})\)")
_IN_PARENS_ONLY = re.compile(r"^(?:[\s,;&]|\band\b|\bsee\b|\bvia\b|\bcf\.|\bsources?:?)*$", re.I)
_QUOTE_MARKS = '"“”‘’«»'
_NUMBERED = re.compile(
    r"\s*\d{1,3}\s*"
)  # "[1]" with "[1]: https://…" below: a reference's number as a link's text
_DIGIT = re.compile(r"[0-9]")


def _in_link(start: int, end: int, links: list[tuple[int, int]]) -> bool:
    """Whether the words at `start:end` are (in) a link's text, or hold one."""
    return any((s <= start and end <= e) or start <= s < e <= end for s, e in links)


def _is_source(phrase: str) -> bool:
    """Whether words name a source: a name, or a phrase ending in a source noun; never with a
    digit."""
    if _DIGIT.search(phrase):
        return False
    words = phrase.split()
    if not words or words[0].lower() in ("and", "but", "or", "which", "who", "that", "it", "they", "we"):
        return False
    last = words[-1].lower().rstrip(".")
    if last in _SOURCES or last.rstrip("'’s") in _SOURCES:
        return True
    # a name: every word capitalised but the connectors ("the Bureau of Labor Statistics")
    return all(w[0].isupper() or w.lower() in _CONNECTORS or w.lower() in ("a", "an") for w in words) and any(
        w[0].isupper() for w in words
    )


def attributions(text: str, links: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of `text` that say where its fact comes from (see the module docstring);
    `links` are the spans of its links' texts. In a claim with a quotation, only the link's
    own attribution: "Smith said “…”" and "according to Smith, …" may name whom it quotes."""
    spans: list[tuple[int, int]] = []
    quoting = any(q in text for q in _QUOTE_MARKS)

    def take(m: re.Match[str], end: int | None = None) -> None:
        x = m.group("x")
        if _DIGIT.search(x):
            return  # "a 2019 survey of 1,000 developers found that": the claim's scope
        if _in_link(m.start("x"), m.end("x"), links) or (not quoting and _is_source(x)):
            # a quotation's closing mark stays: '“…,” [GitHub says](URL).'
            start = m.end("q") if "q" in m.re.groupindex and m.group("q") else m.start()
            spans.append((start, m.end() if end is None else end))

    for m in _ACCORDING.finditer(text):
        end = m.end()
        if m.group("lead") is None and (comma := re.match(r"[ \u00a0]*,", text[end:])):
            end += comma.end()  # "According to X, …": the comma goes with it
        take(m, end)
    for m in _LEADING.finditer(text):
        if m.group("that"):  # "X reports that …", "The study found: …"
            take(m)
    for s, e in links:
        # the link's own "[The WHO reports](…) that 60% …", "[GitHub's survey found](…) 60% …"
        if (m := _LINK_SAYS.fullmatch(text, s, e)) is not None and not _DIGIT.search(m.group("x")):
            that = _THAT_AFTER.match(text, e)
            spans.append((s, that.end() if that else e))
    for pattern in (_TRAILING, _TRAILING_VERB_FIRST, _PER, _AS_BY):
        for m in pattern.finditer(text):
            take(m)
    return [_without_full_stop(text, span) for span in spans]


def _without_full_stop(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The span without the sentence's own full stop ("…, per CNA." keeps its "."): the
    sentence still ends there."""
    start, end = span
    return (start, end - 1) if end > start and text[end - 1] == "." and not text[end:].strip() else span


def _link_spans(text: str, citations: Iterable[Citation]) -> list[tuple[int, int]]:
    """Where the claim's links' texts are in `text` (their offsets, checked)."""
    return [
        (c.start, c.end)
        for c in citations
        if c.kind in (CitationKind.link, CitationKind.reference, CitationKind.internal)
        and c.start is not None
        and c.end is not None
        and 0 <= c.start < c.end <= len(text)
    ]


def citation_markup(text: str, links: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of links that only cite: a link's text alone in brackets with its brackets
    ("([IEA](URL))", "(see [1](…), [2](…))", "(source)"), a link that says only that it is one
    ("[source](URL)", "[here](URL)")."""
    spans = [
        (s, e) for s, e in links if text[s:e].strip().lower() in _GENERIC or _NUMBERED.fullmatch(text[s:e])
    ]
    for m in _PARENS.finditer(text):
        lo, hi = m.span("inside")
        inside = [(s - lo, e - lo) for s, e in links if lo <= s and e <= hi]
        rest = blank_spans(m.group("inside"), inside).lower().split()
        words = " ".join(w for w in rest if w.strip(",;") not in _GENERIC)
        only_cites = inside or m.group("inside").strip().lower() in _GENERIC
        if only_cites and _IN_PARENS_ONLY.match(words):
            spans.append(m.span())
    return spans


def checked_text(claim: Claim) -> str:
    """The claim's text as the number, date and quote checks read it (same length): citation
    markers, links that only cite and attributions blanked (see the module docstring)."""
    text = text_without_citations(claim.text, claim.citations)
    links = _link_spans(text, claim.citations)
    spans = citation_markup(text, links) + attributions(text, links)
    if not spans:
        return text
    text = blank_spans(text, spans)
    # once more: an attribution may open the clause the first one left ("[Reuters reports](…)
    # that the study found that …")
    again = attributions(text, links)
    return blank_spans(text, again) if again else text
