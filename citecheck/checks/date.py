"""The date check: each year or decade of a temporal claim's dates is looked up on the page; a
full date or month-year at its precision (in any common form: `11 June 2003` = `June 11, 2003`
= `2003-06-11`, a day of a range `11–13 June 2003`) and, when only its year is there, the
check still finds it, saying so (see `check_dates`).

Its outcome (`CheckResult.outcome`):
- found: every date is on the page (or is the page's own date);
- contradicted: a date is not on the page (or only its year is), and the claim's context on
  the page dates the same event otherwise: "died on 16 May 2001" against "Brian Pendleton,
  musician, born April 13 1944; died May 25 2001". The sentence holds `DATE_CONTEXT_SHARE` of
  the claim's content words (at least `DATE_CONTEXT_MIN_WORDS`); its date is none of the
  claim's, differs at the precision both give (of the same year, when the claim's year is on
  the page), dates something ("in 2019", not "coronavirus disease 2019" nor "Smith et al.
  (2012) stated"), and its clause shares a word with the claim's (`context.same_event`:
  "died", not "born"); no span of years in the sentence holds the claim's year ("from 2001 to
  2008" holds 2005), nor a season or fiscal year of either side ("the 1904–05 season" holds
  1905, "in fiscal 2020" 2019); both bound what they date alike (`scope.date_bound`: "since
  1970" is no point of 2010, "by 2050" no point of 2019, "in 2017" no end of "between 1991 and
  2011", a decade a period of its own); and no date of the same clause dates the event as the
  claim does ("current (September 2017) plans call for … to relocate … in fiscal 2020").
  A year inside a name is no date the claim states (`scope.in_name`: "The 2021 Annual
  Conference of the ACL");
- absent: otherwise ("appointed in 2018" against a page that never dates the appointment). The
  judge is told and decides.

Measured with bench/numbers.py: no supported WiCE or Check-COVID claim contradicted; 3 of the
37 WiCE sub-claims with a wrong date or figure caught by their date (absence had caught 25, and
failed supported claims). A context share of 0.4 with 2 words catches 3 more, two of them by
another event's date ("established in 1889" against "acquired in 1986"); before the same-event
and same-year rules, such a share also contradicted "premiered on May 19, 2016" with "the 1970
premiere" of another film.

Page furniture is no evidence (`passages.stamp_of`): a date in a retrieval, archive or access
stamp, a copyright line or a "last updated" stamp neither finds nor contradicts a claim's
date; a byline ("Published 12 June 2024") is the page's own date, as its metadata date is: it
may find a claim's date, never contradict one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citecheck.checks.context import clause_words, content_words, context_sentences, same_event
from citecheck.checks.passages import (
    STAMP_BYLINE,
    PageIndex,
    absent,
    contradicted,
    date_matches,
    overlap,
    snippet,
    tokens,
)
from citecheck.checks.scope import compatible_bounds, date_bound, date_periods, in_name, year_spans
from citecheck.models import CheckResult, ClaimKind, DecidedBy
from citecheck.numbers import MONTHS, DateMention, dates_in

DATE_CONTEXT_SHARE = 0.5  # of the claim's content words a context sentence holds
DATE_CONTEXT_MIN_WORDS = 3


# What stands before a year that dates something ("in 2019", "by 2020", "(2019)", "2019, when"),
# rather than names it ("coronavirus disease 2019", "World Twenty20 2016", "Expo 2020").
_YEAR_AS_DATE = re.compile(
    r"(?:\b(?:in|on|at|by|since|from|until|till|to|through|of|during|before|after|around|about|circa|"
    r"early|late|mid|the|a|an|and|or|between|year)[ \u00a0]+|[(\[,–—-][ \u00a0]*)$",
    re.IGNORECASE,
)


# After a year in brackets, a reporting verb: the year is a reference's ("(2012) stated that")
_CITED_YEAR = re.compile(
    r"[a-z]?\)[ \u00a0]+(?:stated|states|found|finds|reported|reports|showed|shows|argued|argues|noted|notes|"
    r"suggested|suggests|concluded|concludes|estimated|estimates|observed|observes|wrote|writes)\b"
)


def _dates_something(text: str, date: DateMention, sentence_start: int) -> bool:
    """Whether a page's date dates something: a month's, or a year that starts its sentence or
    follows what introduces a date (`_YEAR_AS_DATE`), and is no part of a name
    (`scope.in_name`: "the 2019 World Cup")."""
    if date.month is not None:
        return True
    if in_name(text, date) or (
        _CITED_YEAR.match(text, date.end) and text[date.start - 1 : date.start] == "("
    ):
        return False  # "the 2019 World Cup"; "Smith et al. (2012) stated that …": a reference's year
    if date.start <= sentence_start:
        return True
    return _YEAR_AS_DATE.search(text, max(sentence_start, date.start - 12), date.start) is not None


def _reported(index: PageIndex) -> list[DateMention]:
    """The page's dates that may state a claim's: not its furniture (bylines count)."""
    return [d for d, stamp in zip(index.dates, index.stamps, strict=True) if stamp in ("", STAMP_BYLINE)]


def _find_date(claim: DateMention, index: PageIndex, dates: Sequence[DateMention]) -> DateMention | None:
    hit = next((p for p in dates if date_matches(claim, p)), None)
    if hit or claim.precision not in ("day", "month"):
        return hit
    # "On May 19 ... 2016" — month(-day) and year in one sentence
    year_sentences = {index.sentence_at(p.start) for p in dates if p.year == claim.year}
    for p in dates:
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
    """Every date of the claim looked up on the page (None when the claim has no date).

    A full date or month-year is looked for at its own precision first; when only its year
    is on the page the check still finds it and says so: pages write "on Monday", "last
    month" or their own publication date, so a missing day or month is left to the judge —
    unless the page never names the claim's month at all, with or without a year ("In March
    2006" against a page that only says "June 2006"): then the date is absent, and the judge is
    told the page has the year but never the month (requiring the month whenever the page dates
    something in that year would miss pages that write "on April 9th"). A date found at its
    year only may still be contradicted by a date of that year for the same event. A month-day
    without a year ("on 20 July") is found when the page names its month. The page's own date
    (`PageIndex.date`, from its metadata, e.g. "2019-05-01") and its byline count as written on
    the page: "a 2019 survey" is found on a page dated 2019. `strict` reports a missing day or
    month as absent too (see bench/numbers.py).
    """
    # a year inside a name ("The 2021 Annual Conference of the ACL") is no date the claim states
    wanted = [d for d in dates_in(claim_text) if not in_name(claim_text, d)]
    if not wanted:
        return None
    periods = date_periods(claim_text, wanted)
    index, source_date = page, page.date
    meta = dates_in(source_date) if source_date else []
    reported = _reported(index)
    page_periods = date_periods(index.text, reported) if reported else {}
    claim_tokens = set(tokens(claim_text))
    evidence: list[str] = []
    found: list[str] = []
    missing: list[tuple[DateMention, str, int | None]] = []  # date, why, where the page is nearest
    partial: list[DateMention] = []  # found at a coarser precision only
    for i, d in enumerate(wanted):
        dated = next((m for m in meta if date_matches(d, m)), None)
        if dated is not None:
            found.append(f"{d.text!r} (the page's date)")
            evidence.append(f"page dated {source_date}")
            continue
        if i in periods and (within := _in_period(periods[i], reported)) is not None:
            # "the 1904–05 season" against "in 1904": a year of the season states it
            found.append(f"{d.text!r} (a period holding {within.text!r})")
            evidence.append(snippet(index, within.start))
            continue
        if d.precision == "year" and (season := _holding(d, reported, page_periods)) is not None:
            # "in 2019" against "in fiscal 2020" or "for the 2018-19 season"
            found.append(f"{d.text!r} (the page's season or fiscal year of {season.text!r} holds it)")
            evidence.append(snippet(index, season.start))
            continue
        hit = _find_date(d, index, reported)
        if hit is None and d.precision in ("day", "month") and not strict:
            year_only = DateMention(d.start, d.end, d.text, year=d.year)
            if any(date_matches(year_only, m) for m in meta):
                found.append(f"the year of {d.text!r} (the page's date, not the {d.precision} itself)")
                evidence.append(f"page dated {source_date}")
                continue
            hit = _find_date(year_only, index, reported)
            if hit is not None and _names_month(d.month, index):
                found.append(f"the year of {d.text!r} (not the {d.precision} itself)")
                evidence.append(snippet(index, hit.start))
                partial.append(d)  # its day or month may still be contradicted
                continue
            if hit is not None:
                why = f"the date {d.text!r} does not occur on the page: it has the year, never the month"
                missing.append((d, why, hit.start))
                continue
        elif hit is None and d.precision == "month-day" and not strict and _names_month(d.month, index):
            found.append(f"nothing for {d.text!r} (no year to look for)")
            continue
        if hit is None:
            missing.append((d, _not_on_page(d, index), _nearest(d, index, reported, claim_tokens)))
            continue
        found.append(repr(d.text))
        evidence.append(snippet(index, hit.start))
    for d, year_found in [*((d, False) for d, _, _ in missing), *((d, True) for d in partial)]:
        allowed = periods.get(next(i for i, w in enumerate(wanted) if w is d), frozenset())
        conflict = _contradiction(d, claim_text, wanted, index, same_year=year_found, allowed=allowed)
        if conflict is not None:
            said, sentence = conflict
            detail = f"the page gives {said.text!r} where the claim says {d.text!r}"
            return contradicted(
                DecidedBy.date,
                detail,
                sentence,
                claim_span=(d.start, d.end),
                claim_value=claim_text[d.start : d.end],
                page_value=_standing_in(said, d),
            )
    if missing:
        _, why, near = missing[0]
        return absent(DecidedBy.date, why, claim_text, index, near)
    return CheckResult(
        name=DecidedBy.date,
        passed=True,
        detail="found " + ", ".join(found) + " on the page",
        evidence=" … ".join(dict.fromkeys(evidence)) or None,
    )


def _standing_in(said: DateMention, claim: DateMention) -> str | None:
    """The page's date as it can replace the claim's where it is written (None: it cannot):
    as the page writes it at the claim's precision ("May 25 2001" for "16 May 2001"), or its
    year alone for a claim's year ("in 2017" against "July 13, 2018": "2018"). A page's date
    that lacks a part the claim gives ("May 25", its year elsewhere in the sentence) cannot."""
    if claim.precision == "year" and said.year is not None and not said.decade:
        return str(said.year)
    return said.text if said.precision == claim.precision else None


def _holding(
    d: DateMention, dates: Sequence[DateMention], periods: dict[int, frozenset[int]]
) -> DateMention | None:
    """A page's season or fiscal year (`scope.date_periods`) that holds the year `d`."""
    return next((dates[k] for k, years in periods.items() if d.year in years), None)


