"""The progress channel: events, their throttle and heartbeat, the plain lines, and which
display the CLI picks."""

from __future__ import annotations

import asyncio
import dataclasses
import io

import pytest

from citecheck.progress import (
    Counts,
    EventKind,
    LineProgress,
    Progress,
    ProgressEvent,
    Stage,
    describe,
    progress_line,
)
from citecheck.terminal import Display, choose_display


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_counts_reach_the_listener_throttled_and_every_boundary_and_message() -> None:
    clock, events = Clock(), []
    progress = Progress(events.append, min_interval_s=0.5, clock=clock)
    progress.start(Stage.fetch, sources=1000)
    for _ in range(1000):  # a thousand pages in 2 s
        clock.now += 0.002
        progress.add(sources_fetched=1)
    progress.message("citecheck: judge batch b1: 3 request(s) submitted; polling")
    progress.finish(Stage.fetch)

    kinds = [e.kind for e in events]
    assert kinds[0] == EventKind.started and kinds[-2:] == [EventKind.message, EventKind.finished]
    moved = [e for e in events if e.kind == EventKind.progress]
    assert 3 <= len(moved) <= 4  # one per 0.5 s of the 2 s, not one per page
    assert [e.counts.sources_fetched for e in moved] == sorted(e.counts.sources_fetched for e in moved)
    assert events[-1].counts == Counts(sources=1000, sources_fetched=1000)  # nothing lost to the throttle
    assert events[-1].elapsed_s == pytest.approx(2.0)
    assert events[-2].message.startswith("citecheck: judge batch b1")
    assert {e.stage for e in events} == {Stage.fetch}


def test_a_run_without_a_listener_makes_no_event() -> None:
    progress = Progress(None)
    progress.start(Stage.extract, files=3)
    progress.add(files_read=1)
    progress.finish(Stage.extract)
    assert not progress.on and progress.counts == Counts()  # not even counted
    asyncio.run(progress.beat(every_s=0.001))  # returns at once: no heartbeat either


def test_the_heartbeat_repeats_the_counts_while_nothing_moves() -> None:
    events: list[ProgressEvent] = []

    async def quiet_stage() -> None:
        progress = Progress(events.append)
        progress.start(Stage.judge, judge_calls_total=4)
        beat = asyncio.create_task(progress.beat(every_s=0.01))
        await asyncio.sleep(0.1)  # one long call: nothing moves
        beat.cancel()

    asyncio.run(quiet_stage())
    beats = [e for e in events if e.kind == EventKind.progress]
    assert beats and all(e.counts.judge_calls_total == 4 and e.stage == Stage.judge for e in beats)


def test_the_heartbeat_reads_counts_kept_elsewhere_as_they_move() -> None:
    # The fetch stage's tally of pages, read by the heartbeat instead of a call per page.
    events: list[ProgressEvent] = []
    tally = {"sources_fetched": 0}

    async def fetching() -> None:
        progress = Progress(events.append, min_interval_s=0.01)
        progress.start(Stage.fetch, sources=3)
        beat = asyncio.create_task(progress.beat(every_s=10.0, poll=lambda: dict(tally)))
        for _ in range(3):
            await asyncio.sleep(0.05)
            tally["sources_fetched"] += 1
        await asyncio.sleep(0.05)
        beat.cancel()
        progress.finish(Stage.fetch, sources_fetched=tally["sources_fetched"])

    asyncio.run(fetching())
    moved = [e.counts.sources_fetched for e in events if e.kind == EventKind.progress]
    # Each change heard once (a slow loop may see two at once), none repeated while nothing
    # moved (the 10 s heartbeat never came).
    assert moved and moved == sorted(set(moved)) and moved[-1] == 3
    assert events[-1].kind == EventKind.finished and events[-1].counts == Counts(sources=3, sources_fetched=3)


def test_lines_every_interval_at_each_stage_end_and_every_message() -> None:
    clock, written = Clock(), []
    lines = LineProgress(written.append, interval_s=5.0, clock=clock)
    counts = Counts(files=2, files_read=2, claims=40, sources=30, sources_fetched=0)

    def event(kind: EventKind, at: float, **changes: int) -> None:
        clock.now = at
        lines(ProgressEvent(kind, Stage.fetch, dataclasses.replace(counts, **changes), at - 100, ""))

    event(EventKind.started, 101)
    for t in range(2, 14):  # a progress event each second, 12 s
        event(EventKind.progress, 100 + t, sources_fetched=t)
    event(EventKind.finished, 114, sources_fetched=30)
    assert written == [
        "citecheck: [fetch + checks] files 2/2, claims 40, sources 6/30 fetched (6 s)",
        "citecheck: [fetch + checks] files 2/2, claims 40, sources 11/30 fetched (11 s)",
        "citecheck: [fetch + checks] done: files 2/2, claims 40, sources 30/30 fetched (14 s)",
    ]
    clock.now = 115
    lines(ProgressEvent(EventKind.message, Stage.judge, counts, 15, "citecheck: judge batch b1: ended"))
    assert written[-1] == "citecheck: judge batch b1: ended"


def test_describe_leaves_out_what_is_not_known() -> None:
    assert describe(Counts(files=3, files_read=1, claims=7)) == "files 1/3, claims 7"
    judged = Counts(files=1, files_read=1, claims=9, sources=4, sources_fetched=4)
    judged = dataclasses.replace(judged, judge_calls=2, judge_calls_total=5, cost_usd=0.01234)
    assert describe(judged) == ("files 1/1, claims 9, sources 4/4 fetched, judge calls 2/5, cost $0.0123")
    event = ProgressEvent(EventKind.finished, Stage.report, judged, 61.4)
    assert progress_line(event) == f"citecheck: [report] done: {describe(judged)} (61 s)"


class Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("terminal", "flag", "environ", "display"),
    [
        (True, None, {}, Display.bar),
        (True, True, {}, Display.bar),
        (True, False, {}, Display.off),
        (True, None, {"CITECHECK_PROGRESS": "0"}, Display.off),
        (True, None, {"CITECHECK_PROGRESS": " Off "}, Display.off),
        (True, True, {"CITECHECK_PROGRESS": "0"}, Display.bar),  # the flag wins
        (True, None, {"TERM": "dumb"}, Display.lines),  # no bar on a dumb terminal
        (True, None, {"NO_COLOR": "1"}, Display.bar),  # colours off, not the bar
        (False, None, {}, Display.lines),  # a pipe, a file, CI: plain lines
        (False, True, {}, Display.lines),
        (False, None, {"CITECHECK_PROGRESS": "1"}, Display.lines),
        (False, None, {"CITECHECK_PROGRESS": "maybe"}, Display.lines),
        (False, None, {"CITECHECK_PROGRESS": "no"}, Display.off),
        (False, False, {"CITECHECK_PROGRESS": "1"}, Display.off),
        (False, True, {"CITECHECK_PROGRESS": "false"}, Display.lines),
    ],
)
def test_which_display(terminal: bool, flag: bool | None, environ: dict[str, str], display: Display) -> None:
    assert choose_display(flag, Stream(terminal), environ) == display
