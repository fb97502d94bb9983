"""Claim kinds of a sentence: the checkable facts it states (see docs/ARCHITECTURE.md).

A sentence is a claim when it carries a citation (kind `hyperlinked`, given once its citations
resolve: `citecheck.extract.document`) or a checkable fact, found here (`detect_kinds`):
- `statistic`: a number with a percent sign or word ("35%", "forty percent"), a currency
  ("$2.1bn", "€5"), a scale word ("14 million", "2k", "a million"), a multiplier ("3x",
  "three times as"), a ratio ("one in four", "9 out of 10"), a fraction ("two-thirds"), or a
  count of things ("40 members", "48 hours", "1,200 projects"). Vague amounts ("thousands
  of", "half of") are not statistics: there is no figure to look up, and every `statistic`
  claim holds a figure that `citecheck.numbers` (the number check) recognises, except a figure
  with a glued unit ("512MiB", "200ms"), which it does not read yet. A number after a name is a
  name or version, not a count ("React 18 introduces", "Section 508 standards");
- `quote`: a quotation of three or more words in straight or curly quotes with an
  attribution cue in the sentence ("said", "wrote", "according to", "— Name", ...); the walk
  adds `quote` to the sentences of an attributed block quote or kramdown pull quote;
- `temporal`: a year ("in 2023", "the 1990s"), a date ("2024-03-01", "March 5", "May 2021"),
  a month with a preposition ("since March"), a relative time ("last year", "two years ago");
  a number after a label is not a year ("RFC 1918", "ISO 8601", "version 2000");
- `comparative`: "faster than", "more … than", "the largest", "the most popular", "doubled",
  "grew by", "twice as many". Evaluative superlatives ("the most important", "the best
  way") and idioms ("more than just", "rather than", "better than") are not comparatives.
The walk hands `detect_kinds` the sentence with its code spans and running-text citations
masked, so a URL, DOI, arXiv id or PMID is never read as a year or a figure.

What a sentence's form says it asserts (a question, a pointer, an instruction, advice) is
read by `citecheck.extract.phrases`, for the skip rules (`citecheck.extract.skip`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.words import IMPERATIVE_VERBS, PREPOSITIONS
from citecheck.models import ClaimKind
from citecheck.numbers import DURATION_AFTER, NOT_RELATIVE, wordset

# Each kind is a few small regexes, run only when a cheap test (a digit, a word from a set)
# says they could match: extraction must keep up with the parser (bench/extract.py).
# A number glued to a word by an apostrophe is part of a name ("SciPy'19", "PyCon’24").
_NUM = r"(?<![\w.,$€£¥/#'’:-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_SMALL = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|\d+)"
_COUNT_NOUNS = (
    r"(?:people|persons|users|developers|devs|contributors|maintainers|members|projects|repositories|repos|"
    r"companies|organi[sz]ations|orgs|downloads|installs|stars|forks|commits|issues|pull requests|PRs|"
    r"countries|respondents|participants|employees|customers|students|visitors|views|sites|websites|"
    r"packages|libraries|languages|lines|files|tests|bugs|vulnerabilities|hours|days|weeks|months|years|"
    r"minutes|seconds|times|percent|points|votes|sponsors|donors|dollars|euros|pounds|servers|requests|"
    r"teams|apps|applications|games|books|articles|papers|studies|surveys|responses|cases|deaths|jobs|"
    r"workers|accounts|devices|machines|cores|nodes|releases|versions|events|meetings|"
    r"bytes|bits|pixels|characters|tokens|records|rows|entries|items|words|scholarships|grants|awards)"
)
_COUNT_NOUN = re.compile(_COUNT_NOUNS + r"\b", re.IGNORECASE)
# Up to two words between a count and its noun: a capitalised adjective ("110 English speakers")
# and a lower-case one ("90 open source maintainers"), never a preposition ("644 for default
# permissions"), a conjunction or a verb, nor an acronym ("401 HTTP responses" is a status code).
_NO_ADJECTIVE = PREPOSITIONS | wordset(
    "and or the rather because since when if that which while so but not is are was were be"
)
_BEFORE_NOUN = r"(?:[A-Z][a-z]+\s+)?(?:(?!(?:" + "|".join(sorted(_NO_ADJECTIVE)) + r")\b)[a-z]+\s+){0,2}"
# Every alternative starts at a digit or a currency sign; the lookahead says so up front, so
# `re` tries one character class at each position instead of eleven alternatives (their
# lookbehinds first): measured 6x faster on the realdocs-dev paragraphs, same matches.
_STAT_DIGITS = re.compile(
    r"(?=[\d$€£¥₹])(?:"
    + "|".join(
        [
            rf"{_NUM}\s?(?:%|‰|percent\b|per\s?cent\b|percentage points?\b)",
            # a range of percentages: "18-25%"
            rf"{_NUM}\s?[-–]\s?\d{{1,3}}(?:\.\d+)?\s?%",
            # a measurement with its unit: "200ms", "512 MiB", "3GiB", "6MB", "40 Gbps", "120 km",
            # "20°C", "5 kWh", "7 TFlops" ("1.4s", "90s" only with a decimal or up to three digits:
            # "the 1990s" is a decade; "5m" may be minutes or millions, so metres need their word)
            rf"{_NUM}\s?(?:[KMGTP]i?B|EiB|[kKMG]b(?:ps)?|ms|µs|ns|[KMG]Hz|fps|rps|qps"
            r"|km(?:/h)?|cm|mm|nm|kg|mg|lbs?|ft|mph|kph|[kMGT]Wh?|[KMGTPE]?FLOPs?)\b",
            rf"{_NUM}\s?°\s?[CF]\b",
            # ("1:1s" are meetings)
            r"(?<![\w.,$/#'’:-])(?:\d+\.\d+|\d{1,3})\s?s\b(?!['’])",
            r"[$€£¥₹]\s?\d",
            rf"{_NUM}\s?(?:USD|EUR|GBP|dollars|euros|pounds|thousand|million|billion|trillion|bn|mn|k)\b",
            # "138M", "2.5B", "25K" (upper case: "3d", "5m" are other units)
            rf"{_NUM}(?-i:[KMB])\b",
            rf"{_NUM}\s?[x×](?!\w)",
            rf"{_NUM}\s+(?:in|out\s+of)\s+(?:every\s+)?{_SMALL}\b",
            rf"{_NUM}(?:\s?[-–]\s?\d+)?\s+(?:times|fold)\b",  # "3 times", "4-5 times"
            # a count is a number before a lower-case noun: "24 Pull Requests" is a name; "25+
            # scholarships" is one
            rf"{_NUM}(?:\s?[-–]\s?\d+)?\+?\s+(?-i:{_BEFORE_NOUN}{_COUNT_NOUNS})\b",  # "~700-800 new projects"
            # ("110 English speakers", "over 90 open source maintainers"; a plural, not "status")
            r"(?<![\w.,$/#'’:-])(?:\d{1,3}(?:,\d{3})+|\d{2,})(?:\.\d+)?\+?\s+"
            rf"(?-i:{_BEFORE_NOUN}[a-z]{{2,}}[a-hj-rtv-z]s)\b",
            # two figures compared: "(81.4 versus 99.5)"
            rf"{_NUM}%?\s+(?:versus|vs\.?)\s+\d+(?:\.\d+)?%?(?!\w)",
        ]
    )
    + ")",
    re.IGNORECASE,
)
# Numbers in words from two, and from ten (counts of things; `citecheck.numbers` reads "two" to
# "nine" alone as a turn of phrase)
_WORD_TEN_UP = (
    r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_WORD_NUMBER = rf"(?:two|three|four|five|six|seven|eight|nine|{_WORD_TEN_UP})"
_STAT_WORD_GATE = wordset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty "
    "sixty seventy eighty ninety percent "
    "hundred hundreds thousand thousands million millions billion billions trillion dozens "
    "twice thrice thirds third quarter quarters fifth fifths tenth half"
)
_STAT_WORDS = re.compile(
    r"\b(?=[aotfsen\d])(?:"  # every alternative opens with a word starting so (see `_STAT_DIGITS`)
    + "|".join(
        [
            # Vague amounts ("thousands of", "several million", "twice as", "half of") are not
            # statistics: no figure to look up (`citecheck.numbers` agrees); "twice as" is comparative.
            rf"\b(?:a|{_SMALL})[ -](?:hundred|thousand|million|billion|trillion)\b",
            rf"\b{_SMALL}\s+times\s+(?:as|more|less|fewer|faster|slower|larger|bigger|"
            r"smaller|higher|lower|greater|the)\b",
            rf"\b{_SMALL}\s+(?:in|out\s+of)\s+(?:every\s+)?{_SMALL}\b",
            rf"\b(?:{_SMALL}|sixty|seventy|eighty|ninety)(?:[ -][a-z]+)?\s+(?:percent|per\s+cent)\b",
            r"\b(?:two|three|four)[ -](?:thirds|quarters|fifths)\b",
            # a duration in words, the figure it states ("six weeks back into engineering", "the
            # first three or four months", "a nine-month fellowship"; not "one day", "two years
            # ago" (a relative time) or "the next six months" (a plan)), and a count
            # in words from ten ("the coalition includes twelve organizations"; "the two companies"
            # is a turn of phrase: `citecheck.numbers` agrees)
            rf"(?<!next )\b{_WORD_NUMBER}{DURATION_AFTER}",
            rf"(?<!next )\b{_WORD_TEN_UP}\s+(?-i:{_BEFORE_NOUN}{_COUNT_NOUNS})\b{NOT_RELATIVE}",
            r"\b(?:a|one)[ -](?:third|quarter|fifth|tenth)\s+of\b",
        ]
    )
    + ")",
    re.IGNORECASE,
)
_YEARLIKE = re.compile(r"(?:1[5-9]\d\d|20\d\d)")

_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan.|Feb.|Mar.|Apr.|Jun.|Jul.|Aug.|Sep.|Sept.|Oct.|Nov.|Dec."
)
_MONTH_GATE = frozenset(m.rstrip(".").lower() for m in _MONTHS.split("|"))
_MONTH = "(?:" + _MONTHS.replace(".", r"\.") + ")"
# What follows a time of day that names its moment: its half of the day or its time zone
# ("6:48AM", "14:00 UTC", "9:30 PDT", "18:00 CEST"; "00:07:12 PART 1" is a chapter, not a zone).
ZONE = r"(?:[AaPp]\.?[Mm]\b|UTC\b|GMT\b|Z\b|(?:[ECMP]|A[ECW]|NZ)[SD]?T\b|[CEW]ES?T\b|[BIJK]ST\b)"
# The alternatives start at a digit, "'", "Q", "FY"/"fiscal" or a preposition's first letter
# (the lookahead, as for `_STAT_DIGITS`).
_TEMPORAL_DIGITS = re.compile(
    r"(?=[\d'QFfSsAaUuPp])(?:"
    + "|".join(
        [
            r"(?<![\w.,/#$€£-])(?:1[6-9]\d\d|20\d\d)(?:s|’s|'s)?(?![\w/%]|[.,]\d)",
            r"(?<![\w.])'\d0s\b",
            r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b|\b\d{1,2}-\d{1,2}-\d{4}\b",
            # a time of day with its zone or half of the day ("6:48AM PDT", "14:00 UTC"), or
            # heading a timeline entry ("13:43: The chain moved …", "10:03 - Reverted …")
            rf"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?{ZONE}|(?=:\s|\s[-–—]\s))",
            r"\bQ[1-4]\s+(?:of\s+)?(?:19|20)\d\d\b|\b(?:FY|fiscal\s+year\s+)(?:19|20)?\d\d\b",
            r"\b\d{1,2}(?:st|nd|rd|th)[ -]century\b",
            r"\b\d+\s+(?:years?|months?|weeks?|days?|decades?)\s+ago\b",
            # a release as a point in time: "since version 3.6.0", "as of v2.1"
            r"\b(?:[Ss]ince|[Aa]s\s+of|[Ss]tarting\s+(?:with|in|from)|[Uu]ntil|[Pp]rior\s+to)\s+"
            r"(?:version|release|v)\s?\d+(?:\.\d+)+\b",
        ]
    )
    + ")"
)
# What every match of `_TEMPORAL_MONTH` holds, a capitalised month (case matters there):
# searched first, it rules out the common "may" of prose at a fraction of the cost.
_MONTH_NAME = re.compile(r"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec")
_TEMPORAL_MONTH = re.compile(
    rf"\b(?:[Ii]n|[Ss]ince|[Bb]y|[Uu]ntil|[Tt]ill|[Ff]rom|[Dd]uring|[Bb]efore|[Aa]fter|[Oo]f|[Oo]n|"
    rf"[Ee]arly|[Ll]ate|[Mm]id-?|[Ll]ast|[Tt]his|[Nn]ext|[Tt]hrough)\s+{_MONTH}|"
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH},?\s+\d{{4}}\b|"
    # a month abbreviated without its full stop, with a day or a year: "Jan 17", "Oct 2025"
    r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\s+(?:\d{1,2}(?:st|nd|rd|th)?|\d{4})\b(?![.:]\d)"
)
_RELATIVE_GATE = wordset(
    "year years month months week weeks decade decades quarter century ago summer winter spring fall autumn"
)
_TEMPORAL_WORDS = re.compile(
    # the unit in lower case: "This Week in Rust" is a newsletter's name
    r"\b(?:last|past|previous|this|next|coming)\s+(?-i:year|month|week|decade|quarter|century|summer|winter|"
    r"spring|fall|autumn)\b|"
    r"\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few|many)\s+"
    r"(?:years?|months?|weeks?|days?|decades?|centuries)\s+ago\b|"
    r"\b(?:nineteenth|twentieth|twenty-first)[ -]century\b",
    re.IGNORECASE,
)
_TEMPORAL_ALWAYS = frozenset({"yesterday"})

_THAN = re.compile(
    # "no later than May 1, 2026" is a deadline, not a comparison
    r"\b(?!(?<=\b[Nn]o\s)(?:later|earlier)\b|(?<=\b[Nn]ot\s)(?:later|earlier)\b)(?!rather\b|other\b|whether\b|either\b|neither\b|together\b|ever\b|never\b|however\b|"
    r"better\b|longer\b|bigger\b|further\b)[a-z]{2,}er\s+than\b|"
    r"\b(?:more|less|fewer)\s+(?!just\b|simply\b|merely\b|only\b)(?:[\w-]+\s+){1,3}?than\b|"
    r"\b(?:more|less|fewer)\s+than\s+(?:\d|doubled|tripled|halved|half|a\s+third|twice)|"
    # "greater for the packaging guide than the reviewing guide"
    r"\b(?:greater|higher|lower|larger|smaller|faster|slower|cheaper|stronger|weaker|longer|shorter|"
    r"bigger)\s+(?:[\w-]+\s+){1,4}?than\b"
)
_SUPERLATIVE_WORDS = (
    "largest biggest fastest slowest smallest highest lowest greatest oldest newest longest shortest "
    "strongest weakest cheapest richest busiest heaviest lightest youngest widest deepest"
)
_SUPERLATIVE_GATE = frozenset(
    [*_SUPERLATIVE_WORDS.split(), "most", "least", "top", "growing", "selling", "best"]
)
# "the lowest cost possible", "its weakest link", "the shortest path" (of a graph): idioms, not
# comparisons
_SUPERLATIVE_IDIOM = re.compile(r"\s+(?:\w+\s+)?possible\b|\s+link\b|\s+paths?\b")
_SUPERLATIVE = re.compile(
    r"\b(?:the|its|their|our|his|her|world'?s|[A-Z]\w+'s)\s+(?:(?:single|very|second|third|\w+'s)\s+)?"
    r"(?:" + _SUPERLATIVE_WORDS.replace(" ", "|") + r"|(?:most|least)\s+(?!important\b|interesting\b|"
    r"useful\b|valuable\b|effective\b|helpful\b|exciting\b|rewarding\b|difficult\b|challenging\b|fun\b|"
    r"controversial\b|innovative\b|amazing\b|engaged\b|experienced\b|talented\b|impressive\b|inspiring\b|"
    r"powerful\b|meaningful\b|beautiful\b|enjoyable\b|critical\b|essential\b|part\b|out\b|of\b|likely\b|"
    r"cases\b|people\b|productive\b|convenient\b|versatile\b|comfortable\b|natural\b|obvious\b|"
    r"straightforward\b|elegant\b|intuitive\b|flexible\b|practical\b|sensible\b|appropriate\b|suitable\b|"
    r"relevant\b|promising\b|to\b|for\b)[a-z]\w+|fastest-growing|best-selling|top\s+\d+)\b|"
    r"\b(?:fastest-growing|most\s+popular|most\s+used|most\s+widely|world's\s+largest|best[- ]known|"
    r"best[- ]selling|most[- ]downloaded|most[- ]starred)\b"
)
_CHANGE_ALWAYS = wordset(
    "doubled tripled quadrupled halved trebled outperform outperforms outperformed outnumber "
    "outnumbers outnumbered surpass surpasses surpassed overtook overtaken"
)
_CHANGE_GATE = wordset(
    "increased decreased grew rose fell dropped declined jumped climbed surged plunged shrank "
    "increases decreases grows rises falls drops declines twice thrice times up down"
)
# after an article a change word is a noun: "A rose by any other name", "the fall of 2020"
_CHANGE = re.compile(
    r"(?<!\ba\s)(?<!\bA\s)(?<!\bthe\s)(?<!\bThe\s)\b(?:increased|decreased|grew|rose|fell|dropped|declined|jumped|climbed|surged|plunged|shrank|"
    r"increases|decreases|grows|rises|falls|drops|declines)\s+(?:by|from|to|more\s+than)\b|"
    r"\b(?:twice|thrice|\w+\s+times)\s+(?:as\s+[\w-]+|more|less|fewer|faster|slower)\b|"
    # "93 percent …, up from 56 percent in 2012"
    r"\b(?:up|down)\s+from\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|just\s+)?[$€£]?\d"
)
_CLOSE_QUOTE = {"“": "”", '"': '"', "‘": "’"}
_QUOTED_MIN = 8  # characters between the quotes
_QUOTED = re.compile(r"“[^”]{8,}”|\"[^\"]{8,}\"|‘[^’]{8,}’")
_FEW_QUOTES = 16


def _quotations(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each quotation of at least `_QUOTED_MIN` characters in curly or straight
    quotes: the matches of `_QUOTED`. The pattern tries every opening quote to the next closing
    one, so it is linear only while the quotes are few, as in any real sentence; with more,
    `_scan_quotations` finds the same matches in linear time."""
    if sum(map(text.count, _CLOSE_QUOTE)) <= _FEW_QUOTES:
        return (m.span() for m in _QUOTED.finditer(text))
    return _scan_quotations(text)


