"""The CLI's progress display (docs/ARCHITECTURE.md, "Progress"): a bar on a terminal, plain
lines elsewhere.

- standard error a terminal (and `TERM` not `dumb`): a `rich` progress bar there, a row per
  stage (files read, sources fetched, judge calls, each of its total, with the claims found
  and the cost so far), erased when the run ends, so the report follows on a clean screen;
- otherwise (a pipe, a file, CI, a dumb terminal): the same events as plain lines
  (`citecheck.progress.LineProgress`: one every few seconds of a long stage, one at each
  stage's end, and batch mode's polls), so a long run in CI is never silent;
- `--no-progress` or `CITECHECK_PROGRESS=0` turns either off (`--progress` turns it back on over
  the variable). `NO_COLOR` takes the bar's colours away (rich honours it), not the bar.
Standard output is never written to: it carries the report (`--format json` stays pure JSON).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, TextIO

from citecheck.progress import STAGE_TITLES, EventKind, LineProgress, ProgressEvent, ProgressListener, Stage

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

ENV = "CITECHECK_PROGRESS"
_OFF = frozenset({"0", "false", "no", "off"})
# Redraws a second: enough for a moving bar, little enough to take nothing from the run's core.
REFRESH_PER_SECOND = 4


class Display(StrEnum):
    bar = "bar"
    lines = "lines"
    off = "off"


def choose_display(flag: bool | None, stream: TextIO, environ: Mapping[str, str]) -> Display:
    """How to show progress on `stream`: `flag` is `--progress` (True) / `--no-progress`
    (False) / neither (None); with neither, `CITECHECK_PROGRESS=0` turns it off."""
    off = flag is False or (flag is None and environ.get(ENV, "").strip().lower() in _OFF)
    if off:
        return Display.off
    terminal = stream.isatty() and environ.get("TERM", "") != "dumb"
    return Display.bar if terminal else Display.lines


class BarProgress:
    """A listener drawing the run as a `rich` progress bar on `stream`; started at the first
    event (its imports then overlap the run's start), stopped by `close`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._bar: Progress | None = None
        self._rows: dict[Stage, TaskID] = {}

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<14}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}", markup=False),
            TimeElapsedColumn(),
            console=Console(file=self._stream),
            refresh_per_second=REFRESH_PER_SECOND,
            transient=True,
            redirect_stdout=False,  # standard output is the report's alone
        )
        bar.start()
        self._bar = bar
        return bar

    def __call__(self, event: ProgressEvent) -> None:
        bar = self._bar or self._start()
        if event.kind == EventKind.message:
            bar.console.print(event.message, markup=False, highlight=False)
            return
        done, total = _measure(event)
        if event.kind == EventKind.finished:
            done = total = max(done, total, 1)
        row = self._rows.get(event.stage)
        if row is None:
            title = STAGE_TITLES[event.stage]
            self._rows[event.stage] = bar.add_task(
                title, completed=done, total=total or None, info=_info(event)
            )
        else:
            bar.update(row, completed=done, total=total or None, info=_info(event))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _measure(event: ProgressEvent) -> tuple[int, int]:
    """What a stage's row counts: (done, total); a total of 0 is not known."""
    c = event.counts
    if event.stage == Stage.extract:
        return c.files_read, c.files
    if event.stage == Stage.fetch:
        return c.sources_fetched, c.sources
    if event.stage == Stage.judge:
        return c.judge_calls, c.judge_calls_total
    return 0, 0


def _info(event: ProgressEvent) -> str:
    c = event.counts
    parts = [f"{c.claims} claims"]
    if event.stage != Stage.judge and c.judge_calls_total:
        parts.append(f"judge {c.judge_calls}/{c.judge_calls_total}")
    if c.cost_usd or c.judge_calls_total:
        parts.append(f"${c.cost_usd:.4f}")
    return " · ".join(parts)


@contextlib.contextmanager
def progress_display(
    flag: bool | None, stream: TextIO, environ: Mapping[str, str]
) -> Iterator[ProgressListener | None]:
    """The listener to give the run (None: no progress), cleaned up when the block ends."""
    display = choose_display(flag, stream, environ)
    if display == Display.off:
        yield None
    elif display == Display.lines:

        def write(line: str) -> None:
            stream.write(line + "\n")
            stream.flush()

        yield LineProgress(write)
    else:
        bar = BarProgress(stream)
        try:
            yield bar
        finally:
            bar.close()
