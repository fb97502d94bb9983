"""Number and date mentions in prose, normalised so a claim's figure can be looked up on a page.

What counts as the same number (the rules the number check documents):

- Forms: `14,000,000` = `14 million` = `14m` (after a currency sign) = `fourteen million`;
  `1.2bn` = `1.2 billion`; `3.5 trillion`; `10k` = `10,000`; `35%` = `35 percent` =
  `35 per cent`; `$5`, `US$5`, `€5`, `£5`, `5 USD`, `5 dollars`; `10–20`, `10 to 20`,
  `between 10 and 20` (ranges); `3x`, `3×`, `three times`, `3-fold` (multipliers);
  `one in four` = `1 in 4` = 25%; `two thirds`, `a quarter` (fractions, as percent);
  `half a million` = 500,000;
  `100 000` (space-separated thousands), `1·7` (middle-dot decimals).
- Units must agree: a percent matches only a percent; a currency amount matches the same
  currency or a bare number (pages often drop the sign); a bare number matches a bare
  number, an amount or a multiplier. Lengths (`ft`, `m`, `km`, `mi`, `cm`) are converted
  and then accept ±10 % (a converter rounds: `6 feet` for `2 m`); `six feet` is a figure.
- Rounding follows the claim's stated precision: a claim may round the page's figure to its
  own last digit (`14 million` is supported by `14.3 million`, not by `14.6 million`;
  `1.5 billion` by `1.46 billion`), never by more than 5 % of its value, and never the other
  way (`14.3 million` is not supported by `14 million`). Trailing zeros of a figure of 1,000
  or more count as rounding (`2,000` is stated to the thousand).
- A claimed range is supported by the same range, by both ends apart, or by a page figure
  (or range) lying within it: `between 2 and 3` by `2.9`, `10–20%` by `12.4%`.
- Pairs count double: `19 pairs` (`19 chromosome pairs`, `19 pairs of chromosomes`) states
  `38`, and `38` states `19 pairs`.
- Only the page's quantities count: a date's day (`May 17`) or a name's number (`Copy 17`,
  `COVID-19`, `No. 12`) never supports a claim's figure.
- Hedges widen the match: `about`, `around`, `approximately`, `roughly`, `some`, `~`,
  `an estimated` accept ±10 %, and so do `one in four` and fractions in words; `more than`,
  `over`, `at least`, `above`, `>` and a `+` after the figure (`20+`) accept page
  values from the figure up to twice it; `less than`, `under`, `up to`, `fewer than`, `<`
  accept from half the figure up to it; `nearly`, `almost`, `close to`, `just under` accept
  from 90 % of the figure up to it.
- Not statistics (never checked as numbers): years (`1998`, `1990s`; but `1008 participants`
  is a count) and dates (those go to
  the date check), ordinals (`3rd`), list markers (`1.` at a line start), citation and
  footnote markers (`[3]`, `[1, 2]`, `^3`, `study.3`), times and ratios (`10:30`), version
  numbers (`3.11.2`), numbers glued to letters (`COVID-19`, `A380`, `4G`), numbers after a
  label (`No. 12`, `page 4`, `Windows 10`), and the words `one` to `nine` on their own
  (`one of the best`, `the two companies`; `nine million`, `two thirds` and a duration, `six
  weeks`, `three or four months`, still count);
  an ordinal in words is not a fraction (`a third cousin`; `a third of` is one).

What contradicts a figure (`conflicts`, for the number check's contradictions): a page figure
of the same unit such that no value is allowed by both — each side's rounding (`4,000` is
3,500 up to 4,500; `14.6 million` 14.55 to 14.65 million), hedge (`about 14 million` on either
side allows 13.8 million) and range. So `3,000` contradicts `4,000`, `33` contradicts `32`
and `14.6 million` contradicts `14 million` (which it does not support either); a round page
figure contradicts little (`2,000 troops` may be 2,400 rounded). `more than 300` is
contradicted only by less than 300, `up to 300` only by more. Lengths converted from another
unit keep ±10 % for the converter's rounding.

Dates (`dates_in`): `11 June 2003` = `June 11, 2003` = `2003-06-11`; a day range states each
end (`11–13 June 2003`, `June 11–13, 2003`); a span of years states its end year too
(`2018–19`: 2018 and 2019); a decade is written `the 2000s`, `the 2000's` or `the 2000’s`.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_SCALES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "mln": 1e6, "m": 1e6, "billion": 1e9,
    "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "trn": 1e12,
}  # fmt: skip
# One-letter scales are metres / bytes as often as millions, so they count only after a currency.
_CURRENCY_ONLY_SCALES = {"m", "b"}
_FRACTIONS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
    "tenth": 10, "tenths": 10,
}  # fmt: skip
_CURRENCIES = {
    "us$": "$", "a$": "$", "c$": "$", "$": "$", "usd": "$", "dollar": "$", "dollars": "$",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP",
    "pound": "GBP", "pounds": "GBP", "¥": "JPY", "jpy": "JPY", "yen": "JPY", "₹": "INR",
    "inr": "INR", "rupees": "INR", "chf": "CHF", "francs": "CHF",
}  # fmt: skip
_HEDGES = {
    "about": "approx", "around": "approx", "approximately": "approx", "approx.": "approx",
    "approx": "approx", "roughly": "approx", "some": "approx", "~": "approx", "≈": "approx",
    "an estimated": "approx", "estimated": "approx", "circa": "approx", "c.": "approx",
    "more than": "min", "over": "min", "at least": "min", "above": "min", "upwards of": "min",
    "in excess of": "min", "exceeding": "min", "just over": "min", ">": "min", "≥": "min",
    "greater than": "min", "less than": "max", "under": "max", "fewer than": "max", "below": "max",
    "up to": "max", "<": "max", "≤": "max", "nearly": "near", "almost": "near", "close to": "near",
    "just under": "near", "just shy of": "near",
}  # fmt: skip


def wordset(words: str) -> frozenset[str]:
    """A set of words written as one space-separated string (long lists stay readable)."""
    return frozenset(words.split())


# Words after which a number names a thing rather than counting it.
_LABELS = wordset(
    "no no. nos nos. number # page pages p p. pp pp. chapter section sec sec. figure fig fig. "
    "table version v v. article episode season volume vol vol. issue level grade phase stage "
    "type category route flight room model series book part act step item line row column "
    "exhibit appendix amendment bill highway interstate channel platform gate windows ios "
    "android python unit box suite apt apt. ward district region zone beta alpha rc"
)

# The patterns scanned across whole pages start with a character class (or a literal): only then
# does `re` skip ahead to the characters a match can begin with. A leading `\b` or lookbehind
# makes it try the whole pattern at every position, several times slower. So such a check is
# moved after the first character: `[0-9](?<!\w[0-9])` is `\b[0-9]`, a digit with no letter or
# digit before it (at the start of the text the lookbehind does not fit, and so holds).

# Figures. Thousands: "," or a thin / no-break / plain space before exactly three digits
# ("100 000"); decimals: "." or the middle dot of Lancet-style abstracts ("1·7"). Written with
# the first character read before the alternatives (see above), this is
#   [0-9]{1,3}(?:,[0-9]{3})+(?:[.·][0-9]+)? | [0-9]{1,3}(?:<space>[0-9]{3})+(?![0-9.,·])
#   | [0-9]+(?:[.·][0-9]+)? | \.[0-9]+
_DIGIT_ATOM = re.compile(
    r"[0-9.](?:(?<=\.)[0-9]+|(?<=[0-9])(?:[0-9]{0,2}(?:,[0-9]{3})+(?:[.·][0-9]+)?"
    r"|[0-9]{0,2}(?:[\u2009\u202f\u00a0 ][0-9]{3})+(?![0-9.,·])|[0-9]*(?:[.·][0-9]+)?))"
)  # matched against `_lower(text)`: IGNORECASE makes a scan three times slower
_WORD = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
_WORDNUM = rf"(?:{_WORD})(?:[- ](?:and )?(?:{_WORD}|hundred))*(?:[- ]hundred)?"
_A_SCALES = ("hundred", "thousand", "million", "billion", "dozen")  # "a hundred"
_A_FRACTIONS = ("third", "quarter", "fifth", "tenth")  # "a third": the fraction is read after "a"
# Numbers in words, matched against `_lower(text)` too ("a hundred" takes its tail like "one
# hundred" does: "a hundred and twenty")
_WORD_ATOM = re.compile(
    rf"\b(?P<words>{_WORDNUM}|a hundred(?:[- ](?:and )?(?:{_WORD}))*"
    rf"|{'|'.join(f'a {w}' for w in _A_SCALES)}|hundred"
    rf"|a(?= (?:{'|'.join(_A_FRACTIONS)})\b))\b"
)
_SCALE_AFTER = re.compile(
    r"(?:[ \u00a0-]?(?P<scale>thousand|million|billion|trillion)\b|(?P<abbr>bn|mn|mln|tn|trn|k|m|b)\b)",
    re.IGNORECASE,
)
_PERCENT_AFTER = re.compile(
    r"[ \u00a0]?(?:%|percent\b|per[ -]cent\b|pct\b|percentage points?\b|pp\b)", re.IGNORECASE
)
_MULT_AFTER = re.compile(r"(?:[ \u00a0]?[x×](?![a-z0-9])|[ \u00a0-](?:times|fold)\b)", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(
    r"[ \u00a0](?:us )?(?P<cur>usd|eur|gbp|jpy|inr|chf|dollars|euros|pounds|yen|rupees|francs)\b",
    re.IGNORECASE,
)
_CURRENCY_SIGNS = ("us$", "a$", "c$", "$", "€", "£", "¥", "₹", "usd", "eur", "gbp", "jpy", "inr", "chf")
_CURRENCY_BEFORE = re.compile(
    r"(?P<cur>" + "|".join(map(re.escape, _CURRENCY_SIGNS)) + r")[ \u00a0]?$", re.IGNORECASE
)
# Lengths, so that "13 feet" can be looked up as "4 m" (Check-COVID); metres per unit.
_LENGTH_UNITS = {
    "ft": "ft", "feet": "ft", "foot": "ft", "m": "m", "metre": "m", "metres": "m", "meter": "m",
    "meters": "m", "km": "km", "kilometre": "km", "kilometres": "km", "kilometer": "km",
    "kilometers": "km", "mi": "mi", "mile": "mi", "miles": "mi", "cm": "cm", "centimetres": "cm",
    "centimeters": "cm",
}  # fmt: skip
_METRES = {"ft": 0.3048, "m": 1.0, "km": 1000.0, "mi": 1609.344, "cm": 0.01}
_LENGTH_AFTER = re.compile(
    r"[ \u00a0-]?(?P<len>" + "|".join(sorted(_LENGTH_UNITS, key=len, reverse=True)) + r")\b(?![²2])",
    re.IGNORECASE,
)
_HEDGE_BEFORE = re.compile(
    r"(?:^|[^a-z])(?P<hedge>"
    + "|".join(re.escape(h) for h in sorted(_HEDGES, key=len, reverse=True))
    + r")[ \u00a0]*(?:of[ \u00a0]+)?$",
    re.IGNORECASE,
)
# `_CURRENCY_BEFORE` and `_HEDGE_BEFORE` are searched in the few characters before each figure,
# and a search for "…$" tries every start. Read backwards from the figure, what either needs
# at the end is one `match`; most figures have neither, and only when the reversed text starts
# with what it needs (`$` may also stand before a final "\n") is the slice searched for the
# match itself. The reversed patterns accept more than the originals, never less.
_CURRENCY_BEFORE_REVERSED = re.compile(
    r"\n?[ \u00a0]?(?:" + "|".join(re.escape(c[::-1]) for c in _CURRENCY_SIGNS) + ")", re.IGNORECASE
)
_HEDGE_BEFORE_REVERSED = re.compile(
    r"\n?(?:[ \u00a0]+fo)?[ \u00a0]*(?:" + "|".join(re.escape(h[::-1]) for h in _HEDGES) + ")", re.IGNORECASE
)
# Characters after a figure where none of `_PERCENT_AFTER`, `_MULT_AFTER`, `_CURRENCY_AFTER` and
# `_LENGTH_AFTER` can start ("" is the end of the text)
_NO_UNIT_AFTER = frozenset(["", ",", ".", ";", ":", ")", "\n"])
_RANGE_SEP = re.compile(r"^(?:[ \u00a0]?[-–—][ \u00a0]?|[ \u00a0]+(?:to|and)[ \u00a0]+)$", re.IGNORECASE)
_RATIO_SEP = re.compile(r"^[ \u00a0]+(?:in|out of)[ \u00a0]+$", re.IGNORECASE)
_FRACTION_AFTER = re.compile(r"[ -](?P<den>" + "|".join(_FRACTIONS) + r")\b", re.IGNORECASE)
_CITATION_BRACKET = re.compile(r"\[\^?[0-9][0-9,\s–\-]*\]")
_ORDINAL_AFTER = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)

_MONTH_RE = (
    r"(?P<{g}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE_PATTERNS = [
    # 5 March 2020 / 5th of March, 2020 / 5 March (the day: `\b[0-9]{1,2}`)
    re.compile(
        r"(?P<d>[0-9](?<!\w[0-9])[0-9]?)(?:st|nd|rd|th)?(?: of)? "
        + _MONTH_RE.format(g="m")
        + r"(?:,? (?P<y>[0-9]{4}))?\b"
    ),
    # March 5, 2020 / March 5 / March 2020 (scanned by `_matches_at`: it starts with `\b`)
    re.compile(
        r"\b" + _MONTH_RE.format(g="m") + r" (?:(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?\b(?:,? (?P<y>[0-9]{4}))?|"
        r"(?:of )?(?P<y2>[0-9]{4}))\b"
    ),
    # 2020-03-05 (the year: `\b[0-9]{4}`)
    re.compile(r"(?P<y>[0-9](?<!\w[0-9])[0-9]{3})-(?P<mn>[0-9]{2})-(?P<d>[0-9]{2})\b"),
]  # matched against `_lower(text)`, like `_DIGIT_ATOM`
# Where the matches of a pattern that starts with `\b` can start, for `_starts`: every month
# name of `_MONTH_RE` starts with one of these; every number in words of `_WORD_ATOM` with one of
# the others (a key that starts with another key is left out: its places are the other's).
_MONTH_KEYS = tuple(sorted({m[:3] for m in MONTHS}))
_WORD_STARTS = {*_UNITS, *_TENS, "hundred", *(f"a {w}" for w in (*_A_SCALES, *_A_FRACTIONS))}
_WORD_KEYS = tuple(
    sorted(k for k in _WORD_STARTS if not any(k != j and k.startswith(j) for j in _WORD_STARTS))
)


def _lower(text: str) -> str:
    """`text` in lower case with every offset kept (a few characters lengthen under `lower`)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    odd = {c: c.lower()[0] for c in set(text) if len(c.lower()) != 1}
    pattern = re.compile("[" + "".join(re.escape(c) for c in odd) + "]")
    return pattern.sub(lambda m: odd[m.group(0)], text).lower()


