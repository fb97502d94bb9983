"""Sentence splitting with character offsets, tuned for documentation prose.

A boundary is a run of `.`, `!`, `?` or `…` (optionally followed by closing quotes or
brackets), then whitespace, then something that can open a sentence: an upper-case letter, a
digit, an opening quote or bracket, or `@`. A full stop does not end a sentence after a known
abbreviation ("e.g.", "Dr.", "et al.", "Inc."), after dotted initialisms ("U.S.", "a.m."),
or after a single capital initial ("J. Smith"). Decimals ("3.5%"), URLs and version numbers
never contain whitespace after their dots, so they never split. Nor does a boundary inside
an open parenthesis or quotation ('(for example, "Reply within 7 days. Then ping.")'). Callers
mask inline code (replace it with letters of the same length) before splitting, so code never
splits either.
"""

from __future__ import annotations

import re

# Lower-case, without the final dot. "etc." is deliberately absent: it usually ends a sentence.
ABBREVIATIONS: frozenset[str] = frozenset(
    [
        "al",
        "approx",
        "apr",
        "aug",
        "ca",
        "cf",
        "co",
        "corp",
        "dec",
        "dept",
        "dr",
        "ed",
        "eds",
        "eq",
        "esp",
        "est",
        "feb",
        "fig",
        "figs",
        "gen",
        "gov",
        "inc",
        "jan",
        "jr",
        "jul",
        "jun",
        "lt",
        "ltd",
        "mar",
        "messrs",
        "mr",
        "mrs",
        "ms",
        "mt",
        "no",
        "nos",
        "nov",
        "oct",
        "op",
        "p",
        "pp",
        "ph",
        "prof",
        "rep",
        "rev",
        "sec",
        "sen",
        "sep",
        "sept",
        "sgt",
        "sr",
        "st",
        "vol",
        "vols",
        "vs",
        "e.g",
        "i.e",
        "viz",
        "approx",
        "incl",
        "min",
        "max",
        "ref",
        "refs",
        "ch",
        "para",
    ]
)

_CANDIDATE = re.compile(r"[.!?…]+[\"'”’)\]*_]*\s+")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.){2,}")
_MAX_GLUED = 500
_OPENERS = "\"'“‘([*_"


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the `.` at `dot` closes an abbreviation rather than a sentence."""
    start = max(text.rfind(" ", 0, dot), text.rfind("\n", 0, dot), text.rfind("(", 0, dot)) + 1
    word = text[start : dot + 1].lstrip("\"'“‘[")
    if len(word) == 2 and word[0].isupper():  # a single initial: "J. Smith"
        return True
    if _INITIALISM.fullmatch(word):
        return True
    return word[:-1].lower() in ABBREVIATIONS


def _opens_sentence(text: str, pos: int) -> bool:
    n = len(text)
    while pos < n and text[pos] in _OPENERS:
        pos += 1
    if pos >= n:
        return False
    ch = text[pos]
    return ch.isupper() or ch.isdigit() or ch == "@"


def _inside_brackets_or_quotes(text: str, start: int, end: int) -> bool:
    """True when a parenthesis or quotation opened in text[start:end] is still open at `end`:
    a quoted example of several sentences stays one sentence with what frames it. A stray
    mark (an inch sign, "1)") must not glue a whole paragraph together, so this holds only for
    spans of a few lines."""
    if end - start > _MAX_GLUED:
        return False
    if text.count("(", start, end) > text.count(")", start, end):
        return True
    if text.count("“", start, end) > text.count("”", start, end):
        return True
    return text.count('"', start, end) % 2 == 1


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences in `text`, without surrounding whitespace."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in _CANDIDATE.finditer(text):
        nxt = m.end()
        if nxt >= n or not _opens_sentence(text, nxt):
            continue
        punct_end = m.start()
        while punct_end < n and text[punct_end] in ".!?…":
            punct_end += 1
        single_dot = text[m.start()] == "." and punct_end - m.start() == 1
        if single_dot and _is_abbreviation(text, m.start()):
            continue
        end = m.end()
        if _inside_brackets_or_quotes(text, start, end):
            continue
        spans.append((start, end))
        start = end
    spans.append((start, n))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out
