"""Suggested changes on the PR: one pull-request review whose comments carry GitHub
`suggestion` blocks, the page's own words in place of a contradicted claim's.

A claim's fix is made once, by the checks stage (`citecheck.checks.fix`, `ClaimResult.suggestion`);
this module only puts it on the PR:

- on the lines the PR added, and only there: each line of the fix must be one the PR's diff
  adds (`shown_lines(added_only=True)`, moved onto the checked-out file as the selection
  moves them), and the lines it replaces must read, in the checked-out tree (`read_inside`:
  through no symbolic link), exactly as the fix says — else no comment. The block is the
  whole line(s) with only the claim's span replaced;
- once: each comment carries a hidden marker with its key (the job's `comment-id`, the file,
  the claim's text, the words replaced and their replacement). The token's own comments with
  this job's marker are read first; a fix already posted is not posted again, and a run whose
  fixes are all there posts no review at all;
- an earlier fix this run does not find again, in a file it checked (its claim passes now, or
  reads otherwise), is minimized as outdated and its thread resolved (GraphQL
  `minimizeComment`, `resolveReviewThread`), where the token may;
- never an error: a fork's pull request (a read-only token, no secrets) is skipped before any
  request, with one notice; a refusal (403: no `pull-requests: write`), a review GitHub
  rejects (422) or a network failure is one notice too, and the rest of the run is unchanged.

The marker, the reason and the page's sentence are rendered as the PR comment renders
untrusted text (`escape_markdown`); the suggestion block is the file's own line, so a line
with a control or bidi character in it (which the fix refuses) never gets one, and the fence
is longer than any run of backticks in it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from citecheck.cache import digest
from citecheck.errors import UnsafePathError
from citecheck.github.publish import (
    GitHubAPIError,
    Identity,
    PullRequestClient,
    api_call,
    report_name,
    shown_lines,
)
from citecheck.models import ClaimResult, Report, Suggestion
from citecheck.output.common import (
    EVIDENCE_CHARS,
    REASON_CHARS,
    collapse_whitespace,
    escape_markdown,
    markdown_url,
    shorten,
)
from citecheck.redact import Redactor
from citecheck.safe_paths import read_inside
from citecheck.select import PRFile

_MARKER = re.compile(r"<!-- citecheck-suggestion(?::(?P<id>[A-Za-z0-9._-]+))? (?P<key>[0-9a-f]{24}) -->")
THREADS_PAGES = 10  # review threads read for the outdated ones, 100 a page

THREADS_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { id databaseId isMinimized } } }
      }
    }
  }
}
"""
MINIMIZE = (
    "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) "
    "{ minimizedComment { isMinimized } } }"
)
RESOLVE = "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }"


def suggestion_key(claim: ClaimResult, suggestion: Suggestion, comment_id: str = "") -> str:
    """What makes a suggestion the same on the next push: the job, the file, the claim's text,
    the words replaced and their replacement (not the line: it moves)."""
    parts = (
        comment_id,
        claim.file,
        collapse_whitespace(claim.text),
        suggestion.original,
        suggestion.replacement,
    )
    return digest("suggestion", *parts)[:24]


def suggestion_marker(key: str, comment_id: str = "") -> str:
    return f"<!-- citecheck-suggestion{':' + comment_id if comment_id else ''} {key} -->"