# A number in the years' range followed by a counted noun is a count, not a year: "1008
# participants" (a Check-COVID refutation of "108 participants"), unless "in", "since", ...
# precede it ("in 2020 cases rose").
_COUNT_AFTER = re.compile(
    r"[ \u00a0]+(?:people|persons|participants|patients|cases|deaths|employees|workers|students"
    r"|members|residents|users|children|adults|subjects|respondents|individuals|troops|soldiers"
    r"|households|samples|infections|votes|jobs|visitors|volunteers|customers|beds|hectares|acres"
    r"|km|kilometres|kilometers|miles|metres|meters|feet|tons|tonnes|kg)\b",
    re.IGNORECASE,
)
_YEAR_BEFORE = re.compile(r"\b(?:in|since|by|until|till|during|from|of the|the)[ \u00a0]+$", re.IGNORECASE)


# After a small number in words: a unit of time, so the number is a duration ("six weeks", "three
# or four months", "nine-month"); "one" stays a turn of phrase ("one day", "one year at a time").
# "Two years ago", "ten years later" date something (a relative time, not a figure).
NOT_RELATIVE = r"(?![ \u00a0]+(?:ago|later|earlier|before|after)\b)"
DURATION_AFTER = (
    r"(?:[ \u00a0-](?:or|to)[ \u00a0-][a-z]+)?[ \u00a0-](?:hours?|days?|weeks?|months?|years?|decades?)\b"
    + NOT_RELATIVE
)
_DURATION_AFTER = re.compile(DURATION_AFTER, re.IGNORECASE)


