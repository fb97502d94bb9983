"""Contradictions caught however the writer cites: changed-figure pairs in five citation styles.

Each pair is a real claim that its page supports and the same claim with one figure, date or
quoted word changed to a value the page does not hold, the page stating the right one. Both are
written in the five ways documentation cites a source —

    bare       … ([source](URL)).
    named      … ([IEA](URL)).              the source named in the link
    according  According to [Gartner](URL), …
    reports    [The WHO reports](URL) that …
    says       …, [GitHub says](URL).

— extracted from Markdown by citecheck's extractor, checked against the page by the checks
stage and decided by the policy with the judge off (`policy.checks_verdict`), as
`citecheck check --judge none` does. A wrong claim is caught when the checks fail it; a
right claim must never fail. The names in the links are not on the pages: the source's own
name is never required there.

The pairs come from two kinds of real sentence:
- claims: the supported claims of the fact-checking sets (`bench/_corpora.py`: WiCE dev and
  test, Check-COVID, COVID-Fact, CLIMATE-FEVER), each against its own evidence page; a pair for
  each kind of figure a claim states that its page states too (at most one per kind);
- page sentences: WiCE dev's gold evidence sentences, as a document quotes its source (the
  sentence itself as the claim, its page the whole page), for the kinds the claims rarely
  have — quotations with their speaker above all — and at most `PAGE_SENTENCES_PER_KIND` of
  each kind.

Kinds: percentage, count, amount with a unit (a currency, a length, a multiplier), date (a day
or month), year, quote. How a figure is changed: a number by half again (or halved near 100 %),
a year by 3 (or 2, 7), a day by 9, a month by 4, a quoted word to another word; only to a value
the page does not hold anywhere, and that contradicts the page's figure under every reading
(`numbers.conflicts`): "more than 300" and "up to 300" are left out.

Run from the repository root: `python bench/contradictions.py [--quick] [-v]` (data: see
`bench/_corpora.py`; `--quick`: the first 60 rows of each set, or the sample under
tests/data/eval_sample on a fresh clone, a few seconds). `-v` lists the missed wrong claims
and any right claim failed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Run as `python bench/contradictions.py`, this file's folder comes first on sys.path, where
# `bench/numbers.py` would shadow the standard library's `numbers` module.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpora import SETS, SUPPORTED  # noqa: E402
from bench._data import add_quick  # noqa: E402

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck import policy  # noqa: E402
from citecheck.checks import DECIDE_ALONE, CheckedPage, claim_results  # noqa: E402
from citecheck.checks.passages import date_matches, quotes_in  # noqa: E402
from citecheck.checks.quote import find_quote, is_title  # noqa: E402
from citecheck.checks.scope import in_name  # noqa: E402
from citecheck.extract.document import extract_text  # noqa: E402
from citecheck.models import Verdict  # noqa: E402
from citecheck.numbers import (  # noqa: E402
    MONTHS,
    DateMention,
    NumberMention,
    conflicts,
    dates_in,
    find_number,
    numbers_in,
    statistics_in,
    wordset,
)
from citecheck.sentences import split_sentences  # noqa: E402

QUICK_ROWS = 60
PER_SET_AND_KIND = 40  # evidence-sentence pairs of each set and kind (the first, in file order)
URL = "https://example.org/report"
STYLES = ("bare", "named", "according", "reports", "says")
KINDS = ("percentage", "count", "amount", "date", "year", "quote")
# Names of sources, in turn; none is on the pages (checked).
NAMES = ("IEA", "Gartner", "The WHO", "GitHub", "Statista", "Reuters", "Pew Research", "the OECD")
# Quoted words swapped in, in turn: each changes what the quotation says.
SWAPS = ("impossible", "terrible", "unnecessary", "forgotten", "dangerous", "ordinary", "worthless")


@dataclass(frozen=True)
class Pair:
    source: str  # "claims" or "page sentences"
    corpus: str
    kind: str
    right: str  # the sentence as written (ends with its full stop)
    wrong: str  # the same with one figure, date or quoted word changed
    page: str  # the page text


# --- changing one figure ------------------------------------------------------------------------

_DIGITS = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
_MONTH_NAMES = tuple(
    sorted(
        wordset("January February March April May June July August September October November December"),
        key=lambda m: MONTHS[m.lower()],
    )
)


def number_kind(m: NumberMention) -> str:
    if m.unit == "%":
        return "percentage"
    return "amount" if m.unit else "count"


def _formatted(value: float, like: str) -> str:
    decimals = len(like.split(".")[1]) if "." in like else 0
    text = f"{value:,.{decimals}f}" if "," in like else f"{value:.{decimals}f}"
    return text


def changed_number(claim: str, m: NumberMention, page: list[NumberMention]) -> str | None:
    """The claim with `m` changed to a value the page neither states nor allows."""
    if m.high is not None or m.hedge in ("min", "max") or m.pairs:
        return None
    digits = _DIGITS.search(claim, m.start, m.end)
    if digits is None:
        return None
    value = float(digits.group(0).replace(",", ""))
    for factor in (1.5, 0.5, 2.5, 3.0):
        new = value * factor
        if m.unit == "%" and new > 100:
            continue
        text = _formatted(new, digits.group(0))
        if float(text.replace(",", "")) in (value, 0.0):
            continue
        wrong = claim[: digits.start()] + text + claim[digits.end() :]
        changed = [w for w in statistics_in(wrong) if w.start == m.start]
        if len(changed) != 1 or find_number(changed[0], page):
            continue
        hits = find_number(m, page)
        if hits and all(conflicts(changed[0], h) for h in hits):
            return wrong
    return None


def date_kind(d: DateMention) -> str | None:
    if d.decade:
        return None
    return "year" if d.precision == "year" else "date" if d.precision in ("day", "month") else None


def changed_date(claim: str, d: DateMention, page: list[DateMention]) -> str | None:
    """The claim with `d` changed (its year, else its day, else its month) to a date the page
    does not give."""
    text = claim[d.start : d.end]
    candidates: list[str] = []
    if d.precision == "year" and d.year is not None and re.fullmatch(r"[0-9]{4}", text):
        candidates = [str(d.year + k) for k in (3, -3, 2, -2, 7) if d.year + k <= 2025]
    elif d.precision == "day" and d.day is not None:
        day = re.search(rf"\b{d.day}\b", text)
        if day is not None:
            new_day = d.day + 9 if d.day <= 19 else d.day - 9
            candidates = [text[: day.start()] + str(new_day) + text[day.end() :]]
    elif d.precision == "month" and d.month is not None:
        name = _MONTH_NAMES[d.month - 1]
        if name in text:
            candidates = [text.replace(name, _MONTH_NAMES[(d.month + 3) % 12], 1)]
    for new in candidates:
        wrong = claim[: d.start] + new + claim[d.end :]
        changed = [w for w in dates_in(wrong) if w.start == d.start]
        if changed and not any(date_matches(changed[0], p) for p in page):
            return wrong
    return None


_CONTENT_WORD = re.compile(r"\b[a-z]{5,}\b")


def changed_quote(claim: str, quote: str, n: int) -> str | None:
    """The claim with the quotation's longest lower-case word (of five letters or more) swapped."""
    words = sorted(_CONTENT_WORD.findall(quote), key=len, reverse=True)
    if not words:
        return None
    swap = next(s for s in SWAPS[n % len(SWAPS) :] + SWAPS if s != words[0])
    at = claim.find(quote)
    new_quote = re.sub(rf"\b{words[0]}\b", swap, quote, count=1)
    return claim[:at] + new_quote + claim[at + len(quote) :]


