"""Typed hand-offs between the pipeline stages and the JSON report (docs/ARCHITECTURE.md).

Every stage takes and returns these models, so the JSON report is simply the pydantic dump of
`Report`. Field names here are a public contract: scripts read them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, model_validator


class ClaimKind(StrEnum):
    statistic = "statistic"
    quote = "quote"
    temporal = "temporal"
    comparative = "comparative"
    hyperlinked = "hyperlinked"


class CitationKind(StrEnum):
    link = "link"  # inline link or autolink: [text](url), <url>
    reference = "reference"  # reference-style link: [text][id] / [id][]
    footnote = "footnote"  # [^1], URL(s) taken from the footnote body
    numbered = "numbered"  # [N], resolved against the reference list
    author_year = "author_year"  # (Author, Year) / Author (Year)
    bare_url = "bare_url"  # https://… in running text
    doi = "doi"  # doi:10.…, https://doi.org/10.…, bare 10.xxxx/…
    arxiv = "arxiv"  # arXiv:2301.01234, arXiv:hep-th/9901001, https://arxiv.org/abs/… → /abs/<id>
    pmid = "pmid"  # PMID: 12345678, pubmed.ncbi.nlm.nih.gov/12345678 → https://pubmed.ncbi.nlm.nih.gov/<id>/
    isbn = "isbn"  # ISBN 978-0-13-468599-1, @isbn:… → https://openlibrary.org/isbn/<ISBN>
    pandoc = (
        "pandoc"  # [@key] resolved through the document's bibliography or aliases; @url:, @pmc:, @wikidata:
    )
    role = "role"  # {cite}`key`, :cite:`key` (MyST, Sphinx, d2lbook) resolved through the project's BibTeX
    # A link to the project's own pages: a relative link (`../reference/config.md#timeout`), a site
    # path (`/rules/x`), an in-page anchor to anything but a reference entry; `identifier` holds the
    # target as written, and it resolves to a file of the checkout (`path`) or to the published
    # site (`url`): `citecheck.fetch.site`.
    internal = "internal"


class ResolveStatus(StrEnum):
    ok = "ok"
    skipped = "skipped"  # e.g. ignored by a marker or a `citecheck-ignore` link title
    error = "error"  # could not be resolved; `resolve_error` says why


class Verdict(StrEnum):
    pass_ = "pass"
    fail = "fail"  # the page does not support / contradicts the claim
    unreachable = "unreachable"
    not_extractable = "not_extractable"
    disallowed = "disallowed"
    not_verified = "not_verified"
    unsourced = "unsourced"


class Cause(StrEnum):
    """Why a claim was not verified, finer than its verdict: each is a fail-on category of its
    own (see citecheck.policy), so a team can fail on dead links but not on sites that refuse
    robots, or on a judge's errors but not on its doubts."""

    blocked = "blocked"  # verdict unreachable: the site refused us (401/403/429, a challenge page)
    judge_error = "judge-error"  # verdict not_verified: refusal, API error, malformed output
    # verdict not_verified: the judge abstained (low confidence, evidence not found or too weak,
    # a rationale that contradicts its verdict)
    unsure = "unsure"
    limit = "limit"  # verdict not_verified: the cost cap or the claim limit was reached
    # verdict not_verified: the judge read a claim with no cited fact kind (a link-only sentence)
    # as asserting nothing a source could support or contradict ("This is awesome.")
    no_fact = "no-fact"


class DecidedBy(StrEnum):
    number = "number"
    quote = "quote"
    date = "date"
    judge = "judge"
    fetch = "fetch"
    policy = "policy"


# Kinds that make a sentence worth checking on their own (a bare link is checkable only
# because it carries a citation).
FACT_KINDS: frozenset[ClaimKind] = frozenset(
    {ClaimKind.statistic, ClaimKind.quote, ClaimKind.temporal, ClaimKind.comparative}
)