def _is_count(text: str, start: int, end: int) -> bool:
    """Whether a number in the years' range at `start:end` counts things ("1008 participants")."""
    return bool(_COUNT_AFTER.match(text, end)) and not _YEAR_BEFORE.search(text[max(0, start - 12) : start])


# `(?<![0-9.,$€£])\b` before the year, checked after its four digits (see `_DIGIT_ATOM`)
_YEAR = re.compile(r"(?P<y>1[0-9]{3}|20[0-9]{2})(?<![\w.,$€£][0-9]{4})(?P<s>['’]?s)?\b(?![.,][0-9])")
# "2018–19", "2001-05": a span of years whose end is written short (read after a year)
_YEAR_SPAN_END = re.compile(r"[-–—](?P<e>[0-9]{2})\b(?![-–—.,:/][0-9])")
# "11–13 June 2003": the first day of a range, before a day-month date
_DAY_BEFORE = re.compile(r"(?:^|[^\w.,])(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?[ \u00a0]?[-–—][ \u00a0]?$")
_RANGE_DASHES = frozenset("-–— \u00a0")  # what may stand between a range's day and the dash
# "June 11–13, 2003": the rest of a month-day date whose year follows a range of days
_DAY_RANGE_YEAR = re.compile(
    r"[ \u00a0]?[-–—][ \u00a0]?(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?,? (?P<y>[0-9]{4})\b"
)
# "19 chromosome pairs", "19 pairs of chromosomes": a count of pairs (checked where "pair" follows)
_PAIRS_AFTER = re.compile(r"[ \u00a0-](?:[a-z]+[ \u00a0-]){0,2}?pairs?\b", re.IGNORECASE)
_KNOWN_SUFFIX = re.compile(r"(?:st|nd|rd|th|s|k|m|b|bn|mn|mln|tn|trn|x|pp)\b", re.IGNORECASE)
_SEPARATORS = re.compile(r"[,\u2009\u202f\u00a0 ]")
_OF = re.compile(r"\s+of\b")
_GLUED_MARK = re.compile(r"[A-Za-z][.,;:!?)]$")
# "COVID-19", also with the non-breaking hyphen U+2011 some sites write it with
_AFTER_LETTER = re.compile(r"[A-Za-z][-–\u2010\u2011]?$")
# ... but "under-20s", "top-10", "mid-1990s" are figures (or years), not names
# Capitalised words of abstracts that a figure follows: "95% CI 9·8-15·4", "OR 1.5"
_STAT_LABELS = ("CI", "HPDI", "IQR", "OR", "RR", "HR", "SD", "SE")
_WEEKDAYS = wordset("monday tuesday wednesday thursday friday saturday sunday")
_FIGURE_PREFIX = re.compile(
    r"(?:^|[^A-Za-z])(?:under|over|top|mid|pre|post|early|late)[-–\u2010\u2011]$", re.I
)
_VERSION_AFTER = re.compile(r"[.:][0-9]")
_VERSION_BEFORE = re.compile(r"[0-9][.:]$")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*$")
_LIST_MARK = re.compile(r"[.)][ \t]")
_BETWEEN = re.compile(r"between[ \u00a0]+$", re.IGNORECASE)
# (white space alone before it is a start too: the checks blank a claim's leading "According to
# [Gartner](…)," and "Comprising 38 businesses" still starts its sentence)
_SENTENCE_START = re.compile(r"(?:^\s*|[.!?:;]\s+|\n\s*)$")


