"""What a claim's fix costs (`citecheck.checks.fix`): placing the words a check found wrong in
the file's Markdown, for every claim a check contradicted.

Usage: python bench/fix.py [--quick] [--rounds 7] [--claims 500]

Rows, medians of `--rounds` runs, in milliseconds of CPU (process time) per claim:
- prose: one file of `--claims` paragraphs, each a contradicted figure in Markdown (emphasis, a
  link with a long target) and a few more sentences, as `with_suggestions` reads and places them;
- repetitive: one claim of 2,000 to 20,000 characters of `a b a b …` with Markdown between every
  character (what a hostile PR may write): the cost must not grow with the length.
`--quick`: 50 claims, 3 rounds. Prints figures, asserts nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/fix.py`: the repository root on the path, this file's folder not
# (bench/numbers.py would shadow the standard library's `numbers`).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE.parent)]

import argparse  # noqa: E402
import tempfile  # noqa: E402

from bench._timing import median_cpu_ms  # noqa: E402
from citecheck.checks.fix import locate, with_suggestions  # noqa: E402
from citecheck.checks.number import check_numbers  # noqa: E402
from citecheck.checks.passages import PageIndex  # noqa: E402
from citecheck.extract.document import extract_text  # noqa: E402
from citecheck.models import ClaimResult, SelectedFile, Verdict  # noqa: E402

PAGE = PageIndex(
    "Only 48% of contributors reported being paid for any of their open source work; the share was "
    "higher among maintainers of large projects."
)
PARAGRAPH = (
    "About **70%** of [contributors](https://example.org/reports/2024/survey?section=pay&format=html) "
    "are paid for their open source work. The survey ran for six weeks in the spring. Most answers "
    "came from Europe and North America, the appendix says."
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--claims", type=int, default=500)
    args = parser.parse_args()
    claims_n, rounds = (50, 3) if args.quick else (args.claims, args.rounds)

    markdown = "\n\n".join([PARAGRAPH] * claims_n) + "\n"
    failed: list[ClaimResult] = []
    for claim in extract_text(markdown, "doc.md").claims:
        result = check_numbers(claim.text, PAGE)
        if result is not None and result.page_value:
            failed.append(
                ClaimResult(
                    **claim.model_dump(), verdict=Verdict.fail, decided_by=result.name, checks=[result]
                )
            )
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "doc.md"
        doc.write_text(markdown, encoding="utf-8")
        files = [SelectedFile(path=str(doc), display="doc.md")]
        placed = sum(1 for c in with_suggestions(failed, files, 10_000_000) if c.suggestion)
        ms = median_cpu_ms(lambda: with_suggestions(failed, files, 10_000_000), rounds)
    per_claim = ms / max(1, len(failed))
    print(f"prose: {len(failed)} contradicted claims, {placed} placed: {per_claim:.2f} ms per claim")

    for chars in (2_000, 20_000):
        body = "a b " * (chars // 8)
        text = f"{body}About 70% of contributors are paid. {body}"
        raw = "".join(f"{c}*" for c in body) + " About 70% of contributors are paid. " + body
        claim = ClaimResult(text=text, kinds=[], file="d.md", line=1, column=1, verdict=Verdict.fail)
        start = text.index("70%")
        ms = median_cpu_ms(
            lambda claim=claim, start=start, raw=raw: locate(claim, (start, start + 3), [raw]), rounds
        )
        print(f"repetitive: a claim of {len(text):,} characters: {ms:.2f} ms")


if __name__ == "__main__":
    main()
