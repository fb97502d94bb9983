"""The screen (`citecheck.screen`) against hand labels: which extracted claims a real model sets
aside, and whether it sets aside real ones.

Usage: python bench/screen.py [SET_DIR ...] [--judge anthropic|openai|openai-compatible]
                              [--model M] [--base-url URL] [--max-cost-usd 2] [--json OUT]
                              [--price-in P --price-out P] [--deadline-minutes M]
       python bench/screen.py --quick   (CI's smoke run: the tests' stand-in model, see below)

It needs a real key (ANTHROPIC_API_KEY or OPENAI_API_KEY; an OpenAI-compatible server with
--base-url) and costs a few cents: the screen reads text only, about 40 sentences a call, and
here only the labelled claims are sent (the figures cover those alone). The labelled sets are
those of bench/realdocs.py (the development set in ../shared/eval and the held-out sets
tests/data/realdocs-heldout*); their labels say whether each extracted claim is a claim a docs
reviewer wants checked (`real`), which is what the screen is asked.

Figures, per set and over all, on the labelled claims still extracted:
- precision before / after: the share of real claims among the claims that go on to be
  checked, without and with the screen;
- real claims set aside: the screen's cost in trust (each one is a claim nobody checks);
- non-claims set aside: of the labelled non-claims the screen could see (link-only or
  unsourced), the share it set aside;
- unsourced precision before / after (as bench/realdocs.py counts it);
- the screen's calls and cost.

`--quick` runs the whole harness on a few sets against the stand-in model of the tests
(tests/servers/llm_server.py: it sets aside sentences opening with "see", "read", "thanks" …),
so that the harness cannot rot; its figures say nothing about a real model.

`--oracle` runs it against a stand-in that answers with the labels themselves (a sentence
labelled real is a fact): the ceiling any model could reach through the screen, since the
screen never sees a cited figure, date, quote or comparison, whatever its label.
"""

from __future__ import annotations

import sys
from pathlib import Path

# As in bench/realdocs.py: this folder off sys.path (bench/numbers.py would shadow `numbers`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
_ROOT = Path(__file__).resolve().parent.parent
if not __import__("os").environ.get("PYTHONPATH"):
    sys.path.insert(0, str(_ROOT))
sys.path.insert(0, str(_ROOT / "bench"))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
from collections.abc import Callable  # noqa: E402
from contextlib import ExitStack  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from typing import Any  # noqa: E402

import realdocs  # noqa: E402

from citecheck.config import Settings  # noqa: E402
from citecheck.errors import CitecheckError  # noqa: E402
from citecheck.judge.core import Judge  # noqa: E402
from citecheck.judge.resolve import resolve_judge  # noqa: E402
from citecheck.models import Claim  # noqa: E402
from citecheck.screen import screen, screenable  # noqa: E402


@dataclass
class Figures:
    name: str
    labelled: int = 0  # labelled claims still extracted
    real: int = 0
    kept: int = 0  # after the screen
    kept_real: int = 0
    screenable_not_real: int = 0
    dismissed_not_real: int = 0
    unsourced: int = 0
    unsourced_right: int = 0
    unsourced_kept: int = 0
    unsourced_kept_right: int = 0
    cost_usd: float = 0.0

    def add(self, other: Figures) -> None:
        for key, value in asdict(other).items():
            if key != "name":
                setattr(self, key, getattr(self, key) + value)


def _share(n: int, d: int) -> str:
    return f"{n}/{d} = {n / d:.2f}" if d else "n/a"


def labelled_claims(set_dir: Path) -> list[tuple[dict, Claim]]:
    """(label, extracted claim) for each judged claim still extracted, one claim once."""
    claims = realdocs.extract_set(set_dir / "corpus")
    out: list[tuple[dict, Claim]] = []
    seen: set[int] = set()
    for row in realdocs._jsonl(set_dir / "judgments.jsonl"):
        claim = realdocs.match(claims, row)
        if claim is not None and id(claim) not in seen:
            seen.add(id(claim))
            out.append((row, claim))
    return out


