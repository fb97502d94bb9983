"""Claim kinds of a sentence, and the sentences that state no fact (see docs/ARCHITECTURE.md).

A sentence is a claim when it carries a citation (kind `hyperlinked`, decided by the document
walk in `citecheck.extract.document`) or a checkable fact, found here (`detect_kinds`):
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

Sentences that assert nothing are skipped unless they cite: questions (`is_question`: ending
in "?", even with a link), imperatives ("Use …", "Don't …", "Tip: Try [X](…)"), advice,
requirements and opinions ("you should …", "the key must be …", "I think …", "it's a good
idea …", "in my experience …") and copyright lines (`is_imperative_or_opinion`); instructions,
offers and invitations to the reader ("You can …", "If you …, …", "We encourage you to …") and
clear imperatives are skipped even with a link (`addresses_reader`); a sentence that
cites nothing is no unsourced claim when it has nothing to check (`states_nothing_checkable`:
hedges, general comparisons, plans and procedures, method notes, testimonial feelings).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.models import ClaimKind
from citecheck.numbers import DURATION_AFTER, NOT_RELATIVE, wordset

# --- claim kinds ---------------------------------------------------------------------------------

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
# Word classes the rules below share.
_DETERMINERS = wordset("the a an this these those its their our your his her my some any each every all")
_PREPOSITIONS = wordset(
    "for of with to in on at by from about into onto over under between among across via per than as like "
    "including"
)
# Up to two words between a count and its noun: a capitalised adjective ("110 English speakers")
# and a lower-case one ("90 open source maintainers"), never a preposition ("644 for default
# permissions"), a conjunction or a verb, nor an acronym ("401 HTTP responses" is a status code).
_NO_ADJECTIVE = _PREPOSITIONS | wordset(
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
_ZONE = r"(?:[AaPp]\.?[Mm]\b|UTC\b|GMT\b|Z\b|(?:[ECMP]|A[ECW]|NZ)[SD]?T\b|[CEW]ES?T\b|[BIJK]ST\b)"
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
            rf"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?{_ZONE}|(?=:\s|\s[-–—]\s))",
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
    return word not in _NOT_NAMES and not (text[: name.start(1)].strip() == "" and word in _IMPERATIVE_VERBS)


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


# --- skip rules -----------------------------------------------------------------------------

_IMPERATIVE_VERBS = frozenset(
    [
        "accept",
        "act",
        "add",
        "adopt",
        "aim",
        "allow",
        "answer",
        "apply",
        "ask",
        "assume",
        "automate",
        "avoid",
        "be",
        "begin",
        "block",
        "bookmark",
        "browse",
        "build",
        "bump",
        "call",
        "celebrate",
        "change",
        "check",
        "choose",
        "clarify",
        "clean",
        "click",
        "clone",
        "close",
        "collect",
        "come",
        "cover",
        "commit",
        "communicate",
        "compare",
        "configure",
        "connect",
        "consider",
        "contact",
        "continue",
        "contribute",
        "copy",
        "create",
        "decide",
        "define",
        "delegate",
        "delete",
        "describe",
        "design",
        "determine",
        "disable",
        "discuss",
        "do",
        "don't",
        "download",
        "drop",
        "edit",
        "emphasize",
        "enable",
        "encourage",
        "ensure",
        "establish",
        "estimate",
        "evaluate",
        "examine",
        "expect",
        "experiment",
        "explain",
        "explore",
        "fill",
        "find",
        "fix",
        "focus",
        "follow",
        "fork",
        "gather",
        "get",
        "give",
        "go",
        "grant",
        "greet",
        "have",
        "help",
        "hold",
        "identify",
        "ignore",
        "imagine",
        "implement",
        "include",
        "install",
        "introduce",
        "invest",
        "invite",
        "join",
        "participate",
        "keep",
        "label",
        "launch",
        "lead",
        "learn",
        "leave",
        "let",
        "limit",
        "link",
        "list",
        "listen",
        "look",
        "maintain",
        "make",
        "mark",
        "measure",
        "mention",
        "merge",
        "migrate",
        "monitor",
        "move",
        "note",
        "notice",
        "offer",
        "open",
        "organize",
        "pay",
        "pick",
        "plan",
        "post",
        "practice",
        "prefer",
        "prepare",
        "prioritize",
        "promote",
        "protect",
        "provide",
        "publish",
        "pull",
        "push",
        "put",
        "quantify",
        "raise",
        "reach",
        "read",
        "reassess",
        "recognize",
        "record",
        "reduce",
        "refer",
        "reflect",
        "reject",
        "release",
        "remember",
        "remind",
        "remove",
        "rename",
        "reply",
        "report",
        "request",
        "require",
        "research",
        "reserve",
        "respect",
        "respond",
        "rest",
        "restart",
        "return",
        "review",
        "reward",
        "run",
        "save",
        "say",
        "schedule",
        "search",
        "see",
        "seek",
        "select",
        "send",
        "set",
        "settle",
        "share",
        "show",
        "sign",
        "skip",
        "speak",
        "specify",
        "spend",
        "start",
        "state",
        "stay",
        "step",
        "stick",
        "stop",
        "submit",
        "subscribe",
        "suggest",
        "summarize",
        "support",
        "switch",
        "take",
        "talk",
        "teach",
        "tell",
        "test",
        "thank",
        "think",
        "track",
        "train",
        "treat",
        "try",
        "turn",
        "understand",
        "update",
        "upgrade",
        "upload",
        "use",
        "verify",
        "visit",
        "wait",
        "watch",
        "welcome",
        "write",
        "never",
        "always",
        "please",
        "let's",
    ]
)
_NOT_IMPERATIVE_NEXT = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "does",
        "did",
        "source",
        "sources",
        "of",
        "'s",
        "’s",
    ]
)
_ADVICE = re.compile(
    r"^(?:you|we|one|maintainers|contributors)\s+(?:should|must|shouldn't|mustn't|need\s+to|ought\s+to|"
    r"have\s+to|might\s+want|may\s+want|will\s+want|could\s+consider|might\s+consider)\b|"
    r"^(?:it'?s|it\s+is|it’s)\s+(?:a\s+good\s+idea|important|essential|worth|helpful|useful|wise|crucial|"
    r"okay|ok|fine|best|better|recommended|advisable|vital|critical|key)\b|"
    r"\b(?:I|we)\s+(?:think|believe|feel|guess|suspect|hope|recommend|suggest|hypothesi[sz]e|speculate)\b|"
    # plans and hypotheticals state no fact yet ("We expect to migrate …", "If we protect 20% more
    # sites …", "A model could achieve 99% accuracy …")
    r"^(?:we|I)\s+(?:expect|plan|intend|aim|hope|want|are\s+planning|are\s+going|will\s+(?:be\s+)?(?:continue|work|keep|add|"
    r"release|publish|share|start|begin|remove|migrate))\b|^(?:(?:in\s+other\s+words|for\s+example|for\s+instance|"
    r"similarly),?\s+)?(?:if|suppose|imagine|assume|assuming|let's\s+say|say)\b|"
    r"^(?:(?:a|an|the|this|that|one|such\s+a)\s+)?(?:[\w-]+\s+){0,2}(?:could|would|might)\s+(?!not\b)|"
    r"^(?:that|this)\s+means\s+(?:that\s+)?(?:we|you)\s+(?:need|have|must|should)\b|"
    r"\b(?:we|I)\s+(?:are|am|['’]re|['’]m)\s+(?:aiming|planning|hoping|going)\s+to\b|"
    r"\bin\s+(?:my|our)\s+(?:opinion|view|experience)\b|"
    r"^(?:personally|honestly|frankly|ideally|hopefully|probably|perhaps|maybe)\b|"
    r"\b(?:IMO|IMHO)\b|^(?:if\s+you\b[^,]*,\s*)?(?:you\s+should|make\s+sure|be\s+sure|don't|do\s+not)\b|"
    # requirements and recommendations state no fact ("the key must be 2048 bits or more")
    r"\b(?:must|mustn't|should|shouldn't|shall|ought\s+to)\b|"
    # licence boilerplate
    r"^(?:copyright\b|\(c\)|©)",
    re.IGNORECASE,
)
_FIRST_WORDS = re.compile(r"[\"'“‘(\[*_]*([A-Za-z’']+)\s*([A-Za-z’']*)")
_LEAD_LABEL = re.compile(r"^[\w/ ]{1,30}:\s+")  # "Tip: Do this" is still an imperative


# What is no claim even when it links a page: pointers and calls to action ("see …", "read more",
# "for more information", "… is worth mentioning", "she has a website at …"), thanks, bylines and
# date stamps ("By Jane Doe", "Updated 2024-05-03: …", "Posted on March 3"), disclaimers and meta
# notes ("Disclaimer: …", "Please note: …"), image credits ("Image courtesy of …").
_POINTER_VERBS = frozenset(
    [
        "see",
        "read",
        "learn",
        "check",
        "visit",
        "watch",
        "listen",
        "subscribe",
        "follow",
        "join",
        "sign",
        "register",
        "contact",
        "click",
        "download",
        "try",
        "explore",
        "browse",
        "find",
        "get",
        "go",
        "head",
        "refer",
        "view",
        "track",
        "send",
        "ping",
        "participate",
        "donate",
        "discover",
        "star",
        "share",
        "tweet",
        "email",
        "reach",
        "tune",
        "stay",
        "feel",
        "bookmark",
        "install",
        "please",
    ]
)
# Pointer verbs that are never an instruction about the subject itself: a call to action.
_CALL_VERBS = frozenset(["join", "subscribe", "register", "sign", "star", "tweet", "email", "donate", "tune"])
# "For more information, …", "More details are …", "To learn more, …": more is elsewhere.
_MORE_ELSEWHERE = (
    r"for\s+(?:a\s+|the\s+)?(?:more|further|additional|full|complete)\s+(?:information|info|details|context|"
    r"examples|background|reading|list|overview|explanation|description)\b|"
    r"more\s+(?:information|info|details)\s+(?:is|are|can|about|on|in|at)\b|"
    r"(?:to\s+)?(?:learn|read|find\s+out)\s+more\b"
)
_BOILERPLATE_START = re.compile(
    # copyright and licence lines, with or without a link: "Copyright (c) 2019 Elan Shanker
    # (https://…)", "License: MIT By: … Repository: https://…"
    r"(?P<copyright>copyright\s+(?:\(c\)|©|\d{4}\b|by\b|(?-i:[A-Z]))|\(c\)\s|©|licen[cs]e\s*:)|"
    # an agenda's entry, its duration first ("(15 minutes) Framing round robin: …"; the caller has
    # stripped the parenthesis)
    r"(?P<agenda>~?\d+(?:\s*[-–]\s*\d+)?\s*(?:min|mins|minutes|hours?|hrs?)\.?\s*\)|"
    # a recording's chapter mark, its timestamp first ("25:27 How does SvelteKit fare … - Henry
    # Lie (25 minutes)", "00:05:20 Thomas begins talk"); a timeline's entry has its zone, its half
    # of the day, a colon or a dash after the time ("10:03:52 UTC Mariano reverted …")
    rf"(?:\d{{1,2}}:)?\d{{1,2}}:[0-5]\d\s(?!\s*(?:{_ZONE}|[-–—:(])))|"
    rf"(?P<pointer>{_MORE_ELSEWHERE}|"
    r"(?:you\s+can|you\s+may|feel\s+free\s+to)\s+(?:also\s+)?(?:read|learn|find|see|check|watch|download|try|"
    r"get|view|follow|join|listen|explore|browse|track|subscribe|register|contact|reach|refer)\b)|"
    # a credit line: "Technical reviews by Kevin Swiber (Postman), …", "Edited by …"
    r"(?P<credit>(?:technical\s+|peer\s+)?(?:reviews?|reviewed|edit(?:ed|ing)|proofreading|illustrations?)\s+by\b|"
    r"(?:image|photo|figure|illustration|graphic|screenshot|video|banner|cover\s+image|header\s+image|logo)s?\s+"
    r"(?:courtesy|credit|by|from|via|source)\b|(?:photo|image)\s+credits?\b|credits?\s*:|source\s*:)|"
    # a call to action: "We encourage you to try out Hermes …", "We ask that you … give us feedback",
    # "Feel free to …", "Don't hesitate to …"
    r"(?P<call_to_action>(?:we|I)\s+(?:(?:also|strongly|highly|kindly|\w+ly)\s+)?(?:encourage|invite|ask|urge)\s+"
    r"(?:that\s+)?(?:you|everyone|all\s+of\s+you|readers|users)\b|(?:feel\s+free|don['’]t\s+hesitate)\s+to\b)|"
    r"(?P<thanks>(?:a\s+)?(?:big|huge|special|many|sincere|heartfelt)?\s*thanks?\s+(?:you|to\s+(?:everyone|all|our|"
    r"each|every|the\s+(?:many|amazing|wonderful|whole))|for)\b|thank\s+you\b)|"
    r"(?P<byline>by\s+[A-Z][\w.'’-]+(?:\s+[A-Z][\w.'’-]+){0,3}\s*$)|"
    r"(?P<note_label>(?:edit(?:ed)?|updated?|update\s+\d|disclaimer|please\s+note|note|nb|n\.b\.|p\.?s\.?)\b"
    r"[^:.!?]{0,40}:|note,)",
    re.IGNORECASE,
)
# … and anywhere in it (tried only when one of `_BOILERPLATE_WORDS` is there)
_BOILERPLATE_WORDS = (
    "recommend",
    "thank",
    "grateful",
    "acknowledge",
    "worth",
    "available",
    "website",
    "homepage",
    "blog",
    "site",
    "information",
    "details",
    "reading",
    "credit",
    "be found",
    "be read",
    "be viewed",
    "be accessed",
    "be downloaded",
    "be seen",
    "be watched",
    "originally",
)
_BOILERPLATE_ANY = re.compile(
    r"\b(?=[wisahmfcto])(?:"  # the first letters of the alternatives (see `_STAT_DIGITS`)
    r"(?P<thanks>\b(?:we|I)(?:\s+would\s+like\s+to|\s+want\s+to|\s+wanted\s+to|['’]d\s+like\s+to)\s+(?:say\s+)?"
    r"(?:thank|acknowledge)|\b(?:we|I)\s+(?:thank|are\s+grateful|am\s+grateful)\b|\bspecial\s+thanks\b)|"
    r"(?P<pointer>\bworth\s+(?:mentioning|reading|a\s+read|a\s+look|checking\s+out|noting\s+here)\b|"
    # "… we also highly recommend reading [this guide]"
    r"\b(?:we|I)\s+(?:(?:also|strongly|highly|\w+ly)\s+)*recommend\s+(?:reading|watching|checking\s+out|"
    r"visiting|looking\s+at)\b|"
    r"\b(?:is|are)\s+available\s+(?:here|at\s+the\s+link|online\s+here)\b|"
    # an announcement that something can be had: "[Tickets](…) are available." (see
    # `_AFTER_A_CLAUSE`)
    r"\b(?:is|are)\s+(?:now\s+)?available\s*[.!]?\s*$|"
    r"\bhas\s+a\s+(?:website|homepage|home\s+page|blog|personal\s+site)\b|"
    r"\b(?:more|further)\s+(?:information|details|reading)\s+(?:is\s+|are\s+|can\s+be\s+found\s+)?(?:here|at|in|on)\b|"
    # "The source can be found here.", "The slides can be viewed on our website."
    # (not in a clause of its own: "… has paintings which can be found at …")
    r"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)"
    r"\b(?:can|may)\s+(?:also\s+)?be\s+(?:found|read|viewed|accessed|downloaded|seen|watched)\s+(?:here|there|below|"
    r"above|online|at|on\s+(?:the|our|this|its|their|GitHub|YouTube)|in\s+(?:the|our|this|its|their)\s+"
    r"(?:[\w.-]+\s+){0,3}?(?:docs|"
    r"documentation|repository|repo|guide|blog|wiki|readme|changelog|release\s+notes|post|article|book|website|"
    r"site|page|issue|thread|forum|chapter|section|appendix))\b)|"
    # a credit line: "The credits for this syntax go to Björn Rabenstein."; a cross-post's note:
    # "Ian Beer, Project Zero (Originally posted on Project Zero blog 2020-07-27)"
    r"(?P<credit>\b(?:the\s+)?credits?\s+(?:for\b[^.!?]{0,80}?\s)?(?:goes|go)\s+to\b|"
    r"(?<=\()originally\s+(?:posted|published)\s+(?:on|in|at|to)\b))",
    re.IGNORECASE,
)
# An availability announcement after a clause of its own, which may state a fact: "The sprint was
# held on October 23, 2021, and the event report is now available."
_AFTER_A_CLAUSE = re.compile(r",\s+and\s[^;]{0,200}\b(?:is|are)\s+(?:now\s+)?available\s*[.!]?\s*$")
# A date a line opens with, then a byline: "Oct 16, 2025 by Jane Doe", "2024-05-03 — by …".
_SHORT_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATED_BYLINE = re.compile(
    rf"^(?:{_SHORT_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_SHORT_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})"
    r"\s*[-–—|·,]?\s*by\s",
    re.IGNORECASE,
)
# "Posted on March 3 by …", "Last updated: 2024-05-03": a byline or stamp is short.
_STAMP = re.compile(
    r"^(?:posted|published|released|written|authored|last\s+updated|last\s+modified|last\s+reviewed|originally\s+published|"
    r"updated|reviewed)(?:\s+(?:on|in|at|by|from)\b|\s*[:\-–—(]|\s+\d|\s*$)",
    re.IGNORECASE,
)
# "Estimated time to complete: 60 minutes": a page's metadata line, a label and a short value.
_METADATA = re.compile(
    r"^(?:estimated\s+)?(?:time(?:\s+to\s+(?:complete|read))?|duration|reading\s+time|level|difficulty|"
    r"(?:start\s+|creation\s+|publication\s+)?date|created|published|"
    r"authors?|version|status|tags?|categor(?:y|ies)|audience|prerequisites|length|license|format|"
    r"last\s+(?:updated|modified|reviewed))\s*:\s*\S+(?:\s+\S+){0,4}\s*$",
    re.IGNORECASE,
)


# A finite verb that makes a line a statement rather than a title: "React Native 0.82 will be
# New Architecture only" states something; "Reducing flaky builds by 18x", "GitHub Availability
# Report: January 2024" and "How we cut build times by 50%" are titles.
_STATEMENT = re.compile(
    r"(?=[iawhcdmsbrgnf'’])(?:"  # the first letters of the alternatives (see `_STAT_DIGITS`)
    r"\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|has|have|had|hasn't|haven't|will|won't|would|can|"
    r"can't|cannot|could|does|did|doesn't|didn't|may|might|must|shall|should|becomes|became|remains|"
    r"reached|reaches|surpassed|grew|doubled|now)\b|(?<!\ba\s)(?<!\bthe\s)\b(?:fell|rose)\b|['’](?:re|ve|ll)\s)",
    re.IGNORECASE,
)
_TITLE_START = re.compile(
    r"^\W*(?:how|why|what|when|where|who|which|introducing|announcing)\b", re.IGNORECASE
)


_TITLE_WORD = re.compile(r"[A-Za-z][\w'’-]{3,}")


_HEDGED_VERB = frozenset(["would", "could", "might", "may"])
_HEDGE_ADVERB = re.compile(r"\b(?:probably|perhaps|possibly|arguably|presumably)\b", re.IGNORECASE)


def reads_as_statement(text: str) -> bool:
    """Whether a line reads as a statement: it has a finite verb ("May" is the month: "May 30 SSL
    incident"), not only a hedged modal ("A rose by any other name...would probably be given an
    acronym" is a paper's title), and is neither a how/why title nor written in Title Case
    ("Incident Analysis: How Learning is Different Than Fixing")."""
    if _TITLE_START.match(text) is not None:
        return False
    verbs = [m.group(0).lower() for m in _STATEMENT.finditer(text) if m.group(0) != "May"]
    if not verbs or (all(v in _HEDGED_VERB for v in verbs) and _HEDGE_ADVERB.search(text)):
        return False
    words = _TITLE_WORD.findall(text)
    return len(words) < 3 or sum(w[0].isupper() for w in words) * 10 <= len(words) * 6


def has_verb(text: str) -> bool:
    """Whether a line has a verb: an auxiliary or a finite verb (`_has_main_verb`'s guess)."""
    return _STATEMENT.search(text) is not None or _has_main_verb(text)


# A word after which an "-s" or "-ed" word is a noun or an adjective ("for projects", "the
# normalized names"), not a verb; `_RELATIVE` opens a clause whose verb is not the sentence's.
_NOUN_BEFORE = (
    (_DETERMINERS - {"this"})
    | _PREPOSITIONS
    | wordset(
        "many more most no several few other such and or new good best great first last two three four five"
    )
)
# What follows a verb in the present plural: its object's determiner ("the Rollup team choose that
# day", "many other organizations fund their work").
_OBJECT_AFTER = _DETERMINERS | {"that"}
_RELATIVE = wordset("which that who whom whose where")
_PRONOUN = wordset("we they i you he she it")
_CONTRACTED = wordset(
    "i'm i’m it's it’s that's that’s there's there’s here's here’s he's he’s she's she’s "
    "i'd i’d we'd we’d they'd they’d you'd you’d"
)
_IRREGULAR_PAST = wordset(
    "took made gave went began became built ran found brought got led won wrote said saw knew sold spent "
    "held kept left met paid put set taught told thought understood came drew grew meant felt chose do did "
    # the past that is spelled as the present ("the coronavirus spread with an R0 close to 0.5")
    "spread cut hit cost hurt shut split quit"
)
_TOKEN = re.compile(r"[A-Za-z][\w'’-]*")
_NOT_VERB_S = ("ss", "us", "is", "ics")  # "process", "status", "analysis", "metrics"


def _has_main_verb(text: str) -> bool:
    """A guess, without a tagger, at whether a sentence with no auxiliary verb has a verb of its
    own outside a relative clause: a past tense ("Zeiler and Fergus applied masks"), a present
    tense after its subject ("Transparency matters", "we use", "others fund their work"), an
    irregular past ("DeepSEA took …"). "maturin for projects with Rust" and "wake which takes
    self" have none."""
    tokens = _TOKEN.findall(text)
    if tokens and tokens[0].lower() in _CONTRACTED:
        return True
    for i in range(1, len(tokens)):
        word, prev = tokens[i], tokens[i - 1].lower()
        if prev in _RELATIVE or (i >= 2 and tokens[i - 2].lower() in _RELATIVE):
            continue
        low = word.lower()
        if low in _IRREGULAR_PAST:
            return True
        if not word.islower() or prev in _NOUN_BEFORE:
            continue
        if prev in _PRONOUN or low in _CONTRACTED:
            return True
        if _tense_form(low):
            return True
        if low in _NOUN_BEFORE or low in _RELATIVE or low.endswith(("ly", "ing")):
            continue
        if (i + 1 < len(tokens) and tokens[i + 1] in _OBJECT_AFTER) or (
            len(prev) >= 4
            and prev.endswith("s")
            and not prev.endswith(_NOT_VERB_S)
            and tokens[i - 1].islower()
        ):
            return True  # "… choose that day", "other agencies share similar information"
    return False


def links_its_predicate(before: str, linked: str) -> bool:
    """Whether a sentence's subject stands before its first link and the link's text opens with
    the verb: "DataFusion [uses Bloom filters when available](…)", "DuckDB [rewrites IN
    clauses](…)", a statement whose predicate is linked, not a link with a label before it."""
    subject = _TOKEN.findall(before)
    words = linked.split()
    return (
        0 < len(subject) <= 3
        and subject[0][:1].isupper()
        and before.rstrip()[-1:].isalnum()  # not a label: "Website: https://…", "Clojure: iapetos"
        and len(words) >= 2
        and "/" not in linked
        and words[0].isalpha()
        and words[0].islower()
        and subject[-1].lower() not in _NOUN_BEFORE
        and _finite_verb(words[0])
    )


def _tense_form(low: str) -> bool:
    """ "uses", "rewrites", "allowed": a present or past tense by its ending ("process", "status",
    "metrics" are nouns)."""
    return len(low) >= 4 and (low.endswith("ed") or (low.endswith("s") and not low.endswith(_NOT_VERB_S)))


def _finite_verb(word: str) -> bool:
    low = word.lower()
    return low in _IRREGULAR_PAST or _tense_form(low)


# A phrase is short; past this many words the verb guess above is more often wrong than right.
_FRAGMENT_WORDS = 20


# Verbs a change's title opens with, besides the imperatives ("Improve how rustdoc warnings are
# displayed", "Stabilize `Option::zip`").
_CHANGE_VERBS = wordset(
    "improve refactor deprecate stabilize document bump rename revert tweak simplify speed"
)


def names_a_change(text: str) -> bool:
    """Whether a linked title is a change's, in the imperative ("Improve how rustdoc warnings are
    displayed", "have String use SliceIndex impls from str"), not a statement of what changed
    ("The homebrew/ubuntu16.04:master image has been deprecated")."""
    m = _FIRST_WORDS.match(text)
    if m is None:
        return False
    first = m.group(1).lower()
    return (first in _IMPERATIVE_VERBS or first in _CHANGE_VERBS) and m.group(
        2
    ).lower() not in _NOT_IMPERATIVE_NEXT


# What happened, in the perfect or the passive: "Version 0.4.2 of ponylang/corral has been
# released.", "FLEDGE has been renamed to Protected Audience API.", "We've added data type support".
_CHANGE_REPORTED = re.compile(
    r"\b(?:has|have|had)\s+been\s+(?:\w+ly\s+)?\w+(?:ed|en|wn)\b|"
    r"\b(?:was|were)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn)\b|"
    r"(?:\b(?:has|have)|['’]ve)\s+(?:\w+ly\s+)?\w+ed\b",
    re.IGNORECASE,
)


def reports_a_change(text: str) -> bool:
    """Whether a sentence says that something happened ("… has been released", "… was renamed",
    "We've added …"), which the pointer after it may source ("See the release notes …")."""
    return _CHANGE_REPORTED.search(text) is not None


def is_full_sentence(text: str) -> bool:
    """A sentence with its verb and its full stop, which no title is: "[In September 2015, the
    XcodeGhost malware infected more than 2500 apps … and over 128 million iOS devices.](…)", a
    statement its author linked whole."""
    return text.rstrip().endswith(".") and len(text.split()) >= 10 and _has_main_verb(text)


def is_fragment(text: str) -> bool:
    """A phrase, not a sentence: no finite verb ("scikit-build-core for projects with C, C++",
    "With Tartiflette ASGI to provide ASGI integration", "And also the docs about Strawberry with
    FastAPI."): a list entry or caption that names what it links, so no claim unless it states a
    figure, a date or a quotation (the caller checks)."""
    return (
        len(text.split()) <= _FRAGMENT_WORDS and _STATEMENT.search(text) is None and not _has_main_verb(text)
    )


# A reference's title in quotation marks ("Peter H. Salus, "A Quarter-Century of Unix", 1994") and
# its address: neither holds the reference's verbs.
_TITLE_OR_ADDRESS = re.compile(r'"[^"]{3,200}"|“[^”]{3,200}”|https?://\S+')


def reads_as_reference(text: str) -> bool:
    """A bibliographic reference, as a note gives one: who, a title, where and when it appeared,
    in fields split by commas, and no verb outside the title ("Lou Downe, "Better services with
    patterns and standards", Government Digital Service Blog, 6th August 2015, https://…",
    "Interview, Matthew Sheret, former Writer and Strategist …, 21st September 2018")."""
    bare = _TITLE_OR_ADDRESS.sub("Title", text)
    return bare.count(",") >= 2 and is_fragment(bare)


# A pointer or request after a leading clause ("Readers who are in need of a service mesh, check
# out Linkerd.", "To sign up …, please add yourself to the signup list", "If you're not happy
# with …, contact the EASS"): the main clause opens with a pointer verb and states nothing. The
# leading clause is a condition, a purpose or whom it addresses, never a statement of its own
# ("Revenue doubled in 2022, see [the guide](…)" is a claim).
# `addresses_reader` reads an imperative there too ("To resolve an error where Python.h is
# missing, install the python3-dev package"); the clause may hold a dot ("Python.h").
_LEADING_CLAUSE = re.compile(
    r"(?i:if|when|whenever|once|to|for|in\s+order\s+to|[a-z]+\s+who)\b[^,;:!?—–]{0,160},\s+([a-z]+)\b\s*([\w'’]*)"
)
# A conditional addressed to the reader, then whom to contact ("If you have something you'd
# like to be included contact the newsletter owner.").
_IF_YOU_CONTACT = re.compile(
    r"(?:[A-Za-z]+(?:\s+[A-Za-z]+)?,\s+)?(?i:if|when)\s+you\b[^.!?]{0,160}?\b(?:contact|email|ask|tell|message|ping|"
    r"find|let\s+us\s+know|"
    r"get\s+in\s+touch\s+with|reach\s+out\s+(?:to|in|on|at|via))\s+(?:the|us|me|our|them|[A-Z@])"
)
# Where advice is ("AbilityNet has advice on making your device easier to use"): a pointer.
_HAS_ADVICE = re.compile(
    r"\b(?:has|have|offers?|provides?|gives?)\s+(?:(?:some|more|useful|helpful|further|detailed|additional|"
    r"practical|good)\s+)*(?:advice|guidance|information|tips|instructions|suggestions)\s+(?:on|about|for)\b",
    re.IGNORECASE,
)
# A list item that continues the one before it, with no verb of its own ("and others who
# designed std::task.").
_CONTINUATION = re.compile(r"(?:and|or|as\s+well\s+as|plus)\s")


_ADVICE_WORDS = ("advice", "guidance", "information", "tips", "instructions", "suggestions")


def _points_elsewhere(stripped: str, low: str) -> bool:
    """A pointer, request or contact that is not at the sentence's start (see above); `low` is
    `stripped` lower-cased."""
    m = _LEADING_CLAUSE.match(stripped)
    if m is not None and m.group(1) in _POINTER_VERBS and _STATEMENT.search(stripped, m.end()) is None:
        return True
    if _IF_YOU_CONTACT.match(stripped) is not None:
        return True
    if any(w in low for w in _ADVICE_WORDS) and _HAS_ADVICE.search(stripped) is not None:
        return True
    return _CONTINUATION.match(stripped) is not None and not reads_as_statement(stripped)


_NAMED_AFTER_VERB = re.compile(r"[A-Za-z]+\s+the\s+[A-Z]\w*(?:\s+[A-Z]\w*){0,3}\s+\w+ed\b")


# What the writer is about to do: "I here show how to apply this to the joblib example", "We will
# explore the links … more in Module 3", "In this post, we look at …". A meta note.
_META = re.compile(
    r"^\W*(?:in\s+this\s+(?:post|article|section|chapter|tutorial|guide|blog\s+post|series|module),?\s+)?"
    r"(?:(?:first|next|now|then),?\s+)?(?:I|we|let['’]s|let\s+us)\s+"
    r"(?:(?:here|now|then|first|next|also|briefly|will|['’]ll|am\s+going\s+to|are\s+going\s+to)\s+)*"
    r"(?:show|explain|describe|demonstrate|walk\s+through|discuss|present|look\s+at|explore|cover|outline|"
    r"summari[sz]e|introduce|go\s+over|dive\s+into)\s+(?:how|what|why|when|where|which|whether|the|a|an|this|"
    r"these|some|each|our|my|its|their)\b",
    re.IGNORECASE,
)
# A page, talk or document as the subject of a verb that says what is in it: "This SciPy'19 talk
# explains how much difference that support has made", "The Data Science Skills wiki contains the
# talks schedule …": a pointer to it (the caller keeps one that states a figure).
_RESOURCE_SUBJECT = re.compile(
    r"^\W*(?:this|the|that|these|those|our|their|a|an)\s+(?:[\w'’.-]+\s+){0,3}?(?:talk|post|blog\s+post|article|"
    r"guide|video|paper|page|tutorial|document|documentation|docs|wiki|book|course|section|chapter|thread|faq|"
    r"repository|repo|notebook|slides|site|website|readme|presentation|webinar|podcast|episode|handbook|manual|"
    r"folder|directory)s?"
    r"\s+(?:also\s+|further\s+)?(?:explains?|describes?|shows?|covers?|contains?|lists?|walks|goes\s+(?:into|over|"
    r"through)|discuss(?:es)?|details|outlines?|introduces?|summari[sz]es?)\b",
    re.IGNORECASE,
)
# Where more is: "Here's the source code for …", "There's also a post on …", "Full details … are
# available in the documentation", "The Helm proto, see: https://…".
_RESOURCE_POINTER = re.compile(
    # "Here's the source code for version 0.1.0", "Here's a look back at what we did in 2024"
    r"^\W*here(?:['’]s|\s+is|\s+are)\s+(?:the|a|an|another|my|our|some|what|how)\b|"
    # "There's also a post on Mozilla Hacks", "There's a great guide to … on Stack Overflow"
    r"^\W*there(?:['’]s|\s+is|\s+are)\s+(?:also\s+)?(?:a|an|another|some)\s+(?:[\w'’-]+\s+){0,2}?(?:post|"
    r"guide|talk|article|video|write-?up|tutorial|thread|podcast|episode|book|course)s?\b|"
    # where the documentation is: "Full details of the PGlite adapter are available in the
    # documentation.", "The documentation is all in the SciMLDocs."
    r"^\W*(?:the\s+)?(?:full\s+|complete\s+|more\s+)?(?:details|documentation|docs|instructions|source\s+code|"
    r"slides|recordings?)\b(?:\s+(?:of|for|on|about)\s+[^.,;:]{1,60}?)?\s+(?:is|are)\s+(?:all\s+|now\s+|also\s+)?"
    r"(?:available\s+|published\s+|hosted\s+)?(?:in|at|on|from)\b|"
    # a name, then where to look: "The Helm proto, see: https://…"
    r"^[^.,;:!?]{1,60},\s+see:",
    re.IGNORECASE,
)


# A request to read elsewhere inside a sentence: "There's a lot of details here, so please read the
# edition guide for full details."
_PLEASE_READ = re.compile(
    r"\bplease\s+(?:read|see|refer\s+to|check|consult|visit|look\s+at|review|follow)\b", re.IGNORECASE
)


_TO_US = re.compile(r"\s+(?:(?:in|on|to|with|at|for)\s+)?(?:us|our|me|my)\b", re.IGNORECASE)


# A pointer verb's look-alike opening a subject of up to three words, then the sentence's own
# verb: "Contact tracing was …", "Email filtering output is …" (not "See what the docs can do").
_SUBJECT_THEN_VERB = re.compile(
    r"(?:\s+[A-Za-z][\w-]*){1,2}\s+(?:is|are|was|were|has|have|had|does|did|will|would|can|could)\b",
    re.IGNORECASE,
)


def boilerplate_form(text: str, *, figure: bool = False) -> str | None:
    """The form of a line that states no claim even with a link, or None: `pointer` (see …, read
    more, for more information, a call to action, a page as the subject of "explains"), `thanks`,
    `credit` (reviews by …, image courtesy of …, source: …), `byline`, `date-stamp` ("Posted on
    March 3"), `metadata` ("Estimated time: 60 minutes"), `note-label` ("Disclaimer: …", "Update:
    …"), `meta-note` ("In this post, we look at …"), `copyright`, `agenda` (an agenda's or a
    recording's time marks) — see the module docstring. `figure`: the sentence states a statistic,
    so a pointer to where it comes from ("See X, which says 40% of builds fail") is a claim about
    that source."""
    stripped = text.lstrip('*_ (["“')
    m = _BOILERPLATE_START.match(stripped)
    if m is not None:
        return (m.lastgroup or "pointer").replace("_", "-")
    if _DATED_BYLINE.match(stripped):
        return "byline"
    # the second: a table's row, "Date | 05 October 2023" (an advisory's header)
    if _METADATA.match(stripped) or (
        stripped.count(" | ") == 1 and _METADATA.match(stripped.replace(" | ", ": "))
    ):
        return "metadata"
    low = stripped.lower()
    if any(w in low for w in _BOILERPLATE_WORDS) and _AFTER_A_CLAUSE.search(stripped) is None:
        m = _BOILERPLATE_ANY.search(stripped)
        if m is not None:
            return m.lastgroup
    if _STAMP.match(stripped) and len(stripped.split()) <= 10:
        return "date-stamp"
    unlabelled = _CONJUNCTION.sub("", _LEAD_LABEL.sub("", stripped, count=1), count=1)
    m = _FIRST_WORDS.match(unlabelled)
    if m:
        first, second = m.group(1).lower(), m.group(2).lower()
        if first in _POINTER_VERBS and second not in _NOT_IMPERATIVE_NEXT and not m.group(1).isupper():
            # "Read the Docs received a grant", "Contact tracing was used …": a name or a noun
            # that opens with a verb, then the sentence's own verb. "pointer-verb": the caller
            # checks that what the verb points at is the link ("Follow [@x](…)", not "Follow good
            # security practices (see Section 7)", cited advice)
            named = _NAMED_AFTER_VERB.match(stripped) is not None
            subject = _SUBJECT_THEN_VERB.match(unlabelled, m.end(1)) is not None
            if figure or named or subject:
                return None
            # "Track our progress on …", "Join us on …", "Participate in our weekly …": the
            # reader's way to us, whatever it links; a verb that only ever calls to action ("Join
            # the #falco channel on …"), too; otherwise the caller checks the link
            if (
                first in _CALL_VERBS
                or (first, second) == ("check", "out")
                or _TO_US.match(unlabelled, m.end(1))
            ):
                return "pointer"
            return "pointer-verb"
    if figure:
        return None
    if _META.match(stripped) is not None:
        return "meta-note"
    if (
        _RESOURCE_POINTER.match(stripped) is not None
        or ("please" in low and _PLEASE_READ.search(stripped) is not None)
        or _points_elsewhere(stripped, low)
    ):
        return "pointer"
    if _RESOURCE_SUBJECT.match(stripped) is not None:
        return "describes-resource"
    return None


# A person's feelings, as a sentence opens: "I really enjoyed working with …", "I'm proud of …",
# "My favourite …" (a quotation that goes on to a fact after "What I love about Go …" stays).
_SENTIMENT = re.compile(
    r"^\W*I(?:['’]m|\s+am|\s+was|\s+have|\s+had)?\s+(?:really\s+|truly\s+|so\s+|very\s+|always\s+|just\s+)*"
    r"(?:enjoy(?:ed)?|lov(?:e|ed)|lik(?:e|ed)|proud|excited|happy|glad|thrilled|grateful|honou?red)\b|"
    r"^\W*my\s+favou?rite\b"
)


def is_sentiment(text: str) -> bool:
    """A person's feelings ("I really enjoyed …", "I'm proud of …"): an opinion, whatever else the
    sentence says, unless it states a figure (the caller checks)."""
    return _SENTIMENT.search(text) is not None


# A sentence that only introduces what follows it ("In the words of Section508.gov:", "Here's how
# @tdreyno responded to a pull request:", "For example, Active Admin starts its guide with:");
# one that states a finding ("@progrium found that documenting the vision helped …:") is a claim.
_INTRODUCTION = re.compile(
    r"^(?:here['’]?s|here\s+is|here\s+are|in\s+the\s+words\s+of|for\s+example|for\s+instance|e\.g\.|"
    r"as\s+an\s+example|such\s+as)\b|\b(?:says?|said|writes?|wrote|explains?|explained|puts?\s+it|"
    r"responds?|responded|replied|calls?|called|describes?|described|starts?|begins?|notes?|noted|states|"
    r"following|below|this|these|like\s+this)\b[^:]{0,80}:\s*$|\b(?:defines?|defined)\b[^:]{0,80}\bas:\s*$",
    re.IGNORECASE,
)


_FINDING = re.compile(
    r"\b(?:found|finds|showed|shows|reported|reports|discovered|learned|observed|concluded|reveal|reveals|"
    r"revealed|demonstrated|demonstrates)\s+that\b",
    re.IGNORECASE,
)


_GERUND_START = re.compile(r"\W*[A-Z][a-z]+ing\s")


def is_lead_in(text: str) -> bool:
    """A sentence ending with a colon that introduces a quotation, list or example and states
    nothing itself (short, a verb of saying or a "here's how" opener, or a heading with no verb)."""
    text = text.rstrip()
    if not text.endswith(":"):
        return False
    if _FINDING.search(text):
        return False  # "For example, Homebrew finds that Google Analytics helps them …:"
    if len(text.split()) <= 6 or _INTRODUCTION.search(text) is not None:
        return True
    # "Managing packages in an environment (replacing pip and pipdeptree):" heads a list; a verb
    # the statement test does not know keeps "Kubernetes kops sets aside office hours …:"
    return _GERUND_START.match(text) is not None and not reads_as_statement(text)


def is_question(text: str) -> bool:
    return text.rstrip(" \"'”’)]*_").endswith("?")


# What follows an imperative verb: its object's determiner or a particle ("keep your", "use the",
# "set up", "be careful"). "that" is not among them: "Note that X" states X.
_OBJECT_NEXT = _DETERMINERS | wordset("it them us me up out in on off sure careful aware mindful")
# "Finally, apart from cleaning your desk, keep your hands clean …": an imperative after a
# sequencing word and an optional adverbial phrase. The verb after them must take an object or a
# particle ("keep your", "use the", "set up"), so "Next, support for X was added" stays a statement.
_OPENER = re.compile(
    r"^(?:(?:and|but|so|now)\s+)?(?:finally|first(?:ly)?|second(?:ly)?|third(?:ly)?|also|then|next|lastly|additionally|in\s+addition|"
    r"instead|otherwise|alternatively|again|similarly|of\s+course|above\s+all|when\s+in\s+doubt|"
    r"where(?:ver)?\s+possible|if\s+possible),\s+"
    r"(?:(?:apart\s+from|besides|in\s+addition\s+to|as\s+well\s+as|along\s+with|after|before|when|while|once)"
    r"\b[^,]{0,80},\s+)?([a-z]+)\s+(?:"
    + "|".join(sorted(_OBJECT_NEXT | {"that", "track"}))
    + r"|an?\s+eye)\b",
    re.IGNORECASE,
)


# "Note that X", "Remember that X": the reader is asked to mark X, which states a fact or not on
# its own ("Note that … companies are only obligated to meet 30% of …" against "Note that you
# must …").
_NOTE_THAT = re.compile(r"^\W*(?:please\s+)?(?:note|notice|remember|recall)\s+that\s+(?=\S)", re.IGNORECASE)


# "Should" opening an inverted conditional ("… little excess capacity should demand increase",
# "should the need arise", "should you need …"): a condition, no requirement. A required "should"
# is followed by its verb, never by a determiner or a pronoun, nor by a subject and a verb of
# change that ends the clause.
_INVERTED_SHOULD = re.compile(
    r"\bshould\s+(?=(?:the|a|an|any|this|these|those|it|they|you|we|he|she|there)\s"
    r"|[a-z]+\s+(?:arise|occur|happen|fail|increase|decrease|rise|fall|grow|drop|change|exceed|continue|"
    r"persist|emerge|improve|worsen|decline)\b\s*(?:[,.;:)]|$))",
    re.IGNORECASE,
)


# A survey's answer and its share, as a list gives them: "build tooling (37%)", "test tooling (24%)"
# (a verb's look-alike first word does not make them instructions).
_ANSWER_SHARE = re.compile(r"[^()\n]{1,60}\(\s*~?\d+(?:\.\d+)?\s*%\s*\)\s*[.;,]?")


def is_imperative_or_opinion(text: str) -> bool:
    if _ANSWER_SHARE.fullmatch(text):
        return False
    text = _LEAD_LABEL.sub("", text, count=1)
    note = _NOTE_THAT.match(text)
    if note is not None:
        text = text[note.end() :]
    if "hould" in text:
        text = _INVERTED_SHOULD.sub("", text)
    opener = _OPENER.match(text)
    if opener is not None and opener.group(1).lower() in _IMPERATIVE_VERBS:
        return True
    m = _FIRST_WORDS.match(text)
    if m:
        first, second = m.group(1).lower(), m.group(2).lower()
        named = first in ("let's", "let’s") and m.group(2)[:1].isupper()  # "Let's Encrypt is …"
        if (
            first in _IMPERATIVE_VERBS
            and second not in _NOT_IMPERATIVE_NEXT
            and not m.group(1).isupper()
            and not named
        ):
            return True
    return bool(_ADVICE.search(text))


# --- sentences addressed to the reader: no claim even with a link ---------------------------

# The reader as the subject of what the sentence says: "You can track the status under this
# issue", "Since this release upgrades to React 18, you will also need to follow the upgrade
# guide", "If you'd like to prepare slides, there's a template …", "To create a new RNG you can
# use the default_rng function", "We encourage you to try out Hermes". An instruction, an offer or
# an invitation: what the linked page says is not checked by it. Anchored at the start of the
# sentence or of its main clause (after one leading clause), so "Editor Maëlle Salmon is leading
# this work, and you can find the book" keeps its fact.
_YOU_MODAL = (
    r"you\s+(?:(?:also|now|then|still|just|simply|first|always|\w+ly)\s+)?(?:can|can['’]t|cannot|could|may|"
    r"might|will|won['’]t|would|should|must|need|needs|have\s+to|want|wish)\b|you['’](?:ll|d)\s"
)
_READER = re.compile(
    r"^\W*(?:[^,;:.!?—–()]{1,120},\s+)?(?:" + _YOU_MODAL + r")|"
    r"^\W*to\s+[a-z]+\b[^,.;:!?]{0,100}?\s+" + _YOU_MODAL + r"|"
    r"^\W*(?:we|I)\s+(?:(?:also|strongly|highly|kindly|\w+ly)\s+)?(?:encourage|ask|invite|recommend|urge|suggest|"
    r"advise)\s+(?:that\s+)?you\b",
    re.IGNORECASE,
)
# "Use static analyzers (e.g., Clang-Tidy) to look for defects", "Track our progress on the
# GitHub issue", "Be careful with parallel random number generation", "First, let's explore
# whether …": an imperative. With a link it is checked only when it is clearly one: the verb is
# followed by its object's determiner or a particle (`_OBJECT_NEXT`), or the sentence has no verb
# of its own ("Support for X was added" and "Mark C. Miller is …" open with a noun). "Note that
# X", "Remember that X" state X.
# Verbs that open a sentence only as verbs, so "Use Docker to start …" is an imperative although a
# name follows ("Mark C. Miller is …", "Open Science is …" open with a noun or a name).
_CLEAR_VERBS = wordset(
    "use install configure enable disable create add remove delete avoid ensure consider choose"
)
_STATES_WHAT_FOLLOWS = wordset("note notice remember recall say imagine assume expect")
# A condition on the reader ("If you'd like to prepare slides, there's a template …", "When you
# cough or sneeze, cover it"): an instruction when what follows the condition speaks to the
# reader too; "If you place the CONTRIBUTING file in your repository, GitHub will automatically
# link to it" states what GitHub does.
_IF_YOU = re.compile(
    r"^\W*(?:[A-Za-z]+(?:\s+[A-Za-z]+)?,\s+)?(?:if|when|whenever|unless|once|whether)\s+you(?:['’](?:re|ve|d))?\s",
    re.IGNORECASE,
)
_YOU_MODAL_ANYWHERE = re.compile(r"\b(?:" + _YOU_MODAL + r")", re.IGNORECASE)
# asides and parentheses, which may hold commas: "— the event, the workshop, travel —", "(e.g., …)"
_ASIDE = re.compile(r"\s[—–]\s[^—–]{0,120}?\s[—–]\s")
_PARENTHESES = re.compile(r"\([^()]{0,120}\)")
# a request anywhere after the condition: "… these issues list our needs -- and feel free to share"
_REQUEST = re.compile(r"\b(?:feel\s+free|please|don['’]t\s+hesitate)\b", re.IGNORECASE)
_TO_READER = re.compile(
    r"(?:you|we|I|there|here|please|feel\s+free|let['’]s|make\s+sure|be\s+sure|don['’]t|do\s+not)\b",
    re.IGNORECASE,
)


def _then_speaks_to_reader(text: str, start: int) -> bool:
    """After a condition on the reader that ends at `start`: whether the main clause is addressed
    to the reader too (you, we, there is, an imperative)."""
    # an aside ends the condition as a comma would ("If you have questions — the event, travel —
    # reach out at …")
    rest = _ASIDE.sub(", ", _PARENTHESES.sub(" ", text[start:]))
    if _REQUEST.search(rest) is not None:
        return True
    comma = rest.find(",")
    if comma < 0:
        return _YOU_MODAL_ANYWHERE.search(rest) is not None  # "if you have questions you can find us"
    main = rest[comma + 1 :].lstrip()
    if _TO_READER.match(main) is not None:
        return True
    m = _FIRST_WORDS.match(main)
    return (
        m is not None
        and m.group(1).lower() in _IMPERATIVE_VERBS
        and m.group(2).lower() not in _NOT_IMPERATIVE_NEXT
    )


# "Let's Encrypt is …" is a name: the verb after "let's" is lower case.
_LETS = re.compile(r"^\W*(?:[A-Za-z]+,\s+)?(?i:let)(?:['’]s|\s+us)\s+[a-z]")
# "Make sure all users can see the button – the … colour must have a contrast ratio of …": a
# clause after a dash, colon or semicolon that states something.
_SECOND_CLAUSE = re.compile(r"\s[–—-]\s|[:;]\s")


# A recommendation: "We highly recommend using the Apostrophe CLI tool", "Prisma ORM is the
# recommended way to connect to …" ("it is now recommended to use default_rng" reports one).
_RECOMMENDS = re.compile(
    r"^\W*(?:we|I)\s+(?:(?:\w+ly|also|would|do)\s+)?(?:recommend|suggest|advise)\b|"
    r"\b(?:is|are)\s+the\s+(?:officially\s+)?recommended\s+(?:way|library|approach|option|tool|method|choice|"
    r"solution|setup|package)\b",
    re.IGNORECASE,
)
# "We wrote about this …", "I built …": the first person, then its verb
_FIRST_PERSON_VERB = re.compile(r"\W*(?:We|I)\s+(?:\w+ly\s+)?([a-z]+)\b")


def tells_what_we_did(text: str) -> bool:
    """A first-person account in the past tense ("We wrote about this all the way back in
    2013"): a statement even when the whole sentence is a link's text (titles are written in the
    present: "How we scaled …")."""
    m = _FIRST_PERSON_VERB.match(text)
    return m is not None and (m.group(1).endswith("ed") or m.group(1) in _IRREGULAR_PAST - {"do"})


# "Or send us a message on CNCF Slack …": a conjunction before an imperative.
_CONJUNCTION = re.compile(r"^\W*(?:or|and|but|so)\s+(?=[a-z])", re.IGNORECASE)


def addresses_reader(text: str) -> bool:
    """Whether a sentence is an instruction, an offer or an invitation to the reader ("You can
    …", "If you …, …", "We encourage you to …", "Use the …", "Let's explore …"): no claim, even
    when it links a page (the caller keeps one that states a figure, a quotation or a finding)."""
    if _READER.match(text) is not None or _LETS.match(text) is not None or _RECOMMENDS.search(text):
        return not _FINDING.search(text)
    condition = _IF_YOU.match(text)
    if condition is not None:
        return _then_speaks_to_reader(text, condition.end()) and not _FINDING.search(text)
    opener = _OPENER.match(text)
    if opener is not None and opener.group(1).lower() in _IMPERATIVE_VERBS:
        return True  # "And then, open the docs for the sub-application, at …"
    clause = _LEADING_CLAUSE.match(text.lstrip('*_ (["“'))
    if clause is not None and clause.group(1).lower() in _IMPERATIVE_VERBS:
        # "To date, support for X has been added" opens its main clause with a noun
        after = clause.group(2).lower()
        if after in _OBJECT_NEXT or (
            after not in _NOT_IMPERATIVE_NEXT and _STATEMENT.search(text, clause.end(1)) is None
        ):
            return True
    m = _FIRST_WORDS.match(_CONJUNCTION.sub("", _LEAD_LABEL.sub("", text, count=1), count=1))
    if m is None:
        return False
    first, second = m.group(1).lower(), m.group(2)
    if (
        not second  # "mention-bot mentions potential reviewers": a name
        or _NAMED_AFTER_VERB.match(text) is not None  # "Read the Docs received a grant"
        or first not in _IMPERATIVE_VERBS
        or first in _STATES_WHAT_FOLLOWS
        or first in ("never", "always", "please", "let", "let's")
        or m.group(1).isupper()
        or second.lower() in _NOT_IMPERATIVE_NEXT
        or (second[:1].isupper() and first not in _CLEAR_VERBS)
        or second.lower() == "that"
    ):
        return False
    if _STATEMENT.search(text, m.end()) is None:
        return True
    return second.lower() in _OBJECT_NEXT and _SECOND_CLAUSE.search(text) is None


# --- sourceless sentences with nothing to check ------------------------------------------------

# Hedges: "the AUPR may be competitive", "the community does seem to be gaining expertise".
# Lower case only: "May 2021" is a month.
_HEDGE = re.compile(
    r"\b(?:may|might|seems?|seemed|appears?\s+to|appeared\s+to|probably|perhaps|possibly|arguably|"
    r"presumably|supposedly)\b"
)
# A comparison stated as a general truth: "… models often require more expertise than …", "the
# new team can do so cheaper than starting over", "a stale load will result in seeing the queue
# as more full than it is".
# ("the most often", "the most commonly cited" are superlatives, not frequencies)
_GENERIC = re.compile(
    r"\b(?:can|cannot|can't|will|need\s+to|needs\s+to|usually|typically|generally|sometimes|tends?\s+to)\b|"
    r"(?<!\bmost\s)\b(?:often|commonly|frequently)\b",
    re.IGNORECASE,
)
# Plans, promises and procedures: "The Tokio team plans to release Tokio 1.0 by December 2020",
# "At 5 months, you will hold a second review". A sentence that also says what was or did
# happen ("We released 2.0 in March and will …") keeps its past.
_FUTURE = re.compile(
    r"\b(?:will|won't|shall)\s|['’]ll\s|"
    r"\b(?:plans?|planning|intends?|intending|aims?|aiming|going)\s+to\s+[a-z]|\bis\s+scheduled\s+to\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|had|did|has\s+been|have\s+been|ago|last|since)\b", re.IGNORECASE)
# An amount or a share in the future tense is a projection, an analysis's result to check: "The
# reform will raise £108.4 billion over five years", "… will cut poverty by 12%".
_PROJECTED = re.compile(r"[$£€¥]\s?\d|\d\s?%|\bper\s?cent\b|\b\d[\d.,]*\s+(?:billion|million|trillion)\b")
# How something is done, not what was found: "All models are evaluated in a configuration that
# limits the output length to 8K", "Benchmarks … are tested multiple times using …".
_METHOD = re.compile(
    r"\b(?:is|are)\s+(?:\w+ly\s+)?(?:evaluated|tested|trained|measured|computed|calculated|performed|"
    r"conducted|sampled|averaged|benchmarked|scored|assessed|repeated|run)\s+(?:in|on|using|with|by|at|"
    r"over|across|for|against|multiple|several|once|twice|three|\d)\b|"
    # how the data are shown: "This year (2014) is left out because the year is not over yet."
    r"\b(?:is|are)\s+(?:left\s+out|excluded|omitted)\s+(?:because|since|as|from|here)\b",
    re.IGNORECASE,
)
# A person's feelings anywhere in a testimonial: "It's been a momentous year, and I'm proud of …".
_FEELING = re.compile(
    r"\bI(?:['’]m|\s+am|\s+was|\s+feel|\s+felt)\s+(?:really\s+|truly\s+|so\s+|very\s+|incredibly\s+)*"
    r"(?:proud|excited|happy|glad|thrilled|grateful|honou?red|lucky)\b|"
    r"\bI\s+(?:really\s+|truly\s+)?(?:enjoyed|loved|love)\b"
)


# A schedule's entry, a deadline or a period a process sets: "Request submission deadline: Friday,
# February 13, 2026", "TAC review period: June 18 - July 2, 2026", "Results announced: No later
# than May 1, 2026"; a date to meet, not a record of what happened.
_SCHEDULE_ENTRY = re.compile(
    r"^[^:.]{0,60}?\b(?:deadline|due(?:\s+date)?|cut-?off|period|window|freeze)\s*:\s*[^.;:]{1,60}$|"
    r"^[^:.]{1,60}:\s*(?:no\s+(?:later|earlier)\s+than|not\s+(?:later|earlier)\s+than)\s+[^.;:]{1,50}$",
    re.IGNORECASE,
)


# An event listing: a linked name with its date (and time, place) in fields of their own, no verb
# ("NodeConf London - May 11th, 2016", "2024-03-19 | Leipzig, DE | Rust Leipzig", "GTFS-Flex -
# Working Group Meeting | January 17, 2024 @ 10 am EST"). An announcement of what is to come,
# a schedule, not a record of what happened: "23rd September 2020: MOSS and ROS confirm contract"
# has a verb, and "Disclosure Date: 2 November 2020" labels a fact's date.
_LISTING_FIELDS = re.compile(r"\s*(?:\||\t|\s[-–—•]\s|:\s)\s*")
_DATE_WORD = re.compile(
    rf"^(?:{_SHORT_MONTH}|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    rf"\d{{1,4}}(?:st|nd|rd|th)?|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?::\d{{2}}){{0,2}}(?:[ap]m)?|{_ZONE}|"
    r"[ap]m|@|to|and|&|[-–—,.])$",
    re.IGNORECASE,
)
_LISTING_TOKEN = re.compile(r"[\w:]+|[@&,.\-–—]")
_NAME_WORD = re.compile(r"[^\s()\[\],/+|]+")
_DATE_LABEL = frozenset(["date", "dates"])
# Words a name may hold in lower case ("Rust - Modern Systems Programming in Leipzig").
_NAME_SMALL = wordset("of and in the for on at with to by from or a an de la du der")


def _is_date_field(field: str) -> bool:
    tokens = _LISTING_TOKEN.findall(field)
    return any(t[0].isdigit() for t in tokens) and all(_DATE_WORD.match(t) for t in tokens)


def is_listing(text: str) -> bool:
    """Whether a linked line is an event listing: a date in a field of its own, and a name in the
    others (every word capitalised or a small word, no number, no verb, no "date" label)."""
    fields = [f for f in _LISTING_FIELDS.split(text.strip().rstrip(".")) if f.strip()]
    dated = [_is_date_field(f) for f in fields]
    if len(fields) < 2 or not any(dated) or all(dated):
        return False
    name = " ".join(f for f, d in zip(fields, dated, strict=True) if not d)
    return all(
        (w[0].isupper() or w.lower() in _NAME_SMALL or not w[0].isalnum()) and w.lower() not in _DATE_LABEL
        for w in _NAME_WORD.findall(name)
    )


# A list entry that names someone or something and gives its dates or role, with no verb: "Alex
# Griffing (2015-2017)", "Travis Oliphant (project founder, 2005-2012)". A roster, not a statement.
_ROSTER = re.compile(
    r"^[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|(?:de|del|della|der|den|di|da|du|dos|la|le|van|von|ter|bin|al)\b)){0,5}"
    r"\s*\([^()]{1,80}\)\.?$"
)


def states_nothing_checkable(text: str, kinds: list[ClaimKind]) -> bool:
    """Whether a sentence that cites nothing carries no fact worth an *Unsourced* flag: a hedge
    ("may", "seems", "probably") on a comparison or a date, a comparison stated as a general
    truth ("… often requires more expertise than …"), a plan or procedure in the future tense
    ("we plan to release 1.0 by December"), a method description ("all models are evaluated
    in …"), or a testimonial's feelings ("… and I'm proud of …"). A figure keeps a hedged or
    general sentence, a finding ("the researchers found that …") keeps any of them, and a
    quotation is kept unless it only voices feelings."""
    if _FINDING.search(text):
        return False
    if _ROSTER.match(text) is not None or _SCHEDULE_ENTRY.match(text) is not None:
        return True
    has_figure = ClaimKind.statistic in kinds
    quoted = ClaimKind.quote in kinds
    if quoted:
        return not has_figure and _FEELING.search(text) is not None
    if not has_figure and _HEDGE.search(text):
        return True
    past = _PAST.search(text) is not None  # "the largest category of feedback was …": a finding
    if kinds == [ClaimKind.comparative] and not past and _GENERIC.search(text):
        return True
    if _FUTURE.search(text) and not past and not (has_figure and _PROJECTED.search(text)):
        return True
    return _METHOD.search(text) is not None or (not has_figure and _FEELING.search(text) is not None)


# "The researchers found that …", "The authors report that …", "They showed that …": a finding
# of the study the sentence before names.
_CITED_FINDING = re.compile(
    r"^\W*(?:(?:the|these|those|this|that)\s+(?:researchers|authors|scientists|investigators|study|studies|"
    r"paper|papers|survey|report|analysis|team|work|experiments?)|they)\s+(?:also\s+|further\s+)?"
    r"(?:found|find|showed|show|reported|report|observed|concluded|demonstrated|noted)\b",
    re.IGNORECASE,
)


# A sentence that only says where the last one comes from: "See the reproducer.", "For more
# information, read the security advisory.", "More details in the release notes."
_SOURCE_POINTER = re.compile(
    rf"^\W*(?:see(?:\s+also)?|read|check\s+out|refer\s+to|{_MORE_ELSEWHERE}|"
    r"(?:the\s+)?(?:full\s+)?details\s+(?:are\s+)?(?:in|at|on)\b)",
    re.IGNORECASE,
)


def points_to_source(text: str) -> bool:
    """Whether a sentence only points at where more is ("See the reproducer.", "For more
    information, read the security advisory."): what it links is the source of the sentence
    before it."""
    return len(text.split()) <= 20 and _SOURCE_POINTER.match(text) is not None


def reports_cited_finding(text: str) -> bool:
    """Whether a sentence reports the finding of a study named just before it ("The researchers
    found that …"), so that it cites what the sentence before it cites."""
    return _CITED_FINDING.match(text) is not None
