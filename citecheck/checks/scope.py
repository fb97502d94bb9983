"""What period and measure a figure or a date is of: before two of them are "the same thing",
their scopes must agree (docs/ARCHITECTURE.md, the checks stage).

"won 10 trophies between 1989 and 2005" is not what "We've won 47 trophies in our illustrious
history" counts, nor "60% in the first half" what "45% in 2020" measures, nor "100 deaths a
day" what "3,000 deaths in total" does. A figure's `Scope` is read from its sentence, leaving
out the clauses that hold another figure ("60% in 2023, up from 50% in 2022": 2023 for the
first, 2022 for the second):

- `years`: the years named ("in 2019", "by 2026", "as of March 2020"), and whether they bound a
  period (`span`: "between 1989 and 2005", "from 2001 to 2008", "1996–2013", "since 2010");
- `rate`: per year, month, week, day or hour ("a year", "annually", "per month", "daily");
- `total`: all of it ("in total", "all-time", "in its history", "to date", "so far",
  "cumulative");
- `part`: a part of a period ("the first half", "the third quarter", "Q2", "H1").

`same_scope` is false when they disagree: another rate or a part on one side only, a total
against a rate or a period, a period on one side only or another one, or years that share
none; a side that names no scope at all agrees with any (pages leave out what their context
says). It only keeps two figures apart: it never makes a match.

Dates have scopes of their own (`date_periods`): a season or a fiscal year is one period —
"the 1904–05 season", "1904-1905", "2019/20", "fiscal 2023", "FY 2023" — that a year within it
states and never contradicts. A year inside a name ("The 2021 Annual Conference", "World Cup
2019", "coronavirus disease 2019") is a name, not a date the claim states (`in_name`); a
version or a model number ("Python 3.12", "iPhone 15") is read as a name by
`citecheck.numbers` already.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from dataclasses import dataclass

from citecheck.numbers import DateMention, wordset

_YEAR = r"(?:1[89][0-9]{2}|20[0-9]{2})"
_YEARS = re.compile(rf"(?<![\w.,/-]){_YEAR}(?![0-9])")
_SPAN = re.compile(
    rf"\b(?:between[ \u00a0]+{_YEAR}[ \u00a0]+and|from[ \u00a0]+{_YEAR}[ \u00a0]+(?:to|until|through|till)"
    rf"|since)[ \u00a0]+{_YEAR}"
    rf"|(?<![\w.,/-]){_YEAR}[ \u00a0]*[-–—][ \u00a0]*(?:{_YEAR}|[0-9]{{2}})(?![0-9])",
    re.IGNORECASE,
)
_RATE = re.compile(
    r"\b(?:(?:per|a|an|each|every)[ \u00a0]+(?P<unit>year|annum|month|week|day|hour)s?"
    r"|(?P<adverb>annually|yearly|monthly|weekly|daily|hourly|nightly))\b",
    re.IGNORECASE,
)
_ADVERB_UNIT = {"annually": "year", "yearly": "year", "annum": "year", "monthly": "month",
                "weekly": "week", "daily": "day", "nightly": "day", "hourly": "hour"}  # fmt: skip
_TOTAL = re.compile(
    r"\b(?:in[ \u00a0]+total|in[ \u00a0]+all|all[ \u00a0-]time"
    r"|in[ \u00a0]+(?:its|their|our|his|her|the\w*)[ \u00a0]+(?:\w+[ \u00a0]+)?history"
    r"|to[ \u00a0]+date|so[ \u00a0]+far|cumulative(?:ly)?|altogether|ever)\b",
    re.IGNORECASE,
)
_PART = re.compile(
    r"\b(?:(?P<nth>first|second|third|fourth|last|final)[ \u00a0]+(?P<of>half|quarter)"
    r"|(?P<code>[QH][1-4]))\b",
    re.IGNORECASE,
)
# Where a clause ends: a comma (not the one of "May 19, 2016"), a semicolon, a colon, a dash
_CLAUSE_BREAK = re.compile(r"[;:!?]|,(?! [0-9]{4}\b)|\.(?:\s|$)|\s[-–—]\s")
# A figure in a clause (a year alone is not one: "In 2023, …" is the scope of what follows)
_FIGURE = re.compile(r"[0-9]")


@dataclass(frozen=True)
class Scope:
    """What period and measure a figure is of (see the module docstring)."""

    years: frozenset[int] = frozenset()
    span: bool = False
    rate: str = ""
    total: bool = False
    part: str = ""

    @property
    def named(self) -> bool:
        """Whether the figure's sentence names any scope at all."""
        return bool(self.years or self.rate or self.total or self.part)


def _without_years(clause: str) -> str:
    return _YEARS.sub("", clause)


