"""The quote check: each quoted passage of two or more words of the claim (not a Title Cased
name of a work, see `is_title`) is looked up on the page, exactly (case, whitespace, quote
style and dash style ignored; `...` splits it into parts found in order) or as a close match:
rapidfuzz `partial_ratio` ≥ 90 against a window of the page (quotes shorter than 20
characters must match exactly), in which every word of the quote that is not a stop word is
present (a word counts when `fuzz.ratio` ≥ `WORD_MATCH` with one of the window's:
"organisation" for "organization"; "long" is not "wrong": a close match that changes a word
is a misquote, not a typo).

Its outcome (`CheckResult.outcome`):
- found: every quote is on the page, exactly or closely;
- contradicted: a misquote — the page holds the same quotation with words changed (the
  closest window scores ≥ `MISQUOTE_MIN` and holds at least `MISQUOTE_SHARE` of the quote's
  content words, but not all), of `MISQUOTE_MIN_WORDS` words or more, and the person the claim
  names beside the quote is named on the page next to it (within `SPEAKER_REACH` sentences)
  or in its first line (an interview's title): the page quotes the same person otherwise;
- absent: otherwise — the page may paraphrase, the claim may not say who spoke. The judge is
  told and decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citecheck.checks.passages import (
    QUOTE_FUZZY_THRESHOLD,
    PageIndex,
    contradicted,
    find_exact,
    normalise_quote,
    quotes_in,
    tokens,
)
from citecheck.models import CheckOutcome, CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import wordset

QUOTE_MIN_FUZZY_CHARS = 20
WORD_MATCH = 80.0  # fuzz.ratio of a quote's word and the page's that count as the same word
MISQUOTE_MIN = 75.0  # partial_ratio of the page's closest window to a misquote of it
MISQUOTE_SHARE = 0.6  # of the quote's content words the misquoted passage keeps
MISQUOTE_MIN_WORDS = 4
SPEAKER_REACH = 3  # sentences either side of the quotation where its speaker is named

ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\.\s*\.\s*\.|…)\s*")


def _find_parts(quote: str, text: str) -> tuple[int, int] | None:
    """Each `...`-separated part of the quote, in order."""
    parts = [p for p in ELLIPSIS.split(quote) if p.strip()]
    if not parts:
        return None
    pos, first = 0, None
    for part in parts:
        span = find_exact(part, text[pos:])
        if span is None:
            return None
        first = pos + span[0] if first is None else first
        pos += span[1]
    assert first is not None
    return first, pos


def find_quote(quote: str, text: str, *, page: PageIndex | None = None) -> tuple[int, int, float] | None:
    """Where `quote` is on the page: (start, end, score); score 100 for an exact match.

    Exact first (see `_find_parts`), else the best window of up to three sentences by rapidfuzz
    `partial_ratio`; a close match needs ≥ `QUOTE_FUZZY_THRESHOLD`. None when neither.
    """
    span = _find_parts(quote, text)
    if span is not None:
        return span[0], span[1], 100.0
    best = _closest_quote(quote, text, page)
    if (
        best
        and best[2] >= QUOTE_FUZZY_THRESHOLD
        and len(quote.strip()) >= QUOTE_MIN_FUZZY_CHARS
        and not _changed_words(quote, text[best[0] : best[1]])
    ):
        return best
    return None


_CONTRACTION = re.compile(r"\b(?:wo(?=n['’]t)|ca(?=n['’]t))|n['’]t\b|['’](?:s|re|ll|ve|d|m)\b", re.IGNORECASE)
_SPELT_OUT = {"wo": "will", "ca": "can"}


def _words(text: str) -> list[str]:
    """The content words of `text` as `tokens` reads them, contractions spelt out ("didn’t" is
    "did not", "won’t" "will not": stop words all)."""

    def spell(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        return _SPELT_OUT.get(word) or (" not" if word[0] == "n" else "")

    return tokens(_CONTRACTION.sub(spell, text))


def _changed_words(quote: str, window: str) -> list[str]:
    """The quote's content words that `window` does not hold, even misspelt."""
    from rapidfuzz import fuzz, process  # only quotes need it: not imported at every start-up

    have = set(_words(window))
    wanted = dict.fromkeys(_words(quote))
    return [
        w
        for w in wanted
        if w not in have and process.extractOne(w, have, scorer=fuzz.ratio, score_cutoff=WORD_MATCH) is None
    ]