@dataclass(frozen=True)
class NumberMention:
    """One figure in a text: its value and how it was stated."""

    value: float
    start: int
    end: int
    text: str
    unit: str = ""  # "" (a count), "%", "x" (multiplier) or a currency ("$", "EUR", "GBP", ...)
    step: float = 1.0  # the stated precision: the value's last digit is worth this much
    hedge: str = ""  # "", "approx", "min", "max" or "near" (see the module docstring)
    high: float | None = None  # upper end of a range; `value` is then the lower end
    role: str = "statistic"  # statistic, year, date, ordinal, identifier, citation, list, small-word
    pairs: bool = False  # a count of pairs ("19 chromosome pairs"): it states twice its value too

    @property
    def is_statistic(self) -> bool:
        return self.role == "statistic"

    def describe(self) -> str:
        return self.text.strip()


@dataclass(frozen=True)
class DateMention:
    """A year, month-year, month-day or full date in a text."""

    start: int
    end: int
    text: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    decade: bool = False  # "1990s"

    @property
    def precision(self) -> str:
        if self.decade:
            return "decade"
        if self.day and self.month and self.year:
            return "day"
        if self.month and self.year:
            return "month"
        if self.day and self.month:
            return "month-day"
        return "year"


def _words_value(words: str) -> float | None:
    """Value of number words such as "twenty-five", "one hundred and two", "a dozen"."""
    w = words.lower().replace("-", " ").split()
    if w == ["a"]:
        return 1.0  # "a quarter"
    if w[:2] == ["a", "hundred"] and len(w) > 2:
        w[0] = "one"  # "a hundred and twenty"
    elif w[:1] == ["a"]:
        return {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "dozen": 12.0}.get(w[1])
    total = 0.0
    for word in w:
        if word == "and":
            continue
        if word == "hundred":
            total = (total or 1) * 100
        elif word in _UNITS:
            total += _UNITS[word]
        elif word in _TENS:
            total += _TENS[word]
        else:
            return None
    return total


def _digits_step(digits: str) -> float:
    """The worth of the last stated digit: `14.3` → 0.1; `2,000` → 1000; `140` → 1."""
    plain = digits
    if "." in plain:
        return 10.0 ** -len(plain.split(".")[1])
    value = int(plain)
    if value >= 1000:
        zeros = len(plain) - len(plain.rstrip("0"))
        return 10.0**zeros
    return 1.0


def _mask(text: str, spans: list[tuple[int, int]]) -> bytearray:
    """One byte per character, 1 inside any of `spans`: O(1) membership on pages of megabytes."""
    mask = bytearray(len(text))
    for s, e in spans:
        mask[s:e] = b"\x01" * (e - s)
    return mask


def lowered(text: str) -> str:
    """`text` in lower case, each character where it was (see `_lower`)."""
    return _lower(text)


@functools.lru_cache(maxsize=2)
def _read(text: str) -> tuple[str, list[re.Match[str]]]:
    """`_lower(text)` and every match of the date patterns in it, pattern by pattern.

    `numbers_in` and `dates_in` both need them, and a page (or claim) is read by both in
    turn, so the last texts' are kept (two: the page's and a claim's, however long).
    """
    low = _lower(text)
    day_month, month_day, iso = _DATE_PATTERNS
    months = _starts(low, _MONTH_KEYS)
    # The first two patterns need a month name, the last a "-": texts without are not scanned.
    return low, [
        *(day_month.finditer(low) if months else ()),
        *_matches_at(month_day, low, months),
        *(iso.finditer(low) if "-" in low else ()),
    ]


def _starts(low: str, keys: tuple[str, ...]) -> list[int]:
    """Every place where one of `keys` occurs in `low`, in order."""
    found: set[int] = set()
    for key in keys:
        i = low.find(key)
        while i >= 0:
            found.add(i)
            i = low.find(key, i + 1)
    return sorted(found)


def _matches_at(pattern: re.Pattern[str], low: str, starts: list[int]) -> list[re.Match[str]]:
    """`list(pattern.finditer(low))` for a pattern that can match only at `starts` (in order).

    For patterns that start with `\b`: `str.find` gets to the few places where one can match
    (`_starts`) far faster than `re` moves through such a pattern. Trying them in order, and
    none inside the last match, is what `finditer` does, since none of these patterns matches
    the empty string.
    """
    found: list[re.Match[str]] = []
    end = 0
    for i in starts:
        if i >= end and (m := pattern.match(low, i)):
            found.append(m)
            end = m.end()
    return found


def _date_spans(matches: list[re.Match[str]]) -> list[tuple[int, int]]:
    # "Since March 40 people died": no day 40, so "40" is no date's day
    return [m.span() for m in matches if not m.groupdict().get("d") or 1 <= int(m.group("d")) <= 31]


def _day_range(
    text: str, start: int, end: int, year: int | None, *, iso: bool
) -> tuple[int | None, int, int, int | None]:
    """The other day of a range of days a date at `start:end` ends or starts, with the range's
    start, end and year: "June 11–13, 2003" (the year after the range is this day's too),
    "11–13 June 2003". (None, start, end, year) when the date is no range's."""
    if year is None and text[end : end + 1] in _RANGE_DASHES:
        rest = _DAY_RANGE_YEAR.match(text, end)
        if rest and 1 <= int(rest.group("d")) <= 31:
            return int(rest.group("d")), start, rest.end(), int(rest.group("y"))
    elif start and not iso and text[start].isdigit() and text[start - 1] in _RANGE_DASHES:
        first = _DAY_BEFORE.search(text, max(0, start - 8), start)
        if first and 1 <= int(first.group("d")) <= 31:
            return int(first.group("d")), first.start("d"), end, year
    return None, start, end, year


