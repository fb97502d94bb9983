"""How far two labellers agree on which extracted sentences are claims worth checking.

Usage: python bench/agreement.py [SET_DIR ...] [--quick]

A held-out set that has `second_labels.jsonl` beside its `judgments.jsonl` was labelled twice:
the second labeller had the same 60 sentences, the documents and the written rules
(../shared/eval/realdocs-dev/README.md, held-out 25's decisions), and not the first labels. For
each such set, and over all of them, the bench prints the agreement on `real`, Cohen's kappa,
and each labeller's claims as the other would score them: the precision a perfect copy of one
labeller's judgement would get from the other. That is the ceiling of a precision measured
against one labeller on documents nobody tuned for, whatever the extractor does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def counts(set_dir: Path) -> tuple[int, int, int, int]:
    """(both real, first only, second only, neither) over the sentences both labelled."""
    first = _rows(set_dir / "judgments.jsonl")
    second = _rows(set_dir / "second_labels.jsonl")
    if [r["text"] for r in first] != [r["text"] for r in second]:
        raise SystemExit(f"{set_dir}: second_labels.jsonl does not list judgments.jsonl's sentences in order")
    pairs = [(a["real"] == "Y", b["real"] == "Y") for a, b in zip(first, second, strict=True)]
    return (
        sum(a and b for a, b in pairs),
        sum(a and not b for a, b in pairs),
        sum(b and not a for a, b in pairs),
        sum(not a and not b for a, b in pairs),
    )


def _share(n: int, d: int) -> str:
    return f"{n}/{d} = {n / d:.2f}" if d else "-"


def row(name: str, c: tuple[int, int, int, int]) -> str:
    yy, yn, ny, nn = c
    total = yy + yn + ny + nn
    agree = (yy + nn) / total
    chance = ((yy + yn) * (yy + ny) + (nn + ny) * (nn + yn)) / total / total
    kappa = (agree - chance) / (1 - chance) if chance < 1 else 1.0
    return (
        f"| {name} | {total} | {_share(yy + nn, total)} | {kappa:.2f} "
        f"| {_share(yy, yy + yn)} | {_share(yy, yy + ny)} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "sets", nargs="*", type=Path, help="held-out set folders (default: every one labelled twice)"
    )
    ap.add_argument("--quick", action="store_true", help="smoke run (the same: the data is small)")
    args = ap.parse_args()
    sets = args.sets or sorted(
        (p.parent for p in (ROOT / "tests" / "data").glob("realdocs-heldout*/second_labels.jsonl")),
        key=lambda p: int(p.name.removeprefix("realdocs-heldout") or 1),
    )
    print(
        "| set | sentences | labels agree | Cohen's kappa | first's claims, scored by the second "
        "| second's claims, scored by the first |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    total = [0, 0, 0, 0]
    for set_dir in sets:
        c = counts(set_dir)
        total = [t + x for t, x in zip(total, c, strict=True)]
        print(row(set_dir.name.replace("realdocs-", ""), c))
    if len(sets) > 1:
        print(row("all", (total[0], total[1], total[2], total[3])))


if __name__ == "__main__":
    main()