def pairs_of(
    text: str, page_text: str, index: CheckedPage, kinds: tuple[str, ...], n: int
) -> Iterator[tuple[str, str]]:
    """(kind, changed sentence) for each kind of figure `text` states that its page states too,
    one per kind."""
    seen: set[str] = set()
    page = index.index
    for m in statistics_in(text):
        kind = number_kind(m)
        if kind in kinds and kind not in seen and (wrong := changed_number(text, m, page.numbers)):
            seen.add(kind)
            yield kind, wrong
    years = {m.start for m in numbers_in(text) if m.role == "year"}
    for d in dates_in(text):
        kind = date_kind(d)
        if kind is None or kind not in kinds or kind in seen:
            continue
        if kind == "year" and (d.start not in years or in_name(text, d)):
            continue  # a count ("1046 patients"), a name ("coronavirus disease 2019"): no date
        if not any(date_matches(d, p) for p in page.dates):
            continue  # the page does not state the right date
        if (wrong := changed_date(text, d, page.dates)) is not None:
            seen.add(kind)
            yield kind, wrong
    if "quote" in kinds:
        for q in quotes_in(text):
            if len(q.split()) < 4 or is_title(q) or find_quote(q, page_text, page=page) is None:
                continue
            if (wrong := changed_quote(text, q, n)) is not None:
                yield "quote", wrong
                break


