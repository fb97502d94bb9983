"""The stages end to end (docs/ARCHITECTURE.md): select → extract → (screen) → fetch → checks →
judge → report.

With `screen: true`, before anything is fetched, the run's judge reads the link-only and
unsourced sentences and sets aside those that state no fact (`citecheck.screen`); they are
reported apart (`Report.dismissed`). The screen and the judge are one `Judge`: one cost cap,
one pacing, one count of failed calls.

Right after extraction, links that are not sources (localhost and loopback addresses, reserved
example/test domains, `exclude` patterns: `citecheck.exclusions`) are dropped from the claims
and counted, so they are never fetched and never fail a claim. A private address stays a
source: the SSRF guard refuses it and its claim fails.

`check()` is the one entry point for the CLI and the Action. It only orders the stages and
hands their results to `citecheck.policy`, which owns every verdict rule: which claims are
checked (`triage`), what a failed fetch decides (`fetch_verdict`), when a check decides alone
(`checks_verdict`), what the judge's answer means (`judge_verdict`), and which of a claim's
per-source verdicts is reported (`pick`).

The judge starts on a page as soon as the fetch stage hands it over (`fetch_all`'s `on_page`)
and its checks have run, while the other pages still download; in batch mode the run's
requests wait for the last page and go in one batch. Whatever order the pages arrive in,
each claim's verdicts per source are picked in the same order (`verify`).

The run tells a progress listener (`citecheck.progress`) of each stage as it starts and ends
and of its counts as they move: files read and claims found as each file is extracted, pages
as the fetch stage hands them over to the streaming judge (`on_page`) or, without one, as its
tally (`FetchTally`) reads twice a second, judge calls as the judge settles them (`Judge`'s
`on_calls`), and batch mode's polls.
The stages report in order — extract, fetch (+ checks, the judge starting on pages as they
arrive), judge (what remains of it once the last page is in), report — with a heartbeat while
the fetch and the judge run. Without a listener nothing of this runs.

Only light modules are imported here: `check` starts the fetch stage's first extraction
worker (`launch_workers_early`) before the stages are imported, so the worker's imports
overlap theirs and the claims' extraction; the stages are imported where they run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from citecheck import __version__, policy
from citecheck.cache import CACHE_SECRET_ENV, DiskCache
from citecheck.config import JUDGE_NONE, Settings
from citecheck.errors import ConfigError
from citecheck.exclusions import Exclusions, exclude_links
from citecheck.fetch.workers import WorkerLauncher, launch_workers_early
from citecheck.models import (
    CheckResult,
    Citation,
    CitationKind,
    Claim,
    ClaimResult,
    FetchedSource,
    FetchOutcome,
    FileError,
    JudgeResult,
    Report,
    SelectedFile,
    SourceInfo,
)
from citecheck.process import fewer_gc_passes
from citecheck.progress import Progress, ProgressListener, Stage
from citecheck.redact import Redactor

if TYPE_CHECKING:
    from citecheck.checks import CheckedPage
    from citecheck.fetch.fetcher import FetchResult, FetchTally, OnPage
    from citecheck.fetch.local import LocalPages
    from citecheck.judge.core import Judge, JudgeItem
    from citecheck.judge.resolve import JudgeConfig
    from citecheck.screen import Screened

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
        redact: Redactor,
        launcher: WorkerLauncher | None = None,
        judge_off_reason: str = "",
        progress: Progress | None = None,
        root: Path | None = None,
    ) -> None:
        self.root = root  # the checkout internal links resolve in (None: no file of it is read)
        self.local: LocalPages | None = None  # its pages the run reads, once the claims are known
        # The judge's time budget counts from here (`Settings.judge_deadline_minutes`).
        self.deadline_at = time.monotonic() + settings.deadline_minutes() * 60
        self.progress = progress if progress is not None else Progress(None)
        self.settings = settings
        self.redact = redact  # the caller's, built once for its run from the run's secrets
        self.judge_off_reason = judge_off_reason  # why the judge is off, when the caller knows
        self.launcher = launcher  # extraction workers started early, for the fetch stage
        # Before any fetch: no key / unknown model stops the run here.
        self.judge_config: JudgeConfig | None = None
        if settings.judge != JUDGE_NONE:
            # Imported only by runs that judge: its models and price table cost a run
            # without a judge ~40 ms of start-up, before its first request.
            from citecheck.judge.resolve import resolve_judge

            self.judge_config = resolve_judge(settings, environ)
        self.errors: list[FileError] = []
        self.notes: list[str] = []
        self.cache = self._open_cache(environ)
        self._judge: Judge | None = None

    def _open_cache(self, environ: Mapping[str, str]) -> DiskCache | None:
        """The cache folder, signed and checked with the run's secret (`citecheck.cache`,
        "Origin"), which the entry point puts in `environ`; without one, no cache is used: an
        entry whose origin cannot be checked is not to be trusted."""
        settings = self.settings
        if settings.cache_dir is None:
            return None
        secret = environ.get(CACHE_SECRET_ENV, "").strip()
        if not secret:
            self.notes.append(
                f"cache-dir not used: no secret to sign and check its entries with (set {CACHE_SECRET_ENV})"
            )
            return None
        return DiskCache(settings.cache_dir, secret, ttl_s=settings.cache_ttl_s)

    def judge(self) -> Judge:
        """The run's judge (needs `judge_config`), made when first needed: by the screen, or
        by the first page that has claims for it. One per run: one cost cap, one pacing."""
        from citecheck.judge.core import Judge

        assert self.judge_config is not None
        if self._judge is None:
            progress = self.progress
            redact = self.redact

            def message(text: str) -> None:
                # Batch mode's lines quote the provider's batch id and status: its text.
                progress.message(redact(text))

            self._judge = Judge(
                self.judge_config,
                self.settings,
                self.cache,
                redact=redact,
                deadline_at=self.deadline_at,
                progress=message if progress.on else None,
                on_calls=self._tally if progress.on else None,
            )
        return self._judge

    def _tally(self) -> None:
        """The judge's counts to the run's progress."""
        judge = self._judge
        if judge is not None:
            self.progress.update(
                judge_calls=judge.calls_settled,
                judge_calls_total=judge.calls_planned,
                cost_usd=judge.total_cost_usd,
            )

    async def aclose(self) -> None:
        if self._judge is not None:
            await self._judge.aclose()

    async def screen(self, claims: list[Claim]) -> Screened:
        """The screen stage (`citecheck.screen`): the claims that go on, those set aside, and
        what the screen cost; its notes go to the run's."""
        from citecheck.screen import Screened, screen

        if self.judge_config is None:
            self.notes.append("screen: off, it needs the LLM judge, which is off in this run")
            return Screened(kept=claims, dismissed=[], notes=[])
        screened = await screen(claims, self.judge(), self.cache)
        self.notes.extend(screened.notes)
        return screened

    def judge_done(self) -> None:
        """The judge's notes (pacing, deadline) to the report; the run's exit-2 error when every
        judge call failed, the screen's included."""
        if self._judge is None:
            return
        self.notes.extend(self._judge.notes())
        failure = self._judge.failure_error()
        if failure is not None:
            raise failure

    def extract(self, files: list[SelectedFile]) -> list[Claim]:
        from citecheck.extract.document import extract_file

        claims: list[Claim] = []
        progress = self.progress
        progress.start(Stage.extract, files=len(files))
        for f in files:
            doc = extract_file(
                Path(f.path),
                display=f.display,
                max_bytes=self.settings.max_file_bytes,
                budget_s=self.settings.extract_budget_s,
            )
            self.errors.extend(doc.errors)
            found = len(claims)
            claims.extend(c for c in doc.claims if _in_ranges(c.line, f.line_ranges))
            progress.add(files_read=1, claims=len(claims) - found)
        self.resolve_internal(claims, files)
        progress.finish(Stage.extract)
        return claims

    def resolve_internal(self, claims: list[Claim], files: list[SelectedFile]) -> None:
        """Internal links followed to the checkout's files or the site (`citecheck.fetch.site`);
        the files become the run's local pages."""
        if not any(c.kind == CitationKind.internal for claim in claims for c in claim.citations) and not (
            self.settings.site_url and self.root is not None
        ):
            return
        from citecheck.fetch.local import LocalPages
        from citecheck.fetch.site import Checkout, resolve_internal

        settings = self.settings
        checkout = Checkout(self.root, tuple(settings.site_root), settings.site_url)
        resolve_internal(claims, files, checkout, settings.max_source_bytes)
        keys = frozenset(c.path for claim in claims for c in claim.citations if c.path and not c.url)
        if keys and self.root is not None:
            self.local = LocalPages(self.root, keys)

    async def verify(self, claims: list[Claim]) -> list[ClaimResult]:
        from citecheck import checks
        from citecheck.fetch.fetcher import FetchTally, page_key

        progress = self.progress
        progress.start(Stage.fetch)
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
        cited_at: dict[str, list[tuple[int, int, Citation]]] = {}  # URL → (claim, position, citation)
        for i in to_check:
            for pos, c in enumerate(claims[i].citations):
                if policy.checkable(c):
                    citing.setdefault(c.target or "", []).append(claims[i])
                    cited_at.setdefault(c.target or "", []).append((i, pos, c))
        urls_of: dict[str, list[str]] = {}  # fetch key → the URLs (or checkout pages) as cited
        for url in citing:
            urls_of.setdefault(page_key(url, self.local), []).append(url)
        # Each claim's verdict per source, under a key that orders them the same way whatever
        # order the pages arrive in: those decided without the judge, then the judge's, each in
        # citation order (`policy.pick` takes the first of equals).
        per_claim: dict[int, list[tuple[tuple[int, int], ClaimResult]]] = {i: [] for i in to_check}
        judging = _Judging(self, per_claim) if self.judge_config is not None else None
        handed: set[str] = set()
        fetched_info: dict[tuple[int, int], SourceInfo] = {}  # (claim, citation position) → its source

        def page_ready(key: str, source: FetchedSource, prepared: CheckedPage | None) -> None:
            """One fetched page: its claims decided by the fetch or the checks, the rest to the judge.
            Each page is parsed once and shared by every claim that cites it (the fetch stage's
            worker processes have checked most claims against their pages already)."""
            handed.add(key)
            page = None
            if source.outcome == FetchOutcome.ok:
                made = {key: prepared} if prepared is not None else {}
                page = checks.checked_pages({key: source}, made)[key]
            for url in urls_of.get(key, []):
                pending: list[_Pending] = []
                for i, pos, cit in cited_at[url]:
                    fetched_info[(i, pos)] = source.info
                    decided = policy.fetch_verdict(claims[i], url, source)
                    results: list[CheckResult] = []
                    if decided is None:
                        assert page is not None
                        results = checks.claim_results(claims[i], cit, page)
                        decided = policy.checks_verdict(
                            claims[i],
                            url,
                            results,
                            decide_alone=checks.DECIDE_ALONE,
                            judge_on=self.judge_config is not None,
                            judge_off_reason=self.judge_off_reason,
                        )
                    if decided is not None:
                        per_claim[i].append(((0, pos), decided))
                    else:
                        pending.append(_Pending(i, pos, claims[i], results, cit))
                if pending:
                    assert judging is not None and page is not None
                    judging.add(url, source, page, pending)

        async def on_page(key: str, source: FetchedSource, prepared: CheckedPage | None) -> None:
            page_ready(key, source, prepared)
            progress.add(sources_fetched=1)

        # One call at a time, the judge starts on each page as it arrives, while the others
        # still download; in batch mode (one batch for the run) and without a judge, the pages
        # are taken once all are in, and a listener hears of them from the fetch stage's tally,
        # read by the heartbeat: the fetch tasks then run as they do without a listener.
        streaming = judging is not None and not judging.batch
        tally = FetchTally() if progress.on and not streaming else None
        if self.settings.fetch and progress.on:
            progress.update(
                sources=len({page_key(u, self.local) for u in citing if u})
            )  # as fetch_all counts
        heartbeat = None
        if progress.on:
            poll = (lambda: {"sources_fetched": tally.done}) if tally is not None else None
            heartbeat = asyncio.create_task(progress.beat(poll=poll))
        try:
            fetched = await self._fetch(citing, on_page=on_page if streaming else None, tally=tally)
            for url in sorted(citing):
                key = page_key(url, self.local)
                if key not in handed:
                    page_ready(key, fetched.sources[url], fetched.prepared.get(url))
            if tally is not None:
                progress.finish(Stage.fetch, sources_fetched=tally.done)
            else:
                progress.finish(Stage.fetch)
            if judging is not None:
                progress.start(Stage.judge)
                await judging.finish()
                progress.finish(Stage.judge)
        finally:
            if heartbeat is not None:
                heartbeat.cancel()
            if judging is not None:
                await judging.aclose()
        out.update(_assemble(claims, to_check, per_claim, fetched_info))
        return [out[i] for i in sorted(out)]

    async def _fetch(
        self,
        citing: dict[str, list[Claim]],
        *,
        on_page: OnPage[CheckedPage] | None = None,
        tally: FetchTally | None = None,
    ) -> FetchResult[CheckedPage]:
        from citecheck.checks import preparers
        from citecheck.fetch.archive import archive_notes
        from citecheck.fetch.fetcher import FetchResult, fetch_all, page_key

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
            by_page.setdefault(page_key(url, self.local), []).extend(cited)
        # fetch_all starts (and stops) its extraction workers itself when the run is large
        # enough, from the launcher started early if there is one (and discards it if not).
        launcher, self.launcher = self.launcher, None
        fetched = await fetch_all(
            wanted,
            self.settings,
            cache=self.cache,
            prepare=preparers(by_page),
            launcher=launcher,
            on_page=on_page,
            tally=tally,
            local=self.local,
        )
        self.notes.extend(archive_notes(self.settings, fetched.sources.values()))
        return fetched


