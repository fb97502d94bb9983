"""Publish stage in the Action: workflow commands, step outputs, job summary, sticky PR comment.

Everything printed to the runner's log goes through `ActionLog`. Workflow commands are built
with the escaping the runner undoes (`%`, CR, LF in data; also `:` and `,` in properties), so
a claim's text cannot end a command early or start a new one. Text the PR or a source page
controls is printed only inside a `::stop-commands::` block with a random token, so a line
in it that looks like `::set-output …` or `::add-mask::` is shown, not obeyed. Every line has
the run's secrets redacted and its URLs masked (`citecheck.redact`), and carries no control
character or bidi control (which could make a line read differently than it is).

The sticky comment is only ever the token's own: the identity comes from GraphQL's
`viewer` (which answers for a GitHub App installation token such as `GITHUB_TOKEN`, unlike
REST `GET /user`), and only marked comments whose author is that account are edited.
"""

from __future__ import annotations

import secrets
import sys
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from citecheck.models import Report
from citecheck.output.common import (
    GITHUB_COMMENT_LIMIT,
    STEP_SUMMARY_LIMIT_BYTES,
    shorten,
    strip_invisible,
    visible,
)
from citecheck.output.markdown import render_markdown
from citecheck.policy import claim_categories, failing_claims
from citecheck.redact import MIN_SECRET_CHARS, Redactor
from citecheck.select import PRFile, PRFileList

COMMENT_MARKER = "<!-- citecheck-report -->"  # finds our sticky comment among the PR's comments
ANNOTATION_LIMIT = 10  # GitHub shows at most 10 error annotations per step
VIEWER_QUERY = "query { viewer { login databaseId } }"


# ---------------------------------------------------------------- workflow commands


def escape_data(text: str) -> str:
    """Escape a workflow command's message as actions/toolkit does (runner unescapes)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command property value (`file=`, `title=`, …)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, message: str = "", **properties: str | int | None) -> str:
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in properties.items() if v not in (None, ""))
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def mask_commands(values: Iterable[str | None]) -> list[str]:
    """`::add-mask::` lines for each secret (each line of a multi-line one, too)."""
    out: list[str] = []
    for value in values:
        if not value:
            continue
        for part in {value.strip(), *value.splitlines()}:
            part = part.strip()
            if len(part) >= MIN_SECRET_CHARS:
                out.append(workflow_command("add-mask", part))
    return sorted(set(out))


class ActionLog:
    """The runner's log: workflow commands, plain lines, and untrusted text (inert), each with
    the run's secrets redacted and URLs masked by `redact`."""

    def __init__(self, stream: TextIO, redact: Redactor | None = None) -> None:
        self.stream = stream
        self.redact = redact if redact is not None else Redactor()

    def command(self, name: str, message: str = "", **properties: str | int | None) -> None:
        # Redacted before escaping: a secret must match as written, not as escaped.
        props = {k: self.redact(v) if isinstance(v, str) else v for k, v in properties.items()}
        self._write(workflow_command(name, self.redact(message), **props))

    def emit(self, command_line: str) -> None:
        """A command line built by `workflow_command` (escaped: one line, starts with `::`)."""
        if not command_line.startswith("::") or "\n" in command_line or "\r" in command_line:
            raise ValueError("not a workflow command line")
        self._write(command_line)

    def info(self, line: str) -> None:
        """A line we wrote ourselves; must not begin with `::`."""
        line = self.redact(line)
        self._write(line if not line.lstrip().startswith("::") else " " + line)

    def warning(self, message: str) -> None:
        self.command("warning", message)

    def error(self, message: str) -> None:
        self.command("error", message)

    def untrusted(self, text: str) -> None:
        """Print text others control; the runner processes no command inside the block."""
        text = self.redact(text)
        token = secrets.token_hex(16)
        while token in text:  # pragma: no cover - 128 random bits
            token = secrets.token_hex(16)
        self._write(f"::stop-commands::{token}")
        self._write(text.rstrip("\n"))
        self._write(f"::{token}::")

    @contextmanager
    def commands_off(self) -> Iterator[None]:
        """While the stages run, whatever they or their libraries print (to stdout or stderr)
        may quote a page or a PR; the runner obeys no command in it until the block ends."""
        token = secrets.token_hex(16)
        self._write(f"::stop-commands::{token}")
        try:
            yield
        finally:
            sys.stderr.flush()
            self._write(f"::{token}::")

    def _write(self, line: str) -> None:
        # The last guard for lines built elsewhere (`emit`): no secret, no control character.
        self.stream.write(strip_invisible(self.redact.secrets(line)) + "\n")
        self.stream.flush()


