"""The number check: every figure of a statistic claim must be stated on the page (see
`citecheck.numbers` for the forms, rounding and hedges it understands).
"""

from __future__ import annotations

import math
from functools import cache

from citecheck.checks.passages import PageIndex, missing, overlap, snippet, tokens
from citecheck.models import CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import NumberMention, find_number, format_value, statistics_in


def check_numbers(claim_text: str, page: PageIndex) -> CheckResult | None:
    """Every figure of the claim must be on the page (None when the claim states none)."""
    wanted = statistics_in(claim_text)
    if not wanted:
        return None
    index = page
    near = index.numbers_near(wanted)
    claim_tokens = cache(lambda: set(tokens(claim_text)))  # counted when first needed, once
    found: list[tuple[NumberMention, NumberMention]] = []
    for m in wanted:
        hits = find_number(m, near)
        if not hits:
            nearest = _nearest_number(m, index, claim_tokens())
            return missing(
                DecidedBy.number,
                f"the claim's figure {m.describe()!r} ({format_value(m)}) is not on the page",
                claim_text,
                index,
                (nearest.describe(), nearest.start) if nearest else None,
            )
        # The hit in the sentence sharing most words with the claim (one hit: no need to count).
        if len(hits) == 1:
            best = hits[0]
        else:
            best = max(hits, key=lambda h: overlap(claim_tokens(), snippet(index, h.start)))
        found.append((m, best))
    names = ", ".join(repr(m.describe()) for m, _ in found)
    evidence = " … ".join(dict.fromkeys(snippet(index, h.start) for _, h in found))
    return CheckResult(
        name=DecidedBy.number, passed=True, detail=f"found {names} on the page", evidence=evidence
    )


def _nearest_number(m: NumberMention, index: PageIndex, claim_tokens: set[str]) -> NumberMention | None:
    """The page figure most likely meant: same kind of unit, in a sentence sharing words, close in value."""
    candidates = [
        p for p in index.numbers if p.is_statistic and (p.unit == m.unit or not m.unit or not p.unit)
    ]
    if not candidates:
        return None

    def key(p: NumberMention) -> tuple[int, float]:
        ratio = abs(math.log((abs(p.value) + 1e-9) / (abs(m.value) + 1e-9)))
        return (-overlap(claim_tokens, snippet(index, p.start)), ratio)

    return min(candidates, key=key)


class NumberCheck:
    """`check_numbers`, for claims of the statistic kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.number
    kinds = frozenset({ClaimKind.statistic})
    decides_alone = True  # the claim's figures found on the page may pass it with the judge off

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_numbers(claim_text, page)