def _scan_quotations(text: str) -> Iterator[tuple[int, int]]:
    """The matches of `_QUOTED` in linear time: a run of "“" with no "”" made the pattern
    quadratic. A curly quote that fails is skipped with every one of its kind up to the closing
    quote it looked for (they find the same one, nearer, or none either), and each kind's next
    opening quote is looked for from where the last look ended."""
    n = len(text)
    pos = 0
    skip = dict.fromkeys(_CLOSE_QUOTE, 0)  # an opening quote of this kind before here fails
    ahead = dict.fromkeys(_CLOSE_QUOTE, -2)  # the next one of each kind found so far (-1: none)
    while True:
        p = -1
        for opening in _CLOSE_QUOTE:
            at = max(pos, skip[opening])
            if 0 <= ahead[opening] < at or ahead[opening] == -2:
                ahead[opening] = text.find(opening, at) if at <= n else -1
            if ahead[opening] >= 0 and (p < 0 or ahead[opening] < p):
                p = ahead[opening]
        if p < 0:
            return
        opening = text[p]
        pos = p + 1
        q = text.find(_CLOSE_QUOTE[opening], p + 1)
        if q < 0:
            skip[opening] = n + 1
        elif q - p - 1 >= _QUOTED_MIN:
            yield p, q + 1
            pos = q + 1
        elif opening != '"':
            skip[opening] = q  # (a straight quote's closing one may open the next quotation)


