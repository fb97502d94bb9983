"""Where the benchmarks find their data, and the `--quick` switch they all share (not a bench).

A full run reads the evaluation data beside the repository: `../shared/eval/` from its root,
or the folder in CITECHECK_EVAL_DIR. `--quick` is the smoke run that CI makes of every bench
(`.ci/run`) so that none of them rots unnoticed: the first few rows of that data where it
exists, else the same files in miniature under `tests/data/eval_sample/` (a fresh clone has no
`../shared`). A quick run prints its figures and asserts nothing; on the sample they only show
that the bench runs.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "eval_sample"


def add_quick(parser: argparse.ArgumentParser, what: str) -> None:
    """The `--quick` option, `what` saying what the quick run does."""
    parser.add_argument(
        "--quick", action="store_true", help=f"smoke run in seconds ({what}); prints figures, asserts nothing"
    )


def eval_dir() -> Path:
    return Path(os.environ.get("CITECHECK_EVAL_DIR") or ROOT.parent / "shared" / "eval")


def eval_file(relative: str, quick: bool, env: str | None = None) -> Path:
    """The evaluation file at `relative` (or the path in the variable `env`, when set); in a
    quick run where that is absent, the sample's copy."""
    given = os.environ.get(env) if env else None
    path = Path(given) if given else eval_dir() / relative
    return SAMPLE / relative if quick and not path.exists() else path


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    """The JSON object of each non-empty line, the first `limit` of them when given."""
    rows: list[dict] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if limit is not None and len(rows) >= limit:
                break
            if line.strip():
                rows.append(json.loads(line))
    return rows
