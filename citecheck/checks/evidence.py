"""Evidence stage: the passages of a source that reach the judge, and the deterministic checks.

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

The deterministic checks (`run_checks`) — for the claim's kinds:
- number (statistic): every figure of the claim (see `citecheck.numbers` for forms,
  rounding and hedges) must be stated on the page;
- quote: each quoted passage of two or more words (not a Title Cased name of a work, see
  `is_title`) must be on the page exactly (case,
  whitespace, quote style and dash style ignored; `...` splits it into parts found in
  order) or as a close match: rapidfuzz `partial_ratio` ≥ 90 against a window of the page
  (quotes shorter than 20 characters must match exactly);
- date (temporal): each year or decade of the claim's dates must be on the page; a full
  date or month-year is looked for at its precision (in any common form) and, when only
  its year is there, the check passes saying so (see `check_dates`).
A failing check carries the page text nearest to what was looked for as `evidence`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property

from citecheck.models import CheckResult, CitationKind, Claim, ClaimKind, DecidedBy, Passage
from citecheck.numbers import (
    MONTHS,
    DateMention,
    NumberMention,
    dates_in,
    find_number,
    format_value,
    numbers_in,
    statistics_in,
    wordset,
)
from citecheck.sentences import split_sentences

QUOTE_FUZZY_THRESHOLD = 90.0
QUOTE_MIN_FUZZY_CHARS = 20
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
# apply, and the page's own date.
_CheckKey = tuple[str, tuple[ClaimKind, ...], str | None]


class PageIndex:
    """One source text prepared once for every claim that cites it.

    Its sentences, figures, dates and word statistics are each computed when first needed (a
    page whose claims state only figures never has its dates read), and `run_checks` keeps
    its results here per claim (`checked`), so the process that extracted a page can check
    it and hand the results on with it (see `workers.ExtractionWorker`). Two indexes are
    equal when their texts are.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.checked: dict[_CheckKey, list[CheckResult]] = {}

    @classmethod
    def build(cls, text: str) -> PageIndex:
        return cls(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PageIndex) and other.text == self.text

    def __getstate__(self) -> dict[str, object]:
        # Sent between processes without what is derived from the text: unpickling a page's
        # figures (frozen dataclasses) cost 0.23 ms where finding them again costs 0.58 ms,
        # and the receiver rarely needs them (its claims were checked already).
        return {"text": self.text, "checked": self.checked}

    __hash__ = None  # type: ignore[assignment]  # mutable (the memo), so unhashable

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
    def folded(self) -> list[str]:
        return [_normalise_quote(self.text[s:e]) for s, e in self.sentences]

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

    def sentence_at(self, pos: int) -> int:
        """Index of the sentence holding offset `pos` (the nearest one before it otherwise)."""
        lo, hi = 0, len(self.sentences) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.sentences[mid][0] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

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
                if _date_matches(d, hit):
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

            folded_q = _normalise_quote(q)
            for i in self.near_words(q):
                if fuzz.partial_ratio(folded_q, self.folded[i]) >= QUOTE_FUZZY_THRESHOLD:
                    scores[i] += 0.5
        return scores


# --- evidence selection ----------------------------------------------------------------

_FRAGMENT_PREFIX = re.compile(r"^[^,]*-,")
_FRAGMENT_SUFFIX = re.compile(r",-[^,]*$")


def find_fragment(fragment: str, text: str) -> tuple[int, int] | None:
    """Span of a text fragment in `text`: the decoded text as given (what `resolve` hands on),
    or, failing that, a raw directive `[prefix-,]start[,end][,-suffix]` (start … end).

    Case, whitespace, quote style and dash style are ignored (text extraction may turn
    straight quotes curly). The pipeline should use this rather than `find_verbatim`.
    """
    whole = _find_exact(fragment, text)
    if whole is not None or "," not in fragment:
        return whole
    directive = _FRAGMENT_SUFFIX.sub("", _FRAGMENT_PREFIX.sub("", fragment.strip()))
    parts = [p for p in directive.split(",") if p.strip()]
    if not parts:
        return None
    first = _find_exact(parts[0], text)
    if first is None or len(parts) == 1:
        return first
    rest = _find_exact(parts[-1], text[first[1] :])
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
    index = page or PageIndex.build(source_text)
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


# --- deterministic checks --------------------------------------------------------------

_QUOTE_CHARS = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "`": "'",
                              "–": "-", "—": "-", "‐": "-", "‑": "-", "\u00a0": " "})  # fmt: skip
_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\.\s*\.\s*\.|…)\s*")


def _normalise_quote(text: str) -> str:
    """Case-, whitespace-, quote- and dash-insensitive form (lengths are not preserved)."""
    return _WS.sub(" ", text.translate(_QUOTE_CHARS)).strip().lower()