def _assemble(
    claims: list[Claim],
    to_check: list[int],
    per_claim: dict[int, list[tuple[tuple[int, int], ClaimResult]]],
    fetched: dict[tuple[int, int], SourceInfo],
) -> dict[int, ClaimResult]:
    """One verdict per checked claim (`policy.pick`), each showing its claim's citations with
    the sources known when it was given, as one pass in claim and citation order sees them
    (citations may be shared by claims; the judge's verdicts come after the pass): the same
    whatever order the pages arrived in."""
    decided = {(i, pos): r for i in to_check for (by, pos), r in per_claim[i] if by == 0}
    for i in to_check:
        for pos, cit in enumerate(claims[i].citations):
            if (info := fetched.get((i, pos))) is not None:
                cit.source = info
                if (i, pos) in decided:
                    decided[(i, pos)] = _with_citations(decided[(i, pos)], claims[i])
    out: dict[int, ClaimResult] = {}
    for i in to_check:
        ranked = [
            decided[(i, pos)] if by == 0 else _with_citations(r, claims[i])
            for (by, pos), r in sorted(per_claim[i], key=lambda kr: kr[0])
        ]
        out[i] = policy.pick(ranked)
    return out


def _with_citations(result: ClaimResult, claim: Claim) -> ClaimResult:
    """The verdict with its claim's citations as they are now."""
    return result.model_copy(update={"citations": [_copy_citation(c) for c in claim.citations]})


