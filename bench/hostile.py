"""Extraction time and peak memory on hostile Markdown: the inputs of issue 14 and generated ones.

Usage: python bench/hostile.py [--quick] [--kb 100] [--timeout 120] [--mem-mb 4096]
                               [--only NAME ...] [--json OUT] [--before BEFORE.json]

Every input is about `--kb` kilobytes of one kind of hostile Markdown (one line or one
construct repeated; each carries a figure, so its blocks are read rather than skipped by the
parse gate). Each is extracted by `citecheck.extract.document.extract_text` in a fresh child
process, which reports the extraction's process (CPU) time, less skewed than wall time by other
jobs on a shared machine, and its peak resident memory (the whole process: interpreter,
imports and all; what it held before importing citecheck is printed last). A child that runs
past `--timeout` seconds is stopped and shown as `>N s`; one that runs out of the `--mem-mb`
address-space limit is shown as `>N MB`.

The bound (docs/ARCHITECTURE.md, hostile input is bounded): time linear in the input, so each
of issue 14's inputs at 100 KB extracts in about a second, and every input under 200 MB. The
costliest per byte are what markdown-it itself nests into: about 50 µs for each "[" a "]"
follows and 10 µs for each nested emphasis marker; `MAX_BLOCK_COST` in
citecheck.extract.parser refuses a block of more than 50,000 such "[" (the file is then an
error, at once). Compare times within one run, or with `--before`.

`--json OUT` writes the figures; `--before BEFORE.json` prints them beside this run's (run the
old code for that: `PYTHONPATH=<checkout of the old code> python bench/hostile.py --json before.json`;
the child imports `citecheck` from PYTHONPATH when it is set). `--quick`: every input at 5 KB in
one child process, a smoke run of seconds; prints figures, asserts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/hostile.py`, this file's folder comes first on sys.path, where
# bench/numbers.py would shadow the standard library's `numbers` module (imported by `decimal`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

QUICK_KB = 5
CLAIM = "The survey found 42% of people agree"  # a figure, so the block is read


def _repeat(piece: str, n: int) -> str:
    return piece * max(1, n // len(piece))


def _numbered_list(n: int) -> str:
    return f"{CLAIM} [" + ",".join(["1"] * (n // 2)) + "]\n"


def _table(n: int) -> str:
    rows = _repeat("| 42% of people | agree [1] | https://example.com/a |\n", n)
    return "| a | b | c |\n|---|---|---|\n" + rows


def _wide_table(n: int) -> str:
    k = max(1, n // 10)
    return "|" + " a |" * k + "\n|" + "---|" * k + "\n|" + " 42% x |" * k + "\n"


def _nested_list(n: int) -> str:
    lines, i = [], 0
    while sum(map(len, lines)) < n:
        lines.append("  " * (i % 400) + f"- {CLAIM} [{i % 50}]\n")
        i += 1
    return "".join(lines)


def _footnotes(n: int) -> str:
    k = max(1, n // 60)
    body = "".join(f"{CLAIM}[^{i}]. " for i in range(k))
    defs = "".join(f"[^{i}]: https://example.com/{i}\n" for i in range(k))
    return body + "\n\n" + defs


def _reference_definitions(n: int) -> str:
    k = max(1, n // 60)
    defs = "".join(f"[r{i}]: https://example.com/{i}\n" for i in range(k))
    return defs + "\n" + "".join(f"{CLAIM} [x][r{i}]. " for i in range(min(k, 200))) + "\n"


def _reference_list(n: int) -> str:
    k = max(1, n // 60)
    text = "".join(f"{CLAIM} [{i}]. " for i in range(1, k + 1))
    refs = "".join(f"{i}. Smith, J. ({2000 + i % 20}). https://example.com/{i}\n" for i in range(1, k + 1))
    return text + "\n\n## References\n\n" + refs


# name -> input of about n bytes
INPUTS: dict[str, Callable[[int], str]] = {
    # issue 14, as reported
    "narrative A-A-A-": lambda n: f"In (2020) {CLAIM} " + _repeat("A-", n),
    "narrative Smith, Smith,": lambda n: "(2020) " + _repeat("Smith, ", n),
    "open brackets [[[": lambda n: _repeat("[", n) + f" {CLAIM}.",
    "open paren + years": lambda n: "(" + _repeat("2000 ", n),
    "numbered list [1,1,1,…]": _numbered_list,
    # generated
    "nested brackets [[x]]": lambda n: f"{CLAIM} " + "[" * (n // 2) + "x" + "]" * (n // 2),
    "nested parens ((x))": lambda n: f"{CLAIM} " + "(" * (n // 2) + "2020" + ")" * (n // 2),
    "nested links [[a](u)](u)": lambda n: (
        f"{CLAIM} " + "[" * (n // 24) + "a" + "](https://e.com/)" * (n // 24)
    ),
    "emphasis *a _b": lambda n: f"{CLAIM} " + _repeat("*a _b ", n),
    "emphasis runs ***": lambda n: f"{CLAIM} " + _repeat("*", n // 2) + "a" + _repeat("*", n // 2),
    "nested emphasis *_*_x_*_*": lambda n: f"{CLAIM} " + "*_" * (n // 4) + "x" + "_*" * (n // 4),
    "dots .....": lambda n: f"{CLAIM}" + _repeat(".", n),
    "punctuation !?…": lambda n: f"{CLAIM}" + _repeat("!?…", n) + " x",
    "initials A. A. A.": lambda n: f"{CLAIM} " + _repeat("A. ", n),
    "tabbed stops A.\\tA.": lambda n: f"{CLAIM} " + _repeat("A.\t", n),
    "colons heading": lambda n: "# References" + _repeat(":", n) + "x\n\n" + CLAIM + ".\n",
    "quotes “““": lambda n: f"{CLAIM}, he said " + _repeat("“", n),
    "straight quotes": lambda n: f"{CLAIM}, he said " + _repeat('"a ', n),
    "undefined refs [a][": lambda n: f"{CLAIM} " + _repeat("[a][", n),
    "footnote refs [^[^": lambda n: f"{CLAIM} " + _repeat("[^", n),
    "html <a href=": lambda n: f"{CLAIM} " + _repeat("<a href=", n),
    "author-year list (A 2020;…)": lambda n: f"{CLAIM} (" + _repeat("Smith et al. 2020; ", n) + ")",
    "author-year names A, A,": lambda n: f"{CLAIM} (" + _repeat("Smith, ", n) + "2020)",
    "huge table": _table,
    "wide table": _wide_table,
    "nested lists": _nested_list,
    "nested blockquotes >>>": lambda n: _repeat(">", n) + f" {CLAIM}.\n",
    "nested list markers - - -": lambda n: _repeat("- ", n) + f"{CLAIM}.\n",
    "long word": lambda n: f"{CLAIM} " + _repeat("a", n) + ".",
    "long URL": lambda n: f"{CLAIM} https://example.com/" + _repeat("a(", n) + ".",
    "many links": lambda n: _repeat(f"[{CLAIM}](https://example.com/x). ", n),
    "many bare URLs": lambda n: f"{CLAIM} " + _repeat("https://e.com/a http://e.org/b ", n),
    "many footnotes": _footnotes,
    "many reference definitions": _reference_definitions,
    "reference list + [N]": _reference_list,
    "many sentences": lambda n: _repeat("Sales grew 42% in 2020 (Smith, 2021). ", n),
    "reference lines [N] …": lambda n: f"{CLAIM} [1].\n\n## References\n\n" + _repeat("[1] a\n", n),
    "URL ending )))))": lambda n: f"{CLAIM} https://example.com/" + _repeat(")", n),
    "link tail ((( )))": lambda n: (
        f"{CLAIM} [a]" + "(" * (n // 2) + ")" * (n // 2) + "\n\n[a]: https://example.com/\n"
    ),
    "footnote naming many URLs": lambda n: (
        f"{CLAIM}[^1].\n\n[^1]: " + "".join(f"https://e.com/{i} " for i in range(n // 18)) + "\n"
    ),
    "footnote of many URLs, cited often": lambda n: (
        _repeat(f"{CLAIM}[^1]. ", n // 2)
        + "\n\n[^1]: "
        + "".join(f"https://e.com/{i} " for i in range(n // 36))
        + "\n"
    ),
    # HTML blocks read as prose (citecheck.extract.htmlprose)
    "html block <p><a <a <a": lambda n: f"<p>{CLAIM} " + _repeat("<a ", n),
    "html block unclosed quotes": lambda n: f"<p>{CLAIM} " + _repeat('<a b="', n),
    "html block end tags </a</a": lambda n: f"<p>{CLAIM} " + _repeat("</a", n),
    "html block comments <!--": lambda n: f"<p>{CLAIM} " + _repeat("<!-", n),
    "html block unclosed <div><dd>": lambda n: f"<blockquote><dl><p>{CLAIM}" + _repeat("<div><dd>x", n // 2),
    "html block many paragraphs": lambda n: _repeat(f'<p>{CLAIM} <a href="https://e.com/">x</a></p>', n),
    "html block entities &#": lambda n: f"<p>{CLAIM} " + _repeat("&#8217;&amp", n),
    "pull quote, many attributions": lambda n: (
        '<div markdown="1">\n'
        + "".join(f"— [A](https://e.com/{i})\n<br>\n{CLAIM}.\n<br>\n" for i in range(n // 70))
        + "</div>\n"
    ),
}


def child(n: int, names: list[str]) -> None:
    """Extract each input and print its figures as a line of JSON (run in a fresh process)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from citecheck.extract.document import extract_text

    for name in names:
        text = INPUTS[name](n)
        start, cpu_start = time.perf_counter(), time.process_time()
        doc = extract_text(text, "hostile.md")
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = {
            "name": name,
            "bytes": len(text.encode("utf-8")),
            "seconds": seconds,
            "cpu_seconds": cpu,
            "peak_mb": peak / 1024,
            "import_mb": before / 1024,
            "claims": len(doc.claims),
            "citations": sum(len(c.citations) for c in doc.claims),
            "stopped": next((e.message for e in doc.errors if e.fatal), None),
        }
        print(json.dumps(out), flush=True)