class SelectedFile(BaseModel):
    """A Markdown file chosen by the select stage, with the lines whose claims count."""

    path: str  # where to read it (absolute, or relative to the working directory)
    display: str  # how reports name it (repository-relative, forward slashes)
    # 1-based inclusive line ranges whose claims are checked; None means the whole file.
    line_ranges: list[tuple[int, int]] | None = None
    # Where the file stands in the run's checkout (from its root, forward slashes) when that is not
    # where `path` is: a draft's (standard input, an MCP call), named by its caller. Its internal
    # links resolve from there.
    place: str | None = None


class FileError(BaseModel):
    """A problem with one input file; the run goes on for the others."""

    file: str
    line: int | None = None
    message: str
    fatal: bool = True  # False: a warning (e.g. invalid UTF-8 decoded with replacement)


class ArchivedCopy(BaseModel):
    """The Internet Archive's snapshot of a source that could not be fetched (`archive:
    wayback`, `citecheck.fetch.archive`): the link to cite instead."""

    url: str  # the snapshot as a reader opens it, e.g. https://web.archive.org/web/20230501…/https://…
    timestamp: str  # when the archive captured it, YYYYMMDDhhmmss (UTC), as the archive gives it
    link_error: str  # why the cited link itself was not read ("HTTP 404 Not Found")
    # `archive-check`: the claim was checked against this copy's text, and its verdict rests on it
    checked: bool = False

    @property
    def date(self) -> str:
        """The capture's day, e.g. "2023-05-01"."""
        t = self.timestamp
        return f"{t[:4]}-{t[4:6]}-{t[6:8]}"


class SourceInfo(BaseModel):
    """What the fetch stage learnt about one URL (shared by every claim citing it)."""

    url: str
    final_url: str | None = None
    status: int | None = None
    content_type: str | None = None
    bytes_fetched: int = 0
    truncated: bool = False
    from_cache: bool = False  # served from the run's cache directory, not downloaded by this run
    # With `archive: wayback`, for a source that could not be fetched: the archive's snapshot of
    # it, or why there is none ("no snapshot in the archive", "the archive answered HTTP 429 …").
    archived: ArchivedCopy | None = None
    archive_error: str | None = None


class Citation(BaseModel):
    raw: str  # the citation as written, e.g. "[3]", "[^note]", "(Smith, 2020)", "https://…"
    kind: CitationKind
    identifier: str | None = None  # reference id, footnote label, number, "Smith 2020", DOI
    url: str | None = None  # resolved URL (DOIs normalized to https://doi.org/…)
    # An internal link resolved to a file of the checkout: its path from the checkout's root, with
    # the link's anchor ("docs/reference/config.md#timeout"); the file is the source, read as a page.
    path: str | None = None
    text_fragment: str | None = None  # decoded `#:~:text=` directive: the author's evidence pointer
    start: int | None = None  # character offsets of the citation inside the claim text, if visible
    end: int | None = None
    resolve_status: ResolveStatus = ResolveStatus.ok
    resolve_error: str | None = None
    source: SourceInfo | None = None

    @property
    def target(self) -> str | None:
        """What the run reads for it: its URL, else the checkout file it resolved to."""
        return self.url or self.path


class Claim(BaseModel):
    text: str  # as a reader sees it: link markup removed, link text kept
    kinds: list[ClaimKind]
    file: str
    line: int  # 1-based line in the source file where the sentence starts
    column: int  # 1-based column of the sentence start
    citations: list[Citation] = Field(default_factory=list)

    @property
    def is_fact(self) -> bool:
        return any(k in FACT_KINDS for k in self.kinds)


class Reference(BaseModel):
    """One entry of a document's References / Sources / Bibliography / Notes list."""

    label: str | None = None  # "1" for a numbered list, or the id in "[1]" / "1."
    text: str
    urls: list[str] = Field(default_factory=list)
    line: int


class SkippedSentence(BaseModel):
    """A sentence with a citation or a fact kind that a skip rule set aside: its form shows it
    asserts nothing (`citecheck.extract.skip`)."""

    text: str
    file: str
    line: int
    column: int
    rule: str  # the skip rule's name
    cited: bool  # it carried a citation


