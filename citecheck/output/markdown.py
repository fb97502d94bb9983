"""The Verification Report in Markdown: the PR comment, the job summary and `report.md`.

Its headings and line formats are a contract (docs/ARCHITECTURE.md): users' workflows and
readers rely on them, so they change only on purpose. Untrusted text is escaped
(`citecheck.output.common.escape_markdown`); a report too long for its destination is cut
by whole claim lines, failures kept first.

`render_markdown` is the report itself (`--format markdown`, `report.md`, the job summary).
`render_comment` is the PR comment: a first line with the outcome at a glance
(`outcome_line`), then the same report with the same headings and line formats, its Verified
Claims folded in `<details>` when failures should come first, each `file:line` linking where
the caller says (the PR's diff), and, when cut to GitHub's limit, the notes that explain the
numbers kept before the claim lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from citecheck.models import Cause, ClaimResult, DecidedBy, Dismissed, FileError, Report, Verdict
from citecheck.output.common import (
    CLAIM_CHARS,
    FAIL_TAGS,
    REASON_CHARS,
    URL_SAFE,
    archive_remark,
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
from citecheck.policy import FAIL_ON_CATEGORIES, claim_categories, unreadable_files

# Where a claim's `file:line` links to (None: no link), e.g. its line in the PR's diff.
LinkFor = Callable[[ClaimResult], str | None]
# Characters kept as they are in a link target: the autolink set less the parentheses, which
# would end `[label](target)` early.
_HREF_SAFE = URL_SAFE.replace("(", "").replace(")", "")


def blob_link(link_base: str) -> LinkFor:
    """Links to each claim's line in the files under `link_base` (e.g.
    `https://github.com/o/r/blob/<sha>`)."""
    base = link_base.rstrip("/")
    return lambda claim: f"{base}/{quote(claim.file.replace(chr(92), '/'))}#L{claim.line}"


def _location(claim: ClaimResult, href: str | None) -> str:
    label = escape_markdown(f"{claim.file}:{claim.line}")
    return f"[{label}]({quote(href, safe=_HREF_SAFE)})" if href else label


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


# Who decided a claim, as the PR comment tags its outcome: a deterministic check (no judge
# call, and only on a contradiction when it fails) or the judge. A fetch failure or a policy
# verdict needs no tag: its FAIL tag ("URL not reachable", "not verified") already says it.
_DECIDER_TAGS: dict[DecidedBy, str] = {
    DecidedBy.number: "number check",
    DecidedBy.quote: "quote check",
    DecidedBy.date: "date check",
    DecidedBy.judge: "judge",
}
_CHECKS = tuple(tag for by, tag in _DECIDER_TAGS.items() if by != DecidedBy.judge)


def _decider(claim: ClaimResult) -> str | None:
    if claim.decided_by is None or claim.verdict not in (Verdict.pass_, Verdict.fail, Verdict.not_verified):
        return None  # a fetch failure is decided before any check or judge
    return _DECIDER_TAGS.get(claim.decided_by)


def claim_line(
    claim: ClaimResult,
    *,
    link_base: str | None = None,
    link: LinkFor | None = None,
    tag_decider: bool = False,
) -> str:
    """One claim as a Markdown list line: `- text | Source: <url> | PASS: … | file:line`;
    `file:line` links to `link(claim)`, or to the line under `link_base`. When the archive was
    asked about its source (`archive: wayback`), the outcome says what it had (`archive_remark`:
    `FAIL (URL not reachable): HTTP 404 Not Found; cite the archived copy of 2023-05-01
    instead: <…>`, `PASS: “…”; verified against the archived copy of 2023-05-01: <…> (the
    link itself: HTTP 404 Not Found)`). With `tag_decider`
    (the PR comment), the outcome ends in who decided it (` — *number check*`, ` — *judge*`),
    inside the same `PASS: …` / `FAIL: …` field."""
    text = escape_markdown(shorten(claim.text, CLAIM_CHARS))
    if link is None and link_base:
        link = blob_link(link_base)
    where = _location(claim, link(claim) if link else None)
    if claim.verdict == Verdict.unsourced:
        return f"- {text} | No citation provided | {where}"
    outcome = f"PASS: {_pass_evidence(claim)}" if claim.verdict == Verdict.pass_ else _fail_reason(claim)
    archive = archive_remark(claim, escape_markdown, markdown_url)
    if archive:
        outcome += f"; {archive}"
    decider = _decider(claim) if tag_decider else None
    if decider:
        outcome += f" — *{decider}*"
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


# "Links not treated as sources" of the Details, by `Report.links_excluded` reason, in this order.
_EXCLUDED_LABELS = {
    "localhost": "localhost",
    "reserved-domain": "example/test domains",
    "pattern": "exclude patterns",
}


def _excluded_line(report: Report) -> str:
    counts = report.links_excluded
    known = [f"{label} {counts[key]}" for key, label in _EXCLUDED_LABELS.items() if counts.get(key)]
    other = [f"{escape_markdown(k)} {n}" for k, n in counts.items() if k not in _EXCLUDED_LABELS and n]
    by_reason = f" ({', '.join(known + other)})" if known or other else ""
    return f"- Links not treated as sources: {report.total_links_excluded}{by_reason}"


def _failure_type(claim: ClaimResult) -> str | None:
    return _FAILED_LABELS.get((claim.verdict, claim.cause)) or _FAILED_LABELS.get((claim.verdict, None))


def _details(report: Report, *, decided: bool = False) -> list[str]:
    lines = [f"- Result: {run_status(report)}"]
    counts = Counter(_failure_type(c) for c in report.claims)
    by_type = [f"{label} {counts[label]}" for label in _FAILED_LABELS.values() if counts[label]]
    if by_type:
        lines.append("- Failed by type: " + ", ".join(by_type))
    decided_line = _decided_line(report) if decided else None
    if decided_line:
        lines.append(decided_line)
    limited = sum(1 for c in report.claims if "limit" in claim_categories(c))
    if limited:
        lines.append(f"- Not verified because of the cost cap or claim limit: {limited}")
    lines.append(f"- Citations found: {report.total_citations_found}, resolved: {report.total_resolved}")
    if report.total_links_excluded:
        lines.append(_excluded_line(report))
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


def _decided_line(report: Report) -> str | None:
    """How many claims a check decided and how many the judge (the comment's Details)."""
    counts = Counter(_decider(c) for c in report.claims)
    by_check = [f"{tag} {counts[tag]}" for tag in _CHECKS if counts[tag]]
    if not by_check and not counts["judge"]:
        return None
    checks = sum(counts[tag] for tag in _CHECKS)
    parts = f" ({', '.join(by_check)})" if by_check else ""
    return f"- Decided by a check, no judge call: {checks}{parts}; by the judge: {counts['judge']}"


def _section_lines(
    report: Report, link: LinkFor | None, *, tag_decider: bool = False
) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {"verified": [], "failed": [], "unsourced": []}
    for claim in report.claims:
        sections[section(claim)].append(claim_line(claim, link=link, tag_decider=tag_decider))
    return sections


def _dismissed_line(dismissed: Dismissed) -> str:
    text = escape_markdown(shorten(dismissed.text, REASON_CHARS))
    reason = escape_markdown(shorten(dismissed.reason, REASON_CHARS))
    return f"- {text} | {escape_markdown(dismissed.file)}:{dismissed.line} | {reason}"


def _error_line(error: FileError) -> str:
    where = f"{error.file}:{error.line}" if error.line else error.file
    kind = "error" if error.fatal else "warning"
    return f"- {escape_markdown(where)}: {kind}: {escape_markdown(shorten(error.message, REASON_CHARS))}"


# --------------------------------------------------------------------------- the outcome at a glance

# How a failing claim's most specific fail-on category reads after "N claims" in `outcome_line`.
OUTCOME_WORDS: dict[str, str] = {
    "unsupported": "unsupported",
    "unreadable": "unreadable",
    "unreachable": "unreachable",
    "blocked": "blocked by the site",
    "not-extractable": "not extractable",
    "disallowed": "not allowed",
    "limit": "not checked (claim limit or cost cap)",
    "judge-error": "not judged (judge error)",
    "unsure": "not judged (judge unsure)",
    "no-fact": "stating no fact to check",
    "not-verified": "not verified",
    "unsourced": "unsourced",
}


def failing_category(claim: ClaimResult, fail_on: Collection[str]) -> str | None:
    """The most specific category of `fail_on` that `claim` falls in (None: it does not fail)."""
    return next((c for c in claim_categories(claim) if c in fail_on), None)


def usd(amount: float) -> str:
    """A cost at a glance: to the cent, or to four decimals under a cent (a few cheap calls)."""
    return f"${amount:.4f}" if 0 < amount < 0.01 else f"${amount:.2f}"


def _counted(parts: list[tuple[int, str]], total: int) -> str:
    """`3 of 41 claims unsupported, 2 unreachable` from [(3, "unsupported"), (2, "unreachable")]."""
    (first, words), rest = parts[0], parts[1:]
    head = f"{first} of {total} claim{'s' if total != 1 else ''} {words}"
    return ", ".join([head, *(f"{n} {w}" for n, w in rest)])


def outcome_line(report: Report, *, name: str = "citecheck") -> str:
    """The run's outcome in one line — passed, failed or not verified, with counts and the
    judge's cost — e.g. `❌ citecheck failed: 3 of 41 claims unsupported, 2 unreachable · $0.04`.

    A failed run counts its failing claims by their most specific fail-on category
    (`failing_category`) and its unreadable files; a passed one its verified claims and what
    did not fail it. Only counts and fixed words: nothing a PR or a page controls (`name` is
    the caller's, escaped all the same).
    """
    name = escape_markdown(name)
    total = report.total_claims
    cost = usd(report.total_cost_usd)
    fatal = len(unreadable_files(report.errors))
    unread = [(fatal, f"file{'s' if fatal != 1 else ''} unreadable")] if fatal else []
    if report.passed is False:
        by_category = Counter(failing_category(c, report.fail_on) for c in report.claims)
        parts = [(n, OUTCOME_WORDS[c]) for c in FAIL_ON_CATEGORIES if (n := by_category[c])]
        text = ", ".join(
            filter(None, [_counted(parts, total) if parts else "", *(f"{n} {w}" for n, w in unread)])
        )
        return f"❌ {name} failed: {text or 'see the report'} · {cost}"
    others = [
        (report.total_unsupported, "unsupported"),
        (report.total_not_verified, "not verified"),
        (report.total_unsourced, "unsourced"),
    ]
    others = [(n, w) for n, w in others if n]
    if report.passed is True:
        parts = [(report.total_supported, "verified"), *others]
        return f"✅ {name} passed: {_counted(parts, total)} · {cost}"
    if not report.claims and not unread:
        return f"⚪ {name}: no verifiable claims found · {cost}"
    text = ", ".join(
        filter(None, [_counted(others, total) if others else "", *(f"{n} {w}" for n, w in unread)])
    )
    return f"⚠️ {name} verified nothing: {text} · {cost}"


def unreadable_note(report: Report) -> str:
    """One line naming the files the run could not read ("" for none), for the first line of
    the Action's comment, summary and `note` output: their claims were never checked."""
    files = unreadable_files(report.errors)
    if not files:
        return ""
    shown = ", ".join(f"`{escape_markdown(f)}`" for f in files[:5])
    more = f" and {len(files) - 5} more" if len(files) > 5 else ""
    fails = "this fails the check" if "unreadable" in report.fail_on else "the check cannot pass"
    return (
        f"Files not read: {shown}{more} could not be read (see File errors), so none of their "
        f"claims was checked; {fails} (`unreadable`)."
    )


# --------------------------------------------------------------------------- rendering

# The PR comment folds Verified Claims in <details> when something failed or is unsourced
# (those come first for a reviewer), and on a clean run when the list is longer than this.
FOLD_VERIFIED_OVER = 10
_REPORT_ORDER = ("failed", "unsourced", "verified", "details", "notes", "errors", "dismissed")
# When a comment must be cut: the notes that explain the numbers first (a "Details" line such
# as "Not verified because of the cost cap or claim limit: 760" says what the failures are),
# then every failure that fits, the file errors, and what passed last.
_COMMENT_ORDER = ("details", "notes", "failed", "errors", "unsourced", "verified", "dismissed")


@dataclass(frozen=True)
class _Layout:
    """How one destination shows the report."""

    head: tuple[str, ...] = ()  # lines before the report (the caller's own Markdown), kept whole
    tail: tuple[str, ...] = ()  # paragraphs after it (the caller's own Markdown), kept whole
    fold_verified: bool = False  # Verified Claims folded in <details>
    tag_deciders: bool = False  # outcomes tagged with who decided them, counted in the Details
    order: tuple[str, ...] = _REPORT_ORDER  # which parts keep their lines first when cut
    hint: str = ""  # where the full report is, when this one is cut
    max_chars: int | None = None
    max_bytes: int | None = None


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
    URLs are angle-bracket autolinks. An empty section says "None.". With `max_chars` and/or
    `max_bytes` of UTF-8 (the job summary: `STEP_SUMMARY_LIMIT_BYTES`), whole claim lines are
    dropped — verified first, then unsourced, then failed, each from its end — until the text
    fits; the Summary is always kept, a note on its own line says how many lines of a part are
    not shown, and another that the full report is in `full_report_hint` (the caller's own
    Markdown, e.g. "the [job summary](…)", so it is not escaped). With `link_base` (e.g.
    `https://github.com/o/r/blob/<sha>`), each `file:line` links to that line.
    """
    link = blob_link(link_base) if link_base else None
    layout = _Layout(hint=full_report_hint, max_chars=max_chars, max_bytes=max_bytes)
    return _render(report, _section_lines(report, link), layout)


def render_comment(
    report: Report,
    *,
    full_report_hint: str,
    max_bytes: int | None = None,
    max_chars: int | None = None,
    link: LinkFor | None = None,
    name: str = "citecheck",
    head: Sequence[str] = (),
    tail: Sequence[str] = (),
) -> str:
    """The report as a PR comment: `head` (the caller's, e.g. a hidden marker), the outcome
    line, then the Verification Report with its headings and line formats unchanged, then the
    `tail` paragraphs.

    Verified Claims are folded in `<details>` when anything failed or is unsourced, or when
    there are more than `FOLD_VERIFIED_OVER` of them, so the failures are on the first screen.
    Each `file:line` links to `link(claim)`. Cut to `max_bytes` of UTF-8 and/or `max_chars`:
    the head, outcome line, Summary and tail are always kept, then, in this order, as many
    lines as fit of the Details and Notes (they explain the numbers), the failed claims, the
    file errors, the unsourced claims and the verified ones; a note says where the full report
    is (`full_report_hint`, the caller's own Markdown).
    """
    sections = _section_lines(report, link, tag_decider=True)
    fold = bool(sections["failed"] or sections["unsourced"]) or len(sections["verified"]) > FOLD_VERIFIED_OVER
    layout = _Layout(
        head=(*head, outcome_line(report, name=name), ""),
        tail=tuple(tail),
        fold_verified=fold,
        tag_deciders=True,
        order=_COMMENT_ORDER,
        hint=full_report_hint,
        max_chars=max_chars,
        max_bytes=max_bytes,
    )
    return _render(report, sections, layout)


def _render(report: Report, sections: dict[str, list[str]], layout: _Layout) -> str:
    counts = summary_counts(report)
    summary = [
        "### Summary",
        f"- Total claims: {counts.total}",
        f"- Verified: {counts.verified}",
        f"- Failed: {counts.failed}",
        f"- Unsourced: {counts.unsourced}",
    ]
    extras: dict[str, list[str]] = {
        "details": _details(report, decided=layout.tag_deciders),
        "notes": [f"- {escape_markdown(shorten(n, REASON_CHARS))}" for n in report.notes],
        "errors": [_error_line(e) for e in report.errors],
        # Listed where a reviewer sees them: the screen's reading is the only check they had.
        "dismissed": [_dismissed_line(d) for d in report.dismissed],
    }

    def not_shown(hidden: int) -> list[str]:
        # A blank line first: right under a list item the note would continue its last bullet.
        return ["", f"*… {hidden} more not shown.*"] if hidden else []

    def claims_part(key: str, shown: list[str]) -> list[str]:
        total = len(sections[key])
        hidden = not_shown(total - len(shown))
        if key == "verified" and layout.fold_verified and shown:
            # An HTML block ends at a blank line, so the list inside is Markdown; the blank line
            # after </details> ends that block before the next heading.
            what = f"{total} verified claim{'s' if total != 1 else ''}"
            return [f"<details><summary>{what}</summary>", "", *shown, *hidden, "", "</details>", ""]
        return [*(shown or (["None."] if not total else [])), *hidden]

    def assemble(shown: dict[str, list[str]], cut: bool) -> str:
        out = [*layout.head, "## Verification Report"]
        if not report.claims:
            out.append("No verifiable claims found.")
        for key, heading in (
            ("verified", "### Verified Claims"),
            ("failed", "### Failed Claims"),
            ("unsourced", "### Unsourced Claims"),
        ):
            out.append(heading)
            out.extend(claims_part(key, shown[key]))
        out.extend(summary)
        if cut:
            where = f" in {layout.hint}" if layout.hint else " in the JSON report"
            out.append("")
            out.append(f"*This report was shortened to fit; the full report is{where}.*")
        for key, heading in (
            ("details", "### Details"),
            ("notes", "### Notes"),
            ("errors", "### File errors"),
            ("dismissed", "### Set aside by the screen (no fact stated)"),
        ):
            if shown[key]:
                out.extend([heading, *shown[key], *not_shown(len(extras[key]) - len(shown[key]))])
        for paragraph in layout.tail:
            out.extend(["", paragraph])
        return "\n".join(out) + "\n"

    def over(text: str) -> int:
        """How far `text` is over the tighter limit, in that limit's unit (<= 0: it fits)."""
        excess = len(text) - layout.max_chars if layout.max_chars is not None else -(2**62)
        if layout.max_bytes is not None:
            excess = max(excess, len(text.encode("utf-8")) - layout.max_bytes)
        return excess

    def size(line: str) -> int:
        return len(line.encode("utf-8")) + 1 if layout.max_bytes is not None else len(line) + 1

    full = {**sections, **extras}
    text = assemble(full, cut=False)
    if over(text) <= 0:
        return text

    # Fill the budget in priority order with each part's leading lines; the skeleton
    # (headings, summary, "more not shown" notes) is re-measured after each part.
    shown: dict[str, list[str]] = {k: [] for k in layout.order}
    for key in layout.order:
        budget = -over(assemble(shown, cut=True))
        for line in full[key]:
            if size(line) > budget:
                break
            shown[key].append(line)
            budget -= size(line)
    # A part's heading appears with its first line; give lines back until it all fits.
    text = assemble(shown, cut=True)
    while over(text) > 0 and any(shown.values()):
        last = next(k for k in reversed(layout.order) if shown[k])
        shown[last].pop()
        text = assemble(shown, cut=True)
    return text
