"""Publish stage in the Action: workflow commands, step outputs, job summary, sticky PR comment.

Everything printed to the runner's log goes through `ActionLog`. Workflow commands are built
with the escaping the runner undoes (`%`, CR, LF in data; also `:` and `,` in properties), so
a claim's text cannot end a command early or start a new one. Text the PR or a source page
controls is printed only inside a `::stop-commands::` block with a random token, so a line
in it that looks like `::set-output …` or `::add-mask::` is shown, not obeyed. Every line has
the run's secrets redacted and its URLs masked (`citecheck.redact`), and carries no control
character or bidi control (which could make a line read differently than it is).

The log is grouped (`StageLog`): one `::group::` per stage — select, extract, fetch + checks,
judge, report and publish — each closed before the next opens (the runner does not nest
groups). While a stage runs, its group is a `::stop-commands::` block too, so that nothing a
stage or a library prints can close the group or issue a command; progress lines
(`citecheck.progress.LineProgress`: every few seconds on a long stage, and at its end) are
written inside it. The failing claims follow, a group per file, their text inside a
stop-commands block of its own (`log_failures`).

Every GitHub API request the clients make goes through `api_call`, which turns a failure into
a `GitHubAPIError` naming the request ("GET /repos/o/r/pulls/7/files") and GitHub's status and
message, so the Action's error says which call failed and why, not a guess at the cause.

The sticky comment is only ever the token's own: the identity comes from GraphQL's
`viewer` (which answers for a GitHub App installation token such as `GITHUB_TOKEN`, unlike
REST `GET /user`), and only marked comments whose author is that account are edited. Each
`comment-id` has its own marker, so several citecheck jobs on one PR keep a comment each; the
default id keeps the first marker, so comments made before ids existed are found again.

GitHub facts the code relies on (checked against the sources named):
- A comment body may hold 262,144 bytes of UTF-8, although the error says "maximum is 65536
  characters": 262,144 ASCII characters are accepted and 262,145 refused, 65,536 four-byte
  emoji accepted and one more ASCII character refused (dead-claudia/github-limits#13, and a
  bisection on both comment endpoints in objectstack-ai/objectstack#18826). The comment is
  measured in that unit; a server that answers 422 "too long" anyway gets the documented
  65,536 characters (`COMMENT_LIMIT_CHARS`), which no UTF-8 reading can exceed.
- The runner keeps 10 errors, 10 warnings and 10 notices of one step as annotations and only
  counts the rest (`_maxCountPerIssueType` in actions/runner's ExecutionContext.cs).
- The Checks API takes at most 50 annotations per request (422 beyond); more are added by
  updating the check run again, each update appending to the run's annotations (REST docs,
  "Update a check run"). Creating one needs `checks: write`; without it GitHub answers 403
  "Resource not accessible by integration".
- A line of a PR's "Files changed" is `/pull/N/files#diff-<sha256 of the path>R<line>` (R: the
  new side). GitHub does not document it; it is the form GitHub's own pages use (sha256 since
  it replaced md5; e.g. go-gitea/gitea#19525, piceaTech/node-gitlab-2-github#215).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sys
import time
import uuid
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO
from urllib.parse import quote

from citecheck.errors import ConfigError
from citecheck.models import ClaimResult, Report, Verdict
from citecheck.output.common import (
    GITHUB_COMMENT_LIMIT,
    STEP_SUMMARY_LIMIT_BYTES,
    shorten,
    strip_invisible,
    visible,
)
from citecheck.output.markdown import (
    LinkFor,
    blob_link,
    failing_category,
    outcome_line,
    render_comment,
    render_markdown,
)
from citecheck.policy import claim_categories, exit_code
from citecheck.progress import LINE_INTERVAL_S, STAGE_TITLES, EventKind, LineProgress, ProgressEvent, Stage
from citecheck.redact import MIN_SECRET_CHARS, Redactor
from citecheck.select import PRFile, PRFileList, diffs_from_api, relocate

COMMENT_MARKER = "<!-- citecheck-report -->"  # finds our sticky comment (the default comment-id's)
COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # nothing that could end the marker
COMMENT_LIMIT_BYTES = 262_144  # UTF-8 bytes of a comment body GitHub.com accepts (see above)
COMMENT_LIMIT_CHARS = GITHUB_COMMENT_LIMIT  # the documented limit, for a server that enforces it
ANNOTATIONS_PER_KIND = 10  # errors, warnings and notices the runner keeps per step, each
CHECK_ANNOTATIONS_PER_REQUEST = 50  # the Checks API's most per create / update request
CHECK_SUMMARY_LIMIT = 65_535  # a check run's output.summary; measured in bytes, never fewer than chars
COMPARE_FILES_LIMIT = 300  # the compare API lists at most 300 changed files
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


# The runner's older command form (`##[name props]data`, read anywhere in a line) and the log
# viewer's markers (`##[group]`, `##[endgroup]`, `##[error]` … at a line's start): the viewer
# shows such a line as a group's end or an error even inside a stop-commands block.
_MARKER = "##["


def no_markers(text: str) -> str:
    """`text` with no `##[`, which the runner or its log viewer would read (`_MARKER`)."""
    return text.replace(_MARKER, "# #[")


def inert(text: str) -> str:
    """`text` shown as it is where commands are obeyed: no `##[` (`no_markers`), and no line
    beginning with `::` — the runner trims leading whitespace before it looks for a command, so
    the colons themselves are parted."""
    lines = no_markers(text).split("\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith("::"):
            lines[i] = f"{line[: len(line) - len(stripped)]}: :{stripped[2:]}"
    return "\n".join(lines)


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
        """A line we wrote ourselves, shown as it is (`inert`)."""
        self._write(inert(self.redact(line)))

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
        self._write(no_markers(text.rstrip("\n")))
        self._write(f"::{token}::")

    def _write(self, line: str) -> None:
        self._write_lines([line])

    def _write_lines(self, lines: Sequence[str]) -> None:
        # The last guard for lines built elsewhere (`emit`): no secret, no control character.
        # Several lines go in one write, so that no other writer of the stream comes between.
        self.stream.write("".join(strip_invisible(self.redact.secrets(line)) + "\n" for line in lines))
        self.stream.flush()


def _stop_token() -> str:
    return secrets.token_hex(16)


class StageLog:
    """The log's groups, one stage at a time; also the pipeline's progress listener
    (`citecheck.pipeline.check`'s `progress`), which opens a group as each stage starts and
    writes its progress lines in it.

    Each group opens with commands off (a `::stop-commands::` block): the stage may print text
    a page or a PR controls. Between groups, and for the Action's own lines after a stage
    (`commands_on`), commands are obeyed again. The lines that end one group and open the next
    go in one write."""

    TITLES: Mapping[Stage, str] = {**STAGE_TITLES, Stage.report: "report and publish"}

    def __init__(
        self,
        log: ActionLog,
        *,
        interval_s: float = LINE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log = log
        self.title: str | None = None  # the open group's
        self._token: str | None = None  # the open stop-commands block's
        self._lines = LineProgress(log.info, interval_s=interval_s, clock=clock)

    def __call__(self, event: ProgressEvent) -> None:
        if event.kind == EventKind.started:
            self.enter(self.TITLES[event.stage])
        self._lines(event)

    def enter(self, title: str, *, commands_off: bool = True) -> None:
        """Be in the group `title` (opened unless it is the open one), with commands off or on."""
        if self.title == title and commands_off == (self._token is not None):
            return
        lines = self._resume()
        if self.title != title:
            if self.title is not None:
                lines.append("::endgroup::")
            lines.append(workflow_command("group", f"citecheck: {title}"))
            self.title = title
        if commands_off:
            self._token = _stop_token()
            lines.append(f"::stop-commands::{self._token}")
        self._flush(lines)

    def commands_on(self) -> None:
        """Commands obeyed again (the Action's own lines), in the same group."""
        self._flush(self._resume())

    def close(self) -> None:
        """No group open, commands on."""
        lines = self._resume()
        if self.title is not None:
            lines.append("::endgroup::")
            self.title = None
        self._flush(lines)

    def _resume(self) -> list[str]:
        if self._token is None:
            return []
        token, self._token = self._token, None
        return [f"::{token}::"]

    def _flush(self, lines: list[str]) -> None:
        if lines:
            sys.stderr.flush()  # what a library printed there belongs to the block it printed in
            self.log._write_lines(lines)


def log_failures(log: ActionLog, failing: Sequence[ClaimResult]) -> None:
    """The failing claims, a group per file in report order; their text (the PR's) inside a
    stop-commands block, so a claim cannot close the group or issue a command."""
    by_file: dict[str, list[ClaimResult]] = {}
    for claim in failing:
        by_file.setdefault(claim.file, []).append(claim)
    for file, claims in by_file.items():
        log.command("group", no_markers(f"citecheck: {file}: {len(claims)} failing claim(s)"))
        log.untrusted("\n".join(f"{c.file}:{c.line}: {c.verdict.value}: {c.text}" for c in claims))
        log.command("endgroup")


# ---------------------------------------------------------------- annotations

Level = Literal["error", "warning", "notice"]
LEVELS: tuple[Level, ...] = ("error", "warning", "notice")
_CHECK_LEVEL = {"error": "failure", "warning": "warning", "notice": "notice"}


@dataclass(frozen=True)
class Annotation:
    """One claim marked on its file and line: an error when it fails the check, a warning when
    it is unsourced (or unsupported where fail-on lets that pass), a notice when it could not be
    verified (and that does not fail the check)."""

    level: Level
    file: str
    line: int
    column: int | None
    title: str
    message: str

    def command(self) -> str:
        """As a workflow command (`::error file=…,line=…::…`)."""
        props = {"file": self.file, "line": self.line, "col": self.column, "title": self.title}
        return workflow_command(self.level, self.message, **props)

    def check_run(self) -> dict[str, str | int]:
        """As an annotation of the Checks API (one line; columns left out, they are optional)."""
        return {
            "path": self.file,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": _CHECK_LEVEL[self.level],
            "title": self.title,
            "message": self.message,
        }


def _level(claim: ClaimResult, fail_on: Collection[str]) -> tuple[Level, str] | None:
    failing = failing_category(claim, fail_on)
    if failing is not None:
        return "error", failing
    if claim.verdict == Verdict.pass_:
        return None
    category = claim_categories(claim)[0]
    return ("warning" if claim.verdict in (Verdict.unsourced, Verdict.fail) else "notice"), category


def annotations(report: Report) -> list[Annotation]:
    """Every claim to mark, errors first, then warnings, then notices, each in report order."""
    found: list[Annotation] = []
    for claim in report.claims:
        kind = _level(claim, report.fail_on)
        if kind is None:
            continue
        level, category = kind
        where = f" ({visible(claim.source_url)})" if claim.source_url else ""
        reason = visible(shorten(claim.reason or category, 300))
        message = f"{reason}{where}\nClaim: {visible(shorten(claim.text, 300))}"
        found.append(
            Annotation(
                level, visible(claim.file), claim.line, claim.column, f"citecheck: {category}", message
            )
        )
    found.extend(_unreadable_annotations(report))
    return sorted(found, key=lambda a: LEVELS.index(a.level))  # stable: report order within a level


def _unreadable_annotations(report: Report) -> list[Annotation]:
    """A file the run could not read, marked where reading stopped (its first line when the
    whole file was refused): an error when `unreadable` fails the check, else a warning."""
    level: Level = "error" if "unreadable" in report.fail_on else "warning"
    return [
        Annotation(
            level,
            visible(error.file),
            error.line or 1,
            None,
            "citecheck: unreadable",
            f"File not read, none of its claims was checked: {visible(shorten(error.message, 300))}",
        )
        for error in report.errors
        if error.fatal
    ]


def per_step(found: Sequence[Annotation], per_kind: int = ANNOTATIONS_PER_KIND) -> list[Annotation]:
    """The annotations the runner shows from one step's workflow commands: the first `per_kind`
    of each level (it only counts the rest, so printing them would just fill the log)."""
    seen = dict.fromkeys(LEVELS, 0)
    kept: list[Annotation] = []
    for a in found:
        seen[a.level] += 1
        if seen[a.level] <= per_kind:
            kept.append(a)
    return kept


def annotation_commands(report: Report, *, per_kind: int = ANNOTATIONS_PER_KIND) -> tuple[list[str], int]:
    """Workflow commands for the annotations a step can show, and how many are left out."""
    found = annotations(report)
    kept = per_step(found, per_kind)
    return [a.command() for a in kept], len(found) - len(kept)


def unannotated_note(
    left_out: int, total: int, *, per_kind: int = ANNOTATIONS_PER_KIND, check_run: bool = True
) -> str:
    """What to say (comment, summary, log) when the workflow commands could not show them all;
    `check_run`: whether a check run could have carried them (a PR's run)."""
    how = (
        "Give the job `checks: write` (with `check-run` left on) to have all of them on a check run; "
        if check_run
        else ""
    )
    return (
        f"{left_out} of {total} annotations are not shown on the changed lines: from workflow commands "
        f"GitHub shows {per_kind} errors, {per_kind} warnings and {per_kind} notices per step. {how}"
        f"{'every' if how else 'Every'} claim is in the report."
    )


def check_run_text(
    report: Report, *, name: str, hint: str, link: LinkFor | None, first_line: str = ""
) -> tuple[str, str]:
    """A check run's title (the outcome line's words) and summary (the report as the comment
    shows it, opening with `first_line` as the comment does, cut to the summary's limit)."""
    title = outcome_line(report, name=name).split(" ", 1)[1]  # without the emoji
    summary = render_comment(
        report,
        full_report_hint=hint,
        max_bytes=CHECK_SUMMARY_LIMIT,
        link=link,
        name=name,
        head=(first_line, "") if first_line else (),
    )
    return title, summary


def check_conclusion(report: Report) -> str:
    """The check run's conclusion: the run's result, as the exit code has it."""
    if exit_code(report):
        return "failure"
    return "success" if report.passed else "neutral"


# ---------------------------------------------------------------- links from the PR comment


def shown_lines(
    files: Iterable[PRFile], workspace: Path, wanted: Collection[str], *, added_only: bool = False
) -> dict[str, dict[int, int]]:
    """For each of the `wanted` files, the lines the PR's diff shows (added or context; with
    `added_only`, added), as {line in the checked-out file: line at the PR's head}. The
    checkout may be a test merge whose base moved the PR's lines: `relocate` maps them as it
    does for selection."""
    shown: dict[str, dict[int, int]] = {}
    for diff in diffs_from_api(f for f in files if f.filename in wanted):
        head_lines = list(diff.added) if added_only else [n for n, _ in diff.new_side]
        if not head_lines:
            continue
        diff.added = list(head_lines)  # relocate moves `added`: here, every shown line
        try:
            lines = (workspace / diff.path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = None
        if lines is not None:
            relocate(diff, lines)
        shown[diff.path] = dict(zip(diff.added, head_lines, strict=True))
    return shown


@dataclass(frozen=True)
class DiffLinks:
    """Where the comment links a claim's `file:line`: that line in the PR's "Files changed"
    when the diff shows it, else the line in the file at the PR's head commit."""

    server: str  # GITHUB_SERVER_URL
    repository: str
    number: int
    head_sha: str
    shown: Mapping[str, Mapping[int, int]]  # `shown_lines`

    def __call__(self, claim: ClaimResult) -> str:
        path = claim.file.replace("\\", "/")
        lines = self.shown.get(path, {})
        head_line = lines.get(claim.line)
        if head_line is not None:
            anchor = hashlib.sha256(path.encode("utf-8")).hexdigest()
            return f"{self.server}/{self.repository}/pull/{self.number}/files#diff-{anchor}R{head_line}"
        # Not in the diff: as far down the head's file as the last line the diff shows moved.
        pairs = sorted(lines.items())
        at = bisect_right([w for w, _ in pairs], claim.line) - 1
        line = claim.line - (pairs[at][0] - pairs[at][1] if at >= 0 else 0)
        return f"{self.server}/{self.repository}/blob/{self.head_sha}/{quote(path)}#L{max(1, line)}"


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


def check_comment_id(value: str) -> str:
    """The `comment-id` input: empty (the default comment) or a short name for the marker."""
    value = value.strip()
    if value and not COMMENT_ID.fullmatch(value):
        raise ConfigError(
            f"input comment-id: {value!r} is not a short name",
            "use letters, digits, `.`, `_` or `-` (at most 64), e.g. `comment-id: api-docs`",
        )
    return value


def comment_marker(comment_id: str = "") -> str:
    """The hidden marker of the sticky comment for `comment_id` (the default: `COMMENT_MARKER`).
    No marker is a substring of another: each ends in ` -->` right after its id."""
    return f"<!-- citecheck-report:{comment_id} -->" if comment_id else COMMENT_MARKER


def report_name(comment_id: str = "") -> str:
    """How the comment's first line and the check run name this job's report."""
    return f"citecheck ({comment_id})" if comment_id else "citecheck"


def comment_body(
    report: Report,
    *,
    hint: str,
    link_base: str | None = None,
    link: LinkFor | None = None,
    comment_id: str = "",
    notes: Sequence[str] = (),
    first_line: str = "",
    max_bytes: int | None = COMMENT_LIMIT_BYTES,
    max_chars: int | None = None,
) -> str:
    """The sticky comment: its marker, `first_line` (trusted Markdown that must open the
    comment, e.g. that the claims were not judged and why), the outcome line, the report (see
    `citecheck.output.markdown.render_comment`) and our `notes` (trusted Markdown, e.g. how
    many claims are not annotated), cut to GitHub's limit. `file:line` links to `link(claim)`,
    else to the line under `link_base`."""
    if link is None and link_base:
        link = blob_link(link_base)
    # The marker is hidden, so `first_line` is the first line a reader sees; the blank line
    # after it keeps the outcome line out of its block quote.
    head = (comment_marker(comment_id), *((first_line, "") if first_line else ()))
    return render_comment(
        report,
        full_report_hint=hint,
        max_bytes=max_bytes,
        max_chars=max_chars,
        link=link,
        name=report_name(comment_id),
        head=head,
        tail=notes,
    )


def body_too_long(exc: BaseException) -> bool:
    """Whether GitHub refused a comment for its length (422 "Body is too long …"): a
    `GitHubAPIError` (its message carries GitHub's error details) or PyGithub's own exception."""
    said = f"{getattr(exc, 'message', '')} {getattr(exc, 'data', '')}".lower()
    return getattr(exc, "status", None) == 422 and "too long" in said


# ---------------------------------------------------------------- GitHub API (PyGithub)


class GitHubAPIError(Exception):
    """A GitHub API request that failed: which one, GitHub's status (None: no answer, e.g. a
    network error) and its message."""

    def __init__(self, call: str, status: int | None, message: str) -> None:
        super().__init__(call, status, message)
        self.call = call
        self.status = status
        self.message = message

    def __str__(self) -> str:
        said = f"HTTP {self.status} {self.message}".rstrip() if self.status else self.message
        return f"{said} ({self.call})"


@contextmanager
def api_call(call: str) -> Iterator[None]:
    """Run one API request (described as "METHOD /path"); a failure becomes a GitHubAPIError."""
    from github import GithubException

    try:
        yield
    except GitHubAPIError:
        raise
    except GithubException as exc:
        data = exc.data if isinstance(exc.data, dict) else {}
        message = data.get("message") if isinstance(data.get("message"), str) else str(exc.data or "")
        # A 422 "Validation Failed" says what failed in `errors` (e.g. "Body is too long …").
        errors = data.get("errors") if isinstance(data.get("errors"), list) else []
        details = [e["message"] for e in errors if isinstance(e, dict) and isinstance(e.get("message"), str)]
        if details:
            message = f"{message}: {'; '.join(details)}"
        raise GitHubAPIError(call, exc.status, message[:300]) from exc
    except OSError as exc:  # no answer: refused, timed out, retries exhausted (requests' errors are OSErrors)
        raise GitHubAPIError(call, None, f"{type(exc).__name__}: {str(exc)[:300]}") from exc


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


@dataclass(frozen=True)
class CheckRunPosted:
    url: str  # the check run's page
    annotated: int


class CheckRunError(Exception):
    """A check run that could not be made or finished; `annotated`: the annotations it carries.
    `cause` is the `GitHubAPIError` of the request that failed (anything else is a bug)."""

    def __init__(self, cause: Exception, annotated: int, url: str | None) -> None:
        super().__init__(str(cause))
        self.cause, self.annotated, self.url = cause, annotated, url

    @property
    def status(self) -> int | None:
        return getattr(self.cause, "status", None)


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

    @property
    def _repo_path(self) -> str:
        return f"/repos/{self.repository}"

    def file_at(self, path: str, ref: str) -> str | None:
        """A file's text at commit `ref` (the contents API); None when that commit has no such
        file. A commit GitHub does not know is an error, not an absent file: its 404 says "No
        commit found for the ref …", which PyGithub raises as a plain GithubException."""
        from github import UnknownObjectException

        try:
            with api_call(f"GET {self._repo_path}/contents/{quote(path)}?ref={ref}"):
                content = self._github().get_repo(self.repository).get_contents(path, ref=ref)
        except GitHubAPIError as exc:
            if isinstance(exc.__cause__, UnknownObjectException):  # 404 "Not Found": no such file
                return None
            raise
        if isinstance(content, list):
            raise ValueError(f"{path} is a folder at {ref[:12]}")
        return content.decoded_content.decode("utf-8")

    def archive_url(self, ref: str) -> str:
        """Where the tarball of commit `ref` downloads from: the API answers with a redirect to
        a URL that carries a short-lived token of its own (`citecheck.github.snapshot`)."""
        with api_call(f"GET {self._repo_path}/tarball/{ref}"):
            return str(self._github().get_repo(self.repository).get_archive_link("tarball", ref))

    def post_check_run(
        self,
        *,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        annotations: Sequence[Annotation],
        conclusion: str,
    ) -> CheckRunPosted:
        """A completed check run on `head_sha` carrying every annotation: created in progress,
        then updated with 50 annotations at a time (the Checks API's most per request; each
        update appends), the last update completing it with `conclusion`.

        Raises `CheckRunError` (with how many annotations it carries by then): a 403 means the
        token may not write checks. A run left half-annotated is still completed. PyGithub waits
        a second between writes (GitHub's advice against its secondary rate limits), so 1,000
        annotations take about 20 seconds.
        """
        output: dict[str, Any] = {"title": title, "summary": summary}
        try:
            repo = self._github().get_repo(self.repository)
            with api_call(f"POST {self._repo_path}/check-runs"):
                run = repo.create_check_run(name=name, head_sha=head_sha, status="in_progress", output=output)
        except Exception as exc:  # a GitHubAPIError (403: no `checks: write`; the network), or a bug
            raise CheckRunError(exc, 0, None) from exc
        items = [a.check_run() for a in annotations]
        step = CHECK_ANNOTATIONS_PER_REQUEST
        batches = [items[i : i + step] for i in range(0, len(items), step)] or [[]]
        done = 0
        try:
            for i, batch in enumerate(batches):
                last = {"status": "completed", "conclusion": conclusion} if i == len(batches) - 1 else {}
                with api_call(f"PATCH {self._repo_path}/check-runs/{run.id}"):
                    run.edit(output={**output, "annotations": batch}, **last)
                done += len(batch)
        except Exception as exc:
            with suppress(Exception):  # never leave it "in progress" for ever
                run.edit(status="completed", conclusion=conclusion)
            raise CheckRunError(exc, done, run.html_url) from exc
        return CheckRunPosted(url=str(run.html_url), annotated=done)

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

    def compare_files(self, base: str, head: str) -> list[PRFile]:
        """The files changed from `base` to `head` with their patches (the compare API, as a
        merge group's changes are listed): at most `COMPARE_FILES_LIMIT`."""
        with api_call(f"GET {self._repo_path}/compare/{base}...{head}"):
            comparison = self._github().get_repo(self.repository).compare(base, head)
            return [
                PRFile(
                    filename=f.filename, status=f.status, patch=f.patch, previous_filename=f.previous_filename
                )
                for f in comparison.files
            ]


@dataclass
class PullRequestClient(RepoClient):
    """The PR the run is about."""

    number: int

    def pr_files(self) -> PRFileList:
        """The PR's changed files with their patches, and GitHub's count of them."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        with api_call(f"GET {self._pull_path}/files"):
            files = [
                PRFile(
                    filename=f.filename, status=f.status, patch=f.patch, previous_filename=f.previous_filename
                )
                for f in pull.get_files()
            ]
        with api_call(f"GET {self._pull_path}"):
            changed = pull.changed_files  # lazy: fetches the PR
        return PRFileList(files=files, changed_files=changed)

    @property
    def _pull_path(self) -> str:
        return f"{self._repo_path}/pulls/{self.number}"

    def commits(self) -> tuple[str, str]:
        """The PR's head and base commits as GitHub has them now."""
        pull = self._github().get_repo(self.repository).get_pull(self.number)
        with api_call(f"GET {self._pull_path}"):
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
        comments = f"{self._repo_path}/issues/{self.number}/comments"
        ours = []
        if author is not None:
            with api_call(f"GET {comments}"):
                ours = [
                    c for c in issue.get_comments() if marker in (c.body or "") and author.authored(c.user)
                ]
        for comment in sorted(ours, key=lambda c: c.id):
            try:
                with api_call(f"PATCH {self._repo_path}/issues/comments/{comment.id}"):
                    comment.edit(body)
                return "updated"
            except GitHubAPIError as exc:
                if not isinstance(exc.__cause__, GithubException) or exc.status not in (403, 404):
                    raise
        if not create:
            return None
        with api_call(f"POST {comments}"):
            issue.create_comment(body)
        return "created"
