"""Benchmark of the select stage on a large PR, against git's own diff of the same commits.

Builds a repository of 2,000 Markdown files (200 lines each) and a head commit that edits
1,000 of them (10 scattered lines each), renames 50 and deletes 50. Then times, best of 5:

- peer: `git diff --unified=0 -M base head` alone (what any git-based select pays at least);
- `select_pr` on the PR files API's listing of the same PR (3 lines of context per hunk, as
  GitHub gives it), without the network: patch parsing, moving the lines onto the checked-out
  files by content (which reads every changed file), globs and file checks;
- `apply_shard` over 100,000 paths.

Run: `python bench/select_diff.py` (a minute or so; prints the figures). `--quick`: 100 files
of 50 lines (50 edited, 5 renamed, 5 deleted), best of 2, `apply_shard` over 10,000 paths (a
second or two).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.servers: GitHub's listing

from bench._data import add_quick

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.config import Settings
from citecheck.models import SelectedFile
from citecheck.select import PRFile, PRFileList, apply_shard, select_pr
from tests.servers.github_server import pr_files_from_git


@dataclass(frozen=True)
class Size:
    files: int
    edited: int
    renamed: int
    deleted: int
    lines: int
    rounds: int  # best of
    shard_paths: int


FULL = Size(files=2000, edited=1000, renamed=50, deleted=50, lines=200, rounds=5, shard_paths=100_000)
QUICK = Size(files=100, edited=50, renamed=5, deleted=5, lines=50, rounds=2, shard_paths=10_000)
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.invalid",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, env=ENV, capture_output=True, text=True, check=True
    ).stdout


def best_of(n: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def build(root: Path, size: Size) -> tuple[str, str]:
    rng = random.Random(7)
    git(root, "init", "-q")
    for i in range(size.files):
        path = root / f"docs/s{i % 40}/page{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"Line {n} of page {i}, 12% of readers agree.\n" for n in range(size.lines)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    for i in range(size.edited):
        path = root / f"docs/s{i % 40}/page{i}.md"
        lines = path.read_text().splitlines(keepends=True)
        for n in rng.sample(range(size.lines), 10):
            lines[n] = f"Edited line {n}: 34% now say so.\n"
        path.write_text("".join(lines))
    (root / "docs/moved").mkdir()
    renamed = range(size.edited, size.edited + size.renamed)
    for i in renamed:
        git(root, "mv", f"docs/s{i % 40}/page{i}.md", f"docs/moved/page{i}.md")
    for i in range(renamed.stop, renamed.stop + size.deleted):
        git(root, "rm", "-q", f"docs/s{i % 40}/page{i}.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    return base, git(root, "rev-parse", "HEAD").strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, f"{QUICK.files} files of {QUICK.lines} lines, best of {QUICK.rounds}")
    size = QUICK if ap.parse_args(argv).quick else FULL
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        base, head = build(root, size)
        built = time.perf_counter() - t0
        print(
            f"repository: {size.files} files x {size.lines} lines ({size.edited} edited, {size.renamed} "
            f"renamed, {size.deleted} deleted), built in {built:.1f} s; best of {size.rounds}"
        )
        settings = Settings()

        peer = best_of(size.rounds, lambda: git(root, "diff", "--unified=0", "-M", base, head))
        files = [PRFile(**entry) for entry in pr_files_from_git(root, base, head)]
        listing = PRFileList(files=files, changed_files=len(files))
        sel = select_pr(root, settings, listing)
        ours = best_of(size.rounds, lambda: select_pr(root, settings, listing))
        ranges = sum(len(f.line_ranges or []) for f in sel.files)
        print(f"selected: {len(sel.files)} files, {ranges} line ranges (from {len(files)} listed)")
        print(f"peer  git diff --unified=0 alone:     {peer * 1000:8.1f} ms")
        print(f"ours  select_pr on the API listing:   {ours * 1000:8.1f} ms  ({ours / peer:.2f}x the peer)")

        many = [SelectedFile(path=f"d/{i}.md", display=f"d/{i}.md") for i in range(size.shard_paths)]
        shard = best_of(size.rounds, lambda: apply_shard(many, (2, 8)))
        print(f"ours  apply_shard over {size.shard_paths:,} paths: {shard * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