def scope_text(text: str, start: int, end: int, bounds: tuple[int, int] | None = None) -> str:
    """The words of the sentence (`bounds`) that may scope the figure at `start:end`: its own
    clause and those that hold no other figure."""
    lo, hi = bounds if bounds is not None else (0, len(text))
    cuts = [lo, *(m.end() for m in _CLAUSE_BREAK.finditer(text, lo, hi)), hi]
    kept: list[str] = []
    for a, b in itertools.pairwise(cuts):
        own = a <= start < b or a < end <= b
        clause = text[a:b]
        if own or not _FIGURE.search(_without_years(clause)):
            kept.append(text[a:start] + " " + text[end:b] if own else clause)
    return " ".join(kept)


def scope_of(text: str, start: int, end: int, bounds: tuple[int, int] | None = None) -> Scope:
    """The scope of the figure at `start:end` of `text`, in its sentence `bounds`."""
    words = scope_text(text, start, end, bounds)
    rate = ""
    if (r := _RATE.search(words)) is not None:
        unit = (r.group("unit") or r.group("adverb")).lower()
        rate = _ADVERB_UNIT.get(unit, unit)
    part = ""
    if (p := _PART.search(words)) is not None:
        part = (p.group("code") or f"{p.group('nth')} {p.group('of')}").lower()
    return Scope(
        years=frozenset(int(y) for y in _YEARS.findall(words)),
        span=_SPAN.search(words) is not None,
        rate=rate,
        total=_TOTAL.search(words) is not None,
        part=part,
    )


def same_scope(a: Scope, b: Scope) -> bool:
    """Whether two figures' scopes agree (see the module docstring); a side with no scope
    agrees with any."""
    if not a.named or not b.named:
        return True
    if a.rate != b.rate and ((a.rate and b.rate) or a.total or b.total):
        return False  # a day's figure and a month's, or a rate and a total
    if a.part != b.part:
        return False  # the first half is not the year, nor the second half
    if a.total != b.total and (a.span or b.span or a.years or b.years):
        return False  # all-time against a period or a year
    if a.span != b.span:
        return False  # a period against one year, or against none said
    if a.span:
        return a.years == b.years  # the same period, end for end
    return not (a.years and b.years) or not a.years.isdisjoint(b.years)


# --- dates: seasons, fiscal years and names -----------------------------------------------------

_YEAR_RANGE = re.compile(
    rf"(?<![\w.,/-])(?P<a>{_YEAR})"
    rf"(?:[ \u00a0]*[-–—][ \u00a0]*|[ \u00a0]+(?:to|until|through|till|and)[ \u00a0]+)"
    rf"(?P<b>{_YEAR}|[0-9]{{2}})(?![0-9])",
    re.IGNORECASE,
)


def year_spans(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
    """The spans of years written in `text[lo:hi]` ("from 2001 to 2008", "1996–2013", "between
    1989 and 2005", "2018–19"): (first year, last year)."""
    return [(a, b) for a, b, _, _ in _year_ranges(text, lo, hi)]


def _year_ranges(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int, int, int]]:
    spans: list[tuple[int, int, int, int]] = []
    for m in _YEAR_RANGE.finditer(text, lo, len(text) if hi is None else hi):
        a, b = int(m.group("a")), m.group("b")
        last = int(b) if len(b) == 4 else a // 100 * 100 + int(b)
        if a < last:
            spans.append((a, last, m.start(), m.end()))
    return spans


_START_BEFORE = re.compile(
    r"\b(?:since|from|after|starting(?:[ \u00a0]+(?:in|from))?|beginning(?:[ \u00a0]+in)?)[ \u00a0]+"
    r"(?:(?:the|early|late|mid|middle)[ \u00a0-]+){0,2}$",
    re.IGNORECASE,
)
_END_BEFORE = re.compile(
    r"\b(?:by|until|till|through|before|as[ \u00a0]+of|up[ \u00a0]+to)[ \u00a0]+"
    r"(?:(?:the|early|late|mid|middle|end[ \u00a0]+of)[ \u00a0-]+){0,2}$",
    re.IGNORECASE,
)
_RANGE_GOES_ON = re.compile(r"[ \u00a0]*(?:[-–—]|to\b|through\b|until\b|till\b|and\b)", re.IGNORECASE)


def date_bound(text: str, date: DateMention, lo: int = 0) -> str:
    """How a date bounds what it dates: "start" ("since 1970", "from 2010"), "end" ("by 2050",
    "until 2018", "as of March 2020"), "span" (an end of "from 2001 to 2008", "1996–2013",
    "between 1989 and 2005") or "" (a point: "in 2019", "on 5 May 2001"). `lo`: where its
    sentence starts."""
    for a, b, s, e in _year_ranges(text, max(lo, date.start - 30), date.end + 30):
        if s <= date.start < e:
            return "" if b == a + 1 else "span"  # a season ("2017-18") is one period, like a year
    before = text[max(lo, date.start - 30) : date.start]
    if _START_BEFORE.search(before):
        return "span" if _RANGE_GOES_ON.match(text, date.end) else "start"
    if _END_BEFORE.search(before):
        return "end"
    return ""


