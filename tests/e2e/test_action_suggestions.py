"""Suggested changes end to end: `entrypoint.py` on a real git repository's PR, against a source
server and the GitHub stand-in (its reviews API and GraphQL review threads), judge off. A claim a
check contradicts with the page's words gets a review comment whose `suggestion` block is its
line with only the wrong words replaced; the next run posts nothing twice, and marks outdated
what it no longer finds."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_action_e2e import PR, REPO, Result, Scenario, _page, pr_payload, report_json, run_action
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo
from tests.servers.source_server import SourceServer

SURVEY = (
    "The 2024 survey collected 14,000 responses. Only 48% of contributors reported being paid for any "
    "of their open source work; the share was higher among maintainers of large projects."
)
OBITUARY = "Brian Pendleton, musician, born April 13 1944; died May 25 2001."
INTERVIEW = (
    "Interview with Dr. Ada Example, lead author of the 2024 Example Developer Survey. "
    "A: Because documentation is the front door of a project. We saw it in the numbers: people leave "
    "when the docs are wrong."
)
BASE_DOC = """# Guide

About 60% of contributors are paid for their open source work, [it says]({survey}).
"""
UNCHANGED_LINE = 3
ADDED = """
About **70%** of contributors are paid for their open source work, [the survey found]({survey}).

The guitarist Brian Pendleton of the band
died on 16 May 2001 ([obituary]({obituary})).

Dr. Ada Example said that “people leave when the docs are long” ([interview]({interview})).
"""
PAID_LINE, DIED_FIRST, DIED_LINE, QUOTE_LINE = 5, 7, 8, 10


def scenario(tmp_path: Path, sources: SourceServer, gh: GitHubServer) -> Scenario:
    urls = {
        "survey": sources.add("/survey", _page(SURVEY)),
        "obituary": sources.add("/obituary", _page(OBITUARY)),
        "interview": sources.add("/interview", _page(INTERVIEW)),
    }
    origin = Repo(tmp_path / "origin")
    base = origin.commit({"docs/guide.md": BASE_DOC.format(**urls)}, "base")
    head = origin.commit({"docs/guide.md": BASE_DOC.format(**urls) + ADDED.format(**urls)}, "head")
    gh.serve_repo(REPO, origin.root)
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base)
    return Scenario(origin, base, head, urls)


def inputs(sources: SourceServer, **more: str) -> dict[str, str]:
    # `file`: the whole changed file is checked, so a claim on a line the PR did not touch fails too.
    return {"allow-private-hosts": sources.host, "judge": "none", "filter-mode": "file", **more}


def run(tmp_path: Path, s: Scenario, gh: GitHubServer, sources: SourceServer, **more: str) -> Result:
    return run_action(tmp_path, s.origin.root, gh, inputs=inputs(sources, **more), payload=pr_payload(s))


def block(body: str) -> list[str]:
    """The lines of a comment's suggestion block."""
    lines = body.splitlines()
    start = lines.index("```suggestion") + 1
    return lines[start : lines.index("```", start)]