_PROSE = re.compile(r"^[\"“‘']?[A-Z0-9]")
_NOT_PROSE = re.compile(r"https?:|www\.|\[|\]|[|#]|@|\b(?:[0-9]{1,2}:[0-9]{2}|[AP]M|EDT|EST|GMT|UTC)\b")


def _sentence(text: str) -> str | None:
    """`text` as one sentence of prose ending with a full stop (or its quotation's), or None: a
    heading, a byline or a time stamp, a link, a line of a table are no claim a document makes."""
    text = " ".join(text.split())
    if not 8 <= len(text.split()) <= 60 or not _PROSE.match(text) or _NOT_PROSE.search(text):
        return None
    if len(split_sentences(text)) != 1:
        return None  # a set's "sentence" that is two: a document would cite each
    if text.endswith((".", '."', ".”", ".’")):
        return text
    return None if text[-1] in "!?:;,\"”'’" else text + "."


def build(quick: bool) -> list[Pair]:
    """The pairs: from each set's gold evidence sentences, then from its supported claims."""
    pairs: list[Pair] = []
    limit = QUICK_ROWS if quick else None
    rows = [row for load in SETS.values() for row in load(quick, limit)]
    seen: set[str] = set()
    taken: Counter[tuple[str, str]] = Counter()
    for row in rows:
        page = CheckedPage.of(row.page_text)
        for gold in row.gold:
            if (text := _sentence(gold)) is None or text in seen:
                continue
            seen.add(text)
            wanted = tuple(k for k in KINDS if taken[row.corpus, k] < PER_SET_AND_KIND)
            for kind, wrong in pairs_of(text, row.page_text, page, wanted, len(pairs)):
                pairs.append(Pair("evidence sentences", row.corpus, kind, text, wrong, row.page_text))
                taken[row.corpus, kind] += 1
    for row in rows:
        if row.label != SUPPORTED or (text := _sentence(row.claim)) is None:
            continue
        page = CheckedPage.of(row.page_text)
        for kind, wrong in pairs_of(text, row.page_text, page, KINDS, len(pairs)):
            pairs.append(Pair("claims", row.corpus, kind, text, wrong, row.page_text))
    return pairs


# --- the five citation styles --------------------------------------------------------------------

_LOWER_FIRST = wordset("the a an in on at by for from of to this these those it its there as after")


def _lowered(sentence: str) -> str:
    """The sentence as it reads after an attribution: its first word in lower case if it is a
    common word ("The film" → "the film"), a name kept as written."""
    first = sentence.split(" ", 1)[0]
    return sentence[0].lower() + sentence[1:] if first.lower() in _LOWER_FIRST else sentence


def styled(sentence: str, style: str, name: str) -> str:
    """The sentence citing URL in `style`, naming the source `name` where the style names one.
    A sentence that ends inside its quotation ('… “inherently unequal.”') gives its full stop
    to the citation ('… “inherently unequal” ([source](URL)).', '… “inherently unequal,”
    [X says](URL).')."""
    if sentence.endswith("."):
        body, close = sentence[:-1], ""
    else:  # '….”': the quotation closes after the full stop
        body, close = sentence[:-2], sentence[-1]
    if style == "bare":
        return f"{body}{close} ([source]({URL}))."
    if style == "named":
        return f"{body}{close} ([{name}]({URL}))."
    if style == "according":
        return f"According to [{name}]({URL}), {_lowered(sentence)}"
    if style == "reports":
        return f"[{name} reports]({URL}) that {_lowered(sentence)}"
    return f"{body},{close} [{name} says]({URL})."


@dataclass(frozen=True)
class Outcome:
    failed: bool
    why: str
    extracted: tuple[tuple[str, ...], ...]  # the kinds of each claim citing URL, as extracted