class ExtractedDocument(BaseModel):
    file: str
    claims: list[Claim] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    errors: list[FileError] = Field(default_factory=list)
    skipped: list[SkippedSentence] = Field(default_factory=list)


class FetchOutcome(StrEnum):
    ok = "ok"
    unreachable = "unreachable"  # 404, 410, DNS failure, timeout, invalid URL, server errors
    blocked = "blocked"  # the site refused us: 401/403/429 (after retries) or a bot-challenge page
    not_extractable = "not_extractable"
    disallowed = "disallowed"
    skipped = "skipped"  # fetching disabled


class FetchedSource(BaseModel):
    """A fetched, text-extracted source; one per distinct URL."""

    info: SourceInfo
    outcome: FetchOutcome
    error: str | None = None  # why, when outcome is not ok ("HTTP 404", "blocked address 10.0.0.1")
    text: str = ""
    title: str | None = None
    date: str | None = None
    text_hash: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    fetched_at: float | None = None  # unix time

    @property
    def from_cache(self) -> bool:
        """Served from the cache directory (kept on `info`, which every citing claim reports)."""
        return self.info.from_cache


class CheckOutcome(StrEnum):
    """What a deterministic check found of the claim on the page (see citecheck.policy)."""

    found = "found"  # every figure, date or quote of the claim is on the page
    absent = "absent"  # one is not on the page: a hint for the judge, never a failure on its own
    contradicted = "contradicted"  # the page gives another value for the same thing: fails the claim


