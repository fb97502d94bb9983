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
  triggering run built.
- PR mode takes the changed files and lines from the PR files API (`select.select_pr`), so
  it needs no git history and the image carries no git; an audit walks the workspace.
- `judge: auto` with no key (a fork PR gets no secrets): the deterministic checks run, the
  summary says the judge was skipped, and claims that need a judge do not fail the check
  (`limit` and `not-verified` leave the effective fail-on). `judge` named explicitly with no
  key stays an error, as in the CLI.
- Exit 0 passed, 1 a claim failed under fail-on, 2 a configuration or runtime error. A PR
  comment that cannot be posted (403 on a fork PR, network) is a warning only: the summary,
  annotations and outputs are still written and the claims decide the exit code.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from pydantic import ValidationError

from citecheck.config import JUDGE_AUTO, JUDGE_NONE, FilterMode, Settings, load_config_file, narrow
from citecheck.errors import CitecheckError, ConfigError, ExitCode
from citecheck.github.publish import (
    ActionLog,
    PullRequestClient,
    RepoClient,
    annotation_commands,
    append_summary,
    comment_body,
    mask_commands,
    summary_markdown,
    write_outputs,
)
from citecheck.judge.providers import PROVIDERS, key_inputs
from citecheck.models import FileError, Report, SelectedFile
from citecheck.policy import exit_code, fail_on_without_judge, failing_claims
from citecheck.redact import Redactor
from citecheck.select import Selection, select_audit, select_pr

PR_EVENTS = ("pull_request", "pull_request_target")
DEFAULT_CONFIG = ".citecheck.toml"
REPORT_DIR = "citecheck-report"  # inside the workspace: the only folder later steps share
# Every input of action.yml, in the order of DESIGN §7 (action.yml and the README follow it);
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
    "fail-on",
    "accept-status",
    "comment",
    "annotations",
    "github-token",
    "cache-dir",
    "shard",
    "config",
)
# Inputs the Action itself consumes (secrets and the config file location); every other one
# maps onto the Settings field of the same name (hyphen → underscore).
ACTION_INPUTS = (*key_inputs(), "github-token", "config")
SETTING_INPUTS = tuple(n for n in ALL_INPUTS if n not in ACTION_INPUTS)
NO_KEY_NOTE = (
    "The LLM judge was skipped: no API key is available to this run (a pull request from a fork "
    "gets no secrets, or the key input is not set). Only the deterministic checks ran; claims that "
    "need the judge are reported as not verified and do not fail the check."
)
NO_KEY_REASON = "judge skipped: no API key"
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


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The run's secrets: every judge key and the GitHub token, as inputs and as variables."""
    keys = key_inputs()
    values = [read_input(environ, n) for n in (*keys, "github-token")]
    values += [environ.get(v, "") for v in (*keys.values(), "GITHUB_TOKEN")]
    return [v for v in values if v]


def input_env(name: str) -> str:
    """The environment variable action.yml's `runs.env` passes input `name` in."""
    return "INPUT_" + name.upper().replace("-", "_")


def read_input(environ: Mapping[str, str], name: str) -> str:
    # action.yml passes INPUT_FILTER_MODE; the runner's own INPUT_FILTER-MODE is the fallback.
    value = environ.get(input_env(name))
    if value is None:
        value = environ.get("INPUT_" + name.upper(), "")
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
        if name in ("comment", "annotations"):
            raw[key] = _bool_input(name, value)
        elif name == "cache-dir":
            raw[key] = outside_workspace(workspace / value, workspace)
        else:
            raw[key] = value
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).replace("_", "-") if err["loc"] else "?"
        raise ConfigError(f"input {name}: {err['msg']}", "fix the value in the workflow's `with:`") from None
    except ConfigError as exc:
        raise ConfigError(f"input: {exc.message}", exc.hint) from None


def outside_workspace(cache_dir: Path, workspace: Path) -> Path:
    """`cache_dir`, refused when it lies in the checked-out tree (symbolic links followed).

    Whatever is checked out is the change under test: a cache there is one the PR can write,
    and a forged entry would decide its own claims (SECURITY.md). So the cache lives
    outside it, under the runner's temporary folder, and `actions/cache` carries it.
    """
    resolved, tree = cache_dir.resolve(), workspace.resolve()
    if resolved == tree or tree in resolved.parents:
        raise ConfigError(
            f"input cache-dir: {cache_dir} is inside the checked-out workspace, where the change "
            "under test could write cache entries and so decide its own claims",
            "use a path under $RUNNER_TEMP, e.g. `cache-dir: ${{ runner.temp }}/citecheck-cache`, "
            "with the same `path:` in actions/cache/restore and actions/cache/save",
        )
    return resolved


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
        pr = _read_json(workspace / path, "the PR event file").get("pull_request")
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
    if name == "merge_group" and not event.base_sha:
        raise ConfigError(f"{path}: a merge_group event without merge_group.base_sha", "")
    return event


