"""The PR comment: its first line, folded verified claims, links, and cutting to GitHub's limit,
checked on the HTML GitHub's own Markdown (cmark-gfm, through cmarkgfm) makes of it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from citecheck.models import Cause, ClaimResult, DecidedBy, FileError, Verdict
from citecheck.output.markdown import (
    FOLD_VERIFIED_OVER,
    OUTCOME_WORDS,
    outcome_line,
    render_comment,
    render_markdown,
    usd,
)
from citecheck.policy import FAIL_ON_CATEGORIES
from tests.unit.report_samples import claim, judged, many_claims, mixed_claims, report_of

MARKER = "<!-- citecheck-report -->"
HINT = "the [job summary](https://github.com/o/r/actions/runs/1)"


# --------------------------------------------------------------------------- GitHub's rendering


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find(self, tag: str) -> list[Node]:
        found = []
        for c in self.children:
            if isinstance(c, Node):
                if c.tag == tag:
                    found.append(c)
                found.extend(c.find(tag))
        return found

    def blocks(self) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node)]


class _Tree(HTMLParser):
    VOID = frozenset({"br", "hr", "img", "input"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root")
        self.stack = [self.root]
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        while len(self.stack) > 1:
            if self.stack.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def github_html(markdown: str) -> str:
    """The comment as GitHub renders it: cmark-gfm with GitHub's extensions; raw HTML kept, as
    GitHub's sanitizer keeps <details> and <summary>."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def rendered(markdown: str) -> tuple[Node, list[str]]:
    tree = _Tree()
    tree.feed(github_html(markdown))
    return tree.root, tree.comments


def _link(c: ClaimResult) -> str:
    return f"https://github.com/o/r/pull/5/files#diff-{'a' * 64}R{c.line}"


# --------------------------------------------------------------------------- the first line


def test_outcome_line_says_failed_with_counts_by_type_and_cost() -> None:
    claims = [
        *(claim(Verdict.fail, line=i, judge=judged(0.01)) for i in range(3)),
        *(claim(Verdict.unreachable, line=10 + i) for i in range(2)),
        *(claim(Verdict.pass_, line=20 + i, judge=judged(0.0025)) for i in range(36)),
    ]
    line = outcome_line(report_of(claims))
    assert line == "❌ citecheck failed: 3 of 41 claims unsupported, 2 unreachable · $0.12"


def test_outcome_line_passed_not_verified_and_empty() -> None:
    passed = report_of([claim(Verdict.pass_, line=1), claim(Verdict.unsourced, line=2, url=None)])
    assert outcome_line(passed) == "✅ citecheck passed: 1 of 2 claims verified, 1 unsourced · $0.00"
    judge_off = [claim(Verdict.not_verified, reason="judge off", line=i) for i in range(4)]
    nothing = report_of(judge_off, fail_on=["unsupported"])
    assert nothing.passed is None
    assert outcome_line(nothing) == "⚠️ citecheck verified nothing: 4 of 4 claims not verified · $0.00"
    assert outcome_line(report_of([])) == "⚪ citecheck: no verifiable claims found · $0.00"
    unread = [FileError(file="a.md", message="not UTF-8")]
    # A file not read fails the run by default (`unreadable`): its claims were never checked.
    assert outcome_line(report_of([], errors=unread)) == "❌ citecheck failed: 1 file unreadable · $0.00"
    lenient = report_of([], errors=unread, fail_on=["unsupported"])
    assert lenient.passed is None
    assert outcome_line(lenient) == "⚠️ citecheck verified nothing: 1 file unreadable · $0.00"
    two = report_of(
        [claim(Verdict.pass_, line=1)], errors=[*unread, FileError(file="b.md", line=3, message="stopped")]
    )
    assert (
        outcome_line(two, name="citecheck (docs)") == "❌ citecheck (docs) failed: 2 files unreadable · $0.00"
    )


def test_outcome_line_names_the_most_specific_failure_of_each_claim() -> None:
    claims = [
        claim(Verdict.not_verified, reason="claim limit reached", limit=True, line=1),
        claim(Verdict.not_verified, reason="judge error: 500", cause=Cause.judge_error, line=2),
        claim(Verdict.unreachable, reason="robots", cause=Cause.blocked, line=3),
    ]
    assert outcome_line(report_of(claims)) == (
        "❌ citecheck failed: 1 of 3 claims blocked by the site, 1 not checked (claim limit or cost cap), "
        "1 not judged (judge error) · $0.00"
    )
    assert set(OUTCOME_WORDS) == set(FAIL_ON_CATEGORIES)


