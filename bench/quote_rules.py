"""False refusals of the judge's evidence rules on real evidence: WiCE's gold sentences as quotes.

WiCE dev pairs Wikipedia claims with the cited web page, split into sentences, and marks the
sentences that support each claim. Each gold sentence of a claim that has one is given to
`weigh_evidence` as if the judge had quoted it, on the page's text (its sentences one a line,
as extracted text has them; and joined by spaces, "1 para", where our own splitter must find
the sentence around a quote). Every refusal there is a false one; the table counts them by
rule. The rules this bench watches: "instructs" (text that speaks to the checking,
`judge/instructions.py`) and "denied" (a clause its sentence denies, questions or supposes,
`judge/asserted.py`); "off claim" and "too short" are the older rules, for scale.

Then the same gold sentences cut into clauses (at commas, semicolons, "that", "and", "but"),
each clause of four words or more quoted alone: the "denied" rule may refuse such a clause
only when its sentence denies, questions or supposes it. The clauses it refuses are printed
(`--show N`) to be read: each should be one a careful reader would not take as the page's
assertion. Last, every sentence of every page (gold or not) through the "instructs" rule: how
often real web text reads as instructions to a model, and which; and the same for every
sentence of the real documentation under tests/data/realdocs*/corpus (how-to text, where
imperatives are the norm).

Run from the repository root: `python bench/quote_rules.py [--quick] [--show 20]` (data:
`../shared/eval/wice/claims_dev.jsonl`, or the path in CITECHECK_WICE_DEV; `--quick`: its first
40 claims, else the 14 of tests/data/eval_sample).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._data import ROOT, add_quick, eval_file, read_jsonl

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.judge.instructions import instructs_a_model
from citecheck.judge.quotes import (
    QUOTE_INSTRUCTS,
    QUOTE_NEGATED,
    QUOTE_NOT_FOUND,
    QUOTE_OFF_CLAIM,
    QUOTE_TOO_SHORT,
    weigh_evidence,
)
from citecheck.sentences import split_sentences

QUICK_CLAIMS = 40
RULES = {
    QUOTE_INSTRUCTS: "instructs",
    QUOTE_NEGATED: "denied",
    QUOTE_OFF_CLAIM: "off claim",
    QUOTE_TOO_SHORT: "too short",
    QUOTE_NOT_FOUND: "not found",
}
_CUT = re.compile(r"\s*[,;:]\s+|\s+(?=\b(?:that|and|but|which|while|because)\b)")


def gold_quotes(row: dict) -> list[str]:
    seen: list[str] = []
    for group in row["supporting_sentences"]:
        for i in group:
            sentence = row["evidence"][i].strip()
            if sentence and sentence not in seen:
                seen.append(sentence)
    return seen


def clauses(sentence: str) -> list[str]:
    parts = [p.strip() for p in _CUT.split(sentence)]
    out = [p.rstrip(".!?") for p in parts if len(p.split()) >= 4]
    return [c for c in out if c != sentence.rstrip(".!?")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, f"the first {QUICK_CLAIMS} claims")
    ap.add_argument("--show", type=int, default=10, help="print up to N refused clauses and sentences")
    args = ap.parse_args(argv)
    path = eval_file("wice/claims_dev.jsonl", args.quick, env="CITECHECK_WICE_DEV")
    if not path.exists():
        print(f"{path}: not found (set CITECHECK_WICE_DEV or CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    rows = read_jsonl(path, QUICK_CLAIMS if args.quick else None)
    rows = [r for r in rows if any(r["supporting_sentences"])]
    print(f"WiCE dev: {len(rows)} claims with gold evidence, {path}{' (quick run)' if args.quick else ''}")

    t0 = time.perf_counter()
    print(f"\n{'gold sentences as quotes':<28} {'quotes':>7} " + " ".join(f"{n:>10}" for n in RULES.values()))
    for sep, name in (("\n", "a sentence a line"), (" ", "1 para")):
        refused: Counter[str] = Counter()
        n = 0
        for row in rows:
            page = sep.join(row["evidence"])
            for quote in gold_quotes(row):
                n += 1
                _, why = weigh_evidence(quote, row["claim"], page)
                if why is not None:
                    refused[why] += 1
        print(f"{name:<28} {n:>7} " + " ".join(f"{refused[w]:>10}" for w in RULES))

    denied: list[tuple[str, str]] = []
    n = 0
    for row in rows:
        page = "\n".join(row["evidence"])
        for sentence in gold_quotes(row):
            for clause in clauses(sentence):
                n += 1
                _, why = weigh_evidence(clause, row["claim"], page)
                if why == QUOTE_NEGATED:
                    denied.append((clause, sentence))
    print(f"\ngold clauses as quotes: {n}, refused as denied: {len(denied)}")
    for clause, sentence in denied[: args.show]:
        print(f"  [{clause}]  in: {sentence[:200]}")

    instructing: list[str] = []
    n = 0
    for row in rows:
        for sentence in row["evidence"]:
            n += 1
            if instructs_a_model(sentence, row["claim"]):
                instructing.append(sentence)
    print(f"\nevery page sentence: {n}, read as instructions to a model: {len(instructing)}")
    for sentence in instructing[: args.show]:
        print(f"  {sentence[:200]}")

    docs = sorted(ROOT.glob("tests/data/realdocs*/corpus/**/*.md"))
    if args.quick:
        docs = docs[:20]
    instructing, n = [], 0
    for doc in docs:
        for line in doc.read_text(encoding="utf-8", errors="replace").splitlines():
            for start, end in split_sentences(line):
                n += 1
                if instructs_a_model(line[start:end]):
                    instructing.append(line[start:end])
    print(f"\nrealdocs: {len(docs)} documents, {n} sentences, read as instructions: {len(instructing)}")
    for sentence in instructing[: args.show]:
        print(f"  {sentence[:200]}")
    print(f"\n{time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
