"""Report stage: totals, and the Markdown / JSON / SARIF renderings.

Counting. Every claim has exactly one verdict, and falls in exactly one of
four buckets, so ``total_claims == supported + unsupported + unsourced + not_verified``:

- supported   — verdict ``pass``;
- unsupported — verdict ``fail`` (the page does not support the claim);
- unsourced   — verdict ``unsourced``;
- not_verified — every other verdict: ``not_verified``, ``unreachable``, ``not_extractable``
  and ``disallowed`` (the claim's support could not be decided).

``total_judged`` counts the claims with a pass/fail verdict, whether a deterministic check or
the judge decided it; ``overall_score`` is supported / judged (None when nothing was judged).
``total_cost_usd`` sums the judge cost of the claims, leaving out verdicts served from the
cache (they cost nothing on this run).

The Markdown Summary's "Failed" line is unsupported + not_verified: every claim listed under
"### Failed Claims", where a not-verified claim appears with its typed tag, e.g.
``FAIL (not verified): cost cap reached``. So Verified + Failed + Unsourced = Total claims.

``failing`` and ``passed`` come from `citecheck.policy.assess` (the verdict and exit policy).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from citecheck import __version__
from citecheck.cache import digest
from citecheck.config import Settings
from citecheck.errors import ConfigError
from citecheck.models import ClaimResult, FileError, Report, ResolveStatus, Verdict
from citecheck.policy import NOT_VERIFIED_VERDICTS, VERDICT_CATEGORY, assess, claim_categories

_T = TypeVar("_T")

GITHUB_COMMENT_LIMIT = 65_536  # characters in one issue / PR comment body
STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024  # GITHUB_STEP_SUMMARY, per step
EVIDENCE_CHARS = 200  # brief evidence from the page
CLAIM_CHARS = 400
REASON_CHARS = 300

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/citecheck/citecheck"

# The typed reason tags of DESIGN §2, and the default reason when the pipeline gave none.
_FAIL_TAGS: dict[Verdict, tuple[str, str]] = {
    Verdict.fail: ("FAIL", "the source does not support the claim"),
    Verdict.not_extractable: ("FAIL (content not extractable)", "no text could be extracted"),
    Verdict.unreachable: ("FAIL (URL not reachable)", "the source could not be fetched"),
    Verdict.disallowed: ("FAIL (source not allowed)", "the source is outside the allowlist"),
    Verdict.not_verified: ("FAIL (not verified)", "the claim was not checked"),
}

# fail-on category → SARIF rule description.
_RULES: dict[str, str] = {
    "unsupported": "The cited source does not support the claim.",
    "unreachable": "The cited URL could not be fetched.",
    "not-extractable": "No text could be extracted from the cited source.",
    "disallowed": "The cited source is outside the allowlist or blocked by the fetch guard.",
    "not-verified": "The claim could not be verified (cost cap, claim limit, judge disabled, ...).",
    "unsourced": "The claim cites no source.",
}
# What to do about each, shown with a code-scanning alert.
_RULE_HELP: dict[str, str] = {
    "unsupported": "Correct the claim to match the source, or cite a source that supports it.",
    "unreachable": "Fix or replace the link (an archived copy works), or retry if the site was down.",
    "not-extractable": "Cite a page with the text in it (HTML, PDF or plain text), not an image or file.",
    "disallowed": "Cite a source on an allowed domain, or add its domain to `allowed-domains`.",
    "not-verified": "Raise `max-cost-usd` / `max-claims`, or enable the judge with an API key.",
    "unsourced": "Add a citation (a link, footnote or reference) for the claim.",
}


class SummaryCounts(BaseModel):
    """The four figures of the Markdown Summary (also the Action's outputs)."""

    total: int
    verified: int
    failed: int  # unsupported + not verified: everything under "### Failed Claims"
    unsourced: int
    not_verified: int


# --------------------------------------------------------------------------- totals, policy


def build_report(
    results: list[ClaimResult],
    *,
    settings: Settings,
    errors: Sequence[FileError] = (),
    notes: Sequence[str] = (),
    total_citations_found: int | None = None,
    judge_model: str | None = None,
) -> Report:
    """Assemble the Report of one run: every total of DESIGN §7, `failing` and `passed`.

    `total_citations_found` defaults to the citations on the reported claims; the pipeline
    passes a larger figure when it found citations on lines it did not check.
    """
    return _assemble(
        results,
        fail_on=settings.fail_on,
        errors=errors,
        notes=notes,
        total_citations_found=total_citations_found,
        judge_model=judge_model,
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
    )


def _assemble(
    results: Iterable[ClaimResult],
    *,
    fail_on: list[str],
    errors: Iterable[FileError],
    notes: Iterable[str],
    total_citations_found: int | None,
    judge_model: str | None,
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
    cost = math.fsum(c.judge.cost_usd for c in claims if c.judge is not None and not c.judge.cached)

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
        claims=claims,
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


def summary_counts(report: Report) -> SummaryCounts:
    return SummaryCounts(
        total=report.total_claims,
        verified=report.total_supported,
        failed=report.total_unsupported + report.total_not_verified,
        unsourced=report.total_unsourced,
        not_verified=report.total_not_verified,
    )


# --------------------------------------------------------------------------- JSON


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"


def read_report(path: Path) -> Report:
    """Load a JSON report written by `render_json` (for `citecheck merge`)."""
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


# --------------------------------------------------------------------------- Markdown

_WS = re.compile(r"\s+")
# Control characters, and bidi overrides that can make text read differently than it is.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_MARKDOWN_PUNCT = re.compile(r"([\\`*_\[\]|~$])")
_LEADING_MARKER = re.compile(r"^(?:([#+=-])|(\d+)([.)]))")
# `@name` notifies a user or team; `#123`, `GH-123` link (and cross-reference) issues.
_MENTION = re.compile(r"@(?=\w)")
_ISSUE_REF = re.compile(r"(#|GH-)(?=\d)", re.IGNORECASE)
_ZWSP = "\u200b"  # breaks GitHub's mention / issue-reference patterns, invisible when read
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"


def shorten(text: str, limit: int) -> str:
    """Collapse whitespace and cut to `limit` characters at a word boundary, with an ellipsis."""
    text = _WS.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def escape_markdown(text: str) -> str:
    """Make untrusted text (claims, page text, reasons) inert inside one Markdown list line.

    Newlines collapse to spaces; `<`, `>`, `&` become entities (no HTML); Markdown
    punctuation (links, images, emphasis, code, our `|` separator) is backslash-escaped;
    a leading heading / list marker is escaped; `@mentions` and `#123` issue references get
    a zero-width space after the sigil, which GitHub does not link or notify on. Control
    characters and bidi overrides are dropped.
    """
    text = _WS.sub(" ", _INVISIBLE.sub("", text)).strip()
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_PUNCT.sub(r"\\\1", text)
    text = _LEADING_MARKER.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", text)
    text = _MENTION.sub("@" + _ZWSP, text)
    return _ISSUE_REF.sub(lambda m: m[1] + _ZWSP, text)


def markdown_url(url: str) -> str:
    """A URL as an angle-bracket autolink: clickable, and nothing inside it is Markdown.

    Characters that would end or break the autolink (space, `<`, `>`, quotes, backticks,
    `|`, non-ASCII) are percent-encoded; a non-web URL is shown as escaped text instead.
    """
    if not re.match(r"(?i)https?://[^/?#\s]", url):
        return escape_markdown(url)
    return "<" + quote(url, safe=_URL_SAFE) + ">"


def _location(claim: ClaimResult, link_base: str | None = None) -> str:
    label = escape_markdown(f"{claim.file}:{claim.line}")
    if not link_base:
        return label
    base = quote(link_base.rstrip("/"), safe=_URL_SAFE.replace("(", "").replace(")", ""))
    return f"[{label}]({base}/{quote(claim.file.replace(chr(92), '/'))}#L{claim.line})"


def _source(claim: ClaimResult) -> str:
    url = claim.source_url or next((c.url for c in claim.citations if c.url), None)
    if url:
        return markdown_url(url)
    raw = next((c.raw for c in claim.citations), "")
    return escape_markdown(shorten(raw, 100)) + " (unresolved)" if raw else "none"


def _pass_evidence(claim: ClaimResult) -> str:
    judge = claim.judge
    passed_check = next((c.evidence or c.detail for c in claim.checks if c.passed), None)
    text = claim.evidence or (judge.evidence if judge else None) or passed_check or claim.reason
    if not text:
        return "supported"
    return "“" + escape_markdown(shorten(text, EVIDENCE_CHARS)) + "”"


def _fail_reason(claim: ClaimResult) -> str:
    tag, default = _FAIL_TAGS[claim.verdict]
    if claim.reason:
        text = shorten(claim.reason, REASON_CHARS)
    elif claim.evidence:
        text = "the page says: “" + shorten(claim.evidence, EVIDENCE_CHARS) + "”"
    elif claim.judge is not None and (claim.judge.rationale or claim.judge.error):
        text = shorten(claim.judge.rationale or claim.judge.error or "", REASON_CHARS)
    else:
        text = default
    return f"{tag}: {escape_markdown(text)}"


def claim_line(claim: ClaimResult, *, link_base: str | None = None) -> str:
    """One claim as a Markdown list line: `- text | Source: <url> | PASS: … | file:line`."""
    text = escape_markdown(shorten(claim.text, CLAIM_CHARS))
    where = _location(claim, link_base)
    if claim.verdict == Verdict.unsourced:
        return f"- {text} | No citation provided | {where}"
    outcome = f"PASS: {_pass_evidence(claim)}" if claim.verdict == Verdict.pass_ else _fail_reason(claim)
    return f"- {text} | Source: {_source(claim)} | {outcome} | {where}"


_FAILED_LABELS: dict[Verdict, str] = {
    Verdict.fail: "unsupported",
    Verdict.unreachable: "URL not reachable",
    Verdict.not_extractable: "content not extractable",
    Verdict.disallowed: "source not allowed",
    Verdict.not_verified: "not verified",
}


def _details(report: Report) -> list[str]:
    if report.passed is True:
        status = "passed"
    elif report.passed is False:
        status = "failed (fail-on: " + ", ".join(report.failing) + ")"
    else:
        status = "nothing verified, nothing failed"
    lines = [f"- Result: {status}"]
    by_type = [
        f"{label} {n}"
        for verdict, label in _FAILED_LABELS.items()
        if (n := sum(1 for c in report.claims if c.verdict == verdict))
    ]
    if by_type:
        lines.append("- Failed by type: " + ", ".join(by_type))
    limited = sum(1 for c in report.claims if "limit" in claim_categories(c))
    if limited:
        lines.append(f"- Not verified because of the cost cap or claim limit: {limited}")
    lines.append(f"- Citations found: {report.total_citations_found}, resolved: {report.total_resolved}")
    score = "n/a" if report.overall_score is None else f"{report.overall_score:.0%}"
    lines.append(f"- Judged: {report.total_judged}, score: {score}")
    if report.judge_model:
        lines.append(f"- Judge: {escape_markdown(report.judge_model)}, cost: ${report.total_cost_usd:.4f}")
    return lines


def _section_lines(report: Report, link_base: str | None) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {"verified": [], "failed": [], "unsourced": []}
    for claim in report.claims:
        if claim.verdict == Verdict.pass_:
            key = "verified"
        elif claim.verdict == Verdict.unsourced:
            key = "unsourced"
        else:
            key = "failed"
        sections[key].append(claim_line(claim, link_base=link_base))
    return sections


def _error_line(error: FileError) -> str:
    where = f"{error.file}:{error.line}" if error.line else error.file
    kind = "error" if error.fatal else "warning"
    return f"- {escape_markdown(where)}: {kind}: {escape_markdown(shorten(error.message, REASON_CHARS))}"


def render_markdown(
    report: Report,
    *,
    max_chars: int | None = None,
    full_report_hint: str = "",
    max_bytes: int | None = None,
    link_base: str | None = None,
) -> str:
    """The Verification Report of DESIGN §2, then optional sections (details, notes, errors).

    Claim text is written without the template's square brackets (they are placeholders);
    URLs are angle-bracket autolinks. An empty section says "None.". With `max_chars` (a PR
    comment: `GITHUB_COMMENT_LIMIT`) and/or `max_bytes` of UTF-8 (the job summary:
    `STEP_SUMMARY_LIMIT_BYTES`), whole claim lines are dropped — verified first, then
    unsourced, then failed, each from its end — until the text fits; the Summary is always
    kept, and a note says the full report is in `full_report_hint` (the caller's own
    Markdown, e.g. "the [job summary](…)", so it is not escaped). With `link_base` (e.g.
    `https://github.com/o/r/blob/<sha>`), each `file:line` links to that line.
    """
    sections = _section_lines(report, link_base)
    counts = summary_counts(report)
    summary = [
        "### Summary",
        f"- Total claims: {counts.total}",
        f"- Verified: {counts.verified}",
        f"- Failed: {counts.failed}",
        f"- Unsourced: {counts.unsourced}",
    ]
    extras: dict[str, list[str]] = {
        "details": _details(report),
        "notes": [f"- {escape_markdown(shorten(n, REASON_CHARS))}" for n in report.notes],
        "errors": [_error_line(e) for e in report.errors],
    }

    def assemble(shown: dict[str, list[str]], cut: bool) -> str:
        out = ["## Verification Report"]
        if not report.claims:
            out.append("No verifiable claims found.")
        for key, heading in (
            ("verified", "### Verified Claims"),
            ("failed", "### Failed Claims"),
            ("unsourced", "### Unsourced Claims"),
        ):
            out.append(heading)
            out.extend(shown[key] or (["None."] if not sections[key] else []))
            hidden = len(sections[key]) - len(shown[key])
            if hidden:
                out.append(f"*… {hidden} more not shown.*")
        out.extend(summary)
        if cut:
            where = f" in {full_report_hint}" if full_report_hint else " in the JSON report"
            out.append("")
            out.append(f"*This report was shortened to fit; the full report is{where}.*")
        for key, heading in (
            ("details", "### Details"),
            ("notes", "### Notes"),
            ("errors", "### File errors"),
        ):
            if shown[key]:
                out.extend([heading, *shown[key]])
                hidden = len(extras[key]) - len(shown[key])
                if hidden:
                    out.append(f"*… {hidden} more not shown.*")
        return "\n".join(out) + "\n"

    def over(text: str) -> int:
        """How far `text` is over the tighter limit, in that limit's unit (<= 0: it fits)."""
        excess = len(text) - max_chars if max_chars is not None else -(2**62)
        if max_bytes is not None:
            excess = max(excess, len(text.encode("utf-8")) - max_bytes)
        return excess

    def size(line: str) -> int:
        return len(line.encode("utf-8")) + 1 if max_bytes is not None else len(line) + 1

    full = {**sections, **extras}
    text = assemble(full, cut=False)
    if over(text) <= 0:
        return text

    # Fill the budget in priority order with each part's leading lines; the skeleton
    # (headings, summary, "more not shown" notes) is re-measured after each part.
    order = ("failed", "unsourced", "verified", "details", "notes", "errors")
    shown: dict[str, list[str]] = {k: [] for k in order}
    for key in order:
        budget = -over(assemble(shown, cut=True))
        for line in full[key]:
            if size(line) > budget:
                break
            shown[key].append(line)
            budget -= size(line)
    # A part's heading appears with its first line; give lines back until it all fits.
    text = assemble(shown, cut=True)
    while over(text) > 0 and any(shown.values()):
        last = next(k for k in reversed(order) if shown[k])
        shown[last].pop()
        text = assemble(shown, cut=True)
    return text


# --------------------------------------------------------------------------- SARIF


def render_sarif(report: Report) -> str:
    """SARIF 2.1.0: one rule per failure type, one result per failed or unsourced claim.

    A result is an `error` when its claim hits a fail-on category, a `warning` otherwise.
    `partialFingerprints` rest on file, claim text and source, so code scanning keeps
    tracking an alert when the line moves.
    """
    rule_ids = list(_RULES)
    rules = [
        {
            "id": rule,
            "name": "".join(part.capitalize() for part in rule.split("-")),
            "shortDescription": {"text": description},
            "fullDescription": {"text": description},
            "help": {"text": _RULE_HELP[rule], "markdown": _RULE_HELP[rule]},
            "helpUri": INFORMATION_URI,
            "defaultConfiguration": {"level": "error" if rule in report.fail_on else "warning"},
        }
        for rule, description in _RULES.items()
    ]
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for claim in report.claims:
        rule = VERDICT_CATEGORY.get(claim.verdict)
        if rule is None:
            continue
        error = any(cat in report.fail_on for cat in claim_categories(claim))
        source = claim.source_url or next((c.url for c in claim.citations if c.url), None)
        message = _sarif_message(claim, source)
        results.append(
            {
                "ruleId": rule,
                "ruleIndex": rule_ids.index(rule),
                "level": "error" if error else "warning",
                "message": {"text": message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": quote(claim.file.replace("\\", "/"))},
                            "region": {"startLine": max(claim.line, 1), "startColumn": max(claim.column, 1)},
                        }
                    }
                ],
                "partialFingerprints": {"citecheckClaim/v1": _fingerprint(claim, rule, source, seen)},
                "properties": {"verdict": claim.verdict.value, "categories": claim_categories(claim)},
            }
        )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "citecheck",
                        "version": report.version or __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    # pydantic-core's encoder: indented output from `json` falls back to pure Python (slow).
    return to_json(sarif, indent=2).decode("utf-8") + "\n"


def _sarif_message(claim: ClaimResult, source: str | None) -> str:
    text = shorten(claim.text, CLAIM_CHARS)
    if claim.verdict == Verdict.unsourced:
        return f"Unsourced claim: {text}"
    tag, default = _FAIL_TAGS[claim.verdict]
    reason = shorten(claim.reason or default, REASON_CHARS)
    return f"{tag}: {reason} — claim: {text} — source: {source or 'unresolved'}"


def _fingerprint(claim: ClaimResult, rule: str, source: str | None, seen: dict[str, int]) -> str:
    """Stable across line moves; the same sentence twice in one file gets an occurrence number."""
    base = digest(rule, claim.file, _WS.sub(" ", claim.text).strip(), source or "")
    seen[base] = seen.get(base, 0) + 1
    return f"{base[:32]}:{seen[base]}"