def _limit_memory(mb: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mb * 1024 * 1024, mb * 1024 * 1024))

    return apply


def run_child(names: list[str], n: int, timeout: float, mem_mb: int) -> dict[str, dict]:
    """The figures of these inputs, extracted one after the other in one child process."""
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(n), *names],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_limit_memory(mem_mb),
        )
    except subprocess.TimeoutExpired:
        return {name: {"timeout": timeout} for name in names}
    results: dict[str, dict] = {}
    for line in proc.stdout.splitlines():
        r = json.loads(line)
        results[r.pop("name")] = r
    if proc.returncode != 0:
        if "MemoryError" in proc.stderr:
            failed: dict = {"memory_limit": mem_mb}
        else:
            failed = {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]}
        results.update({name: failed for name in names if name not in results})
    return results


def _seconds(r: dict | None) -> str:
    if r is None:
        return "-"
    if "timeout" in r:
        return f">{r['timeout']:.0f} s"
    if "memory_limit" in r:
        return "(out of memory)"
    if "error" in r:
        return "error"
    return f"{r.get('cpu_seconds', r['seconds']):.2f} s"


def _memory(r: dict | None) -> str:
    if r is None or "timeout" in r or "error" in r:
        return "-"
    if "memory_limit" in r:
        return f">{r['memory_limit']} MB"
    return f"{r['peak_mb']:.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run in seconds (every input at {QUICK_KB} KB); prints figures, asserts nothing",
    )
    ap.add_argument("--kb", type=float, default=100.0, help="size of each input in kilobytes")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before a child is stopped")
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space limit of a child")
    ap.add_argument("--only", nargs="*", help="run only these inputs (names as printed)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--before", help="figures of an earlier run (--json) to print beside these")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1:])
        return
    n = int((QUICK_KB if args.quick else args.kb) * 1000)
    names = args.only or list(INPUTS)
    before: dict[str, dict] = {}
    if args.before:
        with open(args.before, encoding="utf-8") as fh:
            before = json.load(fh)
    results: dict[str, dict] = {}
    source = os.environ.get("PYTHONPATH") or "this checkout"
    print(f"hostile Markdown, {n / 1000:g} KB per input, citecheck from {source}")
    head = f"{'input':36} {'claims':>7} {'time':>10} {'peak RSS':>9}"
    if before:
        head += f"   {'before: time':>14} {'peak RSS':>9}"
    print(head)
    # A full run extracts each input in a process of its own, so that its peak memory is its
    # own; a quick run, all of them in one (starting a process costs more than its extraction).
    batches = [names] if args.quick else [[name] for name in names]
    for batch in batches:
        got = run_child(batch, n, args.timeout, args.mem_mb)
        for name in batch:
            r = results[name] = got[name]
            claims = "stopped" if r.get("stopped") else str(r.get("claims", "-"))
            line = f"{name:36} {claims:>7} {_seconds(r):>10} {_memory(r):>9}"
            if before:
                b = before.get(name)
                line += f"   {_seconds(b):>14} {_memory(b):>9}"
            print(line, flush=True)
    if args.quick:
        print("(--quick: one process for every input, its peak RSS so far)")
    if any(r.get("stopped") for r in results.values()):
        print("(stopped: the file is an error, its block too costly to parse: see MAX_BLOCK_COST)")
    imports = [r["import_mb"] for r in results.values() if "import_mb" in r]
    if imports:
        print(f"(peak RSS: the whole child process; {min(imports):.0f} MB before it imports citecheck)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
