"""Paths the change under test can steer (issue 30), end to end (`entrypoint.py` as a subprocess
with the stand-ins of test_action_e2e.py). A PR commits symbolic links (`Repo.link`) where the
Action writes its reports or keeps its cache, and the Action writes through none of them and
keeps no cache behind one; the fork-safe part 2, which holds the secrets, reads the PR's tree
from the API at the verified head and needs no checkout of it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.test_action_cache import runner_temp
from tests.e2e.test_action_e2e import (
    ATLAS_LINE,
    PR,
    REPO,
    SALES_LINE,
    UNSOURCED_LINE,
    Result,
    Scenario,
    _page,
    judged_inputs,
    make_scenario,
    pr_payload,
    run_action,
)
from tests.servers.github_server import GitHubServer
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

SECRET = "the runner's file that no report may overwrite\n"
NO_JUDGE = {"judge": "none"}


def _outside(tmp_path: Path) -> tuple[Path, Path]:
    """A file outside the workspace, and an empty folder outside it, for the links to name."""
    (tmp_path / "outside").mkdir()
    secret = tmp_path / "outside/secret.txt"
    secret.write_text(SECRET)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return secret, elsewhere


def _push_links(
    s: Scenario, gh: GitHubServer, links: dict[str, Path | str], *, base: str = ""
) -> dict[str, object]:
    """Commit `links` on the PR's head (or on a new PR from `base`): its pull_request payload."""
    for name, target in links.items():
        s.origin.link(name, target)
    head = s.origin.commit({}, "links")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base or s.base)
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = head  # type: ignore[index]
    if base:
        payload["pull_request"]["base"]["sha"] = base  # type: ignore[index]
    return payload


def _report_files_are_the_actions_own(r: Result) -> dict[str, str]:
    folder = r.workspace / "citecheck-report"
    assert not folder.is_symlink() and folder.is_dir()
    files = {p.name: p for p in folder.iterdir()}
    assert set(files) == {"report.json", "report.md", "report.sarif"}
    assert not any(p.is_symlink() for p in files.values())
    return {name: p.read_text() for name, p in files.items()}


