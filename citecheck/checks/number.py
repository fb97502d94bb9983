"""The number check: every figure of a statistic claim is looked up on the page (see
`citecheck.numbers` for the forms, rounding, hedges and pairs it understands).

Its outcome (`CheckResult.outcome`):
- found: every figure is on the page, in some form;
- contradicted: a figure is not on the page, and the claim's context on the page gives another
  value of the same unit for the same thing: a sentence holding `NUMBER_CONTEXT_SHARE` of the
  claim's content words (and at least `NUMBER_CONTEXT_MIN_WORDS`), every name and nearly every
  word that describes the claim's figure (`context.covered`), and a figure of the same thing
  (`context.same_thing`: "70% of contributors are paid" against "48% of contributors reported
  being paid") apart by more than rounding, hedges and ranges allow (`numbers.conflicts`).
  The claim's own other figures and confidence levels ("95% CI") are not candidates;
- absent: otherwise. A figure missing from the page is not a contradiction: the abstract may
  leave out a figure its study found, the page may give it in a way no parser reads. The judge
  is told (`detail`) and decides.

Measured with bench/numbers.py on WiCE dev and Check-COVID (docs/benchmarks.md): no supported
claim contradicted (of 153 a check ran on; absence had failed 28); 5 of 63 refuted Check-COVID
claims and 1 of 37 WiCE sub-claims with a wrong figure or date caught by their figure. The
rules of `context` carry the precision: before the figure-of-the-same-thing test, a context
share of 0.25 contradicted 2 supported claims, and before the names of `context.covered`,
"12% of developers use Python at work" was contradicted by "35 percent … use Rust at work";
with them, no setting tried (context share 0–0.4, coverage 0–0.75) contradicts a supported
claim, and a coverage of 0.75 catches 2 fewer.
"""

from __future__ import annotations

import math
import re
from functools import cache

from citecheck.checks.context import anchor, content_words, context_sentences, covered, same_thing
from citecheck.checks.passages import PageIndex, absent, contradicted, overlap, snippet, tokens
from citecheck.models import CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import (
    NumberMention,
    conflicts,
    find_number,
    format_value,
    numbers_in,
    statistics_in,
    supports,
)

# "95% CI", "95% confidence interval": the level of an interval, not a value of anything
_LEVEL_AFTER = re.compile(
    r"[ \u00a0]*(?:CI|HPDI|CrI|PI|UI|confidence|credible|prediction|uncertainty)\b", re.I
)

# "(95% CI 32.2-54.7%)", "[IQR 17·0–24·0]": an interval's bounds, not the value of anything
_IN_INTERVAL = re.compile(r"[(\[][^()\[\]]*\b(?:CI|HPDI|CrI|UI|PI|IQR|SD|SE|interval|range)\b[^()\[\]]*$")


# "for the past 4567 million years", "over the last 2,000 years", "in the first 10 days": the
# length of the period a statement is of, its scope (`checks.scope`), not a value it measures:
# two such statements over periods of other lengths say different things, neither contradicts
# the other (CLIMATE-FEVER: "For the past 4567 million years, the sun and the Earth's orbit have
# driven climate change cycles" against "for the past 2,000 years, caused a long-term … cooling").
_PERIOD_BEFORE = re.compile(
    r"\b(?:the|these|those)[ \u00a0]+(?:past|last|previous|next|coming|first|final)[ \u00a0]+"
    r"(?:(?:few|several|couple[ \u00a0]+of)[ \u00a0]+)?$",
    re.IGNORECASE,
)
_PERIOD_LOOKBACK = 40


def _period_length(text: str, m: NumberMention) -> bool:
    """Whether the figure at `m` is the length of the period its statement is of."""
    return _PERIOD_BEFORE.search(text, max(0, m.start - _PERIOD_LOOKBACK), m.start) is not None


NUMBER_CONTEXT_SHARE = 0.4  # of the claim's content words a context sentence holds
NUMBER_CONTEXT_MIN_WORDS = 2


