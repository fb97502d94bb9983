"""The Verification Report in Markdown: the PR comment, the job summary and `report.md`.

Its headings and line formats are a contract (docs/ARCHITECTURE.md): users' workflows and
readers rely on them, so they change only on purpose. Untrusted text is escaped
(`citecheck.output.common.escape_markdown`); a report too long for its destination is cut
by whole claim lines, failures kept first.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import quote

from citecheck.models import Cause, ClaimResult, FileError, Report, Verdict
from citecheck.output.common import (
    CLAIM_CHARS,
    FAIL_TAGS,
    REASON_CHARS,
    URL_SAFE,
    escape_markdown,
    fail_reason,
    markdown_url,
    pass_evidence,
    run_status,
    section,
    shorten,
    source_url,
    unresolved_citation,
)
from citecheck.output.report import summary_counts
from citecheck.policy import claim_categories


def _location(claim: ClaimResult, link_base: str | None = None) -> str:
    label = escape_markdown(f"{claim.file}:{claim.line}")
    if not link_base:
        return label
    base = quote(link_base.rstrip("/"), safe=URL_SAFE.replace("(", "").replace(")", ""))
    return f"[{label}]({base}/{quote(claim.file.replace(chr(92), '/'))}#L{claim.line})"


def _source(claim: ClaimResult) -> str:
    url = source_url(claim)
    if url:
        return markdown_url(url)
    raw = unresolved_citation(claim)
    return escape_markdown(raw) + " (unresolved)" if raw is not None else "none"


def _pass_evidence(claim: ClaimResult) -> str:
    text = pass_evidence(claim)
    return "“" + escape_markdown(text) + "”" if text is not None else "supported"


def _fail_reason(claim: ClaimResult) -> str:
    return f"{FAIL_TAGS[claim.verdict][0]}: {escape_markdown(fail_reason(claim))}"


def claim_line(claim: ClaimResult, *, link_base: str | None = None) -> str:
    """One claim as a Markdown list line: `- text | Source: <url> | PASS: … | file:line`."""
    text = escape_markdown(shorten(claim.text, CLAIM_CHARS))
    where = _location(claim, link_base)
    if claim.verdict == Verdict.unsourced:
        return f"- {text} | No citation provided | {where}"
    outcome = f"PASS: {_pass_evidence(claim)}" if claim.verdict == Verdict.pass_ else _fail_reason(claim)
    return f"- {text} | Source: {_source(claim)} | {outcome} | {where}"


# "Failed by type" of the Details, in this order: by verdict, and by cause where it is finer
# (a judge's error and its doubt are different things to act on).
_FAILED_LABELS: dict[tuple[Verdict, Cause | None], str] = {
    (Verdict.fail, None): "unsupported",
    (Verdict.unreachable, None): "URL not reachable",
    (Verdict.unreachable, Cause.blocked): "blocked by the site",
    (Verdict.not_extractable, None): "content not extractable",
    (Verdict.disallowed, None): "source not allowed",
    (Verdict.not_verified, Cause.judge_error): "judge error",
    (Verdict.not_verified, Cause.unsure): "judge unsure",
    (Verdict.not_verified, None): "not verified",
}


def _failure_type(claim: ClaimResult) -> str | None:
    return _FAILED_LABELS.get((claim.verdict, claim.cause)) or _FAILED_LABELS.get((claim.verdict, None))


def _details(report: Report) -> list[str]:
    lines = [f"- Result: {run_status(report)}"]
    counts = Counter(_failure_type(c) for c in report.claims)
    by_type = [f"{label} {counts[label]}" for label in _FAILED_LABELS.values() if counts[label]]
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
    cached_verdicts = sum(1 for c in report.claims if c.judge is not None and c.judge.cached)
    if report.total_from_cache or cached_verdicts:
        lines.append(
            f"- Decided from cached sources: {report.total_from_cache} claim(s); "
            f"cached judge verdicts: {cached_verdicts}"
        )
    return lines


def _section_lines(report: Report, link_base: str | None) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {"verified": [], "failed": [], "unsourced": []}
    for claim in report.claims:
        sections[section(claim)].append(claim_line(claim, link_base=link_base))
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
    """The Verification Report, then optional sections (details, notes, errors).

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
