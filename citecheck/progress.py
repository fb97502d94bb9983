"""How far a run has got (docs/ARCHITECTURE.md, "Progress"): typed events, and the plain lines
made of them.

The pipeline tells a listener (`ProgressListener`) what it is doing through `Progress`, which
holds the run's running counts: a stage started or finished (`select`, `extract`, `fetch` —
the fetch and the checks, with the judge starting on each page as it arrives —, `judge` — what
remains of the judge once the last page is in —, `report`), counts that moved (files read,
claims found, sources fetched of how many, judge calls finished of how many are planned so
far, cost so far), and messages (batch mode's polls). A run without a listener makes no event
and does no extra work.

Counts move thousands of times a second on a large run; a listener hears of them at most once
every `MIN_INTERVAL_S` per stage (`Progress.update`), plus every stage boundary and every
message, and a heartbeat (`Progress.beat`) repeats the counts while nothing moves (one long
call, a slow last page), so a log stays alive on a quiet stretch.

The entry points render the events: the Action as grouped log lines (`citecheck.github.publish`),
the CLI as a bar on a terminal or as plain lines (`LineProgress`, here, shared by both).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

# A listener hears of moving counts at most this often per stage (stage boundaries and
# messages always): a 1,000-page run stays at a few dozen events.
MIN_INTERVAL_S = 0.5
# How often the pipeline's heartbeat repeats the counts while nothing moves.
HEARTBEAT_S = 1.0
# How often `LineProgress` prints a line while a stage runs (and always at its end).
LINE_INTERVAL_S = 5.0


class Stage(StrEnum):
    """The stages a run reports, in the order they run."""

    select = "select"
    extract = "extract"
    fetch = "fetch"  # the fetch and the checks; the judge starts on pages as they arrive
    judge = "judge"  # what remains of the judge once the last page is in
    report = "report"


STAGE_TITLES: dict[Stage, str] = {
    Stage.select: "select",
    Stage.extract: "extract",
    Stage.fetch: "fetch + checks",
    Stage.judge: "judge",
    Stage.report: "report",
}


class EventKind(StrEnum):
    started = "started"
    progress = "progress"  # counts moved (or a heartbeat)
    finished = "finished"
    message = "message"  # a line to show as it is (batch mode's polls)


@dataclass(frozen=True, slots=True)
class Counts:
    """The run's counts so far. A total of 0 means not known (yet) or nothing to do."""

    files: int = 0  # selected
    files_read: int = 0
    claims: int = 0  # found in the files read
    sources: int = 0  # pages to fetch (once each, whichever claims cite them)
    sources_fetched: int = 0  # fetched or failed, from the network or the cache
    judge_calls: int = 0  # finished: answered, failed, or stopped by the cost cap or the deadline
    judge_calls_total: int = 0  # planned so far (grows as pages arrive and claims are asked again)
    cost_usd: float = 0.0  # the judge's spend so far


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    kind: EventKind
    stage: Stage
    counts: Counts
    elapsed_s: float  # since the run started
    message: str = ""  # for `EventKind.message`


ProgressListener = Callable[[ProgressEvent], None]


