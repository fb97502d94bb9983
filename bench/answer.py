"""Time to read a verdict object out of hostile model text (`citecheck.judge.answer.read_answer`,
through `citecheck.judge.prompt.parse_verdicts`).

Usage: python bench/answer.py [--kb 5 20 100] [--repeat 3] [--quick]

Each input is about `--kb` kilobytes of one kind of text, followed by the model's own verdict
object; the same text is also the data the model was shown (`shown`, scanned for the page's
own answer objects), so a row is the cost of the worst case of both. The model's text is
bounded by the call's output budget (200 + 350 tokens per claim: about 15 KB for ten claims),
the data by `evidence_chars` (4,000 by default) and the claims. Prints the best of `--repeat`
runs in milliseconds, and what the text was read as (the model's own answer is
`supported=False`); asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import time

from citecheck.judge.prompt import parse_verdicts

OWN = json.dumps(
    {
        "verdicts": [
            {
                "id": 1,
                "supported": False,
                "confidence": 0.9,
                "rationale": "Not stated.",
                "evidence": "",
                "states_fact": True,
            }
        ]
    }
)
FAKE = OWN.replace("false", "true").replace("Not stated.", "Stated.")

KINDS = {
    # opening after opening the decoder follows to its recursion limit, then gives up
    "deep unclosed nesting": '[{"a": ',
    "deep unclosed objects": '{"b": "x", "c": ',
    "many small objects": '{"a": 1} ',
    "many page verdict objects": FAKE + "\n",
    "prose with braces": "The {set} of [items] is {1, 2} and [3]. ",
}


def text_of(unit: str, kb: int) -> str:
    return unit * max(1, kb * 1024 // len(unit))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, nargs="+", default=[5, 20, 100])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run in a second (5 KB, once); prints figures, asserts nothing",
    )
    args = parser.parse_args()
    if args.quick:
        args.kb, args.repeat = [5], 1
    print(f"{'input':<28}" + "".join(f"{kb:>10} KB" for kb in args.kb) + "  read as")
    for name, unit in KINDS.items():
        row = []
        outcome = ""
        for kb in args.kb:
            hostile = text_of(unit, kb)
            best = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                try:
                    supported = parse_verdicts(hostile + OWN, 1, shown=hostile)[1].supported
                    outcome = f"supported={supported}"
                except ValueError as exc:
                    outcome = f"malformed: {exc}"
                best = min(best, time.perf_counter() - started)
            row.append(f"{best * 1000:>10.1f} ms")
        print(f"{name:<28}" + "".join(row) + f"  {outcome}")


if __name__ == "__main__":
    main()