def _in_period(years: frozenset[int], dates: Sequence[DateMention]) -> DateMention | None:
    """A page date of a year within a season or a fiscal year (`scope.date_periods`)."""
    return next((p for p in dates if p.year in years and not p.decade), None)


def _not_on_page(d: DateMention, index: PageIndex) -> str:
    """What the judge is told: "the date '2018' does not occur on the page" (and in which
    stamp it does, if in one)."""
    stamps = [s for p, s in zip(index.dates, index.stamps, strict=True) if s and date_matches(d, p)]
    where = f" (only in a {stamps[0]}, which is not evidence)" if stamps else ""
    return f"the date {d.text!r} does not occur on the page{where}"


def _nearest(
    d: DateMention, index: PageIndex, dates: Sequence[DateMention], claim_tokens: set[str]
) -> int | None:
    """Where the page's date most likely meant is: same year if any, in the sentence sharing most words."""
    same_year = [p for p in dates if p.year == d.year] or list(dates)
    near = max(same_year, key=lambda p: overlap(claim_tokens, snippet(index, p.start)), default=None)
    return near.start if near else None


def _conflicts(claim: DateMention, page: DateMention) -> bool:
    """Whether the page's date differs from the claim's at the precision both give."""
    if claim.year is None:  # a month-day
        return (
            page.month is not None
            and page.day is not None
            and (page.month, page.day) != (claim.month, claim.day)
        )
    if page.year is None:
        return False
    if claim.decade or page.decade:
        decade = claim if claim.decade else page
        other = page if claim.decade else claim
        assert decade.year is not None and other.year is not None
        return not decade.year <= other.year < decade.year + _decade_years(decade)
    if page.year != claim.year:
        return True
    if claim.month is None or page.month is None or claim.month != page.month:
        return claim.month is not None and page.month is not None
    return claim.day is not None and page.day is not None and claim.day != page.day