def check_numbers(claim_text: str, page: PageIndex) -> CheckResult | None:
    """Every figure of the claim looked up on the page (None when the claim states none)."""
    wanted = statistics_in(claim_text)
    if not wanted:
        return None
    index = page
    near = index.numbers_near(wanted)
    claim_tokens = cache(lambda: set(tokens(claim_text)))  # counted when first needed, once
    found: list[tuple[NumberMention, NumberMention]] = []
    missing: list[NumberMention] = []
    for m in wanted:
        hits = find_number(m, near)
        if not hits:
            missing.append(m)
            continue
        # The hit in the sentence sharing most words with the claim (one hit: no need to count).
        if len(hits) == 1:
            best = hits[0]
        else:
            best = max(hits, key=lambda h: overlap(claim_tokens(), snippet(index, h.start)))
        found.append((m, best))
    if missing:
        conflict = _contradiction(claim_text, wanted, missing, index)
        if conflict is not None:
            m, said, sentence = conflict
            return contradicted(
                DecidedBy.number,
                f"the page gives {said.describe()!r} where the claim says {m.describe()!r}",
                sentence,
                claim_span=(m.start, m.end),
                claim_value=claim_text[m.start : m.end],
                page_value=said.describe() if _stands_in(said, m) else None,
            )
        nearest = _nearest_number(missing[0], index, claim_tokens())
        return absent(
            DecidedBy.number,
            _not_on_page(missing),
            claim_text,
            index,
            nearest.start if nearest else None,
        )
    names = ", ".join(repr(m.describe()) for m, _ in found)
    evidence = " … ".join(dict.fromkeys(snippet(index, h.start) for _, h in found))
    return CheckResult(
        name=DecidedBy.number, passed=True, detail=f"found {names} on the page", evidence=evidence
    )


def _stands_in(said: NumberMention, claim: NumberMention) -> bool:
    """Whether the page's figure can replace the claim's as it is written: the claim's hedge
    ("about 70%") stays, so the page's figure may carry none or the same one ("48%" or "about
    48%", not "more than 48%")."""
    return said.hedge in ("", claim.hedge)


def _not_on_page(figures: list[NumberMention]) -> str:
    """What the judge is told: "the figure '14 million' (14,000,000) does not occur on the page"."""

    def name(m: NumberMention) -> str:
        value = format_value(m)
        return repr(m.describe()) + ("" if value == m.describe() else f" ({value})")

    if len(figures) == 1:
        return f"the figure {name(figures[0])} does not occur on the page"
    return f"the figures {', '.join(name(m) for m in figures)} do not occur on the page"


def _contradiction(
    claim_text: str, wanted: list[NumberMention], missing: list[NumberMention], index: PageIndex
) -> tuple[NumberMention, NumberMention, str] | None:
    """A figure of the claim missing from the page, the page's figure for the same thing with
    another value, and the sentence that gives it (None: the page gives none)."""
    missing = [m for m in missing if not _period_length(claim_text, m)]
    sentences = context_sentences(
        set(content_words(claim_text)), index, NUMBER_CONTEXT_SHARE, NUMBER_CONTEXT_MIN_WORDS
    )
    if not sentences or not missing:
        return None
    anchors = [anchor(claim_text, m.start, m.end) for m in missing]
    for i in sentences:
        sentence = index.sentence_text(i)
        # Read in the sentence alone: few sentences are context, and the page's other
        # figures need not be read at all.
        for p in numbers_in(sentence):
            if (
                not p.is_statistic
                or _LEVEL_AFTER.match(sentence, p.end)
                or _IN_INTERVAL.search(sentence, 0, p.start)
                or _period_length(sentence, p)
            ):
                continue
            if any(supports(m, p) for m in wanted):
                continue  # the claim's own figure ("32 confirmed and 20 probable": the 20)
            for m, claim_anchor in zip(missing, anchors, strict=True):
                if (
                    conflicts(m, p)
                    and covered(claim_anchor, index.token_sets[i])
                    and same_thing(claim_anchor, anchor(sentence, p.start, p.end))
                ):
                    return m, p, sentence
    return None


def _nearest_number(m: NumberMention, index: PageIndex, claim_tokens: set[str]) -> NumberMention | None:
    """The page figure most likely meant: same kind of unit, in a sentence sharing words, close in value."""
    candidates = [
        p for p in index.numbers if p.is_statistic and (p.unit == m.unit or not m.unit or not p.unit)
    ]
    if not candidates:
        return None

    shared: dict[int, int] = {}  # by sentence: a page's figures share sentences (a table, a list)

    def key(p: NumberMention) -> tuple[int, float]:
        ratio = abs(math.log((abs(p.value) + 1e-9) / (abs(m.value) + 1e-9)))
        i = index.sentence_at(p.start)
        if i not in shared:
            shared[i] = overlap(claim_tokens, index.sentence_text(i))
        return (-shared[i], ratio)

    return min(candidates, key=key)


class NumberCheck:
    """`check_numbers`, for claims of the statistic kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.number
    kinds = frozenset({ClaimKind.statistic})
    decides_alone = True  # the claim's figures found on the page may pass it with the judge off

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_numbers(claim_text, page)
