"""Timing helpers the benchmarks share (not a bench)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_cpu_ms(fn: Callable[[], object], rounds: int) -> float:
    """The median CPU time (process time) of `rounds` calls of `fn`, in milliseconds: CPU, not
    wall time, so other jobs on the shared machine do not count."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)
