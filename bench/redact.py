"""What redaction costs: a report of 1,000 claims, and a page of 100 KB as the judge's prompt
redacts it (`citecheck.redact.Redactor`).

Usage: python bench/redact.py [--rounds 15] [--claims 1000] [--quick]

Rows, medians of `--rounds` runs, in milliseconds of CPU (process time: less skewed than wall
time by other jobs on a shared machine):
- `model`, no secret: the report with nothing to redact and no secret (what a run without a key
  pays: URLs only);
- `model`, two secrets: the same report, with a key and a token in the redactor (every run with
  a judge: the report is looked through, and returned as it is);
- `model`, one leak: one claim's rationale holds the key (the report is copied, redacted);
- `secrets`, page: 100 KB of English prose; with percent escapes (a page of URLs); in Chinese
  (fullwidth punctuation: the text is read character by character).

Compare with the old code: `PYTHONPATH=<checkout of the old code> python bench/redact.py`
(only the API both have is used). Prints figures, asserts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/redact.py`: the repository root on the path (for `tests`), this file's
# folder not (bench/numbers.py would shadow the standard library's `numbers`, which
# `statistics` imports). An old checkout on PYTHONPATH still comes first.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE.parent)]

import argparse  # noqa: E402

from bench._timing import median_cpu_ms  # noqa: E402
from citecheck.models import JudgeResult  # noqa: E402
from citecheck.redact import Redactor  # noqa: E402
from tests.unit.report_samples import judged, many_claims, report_of  # noqa: E402

KEY = "sk-ant-api03-" + "Zq8xW2vK9pL4mN7bR1tY6uH3jF5dS0aE" * 3
TOKEN = "ghs_9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT9uV8wX"
PROSE = "The survey collected 14,000 responses in 112 countries, the report says. "
ESCAPED = "See https://example.com/a%20b/c%2Fd?q=x%3Dy&page=2 for the figures. "
CHINESE = "该调查在112个国家收集了14,000份答复，报告称（见附录）。"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument(
        "--quick", action="store_true", help="smoke run in seconds (one round, 100 claims); asserts nothing"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.claims = 1, 100

    claims = many_claims(args.claims)
    for i, c in enumerate(claims):
        if i % 2:
            c.judge = judged(0.001)
    report = report_of(claims)
    leaky = report.model_copy(deep=True)
    leaky.claims[0].judge = JudgeResult(model="m", rationale=f"the key is {KEY}")
    none, run = Redactor(), Redactor([KEY, TOKEN])
    size = 100_000
    pages = {
        "English prose": PROSE * (size // len(PROSE)),
        "percent escapes": ESCAPED * (size // len(ESCAPED)),
        "Chinese": CHINESE * (size // len(CHINESE.encode())),
    }
    rows = [
        (f"model, {args.claims} claims, no secret", lambda: none.model(report)),
        (f"model, {args.claims} claims, two secrets", lambda: run.model(report)),
        (f"model, {args.claims} claims, one leak", lambda: run.model(leaky)),
        *(
            (f"secrets, 100 KB page: {name}", lambda page=page: run.secrets(page))
            for name, page in pages.items()
        ),
    ]
    assert run.model(report) is report and KEY not in run.model(leaky).model_dump_json()
    for name, fn in rows:
        print(f"{name:<44} {median_cpu_ms(fn, args.rounds):8.1f} ms")


if __name__ == "__main__":
    main()
