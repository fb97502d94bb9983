"""The skip rules, one table: what each removes on every labelled set (issue 31).

Usage: python bench/skiprules.py [SET_DIR ...] [--quick] [--markdown] [-v] [--json OUT]

Every Markdown file of every labelled set (`bench/realdocs.py`'s sets: realdocs-dev and the
held-out sets) is extracted; each sentence a skip rule set aside (`ExtractedDocument.skipped`,
`citecheck.extract.skip`) is matched to the set's labels by file, line and text
(`bench.realdocs.match`): `judgments.jsonl` (`real` Y/N), `recall.jsonl` (every real claim of the
files read in full) and `cited.jsonl` (every cited sentence of the files read in full: `asserts`
Y/N and `real`). Per rule, cited and uncited apart, the bench counts the real claims it removes,
the non-claims, and the sentences no label covers. A rule that removes a cited real claim — or,
on `cited.jsonl`, a cited sentence labelled as asserting something — on any set is no form rule
(see the module docstring of `citecheck.extract.skip`): `-v` lists each one.

`--markdown` prints the table as docs/benchmarks.md gives it; `--quick` (CI's smoke run) scores
the committed sets only when realdocs-dev is absent (a fresh clone).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
_ROOT = Path(__file__).resolve().parent.parent
if not __import__("os").environ.get("PYTHONPATH"):
    sys.path.insert(0, str(_ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from bench.realdocs import HELD_OUT, SAMPLE, SUFFIXES, _eval_dir, _jsonl, match  # noqa: E402
from citecheck.extract.document import extract_file  # noqa: E402
from citecheck.extract.skip import ALL_RULES  # noqa: E402
from citecheck.models import Claim, SkippedSentence  # noqa: E402

# What a removed sentence was, by its labels.
REAL, NOT_REAL, UNLABELLED = "real", "not real", "unlabelled"


@dataclass
class RuleCounts:
    """One rule on one set: (cited, label) → how many sentences it removed."""

    counts: dict[tuple[bool, str], int] = field(default_factory=lambda: defaultdict(int))
    real_cited: list[str] = field(default_factory=list)  # what it should never have removed


def _as_claim(s: SkippedSentence) -> Claim:
    return Claim(text=s.text, kinds=[], file=s.file, line=s.line, column=s.column)


def _labels(set_dir: Path) -> list[tuple[dict, str]]:
    """Every label of a set as (row, REAL or NOT_REAL)."""
    out: list[tuple[dict, str]] = []
    for row in _jsonl(set_dir / "judgments.jsonl"):
        out.append((row, REAL if row["real"] == "Y" else NOT_REAL))
    out += [(row, REAL) for row in _jsonl(set_dir / "recall.jsonl")]
    for row in _jsonl(set_dir / "cited.jsonl"):
        # a cited sentence that asserts anything is never dropped, whether or not it is "real"
        out.append((row, REAL if row["asserts"] == "Y" or row.get("real") == "Y" else NOT_REAL))
    return out


def count_set(set_dir: Path) -> dict[str, RuleCounts]:
    """What each rule removed on one labelled set."""
    corpus = set_dir / "corpus"
    skipped: dict[str, list[SkippedSentence]] = {}
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES):
        rel = path.relative_to(corpus).as_posix()
        skipped[rel] = extract_file(path, display=rel, budget_s=None).skipped
    by_claim = {f: [_as_claim(s) for s in ss] for f, ss in skipped.items()}
    found: dict[int, str] = {}  # id of a skipped sentence's claim → its label (REAL wins)
    for row, label in _labels(set_dir):
        c = match(by_claim, row)
        if c is not None and found.get(id(c)) != REAL:
            found[id(c)] = label
    out: dict[str, RuleCounts] = defaultdict(RuleCounts)
    for f, ss in skipped.items():
        for s, c in zip(ss, by_claim[f], strict=True):
            label = found.get(id(c), UNLABELLED)
            out[s.rule].counts[(s.cited, label)] += 1
            if s.cited and label == REAL:
                out[s.rule].real_cited.append(f"{set_dir.name}: {f}:{s.line} {s.text[:110]}")
    return out


def _sets(args: argparse.Namespace) -> list[Path]:
    if args.sets:
        return list(args.sets)
    dev = _eval_dir() / "realdocs-dev"
    return [dev if dev.exists() or not args.quick else SAMPLE, *(d for d in HELD_OUT if d.exists())]


def totals(per_set: dict[str, dict[str, RuleCounts]]) -> dict[str, dict[str, int]]:
    """Per rule: cited/uncited × real/not real/unlabelled, summed over the sets, and on how many
    sets it removed a cited real claim."""
    out: dict[str, dict[str, int]] = {}
    for rule in ALL_RULES:
        row: dict[str, int] = defaultdict(int)
        for counts in per_set.values():
            rc = counts.get(rule.name)
            if rc is None:
                continue
            for (cited, label), n in rc.counts.items():
                row[f"{'cited' if cited else 'uncited'} {label}"] += n
            row["sets with a cited real claim removed"] += bool(rc.real_cited)
        out[rule.name] = dict(row)
    return out


COLUMNS = (
    "cited real",
    "cited not real",
    "cited unlabelled",
    "uncited real",
    "uncited not real",
    "uncited unlabelled",
)


def print_markdown(table: dict[str, dict[str, int]], n_sets: int) -> None:
    print(f"| rule | applies to | form | example | {' | '.join(COLUMNS)} |")
    print("| --- | --- | --- | --- |" + " ---: |" * len(COLUMNS))
    for rule in ALL_RULES:
        row = table[rule.name]
        who = "cited and uncited" if rule.cited else "uncited only"
        cells = " | ".join(str(row.get(c, 0)) for c in COLUMNS)
        example = rule.example.strip().replace("|", "\\|").replace("`", "'")
        print(f"| `{rule.name}` | {who} | {rule.form} | `{example}` ({rule.source}) | {cells} |")
    print(f"\n{n_sets} labelled sets.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", type=Path, help="labelled set folders (default: dev and held-out)")
    ap.add_argument("--quick", action="store_true", help="smoke run; the committed sample if dev is absent")
    ap.add_argument("--markdown", action="store_true", help="print the table for docs/benchmarks.md")
    ap.add_argument("--json", type=Path, help="write the per-set counts here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every cited real claim a rule removed")
    args = ap.parse_args()
    sets = _sets(args)
    if args.quick:
        sets = sets[:3]
    per_set = {d.name: count_set(d) for d in sets}
    table = totals(per_set)
    if args.markdown:
        print_markdown(table, len(sets))
    else:
        width = max(len(r.name) for r in ALL_RULES) + 2
        print(f"{'rule':{width}}" + "".join(f"{c:>20}" for c in COLUMNS))
        for rule in ALL_RULES:
            print(f"{rule.name:{width}}" + "".join(f"{table[rule.name].get(c, 0):>20}" for c in COLUMNS))
    lost = [item for counts in per_set.values() for rc in counts.values() for item in rc.real_cited]
    print(f"\ncited real claims (or cited assertions) removed by a skip rule: {len(lost)}")
    if args.verbose:
        for counts in per_set.values():
            for name, rc in counts.items():
                for item in rc.real_cited:
                    print(f"  [{name}] {item}")
    if args.json:
        out = {
            s: {
                name: {f"{'cited' if c else 'uncited'} {lab}": n for (c, lab), n in rc.counts.items()}
                for name, rc in counts.items()
            }
            for s, counts in per_set.items()
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