_ATTRIBUTION = re.compile(
    r"\b(?=[swtneacpdroi])(?:said|says|wrote|writes|told|tells|stated|noted|explained|explains|added|argued|argues|claimed|"
    r"according\s+to|put\s+it|puts\s+it|described|asked|recalls|recalled|observed|remarked|commented|"
    r"tweeted|announced|admitted|admits|warned|warns|insisted|declared|replied|reported|concluded|"
    r"concludes|in\s+the\s+words\s+of|called\s+it)\b",
    re.IGNORECASE,
)
# A dash attributes a quotation only after it: “…” — Name, “…” - Winston Churchill (a dash before
# the quotation is punctuation: "— when the engine has to “stop the world”").
_ATTRIBUTION_DASH = re.compile(r"(?:^|\s)[—―]\s*\S|[”\"’']\s*[-–]\s+[(\[]?[A-Z].{0,60}$")
_DIGIT = re.compile(r"\d")
# Lower-case words for the gates: the runs of characters that are neither whitespace (as
# `str.split` has it) nor digits or punctuation. Both ways below find the same words; on ASCII
# text translating punctuation to spaces and splitting is faster (`str.translate` has an ASCII
# fast path), on other text (a curly quote, a dash) one `findall` is (measured: 1.7x and 2x).
_NOT_WORD_CHARS = "0123456789.,;:!?()[]{}\"“”‘’'*_~`/\\|<>@#$%^&+=-–—…"
_NOT_WORD = str.maketrans(dict.fromkeys(_NOT_WORD_CHARS, " "))
_WORD_RUN = re.compile(r"[^\s" + "".join(map(re.escape, _NOT_WORD_CHARS)) + "]+")


