"""The MCP tools, free of the SDK: arguments in, a result document out, or a `ToolError`
(README, "For writers and agents").

`verify_citations` builds `Settings` from its arguments and the server's environment and runs
`citecheck.pipeline.check_async` on the draft, exactly as `citecheck check -` does: the same
SSRF guard, allowlist, byte and time caps, cost ledger and verdict policy; only these differ:

- fetching is off unless the call says `allow_fetch` or the server runs with
  `CITECHECK_ALLOW_FETCH=1`; with it off, every citation is `skipped` and `passed` is null;
- `max_citations` bounds the work: the claims are checked in document order while their
  citations fit, the rest are reported as skipped (the pipeline's claim limit, `max_claims`,
  set to the claims that fit);
- `limit` is not a fail-on category by default: a claim that the caller's own budget (the
  citation limit, the cost cap) left unchecked is skipped, not a failure. The rest of the
  CLI's default fail-on list applies, so `passed` is true only when a claim was verified and
  nothing failed; every judge call failing is the JUDGE_FAILED error, never a pass.

Keys, a base URL and the hosts admitted past the SSRF guard come from the server's
environment only, never from a call: a prompt-injected agent cannot point the judge or the
fetcher somewhere else.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from citecheck import __version__, policy
from citecheck.cache import CACHE_SECRET_ENV, SECRET_FILE, cache_secret
from citecheck.config import Settings
from citecheck.draft import draft_file
from citecheck.errors import CitecheckError
from citecheck.extract.document import extract_file
from citecheck.fetch.site import Checkout, resolve_internal
from citecheck.mcp.errors import EVALUATION_NOT_FOUND, INVALID_INPUT, STORE_FAILED, ToolError
from citecheck.mcp.schema import (
    CitationOutcome,
    ExtractInput,
    ExtractOutput,
    VerifyInput,
    VerifyOutput,
)
from citecheck.mcp.store import SOURCES, EvaluationStore, cache_home
from citecheck.models import (
    Citation,
    Claim,
    ClaimResult,
    DecidedBy,
    ExtractedDocument,
    Report,
    ResolveStatus,
    SelectedFile,
    SourceInfo,
    Verdict,
)
from citecheck.output import FORMATS
from citecheck.redact import Redactor

ALLOW_FETCH_ENV = "CITECHECK_ALLOW_FETCH"
BASE_URL_ENV = "CITECHECK_BASE_URL"
PRIVATE_HOSTS_ENV = "CITECHECK_ALLOW_PRIVATE_HOSTS"
# Internal links (`citecheck.fetch.site`): the checkout the drafts belong to (a draft's
# `file_name` is its place in it), and its site; from the environment only, so a call cannot
# have the server read files elsewhere.
ROOT_ENV = "CITECHECK_ROOT"
SITE_ROOT_ENV = "CITECHECK_SITE_ROOT"
SITE_URL_ENV = "CITECHECK_SITE_URL"
# The CLI's default fail-on list without `limit` (see the module's docstring).
MCP_FAIL_ON = [c for c in policy.DEFAULT_FAIL_ON if c != "limit"]

_STORE_STEP = "make that folder writable, or set CITECHECK_CACHE_HOME to a writable one in the server's env"
_TRUE = frozenset({"1", "true", "yes", "on"})
_M = TypeVar("_M", bound=BaseModel)


@dataclass(frozen=True)
class ServerEnvironment:
    """What the server takes from its environment, once, at start."""

    environ: Mapping[str, str]  # where the judge finds its API key
    allow_fetch: bool  # CITECHECK_ALLOW_FETCH: the default of `allow_fetch`
    base_url: str | None  # CITECHECK_BASE_URL: the judge's API (openai-compatible servers, proxies)
    private_hosts: list[str]  # CITECHECK_ALLOW_PRIVATE_HOSTS: admitted past the SSRF guard
    home: Path  # the evaluations and the source cache
    root: Path | None  # CITECHECK_ROOT: the checkout the drafts' internal links are followed in
    site_root: str  # CITECHECK_SITE_ROOT: as `site-root`
    site_url: str | None  # CITECHECK_SITE_URL: as `site-url`
    # The server's one redactor, from the secrets of this environment: every result, stored
    # evaluation, error and line on standard error.
    redact: Redactor

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], redact: Redactor) -> ServerEnvironment:
        environ = dict(environ)
        hosts = environ.get(PRIVATE_HOSTS_ENV, "").replace(",", " ").split()
        return cls(
            environ=environ,
            allow_fetch=environ.get(ALLOW_FETCH_ENV, "").strip().lower() in _TRUE,
            base_url=environ.get(BASE_URL_ENV, "").strip() or None,
            private_hosts=hosts,
            home=cache_home(environ),
            root=Path(root).resolve() if (root := environ.get(ROOT_ENV, "").strip()) else None,
            site_root=environ.get(SITE_ROOT_ENV, "").strip(),
            site_url=environ.get(SITE_URL_ENV, "").strip() or None,
            redact=redact,
        )


def _arguments(model: type[_M], arguments: Mapping[str, Any]) -> _M:
    try:
        return model.model_validate(dict(arguments))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ToolError(
            INVALID_INPUT,
            f"invalid arguments: {problems}",
            ["fix the arguments: the tool's inputSchema lists each one with its limits"],
        ) from None


def _draft_bytes(text: str) -> bytes:
    # A lone surrogate (valid in JSON) becomes bytes that are not UTF-8: the draft is then read
    # with replacement characters and a warning, as a file with a bad byte would be.
    return text.encode("utf-8", "surrogatepass")


def _fatal(doc: ExtractedDocument) -> None:
    fatal = [e.message for e in doc.errors if e.fatal]
    if fatal:
        raise ToolError(INVALID_INPUT, f"the draft cannot be read: {'; '.join(fatal)}", ["send Markdown"])


def claims_within(claims: Sequence[Claim], max_citations: int) -> int:
    """How many claims the run may check for their citations to stay within `max_citations`:
    the pipeline checks the claims `policy.triage` sends to checking, in document order, up to
    `max_claims` of them; each costs its checkable citations."""
    budget, fit = max_citations, 0
    for claim in claims:
        if policy.triage(claim, over_limit=False) is not policy.Triage.check:
            continue
        cost = sum(1 for c in claim.citations if policy.checkable(c))
        if cost > budget:
            break
        budget -= cost
        fit += 1
    return fit


def _past_limit(claim: ClaimResult) -> bool:
    return claim.limit and claim.reason == policy.CLAIM_LIMIT_REASON


def _status(
    claim: ClaimResult,
    cit: Citation,
    fetched: bool,
    failed: Mapping[str, str],
    known: Mapping[str, SourceInfo],
) -> tuple[str, str | None]:
    if cit.resolve_status == ResolveStatus.skipped:
        return "skipped", cit.resolve_error or "marked citecheck-ignore"
    target = cit.target
    if cit.resolve_status == ResolveStatus.error or not target:
        return "error", cit.resolve_error or "the citation does not resolve to a URL"
    if _past_limit(claim):
        return "skipped", "past max_citations"
    if not fetched:
        return "skipped", "fetching is off"
    if target in failed:
        return "error", failed[target]
    if target in known:
        return "ok", None
    # The report keeps the source of the citation a claim's verdict rests on; a claim's other
    # sources are only known when another claim rests on them too.
    return "skipped", "another citation of the claim decided it"


def citation_outcomes(report: Report, fetched: bool) -> list[CitationOutcome]:
    """Every citation of the report's claims, in order, with what became of its source."""
    known: dict[str, SourceInfo] = {}
    failed: dict[str, str] = {}
    for claim in report.claims:
        for cit in claim.citations:
            if cit.target and cit.source is not None:
                known.setdefault(cit.target, cit.source)
        if claim.decided_by == DecidedBy.fetch and claim.source_url and claim.verdict != Verdict.not_verified:
            failed[claim.source_url] = claim.reason or claim.verdict.value
    out: list[CitationOutcome] = []
    for i, claim in enumerate(report.claims):
        for cit in claim.citations:
            status, reason = _status(claim, cit, fetched, failed, known)
            target = cit.target
            decides = bool(target) and target == claim.source_url
            out.append(
                CitationOutcome(
                    claim=i,
                    raw=cit.raw,
                    kind=cit.kind,
                    identifier=cit.identifier,
                    url=cit.url,
                    path=cit.path,
                    resolve_status=status,  # type: ignore[arg-type]
                    reason=reason,
                    source=known.get(target) if target and status != "skipped" else None,
                    verdict=claim.verdict.value if decides else None,
                    judge=claim.judge if decides else None,
                )
            )
    return out