def _find_exact(quote: str, text: str) -> tuple[int, int] | None:
    """`find_verbatim` that also ignores quote and dash styles (the mapping keeps offsets)."""
    return find_verbatim(quote.translate(_QUOTE_CHARS), text.translate(_QUOTE_CHARS))


def _find_parts(quote: str, text: str) -> tuple[int, int] | None:
    """Each `...`-separated part of the quote, in order."""
    parts = [p for p in _ELLIPSIS.split(quote) if p.strip()]
    if not parts:
        return None
    pos, first = 0, None
    for part in parts:
        span = _find_exact(part, text[pos:])
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
    index = page or PageIndex.build(text)
    q = _normalise_quote(_ELLIPSIS.sub(" ", quote))
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


def _snippet(index: PageIndex, pos: int) -> str:
    return index.sentence_text(index.sentence_at(pos))


def _overlap(claim_tokens: set[str], sentence: str) -> int:
    return len(claim_tokens & set(tokens(sentence)))


def check_numbers(claim_text: str, source_text: str, *, page: PageIndex | None = None) -> CheckResult | None:
    """Every figure of the claim must be on the page (None when the claim states none)."""
    wanted = statistics_in(claim_text)
    if not wanted:
        return None
    index = page or PageIndex.build(source_text)
    near = index.numbers_near(wanted)
    claim_tokens = cache(lambda: set(tokens(claim_text)))  # counted when first needed, once
    found: list[tuple[NumberMention, NumberMention]] = []
    for m in wanted:
        hits = find_number(m, near)
        if not hits:
            nearest = _nearest_number(m, index, claim_tokens())
            return _missing(
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
            best = max(hits, key=lambda h: _overlap(claim_tokens(), _snippet(index, h.start)))
        found.append((m, best))
    names = ", ".join(repr(m.describe()) for m, _ in found)
    evidence = " … ".join(dict.fromkeys(_snippet(index, h.start) for _, h in found))
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
        return (-_overlap(claim_tokens, _snippet(index, p.start)), ratio)

    return min(candidates, key=key)


def _missing(
    name: DecidedBy, detail: str, claim_text: str, index: PageIndex, nearest: tuple[str, int] | None
) -> CheckResult:
    """A failed check: what was missing, what the page says instead (`nearest`: its words and
    offset) and that sentence as evidence, or the page's best sentence for the claim."""
    if nearest is None:
        return CheckResult(name=name, passed=False, detail=detail, evidence=_best_sentence(claim_text, index))
    said, pos = nearest
    return CheckResult(
        name=name, passed=False, detail=f"{detail}; the page says {said!r}", evidence=_snippet(index, pos)
    )


def _best_sentence(claim_text: str, index: PageIndex) -> str | None:
    if not index.sentences:
        return None
    scores = index.bm25.scores(tokens(claim_text))
    return index.sentence_text(max(range(len(scores)), key=lambda i: scores[i]))


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


def check_quotes(claim_text: str, source_text: str, *, page: PageIndex | None = None) -> CheckResult | None:
    """Every quoted passage of two or more words must be on the page (None when there is none).

    Quoted titles and names (`is_title`) are left to the judge.
    """
    quotes = [q for q in quotes_in(claim_text) if len(q.split()) >= 2 and not is_title(q)]
    if not quotes:
        return None
    index = page or PageIndex.build(source_text)
    evidence: list[str] = []
    details: list[str] = []
    for q in quotes:
        hit = find_quote(q, source_text, page=index)
        if hit is None:
            closest = _closest_quote(q, source_text, index)
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


def _date_matches(claim: DateMention, page: DateMention) -> bool:
    if claim.decade:
        return page.year is not None and claim.year is not None and claim.year <= page.year < claim.year + 10
    if page.decade:
        return False
    precision = claim.precision
    if precision == "day":
        return (page.year, page.month, page.day) == (claim.year, claim.month, claim.day)
    if precision == "month":
        return (page.year, page.month) == (claim.year, claim.month)
    if precision == "month-day":
        return (page.month, page.day) == (claim.month, claim.day)
    return page.year == claim.year


def _find_date(claim: DateMention, index: PageIndex) -> DateMention | None:
    hit = next((p for p in index.dates if _date_matches(claim, p)), None)
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


def check_dates(
    claim_text: str,
    source_text: str,
    *,
    page: PageIndex | None = None,
    source_date: str | None = None,
    strict: bool = False,
) -> CheckResult | None:
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
    `source_date` (the page's own date from its metadata, e.g. "2019-05-01") counts as
    written on the page: "a 2019 survey" is supported by a page dated 2019. `strict` fails
    a missing day or month too (on WiCE dev it catches more wrong dates but fails 21 % of
    supported dated claims instead of 3 %; see bench/numbers.py).
    """
    wanted = dates_in(claim_text)
    if not wanted:
        return None
    index = page or PageIndex.build(source_text)
    meta = dates_in(source_date) if source_date else []
    claim_tokens = set(tokens(claim_text))
    evidence: list[str] = []
    found: list[str] = []
    for d in wanted:
        dated = next((m for m in meta if _date_matches(d, m)), None)
        if dated is not None:
            found.append(f"{d.text!r} (the page's date)")
            evidence.append(f"page dated {source_date}")
            continue
        hit = _find_date(d, index)
        if hit is None and d.precision in ("day", "month") and not strict:
            year_only = DateMention(d.start, d.end, d.text, year=d.year)
            if any(_date_matches(year_only, m) for m in meta):
                found.append(f"the year of {d.text!r} (the page's date, not the {d.precision} itself)")
                evidence.append(f"page dated {source_date}")
                continue
            hit = _find_date(year_only, index)
            if hit is not None and _names_month(d.month, index):
                found.append(f"the year of {d.text!r} (not the {d.precision} itself)")
                evidence.append(_snippet(index, hit.start))
                continue
            if hit is not None:
                return _missing(
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
            near = max(
                same_year, key=lambda p: _overlap(claim_tokens, _snippet(index, p.start)), default=None
            )
            return _missing(
                DecidedBy.date,
                f"the date {d.text!r} is not on the page",
                claim_text,
                index,
                (near.text, near.start) if near else None,
            )
        found.append(repr(d.text))
        evidence.append(_snippet(index, hit.start))
    return CheckResult(
        name=DecidedBy.date,
        passed=True,
        detail="found " + ", ".join(found) + " on the page",
        evidence=" … ".join(dict.fromkeys(evidence)) or None,
    )


_AUTHOR_YEAR = re.compile(r"\((?:[A-Z][^()]{0,100}?),?\s+(?:1[5-9]|20)[0-9]{2}[a-z]?(?:\s*[;,][^()]*)?\)")


_CONTENT_CITATIONS = frozenset({CitationKind.link, CitationKind.reference})


def claim_text_without_citations(claim: Claim) -> str:
    """The claim's text with its citation markers blanked (same length): "(Smith, 2020)" is
    where the claim comes from, not a date it states; "[3]" is not a figure."""
    text = claim.text
    spans = [m.span() for m in _AUTHOR_YEAR.finditer(text)]
    for c in claim.citations:
        if c.kind in _CONTENT_CITATIONS:
            continue  # a link's text is what the claim says ("[93% of respondents](…)"), not a marker
        if c.start is not None and c.end is not None and 0 <= c.start < c.end <= len(text):
            spans.append((c.start, c.end))
        elif c.raw:
            pos = text.find(c.raw)
            if pos >= 0:
                spans.append((pos, pos + len(c.raw)))
    for s, e in spans:
        text = text[:s] + " " * (e - s) + text[e:]
    return text


_CHECKS = (
    (ClaimKind.statistic, check_numbers),
    (ClaimKind.quote, check_quotes),
    (ClaimKind.temporal, check_dates),
)


# What a process checking a page needs of a claim: its text without citation markers and the
# kinds of check that apply (a `Claim` would cost ten times as much to send to a worker).
CheckRequest = tuple[str, tuple[ClaimKind, ...]]


def check_request(claim: Claim) -> CheckRequest | None:
    """The claim's number / quote / date checks as a `run_requested_checks` request (None:
    no check applies)."""
    kinds = tuple(kind for kind, _ in _CHECKS if kind in claim.kinds)
    return (claim_text_without_citations(claim), kinds) if kinds else None


def run_checks(
    claim: Claim, source_text: str, *, page: PageIndex | None = None, source_date: str | None = None
) -> list[CheckResult]:
    """The number / quote / date checks that the claim's kinds call for; [] when none applies.

    Pass `page` (a `PageIndex.build(source_text)`) to share the page's parsing between the
    claims citing one source, and `source_date` (`FetchedSource.date`) so that the page's
    own date counts for the date check. The results are kept in `page.checked`: the same
    claim against the same page is checked once, wherever that happened first.
    """
    request = check_request(claim)
    if request is None:
        return []
    return run_requested_checks(request, source_text, page=page, source_date=source_date)


def run_requested_checks(
    request: CheckRequest, source_text: str, *, page: PageIndex | None = None, source_date: str | None = None
) -> list[CheckResult]:
    """`run_checks` for a claim given as its `check_request`."""
    text, kinds = request
    index = page or PageIndex.build(source_text)
    key = (text, kinds, source_date)
    results = index.checked.get(key)
    if results is None:
        results = []
        for kind, check in _CHECKS:
            if kind not in kinds:
                continue
            if check is check_dates:
                result = check_dates(text, source_text, page=index, source_date=source_date)
            else:
                result = check(text, source_text, page=index)
            if result is not None:
                results.append(result)
        index.checked[key] = results
    return list(results)