def _copy_citation(citation: Citation) -> Citation:
    """A deep copy of a citation: its fields are scalars but `source`, whose are all scalars.
    `model_copy(deep=True)` (copy.deepcopy) took 45 ms per 1,000 citations, this 12 ms."""
    copied = citation.model_copy()
    if citation.source is not None:
        copied.source = citation.source.model_copy()
    return copied


class _Pending(NamedTuple):
    """A claim's citation of a page that the judge decides."""

    index: int  # the claim's, in the run
    position: int  # the citation's, in the claim
    claim: Claim
    checks: list[CheckResult]
    citation: Citation


class _Judging:
    """The judge stage of one run: the sources handed to it (`add`), judged at once one call
    at a time (each source in a task of its own, while other pages still download) or all
    together in batch mode (`finish`), their verdicts put with the claims' others."""

    def __init__(self, run: _Run, per_claim: dict[int, list[tuple[tuple[int, int], ClaimResult]]]) -> None:
        self.run = run
        self.per_claim = per_claim
        self.judge = run.judge()
        self.batch = self.judge.batch_mode
        self._tasks: list[asyncio.Task[None]] = []
        self._queued: list[tuple[str, FetchedSource, list[JudgeItem], list[_Pending]]] = []

    def _items(self, source: FetchedSource, page: CheckedPage, pending: list[_Pending]) -> list[JudgeItem]:
        from citecheck.checks import judge_hints
        from citecheck.checks.passages import select_evidence
        from citecheck.judge.core import JudgeItem

        # Each claim goes with what its checks did not find on the page, as a hint.
        return [
            JudgeItem(
                p.claim,
                select_evidence(
                    p.claim.text,
                    source.text,
                    budget_chars=self.run.settings.evidence_chars,
                    text_fragment=p.citation.text_fragment,
                    page=page.index,
                ),
                judge_hints(p.checks),
            )
            for p in pending
        ]

    def _record(self, url: str, pending: list[_Pending], verdicts: list[JudgeResult]) -> None:
        for p, judged in zip(pending, verdicts, strict=True):
            self.per_claim[p.index].append(
                ((1, p.position), policy.judge_verdict(p.claim, url, p.checks, judged))
            )

    def add(self, url: str, source: FetchedSource, page: CheckedPage, pending: list[_Pending]) -> None:
        if self.batch:
            self._queued.append((url, source, self._items(source, page, pending), pending))
            return

        async def one_source() -> None:
            verdicts = await self.judge.judge_source(source, self._items(source, page, pending))
            self._record(url, pending, verdicts)

        # The judge bounds its own concurrency (citecheck.judge.pacing); sources are judged
        # side by side.
        self._tasks.append(asyncio.create_task(one_source()))

    async def finish(self) -> None:
        if self._queued:
            judged = await self.judge.judge_sources([(source, items) for _, source, items, _ in self._queued])
            for (url, _, _, pending), verdicts in zip(self._queued, judged, strict=True):
                self._record(url, pending, verdicts)
        await asyncio.gather(*self._tasks)

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()  # done ones are unaffected; the rest: the run failed
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def check_async(
    settings: Settings,
    files: list[SelectedFile],
    *,
    environ: Mapping[str, str],
    redact: Redactor,
    judge_off_reason: str = "",
    progress: ProgressListener | None = None,
    root: Path | None = None,
) -> Report:
    """The run (see `check`), for a caller with its own event loop."""
    return await _check_async(
        settings, files, environ, redact, judge_off_reason, launcher=None, progress=progress, root=root
    )