def test_pr_reports_are_never_written_through_links_the_pr_commits(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """Issue 30, point 2: `citecheck-report/report.json -> /path/outside` and
    `citecheck-report/report.md -> /dir/new.md`, committed; before, the run overwrote the first
    file and created the second."""
    s = make_scenario(tmp_path, sources, gh)  # the sales claim fails
    secret, elsewhere = _outside(tmp_path)
    links = {"citecheck-report/report.json": secret, "citecheck-report/report.md": elsewhere / "new.md"}
    payload = _push_links(s, gh, links)
    r = run_action(
        tmp_path, s.origin.root, gh, inputs={"allow-private-hosts": sources.host, **NO_JUDGE}, payload=payload
    )

    assert secret.read_text() == SECRET
    assert list(elsewhere.iterdir()) == []
    for name in ("report.json", "report.md"):
        assert re.search(
            rf"^::error::citecheck: citecheck-report/{name} was a symbolic link in the workspace: "
            r"the report replaced the link, never written through it — remove the link from the repository",
            r.stdout,
            re.M,
        ), r.stdout
    assert r.code == 2, r.stdout + r.stderr  # the claims alone would exit 1
    # No lost work: the report is in its files, the summary, the outputs and the comment.
    reports = _report_files_are_the_actions_own(r)
    assert json.loads(reports["report.json"])["total_claims"] == 3
    assert r.outputs["total-claims"] == "3" and r.outputs["report-json"] == "citecheck-report/report.json"
    assert "- Total claims: 3" in r.summary
    assert "- Total claims: 3" in gh.comments(REPO, PR)[0]["body"]


def test_an_audit_writes_through_no_linked_report_folder(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """Point 2 in audit mode, the folder itself a link: before, the reports went into it."""
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    _, elsewhere = _outside(tmp_path)
    _push_links(s, gh, {"citecheck-report": elsewhere})
    inputs = {"allow-private-hosts": sources.host, **NO_JUDGE}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload={}, event_name="schedule")

    assert list(elsewhere.iterdir()) == []
    assert re.search(
        r"^::error::citecheck: citecheck-report was a symbolic link in the workspace: the report replaced",
        r.stdout,
        re.M,
    ), r.stdout
    assert r.code == 2, r.stdout + r.stderr
    assert json.loads(_report_files_are_the_actions_own(r)["report.json"])["total_claims"] == 4
    assert "- Total claims: 4" in r.summary


def test_a_pr_with_nothing_to_check_writes_through_no_link_either(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """A PR that changes no Markdown, only the links: its one-line report files too."""
    s = make_scenario(tmp_path, sources, gh)
    secret, _ = _outside(tmp_path)
    links = {"citecheck-report/report.json": secret, "citecheck-report/report.sarif": secret}
    payload = _push_links(s, gh, links, base=s.head)
    r = run_action(tmp_path, s.origin.root, gh, inputs=NO_JUDGE, payload=payload)

    assert secret.read_text() == SECRET
    assert r.code == 2, r.stdout + r.stderr
    assert "::error::citecheck: citecheck-report/report.sarif was a symbolic link" in r.stdout
    assert "nothing to check" in r.summary and "nothing to check" in r.outputs["note"]
    _report_files_are_the_actions_own(r)


def test_an_audit_reads_no_config_through_a_link_out_of_the_tree(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """An audit reads `.citecheck.toml` and `.citecheckignore` from the tree: a link there
    out of it (to a file of the runner's) is an error, never read, and never "no config"."""
    secret, _ = _outside(tmp_path)
    for name in (".citecheck.toml", ".citecheckignore"):
        repo = make_scenario(tmp_path / name, sources, gh).origin
        repo.link(name, secret)
        repo.commit({}, "link")
        r = run_action(tmp_path, repo.root, gh, inputs=NO_JUDGE, payload={}, event_name="schedule")
        assert r.code == 2, r.stdout + r.stderr
        assert f"::error::citecheck: {name} is a symbolic link out of the tree" in r.stdout
        assert sources.hits() == 0


def test_a_cache_dir_through_a_link_the_pr_commits_is_refused(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """Issue 30, point 9: `prlink -> /outside` turned `cache-dir: prlink/c`, otherwise refused,
    into a folder outside the workspace (here under RUNNER_TEMP, where nothing warned)."""
    s = make_scenario(tmp_path, sources, gh)
    temp, env = runner_temp(tmp_path)
    chosen = temp / "pr-chosen"
    payload = _push_links(s, gh, {"prlink": chosen})
    inputs = {"allow-private-hosts": sources.host, **NO_JUDGE}
    for cache_dir in ("prlink/c", "prlink/../c", f"{s.origin.root}/prlink/c"):
        r = run_action(
            tmp_path,
            s.origin.root,
            gh,
            inputs={**inputs, "cache-dir": cache_dir},
            payload=payload,
            extra_env=env,
        )
        assert r.code == 2, (cache_dir, r.stdout + r.stderr)
        assert re.search(
            rf"^::error::citecheck: input cache-dir: {re.escape(cache_dir)} leads through prlink, a symbolic "
            r"link in the checked-out workspace .* use a path under \$RUNNER_TEMP",
            r.stdout,
            re.M,
        ), r.stdout
        assert sources.hits() == 0 and gh.requests("POST") == []
    assert not chosen.exists() and not (temp / "c").exists()


def test_fork_safe_part_2_reads_the_pr_from_the_api_without_a_checkout(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """The job that holds the secrets checks nothing out: its workspace has the downloaded
    artifact alone. The PR's tree comes from the tarball of the head GitHub verified, with
    regular files only: a link the PR commits is not read, inside the tree or out of it."""
    s = make_scenario(tmp_path, sources, gh)
    leak = sources.add("/leak", _page("Revenue doubled in 2020."))
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret.md").write_text(f"Revenue rose 90% in 2020 per [the memo]({leak}).\n")
    payload = _push_links(s, gh, {"docs/leak.md": tmp_path / "outside/secret.md", "docs/same.md": "guide.md"})
    head = payload["pull_request"]["head"]["sha"]  # type: ignore[index]
    ws = tmp_path / "workspace"
    (ws / "citecheck-pr").mkdir(parents=True)
    (ws / "citecheck-pr/event.json").write_text(json.dumps(payload))
    run_payload = {"workflow_run": {"head_sha": head, "event": "pull_request", "pull_requests": []}}
    r = run_action(
        tmp_path,
        ws,
        gh,
        inputs=judged_inputs(sources, judge),
        payload=run_payload,
        event_name="workflow_run",
        extra_env={"CITECHECK_PR_EVENT": "citecheck-pr/event.json"},
    )
    assert r.code == 1, r.stdout + r.stderr  # the sales claim fails, as with a checkout
    report = json.loads((ws / "citecheck-report/report.json").read_text())
    assert sorted(c["line"] for c in report["claims"]) == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]
    assert {c["file"] for c in report["claims"]} == {"docs/guide.md"}
    errors = {e["file"]: e["message"] for e in report["errors"]}
    assert errors == {
        "docs/leak.md": "a symbolic link in the pull request: not read",
        "docs/same.md": "a symbolic link in the pull request: not read",
    }
    assert sources.hits("/leak") == 0 and "90%" not in r.stdout + r.summary
    assert [q.path for q in gh.requests("GET") if "/tarball/" in q.path] == [f"/repos/{REPO}/tarball/{head}"]
    # Nothing was unpacked into the workspace.
    assert sorted(p.name for p in ws.iterdir()) == ["citecheck-pr", "citecheck-report"]
    assert "- Total claims: 3" in gh.comments(REPO, PR)[0]["body"]