def _closest_quote(quote: str, text: str, page: PageIndex | None) -> tuple[int, int, float] | None:
    index = page or PageIndex(text)
    q = normalise_quote(ELLIPSIS.sub(" ", quote))
    if not q or not index.sentences:
        return None
    from rapidfuzz import fuzz  # only quotes need it: not imported at every start-up

    best: tuple[int, int, float] | None = None
    folded = index.folded
    # Only windows that start near a sentence sharing the quote's words can score high.
    starts = sorted({j for i in index.near_words(quote) for j in range(max(0, i - 2), i + 1)})
    for i in starts:
        j, window = i, folded[i]
        while len(window) < len(q) and j + 1 < len(folded) and j - i < 2:
            j += 1
            window += " " + folded[j]
        score = fuzz.partial_ratio(q, window, score_cutoff=best[2] if best else 0)
        if score and (best is None or score > best[2]):
            best = (index.sentences[i][0], index.sentences[j][1], score)
    return best


_MINOR_WORDS = wordset("a an the of to in on for and or at by with from as vs vs. v v.")


def is_title(quoted: str) -> bool:
    """Whether quoted text names a work rather than quotes words: "The Hunger Games: Part 2".

    Up to ten words, each one that is not a minor word starting with a capital or a digit.
    Titles of songs, films and articles are often put in quotes; the page need not repeat them.
    """
    words = [w.strip("\"'“”‘’:;,.!?()–—-") for w in quoted.split()]
    words = [w for w in words if w]
    major = [w for w in words[1:] if w.lower() not in _MINOR_WORDS] + words[:1]
    return 0 < len(words) <= 10 and all(w[0].isupper() or w[0].isdigit() for w in major)


def check_quotes(claim_text: str, page: PageIndex) -> CheckResult | None:
    """Every quoted passage of two or more words looked up on the page (None when there is none).

    Quoted titles and names (`is_title`) are left to the judge.
    """
    quotes = [q for q in quotes_in(claim_text) if len(q.split()) >= 2 and not is_title(q)]
    if not quotes:
        return None
    source_text = page.text
    evidence: list[str] = []
    details: list[str] = []
    missing: list[tuple[str, tuple[int, int, float] | None]] = []
    for q in quotes:
        hit = find_quote(q, source_text, page=page)
        if hit is None:
            missing.append((q, _closest_quote(q, source_text, page)))
            continue
        start, end, score = hit
        evidence.append(source_text[start:end])
        details.append(f"{q!r} " + ("verbatim" if score >= 100 else f"as a close match ({score:.0f}/100)"))
    for q, closest in missing:
        if closest is not None and (wrong := _misquoted(q, claim_text, closest, page)) is not None:
            at = claim_text.find(q) if claim_text.count(q) == 1 else -1
            change = _changed_words_span(q, wrong.said) if at >= 0 else None
            start, end, page_words = change or (0, 0, None)
            return contradicted(
                DecidedBy.quote,
                f"misquote: the page gives the passage as {wrong.said!r}, not {q!r} "
                f"(and names {wrong.speaker} beside it)",
                source_text[closest[0] : closest[1]],
                claim_span=(at + start, at + end) if change else None,
                claim_value=q[start:end] if change else None,
                page_value=page_words,
            )
    if missing:
        q, closest = missing[0]
        score = f" (closest match {closest[2]:.0f}/100)" if closest else ""
        return CheckResult(
            name=DecidedBy.quote,
            passed=False,
            outcome=CheckOutcome.absent,
            detail=f"the quote {q!r} does not occur on the page{score}",
            evidence=source_text[closest[0] : closest[1]] if closest else None,
        )
    return CheckResult(
        name=DecidedBy.quote, passed=True, detail="found " + "; ".join(details), evidence=" … ".join(evidence)
    )


