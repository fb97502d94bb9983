"""The pipeline of DESIGN §1, end to end: extract → resolve → fetch → evidence → judge → report.

`check()` is the one entry point for the CLI and the Action. It owns the verdict policy that
combines what the stages found into one `ClaimResult` per claim:

- a claim with a fact kind and no citation is `unsourced`;
- a cited claim is checked against each of its resolved sources; it passes when one source
  supports it, otherwise the most telling failure is reported (a source that contradicts the
  claim first, then a fetch failure, then "not verified");
- per source: a failed fetch decides (`disallowed` / `unreachable` / `not_extractable`); a
  `#:~:text=` fragment missing from the page fails; a failed number / quote / date check
  fails on its own at no cost; otherwise the judge decides, and its "supported" needs a
  verbatim quote found on the page (checked in the judge);
- with `judge: none`, a number or quote found on the page passes with that page text as
  evidence; anything that needs a judge is `not_verified`.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from citecheck import GC_THRESHOLD, __version__
from citecheck.cache import DiskCache
from citecheck.config import ConfigError, JudgeProvider, Settings
from citecheck.evidence import PageIndex, find_fragment, run_checks, select_evidence
from citecheck.extract import extract_file
from citecheck.fetch import fetch_all
from citecheck.models import (
    CheckResult,
    Citation,
    Claim,
    ClaimResult,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
    FileError,
    JudgeResult,
    Report,
    ResolveStatus,
    SelectedFile,
    Verdict,
)
from citecheck.report import build_report
from citecheck.workers import WorkerLauncher, launch_workers_early

if TYPE_CHECKING:
    from citecheck.judge import JudgeConfig

JUDGE_OFF_REASON = "needs the LLM judge, which is off (judge: none)"
CLAIM_LIMIT_REASON = "claim limit reached (max-claims)"

# Which failure to report when no source supports a claim: lower is more telling.
_FAILURE_RANK = {
    Verdict.fail: 0,
    Verdict.disallowed: 1,
    Verdict.unreachable: 2,
    Verdict.not_extractable: 3,
    Verdict.not_verified: 4,
}
_FETCH_VERDICT = {
    FetchOutcome.disallowed: Verdict.disallowed,
    FetchOutcome.unreachable: Verdict.unreachable,
    FetchOutcome.not_extractable: Verdict.not_extractable,
    FetchOutcome.skipped: Verdict.not_verified,
}


def _in_ranges(line: int, ranges: list[tuple[int, int]] | None) -> bool:
    return ranges is None or any(lo <= line <= hi for lo, hi in ranges)


def _result(claim: Claim, verdict: Verdict, **kw: object) -> ClaimResult:
    return ClaimResult(**claim.model_dump(), verdict=verdict, **kw)  # type: ignore[arg-type]


def _checkable(citation: Citation) -> bool:
    return citation.resolve_status == ResolveStatus.ok and bool(citation.url)


def _without_judge(claim: Claim, url: str, checks: list[CheckResult]) -> ClaimResult:
    found = [c for c in checks if c.passed and c.name in (DecidedBy.number, DecidedBy.quote)]
    if found:
        return _result(
            claim,
            Verdict.pass_,
            decided_by=found[0].name,
            reason=found[0].detail,
            evidence=found[0].evidence,
            source_url=url,
            checks=checks,
        )
    return _result(
        claim,
        Verdict.not_verified,
        decided_by=DecidedBy.policy,
        reason=JUDGE_OFF_REASON,
        source_url=url,
        checks=checks,
    )


def _from_judge(claim: Claim, url: str, checks: list[CheckResult], judged: JudgeResult) -> ClaimResult:
    common = {"source_url": url, "checks": checks, "judge": judged}
    if judged.supported is None or judged.error:
        return _result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.judge if not judged.limit else DecidedBy.policy,
            reason=judged.error or "the judge gave no verdict",
            limit=judged.limit,
            **common,
        )
    verdict = Verdict.pass_ if judged.supported else Verdict.fail
    return _result(
        claim,
        verdict,
        decided_by=DecidedBy.judge,
        reason=judged.rationale,
        evidence=judged.evidence,
        **common,
    )


def _pre_judge(
    claim: Claim, citation: Citation, source: FetchedSource, page: PageIndex | None
) -> tuple[ClaimResult | None, list[CheckResult]]:
    """Decide what can be decided without the judge; None means the judge is needed."""
    url = citation.url or ""
    if source.outcome != FetchOutcome.ok:
        verdict = _FETCH_VERDICT[source.outcome]
        return _result(claim, verdict, decided_by=DecidedBy.fetch, reason=source.error, source_url=url), []
    if citation.text_fragment and find_fragment(citation.text_fragment, source.text) is None:
        check = CheckResult(
            name=DecidedBy.quote,
            passed=False,
            detail=f"the text fragment {citation.text_fragment!r} in the link is not on the page",
        )
        return _result(
            claim,
            Verdict.fail,
            decided_by=DecidedBy.quote,
            reason=check.detail,
            source_url=url,
            checks=[check],
        ), [check]
    checks = run_checks(claim, source.text, page=page, source_date=source.date)
    failed = next((c for c in checks if not c.passed), None)
    if failed is not None:
        return _result(
            claim,
            Verdict.fail,
            decided_by=failed.name,
            reason=failed.detail,
            evidence=failed.evidence,
            source_url=url,
            checks=checks,
        ), checks
    return None, checks


def _pick(results: list[ClaimResult]) -> ClaimResult:
    passing = next((r for r in results if r.verdict == Verdict.pass_), None)
    if passing is not None:
        return passing
    return min(results, key=lambda r: _FAILURE_RANK.get(r.verdict, 9))


class _Run:
    """State of one run: settings, the judge, and what each stage produced."""

    def __init__(
        self, settings: Settings, environ: Mapping[str, str], launcher: WorkerLauncher | None = None
    ) -> None:
        self.settings = settings
        self.launcher = launcher  # extraction workers started early, for the fetch stage
        # Before any fetch: no key / unknown model stops the run here (DESIGN §3).
        self.judge_config: JudgeConfig | None = None
        if settings.judge != JudgeProvider.none:
            # Imported only by runs that judge: its models and price table cost a run
            # without a judge ~40 ms of start-up, before its first request.
            from citecheck.judge import resolve_judge

            self.judge_config = resolve_judge(settings, environ)
        self.cache = DiskCache(settings.cache_dir) if settings.cache_dir else None
        self.errors: list[FileError] = []
        self.notes: list[str] = []

    def extract(self, files: list[SelectedFile]) -> list[Claim]:
        claims: list[Claim] = []
        for f in files:
            doc = extract_file(Path(f.path), display=f.display, max_bytes=self.settings.max_file_bytes)
            self.errors.extend(doc.errors)
            claims.extend(c for c in doc.claims if _in_ranges(c.line, f.line_ranges))
        return claims

    async def verify(self, claims: list[Claim]) -> list[ClaimResult]:
        out: dict[int, ClaimResult] = {}
        to_check: list[int] = []
        for i, claim in enumerate(claims):
            live = [c for c in claim.citations if c.resolve_status != ResolveStatus.skipped]
            if not claim.citations:
                out[i] = _result(
                    claim, Verdict.unsourced, decided_by=DecidedBy.policy, reason="No citation provided"
                )
            elif not live:
                continue  # every citation carries `citecheck-ignore`: the author opted out
            elif not any(_checkable(c) for c in live):
                errors = "; ".join(c.resolve_error or "unresolved" for c in live)
                out[i] = _result(
                    claim,
                    Verdict.not_verified,
                    decided_by=DecidedBy.policy,
                    reason=f"citation not resolved: {errors}",
                )
            elif len(to_check) >= self.settings.max_claims:
                out[i] = _result(
                    claim,
                    Verdict.not_verified,
                    decided_by=DecidedBy.policy,
                    reason=CLAIM_LIMIT_REASON,
                    limit=True,
                )
            else:
                to_check.append(i)
        ignored = len(claims) - len(out) - len(to_check)
        if ignored:
            self.notes.append(f"{ignored} claim(s) skipped: every citation is marked citecheck-ignore")

        pages: dict[str, PageIndex] = {}
        citing: dict[str, list[Claim]] = {}
        for i in to_check:
            for c in claims[i].citations:
                if _checkable(c):
                    citing.setdefault(c.url or "", []).append(claims[i])
        sources = await self._fetch(citing, pages)
        per_claim: dict[int, list[ClaimResult]] = {i: [] for i in to_check}
        # Each page is parsed once and shared by every claim that cites it (the fetch
        # stage's worker process has checked most claims against their pages already).
        for url, s in sources.items():
            if s.outcome == FetchOutcome.ok and url not in pages:
                pages[url] = PageIndex.build(s.text)
        pending: dict[str, list[tuple[int, Claim, list[CheckResult], Citation]]] = {}
        for i in to_check:
            for cit in claims[i].citations:
                if not _checkable(cit):
                    continue
                source = sources[cit.url or ""]
                cit.source = source.info
                decided, checks = _pre_judge(claims[i], cit, source, pages.get(cit.url or ""))
                if decided is not None:
                    per_claim[i].append(decided)
                elif self.judge_config is None:
                    per_claim[i].append(_without_judge(claims[i], cit.url or "", checks))
                else:
                    pending.setdefault(cit.url or "", []).append((i, claims[i], checks, cit))
        if pending:
            await self._judge(pending, sources, pages, per_claim)
        for i in to_check:
            out[i] = _pick(per_claim[i])
        return [out[i] for i in sorted(out)]

    async def _fetch(
        self, citing: dict[str, list[Claim]], pages: dict[str, PageIndex]
    ) -> dict[str, FetchedSource]:
        wanted = sorted(u for u in citing if u)
        if not self.settings.fetch:
            return {
                u: FetchedSource(info={"url": u}, outcome=FetchOutcome.skipped, error="fetching is disabled")
                for u in wanted
            }
        # fetch_all starts (and stops) its extraction workers itself when the run is large
        # enough, from the launcher started early if there is one (and discards it if not).
        launcher, self.launcher = self.launcher, None
        return await fetch_all(
            wanted, self.settings, cache=self.cache, pages=pages, claims=citing, launcher=launcher
        )

    async def _judge(
        self,
        pending: dict[str, list[tuple[int, Claim, list[CheckResult], Citation]]],
        sources: dict[str, FetchedSource],
        pages: dict[str, PageIndex],
        per_claim: dict[int, list[ClaimResult]],
    ) -> None:
        from citecheck.judge import Judge

        assert self.judge_config is not None
        judge = Judge(self.judge_config, self.settings, self.cache)

        async def one_source(url: str) -> None:
            source = sources[url]
            items = [
                (
                    claim,
                    select_evidence(
                        claim.text,
                        source.text,
                        budget_chars=self.settings.evidence_chars,
                        text_fragment=cit.text_fragment,
                        page=pages[url],
                    ),
                )
                for _, claim, _, cit in pending[url]
            ]
            verdicts = await judge.judge_source(source, items)
            for (i, claim, checks, _), judged in zip(pending[url], verdicts, strict=True):
                per_claim[i].append(_from_judge(claim, url, checks, judged))

        try:
            # The judge bounds its own concurrency; sources are judged side by side.
            await asyncio.gather(*(one_source(url) for url in pending))
        finally:
            await judge.aclose()
        failure = judge.failure_error()
        if failure is not None:
            raise failure


async def check_async(
    settings: Settings,
    files: list[SelectedFile],
    *,
    environ: Mapping[str, str],
    launcher: WorkerLauncher | None = None,
) -> Report:
    """The run (see `check`); `launcher`, if given, goes to the fetch stage (the caller
    discards it if the run ends before)."""
    run = _Run(settings, environ, launcher)
    claims = run.extract(files)
    if files and not claims and len({e.file for e in run.errors if e.fatal}) == len(files):
        raise ConfigError(
            "none of the input files could be read",
            "; ".join(f"{e.file}: {e.message}" for e in run.errors[:5]),
            code="no-input",
        )
    if settings.judge == JudgeProvider.none:
        run.notes.append("judge: none — only the number, quote and date checks ran")
    if not settings.allowed_domains:
        run.notes.append("allowed-domains is empty: any public host could be fetched")
    results = await run.verify(claims)
    return build_report(
        results,
        settings=settings,
        errors=run.errors,
        notes=run.notes,
        total_citations_found=sum(len(c.citations) for c in claims),
        judge_model=run.judge_config.model if run.judge_config else None,
    ).model_copy(update={"version": __version__})


@contextmanager
def _fewer_gc_passes() -> Iterator[None]:
    """Python's cycle collector, for one run: what exists before it (modules, settings) is
    never scanned again, and a collection comes every 10,000 allocations, not 700. A run
    allocates many small objects (models, mentions, coroutines) and few cycles; the
    default passes took a tenth of the CPU of checking 1,000 cited pages."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def check(
    settings: Settings,
    files: list[SelectedFile],
    *,
    environ: Mapping[str, str],
    launcher: WorkerLauncher | None = None,
) -> Report:
    """One run over `files`. `launcher`: the extraction workers' first process, if the
    caller started it (`workers.launch_workers_early`) before importing this module; this
    run ends it either way."""
    reports: list[Report] = []
    # Started before anything else: the worker's imports overlap the claims' extraction.
    launcher = launcher or launch_workers_early(settings, files)

    async def run() -> None:
        reports.append(await check_async(settings, files, environ=environ, launcher=launcher))

    # The report is handed out of the event loop's main task rather than returned by it: on
    # leaving, `asyncio.run` restores its SIGINT handler, and the standard library's signal
    # module then formats the old handler, which holds the task, and a finished task's
    # repr shows its result — a whole Report (0.3 s for 1,000 claims).
    try:
        with _fewer_gc_passes():
            asyncio.run(run())
    finally:
        if launcher is not None:
            launcher.discard()  # nothing to do if the fetch stage took it
    return reports[0]