def test_costs_read_at_a_glance() -> None:
    assert [usd(x) for x in (0, 0.0012, 0.01, 0.0449, 1.5)] == ["$0.00", "$0.0012", "$0.01", "$0.04", "$1.50"]


# --------------------------------------------------------------------------- structure


def test_comment_is_the_report_under_an_outcome_line_with_verified_claims_folded() -> None:
    report = report_of(mixed_claims())
    body = render_comment(report, full_report_hint=HINT, link=_link, head=(MARKER,))
    lines = body.splitlines()
    assert lines[0] == MARKER and lines[1].startswith("❌ citecheck failed: ") and lines[2] == ""
    # The report's headings and claim lines are the report's own (`--format markdown`).
    plain = render_markdown(report)
    assert [x for x in lines if x.startswith("#")] == [x for x in plain.splitlines() if x.startswith("#")]
    claim_lines = [x for x in lines if x.startswith("- ") and " | " in x]
    # The same lines, but for the link on file:line and who decided, inside the outcome field.
    untagged = [
        re.sub(r" — \*(?:number check|quote check|date check|judge)\*(?= \| )", "", x) for x in claim_lines
    ]
    assert [re.sub(r"\[([^]]+)\]\([^)]+\)$", r"\1", x) for x in untagged] == [
        x for x in plain.splitlines() if x.startswith("- ") and " | " in x
    ]

    root, comments = rendered(body)
    assert comments == [" citecheck-report "]  # the marker stays hidden
    blocks = root.blocks()
    assert blocks[0].tag == "p" and blocks[0].text() == lines[1]  # the first thing a reader sees
    assert [b.tag for b in blocks[1:4]] == ["h2", "h3", "details"]
    details = blocks[3]
    assert "open" not in details.attrs  # folded until clicked
    assert details.find("summary")[0].text() == "3 verified claims"
    assert len(details.find("li")) == 3 and all("PASS:" in li.text() for li in details.find("li"))
    assert blocks[4].tag == "h3" and blocks[4].text() == "Failed Claims"
    failed = blocks[5]
    assert failed.tag == "ul" and len(failed.find("li")) == 7 and "FAIL" in failed.find("li")[0].text()
    # Every claim's file:line is a link into the PR's diff.
    hrefs = [a.attrs["href"] for a in root.find("a") if a.text().startswith("docs/")]
    assert len(hrefs) == 11 and all(urlsplit(h or "").fragment.startswith("diff-") for h in hrefs)


def test_the_comment_says_which_claims_a_check_decided_and_which_the_judge() -> None:
    by_number = claim(Verdict.fail, line=1, reason="the page gives '48%' where the claim says '70%'")
    by_quote = claim(Verdict.pass_, line=2, evidence="the front door of a project").model_copy(
        update={"decided_by": DecidedBy.quote}
    )
    by_judge = claim(Verdict.fail, line=3, judge=judged(0.01, supported=False), reason="the page says 12")
    unsure = claim(
        Verdict.not_verified, line=4, judge=judged(0.01), cause=Cause.unsure, reason="judge unsure"
    )
    dead = claim(Verdict.unreachable, line=5, reason="HTTP 404")  # decided by the fetch: no tag
    report = report_of([by_number, by_quote, by_judge, unsure, dead])
    body = render_comment(report, full_report_hint=HINT)
    line_of = {n: next(x for x in body.splitlines() if x.endswith(f"docs/guide.md:{n}")) for n in range(1, 6)}
    assert "| FAIL: the page gives '48%' where the claim says '70%' — *number check* |" in line_of[1]
    assert "— *quote check* | docs/guide.md:2" in line_of[2]
    assert "| FAIL: the page says 12 — *judge* |" in line_of[3]
    assert "— *judge* | docs/guide.md:4" in line_of[4]
    assert "— *" not in line_of[5]
    assert "- Decided by a check, no judge call: 2 (number check 1, quote check 1); by the judge: 2" in body
    # GitHub shows the tag in the same list item, emphasised.
    root, _ = rendered(body)
    items = [li for li in root.find("li") if li.text().endswith("docs/guide.md:1")]
    assert [em.text() for em in items[0].find("em")] == ["number check"]
    # The report itself (`--format markdown`, the job summary) is untagged.
    plain = render_markdown(report)
    assert "— *" not in plain and "Decided by" not in plain


