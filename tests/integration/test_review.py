"""The review of suggested changes (`citecheck.github.review`) against the GitHub stand-in,
through PyGithub: which earlier suggestions count as posted, which are marked outdated, and what
a token that may not resolve threads gets (a notice, never an exception)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citecheck.github.review import ReviewClient, ReviewOutcome, publish_review, suggestion_marker
from citecheck.models import ClaimKind, ClaimResult, Report, Verdict
from citecheck.redact import Redactor
from citecheck.select import PRFile
from tests.servers.github_server import GitHubServer

REPO, PR, HEAD = "octo/docs", 7, "a" * 40
LINES = ["# T", "", "About 48% of contributors are paid for their open source work."]
PATCH = "@@ -0,0 +1,3 @@\n" + "".join(f"+{line}\n" for line in LINES)
SOMEONE = {"login": "someone", "id": 7, "type": "User"}


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        server.add_pr_files(REPO, PR, [{"filename": "doc.md", "status": "added", "patch": PATCH}])
        yield server


def passing_report() -> Report:
    claim = ClaimResult(
        text=LINES[2], kinds=[ClaimKind.statistic], file="doc.md", line=3, column=1, verdict=Verdict.pass_
    )
    return Report(passed=True, overall_score=1.0, claims=[claim])


def earlier(gh: GitHubServer, key: str, user: dict[str, object] | None = None) -> None:
    """A suggestion comment of an earlier run, by the token's account (or `user`)."""
    body = {
        "commit_id": HEAD,
        "event": "COMMENT",
        "comments": [{"path": "doc.md", "line": 3, "side": "RIGHT", "body": suggestion_marker(key) + "\nx"}],
    }
    gh._server.new_review(REPO, PR, body, user or dict(gh.state.identity))


def publish(gh: GitHubServer, tree: Path) -> ReviewOutcome:
    (tree / "doc.md").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    client = ReviewClient(gh.token, gh.url, REPO, PR)
    files = [PRFile("doc.md", "added", PATCH)]
    return publish_review(
        client, passing_report(), pr_files=files, tree=tree, head_sha=HEAD, redact=Redactor()
    )


def test_a_suggestion_whose_claim_passes_is_minimized_and_resolved_but_only_ours(
    gh: GitHubServer, tmp_path: Path
) -> None:
    earlier(gh, "1" * 24)
    earlier(gh, "2" * 24, SOMEONE)  # someone else's comment with our marker: never touched
    outcome = publish(gh, tmp_path)
    assert (outcome.posted, outcome.kept, outcome.outdated, outcome.notices) == (0, 0, 1, [])
    ours, theirs = gh.review_comments(REPO, PR)
    assert ours["minimized"] == "OUTDATED" and theirs["minimized"] is None
    resolved = {t["comments"][0]: t["isResolved"] for t in gh.review_threads(REPO, PR)}
    assert resolved == {ours["id"]: True, theirs["id"]: False}
    assert len(gh.reviews(REPO, PR)) == 2  # no review of this run: it has nothing to suggest

    # Once more: already minimized and resolved, so no mutation is sent again.
    before = len(gh.requests("POST"))
    publish(gh, tmp_path)
    mutations = [r for r in gh.requests("POST")[before:] if "mutation" in str(r.body)]
    assert mutations == []


def test_a_token_that_may_not_resolve_threads_gets_a_notice(gh: GitHubServer, tmp_path: Path) -> None:
    earlier(gh, "1" * 24)
    gh.state.graphql_writes = False
    outcome = publish(gh, tmp_path)
    [notice] = outcome.notices
    assert notice.startswith("1 earlier suggested change(s) not marked outdated: HTTP 400")
    assert "Resource not accessible by integration" in notice
    assert gh.review_comments(REPO, PR)[0]["minimized"] is None