# Capitalised words of a claim that name no one: pronouns, articles, titles, sentence openers.
_NOT_NAMES = wordset(
    "i he she it they we you his her their its the a an as in on at by for from with and but or "
    "dr dr. mr mr. mrs mrs. ms ms. prof prof. sir dame lord lady st st. according also then when "
    "this that these those there here said says told wrote added put"
)
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]+")


_SPEECH = (
    r"(?:said|says|told|tells|wrote|writes|added|adds|stated|noted|notes|explained|explains|"
    r"argued|argues|claimed|claims|put it|puts it|according to|asked|recalled|recalls|remarked|"
    r"commented|tweeted|announced|admitted|admits|warned|warns|insisted|declared|replied|reported|"
    r"concluded|concludes|concluding|found|finds|called it|described it as|testified|testifies|"
    r"describ(?:ed|es|ing) (?:\w+ )?as|saying)"
)
# The speech verb introduces the quote ("said that the drops “…", "put it: “…", "Fauci said,
# based on modeling in the U.S., “…", an earlier quotation between them) or follows it (“…,”
# says Smith; “…,” she said; “…” the team said, the comma inside the quotation).
_SPEECH_BEFORE = re.compile(rf"\b{_SPEECH}\b(?:[^.!?]|\.(?=\S)){{0,200}}$")
_SPEECH_AFTER = re.compile(
    rf"^[\"”’']?\s*(?:[,—–-]\s*[\"”’']?\s*(?:[\w.'’-]+\s+){{0,4}}?{_SPEECH}"
    rf"|(?:(?:he|she|they|we|I|[A-Z][\w.'’-]*)\s+){{0,3}}{_SPEECH})\b"
)
_COMMA_INSIDE = re.compile(rf"^[\"”’']\s*(?:[\w.'’-]+\s+){{0,4}}?{_SPEECH}\b")


def _attributed(claim_text: str, quote: str) -> bool:
    """Whether the claim says someone said the quote: a speech verb introduces it or follows it."""
    at = claim_text.find(quote)
    if at < 0:
        return False
    before, after = claim_text[: max(0, at - 1)], claim_text[at + len(quote) :]
    if _SPEECH_BEFORE.search(before) or _SPEECH_AFTER.match(after):
        return True
    # “…, as far as we know,” Velvet guitarist Slash said: the comma is the quotation's own
    return quote.rstrip().endswith(",") and _COMMA_INSIDE.match(after) is not None


def _speakers(claim_text: str, quote: str) -> list[str]:
    """The names the claim gives outside the quote ("Dr. Ada Example said …" → ["Ada",
    "Example"]); capitalised common words (pronouns, titles) are not names."""
    outside = claim_text.replace(quote, " ")
    return [w for w in _CAPITALISED.findall(outside) if w.lower() not in _NOT_NAMES]


@dataclass(frozen=True)
class Misquote:
    """The page's version of a quotation the claim gives otherwise."""

    speaker: str  # the claim's name for who said it, as the page names them beside it
    said: str  # the page's words, aligned with the claim's quote