# A number right after a name is part of the name or a version ("React 18 introduces", "Section
# 508 standards", "Windows 10 users"), not a count; the capitalised words that open a sentence
# before a count ("Over 8,800 people", "The 45 responses") are not names.
_NAME_BEFORE = re.compile(r"(?:^|[\s(])([A-Z][\w.+#-]*)\s$")
_NOT_NAMES = wordset(
    "a an the all some any each every no over about around nearly almost only just more less fewer "
    "than approximately roughly exactly at least most top first last another these those this that "
    "our their its his her my your we they it there here since after before during within under up "
    "in of on by with for from to and or but per among between across of over some "
    "january february march april may june july august september october november december"
)
_COUNT_FORM = re.compile(r"\d\s+(?:[a-z]+\s+)?[a-z]{3,}")  # a count: a number before a noun


def _named(text: str, m: re.Match[str]) -> bool:
    """Whether a count-like match ("18 introduces") is a number after a name."""
    if not _COUNT_FORM.match(m.group(0), len(m.group(0).split()[0]) - 1):
        return False
    name = _NAME_BEFORE.search(text, max(0, m.start() - 40), m.start())
    if name is None:
        return False
    word = name.group(1).lower()
    # a sentence's first word may be a verb ("Join 24 pull requests"), not a name
    return word not in _NOT_NAMES and not (text[: name.start(1)].strip() == "" and word in IMPERATIVE_VERBS)


