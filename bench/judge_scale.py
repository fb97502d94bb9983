"""The judge at audit scale: pipelined, paced to the account's rate limit, half price in batch mode.

A generated audit — one Markdown file of 420 claims citing 110 pages (100 pages cited by 3
claims each, 10 by 12, whose claims take two calls each and share one cached excerpt) — is
checked end to end
(`citecheck.pipeline.check`, as `citecheck check` runs it) through the real Anthropic SDK
against the Anthropic stand-in (tests/servers/llm_server.py), which answers each call after
1.5 s, a real model's order of latency; the pages come from the source stand-in, 0.1 s each.

(a) an unlimited account (the rate-limit headers state limits a run never reaches);
(b) an account limited to 60 requests a minute (a token bucket of 60, refilled at one a
    second, as Anthropic's): the share of the allowed requests the run used — accepted calls
    over the bucket's 60 plus one a second from the run's first call to its last — with no
    claim left unverified;
(c) batch mode (`judge-mode: batch`, the Message Batches API): the same verdicts as (a) and
    the cost at the batch price (the run's tokens priced at the list price, halved);
then (a) again on a warm cache: no call, no download.

Printed per run: wall time, time to first verdict (the first judge answer, from the run's
start) and to its first call, time to the last download, calls, 429s, tokens (input, of which
cache reads and writes, output) and cost. The first run pays for importing the Anthropic SDK
(seconds), in a thread while the pages download; the others find it imported. `--quick` (a
few seconds, for CI): 96 claims over 20 pages, 0.2 s latency, (b) at 20 requests per 5 s.

Run from the repository root: `python bench/judge_scale.py [--quick]`. Figures taken while
other processes share the CPU are noisy.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._data import add_quick

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.config import Settings
from citecheck.judge.pricing import PRICES, cost_usd
from citecheck.judge.providers import run_redactor
from citecheck.models import Cause, Report, Verdict
from citecheck.pipeline import check
from citecheck.progress import EventKind, ProgressEvent
from citecheck.select import select_local
from tests.servers.llm_server import Account, LLMServer
from tests.servers.source_server import SourceServer, respond

MODEL = "claude-sonnet-4-6"
ENV = {"ANTHROPIC_API_KEY": "local-bench-key"}
WORDS = [
    "amber", "basalt", "cedar", "delta", "ember", "fjord", "glacier", "harbor", "island", "juniper",
    "kelp", "lagoon", "meadow", "nectar", "orchard", "prairie", "quarry", "reef", "savanna", "tundra",
    "upland", "valley", "willow", "yarrow", "zephyr", "alder", "birch", "cobalt", "dune", "estuary",
    "fern", "grove", "heath", "inlet", "jasper", "knoll", "larch", "marsh",
]  # fmt: skip


@dataclass(frozen=True)
class Shape:
    pages: int  # cited by 3 claims each
    big_pages: int  # cited by 12 claims each: two calls, one cached excerpt
    latency_s: float
    page_delay_s: float
    limited: Account  # scenario (b)


FULL = Shape(
    pages=100, big_pages=10, latency_s=1.5, page_delay_s=0.1, limited=Account(requests_limit=60, window_s=60)
)
QUICK = Shape(
    pages=16, big_pages=4, latency_s=0.2, page_delay_s=0.02, limited=Account(requests_limit=20, window_s=5)
)


def sentence(page: int, k: int) -> str:
    w = [WORDS[(page * 7 + k * 3 + j) % len(WORDS)] for j in range(6)]
    return (
        f"The {w[0]} survey of site P{page}Q{k} found that the {w[1]} {w[2]} near the {w[3]} "
        f"shelters a colony of {w[4]} herons beside the {w[5]} ridge."
    )


def page_html(page: int, n: int) -> str:
    paras = "".join(f"<p>{sentence(page, k)} It was recorded by the P{page}Q{k} team.</p>" for k in range(n))
    return (
        f"<html><head><title>Field notes {page}</title></head><body><article>{paras}</article></body></html>"
    )


def claim_text(page: int, k: int) -> str:
    s = sentence(page, k)
    # Every fourth claim says what its page does not: the stand-in judges it unsupported.
    return s.replace("herons", "otters") if k % 4 == 3 else s


def build(server: SourceServer, folder: Path, shape: Shape, served: list[float]) -> tuple[Path, int]:
    """The audit's Markdown; each page served after `page_delay_s`, its time put in `served`."""
    lines = ["# Field audit", ""]
    claims = 0
    for page in range(shape.pages + shape.big_pages):
        big = page >= shape.pages
        n_sentences = 40 if big else 12
        n_claims = 12 if big else 3
        html = page_html(page, n_sentences).encode("utf-8")

        def handler(h: BaseHTTPRequestHandler, html: bytes = html) -> None:
            time.sleep(shape.page_delay_s)
            respond(h, html, "text/html; charset=utf-8")
            served.append(time.monotonic())

        url = server.add_handler(f"/notes/{page}.html", handler)
        for k in range(n_claims):
            lines += [f"{claim_text(page, k * 3 % n_sentences)} [notes {page}]({url})", ""]
            claims += 1
    doc = folder / "audit.md"
    doc.write_text("\n".join(lines), encoding="utf-8")
    return doc, claims