def _fence(lines: Iterable[str]) -> str:
    """A code fence longer than any run of backticks in `lines` (at least three)."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def comment_text(claim: ClaimResult, suggestion: Suggestion, key: str, comment_id: str = "") -> str:
    """The review comment: marker, what the check found, the suggestion block (the line(s) with
    the claim's span replaced, nothing else changed) and the page's sentence as evidence."""
    fixed = [line.removesuffix("\r") for line in suggestion.fixed_lines()]
    fence = _fence(fixed)
    reason = escape_markdown(shorten(claim.reason or "the page says otherwise", REASON_CHARS))
    source = f" ({markdown_url(claim.source_url)})" if claim.source_url else ""
    evidence = escape_markdown(shorten(suggestion.evidence, EVIDENCE_CHARS + 100))
    return "\n".join(
        [
            suggestion_marker(key, comment_id),
            f"**citecheck** · {suggestion.check.value} check: {reason}.",
            "",
            f"{fence}suggestion",
            *fixed,
            fence,
            "",
            f"The source{source} says: “{evidence}”",
        ]
    )


def review_text(count: int, comment_id: str = "") -> str:
    name = report_name(comment_id)
    changes = "a change" if count == 1 else f"{count} changes"
    return (
        f"**{name}** suggests {changes} from the cited pages' own words: a figure, date or quotation "
        "a deterministic check found the source gives otherwise. Review each one; **Commit suggestion** "
        "applies it."
    )


@dataclass(frozen=True)
class ReviewComment:
    """One suggestion as the review API takes it (lines at the PR's head, on its new side)."""

    key: str
    path: str
    line: int
    start_line: int | None  # the first line of a fix over several lines
    body: str

    def api(self) -> dict[str, Any]:
        item: dict[str, Any] = {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}
        if self.start_line is not None:
            item |= {"start_line": self.start_line, "start_side": "RIGHT"}
        return item


@dataclass(frozen=True)
class Posted:
    """A suggestion comment of this job already on the PR."""

    id: int
    key: str
    path: str
    ours: bool  # written by the token's account: only such a comment is ever marked outdated


@dataclass
class ReviewOutcome:
    """What `publish_review` did, for the log and the PR comment."""

    posted: int = 0  # suggestions posted in this run's review
    kept: int = 0  # posted by an earlier run, still wanted
    outdated: int = 0  # earlier ones marked outdated / resolved
    notices: list[str] = field(default_factory=list)

    @property
    def on_the_pr(self) -> int:
        return self.posted + self.kept


def _tree_lines(tree: Path, path: str) -> list[str] | None:
    """The checked-out file's lines, read through no symbolic link (None: not read)."""
    try:
        return read_inside(tree, path).decode("utf-8").split("\n")
    except (OSError, UnsafePathError, UnicodeDecodeError):
        return None


def review_comments(
    report: Report,
    *,
    pr_files: Iterable[PRFile],
    tree: Path,
    comment_id: str = "",
) -> list[ReviewComment]:
    """Each claim's fix that can go on the PR: every line it replaces added by the PR, and
    read in the checked-out tree as the fix says."""
    fixed = [c for c in report.claims if c.suggestion is not None]
    if not fixed:
        return []
    added = shown_lines(pr_files, tree, {c.file for c in fixed}, added_only=True)
    out: list[ReviewComment] = []
    texts: dict[str, list[str] | None] = {}
    for claim in fixed:
        s = claim.suggestion
        assert s is not None
        lines = added.get(s.file, {})
        heads = [h for n in range(s.line, s.end_line + 1) if (h := lines.get(n)) is not None]
        moved = any(b != a + 1 for a, b in pairwise(heads))
        if len(heads) != s.end_line - s.line + 1 or moved:
            continue  # a line the PR did not add (or not in the order it has them)
        if s.file not in texts:
            texts[s.file] = _tree_lines(tree, s.file)
        text = texts[s.file]
        if text is None or text[s.line - 1 : s.end_line] != s.lines:
            continue
        key = suggestion_key(claim, s, comment_id)
        first, last = heads[0], heads[-1]
        body = comment_text(claim, s, key, comment_id)
        out.append(ReviewComment(key, s.file, last, first if last != first else None, body))
    return list({c.key: c for c in out}.values())  # the same sentence twice: one suggestion


@dataclass
class ReviewClient(PullRequestClient):
    """The PR's reviews: the token's suggestion comments, a new review, and GraphQL to mark old
    ones outdated."""

    def posted(self, author: Identity | None, comment_id: str = "") -> list[Posted]:
        """This job's suggestion comments on the PR: each marked one that opens a thread, and
        whether the token's account wrote it (`ours`; never, when that account is unknown)."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        found: list[Posted] = []
        with api_call(f"GET {self._pull_path}/comments"):
            for c in pull.get_review_comments():
                m = _MARKER.search(c.body or "")
                if m and (m["id"] or "") == comment_id and not c.in_reply_to_id:
                    ours = author is not None and author.authored(c.user)
                    found.append(Posted(int(c.id), m["key"], str(c.path), ours))
        return found

    def create_review(self, commit: str, body: str, comments: list[ReviewComment]) -> None:
        payload = {
            "commit_id": commit,
            "body": body,
            "event": "COMMENT",
            "comments": [c.api() for c in comments],
        }
        with api_call(f"POST {self._pull_path}/reviews"):
            self._github().requester.requestJsonAndCheck("POST", f"{self._pull_path}/reviews", input=payload)

    def _graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        with api_call("POST /graphql"):
            _, data = self._github().requester.graphql_query(query, variables)
        return data.get("data") or {}

    def threads(self) -> dict[int, tuple[str, bool, str, bool]]:
        """{comment id: (thread id, resolved, comment node id, minimized)} of each review
        thread's first comment."""
        owner, name = self.repository.split("/", 1)
        found: dict[int, tuple[str, bool, str, bool]] = {}
        after: str | None = None
        for _ in range(THREADS_PAGES):
            data = self._graphql(
                THREADS_QUERY, {"owner": owner, "name": name, "number": self.number, "after": after}
            )
            threads = ((data.get("repository") or {}).get("pullRequest") or {}).get("reviewThreads") or {}
            for thread in threads.get("nodes") or []:
                for c in (thread.get("comments") or {}).get("nodes") or []:
                    if isinstance(c.get("databaseId"), int):
                        found[c["databaseId"]] = (
                            thread["id"],
                            bool(thread.get("isResolved")),
                            c["id"],
                            bool(c.get("isMinimized")),
                        )
            page = threads.get("pageInfo") or {}
            if not page.get("hasNextPage"):
                break
            after = page.get("endCursor")
        return found

    def mark_outdated(self, ids: Collection[int]) -> int:
        """Minimize each comment as outdated and resolve its thread; returns how many."""
        threads = self.threads()
        done = 0
        for cid in ids:
            if cid not in threads:
                continue
            thread, resolved, node, minimized = threads[cid]
            if not minimized:
                self._graphql(MINIMIZE, {"id": node})
            if not resolved:
                self._graphql(RESOLVE, {"id": thread})
            done += 1
        return done


def _refused(exc: GitHubAPIError, what: str) -> str:
    if exc.status in (403, 404) and "rate limit" not in exc.message.lower():
        return f"{what}: the token may not ({exc}); give the job `pull-requests: write`"
    return f"{what}: {exc}"


def publish_review(
    client: ReviewClient,
    report: Report,
    *,
    pr_files: Iterable[PRFile],
    tree: Path,
    head_sha: str,
    comment_id: str = "",
    redact: Redactor,
) -> ReviewOutcome:
    """Post this run's new suggestions in one review and mark the earlier ones it no longer
    finds as outdated (see the module's docstring). Never raises for the API's sake."""
    outcome = ReviewOutcome()
    wanted = review_comments(report, pr_files=pr_files, tree=tree, comment_id=comment_id)
    try:
        with api_call("POST /graphql (viewer)"):
            author = client.identity()
        posted = client.posted(author, comment_id)
    except GitHubAPIError as exc:
        outcome.notices.append(
            _refused(exc, "suggested changes not posted: could not read the PR's review comments")
        )
        return outcome
    have = {p.key for p in posted}
    new = [c for c in wanted if c.key not in have]
    outcome.kept = len(wanted) - len(new)
    # The report is redacted already; a body is checked once more, as every comment is. One the
    # redactor would change would suggest writing the mask in place of the file's words: none.
    comments = [c for c in new if redact.secrets(c.body) == c.body]
    if comments:
        try:
            client.create_review(head_sha, review_text(len(comments), comment_id), comments)
            outcome.posted = len(comments)
        except GitHubAPIError as exc:
            outcome.notices.append(_refused(exc, "suggested changes not posted"))
    checked = {c.file for c in report.claims}
    keys = {c.key for c in wanted}
    stale = [p.id for p in posted if p.ours and p.key not in keys and p.path in checked]
    if stale:
        try:
            outcome.outdated = client.mark_outdated(stale)
        except GitHubAPIError as exc:
            outcome.notices.append(
                _refused(exc, f"{len(stale)} earlier suggested change(s) not marked outdated")
            )
    return outcome


def suggestions_note(outcome: ReviewOutcome) -> str:
    """The PR comment's line about the suggestions on the diff ("" for none)."""
    count = outcome.on_the_pr
    if not count:
        return ""
    what = "1 suggested change is" if count == 1 else f"{count} suggested changes are"
    return f"*{what} on the diff, as a review: the cited page's own words in place of the claim's.*"
