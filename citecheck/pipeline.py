"""The pipeline of DESIGN §1, end to end: extract → resolve → fetch → evidence → judge → report.

Right after extraction, links that are not sources (localhost and loopback addresses, reserved
example/test domains, `exclude` patterns: `citecheck.exclusions`) are dropped from the claims
and counted, so they are never fetched and never fail a claim. A private address stays a
source: the SSRF guard refuses it and its claim fails.

`check()` is the one entry point for the CLI and the Action. It owns the verdict policy that
combines what the stages found into one `ClaimResult` per claim:

- a claim with a fact kind and no citation is `unsourced`;
- a cited claim is checked against each of its resolved sources; it passes when one source
  supports it, otherwise the most telling failure is reported (a source that contradicts the
  claim first, then a fetch failure, then "not verified");
- per source: a failed fetch decides (`disallowed` / `unreachable` / `not_extractable`); a
  number / quote / date check the page contradicts fails on its own at no cost; otherwise
  the judge decides, told which figures, dates, quotes or `#:~:text=` fragment the checks did
  not find on the page, and its "supported" needs a verbatim quote found on the page
  (checked in the judge);
- with `judge: none`, a number or quote found on the page passes with that page text as
  evidence; one absent from the page, and anything that needs a judge, is `not_verified`.

Only light modules are imported here: `check` starts the fetch stage's first extraction
worker (`launch_workers_early`) before the stages are imported, so the worker's imports
overlap theirs and the claims' extraction; the stages are imported where they run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from citecheck import __version__, policy
from citecheck.cache import DiskCache
from citecheck.config import JUDGE_NONE, Settings
from citecheck.errors import ConfigError
from citecheck.exclusions import Exclusions, exclude_links
from citecheck.fetch.workers import WorkerLauncher, launch_workers_early
from citecheck.models import (
    CheckResult,
    Citation,
    Claim,
    ClaimResult,
    FetchedSource,
    FetchOutcome,
    FileError,
    Report,
    SelectedFile,
)
from citecheck.process import fewer_gc_passes

if TYPE_CHECKING:
    from citecheck.checks import CheckedPage
    from citecheck.fetch.fetcher import FetchResult
    from citecheck.judge.resolve import JudgeConfig

# What the checks stage's preparers (run in the extraction workers) need imported: the worker
# imports it while this process reads the Markdown.
_WORKER_PRELOAD = ("citecheck.checks",)


def _in_ranges(line: int, ranges: list[tuple[int, int]] | None) -> bool:
    return ranges is None or any(lo <= line <= hi for lo, hi in ranges)


class _Run:
    """State of one run: settings, the judge, and what each stage produced."""

    def __init__(
        self,
        settings: Settings,
        environ: Mapping[str, str],
        launcher: WorkerLauncher | None = None,
        judge_off_reason: str = "",
    ) -> None:
        self.settings = settings
        self.judge_off_reason = judge_off_reason  # why the judge is off, when the caller knows
        self.launcher = launcher  # extraction workers started early, for the fetch stage
        # Before any fetch: no key / unknown model stops the run here (DESIGN §3).
        self.judge_config: JudgeConfig | None = None
        if settings.judge != JUDGE_NONE:
            # Imported only by runs that judge: its models and price table cost a run
            # without a judge ~40 ms of start-up, before its first request.
            from citecheck.judge.resolve import resolve_judge

            self.judge_config = resolve_judge(settings, environ)
        self.cache = DiskCache(settings.cache_dir, ttl_s=settings.cache_ttl_s) if settings.cache_dir else None
        self.errors: list[FileError] = []
        self.notes: list[str] = []

    def extract(self, files: list[SelectedFile]) -> list[Claim]:
        from citecheck.extract.document import extract_file

        claims: list[Claim] = []
        for f in files:
            doc = extract_file(
                Path(f.path),
                display=f.display,
                max_bytes=self.settings.max_file_bytes,
                budget_s=self.settings.extract_budget_s,
            )
            self.errors.extend(doc.errors)
            claims.extend(c for c in doc.claims if _in_ranges(c.line, f.line_ranges))
        return claims

    async def verify(self, claims: list[Claim]) -> list[ClaimResult]:
        from citecheck import checks

        out: dict[int, ClaimResult] = {}
        to_check: list[int] = []
        for i, claim in enumerate(claims):
            triaged = policy.triage(claim, over_limit=len(to_check) >= self.settings.max_claims)
            if triaged is policy.Triage.check:
                to_check.append(i)
            elif isinstance(triaged, ClaimResult):
                out[i] = triaged
        ignored = len(claims) - len(out) - len(to_check)
        if ignored:
            self.notes.append(f"{ignored} claim(s) skipped: every citation is marked citecheck-ignore")

        citing: dict[str, list[Claim]] = {}
        for i in to_check:
            for c in claims[i].citations:
                if policy.checkable(c):
                    citing.setdefault(c.url or "", []).append(claims[i])
        fetched = await self._fetch(citing)
        sources = fetched.sources
        per_claim: dict[int, list[ClaimResult]] = {i: [] for i in to_check}
        # Each page is parsed once and shared by every claim that cites it (the fetch
        # stage's worker processes have checked most claims against their pages already).
        pages = checks.checked_pages(sources, fetched.prepared)
        pending: dict[str, list[tuple[int, Claim, list[CheckResult], Citation]]] = {}
        for i in to_check:
            for cit in claims[i].citations:
                if not policy.checkable(cit):
                    continue
                url = cit.url or ""
                source = sources[url]
                cit.source = source.info
                decided = policy.fetch_verdict(claims[i], url, source)
                results: list[CheckResult] = []
                if decided is None:
                    results = checks.claim_results(claims[i], cit, pages[url])
                    decided = policy.checks_verdict(
                        claims[i],
                        url,
                        results,
                        decide_alone=checks.DECIDE_ALONE,
                        judge_on=self.judge_config is not None,
                        judge_off_reason=self.judge_off_reason,
                    )
                if decided is not None:
                    per_claim[i].append(decided)
                else:
                    pending.setdefault(url, []).append((i, claims[i], results, cit))
        if pending:
            await self._judge(pending, sources, pages, per_claim)
        for i in to_check:
            out[i] = policy.pick(per_claim[i])
        return [out[i] for i in sorted(out)]

    async def _fetch(self, citing: dict[str, list[Claim]]) -> FetchResult[CheckedPage]:
        from citecheck.checks import preparers
        from citecheck.fetch.fetcher import FetchResult, fetch_all, fetch_key

        wanted = sorted(u for u in citing if u)
        if not self.settings.fetch:
            skipped = "fetching is disabled"
            return FetchResult(
                sources={
                    u: FetchedSource(info={"url": u}, outcome=FetchOutcome.skipped, error=skipped)
                    for u in wanted
                },
                prepared={},
            )
        # The checks of the claims citing each page go with it to the extraction workers,
        # which run them as the page arrives.
        by_page: dict[str, list[Claim]] = {}
        for url, cited in citing.items():
            by_page.setdefault(fetch_key(url), []).extend(cited)
        # fetch_all starts (and stops) its extraction workers itself when the run is large
        # enough, from the launcher started early if there is one (and discards it if not).
        launcher, self.launcher = self.launcher, None
        return await fetch_all(
            wanted, self.settings, cache=self.cache, prepare=preparers(by_page), launcher=launcher
        )

    async def _judge(
        self,
        pending: dict[str, list[tuple[int, Claim, list[CheckResult], Citation]]],
        sources: dict[str, FetchedSource],
        pages: dict[str, CheckedPage],
        per_claim: dict[int, list[ClaimResult]],
    ) -> None:
        from citecheck.checks import judge_hints
        from citecheck.checks.passages import select_evidence
        from citecheck.judge.core import Judge, JudgeItem

        assert self.judge_config is not None
        judge = Judge(self.judge_config, self.settings, self.cache)

        async def one_source(url: str) -> None:
            source = sources[url]
            # Each claim goes with what its checks did not find on the page, as a hint.
            items = [
                JudgeItem(
                    claim,
                    select_evidence(
                        claim.text,
                        source.text,
                        budget_chars=self.settings.evidence_chars,
                        text_fragment=cit.text_fragment,
                        page=pages[url].index,
                    ),
                    judge_hints(results),
                )
                for _, claim, results, cit in pending[url]
            ]
            verdicts = await judge.judge_source(source, items)
            for (i, claim, checks, _), judged in zip(pending[url], verdicts, strict=True):
                per_claim[i].append(policy.judge_verdict(claim, url, checks, judged))

        try:
            # The judge bounds its own concurrency; sources are judged side by side.
            await asyncio.gather(*(one_source(url) for url in pending))
        finally:
            await judge.aclose()
        failure = judge.failure_error()
        if failure is not None:
            raise failure


async def check_async(
    settings: Settings, files: list[SelectedFile], *, environ: Mapping[str, str], judge_off_reason: str = ""
) -> Report:
    """The run (see `check`), for a caller with its own event loop."""
    return await _check_async(settings, files, environ, judge_off_reason, launcher=None)


async def _check_async(
    settings: Settings,
    files: list[SelectedFile],
    environ: Mapping[str, str],
    judge_off_reason: str,
    launcher: WorkerLauncher | None,
) -> Report:
    """The run; `launcher`, if given, goes to the fetch stage (the caller discards it if the
    run ends before)."""
    from citecheck.output.report import build_report

    run = _Run(settings, environ, launcher, judge_off_reason)
    claims = run.extract(files)
    if files and not claims and len({e.file for e in run.errors if e.fatal}) == len(files):
        raise ConfigError(
            "none of the input files could be read",
            "; ".join(f"{e.file}: {e.message}" for e in run.errors[:5]),
            code="no-input",
        )
    claims, links_excluded = exclude_links(claims, Exclusions.from_settings(settings))
    if settings.judge == JUDGE_NONE:
        run.notes.append("judge: none — only the number, quote and date checks ran")
    if not settings.allowed_domains:
        run.notes.append("allowed-domains is empty: any public host could be fetched")
    results = await run.verify(claims)
    if run.cache is not None and (rejected := run.cache.rejected_note()):
        run.notes.append(rejected)
    return build_report(
        results,
        settings=settings,
        errors=run.errors,
        notes=run.notes,
        total_citations_found=sum(len(c.citations) for c in claims),
        judge_model=run.judge_config.model if run.judge_config else None,
        links_excluded=links_excluded,
    ).model_copy(update={"version": __version__})


def check(
    settings: Settings,
    files: list[SelectedFile],
    *,
    environ: Mapping[str, str],
    judge_off_reason: str = "",
) -> Report:
    """One run over `files`. `judge_off_reason` replaces the default reason of the claims
    that needed the judge when the caller turned it off (the Action, without a key)."""
    reports: list[Report] = []
    # Started before anything else, the stages' imports included: the worker's imports
    # overlap them and the claims' extraction. This run ends it either way.
    launcher = launch_workers_early(settings, files, preload=_WORKER_PRELOAD)

    async def run() -> None:
        reports.append(await _check_async(settings, files, environ, judge_off_reason, launcher))

    # The report is handed out of the event loop's main task rather than returned by it: on
    # leaving, `asyncio.run` restores its SIGINT handler, and the standard library's signal
    # module then formats the old handler, which holds the task, and a finished task's
    # repr shows its result — a whole Report (0.3 s for 1,000 claims).
    try:
        with fewer_gc_passes():
            asyncio.run(run())
    finally:
        if launcher is not None:
            launcher.discard()  # nothing to do if the fetch stage took it
    return reports[0]
