"""`citecheck eval`: the judge's accuracy and cost on a labelled set in the WiCE format.

Each JSONL line has `claim` (text), `evidence` (the source, as a list of sentences or a
string) and `label` (`supported`, `partially_supported` or `not_supported`). Partial
support is not support (DESIGN §1), so the task is binary: supported vs. not. Each line is
judged as its own source through the same path a `check` run takes (evidence selection
within the run's budget, then `Judge.judge_source`), so the figures describe the real judge
including its cost cap and verdict cache. The deterministic checks are not applied: this
measures the judge alone.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from citecheck.cache import DiskCache
from citecheck.checks.passages import select_evidence
from citecheck.config import Settings
from citecheck.errors import ConfigError
from citecheck.judge.core import Judge
from citecheck.judge.providers import PROVIDERS
from citecheck.judge.resolve import resolve_judge
from citecheck.models import Claim, ClaimKind, FetchedSource, FetchOutcome, FileError, JudgeResult, SourceInfo

LABELS = ("supported", "partially_supported", "not_supported")
PREDICTIONS = ("supported", "not_supported", "no_verdict")


class EvalRow(BaseModel):
    line: int
    claim: str
    label: str
    predicted: str  # supported | not_supported | no_verdict
    error: str | None = None
    cost_usd: float = 0.0


class EvalResult(BaseModel):
    data: str
    model: str
    total: int = 0  # rows evaluated
    judged: int = 0  # rows with a verdict
    no_verdict: int = 0  # judge error, quote not found, refusal
    limited: int = 0  # stopped by the cost cap
    accuracy: float | None = None  # over judged rows
    balanced_accuracy: float | None = None  # mean of recall on supported and on not supported
    true_positive: int = 0
    false_positive: int = 0
    true_negative: int = 0
    false_negative: int = 0
    # gold label -> predicted -> count
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    calls_made: int = 0
    calls_failed: int = 0
    cached: int = 0
    rows: list[EvalRow] = Field(default_factory=list)
    errors: list[FileError] = Field(default_factory=list)  # unreadable lines, skipped


class _Item(BaseModel):
    line: int
    claim: str
    text: str
    label: str


def load_rows(data: Path, limit: int | None = None) -> tuple[list[_Item], list[FileError]]:
    """The usable rows of a WiCE-format JSONL file; a bad line is an error naming file:line."""
    try:
        raw = data.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"eval data {data} not found", "give a JSONL file with --data", code="eval-data"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read eval data {data}: {exc}", "give a UTF-8 JSONL file", code="eval-data"
        ) from None
    items: list[_Item] = []
    errors: list[FileError] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if limit is not None and len(items) >= limit:
            break
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(FileError(file=str(data), line=n, message=f"not JSON: {exc}"))
            continue
        if not isinstance(row, dict):
            errors.append(FileError(file=str(data), line=n, message="not a JSON object"))
            continue
        claim, evidence, label = row.get("claim"), row.get("evidence"), row.get("label")
        if isinstance(evidence, list) and all(isinstance(s, str) for s in evidence):
            text = "\n".join(evidence)
        elif isinstance(evidence, str):
            text = evidence
        else:
            text = None
        problems = []
        if not isinstance(claim, str) or not claim.strip():
            problems.append("`claim` must be a non-empty string")
        if text is None or not text.strip():
            problems.append("`evidence` must be a non-empty list of sentences or a string")
        if label not in LABELS:
            problems.append(f"`label` must be one of {', '.join(LABELS)}, not {label!r}")
        if problems:
            errors.append(FileError(file=str(data), line=n, message="; ".join(problems)))
            continue
        items.append(_Item(line=n, claim=claim, text=text or "", label=label))  # type: ignore[arg-type]
    return items, errors


def _predicted(result: JudgeResult) -> str:
    if result.error is not None or result.supported is None:
        return "no_verdict"
    return "supported" if result.supported else "not_supported"


def score(data: str, model: str, rows: list[EvalRow], results: list[JudgeResult]) -> EvalResult:
    """Accuracy figures from rows and the judge's results (same order)."""
    out = EvalResult(data=data, model=model, total=len(rows), rows=rows)
    out.confusion = {label: dict.fromkeys(PREDICTIONS, 0) for label in LABELS}
    for row, result in zip(rows, results, strict=True):
        out.confusion[row.label][row.predicted] += 1
        out.input_tokens += result.input_tokens
        out.output_tokens += result.output_tokens
        out.cost_usd += result.cost_usd
        out.cached += result.cached
        if result.limit:
            out.limited += 1
        if row.predicted == "no_verdict":
            out.no_verdict += not result.limit
            continue
        out.judged += 1
        gold = row.label == "supported"
        pred = row.predicted == "supported"
        if gold and pred:
            out.true_positive += 1
        elif gold:
            out.false_negative += 1
        elif pred:
            out.false_positive += 1
        else:
            out.true_negative += 1
    if out.judged:
        out.accuracy = (out.true_positive + out.true_negative) / out.judged
        positives = out.true_positive + out.false_negative
        negatives = out.true_negative + out.false_positive
        recalls = [r for r in (
            out.true_positive / positives if positives else None,
            out.true_negative / negatives if negatives else None,
        ) if r is not None]  # fmt: skip
        out.balanced_accuracy = sum(recalls) / len(recalls) if recalls else None
    return out