def test_a_clean_run_folds_only_a_long_list() -> None:
    short = [claim(Verdict.pass_, line=i) for i in range(FOLD_VERIFIED_OVER)]
    assert "<details>" not in render_comment(report_of(short), full_report_hint=HINT)
    long = [claim(Verdict.pass_, line=i) for i in range(FOLD_VERIFIED_OVER + 1)]
    root, _ = rendered(render_comment(report_of(long), full_report_hint=HINT))
    assert root.find("details")[0].find("summary")[0].text() == f"{FOLD_VERIFIED_OVER + 1} verified claims"


def test_markdown_format_is_not_folded_and_has_no_outcome_line() -> None:
    md = render_markdown(report_of(mixed_claims()))
    assert md.startswith("## Verification Report\n") and "<details>" not in md and "❌" not in md


def test_link_targets_cannot_break_out_of_the_link() -> None:
    c = claim(Verdict.fail, file="docs/a (1).md", line=3)
    body = render_comment(report_of([c]), full_report_hint=HINT, link=lambda _: "https://e.x/a b)c")
    root, _ = rendered(body)
    (a,) = [a for a in root.find("a") if a.text() == "docs/a (1).md:3"]
    assert a.attrs["href"] == "https://e.x/a%20b%29c"


# --------------------------------------------------------------------------- cutting to the limit


def _thousand_claims() -> list[ClaimResult]:
    """240 claims the page contradicts, then 760 past the claim limit, then nothing verified."""
    out = []
    for i in range(1000):
        limited = i >= 240
        out.append(
            claim(
                Verdict.not_verified if limited else Verdict.fail,
                text=f"Claim number {i} says the service handled {i} million requests " + "x" * 150,
                line=i + 1,
                reason="claim limit reached (max-claims)"
                if limited
                else "the page says 3 million " + "y" * 200,
                limit=limited,
            )
        )
    return out


@pytest.mark.parametrize(("unit", "limit"), [("bytes", 262_144), ("chars", 65_536), ("bytes", 30_000)])
def test_a_cut_comment_keeps_the_outcome_the_explanations_and_failures_first(unit: str, limit: int) -> None:
    report = report_of(_thousand_claims(), notes=["judge: anthropic, max-claims 240"])
    kw = {"max_bytes": limit} if unit == "bytes" else {"max_chars": limit}
    body = render_comment(report, full_report_hint=HINT, head=(MARKER,), tail=["*a note of ours*"], **kw)
    size = len(body.encode()) if unit == "bytes" else len(body)
    assert limit - 2_000 < size <= limit  # the space is used, not wasted
    lines = body.splitlines()
    limited = "760 not checked (claim limit or cost cap)"
    assert lines[1] == f"❌ citecheck failed: 240 of 1000 claims unsupported, {limited} · $0.00"
    # What explains the numbers is kept: the Summary, the Details (760 are only the claim limit),
    # the notes, where the full report is, and the caller's tail.
    assert "- Total claims: 1000" in lines and "- Failed: 1000" in lines
    assert "- Not verified because of the cost cap or claim limit: 760" in lines
    assert "- judge: anthropic, max-claims 240" in lines
    assert "*This report was shortened to fit; the full report is in " + HINT + ".*" in lines
    assert lines[-1] == "*a note of ours*"
    # Real failures before the limited ones, in order, whole lines only.
    shown = [x for x in lines if x.startswith("- Claim number")]
    untagged = [x.replace(" — *number check* |", " |") for x in shown]
    assert (
        untagged
        == [x for x in render_markdown(report).splitlines() if x.startswith("- Claim number")][: len(shown)]
    )
    assert "the page says 3 million" in shown[0]

    root, _ = rendered(body)
    # "… N more not shown" is a paragraph of its own, never glued to the last bullet.
    notes = [p for p in root.find("p") if "more not shown" in p.text()]
    assert notes and all(re.fullmatch(r"… \d+ more not shown\.", p.text()) for p in notes)
    assert not any("more not shown" in li.text() for li in root.find("li"))
    hidden = int(re.search(r"… (\d+) more not shown", body)[1])  # type: ignore[index]
    assert hidden == 1000 - len(shown)


def test_the_summary_of_a_cut_report_is_not_glued_either() -> None:
    md = render_markdown(report_of(many_claims(300)), max_bytes=20_000, full_report_hint="the JSON report")
    root, _ = rendered(md)
    assert not any("more not shown" in li.text() for li in root.find("li"))
    assert any(re.fullmatch(r"… \d+ more not shown\.", p.text()) for p in root.find("p"))