# "100% remote", "100% certain", "the 0% problems", "set to 100%": all or nothing as a manner of
# speaking or a setting. A share of something ("100% of the tests") or a change ("grew by 100%",
# "reached 100%") is a figure, and so is a table's cell ("Prometheus | 2.26.0 | 100%").
_ALL_OR_NONE = re.compile(r"(?:100|0)(?:\.0+)?\s?(?:%|percent|per\s?cent)", re.IGNORECASE)
_SHARE_AFTER = re.compile(r"\s+of\b")
_CHANGE_BEFORE = re.compile(
    r"\b(?:by|up|down|from|than|over|under|nearly|almost|about|around|reached|reaches|hit|hits|achieved)\s+$",
    re.IGNORECASE,
)


def _all_or_none(text: str, m: re.Match[str]) -> bool:
    return (
        _ALL_OR_NONE.fullmatch(m.group(0)) is not None
        and not (text[: m.start()].rstrip().endswith("|") or text[m.end() :].lstrip().startswith("|"))
        and _SHARE_AFTER.match(text, m.end()) is None
        and _CHANGE_BEFORE.search(text, max(0, m.start() - 12), m.start()) is None
    )


def _is_statistic(text: str, has_digit: bool, lower_words: set[str]) -> bool:
    if has_digit or "$" in text or "€" in text or "£" in text:
        for m in _STAT_DIGITS.finditer(text):
            # A bare year before a noun ("the 2017 survey") is a date, not a count.
            lead = m.group(0).split()[0]
            if _named(text, m) or _all_or_none(text, m):
                continue
            if not _YEARLIKE.fullmatch(lead) or _COUNT_NOUN.search(m.group(0)):
                return True
    return not lower_words.isdisjoint(_STAT_WORD_GATE) and _STAT_WORDS.search(text) is not None