async def _check_async(
    settings: Settings,
    files: list[SelectedFile],
    environ: Mapping[str, str],
    redact: Redactor,
    judge_off_reason: str,
    launcher: WorkerLauncher | None,
    progress: ProgressListener | None = None,
    root: Path | None = None,
) -> Report:
    """The run; `launcher`, if given, goes to the fetch stage (the caller discards it if the
    run ends before)."""
    from citecheck.output.report import build_report

    run = _Run(settings, environ, redact, launcher, judge_off_reason, Progress(progress), root)
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
    screened: Screened | None = None
    try:
        if settings.screen:
            screened = await run.screen(claims)
            claims = screened.kept
        results = await run.verify(claims)
        run.judge_done()
    finally:
        await run.aclose()
    dismissed = screened.dismissed if screened is not None else []
    run.progress.start(Stage.report)
    # Each claim a check contradicted with the page's words gets its fix, once, for every face.
    from citecheck.checks.fix import with_suggestions

    results = with_suggestions(results, files, settings.max_file_bytes)
    if run.cache is not None and (rejected := run.cache.rejected_note()):
        run.notes.append(rejected)
    report = build_report(
        results,
        settings=settings,
        errors=run.errors,
        notes=run.notes,
        total_citations_found=sum(len(c.citations) for c in (*claims, *dismissed)),
        dismissed=dismissed,
        screen_cost_usd=screened.cost_usd if screened is not None else 0.0,
        judge_model=run.judge_config.model if run.judge_config else None,
        links_excluded=links_excluded,
    ).model_copy(update={"version": __version__})
    # Once, before any face makes anything of it: what the judge wrote (an echoed key in a
    # rationale), a provider's error in a reason, a cited URL's credentials.
    report = redact.model(report)
    run.progress.finish(Stage.report)
    return report


def check(
    settings: Settings,
    files: list[SelectedFile],
    *,
    environ: Mapping[str, str],
    redact: Redactor,
    judge_off_reason: str = "",
    progress: ProgressListener | None = None,
    root: Path | None = None,
) -> Report:
    """One run over `files`, its report redacted by `redact` (the run's: `citecheck.redact`,
    built from its secrets by `citecheck.judge.providers.run_redactor`). `judge_off_reason`
    replaces the default reason of the claims that needed the judge when the caller turned it
    off (the Action, without a key).
    `progress` hears of each stage and of the run's counts as they move
    (`citecheck.progress`), batch mode's polls included; it is called in this thread.
    `root`: the checkout the files are in, where their internal links are followed to its files
    (`citecheck.fetch.site`; None: to the site only, when `site-url` names it)."""
    reports: list[Report] = []
    # Started before anything else, the stages' imports included: the worker's imports
    # overlap them and the claims' extraction. This run ends it either way.
    launcher = launch_workers_early(settings, files, preload=_WORKER_PRELOAD)

    async def run() -> None:
        reports.append(
            await _check_async(settings, files, environ, redact, judge_off_reason, launcher, progress, root)
        )

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
