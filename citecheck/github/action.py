"""The GitHub Action: workflow inputs → Settings, PR or audit selection, the pipeline, publishing.

`entrypoint.py` (the container's ENTRYPOINT) calls `main()`. The runner hands us:
`INPUT_*` (each input passed explicitly through `runs.env` in action.yml, with underscores),
`GITHUB_EVENT_NAME` / `GITHUB_EVENT_PATH` (the event payload), `GITHUB_WORKSPACE`,
`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_API_URL`, `GITHUB_REPOSITORY`, …

Policy (docs/ARCHITECTURE.md, "Security"):
- Secrets are masked before anything else is printed; every log line, the report in every
  format, the annotations and the PR comment have them redacted and their URLs masked
  (`citecheck.redact`: the report is redacted once, before anything is made of it).
- The workflow inputs are the ceiling; `.citecheck.toml` (the `config` input) may only narrow
  them. In PR mode (`pull_request`, `pull_request_target`, `workflow_run`) it is read from the
  base commit through the contents API, never from the PR head, so a PR cannot switch its own
  check off; a `merge_group` run reads it from the queue's base commit. A file absent there
  means no narrowing; one that cannot be read is an error (exit 2), never "no config".
- `workflow_run` (part 2 of the fork-safe pattern) takes the PR's head and base commits from
  the API's PR object, never from the uploaded event file, and the head must be the one the
  triggering run built. It reads the PR's files from that head's tarball (`snapshot`), never
  from the workspace: the job that holds the secrets checks nothing of the PR out.
- Paths a PR can steer (`citecheck.safe_paths`): the report files are written through no
  symbolic link (one the PR commits at `citecheck-report/` is replaced, and the run errors
  once everything else is published); the cache is kept under RUNNER_TEMP only, through no
  link in the workspace; the uploaded event file is read through no link.
- PR mode takes the changed files and lines from the PR files API (`select.select_pr`), so
  it needs no git history and the image carries no git; an audit walks the workspace.
- Safe as a required status: the recommended workflow runs on every PR and merge group (a
  workflow skipped by a `paths:` filter leaves a required check pending for ever). A run whose
  PR or merge group changes no file this run would check ends at once, exit 0, with one line
  saying so in the summary, the outputs and (only where one exists already) the PR comment
  of its `comment-id`.
- `merge_group` runs check what the queue adds to the base branch: the files changed from
  `merge_group.base_sha` to `merge_group.head_sha` by the compare API (the image carries no
  git, and the checkout is one commit deep), with the lines as in a PR.
- No silent green: a run with files to check whose judge (`auto` or named) has no key is an
  error (exit 2) naming the repository secret to set, unless GitHub withholds secrets from the
  run — a `pull_request` from a fork, or Dependabot's. Then the deterministic checks run,
  claims that need the judge are "not verified" and do not fail the check (`limit`,
  `judge-error`, `unsure`, `not-verified` leave the effective fail-on), and the first line of
  the comment (its outcome line follows), of the check run's summary, of the job summary and
  the `note` output says the claims were not judged and why (`judged` is `false`). `judge:
  none` in the workflow is the way to opt out. A key the provider rejects fails every call:
  exit 2 (`citecheck.judge`), naming the input.
- Links that are not sources (`citecheck.exclusions`): the `exclude` input, the config file's
  `exclude` and `.citecheckignore` (read like the config: from the base commit in PR mode).
- A config value the workflow's ceiling overrides is a warning in the log and a note in the
  report, never silent.
- Exit 0 passed, 1 a claim failed under fail-on, 2 a configuration or runtime error. A PR
  comment that cannot be posted (403 on a fork PR, network) is a warning only: the summary,
  annotations and outputs are still written and the claims decide the exit code. A GitHub API
  error names the request that failed and GitHub's status; the permission that fixes it is
  named only when the status is a permission problem (403, or the 404 GitHub gives for what a
  token may not see).
- Suggested changes (`suggestions`, on by default): on a PR, one review whose comments carry
  the page's words in place of a contradicted claim's, on lines the PR added
  (`citecheck.github.review`); a fork's PR, a token that may not, or a failure is a notice,
  never an error.
- The log is grouped, a group per stage in order (select, extract, fetch + checks, judge,
  report and publish; `publish.StageLog`), with a progress line every few seconds of a long
  stage and at its end (files, claims, sources fetched of all, judge calls, cost so far), then
  the failing claims a group per file, then one line with the totals. Whatever a stage prints
  stays inside a stop-commands block: it can neither close a group nor issue a command.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from pydantic import ValidationError

from citecheck.cache import CACHE_SECRET_ENV, derived_secret, inside
from citecheck.config import (
    IGNORE_FILE,
    JUDGE_NONE,
    FilterMode,
    Narrowed,
    Settings,
    load_config_file,
    narrowing,
    parse_ignore_file,
)
from citecheck.errors import CitecheckError, ConfigError, ExitCode, JudgeFailedError, UnsafePathError
from citecheck.github.publish import (
    COMMENT_LIMIT_CHARS,
    COMPARE_FILES_LIMIT,
    ActionLog,
    Annotation,
    CheckRunError,
    DiffLinks,
    GitHubAPIError,
    PullRequestClient,
    RepoClient,
    StageLog,
    annotations,
    api_call,
    append_summary,
    body_too_long,
    check_comment_id,
    check_conclusion,
    check_run_text,
    comment_body,
    comment_marker,
    log_failures,
    mask_commands,
    per_step,
    report_name,
    shown_lines,
    summary_markdown,
    unannotated_note,
    write_outputs,
)
from citecheck.github.review import ReviewClient, ReviewOutcome, publish_review, suggestions_note
from citecheck.github.snapshot import Snapshot, SnapshotError, download
from citecheck.judge.providers import (
    PROVIDERS,
    Provider,
    input_variables,
    key_inputs,
    run_redactor,
    run_secrets,
)
from citecheck.models import Report, SelectedFile
from citecheck.output.markdown import LinkFor, blob_link, unreadable_note
from citecheck.policy import exit_code, failing_claims
from citecheck.progress import STAGE_TITLES, Stage
from citecheck.redact import Redactor
from citecheck.safe_paths import link_escape, read_inside, resolve_in, write_inside
from citecheck.select import PRFile, PRFileList, Selection, select_audit, select_pr

PR_EVENTS = ("pull_request", "pull_request_target")
DEFAULT_CONFIG = ".citecheck.toml"
REPORT_DIR = "citecheck-report"  # inside the workspace: the only folder later steps share
# Every input of action.yml, in its order (the README's inputs table follows it too);
# the judges' key inputs come from the provider registry.
ALL_INPUTS = (
    "paths",
    "filter-mode",
    "allowed-domains",
    "allow-private-hosts",
    "judge",
    "model",
    "base-url",
    *key_inputs(),
    "max-cost-usd",
    "max-claims",
    "judge-concurrency",
    "judge-mode",
    "judge-deadline-minutes",
    "screen",
    "fail-on",
    "accept-status",
    "exclude",
    "archive",
    "archive-check",
    "site-root",
    "site-url",
    "comment",
    "comment-id",
    "annotations",
    "check-run",
    "suggestions",
    "github-token",
    "cache-dir",
    "shard",
    "config",
)
# Inputs the Action itself consumes (secrets and the config file location); every other one
# maps onto the Settings field of the same name (hyphen → underscore).
ACTION_INPUTS = (*key_inputs(), "github-token", "config", "comment-id", "check-run", "suggestions")
SETTING_INPUTS = tuple(n for n in ALL_INPUTS if n not in ACTION_INPUTS)
# Why a run got no secrets (`Run.secrets_withheld`), for the note that says claims were not judged.
FORK_PR = "this pull request comes from a fork"
DEPENDABOT_PR = "this pull request is Dependabot's"
DEPENDABOT = "dependabot[bot]"
NO_KEY_REASON = "judge skipped: no API key"
LINK_IN_PR = "a symbolic link in the pull request: not read"


def not_judged_note(why: str) -> str:
    """The one line that opens the comment, the summary and the `note` output of a run that
    degraded to no judge."""
    return (
        f"Claims were not judged: {why}, and GitHub gives such a run no secrets, so the LLM judge "
        "had no API key. Only the number, quote and date checks ran; claims that need the judge "
        "are not verified and do not fail this check."
    )


def nothing_to_check_note(where: str) -> str:
    return f"No Markdown file matching `paths` changed in {where}: nothing to check."


_BOOLS = {
    "true": True,
    "yes": True,
    "1": True,
    "on": True,
    "false": False,
    "no": False,
    "0": False,
    "off": False,
}


def input_env(name: str) -> str:
    """The environment variable action.yml's `runs.env` passes input `name` in."""
    return input_variables(name)[0]