# A number after one of these names a thing ("RFC 1918", "ISO 8601", "PR 2048"), not a year.
_LABEL_BEFORE = re.compile(
    r"(?:\b[A-Z]{2,}|\b(?i:no|number|version|v|page|section|chapter|issue|pull|step))[ -]$"
)


# Capitalised words before a year that date it rather than name something ("In 2018", "Summer
# 2020", "Dec 2019"); any other capitalised word before a year is a name the year belongs to.
_DATING_WORDS = _NOT_NAMES | wordset(
    "until till through throughout circa early late mid end spring summer fall autumn winter jan feb mar apr "
    "jun jul aug sep sept oct nov dec christmas easter year fiscal cy"
)


_DATE_GOES_ON = re.compile(r"[-/]\d")


def _year_in_name(text: str, m: re.Match[str]) -> bool:
    """Whether a year is part of a name: an edition, an event or a product ("Rust 2018",
    "PromCon 2016", "Windows 2000"), not a date."""
    if _YEARLIKE.fullmatch(m.group(0)) is None or _DATE_GOES_ON.match(text, m.end()) is not None:
        return False  # a decade, "2 weeks ago", the year of "2019-06-05"
    name = _NAME_BEFORE.search(text, max(0, m.start() - 40), m.start())
    return name is not None and name.group(1).rstrip(".").lower() not in _DATING_WORDS