def _misquoted(
    quote: str, claim_text: str, closest: tuple[int, int, float], page: PageIndex
) -> Misquote | None:
    """The page's version of the quote, when `closest` is the same quotation with words changed
    and the page names the person the claim quotes beside it (see the module docstring)."""
    start, end, score = closest
    words = list(dict.fromkeys(_words(quote)))
    if score < MISQUOTE_MIN or len(quote.split()) < MISQUOTE_MIN_WORDS or not words:
        return None
    window = page.text[start:end]
    changed = _changed_words(quote, window)
    if not changed or len(words) - len(changed) < MISQUOTE_SHARE * len(words):
        return None
    if not _attributed(claim_text, quote):
        return None  # a name in quotes, a phrase set off: not words the claim says someone said
    first, last = page.sentence_at(start), page.sentence_at(max(start, end - 1))
    lo, hi = max(0, first - SPEAKER_REACH), min(len(page.sentences) - 1, last + SPEAKER_REACH)
    near = set(tokens(page.text[page.sentences[lo][0] : page.sentences[hi][1]]))
    near |= set(tokens(page.sentence_text(0)))  # an interview's title names who speaks
    # "She also said …" names no one: whom the page should quote is not the check's to guess
    named = [w for w in dict.fromkeys(_speakers(claim_text, quote)) if set(tokens(w)) & near]
    if not named:
        return None
    return Misquote(" ".join(named), _aligned(quote, window))


def _aligned(quote: str, window: str) -> str:
    """The words of `window` that line up with `quote` (rapidfuzz's alignment, widened to
    whole words)."""
    from rapidfuzz import fuzz  # only quotes need it: not imported at every start-up

    at = fuzz.partial_ratio_alignment(quote.lower(), window.lower())
    start, end = at.dest_start, at.dest_end
    while start > 0 and window[start - 1].isalnum():
        start -= 1
    while end < len(window) and window[end].isalnum():
        end += 1
    return " ".join(window[start:end].split())


_WORD = re.compile(r"\S+")
_LEADING, _TRAILING = re.compile(r"^\W+"), re.compile(r"\W+$")
# What the page's words may not bring into a Markdown line as a replacement.
_MARKDOWN = re.compile(r"[`*_\[\]<>|\\]")


def _word_key(word: str) -> str:
    return _TRAILING.sub("", _LEADING.sub("", word.lower().replace("’", "'")))


def _changed_words_span(quote: str, said: str) -> tuple[int, int, str] | None:
    """The quote's words the page's version changes, as one span: (start, end) in the quote
    and the page's words for them ("long" → "wrong"), from the first changed word to the last
    (the words between are the page's too). Punctuation at the span's ends stays the quote's.
    None when the change cannot be told as one replacement: it adds or drops words at the
    quote's very ends (where the page's alignment may run past the quotation), or the page's
    words would bring Markdown in."""
    from difflib import SequenceMatcher

    words = list(_WORD.finditer(quote))
    theirs = said.split()
    ops = SequenceMatcher(
        None, [_word_key(w.group()) for w in words], [_word_key(w) for w in theirs], autojunk=False
    ).get_opcodes()
    while ops and ops[0][0] == "insert":  # the page's words before the quotation begins
        ops.pop(0)
    while ops and ops[-1][0] == "insert":  # … and after it ends
        ops.pop()
    changed = [op for op in ops if op[0] != "equal"]
    if not changed:
        return None
    first, last = changed[0], changed[-1]
    i1, j1, i2, j2 = first[1], first[3], last[2], last[4]
    # A word added or dropped is told with its neighbour: "will give" → "will never give".
    if first[0] != "replace":
        if i1 == 0 or j1 == 0:
            return None
        i1, j1 = i1 - 1, j1 - 1
    if last[0] != "replace":
        if i2 == len(words) or j2 == len(theirs):
            return None
        i2, j2 = i2 + 1, j2 + 1
    head, tail = words[i1], words[i2 - 1]
    leading = _LEADING.match(head.group())
    start = head.start() + (leading.end() if leading else 0)
    trailing = _TRAILING.search(tail.group())
    end = tail.end() - (len(trailing.group()) if trailing else 0)
    replacement = _TRAILING.sub("", _LEADING.sub("", " ".join(theirs[j1:j2])))
    if start >= end or not replacement or _MARKDOWN.search(replacement):
        return None
    return start, end, replacement


class QuoteCheck:
    """`check_quotes`, for claims of the quote kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.quote
    kinds = frozenset({ClaimKind.quote})
    decides_alone = True  # a quote found on the page may pass its claim with the judge off

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_quotes(claim_text, page)