def _config_text(
    path_input: str, workspace: Path, event: Event, client: RepoClient | None
) -> tuple[str | None, str]:
    """The config file's text (None: absent) and how to name it; in PR mode from the base
    commit, so the PR cannot loosen its own check. A config that cannot be read there is an
    error: going on without it would drop the repository's narrowing (an added fail-on, a
    shorter allowlist, a lower cost cap) in exactly the run a PR may have steered."""
    rel = PurePosixPath(path_input.removeprefix("./")).as_posix()
    if event.reads_config_from_base:
        if not event.base_sha:
            raise ConfigError("the event names no base commit to read the config file from", "")
        where = f"{rel} at base {event.base_sha[:12]}"
        if client is None:
            raise ConfigError(
                f"cannot read {where}: no github-token",
                "keep the default `github-token: ${{ github.token }}` (with `contents: read`): "
                "the config file is read from the base commit through the API",
            )
        try:
            return client.file_at(rel, event.base_sha), where
        except Exception as exc:
            raise ConfigError(
                f"cannot read {where}: {_short_error(exc)}",
                "the token needs `contents: read`; re-run when the GitHub API answers again",
            ) from None
    path = workspace / rel
    return (path.read_text(encoding="utf-8") if path.is_file() else None), rel


def apply_config(
    settings: Settings, path_input: str, workspace: Path, event: Event, client: RepoClient | None
) -> Settings:
    text, where = _config_text(path_input or DEFAULT_CONFIG, workspace, event, client)
    if text is None:
        if path_input and path_input != DEFAULT_CONFIG:
            raise ConfigError(f"config file {where} not found", "fix the `config` input or add the file")
        return settings
    # load_config_file parses and validates a file: give it the base commit's text as one.
    with tempfile.TemporaryDirectory(prefix="citecheck-") as tmp:
        target = Path(tmp) / PurePosixPath(where.split(" ")[0]).name
        target.write_text(text, encoding="utf-8")
        try:
            data = load_config_file(target)
        except ConfigError as exc:
            raise ConfigError(exc.message.replace(str(target), where), exc.hint) from None
    return narrow(settings, data, where)


