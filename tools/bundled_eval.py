"""Draw the labelled set that ships with citecheck (`citecheck eval --bundled`) from the
evaluation data beside the repository, deterministically.

    python tools/bundled_eval.py           # rewrite citecheck/data/eval/bundled.jsonl
    python tools/bundled_eval.py --check   # exit 1 if the committed file differs from a fresh draw

The data is read from `../shared/eval/` (or the folder in CITECHECK_EVAL_DIR): WiCE dev
(`wice/claims_dev.jsonl`) and Check-COVID (`check_covid/Check-COVID_all.json` with the abstracts
of `check_covid/corpus.json`). How the rows are drawn:

- Quotas per set and gold label (`QUOTAS`): 150 supported and 150 not-supported claims, the
  not-supported ones spread over each set's own labels (WiCE's partially_supported and
  not_supported, Check-COVID's REFUTE and NOTENOUGHINFO).
- Within each quota, strata by the claim's main kind as citecheck's extractor detects it
  (`citecheck.extract.kinds.detect_kinds`, the rarest kind first: quote, statistic,
  comparative, temporal, else hyperlinked): equal shares, a stratum with fewer rows than its
  share giving the rest to the others. Rare kinds are therefore over-represented compared with
  the source data, so that every kind has enough claims for its own figures; overall figures
  weight the kinds more evenly than a real document would.
- Inside a stratum, rows are taken in the order of a SHA-256 of `SEED` and the row's id: the
  draw does not depend on file order, and changing `SEED` draws another sample.
- WiCE pages longer than `MAX_PAGE_CHARS` are left out (11 of 349), to keep the package small.
- The file is ordered so that any prefix is a fair sample (`citecheck eval --bundled --limit N`):
  supported and not-supported rows alternate, each in hash order.

Each row keeps the claim, the source text and the label unchanged (WiCE: the evidence
sentences as given, title line included; Check-COVID: the abstract's sentences of the paper
the claim cites, and its title), and adds `id`, `set` and `kind` (every kind detected, or
`hyperlinked`). Attribution and licences: citecheck/data/eval/NOTICE.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._data import eval_dir, read_jsonl  # noqa: E402
from citecheck.extract.kinds import detect_kinds  # noqa: E402

OUT = ROOT / "citecheck" / "data" / "eval" / "bundled.jsonl"
SEED = "citecheck-bundled-eval-1"
MAX_PAGE_CHARS = 30_000
WICE, COVID = "WiCE dev", "Check-COVID"
# (set, label as the set writes it) -> rows to draw
QUOTAS: dict[tuple[str, str], int] = {
    (WICE, "supported"): 60,
    (WICE, "partially_supported"): 36,
    (WICE, "not_supported"): 24,
    (COVID, "SUPPORT"): 90,
    (COVID, "REFUTE"): 54,
    (COVID, "NOTENOUGHINFO"): 36,
}
SUPPORTED = frozenset({"supported", "SUPPORT"})
# Rarest first: a claim's stratum is the first of its kinds in this order.
KIND_ORDER = ("quote", "statistic", "comparative", "temporal", "hyperlinked")


def kinds_of(claim: str) -> list[str]:
    return [k.value for k in detect_kinds(claim)] or ["hyperlinked"]


def _order(row_id: str) -> str:
    return hashlib.sha256(f"{SEED}:{row_id}".encode()).hexdigest()


def wice_rows(folder: Path) -> list[dict]:
    out = []
    for r in read_jsonl(folder / "wice" / "claims_dev.jsonl"):
        if len("\n".join(r["evidence"])) > MAX_PAGE_CHARS:
            continue
        out.append(
            {
                "id": f"wice-dev:{r['meta']['id']}",
                "set": WICE,
                "claim": r["claim"],
                "label": r["label"],
                "kind": kinds_of(r["claim"]),
                "evidence": r["evidence"],
            }
        )
    return out


def covid_rows(folder: Path) -> list[dict]:
    corpus = {r["cord_id"]: r for r in read_jsonl(folder / "check_covid" / "corpus.json")}
    out = []
    for r in read_jsonl(folder / "check_covid" / "Check-COVID_all.json"):
        paper = corpus.get(r["cord_id"])
        if paper is None:
            continue
        out.append(
            {
                "id": f"check-covid:{r['id']}",
                "set": COVID,
                "claim": r["claim"].strip(),
                "label": r["label"],
                "kind": kinds_of(r["claim"]),
                "title": paper["title"],
                "evidence": paper["abstract"],
            }
        )
    return out


def allocate(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Equal shares of `total` over the strata, capped by what each holds (water-filling);
    the remainder of an uneven split goes to the strata in `KIND_ORDER`."""
    take = dict.fromkeys(sizes, 0)
    left = min(total, sum(sizes.values()))
    while left:
        open_ = [k for k in KIND_ORDER if k in sizes and take[k] < sizes[k]]
        share, extra = divmod(left, len(open_))
        for i, k in enumerate(open_):
            add = min(sizes[k] - take[k], share + (1 if i < extra else 0))
            take[k] += add
            left -= add
    return take


def draw(folder: Path) -> list[dict]:
    pools: dict[tuple[str, str], dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for row in [*wice_rows(folder), *covid_rows(folder)]:
        key = (row["set"], row["label"])
        if key in QUOTAS:
            stratum = next(k for k in KIND_ORDER if k in row["kind"])
            pools[key][stratum].append(row)
    supported: list[dict] = []
    others: list[dict] = []
    for key, quota in QUOTAS.items():
        strata = pools[key]
        counts = allocate({k: len(v) for k, v in strata.items()}, quota)
        for stratum, n in counts.items():
            chosen = sorted(strata[stratum], key=lambda r: _order(r["id"]))[:n]
            (supported if key[1] in SUPPORTED else others).extend(chosen)
    supported.sort(key=lambda r: _order(r["id"]))
    others.sort(key=lambda r: _order(r["id"]))
    rows: list[dict] = []
    for i in range(max(len(supported), len(others))):
        rows.extend(group[i] for group in (supported, others) if i < len(group))
    return rows


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file; write nothing")
    args = ap.parse_args(argv)
    folder = eval_dir()
    if not (folder / "wice" / "claims_dev.jsonl").exists():
        print(f"{folder}: no evaluation data (set CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    text = render(draw(folder))
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.relative_to(ROOT)}: {'up to date' if same else 'DIFFERS from a fresh draw'}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} rows, {len(text.encode()):,} bytes to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