# ---------------------------------------------------------------- annotations


def annotation_commands(report: Report, *, limit: int = ANNOTATION_LIMIT) -> tuple[list[str], int]:
    """`::error file=…,line=…::` for the first `limit` failing claims, and how many are left."""
    claims = failing_claims(report)
    fail_on = set(report.fail_on)
    lines: list[str] = []
    for claim in claims[:limit]:
        category = next(c for c in claim_categories(claim) if c in fail_on)
        where = f" ({visible(claim.source_url)})" if claim.source_url else ""
        reason = visible(shorten(claim.reason or category, 300))
        message = f"{reason}{where}\nClaim: {visible(shorten(claim.text, 300))}"
        lines.append(
            workflow_command(
                "error",
                message,
                file=visible(claim.file),
                line=claim.line,
                col=claim.column,
                title=f"citecheck: {category}",
            )
        )
    return lines, max(0, len(claims) - limit)


# ---------------------------------------------------------------- outputs and summary


def format_outputs(outputs: Mapping[str, str]) -> str:
    """`GITHUB_OUTPUT` text: every value in a heredoc with a delimiter it does not contain."""
    chunks: list[str] = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        while delimiter in value or delimiter in name:  # pragma: no cover - random UUID
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(chunks)


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(format_outputs(outputs))


def summary_markdown(
    report: Report, *, preface: str = "", hint: str = "the JSON report", link_base: str | None = None
) -> str:
    """The full report for the job summary, cut only where it would pass the 1 MiB limit."""
    budget = STEP_SUMMARY_LIMIT_BYTES - len(preface.encode("utf-8")) - 1024  # room for our footer
    return preface + render_markdown(report, max_bytes=budget, full_report_hint=hint, link_base=link_base)