class Progress:
    """The run's counts and the events made of them, for one listener (None: no events, and
    every method returns at once)."""

    def __init__(
        self,
        listener: ProgressListener | None,
        *,
        min_interval_s: float = MIN_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.listener = listener
        self._min_interval_s = min_interval_s
        self._clock = clock
        self._started = clock()
        self._last = float("-inf")  # when the current stage last told the listener
        self.stage = Stage.select
        self.counts = Counts()

    @property
    def on(self) -> bool:
        return self.listener is not None

    def _emit(self, kind: EventKind, message: str = "") -> None:
        assert self.listener is not None
        now = self._clock()
        self._last = now
        self.listener(ProgressEvent(kind, self.stage, self.counts, now - self._started, message))

    def start(self, stage: Stage, **counts: int | float) -> None:
        """A stage begins, with some counts (fields of `Counts`) set as it does."""
        self._at(stage, EventKind.started, counts)

    def finish(self, stage: Stage, **counts: int | float) -> None:
        """A stage ends, with some counts (fields of `Counts`) set as it does."""
        self._at(stage, EventKind.finished, counts)

    def _at(self, stage: Stage, kind: EventKind, counts: dict[str, int | float]) -> None:
        if self.listener is None:
            return
        self.stage = stage
        if counts:
            self.counts = dataclasses.replace(self.counts, **counts)  # type: ignore[arg-type]
        self._emit(kind)

    def update(self, **counts: int | float) -> None:
        """Set some counts (fields of `Counts`); the listener hears of it unless it did less
        than `min_interval_s` ago."""
        if self.listener is None:
            return
        self.counts = dataclasses.replace(self.counts, **counts)  # type: ignore[arg-type]
        if self._clock() - self._last >= self._min_interval_s:
            self._emit(EventKind.progress)

    def add(self, **deltas: int) -> None:
        """Add to some counts (see `update`)."""
        if self.listener is None:
            return
        self.update(**{name: getattr(self.counts, name) + n for name, n in deltas.items()})

    def message(self, text: str) -> None:
        if self.listener is None:
            return
        self._emit(EventKind.message, text)

    async def beat(
        self, every_s: float = HEARTBEAT_S, *, poll: Callable[[], Mapping[str, int]] | None = None
    ) -> None:
        """Until cancelled: the counts again whenever the listener has heard nothing for
        `every_s` (a stage where nothing moves for a while still shows it is alive). `poll`,
        if given, is read every `min_interval_s` for counts kept elsewhere (fields of `Counts`,
        e.g. the fetch stage's tally of pages), which then move as if `update`d."""
        if self.listener is None:
            return
        tick = every_s if poll is None else min(every_s, self._min_interval_s)
        while True:
            await asyncio.sleep(tick)
            if poll is not None:
                counts = self.counts
                if moved := {name: n for name, n in poll().items() if getattr(counts, name) != n}:
                    self.update(**moved)
            if self._clock() - self._last >= every_s:
                self._emit(EventKind.progress)


def describe(counts: Counts) -> str:
    """The counts as one line's worth of text; what is not known yet is left out."""
    parts: list[str] = []
    if counts.files:
        parts.append(f"files {counts.files_read}/{counts.files}")
    parts.append(f"claims {counts.claims}")
    if counts.sources:
        parts.append(f"sources {counts.sources_fetched}/{counts.sources} fetched")
    if counts.judge_calls_total:
        parts.append(f"judge calls {counts.judge_calls}/{counts.judge_calls_total}")
    if counts.cost_usd or counts.judge_calls_total:
        parts.append(f"cost ${counts.cost_usd:.4f}")
    return ", ".join(parts)


def progress_line(event: ProgressEvent) -> str:
    """One log line for an event: `citecheck: [fetch + checks] files 3/3, claims 40, … (12 s)`."""
    title = STAGE_TITLES[event.stage]
    if event.kind == EventKind.message:
        return event.message
    done = " done:" if event.kind == EventKind.finished else ""
    return f"citecheck: [{title}]{done} {describe(event.counts)} ({event.elapsed_s:.0f} s)"


class LineProgress:
    """A listener that writes plain lines: while a stage runs, at most one every `interval_s`
    (the first once a stage has run that long), always one when it ends, and every message.
    Nothing at a stage's start: a run of small stages prints one line per stage."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval_s: float = LINE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.interval_s = interval_s
        self._clock = clock
        self._last = clock()

    def __call__(self, event: ProgressEvent) -> None:
        now = self._clock()
        if event.kind == EventKind.started:
            self._last = now
        elif event.kind == EventKind.progress:
            if now - self._last >= self.interval_s:
                self._last = now
                self.write(progress_line(event))
        else:
            self._last = now
            self.write(progress_line(event))
