"""Passages of a source: the page indexed once (`PageIndex`), what reaches the judge
(`select_evidence`), and the text matching the checks share.

Passage selection (`select_evidence`): the source text is split into sentences
(`split_passages`: line breaks always end one; `.`/`!`/`?` end one unless the word before is
a known abbreviation or an initial; an overlong sentence is cut at whitespace). When the
whole text fits the budget it is sent whole. Otherwise each sentence is scored with Okapi
BM25 against the claim (k1=1.5, b=0.75; light suffix stemming, stop words dropped) —
normalised to the best sentence — plus boosts when a sentence holds one of the claim's
figures (same value by `numbers.supports`), its quoted words, its capitalised names or its
dates; each sentence also gets 0.3 × its better neighbour's score (context). The best
sentences are taken in rank order, the top three with a neighbour on either side, until
`budget_chars` is spent (unscored sentences fill the rest in page order); the page's first
line (usually its title) is added when it is short. The author's `#:~:text=` passage always
comes first. The result is in page order, adjacent sentences merged into one passage.

BM25 is implemented here (`_BM25`, ~25 lines) rather than taken from a library: each call
ranks one page's sentences (tens to a few thousand), built and thrown away per page, with
a tokenizer that must agree with the number parser; index-oriented libraries such as bm25s
are built for a large corpus queried many times and add numpy/scipy for no gain here. The
stemmer is a light suffix stripper: Snowball (snowballstemmer) gave the same recall on WiCE
dev at every budget, so it is not worth a dependency.

A check whose figure is not on the page carries the page text nearest to what was looked for
as `evidence` (`absent`); one the page contradicts, the sentence that does (`contradicted`).
The checks themselves: `citecheck.checks` (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from citecheck.models import CheckOutcome, CheckResult, DecidedBy, Passage
from citecheck.numbers import (
    DateMention,
    NumberMention,
    dates_in,
    find_number,
    lowered,
    numbers_in,
    statistics_in,
    wordset,
)
from citecheck.sentences import split_sentences

QUOTE_FUZZY_THRESHOLD = 90.0  # rapidfuzz partial_ratio of a close quote (see `checks.quote`)
MAX_SENTENCE_CHARS = 600
TITLE_MAX_CHARS = 200
NEIGHBOUR_WEIGHT = 0.3  # tuned on WiCE dev (bench/evidence.py); 0.15–0.35 give the same recall
CONTEXT_TOP = 3  # the best sentences that bring both neighbours along

_WS = re.compile(r"\s+")


def find_verbatim(quote: str, text: str) -> tuple[int, int] | None:
    """Span of `quote` in `text`, tolerant of case and whitespace only; None if absent."""
    words = quote.split()
    if not words:
        return None
    # A regex keeps this linear and in C on pages of megabytes (a per-character fold is not).
    m = re.search(r"\s+".join(re.escape(w) for w in words), text, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


# --- text matching (case, whitespace, quote and dash styles ignored) ----------------------

QUOTE_CHARS = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "`": "'",
                             "–": "-", "—": "-", "‐": "-", "‑": "-", "\u00a0": " "})  # fmt: skip


def normalise_quote(text: str) -> str:
    """Case-, whitespace-, quote- and dash-insensitive form (lengths are not preserved)."""
    return _WS.sub(" ", text.translate(QUOTE_CHARS)).strip().lower()


def find_exact(quote: str, text: str) -> tuple[int, int] | None:
    """`find_verbatim` that also ignores quote and dash styles (the mapping keeps offsets)."""
    return find_verbatim(quote.translate(QUOTE_CHARS), text.translate(QUOTE_CHARS))


# --- sentences -------------------------------------------------------------------------

_LINE = re.compile(r"[^\n]+")


def _cut_long(start: int, end: int, text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    while end - start > MAX_SENTENCE_CHARS:
        cut = text.rfind(" ", start + MAX_SENTENCE_CHARS // 2, start + MAX_SENTENCE_CHARS)
        cut = cut if cut > start else start + MAX_SENTENCE_CHARS
        spans.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        spans.append((start, end))
    return spans


def _chunks(text: str, start: int, end: int, size: int = 4000) -> list[tuple[int, int]]:
    """A long line in pieces of about `size` characters, cut after a sentence end if one is
    near; the splitter looks back over its whole input at each full stop, so a PDF's
    one-line page of megabytes would otherwise cost quadratic time."""
    pieces: list[tuple[int, int]] = []
    while end - start > size:
        cut = max(
            text.rfind(". ", start + size // 2, start + size),
            text.rfind("? ", start + size // 2, start + size),
        )
        cut = cut + 2 if cut > start else start + size
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of each line (`citecheck.sentences.split_sentences`), overlong ones cut."""
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        for lo, hi in _chunks(text, line.start(), line.end()):
            for s, e in split_sentences(text[lo:hi]):
                spans.extend(_cut_long(lo + s, lo + e, text))
    return [(s, e) for s, e in spans if e > s]


