"""Evidence recall of `select_evidence` on WiCE dev, beside sending the first 12,000 characters.

Recall: the share of claims with a gold evidence set for which every sentence of at least one
gold set reaches the judge (lies wholly inside the selected passages). The page text is the
WiCE sentences joined by newlines (as extracted page text has one paragraph a line); gold
sentence indices are mapped to character spans of that text. The "(1 para)" rows join them
by spaces instead, a harder case where our own sentence splitter must find every boundary.
ms/claim includes parsing the page (`PageIndex`).

Then what the judge reads per claim, in a call for that one claim at the default budget: the
system prompt, the fenced source (its head: URL, markers; the excerpt), the fenced claim, the
checks' notes (what they did not find on the page: the claim's kinds from the extractor, its
checks run on the page) and the closing line; on WiCE dev, and on WiCE test (held out: no rule
was tuned on it) where CITECHECK_CORPORA has it (`bench/_corpora.py`).

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

from bench._corpora import _extra
from bench._data import add_quick, eval_file, read_jsonl

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.checks import check_request, judge_hints, run_request
from citecheck.checks.passages import PageIndex, select_evidence
from citecheck.config import Settings
from citecheck.extract.kinds import detect_kinds
from citecheck.judge.prompt import build_excerpt, build_prompt_parts
from citecheck.models import Claim, FetchedSource, FetchOutcome, Passage, SourceInfo

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


PARTS = ("system prompt", "source head", "excerpt", "claim", "check notes", "closing")
URL = "https://example.org/source"


def judge_input(row: dict, budget: int) -> dict[str, int]:
    """The characters of each part of a one-claim judge call for the row's claim."""
    text, _ = page_of(row)
    claim_text = row["claim"]
    page = PageIndex(text)
    claim = Claim(text=claim_text, kinds=detect_kinds(claim_text), file="bench.md", line=1, column=1)
    request = check_request(claim)
    notes = judge_hints(run_request(request, page)) if request else []
    excerpt = build_excerpt(text, [select_evidence(claim_text, text, budget_chars=budget, page=page)], budget)
    source = FetchedSource(info=SourceInfo(url=URL), outcome=FetchOutcome.ok, text=text)
    parts = build_prompt_parts(source, excerpt, [claim_text], hints=[notes])
    claims_part = len(parts.claims)
    note_chars = len(parts.claims) - len(build_prompt_parts(source, excerpt, [claim_text]).claims)
    return {
        "system prompt": len(parts.system),
        "source head": len(parts.source) - len(excerpt),
        "excerpt": len(excerpt),
        "claim": len(claim_text),
        "check notes": note_chars,
        "closing": claims_part - note_chars - len(claim_text),
    }


def input_sums(rows: list[dict], budget: int) -> dict[str, float]:
    """The mean characters of each part of a one-claim call over `rows`."""
    sums = dict.fromkeys(PARTS, 0)
    for row in rows:
        for part, n in judge_input(row, budget).items():
            sums[part] += n
    return {p: n / len(rows) for p, n in sums.items()}


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
    held_out = _extra("wice/claims_test.jsonl")
    sets = [("WiCE dev", rows)]
    if held_out is not None:
        sets.append(("WiCE test (held out)", read_jsonl(held_out, QUICK_CLAIMS if args.quick else None)))
    default = Settings().evidence_chars
    print()
    print("What the judge reads per claim, one-claim calls (characters), and the evidence recall:")
    print()
    print("| set | budget | recall | " + " | ".join(PARTS) + " | total |")
    print("| --- | ---: | ---: |" + " ---: |" * (len(PARTS) + 1))
    for name, set_rows in sets:
        for budget in (3000, default, 6000):

            def pick(claim: str, text: str, budget: int = budget) -> list[Passage]:
                return select_evidence(claim, text, budget_chars=budget, page=PageIndex(text))

            recall = evaluate(set_rows, pick)[0]
            parts = input_sums(set_rows, budget)
            cells = " | ".join(f"{parts[p]:,.0f}" for p in PARTS)
            print(f"| {name} | {budget:,} | {recall:.3f} | {cells} | {sum(parts.values()):,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
