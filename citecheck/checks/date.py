"""The date check: each year or decade of a temporal claim's dates must be on the page; a full
date or month-year is looked for at its precision (in any common form) and, when only its
year is there, the check passes saying so (see `check_dates`).
"""

from __future__ import annotations

import re

from citecheck.checks.passages import PageIndex, date_matches, missing, overlap, snippet, tokens
from citecheck.models import CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import MONTHS, DateMention, dates_in


def _find_date(claim: DateMention, index: PageIndex) -> DateMention | None:
    hit = next((p for p in index.dates if date_matches(claim, p)), None)
    if hit or claim.precision not in ("day", "month"):
        return hit
    # "On May 19 ... 2016" — month(-day) and year in one sentence
    year_sentences = {index.sentence_at(p.start) for p in index.dates if p.year == claim.year}
    for p in index.dates:
        same = p.month == claim.month and (claim.day is None or p.day == claim.day)
        if same and index.sentence_at(p.start) in year_sentences:
            return p
    return None


def _names_month(month: int | None, index: PageIndex) -> bool:
    """Whether the page names `month` anywhere, dated or not ("in May", "By December", "Nov. 2")."""
    if month is None or any(p.month == month for p in index.dates):
        return True
    names = "|".join(name for name, number in MONTHS.items() if number == month)
    return re.search(rf"\b(?:{names})\b", index.text, re.IGNORECASE) is not None


def check_dates(claim_text: str, page: PageIndex, *, strict: bool = False) -> CheckResult | None:
    """Every year of the claim's dates must be on the page (None when the claim has no date).

    A full date or month-year is looked for at its own precision first; when only its year
    is on the page the check still passes and says so: pages write "on Monday", "last
    month" or their own publication date, so a missing day or month is left to the judge —
    unless the page never names the claim's month at all, with or without a year ("In March
    2006" against a page that only says "June 2006"): on WiCE dev that catches 2 more wrong
    dates of 35 and fails no more supported claims (2 of 62), where requiring the month
    whenever the page dates something in that year fails 8 of 62 (pages write "on April 9th").
    A month-day without a year ("on 20 July") is left to the judge for the same reason, unless
    the page never names its month (one more catch of 35 on WiCE dev, no more false failures).
    The page's own date (`PageIndex.date`, from its metadata, e.g. "2019-05-01") counts as
    written on the page: "a 2019 survey" is supported by a page dated 2019. `strict` fails
    a missing day or month too (on WiCE dev it catches more wrong dates but fails 21 % of
    supported dated claims instead of 3 %; see bench/numbers.py).
    """
    wanted = dates_in(claim_text)
    if not wanted:
        return None
    index, source_date = page, page.date
    meta = dates_in(source_date) if source_date else []
    claim_tokens = set(tokens(claim_text))
    evidence: list[str] = []
    found: list[str] = []
    for d in wanted:
        dated = next((m for m in meta if date_matches(d, m)), None)
        if dated is not None:
            found.append(f"{d.text!r} (the page's date)")
            evidence.append(f"page dated {source_date}")
            continue
        hit = _find_date(d, index)
        if hit is None and d.precision in ("day", "month") and not strict:
            year_only = DateMention(d.start, d.end, d.text, year=d.year)
            if any(date_matches(year_only, m) for m in meta):
                found.append(f"the year of {d.text!r} (the page's date, not the {d.precision} itself)")
                evidence.append(f"page dated {source_date}")
                continue
            hit = _find_date(year_only, index)
            if hit is not None and _names_month(d.month, index):
                found.append(f"the year of {d.text!r} (not the {d.precision} itself)")
                evidence.append(snippet(index, hit.start))
                continue
            if hit is not None:
                return missing(
                    DecidedBy.date,
                    f"the date {d.text!r} is not on the page: it has the year but never names the month",
                    claim_text,
                    index,
                    (hit.text, hit.start),
                )
        elif hit is None and d.precision == "month-day" and not strict and _names_month(d.month, index):
            found.append(f"nothing for {d.text!r} (no year to look for)")
            continue
        if hit is None:
            same_year = [p for p in index.dates if p.year == d.year] or index.dates
            near = max(same_year, key=lambda p: overlap(claim_tokens, snippet(index, p.start)), default=None)
            return missing(
                DecidedBy.date,
                f"the date {d.text!r} is not on the page",
                claim_text,
                index,
                (near.text, near.start) if near else None,
            )
        found.append(repr(d.text))
        evidence.append(snippet(index, hit.start))
    return CheckResult(
        name=DecidedBy.date,
        passed=True,
        detail="found " + ", ".join(found) + " on the page",
        evidence=" … ".join(dict.fromkeys(evidence)) or None,
    )


class DateCheck:
    """`check_dates`, for claims of the temporal kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.date
    kinds = frozenset({ClaimKind.temporal})
    # A year found on the page says little of what the claim says happened then: the judge decides.
    decides_alone = False

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_dates(claim_text, page)
