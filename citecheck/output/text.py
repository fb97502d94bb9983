"""The console report, for a person at a terminal (`citecheck check --format text`).

Claims are grouped by file; within a file the failures come first, then the unsourced claims,
then the verified ones, each by line. A claim shows its line, its verdict tag (the tags of the
Markdown report), the claim, its source and the reason (or, for a pass, the page's evidence).
A short summary ends the report. Colour (ANSI) is added only when the caller asks for it
(`color=True`: the CLI does so on a terminal without `NO_COLOR`, never for a file). Claim,
page and file-name text has its control characters removed, so nothing a document or page
contains can reach the terminal as an escape sequence.
"""

from __future__ import annotations

from collections.abc import Callable

from citecheck.models import ClaimResult, FileError, Report, Verdict
from citecheck.output.common import (
    CLAIM_CHARS,
    FAIL_TAGS,
    REASON_CHARS,
    Section,
    archive_remark,
    fail_reason,
    pass_evidence,
    run_status,
    section,
    shorten,
    source_url,
    unresolved_citation,
    visible,
)
from citecheck.output.report import summary_counts
from citecheck.policy import failing_claims

_SECTION_ORDER: dict[Section, int] = {"failed": 0, "unsourced": 1, "verified": 2}

_BOLD, _DIM, _RED, _GREEN, _YELLOW = "1", "2", "31", "32", "33"  # ANSI SGR codes
_Paint = Callable[[str, str], str]  # (text, SGR code) -> text, coloured or not


def render_text(report: Report, *, color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    failing = {id(c) for c in failing_claims(report)}  # in a fail-on category: they fail the run
    out: list[str] = []
    by_file: dict[str, list[ClaimResult]] = {}
    for claim in report.claims:
        by_file.setdefault(claim.file, []).append(claim)
    for file in sorted(by_file):
        claims = sorted(by_file[file], key=lambda c: (_SECTION_ORDER[section(c)], c.line, c.column))
        width = max(len(str(c.line)) for c in claims)
        if out:
            out.append("")
        out.append(paint(visible(file), _BOLD))
        for claim in claims:
            out.extend(_claim_lines(claim, width, paint, failing=id(claim) in failing))
    if not report.claims:
        out.append("No verifiable claims found.")

    extras = [_error_line(e, paint) for e in report.errors]
    extras += [f"note: {visible(shorten(n, REASON_CHARS))}" for n in report.notes]
    if extras:
        out += ["", *extras]
    if report.dismissed:
        out += ["", "set aside by the screen (no fact stated):"]
        for d in report.dismissed:
            text = visible(shorten(d.text, CLAIM_CHARS))
            out.append(paint(f"  {visible(d.file)}:{d.line}  {text}  ({visible(d.reason)})", _DIM))

    counts = summary_counts(report)
    status = run_status(report)
    status_code = _GREEN if report.passed is True else _RED if report.passed is False else _YELLOW
    out += [
        "",
        f"{counts.total} claim{'' if counts.total == 1 else 's'}: {counts.verified} verified, "
        f"{counts.failed} failed, {counts.unsourced} unsourced",
        f"Result: {paint(status, status_code)}",
    ]
    return "\n".join(out) + "\n"


def _claim_lines(claim: ClaimResult, width: int, paint: _Paint, *, failing: bool) -> list[str]:
    """The claim's first line (line number, tag, text), then its source and reason, indented."""
    text = visible(shorten(claim.text, CLAIM_CHARS))
    number = str(claim.line).rjust(width)
    indent = " " * (2 + width + 2)
    # Red: the claim fails the run (a fail-on category); yellow: reported, but allowed.
    if claim.verdict == Verdict.pass_:
        tag = paint("PASS", _GREEN)
    elif claim.verdict == Verdict.unsourced:
        return [f"  {number}  {paint('UNSOURCED', _RED if failing else _YELLOW)}  {text}"]
    else:
        tag = paint(FAIL_TAGS[claim.verdict][0], _RED if failing else _YELLOW)
    lines = [f"  {number}  {tag}  {text}", indent + paint(f"source: {_source(claim)}", _DIM)]
    if claim.verdict == Verdict.pass_:
        evidence = pass_evidence(claim)
        if evidence is not None:
            lines.append(indent + paint(f"evidence: “{visible(evidence)}”", _DIM))
    else:
        lines.append(indent + paint(f"reason: {visible(fail_reason(claim))}", _DIM))
    archive = archive_remark(claim, visible, visible)
    if archive:
        lines.append(indent + paint(f"archive: {archive}", _DIM))
    return lines


def _source(claim: ClaimResult) -> str:
    url = source_url(claim)
    if url:
        return visible(url)
    raw = unresolved_citation(claim)
    return visible(raw) + " (unresolved)" if raw is not None else "none"


def _error_line(error: FileError, paint: _Paint) -> str:
    where = f"{error.file}:{error.line}" if error.line else error.file
    kind = paint("error", _RED) if error.fatal else paint("warning", _YELLOW)
    return f"{visible(where)}: {kind}: {visible(shorten(error.message, REASON_CHARS))}"