# A year-like number before one of these counts them ("URLs up to 2048 bytes", "1920 pixels").
_UNIT_AFTER = re.compile(r"\s?(?:bytes|bits|pixels|px|characters|chars|tokens|rows|records|entries|words)\b")


# A year-like number after a measure is its value: "a sequence length of 2048", "a 1920 width".
_MEASURE_BEFORE = re.compile(
    r"\b(?:length|size|width|height|depth|limit|capacity|resolution|window|budget|dimension)s?\s+"
    r"(?:of\s+|is\s+|=\s*)?$",
    re.IGNORECASE,
)
# A time of day that recurs is a schedule, not a moment: "Mondays at 6:00 AM UTC".
_RECURRING = re.compile(
    r"\b(?:every|each|daily|nightly|weekly|biweekly|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days)\b"
)


def _has_date(text: str) -> bool:
    for m in _TEMPORAL_DIGITS.finditer(text):
        if m.group(0)[:1].isdigit() and (
            _LABEL_BEFORE.search(text, max(0, m.start() - 12), m.start())
            or _year_in_name(text, m)
            or _UNIT_AFTER.match(text, m.end()) is not None
            or _MEASURE_BEFORE.search(text, max(0, m.start() - 24), m.start()) is not None
            or (":" in m.group(0) and _RECURRING.search(text) is not None)
        ):
            continue
        return True
    return False


