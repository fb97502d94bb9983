"""The deterministic number (and date) checks on real labelled claims.

- WiCE dev (`claims_dev.jsonl`), claims labelled `supported` that state a figure: how often
  the number check fails them (false failures; target ≤ 2 %). The same for the date check
  on supported claims that carry a date.
- WiCE `non_supported_tokens_dev.jsonl`: sub-claims whose unsupported tokens (matched to the
  claim by position) cover a figure (resp. a date): how often the number (resp. date) check
  fails them (catch rate; target ≥ 80 %), beside the share whose flagged figure is absent
  from the page at all (what a lookup can catch at best); and the false failures on
  sub-claims whose figures are all supported. Flagged numbers that the number check leaves
  out on purpose (small counts in words, ordinals) are counted apart; `-v` lists them, the
  misses, and the false failures.
- Check-COVID (`Check-COVID_all.json`, sources = the abstracts of `corpus.json`): false
  failures of the number check on `SUPPORT` claims with a figure, and its catch rate on
  `REFUTE` claims with a figure (for information: many refutations change a word, not a figure).

The page text is the evidence sentences joined by newlines. Run from the repository root:
`python bench/numbers.py [-v] [--quick]`; data under `../shared/eval` or CITECHECK_EVAL_DIR
(`--quick`: the first 100 rows of each file, else tests/data/eval_sample; a second or so).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/numbers.py`, this file's folder comes first on sys.path, where its own
# name would shadow the standard library's `numbers` module (imported by `decimal`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse  # noqa: E402
from collections.abc import Callable  # noqa: E402
from functools import partial  # noqa: E402

from bench._data import add_quick, eval_file, read_jsonl  # noqa: E402

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.checks.date import check_dates  # noqa: E402
from citecheck.checks.number import check_numbers  # noqa: E402
from citecheck.checks.passages import PageIndex  # noqa: E402
from citecheck.checks.quote import check_quotes  # noqa: E402
from citecheck.models import CheckResult  # noqa: E402
from citecheck.numbers import (  # noqa: E402
    DateMention,
    NumberMention,
    dates_in,
    numbers_in,
    statistics_in,
)

QUICK_ROWS = 100  # of each file (Check-COVID's corpus is read whole: claims cite its abstracts)


# Number mentions the number check leaves out on purpose ("two step-children", "17th-century").
UNCHECKED_ROLES = ("small-word", "ordinal")


def flagged_spans(claim: str, claim_tokens: list[str], flags: list[bool]) -> list[tuple[int, int]]:
    """The character spans of the claim's tokens marked unsupported (the tokens are in order)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for token, bad in zip(claim_tokens, flags, strict=True):
        start = claim.find(token, pos)
        if start < 0:
            continue  # a token rewritten by the tokenizer: no position
        pos = start + len(token)
        if bad:
            spans.append((start, pos))
    return spans


