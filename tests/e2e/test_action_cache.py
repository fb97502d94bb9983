"""The Action's cache end to end (`entrypoint.py` with the stand-ins of test_action_e2e.py): a
cache the change under test could write is refused; a forged entry is rejected, even one
consistent with its own hash (it is not signed with the run's secret); without a secret no
cache is used; a cache kept across a failing run saves the next run every download and every
judge call."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
import yaml

from citecheck.cache import digest
from citecheck.fetch.fetcher import CACHE_NAMESPACE
from citecheck.models import FetchedSource, FetchOutcome, SourceInfo
from tests.e2e.test_action_e2e import (  # the runner's harness
    SALES_LINE,
    judged_inputs,
    make_scenario,
    pr_payload,
    report_json,
    run_action,
)
from tests.servers.github_server import GitHubServer
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

ROOT = Path(__file__).resolve().parents[2]
FORGED = "Sales grew 25% in 2023, the report says. The figure is final and audited."


def forged_entry(url: str, *, fetched_at: float) -> str:
    """A source entry as the attack wrote it: the report "says" what the PR claims."""
    source = FetchedSource(
        info=SourceInfo(url=url, final_url=url, status=200, content_type="text/html"),
        outcome=FetchOutcome.ok,
        text=FORGED,
        text_hash=digest(FORGED),
        fetched_at=fetched_at,
    ).model_dump(mode="json", exclude={"info": {"from_cache"}})
    return json.dumps({"key": url, "stored_at": time.time(), "value": source})


def entry_name(url: str) -> str:
    return f"{CACHE_NAMESPACE}/{digest(url)}.json"


def runner_temp(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    temp = tmp_path / "runner_temp"
    temp.mkdir(exist_ok=True)
    return temp, {"RUNNER_TEMP": str(temp)}


def test_a_cache_in_the_checked_out_tree_is_refused(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """The attack of issue 14: the PR commits a forged cache entry for the source of its false
    claim, and the workflow keeps its cache in the workspace. Before, the claim passed."""
    s = make_scenario(tmp_path, sources, gh)  # the report says 10%, the PR claims 25%
    head = s.origin.commit(
        {
            f".citecheck-cache/{entry_name(s.urls['report'])}": forged_entry(
                s.urls["report"], fetched_at=time.time()
            )
        },
        "cache",
    )
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = head  # type: ignore[index]
    gh.set_pull("octo/docs", 7, head_sha=head, base_sha=s.base)
    _, env = runner_temp(tmp_path)
    inputs = {"allow-private-hosts": sources.host, "judge": "none", "cache-dir": ".citecheck-cache"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload, extra_env=env)
    assert r.code == 2, r.stdout + r.stderr
    assert re.search(
        r"^::error::citecheck: input cache-dir: .*\.citecheck-cache is inside the checked-out workspace, "
        r"where the change under test could write cache entries .* use a path under \$RUNNER_TEMP",
        r.stdout,
        re.M,
    )
    assert sources.hits() == 0 and gh.requests("POST") == []  # nothing ran

    # Nor by a path that only leads there: an absolute one, or a link from outside.
    for cache_dir in (str(s.origin.root / ".citecheck-cache"), str(tmp_path / "runner_temp/link")):
        if cache_dir.endswith("link"):
            os.symlink(s.origin.root / ".citecheck-cache", cache_dir)
        r = run_action(
            tmp_path,
            s.origin.root,
            gh,
            inputs={**inputs, "cache-dir": cache_dir},
            payload=payload,
            extra_env=env,
        )
        assert r.code == 2 and "is inside the checked-out workspace" in r.stdout, cache_dir


@pytest.mark.parametrize("secret", ["judge-key", "CITECHECK_CACHE_SECRET"])
def test_a_forged_entry_in_the_runners_cache_is_rejected(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer, secret: str
) -> None:
    """Issue 30, point 9: an entry consistent with its own hash, as a fork's run with a workflow
    of its own could save under its PR's cache scope for the next run to restore. Before, it
    was used and the false claim passed; now it is not signed with the run's secret (derived
    from the judge's key, or the workflow's CITECHECK_CACHE_SECRET), so it is rejected and the
    claim is checked against the real page."""
    s = make_scenario(tmp_path, sources, gh)  # the report says 10%, the PR claims 25%
    temp, env = runner_temp(tmp_path)
    cache = temp / "citecheck-cache"
    (cache / CACHE_NAMESPACE).mkdir(parents=True)
    (cache / entry_name(s.urls["report"])).write_text(forged_entry(s.urls["report"], fetched_at=time.time()))
    if secret == "judge-key":
        inputs = {**judged_inputs(sources, judge), "cache-dir": str(cache)}
    else:
        inputs = {"allow-private-hosts": sources.host, "judge": "none", "cache-dir": str(cache)}
        env["CITECHECK_CACHE_SECRET"] = "a-repository-secret"
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert r.code == 1, r.stdout + r.stderr
    report = report_json(r)
    sales = next(c for c in report["claims"] if c["line"] == SALES_LINE)  # type: ignore[union-attr,index]
    assert sales["verdict"] == "fail" and sales["decided_by"] == "number"
    assert sources.hits("/report") == 1  # the real page was fetched
    note = (
        "1 cache entry rejected (1 not signed with this cache's secret): not used, and deleted from the cache"
    )
    assert note in report["notes"]  # type: ignore[operator]
    assert "1 cache entry rejected" in r.summary
    assert report["total_from_cache"] == 0
    assert r.outputs["passed"] == "false"
    # A secret of the workflow's: masked in the log before anything else, never shown.
    if secret == "CITECHECK_CACHE_SECRET":
        assert r.stdout.count("a-repository-secret") == 1 and "::add-mask::a-repository-secret" in r.stdout


@pytest.mark.parametrize("judged", ["none", "openai-compatible"])
def test_without_a_secret_the_cache_is_not_used(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer, judged: str
) -> None:
    """No judge key and no CITECHECK_CACHE_SECRET (a fork's PR run gets neither), or only the
    stand-in key of a local OpenAI-compatible server (which anyone knows): entries cannot be
    checked, so none is read, and none is kept."""
    s = make_scenario(tmp_path, sources, gh)
    temp, env = runner_temp(tmp_path)
    cache = temp / "citecheck-cache"
    (cache / CACHE_NAMESPACE).mkdir(parents=True)
    (cache / entry_name(s.urls["report"])).write_text(forged_entry(s.urls["report"], fetched_at=time.time()))
    inputs = {"allow-private-hosts": sources.host, "judge": judged, "cache-dir": str(cache)}
    if judged != "none":
        inputs.update({"base-url": judge.base_url, "model": "gpt-4o-mini"})
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert r.code == 1, r.stdout + r.stderr
    report = report_json(r)
    sales = next(c for c in report["claims"] if c["line"] == SALES_LINE)  # type: ignore[union-attr,index]
    assert sales["verdict"] == "fail" and sources.hits("/report") == 1
    note = "cache-dir not used: no secret to sign and check its entries with (set CITECHECK_CACHE_SECRET)"
    assert note in report["notes"]  # type: ignore[operator]
    assert [p.name for p in (cache / CACHE_NAMESPACE).iterdir()] == [
        entry_name(s.urls["report"]).split("/")[1]
    ]


def test_the_cache_of_a_failing_run_saves_the_next_one_every_download_and_judge_call(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """Issue 16: two runs against one cache folder (what actions/cache/save under
    `if: always()` carries from one to the next); the first fails."""
    s = make_scenario(tmp_path, sources, gh)  # the sales claim fails: exit 1
    temp, env = runner_temp(tmp_path)
    inputs = {**judged_inputs(sources, judge), "cache-dir": f"{temp}/citecheck-cache"}

    first = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert first.code == 1, first.stdout + first.stderr
    downloads, calls = sources.hits(), len(judge.calls)
    assert downloads == 2 and calls == 1  # the atlas and the report; the atlas claim judged
    assert report_json(first)["total_from_cache"] == 0

    second = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert second.code == 1  # the same verdicts ...
    assert sources.hits() == downloads and len(judge.calls) == calls  # ... for no download, no call
    report = report_json(second)
    assert report["total_from_cache"] == 2
    assert [c["verdict"] for c in report["claims"]] == [c["verdict"] for c in report_json(first)["claims"]]  # type: ignore[index,union-attr]
    assert "- Decided from cached sources: 2 claim(s); cached judge verdicts: 1" in second.summary
    assert "cache-dir" not in second.stdout  # no warning: the folder is under RUNNER_TEMP


def test_a_cache_outside_runner_temp_is_refused(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """The action keeps nothing outside the workspace and the runner's temporary folder
    (issue 30: before, a folder elsewhere was a warning, and written)."""
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    _, env = runner_temp(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    inputs = {"allow-private-hosts": sources.host, "judge": "none", "cache-dir": str(elsewhere)}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert r.code == 2, r.stdout + r.stderr
    assert re.search(
        rf"^::error::citecheck: input cache-dir: {re.escape(str(elsewhere))} is not under RUNNER_TEMP "
        r"\(.*runner_temp\): the action keeps nothing outside the workspace and the runner's temporary "
        r"folder — use a path under \$RUNNER_TEMP",
        r.stdout,
        re.M,
    )
    assert not elsewhere.exists() and sources.hits() == 0
    # A runner that does not mount its temporary folder into the container (before 2.331).
    env = {"RUNNER_TEMP": str(tmp_path / "not-mounted")}
    inputs["cache-dir"] = str(tmp_path / "not-mounted/citecheck-cache")
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s), extra_env=env)
    assert r.code == 0, r.stdout + r.stderr
    assert "is not mounted in the action's container" in r.stdout


# the workflows that carry the cache ------------------------------------------------------------


def _steps(path: str) -> list[dict[str, object]]:
    wf = yaml.safe_load((ROOT / path).read_text())
    return [step for job in wf["jobs"].values() for step in job.get("steps", [])]


def test_cached_workflows_restore_and_save_under_always_outside_the_workspace() -> None:
    for path in (
        "examples/workflows/citecheck-pr-cached.yml",
        "examples/workflows/citecheck-audit.yml",
        ".github/workflows/citecheck.yml",
    ):
        steps = _steps(path)
        uses = [str(step.get("uses", "")) for step in steps]
        assert not any(u.startswith("actions/cache@") for u in uses), path  # saves only when green
        restore = next(st for st in steps if str(st.get("uses", "")).startswith("actions/cache/restore@"))
        save = next(st for st in steps if str(st.get("uses", "")).startswith("actions/cache/save@"))
        action = next(
            st for st in steps if str(st.get("uses", "")).startswith(("citecheck/citecheck@", "./"))
        )
        assert (
            uses.index(str(restore["uses"])) < uses.index(str(action["uses"])) < uses.index(str(save["uses"]))
        )
        assert save.get("if") == "always()", path
        r_with, s_with, a_with = (dict(x["with"]) for x in (restore, save, action))  # type: ignore[arg-type]
        assert r_with["path"] == s_with["path"] == a_with["cache-dir"] == "${{ runner.temp }}/citecheck-cache"
        # Each run saves a key of its own (a key is saved once), restored by its own prefix only.
        assert r_with["key"] == s_with["key"]
        assert str(s_with["key"]).endswith("-${{ github.run_id }}-${{ github.run_attempt }}")
        prefix = str(s_with["key"]).removesuffix("${{ github.run_id }}-${{ github.run_attempt }}")
        assert str(r_with["restore-keys"]).strip() == prefix, path  # one prefix, no fallback


def test_cache_keys_are_one_per_pr_and_per_shard() -> None:
    pr = dict(_steps("examples/workflows/citecheck-pr-cached.yml")[1]["with"])  # type: ignore[arg-type]
    wf = yaml.safe_load((ROOT / "examples/workflows/citecheck-pr-cached.yml").read_text())
    # One per PR; a merge queue's runs (no PR number) a line of their own, never `citecheck-pr-`.
    assert wf["jobs"]["citecheck"]["env"]["CITECHECK_CACHE_KEY"] == (
        "citecheck-${{ github.event_name == 'merge_group' && 'queue' || "
        "format('pr-{0}', github.event.pull_request.number) }}"
    )
    assert pr["restore-keys"] == "${{ env.CITECHECK_CACHE_KEY }}-"
    audit = dict(_steps("examples/workflows/citecheck-audit.yml")[1]["with"])  # type: ignore[arg-type]
    assert audit["restore-keys"] == "citecheck-audit-s${{ matrix.shard }}of4-"


def test_the_fork_safe_workflows_never_save_a_cache() -> None:
    for path in (
        "examples/workflows/citecheck-fork-analyse.yml",
        "examples/workflows/citecheck-fork-comment.yml",
    ):
        for step in _steps(path):
            uses = str(step.get("uses", ""))
            assert not uses.startswith(("actions/cache@", "actions/cache/save@")), path
            assert "cache-dir" not in dict(step.get("with") or {}), path  # type: ignore[call-overload]


def test_no_example_keeps_a_cache_in_the_workspace() -> None:
    texts = [p.read_text() for p in sorted((ROOT / "examples/workflows").glob("*.yml"))]
    texts += [(ROOT / ".github/workflows/citecheck.yml").read_text(), (ROOT / "README.md").read_text()]
    for text in texts:
        for m in re.finditer(r"^\s*(?:cache-dir|path):\s*(.+)$", text, re.M):
            value = m.group(1).strip()
            if "cache" in value:
                assert value.startswith("${{ runner.temp }}/"), value