def read_input(environ: Mapping[str, str], name: str) -> str:
    # action.yml passes INPUT_FILTER_MODE; the runner's own INPUT_FILTER-MODE is the fallback.
    value = next((v for n in input_variables(name) if (v := environ.get(n)) is not None), "")
    return value.strip()


def _bool_input(name: str, value: str) -> bool:
    try:
        return _BOOLS[value.lower()]
    except KeyError:
        raise ConfigError(
            f"input {name}: {value!r} is not a boolean", f"set {name} to true or false"
        ) from None


def settings_from_inputs(environ: Mapping[str, str], workspace: Path) -> Settings:
    """The ceiling Settings from the workflow inputs; an empty input keeps the default."""
    raw: dict[str, Any] = {}
    for name in SETTING_INPUTS:
        value = read_input(environ, name)
        if not value:
            continue
        key = name.replace("-", "_")
        if name in ("comment", "annotations", "screen", "archive-check"):
            raw[key] = _bool_input(name, value)
        elif name == "cache-dir":
            raw[key] = cache_folder(value, workspace, environ)
        else:
            raw[key] = value
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).replace("_", "-") if err["loc"] else "?"
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"input {name}: {message}", "fix the value in the workflow's `with:`") from None
    except ConfigError as exc:
        raise ConfigError(f"input: {exc.message}", exc.hint) from None


CACHE_HINT = (
    "use a path under $RUNNER_TEMP, e.g. `cache-dir: ${{ runner.temp }}/citecheck-cache`, "
    "with the same `path:` in actions/cache/restore and actions/cache/save"
)


def cache_folder(value: str, workspace: Path, environ: Mapping[str, str]) -> Path:
    """The `cache-dir` input as the folder it really is; refused in the checked-out tree,
    through a symbolic link in it, and outside the runner's temporary folder.

    Whatever is checked out is the change under test: a cache there is one the PR can write,
    and a forged entry would decide its own claims (SECURITY.md). A link the PR commits
    (`prlink -> /elsewhere`, with `cache-dir: prlink/c`) would lead the cache wherever it
    points. The Action keeps nothing outside the workspace and the runner's temporary folder
    (`RUNNER_TEMP`), so the cache lives under the latter, and `actions/cache` carries it.
    """
    given = workspace / value
    real, link = resolve_in(given, workspace)
    if link is not None:
        raise ConfigError(
            f"input cache-dir: {value} leads through {link}, a symbolic link in the checked-out "
            "workspace (the change under test could have committed it)",
            CACHE_HINT,
        )
    if inside(real, workspace):
        raise ConfigError(
            f"input cache-dir: {given} is inside the checked-out workspace, where the change "
            "under test could write cache entries and so decide its own claims",
            CACHE_HINT,
        )
    temp = environ.get("RUNNER_TEMP", "").strip()
    if not (temp and real.is_relative_to(Path(temp).resolve())):
        where = f"RUNNER_TEMP ({temp})" if temp else "RUNNER_TEMP (not set in this run)"
        raise ConfigError(
            f"input cache-dir: {value} is not under {where}: the action keeps nothing outside "
            "the workspace and the runner's temporary folder",
            CACHE_HINT,
        )
    return real


@dataclass
class Event:
    name: str
    payload: dict[str, Any]
    from_file: bool = False  # the PR came from an uploaded event file (workflow_run)

    @property
    def is_pr(self) -> bool:
        return bool(self.pull_request) and self.name in (*PR_EVENTS, "workflow_run")

    @property
    def merge_group(self) -> dict[str, Any]:
        group = self.payload.get("merge_group") if self.name == "merge_group" else None
        return group if isinstance(group, dict) else {}

    @property
    def is_merge_group(self) -> bool:
        return bool(self.merge_group)

    @property
    def from_fork(self) -> bool:
        """A `pull_request` whose head is in another repository than its base: GitHub runs it
        without the base repository's secrets (a deleted fork's head repository is null)."""
        if self.name != "pull_request":
            return False
        head, base = self.pull_request.get("head") or {}, self.pull_request.get("base") or {}
        if "repo" in head and head["repo"] is None:
            return True
        head_name = (head.get("repo") or {}).get("full_name")
        base_name = (base.get("repo") or {}).get("full_name")
        return bool(head_name and base_name and head_name != base_name)

    @property
    def reads_config_from_base(self) -> bool:
        # A PR must not loosen its own check (say, `ignore = ["**"]`): its config change
        # counts once merged. Required on pull_request_target / workflow_run, which hold
        # secrets; a merge queue's tree is the PR's too.
        return self.is_pr or bool(self.merge_group)

    @property
    def pull_request(self) -> dict[str, Any]:
        pr = self.payload.get("pull_request")
        return pr if isinstance(pr, dict) else {}

    @property
    def number(self) -> int | None:
        n = self.pull_request.get("number", self.payload.get("number"))
        return n if isinstance(n, int) else None

    @property
    def base_sha(self) -> str | None:
        if self.merge_group:
            return self.merge_group.get("base_sha")
        return (self.pull_request.get("base") or {}).get("sha")

    @property
    def head_sha(self) -> str | None:
        if self.merge_group:
            return self.merge_group.get("head_sha")
        return (self.pull_request.get("head") or {}).get("sha")

    @property
    def trusted_head(self) -> str | None:
        """workflow_run: the commit GitHub says the triggering run built."""
        run = self.payload.get("workflow_run")
        return run.get("head_sha") if isinstance(run, dict) else None

    def with_commits(self, head: str, base: str) -> Event:
        """This event with the PR's head and base commits replaced (by the API's)."""
        pr = dict(self.pull_request)
        pr["head"] = {**(pr.get("head") or {}), "sha": head}
        pr["base"] = {**(pr.get("base") or {}), "sha": base}
        return Event(self.name, {**self.payload, "pull_request": pr}, self.from_file)


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc}", "is this running on a runner?") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: {what} is not a JSON object", "")
    return data


