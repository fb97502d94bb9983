"""The Action's log on a run long enough to report progress: a group per stage in order,
progress lines while a slow source keeps the fetch going, the failing claims a group per
file, and a claim's text that cannot end a group or issue a command. Read the way the runner
reads it (`tests.runner_log`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from citecheck.progress import LINE_INTERVAL_S
from tests.e2e.test_action_e2e import _page, judged_inputs, run_action
from tests.runner_log import read_log
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

SLOW_S = 7.0  # longer than LINE_INTERVAL_S, within the fetch's 10-second deadline per source
HOSTILE = "::endgroup:: ::error::pwned ##[endgroup] ##[error]pwned"
STAGES = [
    "citecheck: select",
    "citecheck: extract",
    "citecheck: fetch + checks",
    "citecheck: judge",
    "citecheck: report and publish",
]
LINE = re.compile(r"citecheck: \[(?P<stage>[^\]]+)\](?P<done> done:)? (?P<counts>.*) \((?P<s>\d+) s\)")


@pytest.fixture
def slow() -> Iterator[SourceServer]:
    with SourceServer(latency_s=SLOW_S) as server:
        yield server


def test_a_long_audit_logs_grouped_stages_progress_and_failures_by_file(
    tmp_path: Path, sources: SourceServer, slow: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    assert SLOW_S > LINE_INTERVAL_S
    atlas = sources.add("/atlas", _page("The river is 120 km long, per the atlas of the region."))
    report = sources.add("/report", _page("Sales grew 10% in 2023, the report says."))
    old = sources.add("/old", _page("Revenue rose 7% in 2023, says the old report."))
    lake = slow.add("/lake", _page("The lake is 40 m deep at its deepest point."))
    repo = Repo(tmp_path / "origin")
    repo.commit(
        {
            "docs/a.md": (
                f"# A\n\nThe river is 120 km long, per [the atlas]({atlas}).\n\n"
                f"Sales grew 25% in 2023 {HOSTILE} ([report]({report})).\n\n"
                f"The lake is 40 m deep ([survey]({lake})).\n"
            ),
            "docs/b.md": f"# B\n\nRevenue rose 5% in 2023 ([old report]({old})).\n",
        },
        "docs",
    )
    r = run_action(
        tmp_path,
        repo.root,
        gh,
        inputs=judged_inputs(sources, judge),
        payload={},
        event_name="workflow_dispatch",
    )
    assert r.code == 1, r.stdout + r.stderr

    view = read_log(r.stdout)
    assert view.problems == [] and not view.stopped_at_end and not view.open_at_end
    assert view.markers == []
    # Obeyed: the annotations of the three failing claims and nothing else (the hostile claim's
    # text is in one of them, escaped into the message).
    errors = [data for name, data in view.commands if name == "error"]
    assert len(errors) == 3 and all("\nClaim: " in data for data in errors)
    assert {name for name, _ in view.commands} <= {"add-mask", "error", "warning", "notice"}
    assert [data for name, data in view.commands if name == "add-mask"] == sorted(  # the secrets, first
        [gh.token, judged_inputs(sources, judge)["openai-api-key"]]
    )
    assert view.titles == [
        *STAGES,
        "citecheck: docs/a.md: 2 failing claim(s)",
        "citecheck: docs/b.md: 1 failing claim(s)",
    ]
    # The hostile claim is printed, inert, in its file's group.
    hostile, lake = view.group("citecheck: docs/a.md: 2 failing claim(s)").lines
    assert hostile.startswith("docs/a.md:5: fail: Sales grew 25% in 2023 ::endgroup:: ::error::pwned # #[")
    assert lake.startswith("docs/a.md:7: fail: The lake is 40 m deep")
    assert re.match(r"citecheck: 4 claims, 1 verified, 3 failing under fail-on", view.outside[-1])

    # The fetch waited on the slow source: progress lines while it did, at most one per
    # interval (by the lines' own clock), then one as the stage ended with every count.
    fetch = [m for line in view.group(STAGES[2]).lines if (m := LINE.fullmatch(line))]
    assert fetch and fetch[-1]["done"] and all(not m["done"] for m in fetch[:-1])
    during = fetch[:-1]
    assert during, view.group(STAGES[2]).lines
    assert len(during) <= int(fetch[-1]["s"]) // LINE_INTERVAL_S + 1
    assert any("sources 3/4 fetched" in m["counts"] for m in during)  # the slow one still out
    assert "files 2/2, claims 4, sources 4/4 fetched, judge calls" in fetch[-1]["counts"]
    for stage in STAGES[1:]:
        done = [line for line in view.group(stage).lines if " done: " in line]
        assert len(done) == 1, (stage, view.group(stage).lines)
    (judged,) = (LINE.fullmatch(line) for line in view.group(STAGES[3]).lines if " done: " in line)
    assert judged is not None
    calls = re.search(r"judge calls (\d+)/(\d+), cost \$(\d+\.\d+)", judged["counts"])
    assert calls and calls[1] == calls[2] == str(len(judge.calls)) and float(calls[3]) > 0