def split_passages(text: str) -> list[Passage]:
    """The text's sentences (line breaks always end one), with their offsets, in page order."""
    return [Passage(start=s, end=e, text=text[s:e]) for s, e in _sentence_spans(text)]


# --- ranking ---------------------------------------------------------------------------

_STOP = wordset(
    "a an the and or but of in on at to for from by with as is are was were be been being it its "
    "this that these those he she they them his her their we our you your i not no than then "
    "there here which who whom whose what when where how also has have had do does did so such "
    "into over after before about up out can could would should will may might one all any more "
    "most other some only very s"
)
_TOKEN = re.compile(r"[a-z0-9]+")
_HAS_DIGIT = re.compile(r"[0-9]")


def _stem(word: str) -> str:
    for suffix in ("ing", "edly", "ed", "ies", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def tokens(text: str, stems: dict[str, str] | None = None) -> list[str]:
    """Lower-cased, stemmed content words (and numbers without separators).

    `stems` memoises stemming across the sentences of one page.
    """
    folded = text.lower().replace(",", "") if _HAS_DIGIT.search(text) else text.lower()
    if stems is None:
        return [_stem(t) for t in _TOKEN.findall(folded) if t not in _STOP]
    out = []
    for t in _TOKEN.findall(folded):
        if t in _STOP:
            continue
        stem = stems.get(t)
        if stem is None:
            stem = stems[t] = _stem(t)
        out.append(stem)
    return out


class _BM25:
    """Okapi BM25 over one page's sentences (see the module docstring for why it is here)."""

    def __init__(self, docs: Sequence[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.n = len(docs)
        avg = (sum(len(d) for d in docs) / self.n) if docs else 0.0
        # Postings keep scoring proportional to the matches, not to the page's length.
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, doc in enumerate(docs):
            norm = k1 * (1 - b + b * len(doc) / (avg or 1))
            for t, f in Counter(doc).items():
                self.postings.setdefault(t, []).append((i, f * (k1 + 1) / (f + norm)))
        self.idf = {
            t: math.log(1 + (self.n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()
        }

    def scores(self, query: list[str]) -> list[float]:
        out = [0.0] * self.n
        for t, q in Counter(query).items():
            for i, w in self.postings.get(t, ()):
                out[i] += q * self.idf[t] * w
        return out


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'’-]+(?:\s+(?:of\s+|the\s+|de\s+|van\s+)?[A-Z][\w'’-]+)*)")
_QUOTED = re.compile(
    r"“([^”]{2,})”|\"([^\"]{2,})\"|‘([^’]{2,})’(?![a-z])|«([^»]{2,})»|(?<![A-Za-z])'([^']{3,})'(?![A-Za-z])"
)


def quotes_in(text: str) -> list[str]:
    """Quoted passages of a claim (straight, curly or guillemet quotes)."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


@dataclass
class _ClaimCues:
    """What in a claim makes a page sentence relevant beyond shared words."""

    numbers: list[NumberMention]
    quotes: list[str]
    names: list[str]
    dates: list[DateMention]

    @classmethod
    def of(cls, claim_text: str) -> _ClaimCues:
        names = [m.group(1).lower() for m in _NAME.finditer(claim_text) if len(m.group(1)) > 2]
        return cls(statistics_in(claim_text), quotes_in(claim_text), names, dates_in(claim_text))


# What a claim's checks depend on: its text without citation markers, the check kinds that


def precision_of_year(d: DateMention) -> bool:
    return d.precision == "year"


# --- dates that are page furniture -----------------------------------------------------------
# A retrieval, archive or access stamp, a copyright line or a "last updated" stamp dates the
# page (or its copy), never what the page reports: it is no evidence for or against a claim's
# date. A byline ("Published 12 June 2024", "Posted on …") is the page's own date, as its
# metadata date is: it may state a claim's date ("a 2024 survey"), but never contradicts one.
STAMP_BYLINE = "byline"
_STAMPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("retrieval stamp", re.compile(r"\bretrieved(?:\s+on)?\W{0,3}$", re.I)),
    (
        "archive stamp",
        re.compile(r"\b(?:archived|archive date)(?:\s+from the original)?(?:\s+on)?\W{0,3}$", re.I),
    ),
    ("access stamp", re.compile(r"\b(?:accessed|access ?date)(?:\s+on)?\W{0,3}$", re.I)),
    ("copyright line", re.compile(r"(?:©|\(c\)|\bcopyright)(?:\s*©)?[\s\d,–—-]*$", re.I)),
    (
        "last-updated stamp",
        re.compile(
            r"(?:\blast\s+(?:updated|modified|edited|reviewed|revised)|^\W*(?:updated|modified|revised))"
            r"\b(?:\s+on)?[^.\n]{0,24}$",
            re.I,
        ),
    ),
    (
        STAMP_BYLINE,
        re.compile(
            r"(?:^|[|·•—])\W*(?:\(meta data\)\s*)?(?:first\s+|originally\s+)?"
            r"(?:published|posted|publication date|date published)(?:\s+datetime)?(?:\s+on)?\W{0,3}$",
            re.I,
        ),
    ),
)
_STAMP_REACH = 48  # characters before a date where its stamp's words may stand, on its line
# What each of `_STAMPS` needs before a date (lower case)
_STAMP_KEYS = ("retriev", "archiv", "access", "©", "(c)", "copyright", "updat", "modif", "edit", "review",
               "revis", "publish", "posted", "publication")  # fmt: skip


def stamp_of(text: str, date: DateMention) -> str:
    """What kind of stamp `date` is part of ("retrieval stamp", …, `STAMP_BYLINE`), or "" for
    a date the page reports."""
    reach = max(0, date.start - _STAMP_REACH)
    newline = text.rfind("\n", reach, date.start)
    start = newline + 1 if newline >= 0 else reach
    before = text[start : date.start]
    if not before.strip():
        return ""
    low = before.lower()
    if not any(key in low for key in _STAMP_KEYS):
        return ""  # most dates: no stamp's word before them, no pattern to try
    if newline < 0 and reach > 0:
        before = "x" + before  # the line starts out of reach: nothing may anchor at its start
    return next((kind for kind, pattern in _STAMPS if pattern.search(before)), "")


def date_matches(claim: DateMention, page: DateMention) -> bool:
    """Whether a date on the page is the claim's date, at the claim's precision."""
    if claim.decade:
        return page.year is not None and claim.year is not None and claim.year <= page.year < claim.year + 10
    if page.decade:
        # "the 1970's" may be the year's possessive ("1970's harvest"): it states the year too
        return precision_of_year(claim) and page.year == claim.year and page.text[-2:-1] in "'’"
    precision = claim.precision
    if precision == "day":
        return (page.year, page.month, page.day) == (claim.year, claim.month, claim.day)
    if precision == "month":
        return (page.year, page.month) == (claim.year, claim.month)
    if precision == "month-day":
        return (page.month, page.day) == (claim.month, claim.day)
    return page.year == claim.year


class PageIndex:
    """One source text, and the page's own date (from its metadata, e.g. "2019-05-01"),
    prepared once for every claim that cites it.

    Its sentences, figures, dates and word statistics are each computed when first needed (a
    page whose claims state only figures never has its dates read). Two indexes are equal
    when their texts and dates are.
    """

    def __init__(self, text: str, date: str | None = None) -> None:
        self.text = text
        self.date = date

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PageIndex) and (other.text, other.date) == (self.text, self.date)

    def __getstate__(self) -> dict[str, object]:
        # Sent between processes without what is derived from the text: unpickling a page's
        # figures (frozen dataclasses) cost 0.23 ms where finding them again costs 0.58 ms,
        # and the receiver rarely needs them (its claims were checked already).
        return {"text": self.text, "date": self.date}

    __hash__ = None  # type: ignore[assignment]  # compared by value, filled in as it is used: no dict key

    @cached_property
    def sentences(self) -> list[tuple[int, int]]:
        return _sentence_spans(self.text)

    @cached_property
    def numbers(self) -> list[NumberMention]:
        return numbers_in(self.text)

    def numbers_near(self, figures: Sequence[NumberMention]) -> list[NumberMention]:
        """The page's figures that may support one of `figures`: all that `find_number` finds
        for them in `numbers`, without reading the page's other figures (most of the cost of
        checking a page) unless `numbers` was read already."""
        if "numbers" in self.__dict__:
            return self.numbers
        return numbers_in(self.text, near=figures)

    @cached_property
    def dates(self) -> list[DateMention]:
        return dates_in(self.text)

    @cached_property
    def stamps(self) -> list[str]:
        """For each of `dates`, the kind of stamp it is part of ("" for a date the page
        reports; see `stamp_of`)."""
        return [stamp_of(self.text, d) for d in self.dates]

    @cached_property
    def folded(self) -> list[str]:
        return [normalise_quote(self.text[s:e]) for s, e in self.sentences]

    @cached_property
    def sentence_tokens(self) -> list[list[str]]:
        stems: dict[str, str] = {}
        return [tokens(self.text[s:e], stems) for s, e in self.sentences]

    @cached_property
    def token_sets(self) -> list[set[str]]:
        return [set(t) for t in self.sentence_tokens]

    @cached_property
    def bm25(self) -> _BM25:
        return _BM25(self.sentence_tokens)

    def near_words(self, text: str, share: float = 0.3) -> list[int]:
        """Sentences holding at least `share` of the words of `text` (candidates for a quote)."""
        words = set(tokens(text))
        if not words:
            return list(range(len(self.sentences)))
        need = max(1, math.ceil(share * len(words)))
        return [i for i, ts in enumerate(self.token_sets) if len(words & ts) >= need]

    @cached_property
    def lowered(self) -> str:
        """The text in lower case, offsets kept (`numbers.lowered`)."""
        return lowered(self.text)

    @cached_property
    def starts(self) -> list[int]:
        """Where each sentence starts (for `sentence_at`)."""
        return [s for s, _ in self.sentences]

    def sentence_at(self, pos: int) -> int:
        """Index of the sentence holding offset `pos` (the nearest one before it otherwise; 0
        before the first). A bisection in C: the contradiction search places every match of
        the claim's words (`checks.context`), which took a hand-written one a fifth of its time."""
        return max(0, bisect_right(self.starts, pos) - 1)

    def sentence_text(self, i: int) -> str:
        s, e = self.sentences[i]
        return self.text[s:e]

    def scores(self, claim_text: str) -> list[float]:
        """Relevance of each sentence to the claim: normalised BM25 plus cue boosts."""
        raw = self.bm25.scores(tokens(claim_text))
        top = max(raw, default=0.0) or 1.0
        scores = [r / top for r in raw]
        cues = _ClaimCues.of(claim_text)
        near = self.numbers_near(cues.numbers) if cues.numbers else []
        for m in cues.numbers:
            for hit in find_number(m, near):
                scores[self.sentence_at(hit.start)] += 0.5
        for d in cues.dates:
            for hit in self.dates:
                if date_matches(d, hit):
                    scores[self.sentence_at(hit.start)] += 0.3
        if cues.names:
            for i, sent in enumerate(self.folded):
                for name in cues.names:
                    if name in sent:
                        scores[i] += 0.2
        for q in cues.quotes:
            if len(q) < 8:
                continue
            from rapidfuzz import fuzz  # only quotes need it: not imported at every start-up

            folded_q = normalise_quote(q)
            for i in self.near_words(q):
                if fuzz.partial_ratio(folded_q, self.folded[i]) >= QUOTE_FUZZY_THRESHOLD:
                    scores[i] += 0.5
        return scores


# --- what a failed check shows --------------------------------------------------------


def snippet(index: PageIndex, pos: int) -> str:
    """The page's sentence holding offset `pos`."""
    return index.sentence_text(index.sentence_at(pos))


def overlap(claim_tokens: set[str], sentence: str) -> int:
    """How many of the claim's words `sentence` shares."""
    return len(claim_tokens & set(tokens(sentence)))


def absent(name: DecidedBy, detail: str, claim_text: str, index: PageIndex, near: int | None) -> CheckResult:
    """A check whose figure, date or quote is not on the page: `detail` says what (a hint for
    the judge), the evidence is the sentence at offset `near` (what the page says nearest to
    it), or the page's best sentence for the claim."""
    evidence = snippet(index, near) if near is not None else best_sentence(claim_text, index)
    return CheckResult(name=name, passed=False, outcome=CheckOutcome.absent, detail=detail, evidence=evidence)


def contradicted(
    name: DecidedBy,
    detail: str,
    evidence: str,
    *,
    claim_span: tuple[int, int] | None = None,
    claim_value: str | None = None,
    page_value: str | None = None,
) -> CheckResult:
    """A check the page contradicts: `detail` says what the page gives instead, `evidence`
    is the page's sentence that does; the claim's words (`claim_value` at `claim_span` in its
    text) and the page's that can stand in their place, when the check can tell them."""
    return CheckResult(
        name=name,
        passed=False,
        outcome=CheckOutcome.contradicted,
        detail=detail,
        evidence=evidence,
        claim_span=claim_span,
        claim_value=claim_value,
        page_value=page_value,
    )


def best_sentence(claim_text: str, index: PageIndex) -> str | None:
    """The page's sentence BM25 ranks first for the claim (None: the page has none)."""
    if not index.sentences:
        return None
    scores = index.bm25.scores(tokens(claim_text))
    return index.sentence_text(max(range(len(scores)), key=lambda i: scores[i]))


# --- evidence selection ----------------------------------------------------------------

_FRAGMENT_PREFIX = re.compile(r"^[^,]*-,")
_FRAGMENT_SUFFIX = re.compile(r",-[^,]*$")


def find_fragment(fragment: str, text: str) -> tuple[int, int] | None:
    """Span of a text fragment in `text`: the decoded text as given (what `resolve` hands on),
    or, failing that, a raw directive `[prefix-,]start[,end][,-suffix]` (start … end).

    Case, whitespace, quote style and dash style are ignored (text extraction may turn
    straight quotes curly). The pipeline should use this rather than `find_verbatim`.
    """
    whole = find_exact(fragment, text)
    if whole is not None or "," not in fragment:
        return whole
    directive = _FRAGMENT_SUFFIX.sub("", _FRAGMENT_PREFIX.sub("", fragment.strip()))
    parts = [p for p in directive.split(",") if p.strip()]
    if not parts:
        return None
    first = find_exact(parts[0], text)
    if first is None or len(parts) == 1:
        return first
    rest = find_exact(parts[-1], text[first[1] :])
    return (first[0], first[1] + rest[1]) if rest else None


def _expand(index: PageIndex, start: int, end: int) -> tuple[int, int]:
    """The sentence range [i, j] covering a character span."""
    return index.sentence_at(start), index.sentence_at(max(start, end - 1))


def _merge(index: PageIndex, chosen: set[int], scores: list[float]) -> list[Passage]:
    passages: list[Passage] = []
    for i in sorted(chosen):
        s, e = index.sentences[i]
        if passages and passages[-1].end >= index.sentences[i - 1][1] and (i - 1) in chosen:
            last = passages[-1]
            passages[-1] = Passage(
                start=last.start, end=e, text=index.text[last.start : e], score=max(last.score, scores[i])
            )
        else:
            passages.append(Passage(start=s, end=e, text=index.text[s:e], score=scores[i]))
    return passages


def select_evidence(
    claim_text: str,
    source_text: str,
    *,
    budget_chars: int = 4000,
    text_fragment: str | None = None,
    page: PageIndex | None = None,
) -> list[Passage]:
    """The passages of `source_text` to show the judge for `claim_text`, in page order.

    The whole text as one passage when it fits `budget_chars`; otherwise the best-ranked
    sentences with context, within the budget (see the module docstring). The `#:~:text=`
    passage, when found, is always included (cut to the budget if it alone exceeds it).
    """
    if len(source_text) <= budget_chars:
        return [Passage(start=0, end=len(source_text), text=source_text, score=1.0)] if source_text else []
    index = page or PageIndex(source_text)
    if not index.sentences:
        return []
    scores = index.scores(claim_text)
    chosen: set[int] = set()
    spent = 0

    def take(i: int) -> bool:
        nonlocal spent
        if i in chosen or not 0 <= i < len(index.sentences):
            return False
        s, e = index.sentences[i]
        cost = e - s + 1
        if spent + cost > budget_chars:
            return False
        chosen.add(i)
        spent += cost
        return True

    fragment_passage: Passage | None = None
    if text_fragment:
        span = find_fragment(text_fragment, source_text)
        if span is not None:
            first, last = _expand(index, *span)
            s, e = index.sentences[first][0], index.sentences[last][1]
            if e - s + 1 > budget_chars:
                fragment_passage = Passage(
                    start=s, end=s + budget_chars, text=source_text[s : s + budget_chars], score=2.0
                )
                return [fragment_passage]
            for i in range(first, last + 1):
                take(i)
    n = len(scores)
    # A sentence next to a relevant one often carries the rest of the evidence (a pronoun's
    # antecedent, the second half of a quotation): lend it part of its neighbour's score.
    smoothed = [
        scores[i]
        + NEIGHBOUR_WEIGHT * max(scores[i - 1] if i > 0 else 0.0, scores[i + 1] if i + 1 < n else 0.0)
        for i in range(n)
    ]
    ranked = sorted(range(n), key=lambda i: -smoothed[i])  # stable: ties stay in page order
    s0, e0 = index.sentences[0]
    if e0 - s0 <= TITLE_MAX_CHARS:
        take(0)
    # Unscored sentences still fill what is left of the budget, in page order: a page's
    # opening often states its subject.
    for rank, i in enumerate(ranked):
        take(i)
        if rank < CONTEXT_TOP:
            take(i + 1)
            take(i - 1)
        if spent >= budget_chars:
            break
    if not chosen:
        # Every sentence is longer than the budget: the best one, cut to fit.
        best = ranked[0]
        s, _ = index.sentences[best]
        cut = source_text[s : s + budget_chars]
        return [Passage(start=s, end=s + len(cut), text=cut, score=scores[best])]
    return _merge(index, chosen, scores)
