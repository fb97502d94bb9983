"""Claims and reports for the output-stage tests (assembly and every format)."""

from __future__ import annotations

from citecheck.config import Settings
from citecheck.models import (
    Cause,
    Citation,
    CitationKind,
    ClaimKind,
    ClaimResult,
    DecidedBy,
    JudgeResult,
    Report,
    ResolveStatus,
    SourceInfo,
    Verdict,
)
from citecheck.output.report import build_report
from citecheck.policy import DEFAULT_FAIL_ON


def cite(url: str | None, *, raw: str | None = None, status: ResolveStatus = ResolveStatus.ok) -> Citation:
    return Citation(
        raw=raw or url or "[?]",
        kind=CitationKind.link if url else CitationKind.numbered,
        url=url,
        resolve_status=status,
        resolve_error=None if status == ResolveStatus.ok else "reference not in the list",
        source=SourceInfo(url=url, final_url=url, status=200, content_type="text/html") if url else None,
    )


def claim(
    verdict: Verdict,
    text: str = "The library handles 14 million requests a day.",
    *,
    file: str = "docs/guide.md",
    line: int = 12,
    url: str | None = "https://example.com/stats",
    reason: str | None = None,
    evidence: str | None = None,
    judge: JudgeResult | None = None,
    limit: bool = False,
    citations: list[Citation] | None = None,
    cause: Cause | None = None,
) -> ClaimResult:
    if citations is None:
        citations = [] if verdict == Verdict.unsourced else [cite(url)]
    return ClaimResult(
        text=text,
        kinds=[ClaimKind.statistic, ClaimKind.hyperlinked],
        file=file,
        line=line,
        column=3,
        citations=citations,
        verdict=verdict,
        reason=reason,
        decided_by=DecidedBy.judge if judge else DecidedBy.number,
        source_url=url if verdict != Verdict.unsourced else None,
        evidence=evidence,
        judge=judge,
        limit=limit,
        cause=cause,
    )


def judged(cost: float, *, cached: bool = False, supported: bool = True) -> JudgeResult:
    return JudgeResult(
        model="claude-haiku-4-5",
        supported=supported,
        confidence=0.9,
        rationale="The page gives the figure.",
        evidence="14 million requests per day",
        input_tokens=1200,
        output_tokens=80,
        cost_usd=cost,
        latency_ms=900,
        cached=cached,
    )


def mixed_claims() -> list[ClaimResult]:
    return [
        claim(Verdict.pass_, evidence="handles 14 million requests each day", line=3),
        claim(Verdict.pass_, judge=judged(0.002), line=5, file="docs/b.md"),
        claim(Verdict.pass_, judge=judged(0.003, cached=True), line=9, file="docs/b.md"),
        claim(Verdict.fail, reason="the page says 12 million, not 14 million", judge=judged(0.001), line=20),
        claim(Verdict.unreachable, reason="HTTP 404", url="https://example.com/gone", line=30),
        claim(Verdict.not_extractable, reason="image/png", url="https://example.com/chart.png", line=31),
        claim(
            Verdict.disallowed,
            reason="evil.example is outside the allowlist",
            url="https://evil.example/",
            line=32,
        ),
        claim(Verdict.not_verified, reason="cost cap reached", limit=True, line=33),
        claim(Verdict.not_verified, reason="judge disabled (--judge none)", line=34),
        claim(Verdict.unsourced, "Most teams ship twice as fast with it.", line=40, url=None),
        claim(
            Verdict.not_verified,
            reason="reference [7] not found",
            url=None,
            citations=[cite(None, raw="[7]", status=ResolveStatus.error)],
            line=41,
        ),
    ]


def report_of(claims: list[ClaimResult], fail_on: list[str] | None = None, **kw) -> Report:
    settings = Settings(fail_on=fail_on if fail_on is not None else list(DEFAULT_FAIL_ON))
    return build_report(claims, settings=settings, **kw)


def many_claims(n: int) -> list[ClaimResult]:
    out = []
    for i in range(n):
        verdict = [Verdict.pass_, Verdict.fail, Verdict.unsourced, Verdict.unreachable][i % 4]
        out.append(
            claim(
                verdict,
                text=f"Claim number {i} says that the service handled {i} million requests " + "x" * 150,
                file=f"docs/f{i % 7}.md",
                line=i + 1,
                url=None if verdict == Verdict.unsourced else f"https://example.com/p/{i}",
                reason="the page gives another figure " + "y" * 100,
                evidence="evidence " + "z" * 150,
            )
        )
    return out
