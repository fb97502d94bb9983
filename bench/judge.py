"""What a judge call costs, and what `citecheck eval` reports for simple baselines, on WiCE dev.

1. Cost per claim. For every WiCE dev claim the real prompt is built (evidence chosen by
   `select_evidence` within the default 4,000-character budget, fenced by `build_prompt`).
   For each model of the price table it prints the mean worst case the cost cap reserves
   before a call (one token per byte, plus `max_tokens` of output), an estimate of the
   billed cost (4 characters a token in, 120 tokens out: an assumption, not a bill), and
   about how many one-claim calls the default $1.00 cap then covers (reservations are
   settled on the billed usage after each call, so the worst case only matters for the last
   few calls in flight). Batching several claims of one source in a call divides the fixed part
   (instructions, schema, source excerpt) between them.
2. `citecheck eval --judge-only` end to end on WiCE dev, through the real SDK against a local
   OpenAI-protocol server that answers with a deterministic word-overlap judge (supported when
   every word of four letters or more and every number of the claim occurs in the excerpt),
   beside the peer "always supported". These are floors for a real model's figures, not a
   model's figures.
3. `citecheck eval --bundled` (the set shipped with citecheck, decided as `check` decides)
   through the same word-overlap judge: the smoke figures docs/benchmarks.md quotes. A real model's
   figures must be measured with a real key.

Run from the repository root: `python bench/judge.py [--quick]` (data: `../shared/eval/wice/
claims_dev.jsonl`, or the path in CITECHECK_WICE_DEV; `--quick`: its first 20 claims, else the 14
of tests/data/eval_sample, and the bundled set's first 20 rows, a few seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._data import add_quick, eval_file

# citecheck's own modules, all here: their paths may move in a restructure
from citecheck.checks.passages import select_evidence
from citecheck.config import Settings
from citecheck.evaluate import load_file, render_markdown, run_eval
from citecheck.judge.ledger import input_upper_bound
from citecheck.judge.pricing import PRICES, cost_usd
from citecheck.judge.prompt import PROMPT_JSON_NOTE, VERDICT_SCHEMA, build_excerpt, build_prompt
from citecheck.models import FetchedSource, FetchOutcome, SourceInfo
from tests.servers.llm_server import LLMServer, RecordedRequest, Reply, parse_prompt, verdict, verdicts_reply

QUICK_CLAIMS = 20
MODELS = ("claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-7", "gpt-4o-mini", "gpt-4o")
BUDGET = 4000
MAX_TOKENS_ONE_CLAIM = 200 + 350  # what the judge asks for a one-claim call
TYPICAL_OUT = 120


def cost_table(data: Path, limit: int | None) -> None:
    items, _ = load_file(data, limit)
    worst_in, typical_in = [], []
    for item in items:
        text = item.text or ""
        passages = select_evidence(item.claim, text, budget_chars=BUDGET)
        excerpt = build_excerpt(text, [passages], BUDGET)
        src = FetchedSource(
            info=SourceInfo(url="https://example.org"), outcome=FetchOutcome.ok, text=item.text or ""
        )
        system, user = build_prompt(src, excerpt, [item.claim])
        text = system + user + PROMPT_JSON_NOTE + json.dumps(VERDICT_SCHEMA)
        worst_in.append(input_upper_bound(system, user))
        typical_in.append(len(text) / 4)
    n = len(items)
    mean_worst = sum(worst_in) / n
    mean_typical = sum(typical_in) / n
    print(f"WiCE dev: {n} claims, evidence budget {BUDGET} chars")
    print(f"mean input per one-claim call: worst case {mean_worst:,.0f} tokens, typical ~{mean_typical:,.0f}")
    print()
    # The cap refuses a call once spent + in-flight reservations + its worst case would pass
    # it; with at most 4 calls in flight that leaves about (cap - 4 x worst) / billed claims.
    print(f"{'model':<20} {'reserved/call':>14} {'est. billed/claim':>18} {'claims per $1 (est.)':>21}")
    for model in MODELS:
        price = PRICES[model]
        worst = cost_usd(price, round(mean_worst), MAX_TOKENS_ONE_CLAIM)
        typical = cost_usd(price, round(mean_typical), TYPICAL_OUT)
        covered = int((1.0 - 4 * worst) / typical)
        print(f"{model:<20} {f'${worst:.5f}':>14} {f'${typical:.5f}':>18} {covered:>21,}")
    print()


def always_supported(req: RecordedRequest) -> Reply:
    source, claims = parse_prompt(req.user_text)
    quote = source.strip().splitlines()[0]
    return verdicts_reply(
        req.protocol, [verdict(i, True, quote) for i in claims], input_tokens=1, output_tokens=1
    )


def eval_runs(data: Path, limit: int | None) -> None:
    for name, responder in (("word-overlap judge", None), ("always supported (peer)", always_supported)):
        with LLMServer("openai", responder) as server:
            settings = Settings(judge="openai", base_url=server.base_url, max_cost_usd=100)
            started = time.perf_counter()
            result = run_eval(
                settings, {"OPENAI_API_KEY": "local"}, data=[data], judge_only=True, limit=limit
            )
            seconds = time.perf_counter() - started
        n = len(result.rows)
        print(f"== {name}: {n} claims in {seconds:.1f} s ({n / seconds:.1f} claims/s)")
        print(render_markdown(result))


def bundled_run(limit: int | None) -> None:
    """The smoke example of docs/benchmarks.md: two Anthropic model names, one deterministic stand-in."""
    with LLMServer("anthropic") as server:
        settings = Settings(judge="anthropic", base_url=server.base_url, max_cost_usd=100)
        result = run_eval(
            settings,
            {"ANTHROPIC_API_KEY": "local"},
            bundled=True,
            models=["claude-haiku-4-5", "claude-sonnet-4-6"],
            limit=limit,
        )
    print("== the bundled set, decided as `check` decides, word-overlap stand-in for both models")
    print(render_markdown(result))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_quick(ap, f"the first {QUICK_CLAIMS} claims")
    args = ap.parse_args(argv)
    data = eval_file("wice/claims_dev.jsonl", args.quick, env="CITECHECK_WICE_DEV")
    if not data.exists():
        print(f"{data}: not found (set CITECHECK_WICE_DEV or CITECHECK_EVAL_DIR)", file=sys.stderr)
        return 2
    limit = QUICK_CLAIMS if args.quick else None
    cost_table(data, limit)
    eval_runs(data, limit)
    bundled_run(limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
