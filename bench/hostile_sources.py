"""Wall time and peak memory of `citecheck check` on hostile source pages (issue 30, point 5).

Usage: python bench/hostile_sources.py [--quick] [--only NAME ...] [--timeout 10] [--limit 900]

Each case serves its pages from a loopback server (tests/servers/source_server.py) and runs
`citecheck check DOC --judge none` in a child process on a Markdown document citing every page
with a claim that has a figure (so the number check runs on each page):

- `br`: one 5 MB page of `word<br>` (650,000 elements);
- `br x12`: twelve such pages;
- `links x12`: twelve pages of 100,000 links each;
- `endless x30`: thirty `text/plain` bodies that never end (cut at the 5 MB byte cap).

Printed per case: the run's wall time and CPU time (user + system, of the run's process and the
workers it waited for: less skewed than wall time by other jobs on a shared machine, against
which the workers, at a lower priority, lose); the peak resident memory of the largest single process
(`ru_maxrss` of the run's process and of its children, which is what the kernel keeps) and of
the whole process tree at once (the sum of every process's resident set, sampled every 20 ms
from /proc: Linux only, "—" elsewhere); and the claims' verdicts. A run that takes longer than
`--limit` seconds is stopped and shown as such.

For a before column run the old code: `PYTHONPATH=<checkout> python bench/hostile_sources.py`
(the child imports `citecheck` from PYTHONPATH when it is set). `--quick` (CI's smoke run, some
seconds): one 200 KB `word<br>` page and two endless bodies, a 2 s deadline.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._data import add_quick  # noqa: E402
from tests.servers.source_server import SourceServer, br_flood, link_flood  # noqa: E402

MB = 1024 * 1024
CLAIM = "The survey found that 42% of the 1,200 people asked agree"


@dataclass(frozen=True)
class Case:
    name: str
    serve: Callable[[SourceServer], list[str]]  # adds the case's pages, returns their URLs


def _pages(prefix: str, n: int, body: bytes) -> Callable[[SourceServer], list[str]]:
    def serve(server: SourceServer) -> list[str]:
        return [server.add(f"/{prefix}/{i}", body, "text/html; charset=utf-8") for i in range(n)]

    return serve


def _endless(n: int) -> Callable[[SourceServer], list[str]]:
    def serve(server: SourceServer) -> list[str]:
        return [server.add_endless(f"/endless/{i}") for i in range(n)]

    return serve


def cases(quick: bool) -> list[Case]:
    if quick:
        return [Case("br (200 KB)", _pages("br", 1, br_flood(200 * 1024))), Case("endless x2", _endless(2))]
    return [
        Case("br", _pages("br", 1, br_flood(5 * MB))),
        Case("br x12", _pages("br", 12, br_flood(5 * MB))),
        Case("links x12", _pages("links", 12, link_flood(100_000))),
        Case("endless x30", _endless(30)),
    ]


def _tree_rss(root: int) -> int:
    """Bytes resident in `root` and all its descendants now (0 where /proc is missing)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += [child for child, p in parent.items() if p == pid]
    return total


@dataclass
class Result:
    wall: float
    cpu: float
    largest_mb: float  # the largest single process's peak
    tree_mb: float  # the whole tree's peak, sampled
    verdicts: str
    stopped: bool


def run(case: Case, timeout_s: float, limit_s: float) -> Result:
    with SourceServer() as server, tempfile.TemporaryDirectory() as tmp:
        urls = case.serve(server)
        doc = Path(tmp) / "doc.md"
        doc.write_text("".join(f"{CLAIM} [in the survey]({u}).\n\n" for u in urls))
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable, "-m", "citecheck", "check", str(doc), "--judge", "none", "--no-progress",
            "--allow-private-host", server.host, "--timeout", f"{timeout_s:g}",
            "--format", "json", "--output", str(report),
        ]  # fmt: skip
        err_file = Path(tmp) / "stderr"
        started = time.monotonic()
        with err_file.open("wb") as err:
            proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=err)
        peak, stopped, largest_kb, cpu = 0, False, 0, 0.0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                # The child's own peak and that of every process it waited for (its workers).
                largest_kb = usage.ru_maxrss
                cpu = usage.ru_utime + usage.ru_stime
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() - started > limit_s:
                stopped = True
                proc.kill()
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.02)
        wall = time.monotonic() - started
        verdicts = "—"
        if report.exists():
            claims = json.loads(report.read_text())["claims"]
            counts = Counter((c["verdict"], c.get("reason") or "") for c in claims)
            verdicts = "; ".join(f"{n} × {v} ({r[:70]})" for (v, r), n in counts.most_common())
        elif not stopped:
            verdicts = "no report: " + err_file.read_text("utf-8", "replace").strip()[-300:]
    return Result(wall, cpu, largest_kb / 1024, peak / MB, verdicts, stopped)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, "one 200 KB <br> page and two endless bodies, 2 s deadline")
    ap.add_argument("--only", nargs="+", help="run only these cases (by name)")
    ap.add_argument("--timeout", type=float, default=10.0, help="the per-source deadline (--timeout)")
    ap.add_argument("--limit", type=float, default=900.0, help="stop a run after this many seconds")
    args = ap.parse_args()
    timeout_s = 2.0 if args.quick else args.timeout
    which = os.environ.get("PYTHONPATH") or str(ROOT)
    print(f"citecheck from {which}; per-source deadline {timeout_s:g} s; {os.cpu_count()} CPUs")
    print(f"{'case':<14} {'wall':>8} {'CPU':>8} {'largest':>9} {'tree':>9}  verdicts")
    for case in cases(args.quick):
        if args.only and case.name not in args.only:
            continue
        r = run(case, timeout_s, args.limit)
        wall = f">{args.limit:g} s" if r.stopped else f"{r.wall:.1f} s"
        tree = f"{r.tree_mb:.0f} MB" if r.tree_mb else "—"
        print(
            f"{case.name:<14} {wall:>8} {r.cpu:>6.1f} s {r.largest_mb:>6.0f} MB {tree:>9}  {r.verdicts}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