def check(markdown: str, page: CheckedPage) -> Outcome:
    """What the checks make of the Markdown sentence's cited claims with the judge off."""
    doc = extract_text(markdown + "\n", "bench.md")
    reasons: list[str] = []
    extracted: list[tuple[str, ...]] = []
    bad = ""
    for claim in doc.claims:
        for citation in claim.citations:
            if citation.url != URL:
                continue
            extracted.append(tuple(sorted(k.value for k in claim.kinds)))
            results = claim_results(claim, citation, page)
            verdict = policy.checks_verdict(claim, URL, results, decide_alone=DECIDE_ALONE, judge_on=False)
            if verdict is not None and verdict.verdict == Verdict.fail and not bad:
                bad = verdict.reason or "failed"
            reasons += [r.detail for r in results]
    return Outcome(bool(bad), bad or "; ".join(reasons) or "no check ran", tuple(extracted))


# --- the run -----------------------------------------------------------------------------------


def rate(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list the misses and any right claim failed")
    add_quick(ap, f"the first {QUICK_ROWS} rows of each set")
    args = ap.parse_args(argv)
    pairs = build(args.quick)
    by_source = Counter(p.source for p in pairs)
    print(f"{len(pairs)} pairs ({', '.join(f'{n} from {s}' for s, n in by_source.items())})")
    print("by set: " + ", ".join(f"{c} {n}" for c, n in Counter(p.corpus for p in pairs).items()))
    print()
    caught: dict[tuple[str, str, str], list[bool]] = defaultdict(list)  # (style, kind, source)
    right_failed: list[str] = []
    misses: list[str] = []
    unlike: Counter[tuple[str, bool]] = Counter()  # (style, extraction differs): outcome ≠ bare's
    no_check: Counter[str] = Counter()
    pages: dict[str, CheckedPage] = {}
    for i, pair in enumerate(pairs):
        page = pages.setdefault(pair.page, CheckedPage.of(pair.page))
        name = NAMES[i % len(NAMES)]
        bare = check(styled(pair.wrong, "bare", name), page)
        for style in STYLES:
            got = bare if style == "bare" else check(styled(pair.wrong, style, name), page)
            caught[style, pair.kind, pair.source].append(got.failed)
            no_check[style] += got.why == "no check ran"
            if got.failed != bare.failed:
                unlike[style, got.extracted != bare.extracted] += 1
            if not got.failed and style == "bare":
                misses.append(f"[{pair.source}: {pair.kind}] {pair.wrong[:140]!r}\n        {got.why[:200]}")
            right = check(styled(pair.right, style, name), page)
            if right.failed:
                shown = styled(pair.right, style, name)[:160]
                right_failed.append(f"[{style}] {shown!r}\n        {right.why[:200]}")

    def total(style: str, kind: str | None = None, source: str | None = None) -> tuple[int, int]:
        hits = [
            b
            for (s, k, src), got in caught.items()
            if s == style and (kind is None or k == kind) and (source is None or src == source)
            for b in got
        ]
        return sum(hits), len(hits)

    print("Wrong claims caught by the checks with the judge off, by citation style and kind of figure")
    print()
    print("| style | " + " | ".join(KINDS) + " | all |")
    print("| --- |" + " ---: |" * (len(KINDS) + 1))
    for style in STYLES:
        cells = [rate(*total(style, k)) for k in KINDS]
        print(f"| {style} | " + " | ".join(cells) + f" | {rate(*total(style))} |")
    print()
    print("| style | " + " | ".join(by_source) + " |")
    print("| --- |" + " ---: |" * len(by_source))
    for style in STYLES:
        print(f"| {style} | " + " | ".join(rate(*total(style, source=s)) for s in by_source) + " |")
    print()
    print("| style | no check ran | outcome ≠ bare's, the extracted claims differ | … the same |")
    print("| --- | ---: | ---: | ---: |")
    for style in STYLES:
        print(f"| {style} | {no_check[style]} | {unlike[style, True]} | {unlike[style, False]} |")
    print()
    n_right = len(pairs) * len(STYLES)
    print(f"Right claims failed: {rate(len(right_failed), n_right)}")
    bare = total("bare")
    equal = all(total(s) == bare for s in STYLES)
    same_checks = "yes" if not any(unlike[s, False] for s in STYLES) else "no"
    share = bare[0] / bare[1] if bare[1] else 0.0
    print(
        f"Every named style caught as often as the bare one: {'yes' if equal else 'no'}; where the "
        f"extracted claim is the same: {same_checks}; single-figure changes caught (bare): "
        f"{100 * share:.1f}% (target ≥ 60%)"
    )
    if args.verbose:
        for line in right_failed:
            print(f"    RIGHT FAILED: {line}")
        for line in misses:
            print(f"    missed: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
