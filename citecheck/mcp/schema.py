"""The MCP tools' inputs and outputs, and the JSON error document (docs/ARCHITECTURE.md, the
entry points; the README, "For writers and agents").

These models are the tools' published `inputSchema` / `outputSchema`, so their field names are
a public contract, like `citecheck.models`: an agent's code reads them. The input limits are
the ceilings the server accepts from a caller (`max_citations` at most 50, a source's bytes at
most the CLI's default, its time at most a minute).

The error document is shared with the CLI's `--format json` errors:
`{"error": {"code": ..., "message": ..., "recovery": [...]}}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citecheck.models import CitationKind, Claim, ClaimResult, FileError, JudgeResult, Reference, SourceInfo

MAX_CITATIONS = 50  # the most citations one call may verify
DEFAULT_MAX_CITATIONS = 20
DEFAULT_DRAFT_NAME = "draft.md"
MAX_SOURCE_BYTES = 5 * 1024 * 1024  # per source, decoded: the CLI's default is the ceiling
MAX_SOURCE_TIMEOUT_MS = 60_000


class ErrorBody(BaseModel):
    code: str  # stable: the README's table lists every code
    message: str
    recovery: list[str] = Field(default_factory=list)  # what to do, one step an item


class ErrorDocument(BaseModel):
    error: ErrorBody


def error_document(code: str, message: str, recovery: Sequence[str]) -> dict[str, Any]:
    """The JSON error document, as a dict ready for `json.dumps`."""
    return ErrorDocument(error=ErrorBody(code=code, message=message, recovery=list(recovery))).model_dump()


class _Input(BaseModel):
    # An agent's typo (`max_citation`) must be an error, not a silently ignored setting.
    model_config = ConfigDict(extra="forbid")

    output: str = Field(description="the draft: Markdown text, with its links, footnotes and references")
    file_name: str = Field(
        default=DEFAULT_DRAFT_NAME,
        min_length=1,
        max_length=200,
        description="the draft's file name in the report (a name ending in .mdx is read as MDX)",
    )


class ExtractInput(_Input):
    """`extract_claims`: no network, no judge, no cost."""


class VerifyInput(_Input):
    """`verify_citations`."""

    model: str | None = Field(
        default=None,
        description="the judge model, e.g. claude-sonnet-4-6 or gpt-4o-mini (default: the provider's); "
        "it must be in citecheck's price table, so the cost cap holds",
    )
    provider: str = Field(
        default="auto",
        description="the judge: auto (the model's provider, else whichever API key the server has), "
        "anthropic, openai, openai-compatible (needs CITECHECK_BASE_URL), or none (only the "
        "number, quote and date checks; no key, no cost)",
    )
    allow_fetch: bool | None = Field(
        default=None,
        description="fetch the cited sources (default: off, unless the server runs with "
        "CITECHECK_ALLOW_FETCH=1); with fetching off every citation is skipped and passed is null",
    )
    max_citations: int = Field(
        default=DEFAULT_MAX_CITATIONS,
        ge=0,
        le=MAX_CITATIONS,
        description="verify the citations of the first claims up to this many citations; the claims "
        "after them are skipped, not errors",
    )
    domain_allowlist: list[str] = Field(
        default_factory=list,
        description="fetch only these domains and their subdomains (empty: any public host); private "
        "and loopback addresses are refused whatever this says",
    )
    max_cost_usd_total: float = Field(
        default=1.00, ge=0, description="hard cap on the judge's spend for this call, in US dollars"
    )
    per_source_max_bytes: int = Field(
        default=MAX_SOURCE_BYTES, gt=0, le=MAX_SOURCE_BYTES, description="bytes read from one source at most"
    )
    per_source_timeout_ms: int = Field(
        default=10_000, gt=0, le=MAX_SOURCE_TIMEOUT_MS, description="time for one source, redirects included"
    )
    fail_on: list[str] | None = Field(
        default=None,
        description="the categories that make passed false (citecheck's fail-on list; default: "
        "unsupported, unreachable, blocked, not-extractable, disallowed, judge-error, unsure)",
    )


class CitationOutcome(BaseModel):
    """One citation of the draft: was its source resolved, and what the judge said of it."""

    claim: int  # index in `claims`
    raw: str
    kind: CitationKind
    identifier: str | None = None
    url: str | None = None
    path: str | None = None  # an internal link's file of the checkout (CITECHECK_ROOT), with its anchor
    # ok: the source was fetched; skipped: not attempted (fetching off, past max_citations, a
    # citecheck-ignore marker); error: the citation did not resolve, or the source could not be read.
    resolve_status: Literal["ok", "skipped", "error"]
    reason: str | None = None  # why skipped, or the error
    source: SourceInfo | None = None
    verdict: str | None = None  # the claim's verdict, when it rests on this citation's source
    judge: JudgeResult | None = None  # the judge's answer, when the verdict rests on this source


class VerifyOutput(BaseModel):
    """`verify_citations`: the reference interface's fields first, then citecheck's own."""

    id: str  # read it back as citecheck://evaluations/{id}
    passed: bool | None  # null when nothing was verified: never true by default
    overall_score: float | None  # supported / judged claims; null when nothing was judged
    total_citations: int
    total_resolved: int
    total_skipped: int
    total_errors: int
    total_claims: int
    total_judged: int
    total_supported: int
    total_unsupported: int
    total_unsourced: int
    total_not_verified: int
    total_cost_usd: float
    max_cost_usd_total: float
    fetch: bool  # whether sources were fetched
    model: str | None  # the judge model, null with provider none
    citations: list[CitationOutcome]
    claims: list[ClaimResult]  # citecheck's verdict per claim (see the JSON report in the README)
    failing: list[str]  # the fail-on categories that were hit
    notes: list[str]
    errors: list[FileError]
    report_markdown: str  # the Verification Report
    created_at: str  # ISO 8601, UTC
    version: str


class ExtractOutput(BaseModel):
    """`extract_claims`."""

    file: str
    total_claims: int
    total_citations: int
    total_resolved: int  # citations resolved to a URL
    total_unsourced: int  # claims stating a fact with no citation
    claims: list[Claim]
    references: list[Reference]
    errors: list[FileError]


__all__ = [
    "CitationOutcome",
    "ErrorBody",
    "ErrorDocument",
    "ExtractInput",
    "ExtractOutput",
    "VerifyInput",
    "VerifyOutput",
    "error_document",
]