def compatible_bounds(claim: tuple[str, int, int], page: tuple[str, int, int]) -> bool:
    """Whether two dates bound what they date so that they cannot contradict each other (each
    given as its `date_bound` and its first and last year): a period's end against a point or
    a bound ("published in 2017" against "published between 1991 and 2011"), or a bound that
    holds the other's year ("since 1970" against "in 2010", "by 2050" against "in 2019"); not
    two points, two periods or two bounds of one kind, nor a bound that leaves the other's year
    out ("since 2015" against "in 2014")."""
    (a, a_lo, a_hi), (b, b_lo, b_hi) = claim, page
    if a == b:
        return False
    if a == "span" or b == "span":
        return True
    lows = {"start": a_lo, "end": -(10**6), "": a_lo}, {"start": b_lo, "end": -(10**6), "": b_lo}
    highs = {"start": 10**6, "end": a_hi, "": a_hi}, {"start": 10**6, "end": b_hi, "": b_hi}
    return max(lows[0][a], lows[1][b]) <= min(highs[0][a], highs[1][b])  # they overlap: no conflict


_SEASON = re.compile(
    rf"(?<![\w.,-])(?P<a>{_YEAR})[ \u00a0]*[-–—/][ \u00a0]*(?P<b>{_YEAR}|[0-9]{{2}})(?![0-9])"
)
_FISCAL = re.compile(
    rf"\b(?:FY[ \u00a0]?'?|fiscal(?:[ \u00a0]+year)?[ \u00a0]+)(?P<y>{_YEAR}|[0-9]{{2}})\b", re.I
)


def date_periods(
    text: str, dates: list[DateMention], lo: int = 0, hi: int | None = None
) -> dict[int, frozenset[int]]:
    """For each of `dates` (by index) that is part of a season or a fiscal year written in
    `text[lo:hi]`, the years that period holds: "1904–05" and "1904-1905" hold 1904 and 1905,
    "2019/20" 2019 and 2020, "fiscal 2023" and "FY 2023" 2022 and 2023 (a fiscal year straddles
    two calendar years)."""
    hi = len(text) if hi is None else hi
    periods: list[tuple[int, int, frozenset[int]]] = []
    for m in _SEASON.finditer(text, lo, hi):
        a, b = int(m.group("a")), m.group("b")
        last = int(b) if len(b) == 4 else a // 100 * 100 + int(b)
        if last == a + 1:
            periods.append((m.start(), m.end(), frozenset((a, last))))
    for m in _FISCAL.finditer(text, lo, hi):
        y = m.group("y")
        year = int(y) if len(y) == 4 else 2000 + int(y)
        periods.append((m.start(), m.end(), frozenset((year - 1, year))))
    if not periods:
        return {}
    periods.sort()
    starts = [start for start, _, _ in periods]
    out: dict[int, frozenset[int]] = {}
    for i, d in enumerate(dates):
        # the periods that start at or before the date; they are short, so a few back suffice
        k = bisect_right(starts, d.start)
        for start, end, years in periods[max(0, k - 3) : k]:
            if start <= d.start < end and d.year in years:
                out[i] = years
    return out


# Capitalised words after which a year dates something rather than names it
_DATING = wordset(
    "in on at by since from until till to through of during before after around about circa early "
    "late mid end the a an and or between year fiscal fy spring summer fall autumn winter as "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_WORD_BEFORE = re.compile(r"(?P<w>[A-Za-z][\w.'’&-]*)[ \u00a0]+$")
# A name's capitalised words after a year, then what ends the name: a function word, a bracket,
# punctuation or the end ("The 2021 Annual Conference of the ACL", "the 2019 World Cup.").
_NAME_AFTER = re.compile(
    r"[ \u00a0]+(?:[A-Z][\w'’&.-]*[ \u00a0]+){0,5}?[A-Z][\w'’&.-]*"
    r"(?=[ \u00a0]*(?:[,.;:!?()\[\]\"”’]|$|[ \u00a0]+(?:of|is|was|are|were|in|on|at|for|and|or|to|has|had|"
    r"have|will|with|by|from|the|a|an|as|that|which|who)\b))"
)
_NAMES_BEFORE = wordset("disease covid cov ncov expo cup games olympics summit conference edition")


def in_name(text: str, date: DateMention) -> bool:
    """Whether a year of `text` is part of a name, not a date it states: after a name ("World
    Cup 2019", "ICRC 2016", "coronavirus disease 2019"), or before one that it opens ("The 2021
    Annual Conference of the ACL", "the 2019 World Cup"), or glued to one ("2019-nCoV")."""
    if date.month is not None or date.decade or date.end - date.start != 4:
        return False
    if re.match(r"-[A-Za-z]", text[date.end : date.end + 2]):
        return True
    before = _WORD_BEFORE.search(text, max(0, date.start - 40), date.start)
    if before is not None:
        word = before.group("w").rstrip(".").lower()
        if word in _NAMES_BEFORE or (before.group("w")[0].isupper() and word not in _DATING):
            return True
    if _NAME_AFTER.match(text, date.end) is None:
        return False
    # "in 2019 Apple released …": a year that dates, then a name of something else
    return before is None or before.group("w").lower() in ("the", "a", "an", "its", "their", "his", "her")
