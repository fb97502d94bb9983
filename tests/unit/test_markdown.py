"""The Verification Report in Markdown: its structure (a contract), escaping, cutting to a limit."""

from __future__ import annotations

import html as htmllib
import random
import re

import pytest
from markdown_it import MarkdownIt

from citecheck.models import Cause, FileError, Verdict
from citecheck.output.common import GITHUB_COMMENT_LIMIT, escape_markdown, markdown_url, shorten
from citecheck.output.markdown import claim_line, render_markdown
from citecheck.output.report import summary_counts
from tests.unit.report_samples import claim, judged, many_claims, mixed_claims, report_of

# GitHub's user/team mention and issue-reference patterns (as its html-pipeline filters use).
MENTION = re.compile(r"(?:^|\W)@[a-z0-9][a-z0-9-]*", re.IGNORECASE)
ISSUE_REF = re.compile(r"(?:^|\W)(?:#|GH-)\d+", re.IGNORECASE)


# --------------------------------------------------------------------------- Markdown


MANDATED_HEADINGS = [
    "## Verification Report",
    "### Verified Claims",
    "### Failed Claims",
    "### Unsourced Claims",
    "### Summary",
]


def headings(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("#")]


def test_markdown_structure_is_the_contract() -> None:
    r = report_of(mixed_claims())
    md = render_markdown(r)
    assert headings(md)[:5] == MANDATED_HEADINGS
    lines = md.splitlines()
    s = lines.index("### Summary")
    assert lines[s + 1 : s + 5] == ["- Total claims: 11", "- Verified: 3", "- Failed: 7", "- Unsourced: 1"]
    counts = summary_counts(r)
    assert counts.verified + counts.failed + counts.unsourced == counts.total
    # Anything extra comes after the Summary.
    assert all(h.startswith("###") for h in headings(md)[5:])

    def section(name: str) -> list[str]:
        start = lines.index(name) + 1
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("#"))
        return lines[start:end]

    verified, failed, unsourced = (section(h) for h in headings(md)[1:4])
    assert len(verified) == 3 and len(failed) == 7 and len(unsourced) == 1
    assert verified[0].endswith("| docs/b.md:5")  # ordered by file, then line
    assert verified[2] == (
        "- The library handles 14 million requests a day. | Source: <https://example.com/stats> | "
        "PASS: “handles 14 million requests each day” | docs/guide.md:3"
    )
    assert unsourced == ["- Most teams ship twice as fast with it. | No citation provided | docs/guide.md:40"]
    tags = [line.split(" | ")[2].split(":")[0] for line in failed]
    assert sorted(set(tags)) == sorted(
        {
            "FAIL",
            "FAIL (URL not reachable)",
            "FAIL (content not extractable)",
            "FAIL (source not allowed)",
            "FAIL (not verified)",
        }
    )
    assert "- The library handles 14 million requests a day. | Source: <https://example.com/stats> | " in md
    assert "FAIL: the page says 12 million, not 14 million | docs/guide.md:20" in md
    assert "FAIL (URL not reachable): HTTP 404 | docs/guide.md:30" in md
    assert "Source: \\[7\\] (unresolved) | FAIL (not verified): reference \\[7\\] not found" in md
    assert all(re.search(r" \| docs/\w+\.md:\d+$", line) for line in verified + failed + unsourced)


def test_pass_evidence_falls_back_to_the_judge_quote() -> None:
    md = render_markdown(report_of([claim(Verdict.pass_, judge=judged(0.001))]))
    assert "PASS: “14 million requests per day”" in md


def test_fail_without_reason_says_what_the_page_says() -> None:
    line = claim_line(claim(Verdict.fail, evidence="The service handles 12 million requests."))
    assert "FAIL: the page says: “The service handles 12 million requests.”" in line


def test_no_claims_says_so() -> None:
    md = render_markdown(report_of([]))
    assert "No verifiable claims found" in md
    assert headings(md)[:5] == MANDATED_HEADINGS
    assert "- Total claims: 0" in md


def test_extra_sections_hold_notes_errors_and_cost() -> None:
    r = report_of(
        mixed_claims(),
        notes=["allowlist empty: any public host was fetched"],
        errors=[FileError(file="docs/broken.md", line=7, message="unreadable <binary> file")],
        judge_model="claude-haiku-4-5",
    )
    md = render_markdown(r)
    after = md.split("### Summary", 1)[1]
    assert "### Notes\n- allowlist empty: any public host was fetched" in after
    assert "- docs/broken.md:7: error: unreadable &lt;binary&gt; file" in after
    assert "claude-haiku-4-5, cost: $0.0030" in after
    assert (
        "- Result: failed (fail-on: unsupported, unreadable, unreachable, not-extractable, disallowed, limit)"
        in after
    )


