"""Report stage, assembly: the Report of a run (totals, `failing`, `passed`), merging sharded
reports, and reading a JSON report back. The renderings are the formats of `citecheck.output`.

Counting. Every claim has exactly one verdict, and falls in exactly one of
four buckets, so ``total_claims == supported + unsupported + unsourced + not_verified``:

- supported   — verdict ``pass``;
- unsupported — verdict ``fail`` (the page does not support the claim);
- unsourced   — verdict ``unsourced``;
- not_verified — every other verdict: ``not_verified``, ``unreachable``, ``not_extractable``
  and ``disallowed`` (the claim's support could not be decided).

``total_judged`` counts the claims with a pass/fail verdict, whether a deterministic check or
the judge decided it; ``overall_score`` is supported / judged (None when nothing was judged).
``total_from_cache`` counts the claims whose verdict rests on a source served from the cache
directory rather than downloaded by the run (`from_cache`).
``total_links_excluded`` counts the links dropped as not sources (`citecheck.exclusions`), and
``links_excluded`` the same by reason; they are not citations, so ``total_citations_found``
leaves them out.
``total_cost_usd`` sums the judge cost of the claims, leaving out verdicts served from the
cache (they cost nothing on this run).

The Markdown Summary's "Failed" line is unsupported + not_verified: every claim listed under
"### Failed Claims", where a not-verified claim appears with its typed tag, e.g.
``FAIL (not verified): cost cap reached``. So Verified + Failed + Unsourced = Total claims.

``failing`` and ``passed`` come from `citecheck.policy.assess` (the verdict and exit policy).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from citecheck import __version__
from citecheck.config import Settings
from citecheck.errors import ConfigError
from citecheck.models import ClaimResult, Dismissed, FileError, Report, ResolveStatus, Verdict
from citecheck.policy import NOT_VERIFIED_VERDICTS, assess

_T = TypeVar("_T")


class SummaryCounts(BaseModel):
    """The four figures of the Markdown Summary (also the Action's outputs)."""

    total: int
    verified: int
    failed: int  # unsupported + not verified: everything under "### Failed Claims"
    unsourced: int
    not_verified: int


# --------------------------------------------------------------------------- totals


def build_report(
    results: list[ClaimResult],
    *,
    settings: Settings,
    errors: Sequence[FileError] = (),
    notes: Sequence[str] = (),
    total_citations_found: int | None = None,
    judge_model: str | None = None,
    links_excluded: Mapping[str, int] | None = None,
    dismissed: Sequence[Dismissed] = (),
    screen_cost_usd: float = 0.0,
) -> Report:
    """Assemble the Report of one run: every total, `failing` and `passed`.

    `total_citations_found` defaults to the citations on the reported claims; the pipeline
    passes a larger figure when it found citations on lines it did not check.
    `links_excluded`: the links dropped as not sources, by reason. `dismissed`: the sentences
    the screen set aside, and `screen_cost_usd` what its calls cost (in the run's total).
    """
    return _assemble(
        results,
        fail_on=settings.fail_on,
        errors=errors,
        notes=notes,
        total_citations_found=total_citations_found,
        judge_model=judge_model,
        links_excluded=links_excluded or {},
        dismissed=dismissed,
        screen_cost_usd=screen_cost_usd,
    )


def merge_reports(reports: list[Report], fail_on: list[str]) -> Report:
    """Join the reports of sharded runs into the report an unsharded run would have given.

    Claims are concatenated (then ordered by file and line), errors and notes deduplicated,
    and every total recomputed by the same code as `build_report`. A claim present twice
    (the same report passed twice, or overlapping shards) counts once.
    """
    reports = _dedupe(reports, key=lambda r: r.model_dump_json())  # e.g. a glob that matched twice
    all_claims = [c for r in reports for c in r.claims]
    claims = _dedupe(all_claims, key=lambda c: (c.file, c.line, c.column, c.text))
    dropped = len(all_claims) - len(claims)
    errors = [e for r in reports for e in r.errors]
    notes = [n for r in reports for n in r.notes]
    found = sum(r.total_citations_found for r in reports)
    if dropped:
        kept = {id(c) for c in claims}
        found -= sum(len(c.citations) for c in all_claims if id(c) not in kept)
    model = next((r.judge_model for r in reports if r.judge_model), None)
    excluded: Counter[str] = Counter()
    for r in reports:
        excluded.update(r.links_excluded)
    dismissed = _dedupe(
        (d for r in reports for d in r.dismissed), key=lambda d: (d.file, d.line, d.column, d.text)
    )
    try:
        fail_on = Settings(fail_on=fail_on).fail_on
    except ValidationError as exc:
        raise ConfigError(f"--fail-on: {exc.errors()[0]['msg']}", "fix the --fail-on list") from None
    return _assemble(
        claims,
        fail_on=fail_on,
        errors=errors,
        notes=notes,
        total_citations_found=found,
        judge_model=model,
        links_excluded=excluded,
        dismissed=dismissed,
        screen_cost_usd=math.fsum(r.screen_cost_usd for r in reports),
    )


def _assemble(
    results: Iterable[ClaimResult],
    *,
    fail_on: list[str],
    errors: Iterable[FileError],
    notes: Iterable[str],
    total_citations_found: int | None,
    judge_model: str | None,
    links_excluded: Mapping[str, int],
    dismissed: Iterable[Dismissed] = (),
    screen_cost_usd: float = 0.0,
) -> Report:
    # A stable order makes a merged report identical to an unsharded one (and float sums too).
    claims = sorted(results, key=lambda c: (c.file, c.line, c.column))
    errors = sorted(
        _dedupe(errors, key=lambda e: (e.file, e.line, e.message, e.fatal)),
        key=lambda e: (e.file, e.line or 0),
    )
    notes = _dedupe(notes, key=lambda n: n)

    def count(*verdicts: Verdict) -> int:
        return sum(1 for c in claims if c.verdict in verdicts)

    supported = count(Verdict.pass_)
    unsupported = count(Verdict.fail)
    judged = supported + unsupported
    citations = [cit for c in claims for cit in c.citations]
    cost = math.fsum(
        [*(c.judge.cost_usd for c in claims if c.judge is not None and not c.judge.cached), screen_cost_usd]
    )
    dismissed = sorted(dismissed, key=lambda d: (d.file, d.line, d.column))

    failing, passed = assess(claims, errors, fail_on)

    return Report(
        passed=passed,
        overall_score=round(supported / judged, 4) if judged else None,
        total_claims=len(claims),
        total_citations_found=len(citations) if total_citations_found is None else total_citations_found,
        total_resolved=sum(1 for cit in citations if cit.resolve_status == ResolveStatus.ok),
        total_judged=judged,
        total_supported=supported,
        total_unsupported=unsupported,
        total_unsourced=count(Verdict.unsourced),
        total_not_verified=count(*NOT_VERIFIED_VERDICTS),
        total_cost_usd=round(cost, 6),
        total_from_cache=sum(1 for c in claims if from_cache(c)),
        total_links_excluded=sum(links_excluded.values()),
        links_excluded={k: n for k, n in sorted(links_excluded.items()) if n},
        claims=claims,
        total_dismissed=len(dismissed),
        dismissed=dismissed,
        screen_cost_usd=round(screen_cost_usd, 6),
        errors=errors,
        notes=notes,
        fail_on=list(fail_on),
        failing=failing,
        judge_model=judge_model,
        version=__version__,
    )


def _dedupe(items: Iterable[_T], *, key: Callable[[_T], Hashable]) -> list[_T]:
    seen: set[Hashable] = set()
    out: list[_T] = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def with_errors(report: Report, errors: Sequence[FileError]) -> Report:
    """`report` with more file errors (e.g. from file selection), its verdict recomputed."""
    if not errors:
        return report  # nothing to add: rebuilding it would give the same report
    extended = report.model_copy(update={"errors": [*errors, *report.errors]})
    return merge_reports([extended], report.fail_on)


def from_cache(claim: ClaimResult) -> bool:
    """Whether the claim's verdict rests on a source the run took from its cache directory."""
    if claim.source_url is None:
        return False
    return any(
        c.url == claim.source_url and c.source is not None and c.source.from_cache for c in claim.citations
    )


def summary_counts(report: Report) -> SummaryCounts:
    return SummaryCounts(
        total=report.total_claims,
        verified=report.total_supported,
        failed=report.total_unsupported + report.total_not_verified,
        unsourced=report.total_unsourced,
        not_verified=report.total_not_verified,
    )


def read_report(path: Path) -> Report:
    """Load a JSON report (the `json` format; for `citecheck merge`)."""
    try:
        return Report.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read report: {exc.strerror or exc}", "check the path") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise ConfigError(
            f"{path}: not a citecheck JSON report ({where}: {first['msg']})",
            "pass the files written by `citecheck check --format json` or `--json FILE`",
        ) from None
