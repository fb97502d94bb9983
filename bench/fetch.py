"""Fetch benchmark (issue 3, point 10): citecheck against the npm link checkers, same run.

Serves N pages (default 1,000) from 20 loopback hosts 127.0.0.1–127.0.0.20, each response
delayed by 100 ms, writes one Markdown document citing every page with a checkable
statistic, then times on that document, each in its own child process:

- `citecheck check DOC --judge none --allow-private-host 127.0.0.X …` at its defaults
  (fetches, extracts the text and runs the number checks, writes the JSON report);
- citecheck's fetch stage alone (`fetch_all`), to separate it from start-up and the rest;
- `linkinator DOC --markdown` and `markdown-link-check DOC` (status checks only, no text);
- the ideal: N × latency / effective concurrency (min(concurrency, hosts × per-host)).

Peak memory is the child's own maximum resident set (`os.wait4`). The npm tools are
installed into bench/node_modules on first use (`npm install --prefix bench`).

    python bench/fetch.py [--pages 1000] [--latency 0.1] [--skip-mlc]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from citecheck.config import Settings  # noqa: E402
from tests.servers.source_server import SourceServer  # noqa: E402

BENCH = ROOT / "bench"
NPM_TOOLS = {"linkinator": "linkinator", "markdown-link-check": "markdown-link-check"}
HOSTS = [f"127.0.0.{i}" for i in range(1, 21)]

FETCH_ONLY = """
import sys, time
from citecheck.config import Settings
from citecheck.fetch import fetch_all_sync
urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
hosts = sys.argv[2].split(",")
res = fetch_all_sync(urls, Settings(allow_private_hosts=hosts))
bad = [u for u, s in res.items() if s.outcome.value != "ok"]
print(f"{len(res) - len(bad)} ok, {len(bad)} not ok", bad[:3])
"""


def page(i: int) -> str:
    residents = 10_000 + 37 * i
    paras = "".join(
        f"<p>Section {j}: the bureau's survey of district {i} also covered housing, transport and "
        f"employment, with tables for each of the years since 2010.</p>"
        for j in range(4)
    )
    return (
        f"<!doctype html><html><head><title>District {i} census</title>"
        f'<meta property="article:published_time" content="2021-03-{1 + i % 28:02d}"></head>'
        f"<body><nav>Home | Districts | About</nav><article><h1>District {i} census</h1>"
        f"<p>The 2020 census counted {residents:,} residents in district {i}, according to the "
        f"statistics bureau.</p>{paras}</article><footer>Statistics bureau</footer></body></html>"
    )


@dataclass
class Run:
    name: str
    what: str
    seconds: float
    max_rss_mb: float
    requests: int
    exit_code: int
    note: str = ""


def timed(cmd: list[str], servers: list[SourceServer], cwd: Path) -> tuple[float, float, int, int, str]:
    before = sum(s.hits() for s in servers)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    tail = out.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return seconds, usage.ru_maxrss / 1024, sum(s.hits() for s in servers) - before, proc.returncode, tail[0]


def ensure_npm_tools() -> dict[str, Path]:
    bins = {name: BENCH / "node_modules" / ".bin" / exe for name, exe in NPM_TOOLS.items()}
    if not all(b.exists() for b in bins.values()) and shutil.which("npm"):
        subprocess.run(
            ["npm", "install", "--prefix", str(BENCH), "--no-save", "--no-audit", "--no-fund", *NPM_TOOLS],
            check=False,
            stdout=subprocess.DEVNULL,
        )
    return {name: b for name, b in bins.items() if b.exists()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.1, help="seconds added to every response")
    ap.add_argument("--skip-mlc", action="store_true", help="skip markdown-link-check (slow)")
    args = ap.parse_args(argv)

    defaults = Settings()
    tools = ensure_npm_tools()
    servers = [SourceServer(h, latency_s=args.latency).start() for h in HOSTS]
    try:
        with tempfile.TemporaryDirectory(prefix="citecheck-bench-") as tmp_s:
            tmp = Path(tmp_s)
            urls = []
            lines = ["# District census figures", ""]
            for i in range(args.pages):
                server = servers[i % len(servers)]
                url = server.add(f"/district-{i}.html", page(i))
                urls.append(url)
                lines += [f"District {i} had {10_000 + 37 * i:,} residents in 2020 ([census]({url})).", ""]
            doc = tmp / "districts.md"
            doc.write_text("\n".join(lines), encoding="utf-8")
            (tmp / "urls.txt").write_text("\n".join(urls), encoding="utf-8")

            private = [a for h in HOSTS for a in ("--allow-private-host", h)]
            runs: list[Run] = []
            # --max-claims: the default (200) would leave most of the document unchecked.
            cmd = [sys.executable, "-m", "citecheck", "check", str(doc), "--judge", "none", *private]
            cmd += ["--max-claims", str(args.pages)]
            cmd += ["--format", "json", "--output", str(tmp / "report.json")]
            runs.append(
                Run("citecheck check --judge none", "fetch + extract text + number checks + report",
                    *timed(cmd, servers, ROOT))
            )  # fmt: skip
            fetch_cmd = [sys.executable, "-c", FETCH_ONLY, str(tmp / "urls.txt"), ",".join(HOSTS)]
            runs.append(
                Run(
                    "citecheck fetch stage (fetch_all)",
                    "fetch + extract text",
                    *timed(fetch_cmd, servers, ROOT),
                )
            )
            if "linkinator" in tools:
                cmd = [str(tools["linkinator"]), str(doc), "--markdown"]
                runs.append(Run("linkinator", "HTTP status only", *timed(cmd, servers, tmp)))
            if "markdown-link-check" in tools and not args.skip_mlc:
                cmd = [str(tools["markdown-link-check"]), str(doc)]
                runs.append(Run("markdown-link-check", "HTTP status only", *timed(cmd, servers, tmp)))
    finally:
        for s in servers:
            s.stop()

    effective = min(defaults.concurrency, len(HOSTS) * defaults.per_host_concurrency)
    ideal = args.pages * args.latency / effective
    link = next((r.seconds for r in runs if r.name == "linkinator"), None)
    print(
        f"\n{args.pages} pages on {len(HOSTS)} loopback hosts, {args.latency * 1000:.0f} ms added latency; "
        f"{os.cpu_count()} CPUs; citecheck defaults: concurrency {defaults.concurrency}, "
        f"per host {defaults.per_host_concurrency}\n"
    )
    print("| tool | does | wall time (s) | × ideal | × linkinator | peak RSS (MB) | requests | exit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print(f"| ideal (N × latency / {effective}) | — | {ideal:.2f} | 1.00 | "
          f"{ideal / link if link else float('nan'):.2f} | — | {args.pages} | — |")  # fmt: skip
    for r in runs:
        vs_link = f"{r.seconds / link:.2f}" if link else "—"
        print(
            f"| {r.name} | {r.what} | {r.seconds:.2f} | {r.seconds / ideal:.2f} | {vs_link} | "
            f"{r.max_rss_mb:.0f} | {r.requests} | {r.exit_code} |"
        )
    for r in runs:
        if r.note:
            print(f"\n{r.name}: {r.note}")
    if link:
        ours = runs[0].seconds / link
        verdict = "met" if ours <= 1.5 else "NOT met"
        print(f"\ncitecheck check / linkinator = {ours:.2f} (target ≤ 1.5): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