def test_a_review_suggests_the_pages_words_once_then_marks_what_passes_outdated(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = scenario(tmp_path, sources, gh)
    r = run(tmp_path, s, gh, sources)
    assert r.code == 1, r.stdout + r.stderr

    # One review, one comment per contradicted claim the PR added, on its head lines.
    [review] = gh.reviews(REPO, PR)
    assert review["state"] == "COMMENTED" and review["commit_id"] == s.head
    assert "suggests 3 changes" in review["body"]
    by_line = {c["line"]: c for c in review["comments"]}
    assert sorted(by_line) == [PAID_LINE, DIED_LINE, QUOTE_LINE]
    assert all(c["path"] == "docs/guide.md" and c["side"] == "RIGHT" for c in review["comments"])

    # The replacement is exact: the line as the file has it (Markdown and all), only the span changed.
    survey, obituary = s.urls["survey"], s.urls["obituary"]
    assert block(by_line[PAID_LINE]["body"]) == [
        f"About **48%** of contributors are paid for their open source work, [the survey found]({survey})."
    ]
    assert by_line[PAID_LINE]["start_line"] is None
    assert "number check: the page gives '48%' where the claim says '70%'" in by_line[PAID_LINE]["body"]
    assert "Only 48% of contributors reported being paid" in by_line[PAID_LINE]["body"]  # the evidence
    # A span on the second line of a soft-wrapped sentence: the one line it is on.
    assert block(by_line[DIED_LINE]["body"]) == [f"died on May 25 2001 ([obituary]({obituary}))."]
    assert by_line[DIED_LINE]["start_line"] is None
    # A misquote: the quotation's wrong word, the page's in its place.
    interview = s.urls["interview"]
    assert block(by_line[QUOTE_LINE]["body"]) == [
        f"Dr. Ada Example said that “people leave when the docs are wrong” ([interview]({interview}))."
    ]

    # The claim on a line the PR did not add fails too, and its fix is in the reports, not on the PR.
    report = report_json(r)
    claims = report["claims"]  # type: ignore[index]
    fixes = {c["suggestion"]["line"]: c["suggestion"] for c in claims if c.get("suggestion")}
    assert sorted(fixes) == [UNCHANGED_LINE, PAID_LINE, DIED_LINE, QUOTE_LINE]
    assert fixes[PAID_LINE] | {"lines": None, "evidence": None} == {
        "file": "docs/guide.md",
        "line": PAID_LINE,
        "column": 9,
        "end_line": PAID_LINE,
        "end_column": 12,
        "original": "70%",
        "replacement": "48%",
        "lines": None,
        "evidence": None,
        "check": "number",
    }
    sarif = json.loads((r.workspace / r.outputs["report-sarif"]).read_text())
    fixed = [x for x in sarif["runs"][0]["results"] if "fixes" in x]
    assert len(fixed) == 4
    paid = next(x for x in fixed if x["locations"][0]["physicalLocation"]["region"]["startLine"] == PAID_LINE)
    [change] = paid["fixes"][0]["artifactChanges"]
    assert change["replacements"] == [
        {
            "deletedRegion": {
                "startLine": PAID_LINE,
                "startColumn": 9,
                "endLine": PAID_LINE,
                "endColumn": 12,
            },
            "insertedContent": {"text": "48%"},
        }
    ]
    # The sticky comment says where the suggestions are.
    assert "3 suggested changes are on the diff" in gh.comments(REPO, PR)[0]["body"]

    # Again on the same head: nothing posted twice, and no second review.
    r = run(tmp_path, s, gh, sources)
    assert r.code == 1
    assert len(gh.reviews(REPO, PR)) == 1
    assert "suggested changes: 0 posted, 3 already on the PR, 0 marked outdated" in r.stdout

    # The writer commits the figure's suggestion: that claim passes, its comment is marked
    # outdated and its thread resolved; the others stay, and still nothing is posted again.
    fixed_doc = (s.origin.root / "docs/guide.md").read_text().replace("**70%**", "**48%**")
    head = s.origin.commit({"docs/guide.md": fixed_doc}, "apply suggestion")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=s.base)
    s = Scenario(s.origin, s.base, head, s.urls)
    r = run(tmp_path, s, gh, sources)
    assert r.code == 1
    assert len(gh.reviews(REPO, PR)) == 1
    assert "suggested changes: 0 posted, 2 already on the PR, 1 marked outdated" in r.stdout
    comments = {c["line"]: c for c in gh.review_comments(REPO, PR)}
    assert comments[PAID_LINE]["minimized"] == "OUTDATED"
    assert comments[DIED_LINE]["minimized"] is None and comments[QUOTE_LINE]["minimized"] is None
    resolved = {t["comments"][0]: t["isResolved"] for t in gh.review_threads(REPO, PR)}
    assert resolved == {
        comments[PAID_LINE]["id"]: True,
        comments[DIED_LINE]["id"]: False,
        comments[QUOTE_LINE]["id"]: False,
    }


def test_a_fork_token_gets_one_notice_and_no_review(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = scenario(tmp_path, sources, gh)
    gh.state.forbid_writes = True  # a fork PR's read-only token
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs(sources), payload=pr_payload(s, fork=True))
    assert r.code == 1, r.stdout + r.stderr  # the claims decide, not the review
    assert gh.reviews(REPO, PR) == []
    assert not [x for x in gh.requests() if "/reviews" in x.path or "/pulls/7/comments" in x.path]
    notices = [line for line in r.stdout.splitlines() if "suggested changes" in line]
    assert notices == [
        "::notice::citecheck: suggested changes skipped (this pull request comes from a fork: its token "
        "may not write reviews)"
    ]
    assert report_json(r)["claims"][1]["suggestion"]  # type: ignore[index]


def test_a_token_that_may_not_review_is_a_notice_and_suggestions_false_asks_nothing(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = scenario(tmp_path, sources, gh)
    gh.fail("POST", r"/pulls/\d+/reviews$", 403)  # no `pull-requests: write`
    r = run(tmp_path, s, gh, sources)
    assert r.code == 1, r.stdout + r.stderr
    assert gh.reviews(REPO, PR) == []
    [notice] = [line for line in r.stdout.splitlines() if line.startswith("::notice::citecheck: suggested")]
    assert "HTTP 403" in notice and "pull-requests: write" in notice
    assert "::error" not in r.stdout.replace("::error file=", "")  # the annotations only

    before = len(gh.requests())
    r = run(tmp_path, s, gh, sources, suggestions="false")
    assert r.code == 1
    asked = gh.requests()[before:]
    assert not [x for x in asked if "/reviews" in x.path or x.path.endswith(f"/pulls/{PR}/comments")]
    assert "suggested changes" not in r.stdout
