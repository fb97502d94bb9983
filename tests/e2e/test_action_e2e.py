"""The Action end to end: `entrypoint.py` as a subprocess with a runner's GITHUB_* environment,
on a real git repository (base + head commit), against a source server, an OpenAI-protocol
judge server and a GitHub REST server, all on 127.0.0.1 and started here."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from citecheck.github.publish import COMMENT_MARKER
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo
from tests.servers.llm_server import LLMServer, parse_screen_prompt, screen_answer, screen_reply
from tests.servers.source_server import SourceServer

ENTRYPOINT = Path(__file__).resolve().parents[2] / "entrypoint.py"
REPO = "octo/docs"
PR = 7
OPENAI_KEY = "sk-test-9f8e7d6c5b4a3210"

BASE_DOC = """# Guide

Intro paragraph without claims.

The project reached 40% adoption in 2021 according to [the survey]({survey}).
"""
HEAD_ADDITIONS = """
The river is 120 km long, per [the atlas]({atlas}).

Sales grew 25% in 2023 ([report]({report})).

Over 3 million people use it.
"""
ATLAS_LINE, SALES_LINE, UNSOURCED_LINE = 7, 9, 11
# An atlas page that does not give the length: the number check cannot pass the atlas claim,
# only a judge could (the fork-PR runs, which have none).
ATLAS_WITHOUT_FIGURE = "The river is the longest of the region, per the atlas."


@dataclass
class Scenario:
    origin: Repo
    base: str
    head: str
    urls: dict[str, str]


def _page(text: str) -> str:
    body = f"<main><article><p>{text}</p></article></main>"
    return f"<html><head><title>Page</title></head><body>{body}</body></html>"


def make_scenario(
    tmp_path: Path,
    sources: SourceServer,
    gh: GitHubServer,
    *,
    sales_in_source: str = "10%",
    atlas_says: str = "The river is 120 km long, per the atlas of the region.",
    base_files: dict[str, str | None] | None = None,
) -> Scenario:
    urls = {
        "survey": sources.add("/survey", _page("The project reached 40% adoption in 2021 in our survey.")),
        "atlas": sources.add("/atlas", _page(atlas_says)),
        "report": sources.add("/report", _page(f"Sales grew {sales_in_source} in 2023, the report says.")),
    }
    origin = Repo(tmp_path / "origin")
    doc = BASE_DOC.format(**urls)
    base = origin.commit({"docs/guide.md": doc, "README.md": "# Docs\n", **(base_files or {})}, "base")
    head = origin.commit({"docs/guide.md": doc + HEAD_ADDITIONS.format(**urls)}, "head")
    # GitHub's side of PR #7: its files and the base's contents come from this repository.
    gh.serve_repo(REPO, origin.root)
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base)
    return Scenario(origin, base, head, urls)


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workspace: Path


def parse_outputs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        name, delimiter = lines[i].split("<<", 1)
        end = lines.index(delimiter, i + 1)
        out[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return out


def run_action(
    tmp_path: Path,
    workspace: Path,
    gh: GitHubServer,
    *,
    inputs: dict[str, str],
    event_name: str = "pull_request",
    payload: dict[str, object],
    extra_env: dict[str, str] | None = None,
) -> Result:
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    n = len(list(runner.glob("event-*.json")))
    event_path = runner / f"event-{n}.json"
    event_path.write_text(json.dumps(payload))
    output_path = runner / f"output-{n}"
    summary_path = runner / f"summary-{n}.md"
    output_path.touch()
    summary_path.touch()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output_path),
        "GITHUB_STEP_SUMMARY": str(summary_path),
        "GITHUB_API_URL": gh.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_RUN_ID": "4242",
        "GITHUB_SHA": "0" * 40,
        "INPUT_GITHUB_TOKEN": gh.token,
        **{"INPUT_" + k.upper().replace("-", "_"): v for k, v in inputs.items()},
        **(extra_env or {}),
    }
    proc = subprocess.run(
        [sys.executable, *os.environ.get("CC_PROFILE", "").split(), str(ENTRYPOINT)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Result(
        proc.returncode,
        proc.stdout,
        proc.stderr,
        parse_outputs(output_path.read_text()),
        summary_path.read_text(),
        workspace,
    )


def pr_payload(s: Scenario, number: int = PR, *, fork: bool = False) -> dict[str, object]:
    """A `pull_request` payload; `fork`: its head is in another repository (as GitHub gives it)."""
    head_repo = "someone/docs" if fork else REPO
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "base": {"sha": s.base, "ref": "main", "repo": {"full_name": REPO}},
            "head": {"sha": s.head, "ref": "feature", "repo": {"full_name": head_repo}},
        },
    }


def judged_inputs(sources: SourceServer, judge: LLMServer) -> dict[str, str]:
    return {
        "allow-private-hosts": sources.host,
        "openai-api-key": OPENAI_KEY,
        "base-url": judge.base_url,
    }


def annotations(stdout: str, level: str = "error") -> list[tuple[str, str, str]]:
    """(file, line, title) of each annotation of `level` with a file (workflow commands)."""
    found = []
    for line in stdout.splitlines():
        m = re.match(rf"::{level} file=([^,]*),line=(\d+),col=\d+,title=([^:]*)::", line)
        if m:
            found.append((m.group(1), m.group(2), m.group(3).replace("%3A", ":")))
    return found


def report_json(result: Result) -> dict[str, object]:
    return json.loads((result.workspace / result.outputs["report-json"]).read_text())


def test_pr_run_comments_annotates_outputs_then_updates(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)
    ws = s.origin.root  # a full clone: the workspace has all the history
    r = run_action(tmp_path, ws, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 1, r.stdout + r.stderr  # the sales figure is not in its source

    # Secrets are masked before anything else is printed, and never leak.
    first = r.stdout.splitlines()[0]
    assert (
        first == f"::add-mask::{OPENAI_KEY}" or f"::add-mask::{OPENAI_KEY}" in r.stdout.split("citecheck:")[0]
    )
    assert r.stdout.index(f"::add-mask::{OPENAI_KEY}") < r.stdout.index("citecheck:")

    # Only the claims on the PR's added lines were checked and judged.
    report = report_json(r)
    lines = sorted(c["line"] for c in report["claims"])  # type: ignore[index]
    assert lines == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]
    assert sources.hits("/survey") == 0
    assert judge.calls, "the atlas claim needs the judge"
    assert all("40% adoption" not in call.prompt for call in judge.calls)
    assert any("120 km" in call.prompt for call in judge.calls)

    # Outputs and summary carry the figures.
    o = r.outputs
    assert o["passed"] == "false"
    assert (o["total-claims"], o["verified"], o["failed"], o["unsourced"]) == ("3", "1", "1", "1")
    assert o["score"] == "0.5000" and float(o["cost-usd"]) >= 0
    assert o["report-json"] == "citecheck-report/report.json"
    assert (ws / o["report-markdown"]).read_text().startswith("## Verification Report")
    assert o["report-sarif"] == "citecheck-report/report.sarif"
    assert json.loads((ws / o["report-sarif"]).read_text())["version"] == "2.1.0"
    for figure in ("- Total claims: 3", "- Verified: 1", "- Failed: 1", "- Unsourced: 1"):
        assert figure in r.summary
    assert "Sales grew 25% in 2023" in r.summary

    # The failing claim is an error at its file and line, the unsourced one a warning; nothing
    # else is marked. The token may not write checks (403), so these are workflow commands.
    assert annotations(r.stdout) == [("docs/guide.md", str(SALES_LINE), "citecheck: unsupported")]
    assert annotations(r.stdout, "warning") == [
        ("docs/guide.md", str(UNSOURCED_LINE), "citecheck: unsourced")
    ]
    assert [x.path for x in gh.requests("POST") if "check-runs" in x.path] == [f"/repos/{REPO}/check-runs"]
    assert "no check run (HTTP 403 Resource not accessible by integration" in r.stdout
    assert "not shown" not in r.stdout  # two annotations: none left out

    # One sticky comment: the outcome at a glance, then the report, each line linking into the diff.
    comments = gh.comments(REPO, PR)
    assert len(comments) == 1 and comments[0]["body"].startswith(COMMENT_MARKER)
    body = comments[0]["body"]
    assert re.fullmatch(r"❌ citecheck failed: 1 of 3 claims unsupported · \$\d+\.\d+", body.splitlines()[1])
    assert "### Failed Claims" in body and "- Total claims: 3" in body
    anchor = hashlib.sha256(b"docs/guide.md").hexdigest()
    assert f"](https://github.com/{REPO}/pull/{PR}/files#diff-{anchor}R{SALES_LINE})" in body
    for text in (r.stdout, r.stderr, r.summary, comments[0]["body"], json.dumps(report)):
        assert OPENAI_KEY not in text.replace(f"::add-mask::{OPENAI_KEY}", "")

    # A second run (say, after a re-push) updates that comment instead of adding one.
    r2 = run_action(tmp_path, ws, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r2.code == 1
    comments = gh.comments(REPO, PR)
    assert len(comments) == 1
    posts = [r for r in gh.requests("POST") if r.path.endswith("/comments")]
    assert len(posts) == 1 and len(gh.requests("PATCH")) == 1
    assert "PR comment updated" in r2.stdout


def test_the_screen_input_sets_aside_what_states_no_fact_and_says_so_everywhere(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)
    # The only sentence the screen may read is the unsourced one: the model calls it no fact.
    judge.queue(screen_reply("openai", [screen_answer(1, False, "a boast with no source to check")]))
    inputs = {**judged_inputs(sources, judge), "screen": "true"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 1, r.stdout + r.stderr  # the sales figure is still checked, and still wrong

    [asked] = [t for t in (parse_screen_prompt(c.user_text) for c in judge.calls) if t]
    assert list(asked.values()) == ["Over 3 million people use it."]
    o = r.outputs
    assert (o["total-claims"], o["failed"], o["unsourced"], o["dismissed"]) == ("2", "1", "0", "1")
    report = report_json(r)
    assert [(d["line"], d["reason"]) for d in report["dismissed"]] == [  # type: ignore[index]
        (UNSOURCED_LINE, "a boast with no source to check")
    ]
    assert annotations(r.stdout, "warning") == []  # no longer an unsourced claim
    body = gh.comments(REPO, PR)[0]["body"]
    assert "### Set aside by the screen (no fact stated)" in body
    assert f"- Over 3 million people use it. | docs/guide.md:{UNSOURCED_LINE} | a boast" in body
    assert "screen: 1 of 1 link-only or unsourced sentence(s) set aside" in r.summary


def test_check_run_carries_every_annotation_and_comment_ids_keep_their_own_comments(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """With `checks: write` every claim to mark goes on a check run on the PR's head, none
    through workflow commands; two jobs with their own `comment-id` keep a comment each, and a
    re-run of one updates only its own."""
    gh.state.checks_write = True
    s = make_scenario(tmp_path, sources, gh)
    ws = s.origin.root
    inputs = {**judged_inputs(sources, judge), "comment-id": "docs"}
    r = run_action(tmp_path, ws, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 1, r.stdout + r.stderr
    assert annotations(r.stdout) == [] and annotations(r.stdout, "warning") == []
    (run,) = gh.check_runs(REPO)
    assert run["name"] == "citecheck (docs)" and run["head_sha"] == s.head
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert [(a["path"], a["start_line"], a["annotation_level"], a["title"]) for a in run["annotations"]] == [
        ("docs/guide.md", SALES_LINE, "failure", "citecheck: unsupported"),
        ("docs/guide.md", UNSOURCED_LINE, "warning", "citecheck: unsourced"),
    ]
    assert run["output"]["title"].startswith("citecheck (docs) failed: 1 of 3 claims unsupported")
    assert "## Verification Report" in run["output"]["summary"]
    assert "2 annotations on the check run https://github.com/" in r.stdout

    # A second job on the same PR, with the default id, keeps a comment of its own.
    r2 = run_action(
        tmp_path,
        ws,
        gh,
        inputs={**judged_inputs(sources, judge), "check-run": "false"},
        payload=pr_payload(s),
    )
    assert r2.code == 1 and len(gh.check_runs(REPO)) == 1  # check-run: false made none
    assert annotations(r2.stdout) == [("docs/guide.md", str(SALES_LINE), "citecheck: unsupported")]
    bodies = [c["body"] for c in gh.comments(REPO, PR)]
    assert [b.splitlines()[:2] for b in bodies] == [
        ["<!-- citecheck-report:docs -->", bodies[0].splitlines()[1]],
        [COMMENT_MARKER, bodies[1].splitlines()[1]],
    ]
    assert bodies[0].splitlines()[1].startswith("❌ citecheck (docs) failed: ")
    assert bodies[1].splitlines()[1].startswith("❌ citecheck failed: ")

    # The first job again: its comment is updated, the other one left as it was.
    r3 = run_action(tmp_path, ws, gh, inputs=inputs, payload=pr_payload(s))
    assert r3.code == 1 and "PR comment updated" in r3.stdout
    assert [c["body"] for c in gh.comments(REPO, PR)] == bodies
    patched = [x.path for x in gh.requests("PATCH") if "/issues/comments/" in x.path]
    assert patched == [f"/repos/{REPO}/issues/comments/{gh.comments(REPO, PR)[0]['id']}"]

    # A comment-id that could end the marker stops the run before it checks anything.
    bad = run_action(tmp_path, ws, gh, inputs={**inputs, "comment-id": "x -->"}, payload=pr_payload(s))
    assert bad.code == 2 and "::error::citecheck: input comment-id: 'x -->' is not a short name" in bad.stdout


def test_shallow_clone_needs_no_history(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    ws = s.origin.shallow_clone(tmp_path / "workspace")
    r = run_action(tmp_path, ws, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert "from api" in r.stdout
    assert sorted(c["line"] for c in report_json(r)["claims"]) == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]  # type: ignore[index]
    assert r.outputs["passed"] == "true" and r.outputs["verified"] == "2"
    assert sources.hits("/survey") == 0


def test_comment_forbidden_is_a_warning_and_claims_decide_exit(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    gh.state.forbid_writes = True
    s = make_scenario(tmp_path, sources, gh)
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 1, r.stdout + r.stderr  # decided by the failing claim, not by the 403
    # The warning names the request, GitHub's answer and the permission that fixes it.
    warning = next(x for x in r.stdout.splitlines() if "could not post the PR comment" in x)
    assert warning.startswith(
        "::warning::citecheck could not post the PR comment: HTTP 403 Resource not accessible by "
        f"integration (POST /repos/{REPO}/issues/{PR}/comments)"
    )
    assert "`pull-requests: write`" in warning and "two-workflow pattern" in warning
    assert gh.comments(REPO, PR) == []
    assert r.outputs["failed"] == "1" and "- Total claims: 3" in r.summary

    # And with claims that all pass, the same 403 leaves a green run.
    sources.add("/report", _page("Sales grew 25% in 2023, the report says."))
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert "::warning::citecheck could not post the PR comment" in r.stdout


def test_fork_pr_without_key_runs_deterministic_checks_only(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%", atlas_says=ATLAS_WITHOUT_FIGURE)
    gh.state.forbid_writes = True  # a fork PR's token is read-only
    r = run_action(
        tmp_path,
        s.origin.root,
        gh,
        inputs={"allow-private-hosts": sources.host},
        payload=pr_payload(s, fork=True),
    )
    assert r.code == 0, r.stdout + r.stderr  # the atlas claim needs a judge: not a failure here
    assert judge.requests == []
    assert r.summary.startswith("> **Claims were not judged:** this pull request comes from a fork")
    assert "::warning::Claims were not judged: this pull request comes from a fork" in r.stdout
    claims = {c["line"]: c for c in report_json(r)["claims"]}  # type: ignore[index]
    assert claims[ATLAS_LINE]["verdict"] == "not_verified"
    assert claims[ATLAS_LINE]["reason"] == (
        "the figure '120 km' (km 120) does not occur on the page; judge skipped: no API key"
    )
    assert claims[SALES_LINE]["verdict"] == "pass" and claims[SALES_LINE]["decided_by"] == "number"
    assert r.outputs["not-verified"] == "1" and r.outputs["passed"] != "false"

    # A deterministic failure still fails the check without a key.
    sources.add("/report", _page("Sales grew 10% in 2023, the report says."))
    r = run_action(
        tmp_path,
        s.origin.root,
        gh,
        inputs={"allow-private-hosts": sources.host},
        payload=pr_payload(s, fork=True),
    )
    assert r.code == 1
    assert annotations(r.stdout) == [("docs/guide.md", str(SALES_LINE), "citecheck: unsupported")]


@pytest.mark.parametrize("event_name", ["pull_request", "pull_request_target"])
def test_pr_config_is_read_from_the_base_commit(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer, event_name: str
) -> None:
    s = make_scenario(
        tmp_path,
        sources,
        gh,
        sales_in_source="25%",
        base_files={".citecheck.toml": 'fail_on = ["unsourced"]\n'},
    )
    # The PR tries to switch its own check off through the config file.
    evil_head = s.origin.commit({".citecheck.toml": 'ignore = ["**/*.md"]\n'}, "ignore everything")
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = evil_head  # type: ignore[index]
    gh.set_pull(REPO, PR, head_sha=evil_head, base_sha=s.base)
    inputs = {"allow-private-hosts": sources.host, "judge": "none", "comment": "false"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload, event_name=event_name)
    # The base's config counts: the claims are checked, and its extra fail-on (unsourced) fails.
    assert r.code == 1, r.stdout + r.stderr
    assert r.outputs["total-claims"] == "3"
    assert annotations(r.stdout) == [("docs/guide.md", str(UNSOURCED_LINE), "citecheck: unsourced")]
    assert [x.path for x in gh.requests("POST") if x.path.endswith("/comments")] == []  # comment: false


def test_config_file_cannot_widen_inputs(tmp_path: Path, sources: SourceServer, gh: GitHubServer) -> None:
    s = make_scenario(tmp_path, sources, gh)
    s.origin.commit({".citecheck.toml": 'allowed_domains = ["evil.example"]\n'}, "widen")
    inputs = {"allowed-domains": "example.org", "judge": "none", "comment": "false"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload={}, event_name="workflow_dispatch")
    assert r.code == 2
    assert re.search(r"^::error::citecheck: \.citecheck\.toml: allowed_domains .*outside", r.stdout, re.M)


def test_audit_mode_with_shards_merges_to_the_unsharded_totals(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    from citecheck.models import Report
    from citecheck.output.report import merge_reports

    repo = Repo(tmp_path / "origin")
    good = sources.add("/report", _page("Sales grew 25% in 2023, the report says."))
    bad = sources.add("/old", _page("Sales grew 10% in 2023, the old report says."))
    pages = {f"docs/page{i}.md": f"# P{i}\n\nSales grew 25% in 2023 ([report]({good})).\n" for i in range(8)}
    pages["docs/page0.md"] += f"\nSales grew 25% in 2023 ([old]({bad})).\n"
    pages["docs/page5.md"] += "\nOver 3 million people use it.\n"
    repo.commit({**pages, "notes.txt": "Sales grew 99% in 2023.\n"}, "docs")
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    whole = run_action(tmp_path, repo.root, gh, inputs=inputs, payload={}, event_name="workflow_dispatch")
    assert whole.code == 1 and whole.outputs["total-claims"] == "10", whole.stdout + whole.stderr
    unsharded = report_json(whole)  # before the shards' runs write theirs in the same place
    shards: list[Report] = []
    for i in (1, 2, 3):
        part = run_action(
            tmp_path, repo.root, gh, inputs={**inputs, "shard": f"{i}/3"}, payload={}, event_name="schedule"
        )
        assert part.code in (0, 1)
        shards.append(Report.model_validate(report_json(part)))
    files = sorted({c.file for r in shards for c in r.claims})
    assert files == sorted(pages) and sum(len(r.claims) for r in shards) == 10  # each file in one shard
    merged = merge_reports(shards, fail_on=shards[0].fail_on).model_dump()
    keys = [k for k in unsharded if k.startswith("total_") and k != "total_cost_usd"] + ["passed", "failing"]
    assert {k: merged[k] for k in keys} == {k: unsharded[k] for k in keys}
    assert gh.requests() == []  # no PR: no comment, no API call


def test_bad_input_exits_2_with_clear_error(tmp_path: Path, sources: SourceServer, gh: GitHubServer) -> None:
    s = make_scenario(tmp_path, sources, gh)
    r = run_action(tmp_path, s.origin.root, gh, inputs={"max-claims": "lots"}, payload=pr_payload(s))
    assert r.code == 2
    assert re.search(r"^::error::citecheck: input max-claims: ", r.stdout, re.M)
    r = run_action(tmp_path, s.origin.root, gh, inputs={"judge": "openai"}, payload=pr_payload(s))
    assert r.code == 2 and "::error::citecheck:" in r.stdout and "OPENAI_API_KEY" in r.stdout
    # The providers are checked where they are known (resolve_judge), still before any fetch.
    r = run_action(tmp_path, s.origin.root, gh, inputs={"judge": "opneai"}, payload=pr_payload(s))
    assert r.code == 2 and "::error::citecheck: unknown judge 'opneai'" in r.stdout
    assert "choose one of auto, anthropic, openai, openai-compatible, none" in r.stdout
    assert sources.hits() == 0


def test_fork_safe_workflow_run_judges_and_comments(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """Part 2 of the fork-safe pattern: a workflow_run job with the analysing run's event file."""
    s = make_scenario(tmp_path, sources, gh)
    ws = s.origin.shallow_clone(tmp_path / "workspace")
    (ws / "citecheck-pr").mkdir()
    (ws / "citecheck-pr/event.json").write_text(json.dumps(pr_payload(s)))
    gh.set_pull(REPO, PR, head_sha=s.head, base_sha=s.base)
    run_payload = {"workflow_run": {"head_sha": s.head, "event": "pull_request", "pull_requests": []}}
    env = {"CITECHECK_PR_EVENT": "citecheck-pr/event.json"}

    def judge_run() -> Result:
        inputs = judged_inputs(sources, judge)
        return run_action(
            tmp_path, ws, gh, inputs=inputs, payload=run_payload, event_name="workflow_run", extra_env=env
        )

    r = judge_run()
    assert r.code == 1, r.stdout + r.stderr
    assert judge.calls and sources.hits("/survey") == 0
    assert sorted(c["line"] for c in report_json(r)["claims"]) == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]  # type: ignore[index]
    comments = gh.comments(REPO, PR)
    assert len(comments) == 1 and "- Total claims: 3" in comments[0]["body"]

    # A forged event file aiming at another PR (whose head differs) is refused before any work.
    calls = len(judge.calls)
    (ws / "citecheck-pr/event.json").write_text(json.dumps(pr_payload(s, number=99)))
    gh.set_pull(REPO, 99, head_sha="e" * 40, base_sha=s.base)
    r = judge_run()
    assert r.code == 2 and "::error::citecheck: PR #99 has head eeeeeeeeeeee" in r.stdout
    assert len(judge.calls) == calls and gh.comments(REPO, 99) == []