class Tools:
    """The tools of one server: its environment and its store."""

    def __init__(self, env: ServerEnvironment) -> None:
        self.env = env
        self.store = EvaluationStore(env.home, env.redact)

    def _site(self, inp: VerifyInput) -> tuple[dict[str, Any], list[str]]:
        """The server's `site-root` and `site-url`, and a note when the call's allowlist leaves
        the site's host out (its pages are then not fetched)."""
        site: dict[str, Any] = {"site_root": self.env.site_root}
        url = self.env.site_url
        if url is None:
            return site, []
        try:
            Settings(site_url=url, allowed_domains=inp.domain_allowlist)
        except ValidationError:
            return site, [f"{SITE_URL_ENV} not used: its host is not in domain_allowlist"]
        return {**site, "site_url": url}, []

    def _settings(self, inp: VerifyInput, fetch: bool, max_claims: int) -> Settings:
        try:
            return Settings.model_validate(
                {
                    **self._site(inp)[0],
                    "judge": inp.provider,
                    "model": inp.model,
                    "base_url": self.env.base_url,
                    "allowed_domains": inp.domain_allowlist,
                    "allow_private_hosts": self.env.private_hosts,
                    "max_cost_usd": inp.max_cost_usd_total,
                    "max_claims": max_claims,
                    "fail_on": MCP_FAIL_ON if inp.fail_on is None else inp.fail_on,
                    "cache_dir": self.env.home / SOURCES,
                    "timeout_s": inp.per_source_timeout_ms / 1000,
                    "max_source_bytes": inp.per_source_max_bytes,
                    "fetch": fetch,
                }
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ToolError(
                INVALID_INPUT,
                f"invalid arguments: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}",
                ["fix the argument named in the message"],
            ) from None

    def _prepare_store(self) -> dict[str, str]:
        """The run's environment, with the cache's secret (`citecheck.cache`, "Origin"): kept
        beside the server's cache, outside it. Before anything is fetched or judged: a result
        that cannot be kept is not paid for."""
        secret_file = self.env.home / SECRET_FILE
        try:
            self.store.prepare()
            secret = cache_secret(self.env.environ, secret_file)
        except (OSError, sqlite3.Error) as exc:
            raise ToolError(
                STORE_FAILED,
                f"cannot keep evaluations in {self.store.path} or the cache's secret in {secret_file}: {exc}",
                [_STORE_STEP],
            ) from None
        return {**self.env.environ, CACHE_SECRET_ENV: secret} if secret else dict(self.env.environ)

    async def verify_citations(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        from citecheck.pipeline import check_async

        inp = _arguments(VerifyInput, arguments)
        fetch = self.env.allow_fetch if inp.allow_fetch is None else inp.allow_fetch
        environ = self._prepare_store()
        with draft_file(_draft_bytes(inp.output), inp.file_name) as draft:
            doc = extract_file(Path(draft.path), display=draft.display, max_bytes=Settings().max_file_bytes)
            _fatal(doc)
            root = self.env.root
            if root is not None:  # its internal links are followed as the file it names there
                draft = draft.model_copy(update={"place": draft.display})
            # the claims' internal links followed as the run will, to count what they cite
            site = Settings.model_validate(self._site(inp)[0])
            resolve_internal(
                doc.claims,
                [draft],
                Checkout(root, tuple(site.site_root), site.site_url),
                site.max_source_bytes,
            )
            settings = self._settings(inp, fetch, claims_within(doc.claims, inp.max_citations))
            try:
                report = await check_async(
                    settings, [draft], environ=environ, redact=self.env.redact, root=root
                )
            except CitecheckError as exc:
                raise ToolError.from_citecheck(exc) from None
        report = report.model_copy(update={"notes": [*report.notes, *self._site(inp)[1]]})
        return self._finish(inp, report, fetch, draft)

    def _finish(self, inp: VerifyInput, report: Report, fetch: bool, draft: SelectedFile) -> dict[str, Any]:
        notes = list(report.notes)
        skipped = sum(1 for c in report.claims if _past_limit(c))
        if skipped:
            notes.append(f"{skipped} claim(s) past max_citations={inp.max_citations} were skipped")
        if not fetch:
            notes.append(
                "fetching is off: call with allow_fetch=true (or start the server with "
                "CITECHECK_ALLOW_FETCH=1) to verify the citations"
            )
        report = report.model_copy(update={"notes": notes})
        citations = citation_outcomes(report, fetch)
        evaluation_id = uuid.uuid4().hex
        created_at = datetime.now(UTC).isoformat(timespec="microseconds")

        def count(status: str) -> int:
            return sum(1 for c in citations if c.resolve_status == status)

        result = VerifyOutput(
            id=evaluation_id,
            passed=report.passed,
            overall_score=report.overall_score,
            total_citations=len(citations),
            total_resolved=count("ok"),
            total_skipped=count("skipped"),
            total_errors=count("error"),
            total_claims=report.total_claims,
            total_judged=report.total_judged,
            total_supported=report.total_supported,
            total_unsupported=report.total_unsupported,
            total_unsourced=report.total_unsourced,
            total_not_verified=report.total_not_verified,
            total_cost_usd=report.total_cost_usd,
            max_cost_usd_total=inp.max_cost_usd_total,
            fetch=fetch,
            model=report.judge_model,
            citations=citations,
            claims=report.claims,
            failing=report.failing,
            notes=notes,
            errors=report.errors,
            report_markdown=FORMATS["markdown"].render(report, self.env.redact),
            created_at=created_at,
            version=__version__,
        ).model_dump(mode="json")
        summary = (
            f"{draft.display}: passed={result['passed']}, {report.total_supported}/{report.total_judged} "
            f"supported, {len(citations)} citation(s), ${report.total_cost_usd:.4f}"
        )
        try:
            self.store.save(evaluation_id, created_at, report.passed, summary, result)
        except (OSError, sqlite3.Error) as exc:
            raise ToolError(
                STORE_FAILED,
                f"the evaluation ran but cannot be kept in {self.store.path}: {exc}",
                [_STORE_STEP],
            ) from None
        return result

    def extract_claims(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        inp = _arguments(ExtractInput, arguments)
        with draft_file(_draft_bytes(inp.output), inp.file_name) as draft:
            doc = extract_file(Path(draft.path), display=draft.display, max_bytes=Settings().max_file_bytes)
        _fatal(doc)
        citations = [cit for c in doc.claims for cit in c.citations]
        return ExtractOutput(
            file=doc.file,
            total_claims=len(doc.claims),
            total_citations=len(citations),
            total_resolved=sum(1 for c in citations if policy.checkable(c)),
            total_unsourced=sum(1 for c in doc.claims if c.is_fact and not c.citations),
            claims=doc.claims,
            references=doc.references,
            errors=doc.errors,
        ).model_dump(mode="json")

    def evaluation(self, evaluation_id: str) -> dict[str, Any]:
        """A stored evaluation, as `verify_citations` returned it."""
        try:
            found = self.store.load(evaluation_id)
        except (OSError, sqlite3.Error, ValueError) as exc:
            raise ToolError(STORE_FAILED, f"cannot read {self.store.path}: {exc}") from None
        if found is None:
            raise ToolError(
                EVALUATION_NOT_FOUND,
                f"no evaluation {evaluation_id!r} in {self.store.path}",
                ["use an id that verify_citations returned (the resource list shows the latest ones)"],
            )
        return found