def read_pr_event(path: str, workspace: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """The uploaded event file `CITECHECK_PR_EVENT` names: in the workspace (relative to it, or
    absolute) or under RUNNER_TEMP, read through no symbolic link there. It comes from a run
    the PR controls, in a folder of the job that holds the secrets."""
    hint = "download the artifact into a folder of its own, as the fork-safe example's `path: citecheck-pr`"
    target = Path(os.path.abspath(workspace / path))
    temp = environ.get("RUNNER_TEMP", "").strip()
    for root in [Path(os.path.abspath(r)) for r in (workspace, temp) if str(r)]:
        if target == root or not target.is_relative_to(root):
            continue
        try:
            data = json.loads(read_inside(root, target.relative_to(root).as_posix()))
        except UnsafePathError as exc:
            raise ConfigError(f"CITECHECK_PR_EVENT {path}: {exc.message}", hint) from None
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the PR event file {path}: {exc}", hint) from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the PR event file is not a JSON object", hint)
        return data
    raise ConfigError(f"CITECHECK_PR_EVENT {path} is neither in the workspace nor under RUNNER_TEMP", hint)


def _workflow_run_pr(payload: dict[str, Any], environ: Mapping[str, str], workspace: Path) -> dict[str, Any]:
    """The PR a `workflow_run` job judges: from the analysing run's event file (the fork-safe
    pattern uploads it as an artifact; its path is `CITECHECK_PR_EVENT`), else from the
    payload's `pull_requests` (filled for same-repository PRs only). The file comes from an
    untrusted run, so its head SHA must be the one GitHub says that run built; its base SHA
    is not used (`Run.verify_pr` takes both from the API)."""
    run = payload.get("workflow_run") if isinstance(payload.get("workflow_run"), dict) else {}
    trusted_head = run.get("head_sha")
    path = environ.get("CITECHECK_PR_EVENT", "").strip()
    if path:
        pr = read_pr_event(path, workspace, environ).get("pull_request")
        if not isinstance(pr, dict):
            raise ConfigError(f"{path}: no pull_request object", "upload the pull_request run's event file")
        head = (pr.get("head") or {}).get("sha")
        if not trusted_head or head != trusted_head:
            raise ConfigError(
                f"{path}: head {str(head)[:12]} is not the head {str(trusted_head)[:12]} "
                "of the run that made it",
                "the event file must come from the workflow run that triggered this one",
            )
        return pr
    prs = run.get("pull_requests") or []
    return prs[0] if prs and isinstance(prs[0], dict) else {}


def load_event(environ: Mapping[str, str], workspace: Path | None = None) -> Event:
    name = environ.get("GITHUB_EVENT_NAME", "")
    path = environ.get("GITHUB_EVENT_PATH")
    payload = _read_json(Path(path), "the event payload") if path else {}
    from_file = False
    if name == "workflow_run":
        pr = _workflow_run_pr(payload, environ, workspace or Path.cwd())
        payload = {**payload, "pull_request": pr}
        from_file = bool(environ.get("CITECHECK_PR_EVENT", "").strip())
    event = Event(name, payload, from_file)
    if name in PR_EVENTS and not (event.base_sha and event.number):
        raise ConfigError(f"{path}: a {name} event without pull_request.base.sha / number", "")
    if name == "merge_group" and not (event.base_sha and event.head_sha):
        raise ConfigError(f"{path}: a merge_group event without merge_group.base_sha / head_sha", "")
    return event


def _repo_text(
    rel: str, what: str, workspace: Path, event: Event, client: RepoClient | None
) -> tuple[str | None, str]:
    """A repository file's text (None: absent) and how to name it; in PR and merge-group mode
    from the base commit, so the change under test cannot loosen its own check. A file that
    cannot be read there is an error: going on without it would drop the repository's
    narrowing (an added fail-on, a shorter allowlist, a lower cost cap) or its exclusions in
    exactly the run a PR may have steered. `what` names the file's role in errors."""
    if event.reads_config_from_base:
        if not event.base_sha:
            raise ConfigError(f"the event names no base commit to read the {what} from", "")
        where = f"{rel} at base {event.base_sha[:12]}"
        if client is None:
            raise ConfigError(
                f"cannot read {where}: no github-token",
                "keep the default `github-token: ${{ github.token }}` (with `contents: read`): "
                f"the {what} is read from the base commit through the API",
            )
        try:
            return client.file_at(rel, event.base_sha), where
        except GitHubAPIError as exc:
            raise ConfigError(f"cannot read {where}: {exc}", api_hint(exc, "contents: read")) from None
        except ValueError as exc:  # a folder where the file should be
            raise ConfigError(f"cannot read {where}: {exc}", "") from None
    path = workspace / rel
    if (path.is_symlink() or path.exists()) and (why := link_escape(path, workspace)):
        raise ConfigError(f"{rel} is {why}: not read", f"commit the {what} itself, not a link to it")
    return (path.read_text(encoding="utf-8") if path.is_file() else None), rel


