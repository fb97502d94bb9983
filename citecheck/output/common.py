"""What every report format shares: length limits, text shortening, Markdown escaping, and the
wording of a claim's outcome (its typed tag, reason, evidence and source), so that the
Markdown, SARIF and console reports say the same thing about a claim (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Literal, TextIO
from urllib.parse import quote

from citecheck.models import ClaimResult, Report, SourceInfo, Verdict

GITHUB_COMMENT_LIMIT = 65_536  # characters in one issue / PR comment body
STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024  # GITHUB_STEP_SUMMARY, per step
EVIDENCE_CHARS = 200  # brief evidence from the page
CLAIM_CHARS = 400
REASON_CHARS = 300

# The typed reason tags of the Verification Report, and the default reason when the pipeline
# gave none.
FAIL_TAGS: dict[Verdict, tuple[str, str]] = {
    Verdict.fail: ("FAIL", "the source does not support the claim"),
    Verdict.not_extractable: ("FAIL (content not extractable)", "no text could be extracted"),
    Verdict.unreachable: ("FAIL (URL not reachable)", "the source could not be fetched"),
    Verdict.disallowed: ("FAIL (source not allowed)", "the source is outside the allowlist"),
    Verdict.not_verified: ("FAIL (not verified)", "the claim was not checked"),
}

Section = Literal["verified", "failed", "unsourced"]

_WS = re.compile(r"\s+")
# Control characters (a terminal's escape sequences among them), bidi controls (embeddings,
# overrides, isolates and the implicit marks) that can make text read differently than it is,
# and the Unicode line and paragraph separators that some viewers break a line at.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_MARKDOWN_PUNCT = re.compile(r"([\\`*_\[\]|~$])")
_LEADING_MARKER = re.compile(r"^(?:([#+=-])|(\d+)([.)]))")
# `@name` notifies a user or team; `#123`, `GH-123` link (and cross-reference) issues; a bare
# `https://…` or `www.` becomes a link (a full issue or PR URL a cross-reference too).
_MENTION = re.compile(r"@(?=\w)")
_ISSUE_REF = re.compile(r"(#|GH-)(?=\d)", re.IGNORECASE)
_AUTOLINK = re.compile(r"(?i)\b(?:(https?|ftp):(?=//)|(www)(?=\.))")
_ZWSP = "\u200b"  # breaks GitHub's mention / issue-reference patterns, invisible when read
URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"


def collapse_whitespace(text: str) -> str:
    return _WS.sub(" ", text).strip()


def shorten(text: str, limit: int) -> str:
    """Collapse whitespace and cut to `limit` characters at a word boundary, with an ellipsis."""
    text = collapse_whitespace(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def strip_invisible(text: str) -> str:
    """`text` without control characters (newlines and tabs kept) or bidi controls."""
    return _INVISIBLE.sub("", text)


def visible(text: str) -> str:
    """`text` without control characters or bidi overrides, whitespace collapsed: safe to
    print on a terminal (no escape sequence in a claim or page can reach it)."""
    return collapse_whitespace(_INVISIBLE.sub("", text))


def escape_markdown(text: str) -> str:
    """Make untrusted text (claims, page text, reasons) inert inside one Markdown list line.

    Newlines collapse to spaces; `<`, `>`, `&` become entities (no HTML); Markdown
    punctuation (links, images, emphasis, code, our `|` separator) is backslash-escaped;
    a leading heading / list marker is escaped; `@mentions` and `#123` issue references get
    a zero-width space after the sigil, and bare URLs and `www.` hosts one after `https:` /
    `www`, which GitHub does not link, notify or cross-reference on. Control characters and
    bidi controls are dropped.
    """
    text = visible(text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_PUNCT.sub(r"\\\1", text)
    text = _LEADING_MARKER.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", text)
    text = _MENTION.sub("@" + _ZWSP, text)
    text = _AUTOLINK.sub(lambda m: (f"{m[1]}:" if m[1] else m[2]) + _ZWSP, text)
    return _ISSUE_REF.sub(lambda m: m[1] + _ZWSP, text)


def markdown_url(url: str) -> str:
    """A URL as an angle-bracket autolink: clickable, and nothing inside it is Markdown.

    Characters that would end or break the autolink (space, `<`, `>`, quotes, backticks,
    `|`, non-ASCII) are percent-encoded; a non-web URL is shown as escaped text instead.
    """
    if not re.match(r"(?i)https?://[^/?#\s]", url):
        return escape_markdown(url)
    return "<" + quote(url, safe=URL_SAFE) + ">"


# --------------------------------------------------------------------------- a claim's outcome


def section(claim: ClaimResult) -> Section:
    """Where a claim is listed: verified (pass), unsourced, or failed (every other verdict)."""
    if claim.verdict == Verdict.pass_:
        return "verified"
    if claim.verdict == Verdict.unsourced:
        return "unsourced"
    return "failed"


def source_url(claim: ClaimResult) -> str | None:
    """The source the verdict rests on, else the claim's first cited URL."""
    return claim.source_url or next((c.url for c in claim.citations if c.url), None)


