"""The pipeline's progress events (`citecheck.progress`): each stage started and finished in
order, the counts as they move, throttled, and at the end the run's own figures."""

from __future__ import annotations

from pathlib import Path

from citecheck.config import Settings
from citecheck.judge.providers import run_redactor
from citecheck.pipeline import check
from citecheck.progress import HEARTBEAT_S, MIN_INTERVAL_S, EventKind, ProgressEvent, Stage
from citecheck.select import select_local
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

PAGE = "<html><body><article><p>Study {n} found that {n}0% of teams write documentation.</p></article></body>"
PAGES = 30


def _docs(tmp_path: Path, sources: SourceServer) -> list[Path]:
    docs = []
    for d in range(2):
        lines = []
        for n in range(d, PAGES, 2):
            url = sources.add(f"/study-{n}", PAGE.format(n=n))
            lines.append(f"Study {n} found that {n}0% of teams write documentation [study]({url}).\n\n")
        doc = tmp_path / f"doc{d}.md"
        doc.write_text("".join(lines), encoding="utf-8")
        docs.append(doc)
    return docs


def _stages(events: list[ProgressEvent]) -> list[tuple[EventKind, Stage]]:
    return [(e.kind, e.stage) for e in events if e.kind in (EventKind.started, EventKind.finished)]


def test_events_follow_the_stages_and_end_on_the_runs_figures(
    tmp_path: Path, source_server: SourceServer, openai_server: LLMServer
) -> None:
    docs = _docs(tmp_path, source_server)
    settings = Settings(
        judge="openai", base_url=openai_server.base_url, allow_private_hosts=["127.0.0.1"], batch_size=4
    )
    files, _ = select_local([str(d) for d in docs], settings)
    events: list[ProgressEvent] = []
    env = {"OPENAI_API_KEY": "sk-test-not-a-key"}
    report = check(settings, files, environ=env, redact=run_redactor(env), progress=events.append)

    order = [Stage.extract, Stage.fetch, Stage.judge, Stage.report]
    assert _stages(events) == [(kind, s) for s in order for kind in (EventKind.started, EventKind.finished)]
    last = events[-1].counts
    assert (last.files, last.files_read, last.claims) == (2, 2, PAGES) == (2, 2, report.total_claims)
    assert (last.sources, last.sources_fetched) == (PAGES, PAGES)
    calls = len(openai_server.calls)
    assert calls >= PAGES and last.judge_calls == last.judge_calls_total == calls
    assert abs(last.cost_usd - report.total_cost_usd) < 1e-6 and last.cost_usd > 0
    # The counts only grow, and the listener heard of them throttled: no more than one event
    # per MIN_INTERVAL_S of the stage, plus its heartbeats (by the events' own clock).
    for field in ("files_read", "claims", "sources_fetched", "judge_calls", "judge_calls_total"):
        seen = [getattr(e.counts, field) for e in events]
        assert seen == sorted(seen), field
    fetching = [e for e in events if e.stage == Stage.fetch]
    moved = [e for e in fetching if e.kind == EventKind.progress]
    span = fetching[-1].elapsed_s - fetching[0].elapsed_s
    assert len(moved) <= 2 * (span / MIN_INTERVAL_S + 1)
    assert len(moved) < PAGES + calls  # fewer than one per page and call


def test_without_a_judge_there_is_no_judge_stage_and_pages_are_still_counted(
    tmp_path: Path, source_server: SourceServer
) -> None:
    docs = _docs(tmp_path, source_server)
    settings = Settings(judge="none", allow_private_hosts=["127.0.0.1"])
    files, _ = select_local([str(d) for d in docs], settings)
    events: list[ProgressEvent] = []
    check(settings, files, environ={}, redact=run_redactor({}), progress=events.append)
    order = [Stage.extract, Stage.fetch, Stage.report]
    assert _stages(events) == [(kind, s) for s in order for kind in (EventKind.started, EventKind.finished)]
    last = events[-1].counts
    assert (last.sources, last.sources_fetched, last.judge_calls_total, last.cost_usd) == (PAGES, PAGES, 0, 0)


def test_a_slow_judge_keeps_the_judge_stage_alive_with_heartbeats(
    tmp_path: Path, source_server: SourceServer
) -> None:
    doc = tmp_path / "doc.md"
    url = source_server.add("/study-1", PAGE.format(n=1))
    doc.write_text(f"Study 1 found that 10% of teams write documentation [study]({url}).\n", encoding="utf-8")
    settings = Settings(judge="openai", allow_private_hosts=["127.0.0.1"])
    events: list[ProgressEvent] = []
    # One call that takes several heartbeats: nothing moves while it is out.
    with LLMServer("openai", latency_s=4 * HEARTBEAT_S) as slow:
        files, _ = select_local([str(doc)], settings.model_copy(update={"base_url": slow.base_url}))
        check(
            settings.model_copy(update={"base_url": slow.base_url}),
            files,
            environ={"OPENAI_API_KEY": "sk-test-not-a-key"},
            redact=run_redactor({"OPENAI_API_KEY": "sk-test-not-a-key"}),
            progress=events.append,
        )
        assert len(slow.calls) == 1
    waiting = [
        e
        for e in events
        if e.kind == EventKind.progress and e.counts.judge_calls_total == 1 and e.counts.judge_calls == 0
    ]
    # The judge told of the planned call at most once; the rest are heartbeats repeating it.
    assert len(waiting) >= 2
    assert {e.stage for e in waiting} <= {Stage.fetch, Stage.judge}
    assert events[-1].counts.judge_calls == 1