def apply_config(
    settings: Settings, path_input: str, workspace: Path, event: Event, client: RepoClient | None
) -> Narrowed:
    """The settings the config file narrows, and its notes (values the workflow overrides)."""
    rel = PurePosixPath((path_input or DEFAULT_CONFIG).removeprefix("./")).as_posix()
    text, where = _repo_text(rel, "config file", workspace, event, client)
    if text is None:
        if path_input and path_input != DEFAULT_CONFIG:
            raise ConfigError(f"config file {where} not found", "fix the `config` input or add the file")
        return Narrowed(settings)
    # load_config_file parses and validates a file: give it the base commit's text as one.
    with tempfile.TemporaryDirectory(prefix="citecheck-") as tmp:
        target = Path(tmp) / PurePosixPath(where.split(" ")[0]).name
        target.write_text(text, encoding="utf-8")
        try:
            data = load_config_file(target)
        except ConfigError as exc:
            raise ConfigError(exc.message.replace(str(target), where), exc.hint) from None
    return narrowing(settings, data, where)


def apply_ignore_file(
    settings: Settings, workspace: Path, event: Event, client: RepoClient | None
) -> Settings:
    """`settings` with the `exclude` patterns of `.citecheckignore` at the repository root
    added (from the base commit in PR and merge-group mode, like the config file)."""
    text, where = _repo_text(IGNORE_FILE, IGNORE_FILE, workspace, event, client)
    patterns = parse_ignore_file(text, where) if text else []
    return settings.model_copy(update={"exclude": [*settings.exclude, *patterns]}) if patterns else settings


def api_hint(exc: GitHubAPIError, permission: str) -> str:
    """What to do about a failed GitHub API request. The permission is named only when the
    status is a permission problem: 403 (other than a rate limit), or the 404 GitHub answers
    for what a token may not see."""
    status, said = exc.status, exc.message.lower()
    if status is None or status >= 500:
        return "the GitHub API did not answer; re-run the job"
    if status == 401:
        return (
            "GitHub refused the token: keep the default `github-token: ${{ github.token }}`, "
            "or pass a valid one"
        )
    if status in (403, 429) and "rate limit" in said:
        return "the token hit GitHub's API rate limit; re-run the job later"
    if status == 403:
        return f"the token is not allowed this: give the job `permissions:` `{permission}`"
    if status == 404 and said.startswith("no commit found"):
        return "the repository has no such commit (a force-push?); re-run the job on the current one"
    if status == 404:
        return (
            f"GitHub answers 404 for what a token may not see: give the job `permissions:` `{permission}` "
            "(or check that the repository and the PR exist)"
        )
    return ""


def _wanted_providers(error: ConfigError, judge: str) -> list[Provider]:
    """The providers whose key a no-key error asked for: the named judge, or for `auto` those
    `auto` may choose whose variable `resolve_judge` named (the provider of the model asked
    for, else every one)."""
    candidates = [PROVIDERS[judge]] if judge in PROVIDERS else [p for p in PROVIDERS.values() if p.auto]
    named = [p for p in candidates if p.key_env in error.message] or candidates
    return list({p.key_input: p for p in named}.values())


def no_key_error(error: ConfigError, judge: str) -> ConfigError:
    """The Action's no-key error: which secret to set and how to pass it, or how to opt out."""
    wanted = _wanted_providers(error, judge)
    inputs = " and ".join(f"`{p.key_input}`" for p in wanted)
    setups = [f"the repository secret {p.key_env} and pass it as `{p.key_input}`" for p in wanted]
    example = f"`{wanted[0].key_input}: ${{{{ secrets.{wanted[0].key_env} }}}}`"
    return ConfigError(
        f"judge: {judge} needs an API key, and {inputs} {'is' if len(wanted) == 1 else 'are'} empty in "
        "this run (only a pull request from a fork, whose runs get no secrets, goes on without the judge)",
        f"set {' or '.join(setups)} (e.g. {example} under the citecheck step's `with:`); to run without "
        "the LLM judge, set `judge: none` there: then only the number, quote and date checks run",
        code="no-api-key",
    )