async def score(set_dir: Path, judge: Judge) -> Figures:
    pairs = labelled_claims(set_dir)
    screened = await screen([c for _, c in pairs], judge)
    dismissed_keys = {(d.file, d.line, d.column, d.text) for d in screened.dismissed}
    fig = Figures(set_dir.name, cost_usd=screened.cost_usd)
    for row, claim in pairs:
        real = row["real"] == "Y"
        dropped = (claim.file, claim.line, claim.column, claim.text) in dismissed_keys
        fig.labelled += 1
        fig.real += real
        fig.kept += not dropped
        fig.kept_real += real and not dropped
        if screenable(claim) and not real:
            fig.screenable_not_real += 1
            fig.dismissed_not_real += dropped
        if not claim.citations:
            right = real and row["citations_ok"] == "-"
            fig.unsourced += 1
            fig.unsourced_right += right
            fig.unsourced_kept += not dropped
            fig.unsourced_kept_right += right and not dropped
    return fig


def _oracle(real: dict[str, bool]) -> Callable[[Any], Any]:
    """A stand-in model's responder answering each screened sentence with its label."""
    from tests.servers.llm_server import parse_screen_prompt, screen_answer, screen_reply

    def respond(request: Any) -> Any:
        sentences = parse_screen_prompt(request.user_text)
        answers = [
            screen_answer(i, real.get(text, True), "the label") for i, text in sorted(sentences.items())
        ]
        return screen_reply("anthropic", answers, input_tokens=len(request.prompt) // 4, output_tokens=0)

    return respond


def print_table(figures: list[Figures], model: str) -> None:
    print(f"\nThe screen on labelled real documentation (model: {model})\n")
    print(
        "| set | precision before | after | real claims set aside | non-claims set aside "
        "| unsourced precision before | after | cost |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in figures:
        print(
            f"| {f.name} | {_share(f.real, f.labelled)} | {_share(f.kept_real, f.kept)} "
            f"| {f.real - f.kept_real} of {f.real} | {_share(f.dismissed_not_real, f.screenable_not_real)} "
            f"| {_share(f.unsourced_right, f.unsourced)} "
            f"| {_share(f.unsourced_kept_right, f.unsourced_kept)} "
            f"| ${f.cost_usd:.4f} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", type=Path, help="labelled set folders (default: dev and held-out)")
    parser.add_argument("--judge", default="auto")
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--max-cost-usd", type=float, default=2.0)
    parser.add_argument(
        "--price-in", type=float, help="USD per million input tokens, for a model outside the price table"
    )
    parser.add_argument("--price-out", type=float, help="USD per million output tokens (with --price-in)")
    parser.add_argument(
        "--deadline-minutes", type=float, help="the judge's time budget (a slow local server needs more)"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--quick", action="store_true", help="smoke run against the tests' stand-in model")
    parser.add_argument(
        "--oracle", action="store_true", help="a stand-in answering with the labels: the ceiling"
    )
    args = parser.parse_args()

    with ExitStack() as stack:
        environ = dict(os.environ)
        judge_name, base_url, model = args.judge, args.base_url, args.model
        sets = args.sets
        if args.quick:
            sets = sets or realdocs.HELD_OUT[:2]
        sets = sets or [realdocs._eval_dir() / "realdocs-dev", *realdocs.HELD_OUT]
        sets = [s for s in sets if (s / "judgments.jsonl").exists()]
        if args.quick or args.oracle:
            from tests.servers.llm_server import LLMServer

            server = stack.enter_context(LLMServer("anthropic"))
            environ["ANTHROPIC_API_KEY"] = "sk-ant-stand-in"
            judge_name, base_url, model = "anthropic", server.base_url, "claude-sonnet-4-6"
            if args.oracle:
                server.responder = _oracle(
                    {c.text: row["real"] == "Y" for s in sets for row, c in labelled_claims(s)}
                )
                print(
                    "--oracle: a stand-in answering with the labels; the ceiling of the screen, not a model"
                )
            else:
                print("--quick: the tests' stand-in model; these figures say nothing about a real model")
        settings = Settings(
            judge=judge_name,
            model=model,
            base_url=base_url,
            max_cost_usd=args.max_cost_usd,
            price_in_per_mtok=args.price_in,
            price_out_per_mtok=args.price_out,
            judge_deadline_minutes=args.deadline_minutes,
        )
        try:
            config = resolve_judge(settings, environ)
        except CitecheckError as exc:
            print(f"bench/screen.py needs a judge: {exc}. Nothing was measured.")
            return 0

        async def run() -> list[Figures]:
            judge = Judge(config, settings)
            try:
                return [await score(s, judge) for s in sets]
            finally:
                await judge.aclose()

        figures = asyncio.run(run())
    total = Figures("all")
    for f in figures:
        total.add(f)
    print_table([*figures, total], config.model)
    if args.json:
        args.json.write_text(json.dumps([asdict(f) for f in [*figures, total]], indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
