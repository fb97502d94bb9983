"""Extraction throughput against the bare markdown-it-py parse of the same corpus, same run.

Usage: python bench/extract.py [DIR ...] [--mb 3] [--rounds 5] [--quick]

The corpus is every Markdown file under the given directories (default: the opensource.guide
articles in ../shared/eval/markdown, else the sample in tests/data/markdown), repeated until it
holds at least --mb megabytes. Each round times `MarkdownIt().parse` (CommonMark, no plugins)
and `citecheck.extract.document.extract_text` over every document, interleaved; the best round of each
is reported. Times are process CPU time, so other jobs on a shared machine skew them less.
`--quick`: 0.3 MB, 2 rounds (about a second).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._data import ROOT, add_quick, eval_dir

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.extract.document import extract_text
from citecheck.select import find_markdown_files

DEFAULT_DIRS = [eval_dir() / "markdown", ROOT / "tests" / "data" / "markdown"]
QUICK_MB, QUICK_ROUNDS = 0.3, 2


def load_corpus(dirs: list[Path], megabytes: float) -> list[tuple[str, str]]:
    files, _ = find_markdown_files([d for d in dirs if d.exists()][:1] or dirs)
    docs = [(f.name, f.read_text(encoding="utf-8")) for f in files]
    if not docs:
        raise SystemExit(f"no Markdown files under {', '.join(map(str, dirs))}")
    corpus: list[tuple[str, str]] = []
    size = 0
    while size < megabytes * 1_000_000:
        for name, text in docs:
            corpus.append((name, text))
            size += len(text.encode("utf-8"))
    return corpus


def best_seconds(fn: object, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        fn()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--mb", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=5)
    add_quick(ap, f"--mb {QUICK_MB} --rounds {QUICK_ROUNDS}")
    args = ap.parse_args()
    if args.quick:
        args.mb, args.rounds = QUICK_MB, QUICK_ROUNDS
    corpus = load_corpus(args.dirs or DEFAULT_DIRS, args.mb)
    mb = sum(len(t.encode("utf-8")) for _, t in corpus) / 1_000_000
    md = MarkdownIt()
    claims = sum(len(extract_text(t, n).claims) for n, t in corpus)

    def bare() -> None:
        for _, text in corpus:
            md.parse(text)

    def extract() -> None:
        for name, text in corpus:
            extract_text(text, name)

    # Interleave so both see the same machine state.
    t_bare = t_extract = float("inf")
    for _ in range(args.rounds):
        t_bare = min(t_bare, best_seconds(bare, 1))
        t_extract = min(t_extract, best_seconds(extract, 1))
    print(f"corpus: {len(corpus)} documents, {mb:.2f} MB, {claims} claims")
    print(f"bare markdown-it parse: {mb / t_bare:.2f} MB/s ({t_bare:.3f} s)")
    print(f"citecheck extract:      {mb / t_extract:.2f} MB/s ({t_extract:.3f} s)")
    target = "" if args.quick else " (target >= 50%)"  # a quick run's corpus is too small to judge by
    print(f"ratio extract/bare:     {t_bare / t_extract:.0%}{target}")


if __name__ == "__main__":
    main()
