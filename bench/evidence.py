"""Evidence recall of `select_evidence` on WiCE dev, beside sending the first 12,000 characters.

Recall: the share of claims with a gold evidence set for which every sentence of at least one
gold set reaches the judge (lies wholly inside the selected passages). The page text is the
WiCE sentences joined by newlines (as extracted page text has one paragraph a line); gold
sentence indices are mapped to character spans of that text. The "(1 para)" rows join them
by spaces instead, a harder case where our own sentence splitter must find every boundary.
ms/claim includes parsing the page (`PageIndex`).

Run from the repository root: `python bench/evidence.py [--quick]` (data: `../shared/eval/wice/
claims_dev.jsonl`, or the path in CITECHECK_WICE_DEV; `--quick`: its first 40 claims, else the
14 of tests/data/eval_sample, a second or two).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._data import add_quick, eval_file, read_jsonl

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.checks.passages import PageIndex, select_evidence
from citecheck.models import Passage

BUDGETS = (2000, 3000, 4000, 6000)
BASELINE_CHARS = 12000
QUICK_CLAIMS = 40


def page_of(row: dict, sep: str = "\n") -> tuple[str, list[tuple[int, int]]]:
    spans, pos = [], 0
    for s in row["evidence"]:
        spans.append((pos, pos + len(s)))
        pos += len(s) + len(sep)
    return sep.join(row["evidence"]), spans


def covered(passages: list[Passage], span: tuple[int, int]) -> bool:
    s, e = span
    if s == e:
        return True
    return any(p.start <= s and e <= p.end for p in passages)


def recall_hit(row: dict, spans: list[tuple[int, int]], passages: list[Passage]) -> bool:
    return any(
        all(covered(passages, spans[i]) for i in group) for group in row["supporting_sentences"] if group
    )


def evaluate(rows: list[dict], pick, sep: str = "\n") -> tuple[float, float, int, float]:
    hits = n = 0
    chars = 0
    t0 = time.perf_counter()
    for row in rows:
        text, spans = page_of(row, sep)
        passages = pick(row["claim"], text)
        chars += sum(len(p.text) for p in passages)
        if any(g for g in row["supporting_sentences"]):
            n += 1
            hits += recall_hit(row, spans, passages)
    elapsed = time.perf_counter() - t0
    return hits / n, chars / len(rows), n, elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, f"the first {QUICK_CLAIMS} claims")
    args = ap.parse_args(argv)
    path = eval_file("wice/claims_dev.jsonl", args.quick, env="CITECHECK_WICE_DEV")
    if not path.exists():
        print(f"{path}: not found (set CITECHECK_WICE_DEV or CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    rows = read_jsonl(path, QUICK_CLAIMS if args.quick else None)
    print(f"WiCE dev: {len(rows)} claims, {path}{' (quick run)' if args.quick else ''}")
    print(f"{'selection':<30} {'recall':>7} {'mean chars':>11} {'claims':>7} {'ms/claim':>9}")

    def baseline(claim: str, text: str) -> list[Passage]:
        return [Passage(start=0, end=min(len(text), BASELINE_CHARS), text=text[:BASELINE_CHARS])]

    r, c, n, t = evaluate(rows, baseline)
    print(f"{'first 12,000 chars':<30} {r:>7.3f} {c:>11,.0f} {n:>7} {1000 * t / len(rows):>9.2f}")
    for sep, name in (("\n", ""), (" ", " (1 para)")):
        for budget in BUDGETS:

            def ours(claim: str, text: str, budget: int = budget) -> list[Passage]:
                return select_evidence(claim, text, budget_chars=budget, page=PageIndex(text))

            r, c, n, t = evaluate(rows, ours, sep)
            label = f"select_evidence {budget:,}{name}"
            print(f"{label:<30} {r:>7.3f} {c:>11,.0f} {n:>7} {1000 * t / len(rows):>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
