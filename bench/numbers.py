"""The deterministic checks (number, date, quote) on real labelled claims: do they fail a claim
on their own only where the page contradicts it?

Headline: the checks stage as the pipeline runs it. Each claim gets its kinds from the
extractor (`detect_kinds`), the checks its kinds call for run on its page (`check_request`,
`run_request`), and the verdict policy decides (`policy.checks_verdict`, judge on and judge
off). Per labelled set (`bench/_corpora.py`: WiCE dev and Check-COVID from the evaluation
data; WiCE test, COVID-Fact and CLIMATE-FEVER where CITECHECK_CORPORA has them):
- supported claims (WiCE `supported`, Check-COVID `SUPPORT`, COVID-Fact `SUPPORTED`,
  CLIMATE-FEVER `SUPPORTS`): the false failures — claims the checks fail on their own, at no
  cost — out of those a check ran on (target ≤ 0.3 % for every set together); beside them, how
  many go to the judge with a hint (a figure, date or quote the checks did not find on the
  page), and with `--judge none` how many pass and how many are not verified;
- unsupported claims (WiCE `not_supported` and `partially_supported`, Check-COVID `REFUTE`,
  COVID-Fact `REFUTED`, CLIMATE-FEVER `REFUTES`, and WiCE dev sub-claims whose unsupported
  words cover a figure or a date): the share the checks still catch without the judge (it may
  drop when absence stops failing: a missed catch costs a judge call, a false failure costs
  trust).

Then each check on its own, on every claim of WiCE dev and Check-COVID that states a figure (a
date, a quote), whatever its kinds: the outcomes found / absent / contradicted (failed, on code
from before outcomes).

The page text is the evidence sentences joined by newlines. Run from the repository root:
`python bench/numbers.py [-v] [--quick]`; data under `../shared/eval` or CITECHECK_EVAL_DIR
and CITECHECK_CORPORA (`--quick`: the first 100 rows of each file, else
tests/data/eval_sample; a second or so).
`-v` lists the false failures, the catches and the misses.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/numbers.py`, this file's folder comes first on sys.path, where its own
# name would shadow the standard library's `numbers` module (imported by `decimal`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from bench._corpora import REFUTED, SETS, SUPPORTED  # noqa: E402
from bench._data import add_quick, eval_file, read_jsonl  # noqa: E402

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck import policy  # noqa: E402
from citecheck.checks import DECIDE_ALONE, check_request, run_request  # noqa: E402
from citecheck.checks.date import check_dates  # noqa: E402
from citecheck.checks.number import check_numbers  # noqa: E402
from citecheck.checks.passages import PageIndex  # noqa: E402
from citecheck.checks.quote import check_quotes  # noqa: E402
from citecheck.extract.kinds import detect_kinds  # noqa: E402
from citecheck.models import CheckResult, Claim, Verdict  # noqa: E402
from citecheck.numbers import DateMention, NumberMention, dates_in, statistics_in  # noqa: E402

QUICK_ROWS = 100  # of each file (Check-COVID's corpus is read whole: claims cite its abstracts)
TARGET = 0.3  # % of the supported claims a check ran on that the checks may fail on their own
URL = "https://example.org/source"


def rate(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"


def outcome(result: CheckResult) -> str:
    """found / absent / contradicted; code from before outcomes had found and failed only."""
    given = getattr(result, "outcome", None)
    if given is not None:
        return str(given)
    return "found" if result.passed else "contradicted"


# --- the checks stage, as the pipeline runs it -----------------------------------------------


@dataclass
class Tally:
    """What the checks stage made of a set of claims."""

    claims: int = 0
    checked: int = 0  # a check ran
    failed: int = 0  # failed by the checks alone (judge on or off)
    hinted: int = 0  # judge on: to the judge with a hint
    passed_off: int = 0  # judge off: passed by the checks
    not_verified_off: int = 0  # judge off: not verified
    failures: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> Tally:
        return Tally(
            *(getattr(self, f) + getattr(other, f) for f in ("claims", "checked", "failed", "hinted")),
            self.passed_off + other.passed_off,
            self.not_verified_off + other.not_verified_off,
        )


def stage(pairs: list[tuple[str, str]]) -> Tally:
    """The checks stage on (claim, page text) pairs."""
    tally = Tally()
    for text, page_text in pairs:
        tally.claims += 1
        claim = Claim(text=text, kinds=detect_kinds(text), file="bench.md", line=1, column=1)
        request = check_request(claim)
        results = run_request(request, PageIndex(page_text)) if request else []
        if not results:
            continue
        tally.checked += 1
        on = policy.checks_verdict(claim, URL, results, decide_alone=DECIDE_ALONE, judge_on=True)
        off = policy.checks_verdict(claim, URL, results, decide_alone=DECIDE_ALONE, judge_on=False)
        assert off is not None
        if on is not None and on.verdict == Verdict.fail:
            tally.failed += 1
            tally.failures.append(f"{text[:110]!r}\n        {on.reason or ''}"[:300])
            continue
        tally.hinted += any(outcome(r) == "absent" for r in results)
        tally.passed_off += off.verdict == Verdict.pass_
        tally.not_verified_off += off.verdict == Verdict.not_verified
        tally.rest.append(f"{text[:110]!r}\n        {'; '.join(r.detail for r in results)[:200]}")
    return tally


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


def flagged_figure_or_date(row: dict) -> bool:
    """Whether the words WiCE marks unsupported in a sub-claim cover one of its figures or dates."""
    claim = row["claim"]
    flagged = flagged_spans(claim, row["claim_tokens"], row["non_supported_spans"])

    def hit(m: NumberMention | DateMention) -> bool:
        # by position, not by word: "In October 2018 ... the 2018 ICC" flags one "2018"
        return any(s < m.end and m.start < e for s, e in flagged)

    return any(hit(m) for m in statistics_in(claim)) or any(hit(d) for d in dates_in(claim))


@dataclass
class Sets:
    """The labelled (claim, page text) pairs of every set (`bench/_corpora.py`), by set name."""

    supported: dict[str, list[tuple[str, str]]]
    unsupported: dict[str, list[tuple[str, str]]]
    wice_flagged: list[tuple[str, str]]


def load(quick: bool) -> Sets:
    limit = QUICK_ROWS if quick else None
    supported: dict[str, list[tuple[str, str]]] = {}
    unsupported: dict[str, list[tuple[str, str]]] = {}
    for name, read in SETS.items():
        rows = read(quick, limit)
        if not rows:
            continue  # a fetched set not found (CITECHECK_CORPORA)
        supported[name] = [(r.claim, r.page_text) for r in rows if r.label == SUPPORTED]
        unsupported[name] = [(r.claim, r.page_text) for r in rows if r.label == REFUTED]
    subs = read_jsonl(eval_file("wice/non_supported_tokens_dev.jsonl", quick), limit)
    return Sets(
        supported=supported,
        unsupported=unsupported,
        wice_flagged=[(r["claim"], "\n".join(r["evidence"])) for r in subs if flagged_figure_or_date(r)],
    )


def headline(sets: Sets, verbose: bool) -> None:
    print("The checks stage (kinds from the extractor, verdict from policy.checks_verdict)")
    print()
    header = (
        "supported claims",
        "claims",
        "a check ran",
        "failed by the checks alone",
        "to the judge with a hint",
        "--judge none: passed",
        "--judge none: not verified",
    )
    print("| " + " | ".join(header) + " |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    tallies = {name: stage(pairs) for name, pairs in sets.supported.items()}
    both = Tally()
    for t in tallies.values():
        both = both.add(t)
    for name, t in (*tallies.items(), ("together", both)):
        print(
            f"| {name} | {t.claims} | {t.checked} | {rate(t.failed, t.checked)} | {t.hinted} "
            f"| {t.passed_off} | {t.not_verified_off} |"
        )
    print()
    share = 100 * both.failed / both.checked if both.checked else 0.0
    verdict = "met" if share <= TARGET else "NOT met"
    print(
        f"False failures on supported claims, every set: {rate(both.failed, both.checked)} of the claims a "
        f"check ran on ({rate(both.failed, both.claims)} of all) — target ≤ {TARGET} %: {verdict}"
    )
    if verbose:
        for name, t in tallies.items():
            for line in t.failures:
                print(f"    FF [{name}]: {line}")
    print()
    header = (
        "unsupported claims",
        "claims",
        "a check ran",
        "caught by the checks alone",
        "to the judge with a hint",
    )
    print("| " + " | ".join(header) + " |")
    print("| --- | ---: | ---: | ---: | ---: |")
    rows = [(f"{name} not / partially supported", pairs) for name, pairs in sets.unsupported.items()]
    rows.insert(1, ("WiCE sub-claims, a figure or date flagged", sets.wice_flagged))
    for name, pairs in rows:
        t = stage(pairs)
        print(f"| {name} | {t.claims} | {t.checked} | {rate(t.failed, t.checked)} | {t.hinted} |")
        if verbose:
            for line in t.failures:
                print(f"    caught: {line}")
            if name.startswith("WiCE sub-claims"):
                for line in t.rest:
                    print(f"    missed: {line}")
    print()


# --- each check on its own ---------------------------------------------------------------------


def outcomes(pairs: list[tuple[str, str]], check: Callable[..., CheckResult | None]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for claim, text in pairs:
        result = check(claim, PageIndex(text))
        if result is not None:
            counts[outcome(result)] += 1
    return counts


def per_check(sets: Sets) -> None:
    print("Each check on every claim it applies to, whatever the claim's kinds")
    print()
    print("| check | claims | found | absent | contradicted |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, by_set in (("supported", sets.supported), ("unsupported", sets.unsupported)):
        pairs = [pair for name in ("WiCE dev", "Check-COVID") for pair in by_set.get(name, [])]
        for name, check in (("number", check_numbers), ("date", check_dates), ("quote", check_quotes)):
            c = outcomes(pairs, check)
            total = sum(c.values())
            contradicted = rate(c["contradicted"], total)
            print(f"| {name} | {label} ({total}) | {c['found']} | {c['absent']} | {contradicted} |")
    print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list false failures, catches and misses")
    add_quick(ap, f"the first {QUICK_ROWS} rows of each data file")
    args = ap.parse_args(argv)
    folder = eval_file("wice", args.quick).parent  # the data folder this run reads: eval data or sample
    if not (folder / "wice").exists():
        print(f"{folder}: no eval data (set CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    print(f"data: {folder}{' (quick run)' if args.quick else ''}")
    print()
    sets = load(args.quick)
    headline(sets, args.verbose)
    per_check(sets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