@dataclass
class Run:
    """One Action run's context, gathered from the environment."""

    environ: Mapping[str, str]
    log: ActionLog
    stages: StageLog = field(init=False)  # the log's groups, and the pipeline's progress listener
    workspace: Path = field(init=False)
    event: Event = field(init=False)
    token: str = field(init=False)
    judge_skipped: bool = False  # secrets withheld: the judge is off for lack of a key
    notes: list[str] = field(default_factory=list)  # for the report, from before selection
    pr_files: list[PRFile] = field(default_factory=list)  # the PR files API's answer (PR mode)
    # Where the checked files are read: the workspace, or the PR's snapshot (`fetch_tree`).
    tree: Path = field(init=False)
    snapshot: Snapshot | None = None
    scratch: tempfile.TemporaryDirectory[str] | None = None  # holds the snapshot; `close` removes it

    def __post_init__(self) -> None:
        self.stages = StageLog(self.log)
        self.workspace = Path(self.environ.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
        self.tree = self.workspace
        self.token = read_input(self.environ, "github-token") or self.environ.get("GITHUB_TOKEN", "")

    def close(self) -> None:
        if self.scratch is not None:
            self.scratch.cleanup()
            self.scratch = None

    # ---- helpers

    @property
    def repository(self) -> str:
        return self.environ.get("GITHUB_REPOSITORY", "")

    @property
    def api_url(self) -> str:
        return self.environ.get("GITHUB_API_URL") or "https://api.github.com"

    @property
    def redact(self) -> Redactor:
        return self.log.redact

    @property
    def secrets_withheld(self) -> str | None:
        """Why GitHub gave this run no secrets (None: it had them): a `pull_request` from a
        fork, or one Dependabot triggered (run "as if from a fork"). `pull_request_target`
        and `workflow_run` runs have the base repository's secrets."""
        if self.event.from_fork:
            return FORK_PR
        if self.event.name == "pull_request" and self.environ.get("GITHUB_ACTOR") == DEPENDABOT:
            return DEPENDABOT_PR
        return None

    @property
    def where(self) -> str:
        """What the run checks, for its one-line notes."""
        if self.event.is_pr:
            return f"PR #{self.event.number}"
        return "this merge group" if self.event.is_merge_group else "the repository"

    def repo_client(self) -> RepoClient | None:
        if not (self.token and self.repository):
            return None
        return RepoClient(self.token, self.api_url, self.repository)

    def pr_client(self) -> PullRequestClient | None:
        if not (self.token and self.repository and self.event.number):
            return None
        return PullRequestClient(self.token, self.api_url, self.repository, self.event.number)

    def review_client(self) -> ReviewClient | None:
        if not (self.token and self.repository and self.event.number):
            return None
        return ReviewClient(self.token, self.api_url, self.repository, self.event.number)

    def run_url(self) -> str:
        server = self.environ.get("GITHUB_SERVER_URL", "https://github.com")
        run_id = self.environ.get("GITHUB_RUN_ID", "")
        return f"{server}/{self.repository}/actions/runs/{run_id}" if run_id and self.repository else ""

    def summary_hint(self) -> str:
        url = self.run_url()
        return f"the [job summary]({url})" if url else "the job summary"

    def comment_hint(self) -> str:
        """Where a shortened comment says the full report is."""
        return f"{self.summary_hint()} and in `{REPORT_DIR}/` (keep it with actions/upload-artifact)"

    def link_base(self) -> str | None:
        """Where `file:line` in the report links: the blob of the commit that was checked."""
        server = self.environ.get("GITHUB_SERVER_URL", "https://github.com")
        diffed = self.event.is_pr or self.event.is_merge_group
        sha = self.event.head_sha if diffed else self.environ.get("GITHUB_SHA")
        return f"{server}/{self.repository}/blob/{sha}" if sha and self.repository else None

    def comment_id(self) -> str:
        return check_comment_id(read_input(self.environ, "comment-id"))

    def check_run_on(self) -> bool:
        value = read_input(self.environ, "check-run")
        return _bool_input("check-run", value) if value else True

    def suggestions_on(self) -> bool:
        value = read_input(self.environ, "suggestions")
        return _bool_input("suggestions", value) if value else True

    def claim_links(self, report: Report) -> LinkFor | None:
        """Where the PR comment links each `file:line`: its line in the PR's diff, else the
        file at the PR's head (`DiffLinks`); outside a PR, the checked commit's file."""
        server = self.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        number, head = self.event.number, self.event.head_sha
        if not (self.event.is_pr and self.repository and number and head):
            base = self.link_base()
            return blob_link(base) if base else None
        shown = shown_lines(self.pr_files, self.tree, {c.file for c in report.claims})
        return DiffLinks(server, self.repository, number, head, shown)

    def pipeline_environ(self) -> dict[str, str]:
        env = dict(self.environ)
        for name, var in key_inputs().items():
            value = read_input(self.environ, name)
            if value:
                env[var] = value
        return env

    def first_line(self) -> str:
        """The note the comment, the summary and the `note` output open with ("" for none)."""
        return not_judged_note(self.secrets_withheld or "") if self.judge_skipped else ""

    # ---- stages

    def settings(self) -> Settings:
        """The workflow inputs, narrowed by the config file, with `.citecheckignore` added."""
        settings = settings_from_inputs(self.environ, self.workspace)
        self.warn_cache_dir(settings)
        if self.event.is_pr and not self.token:
            raise ConfigError(
                "PR mode needs github-token to list the PR's changed files and to read the config "
                "file at the base commit",
                "keep the default `github-token: ${{ github.token }}` with `contents: read` and "
                "`pull-requests: read`",
            )
        config = read_input(self.environ, "config")
        client = self.repo_client()
        narrowed = apply_config(settings, config, self.workspace, self.event, client)
        self.notes.extend(narrowed.notes)
        return apply_ignore_file(narrowed.settings, self.workspace, self.event, client)

    def judge_gate(self, settings: Settings) -> Settings:
        """A run with claims to check and a judge (`auto` or named) needs a key. Without one it
        is an error naming the secret to set — unless GitHub withheld the secrets from this run
        (`secrets_withheld`): then the judge is off and the claims that need it do not fail.

        Only a missing key is decided here; any other judge setting error (an unknown model, a
        missing base URL) is the pipeline's, before anything is fetched."""
        from citecheck.judge.resolve import judge_off, missing_key

        missing = missing_key(settings, self.pipeline_environ())
        if missing is None:
            return settings
        if self.secrets_withheld is None:
            raise no_key_error(missing, settings.judge)
        self.judge_skipped = True
        return judge_off(settings)

    @staticmethod
    def with_cache_secret(settings: Settings, env: dict[str, str]) -> dict[str, str]:
        """`env` with the cache's secret (`citecheck.cache`, "Origin"): CITECHECK_CACHE_SECRET if
        the workflow sets it, else one derived from the judge's API key — a real key from the
        workflow, never an OpenAI-compatible server's stand-in, which anyone knows. A run of a
        fork's PR has neither, so its cache is not used (the pipeline notes why)."""
        if settings.cache_dir is None or env.get(CACHE_SECRET_ENV, "").strip():
            return env
        from citecheck.judge.resolve import resolve_judge

        config = resolve_judge(settings, env)
        key = env.get(PROVIDERS[config.provider].key_env, "").strip() if config is not None else ""
        if key:
            env[CACHE_SECRET_ENV] = derived_secret(key)
        return env

    def warn_cache_dir(self, settings: Settings) -> None:
        """The Action runs in a container: only the workspace and the runner's temporary folder
        (`RUNNER_TEMP`, mounted since runner 2.331) outlive it; the cache is under the latter
        (`cache_folder`), which an older runner does not mount."""
        temp = self.environ.get("RUNNER_TEMP", "").strip()
        if settings.cache_dir is not None and temp and not Path(temp).resolve().is_dir():
            self.log.warning(
                f"citecheck: RUNNER_TEMP ({temp}) is not mounted in the action's container (a runner "
                "older than 2.331): cache-dir is lost when the step ends; update the runner"
            )

    def verify_pr(self) -> None:
        """`workflow_run`: the PR named by the uploaded event file (or the payload) is looked
        up in the API. Its head must be the commit the triggering run built, so a forged file
        cannot aim the comment (and the judge's budget) at another PR; its head and base then
        replace the file's, so a forged base cannot make the base's config unreadable and
        drop the repository's narrowing in the job that holds the secrets."""
        if not (self.event.is_pr and self.event.name == "workflow_run"):
            return
        client = self.pr_client()
        if client is None:
            raise ConfigError(
                "a workflow_run PR needs github-token to look the PR up",
                "keep the default `github-token: ${{ github.token }}` with `pull-requests: read`",
            )
        try:
            head, base = client.commits()
        except GitHubAPIError as exc:
            raise ConfigError(
                f"cannot check PR #{self.event.number}: {exc}", api_hint(exc, "pull-requests: read")
            ) from None
        expected = self.event.trusted_head or self.event.head_sha
        if head != expected:
            raise ConfigError(
                f"PR #{self.event.number} has head {head[:12]}, not {str(expected)[:12]}",
                "the PR was pushed to again since (a newer run will follow), or the event file is forged",
            )
        self.event = self.event.with_commits(head, base)

    def fetch_tree(self) -> None:
        """`workflow_run` (the fork-safe part 2, which holds the secrets): the PR's files come
        from the tarball of the head `verify_pr` checked (`citecheck.github.snapshot`), never
        from the workspace, so the job checks nothing of the PR out."""
        head, client = self.event.head_sha, self.repo_client()
        if not (self.event.is_pr and self.event.name == "workflow_run" and head and client):
            return
        where = f"PR #{self.event.number}'s head {head[:12]}"
        self.scratch = tempfile.TemporaryDirectory(prefix="citecheck-pr-")
        try:
            snapshot = download(client.archive_url(head), Path(self.scratch.name) / "tree")
        except GitHubAPIError as exc:
            raise ConfigError(f"cannot download {where}: {exc}", api_hint(exc, "contents: read")) from None
        except SnapshotError as exc:
            raise ConfigError(f"cannot download {where}: {exc}", "re-run the job") from None
        # As in a checkout, the tree's root holds `.git`: a bibliography path is found from it.
        (snapshot.root / ".git").mkdir(exist_ok=True)
        self.snapshot, self.tree = snapshot, snapshot.root
        self.log.info(
            f"citecheck: {snapshot.files} files of {where} read through the API; the workspace is not read"
        )

    def select(self, settings: Settings) -> Selection:
        self.fetch_tree()
        selection = self._select(settings)
        # A walk of the workspace (audits, nofilter, a PR too large to list) sees untracked
        # files too: our own report of an earlier run is not a document to check.
        selection.files = [f for f in selection.files if not f.display.startswith(REPORT_DIR + "/")]
        if self.snapshot is not None:  # a link the PR changed is missing from the snapshot: say why
            links = self.snapshot.links
            selection.errors = [
                e.model_copy(update={"message": LINK_IN_PR}) if e.file in links else e
                for e in selection.errors
            ]
        return selection

    def _select(self, settings: Settings) -> Selection:
        diffed = self.event.is_pr or self.event.is_merge_group
        if not diffed or settings.filter_mode == FilterMode.nofilter:
            # nofilter checks every file matching `paths`, changed or not: no listing needed.
            return select_audit(self.tree, settings)
        if self.event.is_merge_group:
            return self._select_merge_group(settings)
        client = self.pr_client()
        if client is None:
            raise ConfigError(
                "PR mode needs github-token to list the PR's changed files",
                "keep the default `github-token: ${{ github.token }}` with `pull-requests: read`",
            )
        try:
            listing = client.pr_files()
        except GitHubAPIError as exc:
            raise ConfigError(
                f"cannot list the changed files of PR #{self.event.number}: {exc}",
                api_hint(exc, "pull-requests: read"),
            ) from None
        self.pr_files = listing.files  # the PR comment links each claim to its line in this diff
        return select_pr(self.tree, settings, listing)

    def _select_merge_group(self, settings: Settings) -> Selection:
        """The files the merge group changes on its base branch, as the compare API lists them
        from `base_sha` to `head_sha` (the queue's commit, which is what is checked out)."""
        base, head = self.event.base_sha or "", self.event.head_sha or ""
        client = self.repo_client()
        if client is None:
            raise ConfigError(
                "a merge_group run needs github-token to list the files the merge group changes",
                "keep the default `github-token: ${{ github.token }}` with `contents: read`",
            )
        try:
            files = client.compare_files(base, head)
        except GitHubAPIError as exc:
            raise ConfigError(
                f"cannot list the files changed from {base[:12]} to {head[:12]}: {exc}",
                api_hint(exc, "contents: read"),
            ) from None
        if len(files) >= COMPARE_FILES_LIMIT:
            audit = select_audit(self.tree, settings)
            audit.notes.append(
                f"the merge group changes {COMPARE_FILES_LIMIT} files or more, more than the compare "
                "API lists: every file matching `paths` was checked whole"
            )
            return audit
        return select_pr(self.tree, settings, PRFileList(files=files, changed_files=len(files)))

    def check(self, settings: Settings, files: list[SelectedFile]) -> Report:
        from citecheck.pipeline import check  # the lead's orchestration of the stages

        judge_off_reason = NO_KEY_REASON if self.judge_skipped else ""
        return check(
            settings,
            files,
            environ=self.with_cache_secret(settings, self.pipeline_environ()),
            redact=self.redact,
            judge_off_reason=judge_off_reason,
            progress=self.stages,  # a group per stage, progress lines and batch mode's polls in it
            # internal links are followed to the files of the tree checked: the workspace, or the
            # fork-safe part 2's snapshot of the PR's head
            root=self.tree,
        )

    def finish(self, report: Report, selection: Selection) -> Report:
        from citecheck.output.report import with_errors

        notes = self.notes + list(selection.notes) + list(report.notes)
        if self.judge_skipped:
            notes.insert(0, self.first_line())
        # The selection's errors count like the run's own: a changed file that was not read
        # (`unreadable`) fails the check whatever the other files gave.
        return with_errors(report.model_copy(update={"notes": notes}), selection.errors)


def _outputs(report: Report, files: Mapping[str, str], *, note: str, judged: bool) -> dict[str, str]:
    from citecheck.output.report import summary_counts

    counts = summary_counts(report)
    return {
        # First: a run that degraded (or had nothing to check) says so before any figure.
        "note": note,
        "judged": json.dumps(judged),
        "passed": json.dumps(report.passed),
        "total-claims": str(counts.total),
        "verified": str(counts.verified),
        "failed": str(counts.failed),
        "unsourced": str(counts.unsourced),
        "not-verified": str(counts.not_verified),
        "dismissed": str(report.total_dismissed),
        "score": "null" if report.overall_score is None else f"{report.overall_score:.4f}",
        "cost-usd": f"{report.total_cost_usd:.4f}",
        **{f"report-{name}": path for name, path in files.items()},
    }


def _write_reports(run: Run, report: Report) -> tuple[dict[str, str], list[str]]:
    """Every report file of the format registry, in the workspace's `citecheck-report/`: their
    relative paths by format, and a line for each thing in the way. A symbolic link there,
    which a PR can commit, is replaced and never written through, so no later step follows it
    either; something else in the way leaves that file unwritten. Either is an error (exit 2)
    once the summary, the outputs and the comment are out."""
    from citecheck.output import FORMATS

    rel: dict[str, str] = {}
    problems: list[str] = []
    remove = "remove it from the repository (a pull request may have committed it)"
    for fmt in (f for f in FORMATS.values() if f.action_file):
        path = f"{REPORT_DIR}/report.{fmt.extension}"
        try:
            replaced = write_inside(run.workspace, path, fmt.render(report, run.redact), replace_links=True)
        except UnsafePathError as exc:
            problems.append(f"{exc.message} — {remove}; the report is in the job summary")
            continue
        problems += [
            f"{link} was a symbolic link in the workspace: the report replaced the link, never "
            f"written through it — remove the link from the repository (a pull request may have committed it)"
            for link in replaced
        ]
        rel[fmt.name] = path
    return rel, problems


def _report_problems(run: Run, problems: list[str], code: int) -> int:
    """The exit code once the report files' problems (`_write_reports`) are logged."""
    for line in problems:
        run.log.error(f"citecheck: {line}")
    return ExitCode.ERROR if problems else code


def publish(run: Run, settings: Settings, report: Report) -> int:
    # Once, before anything is made of it: report files, annotations, summary, outputs, the
    # log's list of failing claims and the PR comment all come from the redacted report.
    report = run.redact.model(report)
    log = run.log
    run.stages.enter(StageLog.TITLES[Stage.report], commands_off=False)
    rel, problems = _write_reports(run, report)

    unannotated = annotate(run, report) if settings.annotations else ""

    # A file nobody read is said before anything else, as a run that could not judge is.
    first = " ".join(filter(None, [run.first_line(), unreadable_note(report)]))
    summary_extra = f"\n*{unannotated}*\n" if unannotated else ""
    summary_path = run.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        hint = f"`{rel['json']}`" if "json" in rel else "the JSON report"
        text = summary_markdown(
            report, preface=_first_line_preface(first), hint=hint, link_base=run.link_base()
        )
        append_summary(Path(summary_path), text + summary_extra)

    output_path = run.environ.get("GITHUB_OUTPUT")
    if output_path:
        outputs = _outputs(report, rel, note=first, judged=settings.judge != JUDGE_NONE)
        write_outputs(Path(output_path), outputs)

    suggested = suggest_changes(run, report)
    if settings.comment and run.event.is_pr:
        notes = [f"*{unannotated}*"] if unannotated else []
        notes += [note] if (note := suggestions_note(suggested)) else []
        links = run.claim_links(report)
        comment_id = run.comment_id()

        def body(**limit: int | None) -> str:
            return comment_body(
                report,
                hint=run.comment_hint(),
                link=links,
                comment_id=comment_id,
                notes=notes,
                first_line=_first_line_quote(first),
                **limit,
            )

        # A PR that touches no claim gets no new comment; an existing one is still brought up to date.
        post_comment(
            run,
            body(),
            create=bool(report.claims or report.errors),
            # A server that counts the documented 65,536 characters, not GitHub.com's bytes.
            in_chars=lambda: body(max_bytes=None, max_chars=COMMENT_LIMIT_CHARS),
        )
    run.stages.close()
    # Last, outside any group: the failing claims by file, then the totals.
    failing = failing_claims(report)
    log_failures(log, failing)
    log.info(
        f"citecheck: {report.total_claims} claims, {report.total_supported} verified, "
        f"{len(failing)} failing under fail-on ({', '.join(report.fail_on) or 'nothing'})"
        + (f"; report: {rel['json']}" if "json" in rel else "")
    )
    return _report_problems(run, problems, exit_code(report))


def _first_line_quote(note: str) -> str:
    """A note as the first line of a Markdown report: a quote, its lead in bold ("" for none)."""
    if not note:
        return ""
    lead, _, rest = note.partition(": ")
    return f"> **{lead}:** {rest}"


def _first_line_preface(note: str) -> str:
    """`_first_line_quote` as a paragraph of its own before a report."""
    return f"{_first_line_quote(note)}\n\n" if note else ""


def publish_nothing_to_check(run: Run, settings: Settings, selection: Selection) -> int:
    """A PR or merge group that changes no file this run checks: one line in the summary, the
    outputs and the report files (which also keep the selection's warnings, e.g. a symbolic
    link skipped); the PR comment of this `comment-id` only if there is one already (it would
    otherwise show an older run's report). Exit 0: nothing needed the judge, so no key is
    asked for."""
    from citecheck.output.report import build_report

    line = nothing_to_check_note(run.where)
    report = build_report([], settings=settings, notes=[line, *selection.notes], errors=selection.errors)
    rel, problems = _write_reports(run, run.redact.model(report))
    comment_id = run.comment_id()
    said = f"**{report_name(comment_id)}:** {line}"
    summary_path = run.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        append_summary(Path(summary_path), said)
    output_path = run.environ.get("GITHUB_OUTPUT")
    if output_path:
        write_outputs(Path(output_path), _outputs(report, rel, note=line, judged=False))
    run.log.info(f"citecheck: {line}")
    if settings.comment and run.event.is_pr:
        post_comment(run, f"{comment_marker(comment_id)}\n{said}\n", create=False)
    return _report_problems(run, problems, ExitCode.PASSED)


def annotate(run: Run, report: Report) -> str:
    """Mark the claims on their lines: all of them on a check run when the token may write
    checks (and `check-run` is on), else the workflow commands a step can show. Returns what to
    say about the ones left out ("" when none is)."""
    found = annotations(report)
    if not found:
        return ""
    rest: list[Annotation] = found
    if run.check_run_on():
        rest = found[post_check_run(run, report, found) :]
    kept = per_step(rest)
    for a in kept:
        run.log.emit(a.command())
    left_out = len(rest) - len(kept)
    if not left_out:
        return ""
    note = unannotated_note(left_out, len(found), check_run=run.event.is_pr)
    run.log.info(f"citecheck: {note}")
    return note


def post_check_run(run: Run, report: Report, found: list[Annotation]) -> int:
    """Put `found` on a check run on the PR's head; returns how many it carries (0: the token
    may not). Only in a PR, whose "Files changed" shows them: an audit or a merge group makes
    no API call for it."""
    head = run.event.head_sha
    client = run.repo_client()
    if client is None or not head or not run.event.is_pr:
        return 0
    name = report_name(run.comment_id())
    title, summary = check_run_text(
        report,
        name=name,
        hint=run.summary_hint(),
        link=run.claim_links(report),
        first_line=_first_line_quote(run.first_line()),
    )
    try:
        posted = client.post_check_run(
            name=name,
            head_sha=head,
            title=title,
            summary=run.redact.secrets(summary),
            annotations=found,
            conclusion=check_conclusion(report),
        )
    except CheckRunError as exc:
        if exc.status in (403, 404) and not exc.annotated:  # no `checks: write` (or no Checks API)
            run.log.info(
                f"citecheck: no check run ({exc.cause}: the token may not write checks); "
                "annotating through workflow commands"
            )
        else:
            run.log.warning(
                f"citecheck: the check run failed after {exc.annotated} of {len(found)} annotations "
                f"({exc.cause}); the rest go through workflow commands"
            )
        return exc.annotated
    run.log.info(f"citecheck: {posted.annotated} annotations on the check run {posted.url}")
    return posted.annotated


def suggest_changes(run: Run, report: Report) -> ReviewOutcome:
    """The review of suggested changes on a PR (`citecheck.github.review`), unless `suggestions`
    is off. A PR with claims is looked at even when none has a fix now: an earlier run's
    suggestions may have to be marked outdated. A fork's PR (a read-only token) is skipped with
    one notice, and any failure is a notice too, never an error."""
    outcome = ReviewOutcome()
    if not (run.event.is_pr and run.suggestions_on() and report.claims):
        return outcome
    client, head = run.review_client(), run.event.head_sha
    if run.secrets_withheld or client is None or not head:
        if any(c.suggestion for c in report.claims):
            why = (
                f"{run.secrets_withheld}: its token may not write reviews"
                if run.secrets_withheld
                else "no github-token"
            )
            run.log.command("notice", f"citecheck: suggested changes skipped ({why})")
        return outcome
    outcome = publish_review(
        client,
        report,
        pr_files=run.pr_files,
        tree=run.tree,
        head_sha=head,
        comment_id=run.comment_id(),
        redact=run.redact,
    )
    for notice in outcome.notices:
        run.log.command("notice", f"citecheck: {notice}")
    said = [
        f"{outcome.posted} posted",
        f"{outcome.kept} already on the PR",
        f"{outcome.outdated} marked outdated",
    ]
    run.log.info(f"citecheck: suggested changes: {', '.join(said)}")
    return outcome


def post_comment(run: Run, body: str, *, create: bool, in_chars: Callable[[], str] | None = None) -> None:
    """Create or update the sticky comment of the run's `comment-id` (`create`: whether a PR
    without one gets one). `in_chars`: the body cut to the documented 65,536 characters, for a
    server that refuses `body` as too long."""
    client = run.pr_client()
    if client is None:
        run.log.warning("citecheck: no github-token or PR number, so no PR comment was posted")
        return
    marker = comment_marker(run.comment_id())
    # The report is redacted already; the body's own parts (hint, links) are checked too.
    body = run.redact.secrets(body)
    try:
        with api_call("POST /graphql (viewer)"):  # a network failure of the identity look-up
            author = client.identity()
        if author is None:
            run.log.warning(
                "citecheck cannot tell which account github-token acts as (GraphQL viewer and "
                "GET /user both failed), so it edits no earlier comment and posts a new one"
            )
        try:
            done = client.upsert_comment(body, author, create=create, marker=marker)
        except GitHubAPIError as exc:
            if in_chars is None or not body_too_long(exc):
                raise
            done = client.upsert_comment(run.redact.secrets(in_chars()), author, create=create, marker=marker)
    except GitHubAPIError as exc:  # 403 on a fork PR, network: the report is in the summary anyway
        hint = api_hint(exc, "pull-requests: write")
        if exc.status == 403 and "rate limit" not in exc.message.lower():
            hint += (
                " (a pull request from a fork gets a read-only token: see the two-workflow "
                "pattern in the README)"
            )
        run.log.warning(
            f"citecheck could not post the PR comment: {exc}"
            + (f"; {hint}" if hint else "")
            + ". The report is in the job summary."
        )
        return
    except Exception as exc:  # not the API's (a bug): the summary and outputs carry the report anyway
        run.log.warning(
            f"citecheck could not post the PR comment ({type(exc).__name__}: {str(exc)[:200]}); "
            "the report is in the job summary"
        )
        return
    if done:
        run.log.info(f"citecheck: PR comment {done}")


def _judge_failed_hint(exc: JudgeFailedError) -> str:
    """Every judge call failed; when the provider rejected the key (`judge-auth`), say which
    input, and which repository secret by the usual name, held it."""
    if "[judge-auth]" not in exc.message:
        return exc.hint
    wanted = [p for p in PROVIDERS.values() if p.key_env in exc.hint] or list(PROVIDERS.values())
    held = " or ".join(dict.fromkeys(f"`{p.key_input}` (the repository secret {p.key_env})" for p in wanted))
    return f"the provider rejected the key passed as {held}: set the secret to a current key"


def _run_stages(run: Run, log: ActionLog) -> int:
    """The run after the masks: settings, then the stages, each in its group (`StageLog`)."""
    run.event = load_event(run.environ, run.workspace)
    run.verify_pr()
    settings = run.settings()
    # A bad value stops the run before it spends anything.
    run.comment_id(), run.check_run_on(), run.suggestions_on()
    mode = (
        f"PR #{run.event.number}"
        if run.event.is_pr
        else ("merge group" if run.event.is_merge_group else f"audit ({run.event.name or 'local'})")
    )
    log.info(f"citecheck: {mode}, filter-mode {settings.filter_mode.value}, judge {settings.judge}")
    for note in run.notes:
        log.warning(note.replace("\n", " "))
    run.stages.enter(STAGE_TITLES[Stage.select])
    selection = run.select(settings)
    run.stages.commands_on()
    log.info(f"citecheck: {len(selection.files)} file(s) selected (from {selection.source})")
    for note in selection.notes:
        log.warning(note.replace("\n", " "))
    run.stages.close()
    if not selection.files and any(e.fatal for e in selection.errors):
        first = selection.errors[0]
        raise ConfigError(f"{first.file}: {first.message}", f"{len(selection.errors)} file(s) affected")
    if not selection.files and (run.event.is_pr or run.event.is_merge_group):
        return publish_nothing_to_check(run, settings, selection)
    settings = run.judge_gate(settings)
    if run.judge_skipped:
        log.warning(run.first_line())
    # The pipeline opens a group per stage, commands off in each (`run.check`'s listener); the
    # first opens here, so that nothing the run prints before its first stage is obeyed either.
    run.stages.enter(StageLog.TITLES[Stage.extract])
    report = run.check(settings, selection.files)
    run.stages.commands_on()
    return publish(run, settings, run.finish(report, selection))


def run_action(environ: Mapping[str, str], stream: TextIO) -> int:
    """The whole Action; returns the exit code. Never raises."""
    # The run's one redactor: the log, the pipeline (the judge's texts, the report) and every
    # file, comment and summary the run writes.
    log = ActionLog(stream, run_redactor(environ))
    run = Run(environ, log)
    for line in mask_commands(run_secrets(environ)):
        stream.write(line + "\n")  # first of all, before any other output
    try:
        try:
            return _run_stages(run, log)
        finally:
            run.stages.close()  # an error is printed outside any group, commands on
            run.close()
    except JudgeFailedError as exc:
        log.error(f"citecheck: {exc.message} — {_judge_failed_hint(exc)}")
        return exc.exit_code
    except CitecheckError as exc:
        log.error(f"citecheck: {exc.message}" + (f" — {exc.hint}" if exc.hint else ""))
        return exc.exit_code
    except Exception as exc:
        log.error(f"citecheck failed: {type(exc).__name__}: {exc}")
        log.untrusted(traceback.format_exc())
        return ExitCode.ERROR


def main() -> int:
    return run_action(os.environ, sys.stdout)