@dataclass
class Figures:
    wall_s: float
    first_call_s: float | None
    first_verdict_s: float | None
    last_download_s: float | None
    calls: int
    throttled: int
    tokens_in: int
    cache_read: int
    cache_write: int
    tokens_out: int
    cost: float
    report: Report


def _batch_polls(event: ProgressEvent) -> None:
    if event.kind == EventKind.message:  # batch mode's polls: the batch is alive
        print("   ", event.message)


def run(
    doc: Path,
    server: LLMServer,
    served: list[float],
    *,
    cache_dir: Path | None = None,
    mode: str = "interactive",
) -> Figures:
    settings = Settings(
        judge="anthropic",
        model=MODEL,
        base_url=server.base_url,
        allow_private_hosts=["127.0.0.1"],
        max_cost_usd=100.0,
        max_claims=10_000,
        cache_dir=cache_dir,
        judge_mode=mode,
    )
    files, _ = select_local([str(doc)], settings)
    before_calls, before_batch = len(server.calls), len(server.batch_requests)
    before_served = len(served)
    before_read, before_write = server.cache_read_tokens, server.cache_write_tokens
    started = time.monotonic()
    report = check(settings, files, environ=ENV, redact=run_redactor(ENV), progress=_batch_polls)
    wall = time.monotonic() - started
    calls = server.calls[before_calls:]
    answers = [r.answered_at for r in calls if r.status == 200 and r.answered_at] + [
        r.answered_at for r in server.batch_requests[before_batch:] if r.answered_at
    ]
    downloads = served[before_served:]
    judged = [c.judge for c in report.claims if c.judge is not None and not c.judge.cached]
    sent = [r.received_at for r in calls] + [r.received_at for r in server.batch_requests[before_batch:]]
    return Figures(
        wall_s=wall,
        first_call_s=min(sent) - started if sent else None,
        first_verdict_s=min(answers) - started if answers else None,
        last_download_s=max(downloads) - started if downloads else None,
        calls=len(calls) + len(server.batch_requests) - before_batch,
        throttled=sum(1 for r in calls if r.status == 429),
        tokens_in=sum(j.input_tokens for j in judged),
        cache_read=server.cache_read_tokens - before_read,
        cache_write=server.cache_write_tokens - before_write,
        tokens_out=sum(j.output_tokens for j in judged),
        cost=report.total_cost_usd,
        report=report,
    )


def show(name: str, f: Figures) -> None:
    failed = sum(
        1
        for c in f.report.claims
        if c.verdict == Verdict.not_verified and c.cause in (Cause.judge_error, Cause.limit)
    )
    first = f"{f.first_verdict_s:.2f} s" if f.first_verdict_s is not None else "-"
    if f.first_call_s is not None:
        first += f" (first call {f.first_call_s:.2f} s)"
    last = f"{f.last_download_s:.2f} s" if f.last_download_s is not None else "-"
    print(
        f"{name}: {f.report.total_claims} claims in {f.wall_s:.1f} s; first verdict {first}, "
        f"last download {last}; "
        f"{f.calls} calls ({f.throttled} answered 429); tokens in {f.tokens_in:,} (cache reads "
        f"{f.cache_read:,}, writes {f.cache_write:,}) out {f.tokens_out:,}; "
        f"cost ${f.cost:.4f}; judged {f.report.total_judged}, not verified by error or limit: {failed}"
    )


def verdicts(report: Report) -> list[tuple[str, str, str | None]]:
    return [(c.text, c.verdict.value, c.evidence) for c in report.claims]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, "96 claims over 20 pages, 0.2 s a call")
    args = ap.parse_args(argv)
    shape = QUICK if args.quick else FULL
    served: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, SourceServer() as source:
        doc, n = build(source, Path(tmp), shape, served)
        print(
            f"{n} claims over {shape.pages + shape.big_pages} pages; "
            f"the stand-in answers after {shape.latency_s} s"
        )

        with LLMServer("anthropic", latency_s=shape.latency_s) as server:
            a = run(doc, server, served, cache_dir=Path(tmp) / "cache")
            show("(a) unlimited account", a)
            warm = run(doc, server, served, cache_dir=Path(tmp) / "cache")
            show("    again, warm cache", warm)

        limited = shape.limited
        with LLMServer("anthropic", latency_s=shape.latency_s, account=limited) as server:
            b = run(doc, server, served)
            show(f"(b) {limited.requests_limit:g} requests per {limited.window_s:g} s", b)
            accepted = [r.received_at for r in server.calls if r.status == 200]
            span = max(accepted) - min(accepted)
            assert limited.requests_limit is not None
            allowed = limited.requests_limit + limited.requests_limit / limited.window_s * span
            print(
                f"    used {len(accepted)} of the {allowed:.0f} requests the account allowed from the first "
                f"call to the last ({span:.1f} s): {len(accepted) / allowed:.0%}"
            )

        with LLMServer("anthropic", latency_s=shape.latency_s) as server:
            c = run(doc, server, served, mode="batch")
            show("(c) batch mode", c)
        same = verdicts(a.report) == verdicts(c.report)
        price = PRICES[MODEL]
        listed = cost_usd(price, c.tokens_in, c.tokens_out)
        print(
            f"    same verdicts as (a): {same}; cost ${c.cost:.4f} = {c.cost / listed:.0%} of the same "
            f"tokens at the list price (${listed:.4f}); (a) cost ${a.cost:.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