class CheckResult(BaseModel):
    """One deterministic check (number, quote, date) of a claim against a source text.

    `passed` keeps its meaning (what the check looked for is on the page: `outcome` found);
    `outcome` tells a figure that is merely absent from one the page contradicts. Reports
    written before `outcome` existed read as found (passed) or contradicted (failed): then a
    failed check failed its claim."""

    name: DecidedBy  # number | quote | date
    passed: bool
    detail: str  # what was looked for and what was (not) found
    evidence: str | None = None  # the matching (or nearest) page text
    outcome: CheckOutcome  # given, or read from `passed` (see above)
    # A contradiction's words, set where the check decides it: the claim's words the page
    # contradicts ("70%") and where they are in the claim's text (offsets), and the page's own
    # words for the same thing ("48%") when they can stand in their place as they are (same
    # hedge, same precision; None otherwise, and `detail` still names them). The page's
    # sentence is `evidence`. A `Suggestion` is made of these (`citecheck.checks.fix`).
    claim_value: str | None = None
    claim_span: tuple[int, int] | None = None
    page_value: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _outcome_from_passed(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("outcome") is None and "passed" in data:
            passed = data["passed"]
            return {**data, "outcome": CheckOutcome.found if passed else CheckOutcome.contradicted}
        return data

    @model_validator(mode="after")
    def _outcome_agrees(self) -> CheckResult:
        if self.passed != (self.outcome == CheckOutcome.found):
            raise ValueError(f"passed={self.passed} disagrees with outcome={self.outcome}")
        return self


class Passage(BaseModel):
    start: int  # character offsets in the source text
    end: int
    text: str
    score: float = 0.0


class JudgeOutcome(StrEnum):
    """What the judge gave for one claim; `citecheck.policy.judge_verdict` turns it into the
    claim's verdict and cause."""

    verdict = "verdict"  # an accepted verdict: `supported` says which
    # no accepted verdict, by doubt: low confidence, an evidence quote that is not on the page
    # or carries no weight, a rationale that contradicts the verdict (`error` says which)
    unsure = "unsure"
    error = "error"  # no verdict: refusal, API error, malformed output (`error` says which)
    limit = "limit"  # not called: the cost cap would have been exceeded


class JudgeResult(BaseModel):
    model: str
    supported: bool | None = None
    confidence: float | None = None
    rationale: str | None = None
    evidence: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: int = 0
    cached: bool = False
    error: str | None = None  # why no accepted verdict (e.g. "evidence quote not found in source")
    limit: bool = False  # not called because the cost cap would have been exceeded
    # None only in reports written before the field existed (read `supported`, `error`, `limit`)
    outcome: JudgeOutcome | None = None
    # False: the judge read the claim as asserting nothing checkable (see `Cause.no_fact`)
    states_fact: bool = True


class Suggestion(BaseModel):
    """A one-click fix for a claim a deterministic check contradicted with the page's own words
    (a figure, a date, a quotation's word): the claim's wrong words as they are written in the
    file, and the page's in their place. Made once, from the check's result and the file
    (`citecheck.checks.fix`); the JSON report carries it, SARIF renders it as a `fix`, the
    Action as a `suggestion` block in a pull-request review, `citecheck check --fix` applies it.

    Lines and columns are the file's as checked, 1-based; columns count characters (Unicode
    code points) and `end_column` is the one just past the span, so `line`/`column` to
    `end_line`/`end_column` is exactly the text `original` (a span crosses lines only at a soft
    line break of its paragraph)."""

    file: str  # as the report names it
    line: int
    column: int
    end_line: int
    end_column: int  # exclusive
    original: str  # the span as the file has it ("70%")
    replacement: str  # the page's words ("48%")
    lines: list[str]  # the file's lines `line`..`end_line`, whole, as they are (no line end)
    evidence: str  # the page's sentence that gives `replacement`
    check: DecidedBy  # the check that contradicted the claim: number, date or quote

    def fixed_lines(self) -> list[str]:
        """`lines` with the span replaced: what the suggestion makes of them (one line: a span
        across a soft line break is replaced whole, its break with it)."""
        head = self.lines[0][: self.column - 1]
        tail = self.lines[-1][self.end_column - 1 :]
        return [head + self.replacement + tail]


class ClaimResult(Claim):
    verdict: Verdict
    reason: str | None = None
    decided_by: DecidedBy | None = None
    source_url: str | None = None  # the citation URL the verdict rests on
    evidence: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    judge: JudgeResult | None = None
    limit: bool = False  # not verified because the cost cap or the claim limit was reached
    cause: Cause | None = None  # why not verified, when finer than the verdict says
    # The page's words in place of the claim's, when a check contradicted it with them
    # (`Suggestion`); None for every other verdict, and for a judge's.
    suggestion: Suggestion | None = None


class Dismissed(Claim):
    """A sentence the screen (`citecheck.screen`, opt-in) read as stating no fact: not
    fetched, not judged, not counted among the claims."""

    reason: str  # the model's, in a few words
    model: str


class Report(BaseModel):
    passed: bool | None  # null when nothing was verified: never true by default
    overall_score: float | None  # supported / judged; null when nothing was judged
    total_claims: int = 0
    total_citations_found: int = 0
    total_resolved: int = 0
    total_judged: int = 0
    total_supported: int = 0
    total_unsupported: int = 0
    total_unsourced: int = 0
    total_not_verified: int = 0
    total_cost_usd: float = 0.0
    # Claims whose verdict rests on a source served from the cache directory (not downloaded).
    total_from_cache: int = 0
    # Links that are not sources (`citecheck.exclusions`: localhost and loopback addresses,
    # reserved example/test domains, `exclude` patterns): dropped from the claims, never fetched
    # or failed; `links_excluded` counts them by reason (localhost, reserved-domain, pattern).
    total_links_excluded: int = 0
    links_excluded: dict[str, int] = Field(default_factory=dict)
    claims: list[ClaimResult] = Field(default_factory=list)
    total_dismissed: int = 0
    dismissed: list[Dismissed] = Field(default_factory=list)  # set aside by the screen
    screen_cost_usd: float = 0.0  # the screen's calls, part of total_cost_usd
    errors: list[FileError] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # e.g. "allowlist empty: any public host"
    fail_on: list[str] = Field(default_factory=list)
    failing: list[str] = Field(default_factory=list)  # the fail-on categories that were hit
    judge_model: str | None = None
    version: str = ""
