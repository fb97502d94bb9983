"""The Action on a pull request whose guide links the repository's own reference page (issue
34): `entrypoint.py` with a runner's environment, a real git repository, the GitHub REST
stand-in and the judge stand-in on 127.0.0.1. The guide's changed sentence is checked against
the section of the reference it links, as the PR's head has it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.test_action_e2e import (
    PR,
    REPO,
    annotations,
    judged_inputs,
    report_json,
    run_action,
)
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

REFERENCE = """# Configuration reference

## Retries

The client retries a failed request 3 times.

## Timeout

The default timeout is {seconds} seconds. A request that takes longer is cancelled.
"""
GUIDE = "# Guide\n\nInstall the client, then configure it.\n"
# the sentence linked whole to the reference's section, as a guide links what it restates
ADDED = "\n[The default timeout is {seconds} seconds](reference/config.md#timeout).\n"
ADDED_LINE = 5


@dataclass
class Scenario:
    origin: Repo
    base: str
    head: str


def scenario(
    tmp_path: Path, gh: GitHubServer, *, says: int, reference: int, head_reference: int | None = None
) -> Scenario:
    origin = Repo(tmp_path / "origin")
    base = origin.commit(
        {"docs/guide.md": GUIDE, "docs/reference/config.md": REFERENCE.format(seconds=reference)}, "base"
    )
    files: dict[str, str | None] = {"docs/guide.md": GUIDE + ADDED.format(seconds=says)}
    if head_reference is not None:
        files["docs/reference/config.md"] = REFERENCE.format(seconds=head_reference)
    head = origin.commit(files, "head")
    gh.serve_repo(REPO, origin.root)
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base)
    return Scenario(origin, base, head)


def payload(s: Scenario) -> dict[str, object]:
    return {
        "action": "synchronize",
        "number": PR,
        "pull_request": {
            "number": PR,
            "base": {"sha": s.base, "ref": "main", "repo": {"full_name": REPO}},
            "head": {"sha": s.head, "ref": "feature", "repo": {"full_name": REPO}},
        },
    }


def test_a_guide_sentence_contradicting_the_reference_it_links_fails_the_check(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = scenario(tmp_path, gh, says=60, reference=30)
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=payload(s))
    assert r.code == 1, r.stdout + r.stderr
    [claim] = report_json(r)["claims"]  # type: ignore[misc]
    assert claim["line"] == ADDED_LINE and claim["verdict"] == "fail" and claim["decided_by"] == "number"
    assert claim["source_url"] == "docs/reference/config.md#timeout"
    assert annotations(r.stdout) == [("docs/guide.md", str(ADDED_LINE), "citecheck: unsupported")]
    body = gh.comments(REPO, PR)[0]["body"]
    assert "The default timeout is 60 seconds" in body and "docs/reference/config.md#timeout" in body
    assert "30" in json.dumps(claim["checks"])  # the page's own figure, named
    assert judge.calls == []  # the contradiction decided it, at no cost


def test_a_guide_sentence_agreeing_with_the_reference_it_links_passes(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = scenario(tmp_path, gh, says=30, reference=30)
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=payload(s))
    assert r.code == 0, r.stdout + r.stderr
    [claim] = report_json(r)["claims"]  # type: ignore[misc]
    assert (claim["verdict"], claim["source_url"]) == ("pass", "docs/reference/config.md#timeout")
    assert r.outputs["passed"] == "true" and annotations(r.stdout) == []


def test_the_fork_safe_part_two_reads_the_reference_as_the_pr_head_has_it(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """The PR changes the reference to 60 seconds and the guide with it: its head agrees with
    itself. Part 2 reads both from the head's tarball, never from the workspace (the base's
    checkout, which says 30)."""
    s = scenario(tmp_path, gh, says=60, reference=30, head_reference=60)
    ws = tmp_path / "workspace"
    Repo(ws).commit(
        {"docs/guide.md": GUIDE, "docs/reference/config.md": REFERENCE.format(seconds=30)}, "base"
    )
    (ws / "citecheck-pr").mkdir()
    (ws / "citecheck-pr/event.json").write_text(json.dumps(payload(s)))
    run_payload = {"workflow_run": {"head_sha": s.head, "event": "pull_request", "pull_requests": []}}
    r = run_action(
        tmp_path,
        ws,
        gh,
        inputs=judged_inputs(sources, judge),
        payload=run_payload,
        event_name="workflow_run",
        extra_env={"CITECHECK_PR_EVENT": "citecheck-pr/event.json"},
    )
    assert r.code == 0, r.stdout + r.stderr
    claims = report_json(r)["claims"]
    [claim] = [c for c in claims if c["file"] == "docs/guide.md"]  # type: ignore[index]
    assert (claim["verdict"], claim["source_url"]) == ("pass", "docs/reference/config.md#timeout")
    assert "the workspace is not read" in r.stdout