def dates_in(text: str) -> list[DateMention]:
    """Every date-like mention: full dates, month-year, month-day, years and decades (each end
    of a range of days or of a span of years, see the module docstring)."""
    found: list[DateMention] = []
    covered = bytearray(len(text))
    for m in _read(text)[1]:
        if covered[m.start()]:
            continue
        groups = m.groupdict()
        month = MONTHS.get((groups.get("m") or "").lower().rstrip(".")) or (
            int(groups["mn"]) if groups.get("mn") else None
        )
        if not month:
            continue
        day = int(groups["d"]) if groups.get("d") else None
        if day is not None and not 1 <= day <= 31:
            continue
        year_s = groups.get("y") or groups.get("y2")
        year = int(year_s) if year_s else None
        if groups.get("m") and groups["m"].lower() in ("may", "mar") and day is None and year is None:
            continue  # "may" the verb, "mar" the verb
        start, end = m.span()
        other_day, at = None, start
        if day is not None:
            other_day, at, end, year = _day_range(text, start, end, year, iso=bool(groups.get("mn")))
        found.append(DateMention(at, end, text[at:end], year, month, day))
        if other_day is not None:
            found.append(DateMention(at, end, text[at:end], year, month, other_day))
        covered[start:end] = b"\x01" * (end - start)
    for m in _YEAR.finditer(text):
        if covered[m.start()] or _is_count(text, m.start(), m.end()):
            continue
        year, suffix, end = int(m.group("y")), m.group("s"), m.end()
        # "the 1990s", "the 2000's"; "2019's" is the year's possessive
        decade = bool(suffix) and (suffix == "s" or year % 10 == 0)
        if suffix and not decade:
            end = m.start("s")
        found.append(DateMention(m.start(), end, text[m.start() : end], year, decade=decade))
        if (
            not suffix
            and text[m.end() : m.end() + 1] in "-–—"
            and (span := _YEAR_SPAN_END.match(text, m.end()))
        ):
            last = year // 100 * 100 + int(span.group("e"))
            last += 100 if last <= year else 0
            # with a hyphen, "2004-10" is as likely October 2004: only "2008-09"-like spans count
            hyphen = text[m.end()] == "-"
            if last - year <= 30 and (not hyphen or last - year == 1 or int(span.group("e")) > 12):
                found.append(DateMention(m.start(), span.end(), text[m.start() : span.end()], last))
    found.sort(key=lambda d: d.start)
    return found


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_LETTERS = _UPPER + _UPPER.lower()  # strings: what `str.rstrip` strips
_LABEL_CHARS = _ASCII_LETTERS + "#."

# `_role` reads the 40 characters before each figure: what it looks for there ends at their end,
# and a regex search anchored at the end ("…$") tries every one of the 40 starts, which was
# most of the time of `numbers_in`. So the short patterns see only the last three characters
# (two, and a final newline `$` may stand before) and the two open-ended ones are scanned
# back from the end by hand, giving what `re.search` gave.


def _prev_word(before: str) -> str | None:
    """`re.search(r"([A-Za-z#.]+)[ \u00a0]+$", before).group(1)`, or None: the word before the
    figure ("No. 12", "page 4")."""
    s = before[:-1] if before.endswith("\n") else before
    r = s.rstrip(" \u00a0")
    if len(r) == len(s):
        return None
    return r[len(r.rstrip(_LABEL_CHARS)) :] or None


def _capitalised(before: str) -> tuple[int, str] | None:
    """Start and text of `re.search(r"([A-Z][A-Za-z]+)[ \u00a0]$", before)`, or None: a
    capitalised word right before the figure ("Windows 10")."""
    s = before[:-1] if before.endswith("\n") else before
    if not s or s[-1] not in " \u00a0":
        return None
    r = s[:-1]
    i = len(r.rstrip(_ASCII_LETTERS))
    if r[i:-1].islower():
        return None  # the common case: `r[i:]` is all letters, none before the last a capital
    # The leftmost capital of the word that leaves at least one letter after it.
    for p in range(i, len(r) - 1):
        if r[p] in _UPPER:
            return p, r[p:]
    return None


def _sentence_start(before: str) -> bool:
    """`_SENTENCE_START.search(before)`, tried only from the last character that is not white
    space: its "$" leaves only white space after any match's punctuation or newline."""
    return bool(_SENTENCE_START.search(before, max(0, len(before.rstrip()) - 1)))


def _role(text: str, start: int, end: int, digits: bool, in_date: bool) -> str:
    """Why a bare atom is not a statistic, or "statistic"."""
    if in_date:
        return "date"
    before = text[max(0, start - 40) : start]
    after = text[end : end + 12]
    tail = before[-3:]  # enough for the patterns of at most two characters before "$"
    if digits:
        # Most figures have a space on either side, next to which none of the marks below can
        # be: their patterns are then left untried.
        marked_before, marked_after = not before.endswith(" "), not after.startswith(" ")
        if text[start] == "." and start > 0 and (text[start - 1].isalnum()):
            return "identifier"  # "3.11.2", "study.3"
        if before.endswith(("^", "#")):
            return "citation" if before.endswith("^") else "identifier"
        # "claim,12" / "said:3" — a footnote marker glued to the text before it
        if marked_before and _GLUED_MARK.search(tail) and not after[:1].isdigit():
            return "citation"
        if marked_before and _AFTER_LETTER.search(tail) and not _FIGURE_PREFIX.search(before):
            return "identifier"
        if before.endswith(("/", "=", "_", "?", "&", "@", '="', "='")) or after[:1] in ("/", "_", "="):
            return "identifier"  # parts of URLs, paths and markup attributes
        if (marked_after and _VERSION_AFTER.match(after)) or (marked_before and _VERSION_BEFORE.search(tail)):
            return "identifier"  # versions, times, ratios
        if marked_after and _ORDINAL_AFTER.match(after):
            return "ordinal"
        if marked_after and _LIST_MARK.match(after) and _LINE_START.search(before):
            return "list"
        if after[:2] == ") " and "(" not in before[-15:]:
            return "list"  # "are: 1) security issues and 2) …"; "(n = 35) " keeps its figure
    prev = _prev_word(before)
    if prev and prev.lower() in _LABELS:
        return "identifier"
    cap = _capitalised(before)
    if (
        cap
        and not _sentence_start(before[: cap[0]])
        and cap[1].lower() not in _HEDGES
        and cap[1].lower() not in MONTHS
        and cap[1].lower() not in _WEEKDAYS  # "By Friday 300 homes were lost"
        and cap[1] not in ("US", "USD", "EUR", "GBP", "A", "The", *_STAT_LABELS)
    ):
        return "identifier"  # "Windows 10", "Apollo 11", "Super Bowl 50"
    return "statistic"


@dataclass
class _Atom:
    start: int
    end: int
    value: float
    step: float
    digits: bool
    plain: str


def _atoms(text: str, low: str) -> list[_Atom]:
    atoms: list[_Atom] = []
    for m in _DIGIT_ATOM.finditer(low):
        d = m.group(0)
        start, end = m.span()
        if text[end : end + 1].isalpha() and not _KNOWN_SUFFIX.match(text, end):
            # glued to letters ("4G", "8VC", "25s" is handled as a decade/plural elsewhere)
            atoms.append(_Atom(start, end, float("nan"), 1.0, True, d))
            continue
        # most figures are digits alone, with no separator to drop
        clean = d if d.isdigit() else _SEPARATORS.sub("", d).replace("·", ".")
        atoms.append(_Atom(start, end, float(clean), _digits_step(clean), True, d))
    words = [
        _Atom(m.start(), m.end(), value, 1.0, False, m.group("words"))
        for m in _matches_at(_WORD_ATOM, low, _starts(low, _WORD_KEYS))
        if (value := _words_value(m.group("words"))) is not None
    ]
    words = _compound_words(low, words)
    if words:
        # A figure holds no letter and a number in words no digit or ".", so neither can start
        # inside the other: read apart and put in order, they are what one scan for both gives.
        atoms = sorted([*atoms, *words], key=lambda a: a.start)
    return atoms