def test_workspace_without_repository_and_without_token(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    # A workspace with the PR's files but no repository (e.g. a tarball checkout).
    ws = tmp_path / "plain"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs/guide.md").write_text((s.origin.root / "docs/guide.md").read_text())
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(tmp_path, ws, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert "from api" in r.stdout
    assert sorted(c["line"] for c in report_json(r)["claims"]) == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]  # type: ignore[index]

    # Without the files (no actions/checkout), it is an error, never a silent pass.
    (tmp_path / "nothing-here").mkdir()
    r = run_action(tmp_path, tmp_path / "nothing-here", gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 2
    assert "::error::citecheck: docs/guide.md: changed in the PR but not in the workspace" in r.stdout

    # Without a token, the PR's files cannot be listed: a clear error, no guess.
    r = run_action(tmp_path, ws, gh, inputs={**inputs, "github-token": ""}, payload=pr_payload(s))
    assert r.code == 2
    assert "::error::citecheck: PR mode needs github-token to list the PR's changed files" in r.stdout
    # And a token the API refuses says so (the config file at the base is its first request).
    r = run_action(tmp_path, ws, gh, inputs={**inputs, "github-token": "wrong"}, payload=pr_payload(s))
    assert r.code == 2
    refused = r"^::error::citecheck: cannot read \.citecheck\.toml at base \w+: HTTP 401"
    assert re.search(refused, r.stdout, re.M)


def test_pull_request_target_on_the_base_checkout_is_an_error(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """pull_request_target's default checkout is the base branch, which lacks the PR's lines."""
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    subprocess.run(["git", "checkout", "-q", s.base], cwd=s.origin.root, check=True)
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(
        tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), event_name="pull_request_target"
    )
    assert r.code == 2, r.stdout + r.stderr
    assert "::error::citecheck: docs/guide.md: the checked-out file lacks the PR's changed lines" in r.stdout
    assert sources.hits("/survey") == 0 and gh.requests("POST") == []