@dataclass
class Run:
    """One Action run's context, gathered from the environment."""

    environ: Mapping[str, str]
    log: ActionLog
    workspace: Path = field(init=False)
    event: Event = field(init=False)
    token: str = field(init=False)
    judge_skipped: bool = False
    notes: list[str] = field(default_factory=list)  # for the report, from before selection

    def __post_init__(self) -> None:
        self.workspace = Path(self.environ.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
        self.token = read_input(self.environ, "github-token") or self.environ.get("GITHUB_TOKEN", "")

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

    def repo_client(self) -> RepoClient | None:
        if not (self.token and self.repository):
            return None
        return RepoClient(self.token, self.api_url, self.repository)

    def pr_client(self) -> PullRequestClient | None:
        if not (self.token and self.repository and self.event.number):
            return None
        return PullRequestClient(self.token, self.api_url, self.repository, self.event.number)

    def run_url(self) -> str:
        server = self.environ.get("GITHUB_SERVER_URL", "https://github.com")
        run_id = self.environ.get("GITHUB_RUN_ID", "")
        return f"{server}/{self.repository}/actions/runs/{run_id}" if run_id and self.repository else ""

    def summary_hint(self) -> str:
        url = self.run_url()
        return f"the [job summary]({url})" if url else "the job summary"

    def link_base(self) -> str | None:
        """Where `file:line` in the report links: the blob of the commit that was checked."""
        server = self.environ.get("GITHUB_SERVER_URL", "https://github.com")
        sha = self.event.head_sha if self.event.is_pr else self.environ.get("GITHUB_SHA")
        return f"{server}/{self.repository}/blob/{sha}" if sha and self.repository else None

    def pipeline_environ(self) -> dict[str, str]:
        env = dict(self.environ)
        for name, var in key_inputs().items():
            value = read_input(self.environ, name)
            if value:
                env[var] = value
        return env

    def secrets(self) -> list[str]:
        return secret_values(self.environ)

    # ---- stages

    def settings(self) -> Settings:
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
        settings = apply_config(settings, config, self.workspace, self.event, self.repo_client())
        env = self.pipeline_environ()
        # A key that `judge: auto` could use.
        has_key = any(env.get(p.key_env) for p in PROVIDERS.values() if p.auto)
        if settings.judge == JUDGE_AUTO and not has_key:
            self.judge_skipped = True
            fail_on = fail_on_without_judge(settings.fail_on)
            settings = settings.model_copy(update={"judge": JUDGE_NONE, "fail_on": fail_on})
        return settings

    def warn_cache_dir(self, settings: Settings) -> None:
        """The Action runs in a container: only the workspace and the runner's temporary folder
        (`RUNNER_TEMP`, mounted since runner 2.331) outlive it, and the workspace is refused."""
        temp = self.environ.get("RUNNER_TEMP", "").strip()
        if settings.cache_dir is None or not temp:
            return
        root = Path(temp).resolve()
        if not root.is_dir():
            self.log.warning(
                f"citecheck: RUNNER_TEMP ({temp}) is not mounted in the action's container (a runner "
                "older than 2.331): cache-dir is lost when the step ends; update the runner"
            )
        elif settings.cache_dir != root and root not in settings.cache_dir.parents:
            self.log.warning(
                f"citecheck: cache-dir {settings.cache_dir} is not under RUNNER_TEMP ({temp}): in the "
                "action's container it is lost when the step ends, so actions/cache cannot keep it; "
                "use `cache-dir: ${{ runner.temp }}/citecheck-cache`"
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
        except Exception as exc:
            raise ConfigError(f"cannot check PR #{self.event.number}: {_short_error(exc)}", "") from None
        expected = self.event.trusted_head or self.event.head_sha
        if head != expected:
            raise ConfigError(
                f"PR #{self.event.number} has head {head[:12]}, not {str(expected)[:12]}",
                "the PR was pushed to again since (a newer run will follow), or the event file is forged",
            )
        self.event = self.event.with_commits(head, base)

    def select(self, settings: Settings) -> Selection:
        selection = self._select(settings)
        # A walk of the workspace (audits, nofilter, a PR too large to list) sees untracked
        # files too: our own report of an earlier run is not a document to check.
        selection.files = [f for f in selection.files if not f.display.startswith(REPORT_DIR + "/")]
        return selection

    def _select(self, settings: Settings) -> Selection:
        if not self.event.is_pr or settings.filter_mode == FilterMode.nofilter:
            # nofilter checks every file matching `paths`, changed or not: no PR listing needed.
            return select_audit(self.workspace, settings)
        client = self.pr_client()
        if client is None:
            raise ConfigError(
                "PR mode needs github-token to list the PR's changed files",
                "keep the default `github-token: ${{ github.token }}` with `pull-requests: read`",
            )
        try:
            listing = client.pr_files()
        except Exception as exc:
            raise ConfigError(
                f"cannot list the changed files of PR #{self.event.number}: {_short_error(exc)}",
                "the token needs `pull-requests: read` (and `contents: read`)",
            ) from None
        return select_pr(self.workspace, settings, listing)

    def check(self, settings: Settings, files: list[SelectedFile]) -> Report:
        from citecheck.pipeline import check  # the lead's orchestration of the stages

        judge_off_reason = NO_KEY_REASON if self.judge_skipped else ""
        return check(
            settings,
            files,
            environ=self.pipeline_environ(),
            judge_off_reason=judge_off_reason,
            progress=self.log.info,  # batch mode's polls: the log shows the run is alive
        )

    def finish(self, report: Report, selection: Selection) -> Report:
        notes = self.notes + list(selection.notes) + list(report.notes)
        if self.judge_skipped:
            notes.insert(0, NO_KEY_NOTE)
        errors: list[FileError] = list(selection.errors) + list(report.errors)
        return report.model_copy(update={"notes": notes, "errors": errors})


def _outputs(report: Report, files: Mapping[str, str]) -> dict[str, str]:
    from citecheck.output.report import summary_counts

    counts = summary_counts(report)
    return {
        "passed": json.dumps(report.passed),
        "total-claims": str(counts.total),
        "verified": str(counts.verified),
        "failed": str(counts.failed),
        "unsourced": str(counts.unsourced),
        "not-verified": str(counts.not_verified),
        "score": "null" if report.overall_score is None else f"{report.overall_score:.4f}",
        "cost-usd": f"{report.total_cost_usd:.4f}",
        **{f"report-{name}": path for name, path in files.items()},
    }


def publish(run: Run, settings: Settings, report: Report) -> int:
    from citecheck.output import FORMATS

    # Once, before anything is made of it: report files, annotations, summary, outputs, the
    # log's list of failing claims and the PR comment all come from the redacted report.
    report = run.redact.model(report)
    log = run.log
    out_dir = run.workspace / REPORT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    rel: dict[str, str] = {}
    for fmt in (f for f in FORMATS.values() if f.action_file):
        (out_dir / f"report.{fmt.extension}").write_text(fmt.render(report), encoding="utf-8")
        rel[fmt.name] = f"{REPORT_DIR}/report.{fmt.extension}"

    annotations, not_annotated = annotation_commands(report) if settings.annotations else ([], 0)
    for line in annotations:
        log.emit(line)

    preface = ""
    if run.judge_skipped:
        preface += f"> [!WARNING]\n> {NO_KEY_NOTE}\n\n"
    summary_extra = ""
    if not_annotated:
        summary_extra = (
            f"\n*{not_annotated} more failing claims are not annotated (GitHub shows the first "
            f"{len(annotations)} annotations of a step); all are listed above.*\n"
        )
    summary_path = run.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        text = summary_markdown(report, preface=preface, hint=f"`{rel['json']}`", link_base=run.link_base())
        append_summary(Path(summary_path), text + summary_extra)

    output_path = run.environ.get("GITHUB_OUTPUT")
    if output_path:
        write_outputs(Path(output_path), _outputs(report, rel))

    failing = failing_claims(report)
    log.info(
        f"citecheck: {report.total_claims} claims, {report.total_supported} verified, "
        f"{len(failing)} failing under fail-on ({', '.join(report.fail_on) or 'nothing'}); "
        f"report: {rel['json']}"
    )
    if failing:
        log.untrusted("\n".join(f"{c.file}:{c.line}: {c.verdict.value}: {c.text}" for c in failing))

    if settings.comment and run.event.is_pr:
        post_comment(run, report)
    return exit_code(report)


def post_comment(run: Run, report: Report) -> None:
    client = run.pr_client()
    if client is None:
        run.log.warning("citecheck: no github-token or PR number, so no PR comment was posted")
        return
    # The report is redacted already; the body's own parts (hint, links) are checked too.
    body = run.redact.secrets(comment_body(report, hint=run.summary_hint(), link_base=run.link_base()))
    # A PR that touches no claim gets no new comment; an existing one is still brought up to date.
    worth_creating = bool(report.claims or report.errors)
    try:
        author = client.identity()
        if author is None:
            run.log.warning(
                "citecheck cannot tell which account github-token acts as (GraphQL viewer and "
                "GET /user both failed), so it edits no earlier comment and posts a new one"
            )
        done = client.upsert_comment(body, author, create=worth_creating)
    except Exception as exc:  # 403 on a fork PR, network: the report is in the summary anyway
        run.log.warning(
            f"citecheck could not post the PR comment ({type(exc).__name__}: {_short_error(exc)}); "
            "the report is in the job summary. On fork PRs see the two-workflow pattern in the README."
        )
        return
    if done:
        run.log.info(f"citecheck: PR comment {done}")


def _short_error(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    data = getattr(exc, "data", None)
    message = data.get("message") if isinstance(data, dict) else None
    if status:
        return f"HTTP {status}" + (f" {message}" if message else "")
    return str(exc)[:200]


def run_action(environ: Mapping[str, str], stream: TextIO) -> int:
    """The whole Action; returns the exit code. Never raises."""
    secrets = secret_values(environ)
    log = ActionLog(stream, Redactor(secrets))
    run = Run(environ, log)
    for line in mask_commands(secrets):
        stream.write(line + "\n")  # first of all, before any other output
    try:
        run.event = load_event(environ, run.workspace)
        run.verify_pr()
        settings = run.settings()
        mode = f"PR #{run.event.number}" if run.event.is_pr else f"audit ({run.event.name or 'local'})"
        log.info(f"citecheck: {mode}, filter-mode {settings.filter_mode.value}, judge {settings.judge}")
        if run.judge_skipped:
            log.warning(NO_KEY_NOTE)
        with log.commands_off():
            selection = run.select(settings)
        log.info(f"citecheck: {len(selection.files)} file(s) selected (from {selection.source})")
        for note in run.notes + selection.notes:
            log.warning(note.replace("\n", " "))
        if not selection.files and any(e.fatal for e in selection.errors):
            first = selection.errors[0]
            raise ConfigError(f"{first.file}: {first.message}", f"{len(selection.errors)} file(s) affected")
        with log.commands_off():
            report = run.finish(run.check(settings, selection.files), selection)
        return publish(run, settings, report)
    except CitecheckError as exc:
        log.error(f"citecheck: {exc.message}" + (f" — {exc.hint}" if exc.hint else ""))
        return exc.exit_code
    except Exception as exc:
        log.error(f"citecheck failed: {type(exc).__name__}: {exc}")
        log.untrusted(traceback.format_exc())
        return ExitCode.ERROR


def main() -> int:
    return run_action(os.environ, sys.stdout)