# Number words that belong to a larger number in words than the atom read alone: a part read
# alone could contradict a claim that the whole supports ("a million" in "a million and a half").
_AND_A_HALF = re.compile(r" and a half\b")
_FRACTION_OF_A = re.compile(
    r"\b(?:(?P<count>a|one|two|three|four|nine)[ -])?(?P<den>half|quarters?|thirds?|fifths?|tenths?) of $"
)
# ("two thousand and twenty", "the hundred-and-twenty km race": read alone, "twenty kilometres"
# would contradict a claim of "120 km")
_NUMBER_WORD_BEFORE = re.compile(rf"\b(?:{_WORD}|hundred|thousand|million|billion)(?:[ -]and)?[ -]$")
_SCALE_WORDS = ("hundred", "thousand", "million", "billion", "dozen")


def _compound_words(low: str, words: list[_Atom]) -> list[_Atom]:
    """Numbers in words read whole where their parts were read apart: "half a million",
    "a quarter of a million" (a fraction of a scale), "one and a half million" and "a million
    and a half"; a number word right after another ("… million two hundred thousand") is the
    tail of a larger number the parser does not read, and is dropped rather than read wrong."""
    out: list[_Atom] = []
    for w in words:
        before = low[max(0, w.start - 24) : w.start]
        scale_word = w.plain.split()[-1] in _SCALE_WORDS
        if w.plain.startswith("a ") and scale_word and (frac := _FRACTION_OF_A.search(before)):
            # "a quarter of a million", "three quarters of a billion", "half of a million"
            count = _UNITS.get(frac.group("count") or "a", 1)
            start = w.start - len(frac.group(0))
            value = w.value * count / _FRACTIONS[frac.group("den")]
            out = [a for a in out if a.end <= start]
            out.append(_Atom(start, w.end, value, 1.0, False, low[start : w.end]))
            continue
        if w.plain.startswith("a ") and before[-5:] in ("half ", "half-"):
            # "half a million": half of it, not a million
            out.append(_Atom(w.start - 5, w.end, w.value / 2, 1.0, False, low[w.start - 5 : w.end]))
            continue
        if _NUMBER_WORD_BEFORE.search(before) and not w.plain.startswith("a "):
            continue  # the tail of a larger number
        if half := _AND_A_HALF.match(low, w.end):
            # "one and a half (million)", "a million and a half"
            value = w.value * 1.5 if scale_word else w.value + 0.5
            out.append(_Atom(w.start, half.end(), value, 0.5, False, low[w.start : half.end()]))
            continue
        out.append(w)
    return out


def _scale(text: str, pos: int, has_currency: bool) -> tuple[float, int]:
    m = _SCALE_AFTER.match(text, pos)
    if not m:
        return 1.0, pos
    word = (m.group("scale") or m.group("abbr")).lower()
    if word in _CURRENCY_ONLY_SCALES and not has_currency:
        return 1.0, pos
    return _SCALES[word], m.end()


def _before(pattern: re.Pattern[str], reversed_: re.Pattern[str], before: str) -> re.Match[str] | None:
    """`pattern.search(before)`, where `reversed_` matches `before[::-1]` whenever it can match."""
    return pattern.search(before) if reversed_.match(before[::-1]) else None


def _reach(figures: Sequence[NumberMention]) -> tuple[float, float] | None:
    """A value span outside which no page figure supports any of `figures` (wider than `_close`
    and `_within` accept: below half the lowest figure, above twice the highest, beyond the
    rounding); None when a figure allows no such span (a length, converted from any unit)."""
    if any(m.unit in _METRES or m.value < 0 for m in figures):
        return None
    low = min(m.value for m in figures)
    high = max(m.value if m.high is None else m.high for m in figures)
    slack = max(m.step for m in figures) + 1e-6 * max(1.0, high)
    return 0.4 * low - slack, 2.2 * high + slack