def test_details_count_judge_errors_and_doubts_apart_from_other_unverified_claims() -> None:
    claims = [
        claim(Verdict.pass_, line=1),
        claim(Verdict.fail, reason="the page says 12 million", line=2),
        claim(Verdict.not_verified, reason="judge error: HTTP 500", cause=Cause.judge_error, line=3),
        claim(Verdict.not_verified, reason="judge error: refused", cause=Cause.judge_error, line=4),
        claim(Verdict.not_verified, reason="judge unsure: confidence 0.20", cause=Cause.unsure, line=5),
        claim(Verdict.not_verified, reason="judge disabled", line=6),
        claim(Verdict.unreachable, reason="HTTP 403", cause=Cause.blocked, line=7),
        claim(Verdict.unreachable, reason="HTTP 404", line=8),
    ]
    md = render_markdown(report_of(claims))
    details = md.split("### Details", 1)[1]
    assert (
        "- Failed by type: unsupported 1, URL not reachable 1, blocked by the site 1, judge error 2, "
        "judge unsure 1, not verified 1\n" in details
    )
    assert "- Result: failed (fail-on: unsupported, unreachable, blocked, judge-error, unsure)" in details
    assert "FAIL (not verified): judge unsure: confidence 0.20 | docs/guide.md:5" in md


TRICKY = (
    "# Heading? <script>alert('x')</script> @octocat and @github/security-team said "
    "`rm -rf` | not | a table [click](https://evil.example) ![img](https://evil.example/x.png) "
    "**bold** _it_ ~~gone~~ $x^2$ see #123 and GH-7 & &amp;\n\n- new item\n> quote"
)


def render_html(md: str) -> str:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def test_escape_markdown_makes_tricky_text_inert() -> None:
    escaped = escape_markdown(TRICKY)
    assert "\n" not in escaped
    html = render_html(f"- {escaped} | Source: <https://example.com/a> | PASS: ok | docs/a.md:1\n")
    assert html.count("<li>") == 1
    for tag in ("<script", "<h1", "<code", "<strong", "<em", "<img", "<blockquote", "<del", "<table"):
        assert tag not in html, tag
    # The only link is our own source URL.
    assert re.findall(r'<a href="([^"]+)"', html) == ["https://example.com/a"]
    text = re.sub(r"<[^>]+>", "", html)
    assert not MENTION.search(text)
    assert not ISSUE_REF.search(text)
    # The reader still sees the words.
    for word in ("Heading?", "alert(", "octocat", "rm -rf", "click", "bold", "123"):
        assert word in text, word


TOKENS = [
    "#", "##", ">", "-", "+", "*", "_", "`", "```", "~~", "|", "[", "]", "(", ")", "![", "](", "<", ">",
    "</", "<script>", "<img src=x>", "&", "&amp;", "&#64;", "\\", "$", "@", "@octocat", "#12", "GH-3",
    "1.", "2)", "\n", "\n\n", "  ", "\t", "word", "x", "http://e.x/", "[^1]", ":smile:", "---", "===",
    "{", "}",
]  # fmt: skip


def test_escaped_text_renders_as_exactly_itself() -> None:
    """Property over random mixes of Markdown/HTML syntax: one list item, no markup, same words."""
    rng = random.Random(20261130)
    for _ in range(400):
        raw = "".join(rng.choice(TOKENS) + rng.choice(["", " "]) for _ in range(rng.randint(1, 14)))
        html = render_html(f"- {escape_markdown(raw)} | docs/a.md:1\n")
        tags = set(re.findall(r"</?([a-z0-9]+)", html))
        assert tags <= {"ul", "li"}, (raw, html)
        text = htmllib.unescape(re.sub(r"<[^>]+>", "", html))
        assert not MENTION.search(text) and not ISSUE_REF.search(text), raw
        shown = text.replace("\u200b", "").strip()
        expected = " ".join(raw.split())
        assert shown == f"{expected} | docs/a.md:1".strip(), raw


@pytest.mark.parametrize(
    "lead", ["# title", "## sub", "- item", "+ item", "* item", "1. first", "2) two", "> q"]
)
def test_leading_markers_do_not_make_structure(lead: str) -> None:
    html = render_html(f"- {escape_markdown(lead + ' rest')}\n")
    assert html.count("<li>") == 1
    assert "<ol" not in html and "<h" not in html and "<blockquote" not in html
    assert "rest" in html


def test_control_and_bidi_characters_are_dropped() -> None:
    assert escape_markdown("safe\u202etxt.exe\x00 ok\x1b[31m") == "safetxt.exe ok\\[31m"


def test_claim_line_escapes_claim_evidence_and_location() -> None:
    c = claim(
        Verdict.pass_,
        text="Use <b>x</b> | y\nnext line @octocat",
        evidence="a `b` | [c](d) @hubot",
        file="docs/odd|name.md",
    )
    line = claim_line(c)
    assert "\n" not in line
    assert line.count(" | ") == 3  # our separators only; the text's pipes are escaped
    assert "<b>" not in line and "&lt;b&gt;" in line
    html = render_html(line + "\n")
    assert html.count("<li>") == 1 and "<code" not in html


def test_urls_become_safe_autolinks() -> None:
    assert markdown_url("https://example.com/a_(b)?q=1#x") == "<https://example.com/a_(b)?q=1#x>"
    odd = markdown_url('https://example.com/a b>c|d`e`"f')
    assert odd == "<https://example.com/a%20b%3Ec%7Cd%60e%60%22f>"
    html = render_html(f"- x | Source: {odd} | y\n")
    assert html.count("<a href") == 1
    # A non-web URL is not made a link.
    assert "<a " not in render_html(markdown_url("javascript:alert(1)") + "\n")


