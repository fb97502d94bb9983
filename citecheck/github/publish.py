"""Publish stage in the Action: workflow commands, step outputs, job summary, sticky PR comment.

Everything printed to the runner's log goes through `ActionLog`. Workflow commands are built
with the escaping the runner undoes (`%`, CR, LF in data; also `:` and `,` in properties), so
a claim's text cannot end a command early or start a new one. Text the PR or a source page
controls is printed only inside a `::stop-commands::` block with a random token, so a line
in it that looks like `::set-output …` or `::add-mask::` is shown, not obeyed.
"""

from __future__ import annotations

import secrets
import sys
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from citecheck.models import Report
from citecheck.output.common import GITHUB_COMMENT_LIMIT, STEP_SUMMARY_LIMIT_BYTES, shorten
from citecheck.output.markdown import render_markdown
from citecheck.policy import claim_categories, failing_claims
from citecheck.select import PRFile, PRFileList

COMMENT_MARKER = "<!-- citecheck-report -->"  # finds our sticky comment among the PR's comments
ANNOTATION_LIMIT = 10  # GitHub shows at most 10 error annotations per step
_MIN_SECRET_LEN = 4  # masking shorter strings would blank out ordinary words in the log


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
            if len(part) >= _MIN_SECRET_LEN:
                out.append(workflow_command("add-mask", part))
    return sorted(set(out))


class ActionLog:
    """The runner's log: workflow commands, plain lines, and untrusted text (inert)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def command(self, name: str, message: str = "", **properties: str | int | None) -> None:
        self._write(workflow_command(name, message, **properties))

    def emit(self, command_line: str) -> None:
        """A command line built by `workflow_command` (escaped: one line, starts with `::`)."""
        if not command_line.startswith("::") or "\n" in command_line or "\r" in command_line:
            raise ValueError("not a workflow command line")
        self._write(command_line)

    def info(self, line: str) -> None:
        """A line we wrote ourselves; must not begin with `::`."""
        self._write(line if not line.lstrip().startswith("::") else " " + line)

    def warning(self, message: str) -> None:
        self.command("warning", message)

    def error(self, message: str) -> None:
        self.command("error", message)

    def untrusted(self, text: str) -> None:
        """Print text others control; the runner processes no command inside the block."""
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
        self.stream.write(line + "\n")
        self.stream.flush()


# ---------------------------------------------------------------- annotations


def annotation_commands(report: Report, *, limit: int = ANNOTATION_LIMIT) -> tuple[list[str], int]:
    """`::error file=…,line=…::` for the first `limit` failing claims, and how many are left."""
    claims = failing_claims(report)
    fail_on = set(report.fail_on)
    lines: list[str] = []
    for claim in claims[:limit]:
        category = next(c for c in claim_categories(claim) if c in fail_on)
        where = f" ({claim.source_url})" if claim.source_url else ""
        message = f"{shorten(claim.reason or category, 300)}{where}\nClaim: {shorten(claim.text, 300)}"
        lines.append(
            workflow_command(
                "error",
                message,
                file=claim.file,
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


# ---------------------------------------------------------------- GitHub REST (PyGithub)


@dataclass
class PullRequestClient:
    """The PR the run is about, through PyGithub (`api_url` is `GITHUB_API_URL`)."""

    token: str
    api_url: str
    repository: str  # owner/name
    number: int
    timeout_s: int = 30

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

    def pr_files(self) -> PRFileList:
        """The PR's changed files with their patches, and GitHub's count of them."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        files = [
            PRFile(filename=f.filename, status=f.status, patch=f.patch, previous_filename=f.previous_filename)
            for f in pull.get_files()
        ]
        return PRFileList(files=files, changed_files=pull.changed_files)  # lazy: fetches the PR

    def file_at(self, path: str, ref: str) -> str | None:
        """A file's text at commit `ref` (the contents API); None when it has no such file."""
        from github import UnknownObjectException

        try:
            content = self._github().get_repo(self.repository).get_contents(path, ref=ref)
        except UnknownObjectException:
            return None
        if isinstance(content, list):
            raise ValueError(f"{path} is a folder at {ref[:12]}")
        return content.decoded_content.decode("utf-8")

    def head_sha(self) -> str:
        """The PR's head commit as GitHub has it now."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        return str(pull.head.sha)  # lazy: reading it fetches the PR

    def upsert_comment(self, body: str, *, create: bool = True, marker: str = COMMENT_MARKER) -> str | None:
        """Update our marked comment, or create one; returns "updated", "created" or None.

        Comments by a bot are tried first, so a marker pasted into someone's own comment
        does not capture the report; one we may not edit is skipped.
        """
        from github import GithubException

        issue = self._github().get_repo(self.repository).get_issue(self.number)
        ours = [c for c in issue.get_comments() if marker in (c.body or "")]
        ours.sort(key=lambda c: (c.user is None or c.user.type != "Bot", c.id))
        for comment in ours:
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
