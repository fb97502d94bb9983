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
        "c",  # circa: "dates from c. 1491–1510"
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
        "ste",  # Sainte: "Sault Ste. Marie"
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

# A run of stops, closing marks, whitespace. Tried only where a run of stops begins (the
# lookbehind) and without giving characters back (possessive): every start inside a run ends
# the same way as the run's first, so a long run of "." without a space after it is read once,
# not once per character (which was quadratic). The lookbehind comes after the first stop: a
# pattern that starts with a character class lets `re` skip ahead to where it can match, one
# that starts with a lookbehind is tried at every character (a third slower on prose).
# A numbered citation right after the stop ends the sentence with it: "… in 2018.[4] It reached …".
_CANDIDATE = re.compile(
    r"[.!?…](?<![.!?…][.!?…])[.!?…]*+[\"'”’)\]*_]*+(?:\[\d{1,3}(?:[,–-]\s?\d{1,3})*\])*+\s+"
)
_MAX_GLUED = 500
_OPENERS = "\"'“‘([*_"
_LEAD = re.compile(r"[\"'“‘\[]*")  # stripped from a word's start
_PAIRS = re.compile(r"(?:[A-Za-z]\.)*")
_LONGEST_ABBREVIATION = max(map(len, ABBREVIATIONS))


class _Words:
    """Whether a sentence's `.` closes an abbreviation rather than the sentence, for the dots of
    one text asked in increasing order. The word before the dot (from the last space, newline
    or "(", its leading quotes and brackets stripped) is one when it is a single capital
    initial ("J. Smith"), an initialism ("U.S.", "a.m.") or in `ABBREVIATIONS`.

    Linear in the text overall: each dot's word start is found from the last one's rather
    than by searching back to the start of the text, and a word is never copied whole (text
    whose only whitespace is tabs or other spaces is one long "word", and both made it
    quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanned = 0  # the word starts before here are known:
        self.sep = -1  # the last " ", newline or "(" before `scanned`
        self.start = -1  # the word start of the last dot asked about, and for it:
        self.stripped = 0  # where the word starts without its leading quotes and brackets
        self.pairs_end = 0  # where the letter-dot pairs from `stripped` end

    def is_abbreviation(self, dot: int) -> bool:
        text = self.text
        lo = self.scanned
        found = max(text.rfind(" ", lo, dot), text.rfind("\n", lo, dot), text.rfind("(", lo, dot))
        if found >= 0:
            self.sep = found
        self.scanned = max(lo, dot)
        if self.sep + 1 != self.start:
            self.start = self.sep + 1
            lead = _LEAD.match(text, self.start)
            self.stripped = lead.end() if lead else self.start
            pairs = _PAIRS.match(text, self.stripped)
            self.pairs_end = pairs.end() if pairs else self.stripped
        begin = self.stripped
        length = dot + 1 - begin  # of the word, stripped
        if length == 2 and text[begin].isupper():  # a single initial: "J. Smith"
            return True
        if length >= 4 and length % 2 == 0 and dot + 1 <= self.pairs_end:  # "U.S.", "a.m."
            # … but one that ends a sentence: "… in Washington D.C. This year …"
            return _OPENING_WORD.match(self.text, dot + 1) is None
        return length - 1 <= _LONGEST_ABBREVIATION and text[begin:dot].lower() in ABBREVIATIONS


# A word that opens a sentence and no name: after an initialism ("U.S.", "D.C.") it starts the
# next sentence ("… in Washington D.C. This …"), where "U.S. Army" goes on.
_OPENING_WORD = re.compile(
    r"\s+(?:The|This|That|These|Those|It|Its|We|Our|They|Their|He|She|There|In|On|At|But|However|"
    r"As|After|Before|Since|When|While|If|For|To|With|From|By|A|An)\s"
)
_CAMEL_NAME = re.compile(r"[a-z]{1,3}[A-Z][A-Za-z]*\b")


def _opens_sentence(text: str, pos: int) -> bool:
    n = len(text)
    while pos < n and text[pos] in _OPENERS:
        pos += 1
    if pos >= n:
        return False
    ch = text[pos]
    if ch.isupper() or ch.isdigit() or ch == "@":
        return True
    # a name written in camel case opens a sentence too: "ePoxy is a replacement …", "iOS users …"
    return ch.islower() and _CAMEL_NAME.match(text, pos) is not None


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


_TRAILING_NOTE = 120  # characters: a longer parenthesis after a full stop is no source note
_END_NOTE_WORDS = 3  # words: a longer parenthesis closing a paragraph is a remark, not a source


def _closes_trailing_note(text: str, pos: int) -> int:
    """Where a source note that follows a sentence's full stop ends ("… in 2020. (source) The
    team …", "… renewal. (Vitally master list) An exec sponsor …"): after its ")" when what
    follows opens a sentence or ends the text; -1 when `pos` starts no such note."""
    close = text.find(")", pos, pos + _TRAILING_NOTE)
    if close < 0 or text.find("(", pos + 1, close) >= 0 or text[close - 1] in ".!?…":
        return -1  # none, nested, or a sentence of its own: "(See below.) Then …"
    after = close + 1
    while after < len(text) and text[after].isspace():
        after += 1
    if after >= len(text):
        # a source note that ends the text: "… in some benchmarking tests! ([PR](…))"; a longer
        # one is a remark of its own ("Verify performance via testing. (Scale tested to 50k …)")
        return close + 1 if len(text[pos + 1 : close].split()) <= _END_NOTE_WORDS else -1
    return close + 1 if after > close + 1 and _opens_sentence(text, after) else -1


# "… the issue. - Total time to resolution …": a dash after a full stop opening the next
# sentence. Not after a closing quote ('"…" - Jane Doe' credits the quotation), a "?" or "!"
# (a reading list's "[Is UTC enough?](…) - what it covers"), nor before a "(Source, 2011)".
_DASH_OPENER = re.compile(r"[-–]\s+(?=[A-Z0-9])")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences in `text`, without surrounding whitespace. A
    parenthesis right after a full stop that is no sentence of its own ("… in 2020. (source) The
    team …", "… renewal. (Vitally master list) An exec …") is a note on the sentence before it
    and ends with it."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    words = _Words(text)
    for m in _CANDIDATE.finditer(text):
        if m.start() < start:
            continue  # inside a note already given to the sentence before it
        nxt = m.end()
        end = m.end()
        note = _closes_trailing_note(text, nxt) if nxt < n and text[nxt] == "(" else -1
        dash = _DASH_OPENER.match(text, nxt) if nxt < n and text[nxt] in "-–" else None
        if dash is not None and text[m.start() : nxt].rstrip() != ".":
            dash = None
        if note >= 0:
            end = note
        elif dash is None and (nxt >= n or not _opens_sentence(text, nxt)):
            continue
        punct_end = m.start()
        while punct_end < n and text[punct_end] in ".!?…":
            punct_end += 1
        single_dot = text[m.start()] == "." and punct_end - m.start() == 1
        if single_dot and words.is_abbreviation(m.start()):
            continue
        if _inside_brackets_or_quotes(text, start, m.end()):
            continue
        spans.append((start, end))
        start = end if dash is None else dash.end()  # the joining dash belongs to neither
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