def _decade_years(d: DateMention) -> int:
    """How many years a decade may be: "the 1900s" and "the 2000s" are the century as often."""
    return 100 if d.year is not None and d.year % 100 == 0 else 10


def _bound(text: str, d: DateMention, lo: int = 0) -> tuple[str, int, int]:
    """The date's `scope.date_bound` and its first and last year; a decade is a period of its
    own ("papers published in 2017" is not contradicted by "papers … during the 1970s")."""
    year = d.year or 0
    if d.decade:
        return "span", year, year + _decade_years(d) - 1
    return date_bound(text, d, lo), year, year


_RANK = {"month-day": 0, "year": 1, "decade": 0, "month": 2, "day": 3}
_BREAK = re.compile(r"[;:!?]|,(?! [0-9]{4}\b)|\.(?:\s|$)|\s[-–—]\s")


def _same_clause(text: str, a: DateMention, b: DateMention) -> bool:
    """Whether two dates of a page stand in one clause (no comma, semicolon or dash between)."""
    first, second = (a, b) if a.start <= b.start else (b, a)
    return first.end <= second.start and _BREAK.search(text, first.end, second.start) is None


def _states(claim: DateMention, page: DateMention) -> bool:
    """Whether a date of the claim states the page's date: the same, at the page's precision
    ("1870" states "1870", not "18 April 1870")."""
    return date_matches(claim, page) and _RANK[claim.precision] >= _RANK[page.precision]


