"""The quote check: each quoted passage of two or more words of the claim (not a Title Cased
name of a work, see `is_title`) must be on the page exactly (case, whitespace, quote style
and dash style ignored; `...` splits it into parts found in order) or as a close match:
rapidfuzz `partial_ratio` ≥ 90 against a window of the page (quotes shorter than 20
characters must match exactly).
"""

from __future__ import annotations

import re

from citecheck.checks.passages import (
    QUOTE_FUZZY_THRESHOLD,
    PageIndex,
    find_exact,
    normalise_quote,
    quotes_in,
)
from citecheck.models import CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import wordset

QUOTE_MIN_FUZZY_CHARS = 20

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
    if best and best[2] >= QUOTE_FUZZY_THRESHOLD and len(quote.strip()) >= QUOTE_MIN_FUZZY_CHARS:
        return best
    return None


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


_MINOR_WORDS = wordset("a an the of to in on for and or at by with from as vs")


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
    """Every quoted passage of two or more words must be on the page (None when there is none).

    Quoted titles and names (`is_title`) are left to the judge.
    """
    quotes = [q for q in quotes_in(claim_text) if len(q.split()) >= 2 and not is_title(q)]
    if not quotes:
        return None
    source_text = page.text
    evidence: list[str] = []
    details: list[str] = []
    for q in quotes:
        hit = find_quote(q, source_text, page=page)
        if hit is None:
            closest = _closest_quote(q, source_text, page)
            near = source_text[closest[0] : closest[1]] if closest else None
            score = f" (closest match {closest[2]:.0f}/100)" if closest else ""
            return CheckResult(
                name=DecidedBy.quote,
                passed=False,
                detail=f"the quote {q!r} is not on the page{score}",
                evidence=near,
            )
        start, end, score = hit
        evidence.append(source_text[start:end])
        details.append(f"{q!r} " + ("verbatim" if score >= 100 else f"as a close match ({score:.0f}/100)"))
    return CheckResult(
        name=DecidedBy.quote, passed=True, detail="found " + "; ".join(details), evidence=" … ".join(evidence)
    )


class QuoteCheck:
    """`check_quotes`, for claims of the quote kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.quote
    kinds = frozenset({ClaimKind.quote})
    decides_alone = True  # a quote found on the page may pass its claim with the judge off

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_quotes(claim_text, page)