def test_long_evidence_is_shortened() -> None:
    long = "word " * 500
    line = claim_line(claim(Verdict.pass_, evidence=long))
    evidence = line.split(" | ")[2]
    assert evidence.endswith("…”")
    assert len(evidence) < 230
    assert shorten("short text", 200) == "short text"
    assert len(shorten("x" * 1000, 200)) == 200


# --------------------------------------------------------------------------- cutting to a limit


def test_markdown_is_cut_to_the_comment_limit_by_whole_lines() -> None:
    r = report_of(many_claims(1200))
    full = render_markdown(r)
    assert len(full) > GITHUB_COMMENT_LIMIT
    cut = render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT, full_report_hint="the job summary")
    assert len(cut) <= GITHUB_COMMENT_LIMIT
    assert len(cut) > GITHUB_COMMENT_LIMIT - 1000  # the space is used, not wasted
    full_lines = set(full.splitlines())
    claim_lines = [line for line in cut.splitlines() if " | docs/" in line]
    assert claim_lines and all(line in full_lines for line in claim_lines)  # never cut mid-line
    assert headings(cut)[:5] == headings(full)[:5]
    assert "- Total claims: 1200" in cut and "- Failed: 600" in cut  # the summary counts everything
    assert "the full report is in the job summary" in cut
    assert "more not shown" in cut
    # Failed claims come first: every failed claim line that fits is kept before verified ones.
    failed_shown = sum(1 for line in claim_lines if "FAIL" in line)
    verified_shown = sum(1 for line in claim_lines if "PASS:" in line)
    assert failed_shown > verified_shown


@pytest.mark.parametrize("limit", [2_000, 5_000, 20_000])
def test_small_limits_still_fit(limit: int) -> None:
    r = report_of(many_claims(200), notes=["note " * 30] * 5)
    cut = render_markdown(r, max_chars=limit, full_report_hint="the job summary")
    assert len(cut) <= limit
    assert "### Summary" in cut and "- Total claims: 200" in cut


def test_byte_limit_for_the_job_summary() -> None:
    claims = [claim(Verdict.fail, text="東京の人口は1400万人です。" * 10, line=i + 1) for i in range(300)]
    r = report_of(claims)
    cut = render_markdown(r, max_bytes=20_000, full_report_hint="the JSON artifact")
    assert len(cut.encode("utf-8")) <= 20_000
    assert len(cut) < 15_000  # the characters are multi-byte: a char limit alone would not do
    assert "- Total claims: 300" in cut and "the JSON artifact" in cut
    both = render_markdown(r, max_bytes=50_000, max_chars=5_000)
    assert len(both) <= 5_000 and len(both.encode("utf-8")) <= 50_000


def test_locations_can_link_to_the_lines() -> None:
    c = claim(Verdict.fail, file="docs/my guide(1).md", line=12, reason="no")
    md = render_markdown(report_of([c]), link_base="https://github.com/o/r/blob/abc123/")
    html = render_html(md)
    assert '<a href="https://github.com/o/r/blob/abc123/docs/my%20guide%281%29.md#L12">' in html
    assert "docs/my guide(1).md:12</a>" in html


def test_no_cut_when_it_fits() -> None:
    r = report_of(mixed_claims())
    assert render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT) == render_markdown(r)
    assert "shortened" not in render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT)


def test_sentences_the_screen_set_aside_are_listed_after_everything_else_and_cut_first() -> None:
    from citecheck.models import ClaimKind, Dismissed
    from citecheck.output.markdown import render_comment

    dismissed = [
        Dismissed(
            text=f"Tool {i} is a *library* for parsing.",
            kinds=[ClaimKind.hyperlinked],
            file="docs/tools.md",
            line=i + 1,
            column=1,
            reason="describes the linked tool",
            model="claude-sonnet-4-6",
        )
        for i in range(400)
    ]
    report = report_of(mixed_claims(), dismissed=dismissed, screen_cost_usd=0.01)
    assert report.total_dismissed == 400
    text = render_markdown(report)
    heading = "### Set aside by the screen (no fact stated)"
    assert text.index("### Summary") < text.index(heading)
    assert "- Tool 0 is a \\*library\\* for parsing. | docs/tools.md:1 | describes the linked tool" in text
    # The summary counts the claims only.
    assert f"- Total claims: {len(mixed_claims())}" in text
    # A comment cut to fit keeps every failure and drops these first.
    comment = render_comment(report, full_report_hint="the job summary", max_chars=20_000)
    assert len(comment) <= 20_000
    failed = [c for c in report.claims if c.verdict not in (Verdict.pass_, Verdict.unsourced)]
    assert failed and all(f"| {c.file}:{c.line}" in comment for c in failed)
    shown = comment.count("| describes the linked tool")
    assert 0 < shown < 400 and f"*… {400 - shown} more not shown.*" in comment
    assert heading not in render_markdown(report_of(mixed_claims()))