def append_summary(path: Path, markdown: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(markdown if markdown.endswith("\n") else markdown + "\n")


def comment_body(report: Report, *, hint: str, link_base: str | None = None) -> str:
    """The sticky comment: marker, then the report cut to GitHub's comment limit."""
    budget = GITHUB_COMMENT_LIMIT - len(COMMENT_MARKER) - 1
    text = render_markdown(report, max_chars=budget, full_report_hint=hint, link_base=link_base)
    return COMMENT_MARKER + "\n" + text


# ---------------------------------------------------------------- GitHub API (PyGithub)


def _bare_login(login: str) -> str:
    return login.lower().removesuffix("[bot]")


@dataclass(frozen=True)
class Identity:
    """The account a token acts as: a user (a personal access token) or a GitHub App's bot
    (`GITHUB_TOKEN` acts as `github-actions[bot]`, user id 41898282)."""

    login: str
    id: int | None = None

    def authored(self, user: Any) -> bool:
        """Whether a comment's REST `user` is this account.

        The numeric id decides when both sides have one (GraphQL's `viewer.databaseId` is the
        REST user id). Else the login, compared without a `[bot]` suffix: GraphQL names an
        App's bot `name` in some places and `name[bot]` in others, REST always `name[bot]`,
        and GitHub does not give an App a name another account has, unless that account
        owns the App.
        """
        if user is None:
            return False
        uid = getattr(user, "id", None)
        if self.id is not None and isinstance(uid, int):
            return uid == self.id
        login = getattr(user, "login", None)
        return isinstance(login, str) and _bare_login(login) == _bare_login(self.login)


@dataclass
class RepoClient:
    """One repository through PyGithub (`api_url` is `GITHUB_API_URL`)."""

    token: str
    api_url: str
    repository: str  # owner/name
    timeout_s: int = field(default=30, kw_only=True)

    def _github(self):  # type: ignore[no-untyped-def]
        from github import Auth, Github, GithubRetry

        return Github(
            auth=Auth.Token(self.token),
            base_url=self.api_url.rstrip("/"),
            timeout=self.timeout_s,
            retry=GithubRetry(total=3),
            per_page=100,  # the most GitHub gives: a 3,000-file PR is 30 requests, not 100
            lazy=True,  # no request for an object until one of its fields is read
        )

    def file_at(self, path: str, ref: str) -> str | None:
        """A file's text at commit `ref` (the contents API); None when that commit has no such
        file. A commit GitHub does not know is an error, not an absent file: its 404 says "No
        commit found for the ref …", which PyGithub raises as a plain GithubException."""
        from github import UnknownObjectException

        try:
            content = self._github().get_repo(self.repository).get_contents(path, ref=ref)
        except UnknownObjectException:  # 404 "Not Found": no such file at that commit
            return None
        if isinstance(content, list):
            raise ValueError(f"{path} is a folder at {ref[:12]}")
        return content.decoded_content.decode("utf-8")

    def identity(self) -> Identity | None:
        """The account the token acts as, or None when the API will not say.

        GraphQL `viewer` first: it answers for every kind of token, a GitHub App's
        installation token (`GITHUB_TOKEN`) included, whose REST `GET /user` is a 403
        "Resource not accessible by integration". `GET /user` is the fallback for a server
        without GraphQL.
        """
        from github import GithubException

        github = self._github()
        try:
            _, data = github.requester.graphql_query(VIEWER_QUERY, {})
            viewer = (data.get("data") or {}).get("viewer") or {}
            if isinstance(viewer.get("login"), str) and viewer["login"]:
                uid = viewer.get("databaseId")
                return Identity(viewer["login"], uid if isinstance(uid, int) else None)
        except (GithubException, AttributeError, TypeError, ValueError):
            pass
        try:
            user = github.get_user()
            return Identity(str(user.login), user.id)  # lazy: reading it fetches GET /user
        except GithubException:
            return None


@dataclass
class PullRequestClient(RepoClient):
    """The PR the run is about."""

    number: int

    def pr_files(self) -> PRFileList:
        """The PR's changed files with their patches, and GitHub's count of them."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        files = [
            PRFile(filename=f.filename, status=f.status, patch=f.patch, previous_filename=f.previous_filename)
            for f in pull.get_files()
        ]
        return PRFileList(files=files, changed_files=pull.changed_files)  # lazy: fetches the PR

    def commits(self) -> tuple[str, str]:
        """The PR's head and base commits as GitHub has them now."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        return str(pull.head.sha), str(pull.base.sha)  # lazy: reading them fetches the PR

    def upsert_comment(
        self, body: str, author: Identity | None, *, create: bool = True, marker: str = COMMENT_MARKER
    ) -> str | None:
        """Update the marked comment `author` wrote, or create one; returns "updated",
        "created" or None.

        Only a comment by `author` (the token's own account, `identity()`) is ever edited: a
        marker in someone else's comment, by a user or another App, does not capture the
        report. With `author` unknown nothing is edited. One we may not edit is skipped.
        """
        from github import GithubException

        issue = self._github().get_repo(self.repository).get_issue(self.number)
        ours = []
        if author is not None:
            ours = [c for c in issue.get_comments() if marker in (c.body or "") and author.authored(c.user)]
        for comment in sorted(ours, key=lambda c: c.id):
            try:
                comment.edit(body)
                return "updated"
            except GithubException as exc:
                if exc.status not in (403, 404):
                    raise
        if not create:
            return None
        issue.create_comment(body)
        return "created"