def unresolved_citation(claim: ClaimResult) -> str | None:
    """The first citation as written, shortened, for a claim with no URL (None: no citation)."""
    raw = next((c.raw for c in claim.citations), "")
    return shorten(raw, 100) if raw else None


def pass_evidence(claim: ClaimResult) -> str | None:
    """The page text that supports a passed claim, shortened (None: nothing to quote)."""
    judge = claim.judge
    passed_check = next((c.evidence or c.detail for c in claim.checks if c.passed), None)
    text = claim.evidence or (judge.evidence if judge else None) or passed_check or claim.reason
    return shorten(text, EVIDENCE_CHARS) if text else None


def fail_reason(claim: ClaimResult) -> str:
    """Why a failed claim failed, shortened: the pipeline's reason, else what the page says,
    else the judge's rationale or error, else the verdict's default reason."""
    if claim.reason:
        return shorten(claim.reason, REASON_CHARS)
    if claim.evidence:
        return "the page says: “" + shorten(claim.evidence, EVIDENCE_CHARS) + "”"
    if claim.judge is not None and (claim.judge.rationale or claim.judge.error):
        return shorten(claim.judge.rationale or claim.judge.error or "", REASON_CHARS)
    return FAIL_TAGS[claim.verdict][1]


def archived_source(claim: ClaimResult) -> SourceInfo | None:
    """The source the verdict rests on, when the archive was asked about it (`archive: wayback`)."""
    url = source_url(claim)
    for citation in claim.citations:
        info = citation.source
        if citation.url == url and info is not None and (info.archived or info.archive_error):
            return info
    return None


def archive_remark(claim: ClaimResult, text: Callable[[str], str], link: Callable[[str], str]) -> str | None:
    """What a report says of the archive for `claim`, its words shown by `text` and the
    snapshot's address by `link` (each format's own escaping): "verified against the archived
    copy of 2023-05-01: <…> (the link itself: HTTP 404 Not Found)" when the verdict rests on
    the snapshot, "cite the archived copy of 2023-05-01 instead: <…>" when the link is dead and
    the archive has it, "no archived copy: …" when it has not; None when it was not asked."""
    info = archived_source(claim)
    if info is None:
        return None
    copy = info.archived
    if copy is None:
        return text(f"no archived copy: {shorten(info.archive_error or '', REASON_CHARS)}")
    if copy.checked:
        verb = "verified" if claim.verdict == Verdict.pass_ else "checked"
        words = text(f"{verb} against the archived copy of {copy.date}")
        dead = text(f"(the link itself: {shorten(copy.link_error, REASON_CHARS)})")
        return f"{words}: {link(copy.url)} {dead}"
    remark = f"{text(f'cite the archived copy of {copy.date} instead')}: {link(copy.url)}"
    if info.archive_error:
        remark += " " + text(f"({shorten(info.archive_error, REASON_CHARS)})")
    return remark


def run_status(report: Report) -> str:
    """The run's result in words (from `passed` and `failing`, set by `citecheck.policy`)."""
    if report.passed is True:
        return "passed"
    if report.passed is False:
        return "failed (fail-on: " + ", ".join(report.failing) + ")"
    return "nothing verified, nothing failed"


def color_allowed(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Whether a report written to `stream` may carry ANSI colour: only on a terminal, and
    not when `NO_COLOR` is set to anything (https://no-color.org)."""
    if environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