async def _judge_all(judge: Judge, items: list[_Item], data: str, budget: int) -> list[JudgeResult]:
    async def one(item: _Item) -> JudgeResult:
        claim = Claim(text=item.claim, kinds=[ClaimKind.hyperlinked], file=data, line=item.line, column=1)
        source = FetchedSource(
            info=SourceInfo(url=f"{data}#L{item.line}"), outcome=FetchOutcome.ok, text=item.text
        )
        passages = select_evidence(item.claim, item.text, budget_chars=budget)
        [result] = await judge.judge_source(source, [(claim, passages)])
        return result

    try:
        return list(await asyncio.gather(*(one(item) for item in items)))
    finally:
        await judge.aclose()


def run_eval(
    data: Path, settings: Settings, environ: Mapping[str, str], limit: int | None = None
) -> EvalResult:
    """Judge every row (or the first `limit`) of `data`; ConfigError when no judge is set or
    every judge call failed."""
    config = resolve_judge(settings, environ)
    if config is None:
        raise ConfigError(
            "eval needs a judge, but the judge is `none`",
            f"choose --judge {'|'.join(PROVIDERS)} and set its API key",
            code="no-judge",
        )
    items, errors = load_rows(data, limit)
    cache = DiskCache(settings.cache_dir) if settings.cache_dir else None
    judge = Judge(config, settings, cache)
    results = asyncio.run(_judge_all(judge, items, str(data), settings.evidence_chars))
    failure = judge.failure_error()
    if failure is not None:
        raise failure
    rows = [
        EvalRow(
            line=item.line,
            claim=item.claim,
            label=item.label,
            predicted=_predicted(result),
            error=result.error,
            cost_usd=result.cost_usd,
        )
        for item, result in zip(items, results, strict=True)
    ]
    out = score(str(data), config.model, rows, results)
    out.errors = errors
    out.calls_made = judge.calls_made
    out.calls_failed = judge.calls_failed
    return out


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def render_eval(result: EvalResult) -> str:
    """A plain-text summary: accuracy, balanced accuracy, confusion matrix, cost."""
    lines = [
        f"citecheck eval: {result.data} ({result.total} claims) with {result.model}",
        f"judged: {result.judged}   no verdict: {result.no_verdict}   stopped by cost cap: {result.limited}",
        f"accuracy: {_pct(result.accuracy)}   balanced accuracy (supported vs not): "
        f"{_pct(result.balanced_accuracy)}",
        f"supported as positive: TP {result.true_positive}  FP {result.false_positive}  "
        f"TN {result.true_negative}  FN {result.false_negative}",
        "",
        "confusion matrix (rows: gold label, columns: verdict)",
    ]
    width = max(len(label) for label in LABELS)
    lines.append(" " * width + "".join(f"  {p:>13}" for p in PREDICTIONS))
    for label in LABELS:
        counts = result.confusion.get(label, {})
        lines.append(f"{label:<{width}}" + "".join(f"  {counts.get(p, 0):>13}" for p in PREDICTIONS))
    lines += [
        "",
        f"cost: ${result.cost_usd:.4f} ({result.input_tokens} input + {result.output_tokens} output tokens, "
        f"{result.calls_made} calls, {result.calls_failed} failed, {result.cached} from cache)",
    ]
    for err in result.errors:
        lines.append(f"skipped {err.file}:{err.line}: {err.message}")
    return "\n".join(lines) + "\n"