def _contradiction(
    d: DateMention,
    claim_text: str,
    claim_dates: Sequence[DateMention],
    index: PageIndex,
    *,
    same_year: bool,
    allowed: frozenset[int] = frozenset(),
) -> tuple[DateMention, str] | None:
    """The date the claim's context on the page gives for what `d` dates, and its sentence
    (None: it gives none; see the module docstring). `same_year`: the page has `d`'s year, so
    only a date of that year with another month or day contradicts it (another year is
    likelier another event's: "premiered on May 19, 2016" on a page about the festival of 2016
    that mentions "the 1970 premiere" of another film). `allowed`: the years of the season or
    fiscal year `d` belongs to, which never contradict it."""
    sentences = context_sentences(
        set(content_words(claim_text)), index, DATE_CONTEXT_SHARE, DATE_CONTEXT_MIN_WORDS
    )
    if not sentences:
        return None
    claim_clause = clause_words(claim_text, d.start, d.end)
    claim_bound = _bound(claim_text, d)
    for i in sentences:
        start, end = index.sentences[i]
        reported = [
            p
            for p, stamp in zip(index.dates, index.stamps, strict=True)
            if start <= p.start < end and not stamp
        ]
        if d.year is not None and any(a < d.year < b for a, b in year_spans(index.text, start, end)):
            continue  # "from 2001 to 2008" holds 2005
        # the page's seasons and fiscal years hold the claim's year too ("in fiscal 2020": 2019)
        held = date_periods(index.text, reported, start, end)
        agree = [p for k, p in enumerate(reported) if date_matches(d, p) or d.year in held.get(k, ())]
        others = [
            p
            for k, p in enumerate(reported)
            if _conflicts(d, p)
            and p.year not in allowed
            and d.year not in held.get(k, ())
            # a clause that dates its event as the claim does dates something else by its other
            # dates: "current (September 2017) plans call for … to relocate … in fiscal 2020"
            and not any(_same_clause(index.text, p, q) for q in agree)
            and (not same_year or p.year == d.year)
            and not any(_states(c, p) for c in claim_dates)
            and _dates_something(index.text, p, start)
            # "since 1970" is not contradicted by "in 2010", "in 2017" not by "between 1991 and 2011"
            and not compatible_bounds(claim_bound, _bound(index.text, p, start))
        ]
        # of the sentence's dates, the one of the same event: "died on 16 May 2001" against
        # "born April 13 1944; died May 25 2001"
        scored = [
            (same_event(claim_clause, clause_words(index.text, p.start, p.end, (start, end))), p)
            for p in others
        ]
        best = max(scored, key=lambda x: x[0], default=(0, None))
        if best[1] is not None and best[0] > 0:
            return best[1], index.text[start:end]
    return None


class DateCheck:
    """`check_dates`, for claims of the temporal kind (see `citecheck.checks.Check`)."""

    name = DecidedBy.date
    kinds = frozenset({ClaimKind.temporal})
    # A year found on the page says little of what the claim says happened then: the judge decides.
    decides_alone = False

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        return check_dates(claim_text, page)