def _superlative(text: str) -> bool:
    return any(_SUPERLATIVE_IDIOM.match(text, m.end()) is None for m in _SUPERLATIVE.finditer(text))


def _is_quote(text: str, has_digit: bool, lower: set[str]) -> bool:
    if '"' in text or "“" in text or "‘" in text:
        for qs, qe in _quotations(text):
            if text.count(" ", qs, qe) >= 2:
                # the attribution is outside the quoted words: a changelog's 'Fixed "existsEnv
                # declared twice …"' quotes an issue's title, no one's words
                outside = text[:qs] + " " * (qe - qs) + text[qe:]
                return bool(_ATTRIBUTION.search(outside) or _ATTRIBUTION_DASH.search(text, qe - 1))
    return False


def _is_temporal(text: str, has_digit: bool, lower: set[str]) -> bool:
    return bool(
        (has_digit and _has_date(text))
        or (not lower.isdisjoint(_MONTH_GATE) and _MONTH_NAME.search(text) and _TEMPORAL_MONTH.search(text))
        or (not lower.isdisjoint(_RELATIVE_GATE) and _TEMPORAL_WORDS.search(text))
        or not lower.isdisjoint(_TEMPORAL_ALWAYS)
    )


def _is_comparative(text: str, has_digit: bool, lower: set[str]) -> bool:
    return bool(
        ("than" in lower and _THAN.search(text))
        or (not lower.isdisjoint(_SUPERLATIVE_GATE) and _superlative(text))
        or not lower.isdisjoint(_CHANGE_ALWAYS)
        or (not lower.isdisjoint(_CHANGE_GATE) and _CHANGE.search(text))
    )


# Each kind's test, in `ClaimKind` order; `has_kind` tries them cheapest first.
_KIND_TESTS = (
    (ClaimKind.statistic, _is_statistic),
    (ClaimKind.quote, _is_quote),
    (ClaimKind.temporal, _is_temporal),
    (ClaimKind.comparative, _is_comparative),
)
_CHEAPEST_FIRST = (_is_comparative, _is_temporal, _is_quote, _is_statistic)


def _gates(text: str) -> tuple[bool, set[str]]:
    lower = text.lower()
    words = lower.translate(_NOT_WORD).split() if lower.isascii() else _WORD_RUN.findall(lower)
    return _DIGIT.search(text) is not None, set(words)


# Every word a kind test looks for before it tries a pattern. Each test needs a digit, a
# currency sign, a quotation mark or one of these words, so a text with none of them has no
# kind, which one set test says for most sentences and blocks (a new gate word joins this set).
_ANY_GATE = frozenset(
    _STAT_WORD_GATE
    | _MONTH_GATE
    | _RELATIVE_GATE
    | _TEMPORAL_ALWAYS
    | {"than"}
    | _SUPERLATIVE_GATE
    | _CHANGE_ALWAYS
    | _CHANGE_GATE
)


def _may_have_kind(text: str, has_digit: bool, lower: set[str]) -> bool:
    return (
        has_digit
        or not lower.isdisjoint(_ANY_GATE)
        or "$" in text
        or "€" in text
        or "£" in text
        or '"' in text
        or "“" in text
        or "‘" in text
    )


def detect_kinds(text: str) -> list[ClaimKind]:
    """The fact kinds of a sentence (without `hyperlinked`), in `ClaimKind` order."""
    has_digit, lower = _gates(text)
    if not _may_have_kind(text, has_digit, lower):
        return []
    return [kind for kind, test in _KIND_TESTS if test(text, has_digit, lower)]


def has_kind(text: str) -> bool:
    """`bool(detect_kinds(text))`, stopping at the first kind found (the walk asks it of whole
    blocks, to decide whether to parse them)."""
    has_digit, lower = _gates(text)
    return _may_have_kind(text, has_digit, lower) and any(
        test(text, has_digit, lower) for test in _CHEAPEST_FIRST
    )