def _may_support(text: str, atoms: list[_Atom], figures: Sequence[NumberMention]) -> list[bool] | None:
    """For each atom, whether the mention `numbers_in` reads from it may support one of
    `figures` (None: any may). Every value the reading can give an atom is tried — with or
    without the scale after it, as a range's end with the next atom's scale, as a span of
    years — and percents from fractions and ratios when a figure is a percent.

    A reading can take in the next atom (a range's end, a ratio's base), so whether an atom
    starts a mention of its own depends on how the one before it was read: an atom kept keeps
    the atom before it when the two can be read together, and that one the atom before it.
    Read so, the kept atoms give exactly the mentions the whole page's reading gives them.
    """
    reach = _reach(figures) if figures else None
    if reach is None:
        return None
    lo, hi = reach
    percent = any(m.unit == "%" for m in figures)
    scales = [_scale(text, a.end, True) for a in atoms]  # with a currency: every scale counts
    keep = [False] * len(atoms)
    joined = [False] * len(atoms)  # atom k may be read together with atom k + 1
    for k, a in enumerate(atoms):
        if a.value != a.value:
            continue  # glued to letters: an identifier, never part of a range or ratio
        scale, scale_end = scales[k]
        values = [a.value, a.value * scale]
        kept = percent and not a.digits  # "two thirds": a percent in words
        if k + 1 < len(atoms) and (b := atoms[k + 1]).value == b.value:
            # the reading looks for a separator after the scale, or after the atom when a
            # one-letter scale needs a currency the atom lacks
            gap, scaled_gap = text[a.end : b.start], text[scale_end : b.start]
            in_range = bool(_RANGE_SEP.match(gap) or _RANGE_SEP.match(scaled_gap))
            ratio = bool(_RATIO_SEP.match(gap) or _RATIO_SEP.match(scaled_gap))
            joined[k] = in_range or ratio
            if in_range:
                b_scale = scales[k + 1][0]
                values += [b.value, b.value * b_scale, a.value * b_scale, a.value // 100 * 100 + b.value]
            kept = kept or (ratio and percent)  # "one in four"
        for v in values:
            if lo <= v <= hi:
                kept = True
                break
        keep[k] = kept
    for k in range(len(atoms) - 1, 0, -1):
        if keep[k] and joined[k - 1]:
            keep[k - 1] = True
    return keep


def numbers_in(text: str, near: Sequence[NumberMention] | None = None) -> list[NumberMention]:
    """Every number mention in `text`, each with a `role`; statistics have role "statistic".

    With `near` (a claim's figures), only the mentions that may support one of them are read:
    every mention `find_number` would find for them among all of the text's, identical, and
    a few more. On a page of many figures that is a fraction of the work.
    """
    low, date_matches = _read(text)
    dated = _mask(text, _date_spans(date_matches))
    cited = _mask(text, [m.span() for m in _CITATION_BRACKET.finditer(text)])
    atoms = _atoms(text, low)
    keep = None if near is None else _may_support(text, atoms, near)
    out: list[NumberMention] = []
    i = 0
    while i < len(atoms):
        a = atoms[i]
        i += 1
        if keep is not None and not keep[i - 1]:
            continue
        if a.value != a.value:  # nan: glued to letters
            out.append(NumberMention(0.0, a.start, a.end, a.plain, role="identifier"))
            continue
        start, end = a.start, a.end
        cur_m = _before(_CURRENCY_BEFORE, _CURRENCY_BEFORE_REVERSED, text[max(0, start - 4) : start])
        currency = _CURRENCIES[cur_m.group("cur").lower()] if cur_m else ""
        if cur_m:
            start -= len(cur_m.group(0))
        scale, end = _scale(text, end, bool(currency))
        value, step = a.value * scale, a.step * scale
        unit = currency
        high: float | None = None
        hedge = ""
        role = "statistic"
        # fractions in words: "two thirds", "a quarter"
        frac = _FRACTION_AFTER.match(text, end) if not a.digits else None
        singular = frac is not None and not frac.group("den").lower().endswith("s")
        if frac and singular and not _OF.match(text, frac.end()):
            frac = None  # "a third cousin", "the fifth season": ordinals, not fractions
        if frac is None and a.plain.lower() == "a":
            continue
        if frac and (a.value < _FRACTIONS[frac.group("den").lower()]):
            value = 100.0 * a.value / _FRACTIONS[frac.group("den").lower()]
            unit, hedge, step, end = "%", "approx", 1.0, frac.end()
        # "one in four", "1 out of 5"
        elif i < len(atoms) and _RATIO_SEP.match(text[end : atoms[i].start]) and 0 < a.value < atoms[i].value:
            b = atoms[i]
            if b.value <= 1000 and b.value == b.value and scale == 1.0:
                # "one in four", "nine out of 10": a way of rounding, so approximate
                value, unit, step, end = 100.0 * a.value / b.value, "%", 0.1, b.end
                hedge = "approx"
                i += 1
        else:
            after_end = end
            # a range: "10–20%", "$1-2 million", "between 10 and 20"
            if i < len(atoms) and atoms[i].value == atoms[i].value:
                b = atoms[i]
                sep = text[end : b.start]
                if (
                    _RANGE_SEP.match(sep)
                    # "10 and 20" is a range only after "between", looked for only then
                    and (" and " not in sep.lower() or _BETWEEN.search(text[max(0, start - 12) : start]))
                    and b.digits == a.digits
                ):
                    b_scale, b_end = _scale(text, b.end, bool(currency))
                    if b_scale != 1.0 and scale == 1.0:
                        value, step, scale = a.value * b_scale, a.step * b_scale, b_scale
                    high = b.value * b_scale
                    year_span = 1000 <= a.value <= 2100 and b.value < 100 and re.search("[-–—]", sep)
                    if high <= value and year_span:
                        high = a.value // 100 * 100 + b.value  # "2018–19": a span of years
                    if high > value:
                        after_end = b_end
                        i += 1
                    else:
                        high = None
            end = after_end
            # each read only when the ones before it found nothing, and none where no unit can start
            if text[end : end + 1] in _NO_UNIT_AFTER:
                pass
            elif pct := _PERCENT_AFTER.match(text, end):
                unit, end = "%", pct.end()
            elif mult := _MULT_AFTER.match(text, end):
                unit, end = "x", mult.end()
            elif not unit and (cur_after := _CURRENCY_AFTER.match(text, end)):
                unit, end = _CURRENCIES[cur_after.group("cur").lower()], cur_after.end()
            elif not unit and (length := _LENGTH_AFTER.match(text, end)):
                unit, end = _LENGTH_UNITS[length.group("len").lower()], length.end()
                if scale == 1.0:
                    # "5 million US dollars" had its scale read already; "5 USD" has none
                    pass
        if text[end : end + 1] == "+" and not text[end + 1 : end + 2].isdigit():
            hedge, end = hedge or "min", end + 1  # "20+ project owners": at least 20
        # "19 chromosome pairs": looked for only where "pair" follows (few figures have it)
        pairs = not unit and "pair" in low[end : end + 30] and bool(_PAIRS_AFTER.match(text, end))
        hedge_m = _before(_HEDGE_BEFORE, _HEDGE_BEFORE_REVERSED, text[max(0, start - 20) : start])
        if hedge_m and not hedge:
            hedge = _HEDGES[hedge_m.group("hedge").lower()]
        role = "citation" if cited[a.start] else _role(text, a.start, a.end, a.digits, bool(dated[a.start]))
        if role == "identifier" and (unit in ("%", *_CURRENCIES.values()) or scale != 1.0):
            # names carry no percent, currency or "million": "In the UK 35% of adults",
            # "Gartner 45%" state figures (and a page's identifiers support no claim figure)
            role = "statistic"
        plain_integer = a.digits and a.plain.isdigit()
        if (
            role == "statistic"
            and plain_integer
            and 1000 <= a.value <= 2100
            and scale == 1.0
            and unit in ("",)
            and high is None
            and not _is_count(text, a.start, a.end)
        ):
            role = "year"
        if (
            role == "statistic"
            and plain_integer
            and high is not None
            and 1000 <= a.value <= 2100
            and not unit
        ):
            role = "year"  # "1996–2013", "2019-20"
        if role == "statistic" and a.digits and text[a.end : a.end + 1] in ("s", "S") and a.value % 10 == 0:
            role = "year"  # "1990s", "80s"
        small_word = not a.digits and a.value < 10 and scale == 1.0 and not unit and high is None
        if role == "statistic" and small_word and (a.value < 2 or not _DURATION_AFTER.match(text, end)):
            # "one of the best", "the two companies", "won three frames": small counts in words
            # are mostly turns of phrase or tallies a page spells out item by item; a duration
            # is a figure ("six weeks back into engineering", "the first three or four months").
            role = "small-word"
        # positional arguments: with keywords this call (one per figure) took a third longer
        out.append(NumberMention(value, start, end, text[start:end], unit, step, hedge, high, role, pairs))
    return out


def statistics_in(text: str) -> list[NumberMention]:
    """The mentions of `text` that state a quantity (see the module docstring for what is left out)."""
    return [m for m in numbers_in(text) if m.is_statistic]


def _units_agree(claim: NumberMention, page: NumberMention) -> bool:
    if claim.unit == page.unit:
        return True
    if claim.unit == "%" or page.unit == "%":
        return False
    # A currency amount or a multiplier may appear on the page as a bare number, and vice versa.
    return claim.unit == "" or page.unit == "" or False


def _close(claim_value: float, claim: NumberMention, page_value: float) -> bool:
    """`page_value` supports `claim_value` under the claim's precision and hedge."""
    rounding = min(claim.step / 2, 0.05 * abs(claim_value)) + 1e-9 * max(1.0, abs(claim_value))
    diff = page_value - claim_value
    if abs(diff) <= rounding:
        return True
    if claim.hedge == "approx":
        return abs(diff) <= 0.10 * abs(claim_value) + rounding
    if claim.hedge == "min":
        return claim_value - rounding <= page_value <= 2 * claim_value
    if claim.hedge == "max":
        return claim_value / 2 <= page_value <= claim_value + rounding
    if claim.hedge == "near":
        return 0.9 * claim_value <= page_value <= claim_value + rounding
    return False


def _doubled(m: NumberMention) -> NumberMention:
    """A count of pairs as the count of their members."""
    high = None if m.high is None else 2 * m.high
    return replace(m, value=2 * m.value, high=high, step=2 * m.step, pairs=False)


def supports(claim: NumberMention, page: NumberMention) -> bool:
    """Whether the page mention states the claim's figure (see the module docstring)."""
    if claim.pairs != page.pairs:
        # "19 pairs" states 38, and 38 states "19 pairs"
        return supports(_doubled(claim), page) if claim.pairs else supports(claim, _doubled(page))
    if claim.unit in _METRES and page.unit in _METRES and claim.unit != page.unit:
        return _converted_supports(claim, page)
    if not _units_agree(claim, page):
        return False
    page_values = [page.value] if page.high is None else [page.value, page.high]
    if claim.high is not None:
        same_range = (
            page.high is not None
            and _close(claim.value, claim, page.value)
            and _close(claim.high, claim, page.high)
        )
        # "R0 between 2 and 3" is what a page saying "2.9" states: a claimed range holds every
        # page figure (or range) that lies within it.
        return same_range or all(_within(claim, v) for v in page_values)
    return any(_close(claim.value, claim, v) for v in page_values)


def _converted_supports(claim: NumberMention, page: NumberMention) -> bool:
    """A length stated in another unit: converted figures are rounded ("2 m (6 feet)"), so
    ±10 % unless the claim's hedge allows more."""
    factor = _METRES[page.unit] / _METRES[claim.unit]
    high = None if page.high is None else page.high * factor
    converted = replace(page, value=page.value * factor, high=high, unit=claim.unit)
    hedge = claim.hedge or "approx"
    return supports(replace(claim, hedge=hedge), converted)


def _within(claim: NumberMention, value: float) -> bool:
    assert claim.high is not None
    ends = _close(claim.value, claim, value) or _close(claim.high, claim, value)
    return ends or claim.value <= value <= claim.high


def _allowed(m: NumberMention) -> tuple[float, float]:
    """The values a figure allows under its own rounding, range and hedge (for `conflicts`)."""
    low, high = m.value, m.value if m.high is None else m.high
    rounding = m.step / 2
    if m.hedge == "approx":
        return low - 0.10 * abs(low) - rounding, high + 0.10 * abs(high) + rounding
    if m.hedge == "min":
        return low - rounding, math.inf
    if m.hedge == "max":
        return -math.inf, high + rounding
    if m.hedge == "near":
        return 0.5 * low, high + rounding
    return low - rounding, high + rounding


def conflicts(claim: NumberMention, page: NumberMention) -> bool:
    """Whether the page figure gives another value than the claim's, under every reading of
    either side (see the module docstring): the same unit (a length in any unit), and no value
    that both allow. Whether the two figures are of the same thing is the number check's to
    decide."""
    if claim.pairs != page.pairs:
        return conflicts(_doubled(claim), page) if claim.pairs else conflicts(claim, _doubled(page))
    slack = 0.0
    if claim.unit in _METRES and page.unit in _METRES and claim.unit != page.unit:
        factor = _METRES[page.unit] / _METRES[claim.unit]
        high = None if page.high is None else page.high * factor
        page = replace(page, value=page.value * factor, high=high, step=page.step * factor, unit=claim.unit)
        slack = 0.10  # converted figures are rounded (see `_converted_supports`)
    if claim.unit != page.unit or supports(claim, page):
        return False
    claim_low, claim_high = _allowed(claim)
    page_low, page_high = _allowed(page)
    # Rounding intervals are half open: "3,000" (2,500 up to 3,500) and "4,000" (from 3,500)
    # share no value.
    gap = max(page_low - claim_high, claim_low - page_high)
    size = max(abs(claim.value), abs(claim.high or 0.0), abs(page.value), abs(page.high or 0.0))
    return gap >= slack * size


def find_number(claim: NumberMention, page: list[NumberMention]) -> list[NumberMention]:
    """The page mentions that support `claim`; for a range, both ends found apart also count."""
    # A date's day or a name's number is not a count: "17 hours" is not stated by "May 17" or
    # "Copy 17", "eleven days" not by "June 11" (WiCE dev).
    page = [p for p in page if p.role not in ("citation", "list", "date", "identifier")]
    hits = [p for p in page if supports(claim, p)]
    if hits or claim.high is None:
        return hits
    low = NumberMention(claim.value, claim.start, claim.end, claim.text, claim.unit, claim.step, claim.hedge)
    high = NumberMention(claim.high, claim.start, claim.end, claim.text, claim.unit, claim.step, claim.hedge)
    lows = [p for p in page if supports(low, p)]
    highs = [p for p in page if supports(high, p)]
    return [lows[0], highs[0]] if lows and highs else []


def format_value(m: NumberMention) -> str:
    """A short normalised rendering for reports: 14000000 → "14,000,000"."""

    def one(v: float) -> str:
        return (
            f"{v:,.0f}"
            if v == int(v)
            else f"{v:,.4g}"
            if abs(v) < 1000
            else f"{v:,.2f}".rstrip("0").rstrip(".")
        )

    body = one(m.value) if m.high is None else f"{one(m.value)}–{one(m.high)}"
    if m.unit == "%":
        return body + "%"
    if m.unit == "x":
        return body + "×"
    if m.unit:
        return f"{m.unit} {body}" if m.unit != "$" else f"${body}"
    return body