def rate(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"


def false_failures(
    pairs: list[tuple[str, str]], check: Callable[..., CheckResult | None], show: int = 0
) -> tuple[int, int]:
    failed = total = 0
    for claim, text in pairs:
        result = check(claim, PageIndex(text))
        if result is None:
            continue
        total += 1
        if not result.passed:
            failed += 1
            if show:
                show -= 1
                print(f"    FF: {claim[:110]!r}\n        {result.detail[:160]}")
    return failed, total


def wice(quick: bool, verbose: bool) -> None:
    limit = QUICK_ROWS if quick else None
    rows = read_jsonl(eval_file("wice/claims_dev.jsonl", quick), limit)
    supported = [(r["claim"], "\n".join(r["evidence"])) for r in rows if r["label"] == "supported"]
    f, t = false_failures(supported, check_numbers, show=10 if verbose else 0)
    print(f"WiCE dev, supported claims with a figure: number check false failures {rate(f, t)}")
    f, t = false_failures(supported, check_dates, show=10 if verbose else 0)
    print(f"WiCE dev, supported claims with a date:   date check false failures   {rate(f, t)}")
    f, t = false_failures(supported, partial(check_dates, strict=True))
    print(f"  (with strict=True, a missing day or month fails too:               {rate(f, t)})")
    f, t = false_failures(supported, check_quotes, show=10 if verbose else 0)
    print(f"WiCE dev, supported claims with a quote:  quote check false failures  {rate(f, t)}")
    others = [(r["claim"], "\n".join(r["evidence"])) for r in rows if r["label"] != "supported"]
    f, t = false_failures(others, check_quotes)
    print(f"WiCE dev, other claims with a quote:      quote check fails           {rate(f, t)}")

    subs = read_jsonl(eval_file("wice/non_supported_tokens_dev.jsonl", quick), limit)
    caught = {"figure": 0, "date": 0}
    total = {"figure": 0, "date": 0}
    absent = strict_caught = 0
    clean: list[tuple[str, str]] = []  # sub-claims whose figures are all supported
    not_figures: list[str] = []  # flagged numbers the parser does not check as figures
    for r in subs:
        claim = r["claim"]
        text = "\n".join(r["evidence"])
        flagged = flagged_spans(claim, r["claim_tokens"], r["non_supported_spans"])

        def is_flagged(m: NumberMention | DateMention, flagged: list[tuple[int, int]] = flagged) -> bool:
            # by position, not by word: "In October 2018 ... the 2018 ICC" flags one "2018"
            return any(s < m.end and m.start < e for s, e in flagged)

        stats, dates = statistics_in(claim), dates_in(claim)
        bad_stats = [m for m in stats if is_flagged(m)]
        bad_dates = [d for d in dates if is_flagged(d)]
        unchecked = [m for m in numbers_in(claim) if m.role in UNCHECKED_ROLES and is_flagged(m)]
        if unchecked and not bad_stats and not bad_dates:
            not_figures.append(f"{claim[:90]!r} ({', '.join(f'{m.text} = {m.role}' for m in unchecked)})")
        if stats and not bad_stats:
            clean.append((claim, text))
        kind = "figure" if bad_stats else "date" if bad_dates else None
        if kind is None:
            continue
        total[kind] += 1
        page = PageIndex(text)
        check = check_numbers if kind == "figure" else check_dates
        result = check(claim, page)
        if result is not None and not result.passed:
            caught[kind] += 1
        elif verbose:
            flagged_words = ", ".join(m.text for m in [*bad_stats, *bad_dates])
            print(f"    missed ({kind}: {flagged_words}): {claim[:100]!r}")
        if kind == "date":
            strict_result = check_dates(claim, page, strict=True)
            strict_caught += strict_result is not None and not strict_result.passed
        if not all(m.text.lower() in text.lower() for m in [*bad_stats, *bad_dates]):
            absent += 1
    f, t = false_failures(clean, check_numbers, show=10 if verbose else 0)
    print(f"WiCE sub-claims whose figures are all supported: number check false failures {rate(f, t)}")
    figure_rate, date_rate = rate(caught["figure"], total["figure"]), rate(caught["date"], total["date"])
    print(f"WiCE sub-claims with an unsupported figure: number check catches {figure_rate}")
    print(f"WiCE sub-claims with an unsupported date:   date check catches   {date_rate}")
    print(f"  (with strict=True: {rate(strict_caught, total['date'])})")
    print(
        f"  (not counted above: {len(not_figures)} sub-claims whose only flagged numbers are small"
        " counts in words or ordinals, which the number check leaves to the judge)"
    )
    if verbose:
        print("\n".join(f"    not a figure: {line}" for line in not_figures))
    print(
        f"  (the unsupported figure or date is absent from the page, so a lookup could catch it, in "
        f"{rate(absent, total['figure'] + total['date'])})"
    )


def check_covid(quick: bool, verbose: bool) -> None:
    corpus = {r["cord_id"]: r for r in read_jsonl(eval_file("check_covid/corpus.json", quick))}
    # JSON lines, despite the name
    claims = read_jsonl(eval_file("check_covid/Check-COVID_all.json", quick), QUICK_ROWS if quick else None)

    def pairs(label: str, auth: bool | None = None) -> list[tuple[str, str]]:
        return [
            (c["claim"], "\n".join(corpus[c["cord_id"]]["abstract"]))
            for c in claims
            if c["label"] == label
            and c["cord_id"] in corpus
            and statistics_in(c["claim"])
            and (auth is None or c["is_auth"] == auth)
        ]

    f, t = false_failures(pairs("SUPPORT"), check_numbers, show=50 if verbose else 0)
    print(f"Check-COVID SUPPORT claims with a figure: number check false failures {rate(f, t)}")
    for auth, name in ((True, "taken verbatim from news"), (False, "written by annotators")):
        f, t = false_failures(pairs("SUPPORT", auth), check_numbers)
        print(f"  of which {name + ':':<26} {rate(f, t)}")
    absent = sum(
        1
        for claim, text in pairs("SUPPORT")
        if any(not _digits_on_page(m, text) for m in statistics_in(claim))
    )
    print(f"  SUPPORT claims with a figure whose digits appear nowhere in the abstract: {absent}")
    f, t = false_failures(pairs("REFUTE"), check_numbers)
    print(f"Check-COVID REFUTE claims with a figure:  number check fails {rate(f, t)}")


def _digits_on_page(m: NumberMention, text: str) -> bool:
    """A crude lookup independent of our parser: the figure's digits, separators removed."""
    digits = "".join(c for c in m.text if c.isdigit() or c == ".").strip(".")
    if not digits:
        return True  # a figure in words: no crude lookup
    return digits in text.replace(",", "").replace("·", ".")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list misses and false failures")
    add_quick(ap, f"the first {QUICK_ROWS} rows of each data file")
    args = ap.parse_args(argv)
    folder = eval_file("wice", args.quick).parent  # the data folder this run reads: eval data or sample
    if not (folder / "wice").exists():
        print(f"{folder}: no eval data (set CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    print(f"data: {folder}{' (quick run)' if args.quick else ''}")
    wice(args.quick, args.verbose)
    check_covid(args.quick, args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
