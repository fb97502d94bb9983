"""How fast the judge calls (docs/ARCHITECTURE.md, the judge stage): as fast as the account
allows, and no faster.

The accounts users bring differ by orders of magnitude (a new one allows tens of requests a
minute, an established one thousands), and both providers say what is left in every
response's rate-limit headers (`providers.base.RateLimits`). The `Pacer` gates every call:

- **Rate**: for each limit the headers state (requests, tokens, input and output tokens) it
  keeps a mirror of the provider's token bucket: the level the last response reported, less
  what calls sent since have used, plus what has refilled since (at the rate the headers
  imply: what was used over the time until the bucket is full again; the limit per minute
  until they tell). A call starts only when every bucket holds what it will use (one request;
  its input tokens, estimated; its `max_tokens` of output, which is what the providers count
  while a call runs).
- **Concurrency** (AIMD): at most `window` calls in flight. Without headers the window starts
  small (`START`) and grows while calls succeed — by one per success (doubling each round of
  calls) up to a threshold, then by one per round — up to the ceiling (`judge-concurrency`).
  Once the headers state a request limit the rate is paced by them and the window opens to
  the ceiling. A throttle (429, an overload) or a timed-out call halves the window, once per
  round of calls: a server that states no limits (a local one) says it is swamped only so.
- **Back-off**: a throttle pauses every call for the wait the server asked for
  (`Retry-After`), or an exponential back-off without one (`backoff_s`): the limit is the
  account's, shared by all calls.
- **Deadline**: no call starts, and no wait is begun, past the run's judge deadline; a wait
  that would end after it ends the call at once (`DeadlineReached`), so a run that cannot
  finish in time says so instead of sleeping into its job's timeout.

Measured with bench/judge_scale.py against the stand-in (1.5 s a call): an account limited
to 60 requests a minute is used at ≥ 90 % of its rate with no 429; an unlimited one reaches
the ceiling within a few rounds.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import random
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from citecheck.judge.providers.base import BucketReading, RateLimits

START = 4  # calls in flight before the account has said anything
# Kept in the request bucket beyond a call's own request: what the mirror cannot see (a
# reading rounded down, a call of another process), so a call goes only when the bucket holds
# one more than it needs. It shifts when calls start, not how many a minute: the account's rate
# is used as fully.
SPARE = {"requests": 1.0}
PER_MINUTE_S = 60.0  # both providers state their limits per minute
MAX_BACKOFF_S = 60.0


def backoff_s(attempt: int, rng: Callable[[], float] = random.random) -> float:
    """The wait before try `attempt` + 1 when the server named none: 1 s doubling, at most a
    minute, less up to a quarter at random so that calls do not come back in step."""
    return min(MAX_BACKOFF_S, 2.0 ** max(0, attempt - 1)) * (1 - 0.25 * rng())


class DeadlineReached(Exception):
    """The call cannot start (or wait) before the run's judge deadline; the message says why."""


@dataclass
class _Bucket:
    """The mirror of one of the provider's buckets."""

    limit: float
    level: float
    rate: float  # refill per second
    stamp: float  # when `level` was true

    def at(self, now: float) -> float:
        return min(self.limit, self.level + self.rate * max(0.0, now - self.stamp))

    def take(self, amount: float, now: float) -> None:
        self.level, self.stamp = self.at(now) - amount, now

    def wait(self, amount: float, now: float) -> float:
        need = min(amount, self.limit)  # a call larger than the bucket goes when it is full
        short = need - self.at(now)
        if short <= 0:
            return 0.0
        return short / self.rate if self.rate > 0 else math.inf


@dataclass
class Ticket:
    """A call's place among those in flight: when it started (in order: `seq`), what it uses."""

    seq: int
    started: float
    cost: Mapping[str, float] = field(default_factory=dict)
    wall: float = 0.0  # `started` on the wall clock (an absolute reset time is on it)
    # Other calls were in flight when it was sent: they may reach the provider after it, so its
    # reading may be older than one already seen.
    concurrent: bool = False


@dataclass
class PaceStats:
    """What pacing did in a run (for the run's notes and the benchmark)."""

    calls: int = 0
    throttled: int = 0  # 429s and overloads
    waited_s: float = 0.0  # time calls spent waiting for the limits, summed
    max_window: float = 0.0
    paced_by_headers: bool = False


class Pacer:
    """Gates the judge calls of one run (one event loop at a time)."""

    def __init__(
        self,
        ceiling: int,
        *,
        start: int = START,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.ceiling = max(1, ceiling)
        self.window = float(min(start, self.ceiling))
        self._threshold = float(self.ceiling)
        self._clock = clock
        self._wall = wall
        self._in_flight = 0
        self._paused_until = 0.0
        self._last_cut = -math.inf
        self._cut_once = False
        self._buckets: dict[str, _Bucket] = {}
        self._seq = itertools.count()
        # Calls sent, from the oldest still in flight on: a reading taken when a call arrived
        # has not seen the calls sent after it.
        self._sent: deque[Ticket] = deque()
        self._flying: set[int] = set()
        self._waiters: list[asyncio.Future[None]] = []
        self.stats = PaceStats(max_window=self.window)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _delay(self, cost: Mapping[str, float], now: float) -> float:
        delay = self._paused_until - now
        for name, bucket in self._buckets.items():
            if name in cost:
                delay = max(delay, bucket.wait(cost[name] + SPARE.get(name, 0.0), now))
        return max(0.0, delay)

    async def acquire(self, cost: Mapping[str, float], deadline: float) -> Ticket:
        """A place for one call using `cost` (bucket → amount) once the limits allow it.
        Raises DeadlineReached when that would be after `deadline`."""
        waited_from = self._clock()
        while True:
            now = self._clock()
            delay = self._delay(cost, now)
            if delay <= 0 and self._in_flight < int(self.window):
                self._in_flight += 1
                ticket = Ticket(
                    next(self._seq), now, dict(cost), self._wall(), concurrent=self._in_flight > 1
                )
                for name, bucket in self._buckets.items():
                    if name in cost:
                        bucket.take(cost[name], now)
                self._sent.append(ticket)
                self._flying.add(ticket.seq)
                self.stats.calls += 1
                self.stats.waited_s += now - waited_from
                return ticket
            if now >= deadline or (delay > 0 and now + delay > deadline):
                why = (
                    "the provider's rate limit would let the next call start only after it"
                    if delay > 0 and not math.isinf(delay)
                    else "calls were still waiting for the provider's rate limit"
                )
                raise DeadlineReached(why)
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            timeout = min(delay, deadline - now) if delay > 0 else deadline - now
            try:
                async with asyncio.timeout(max(0.0, timeout)):
                    await waiter
            except TimeoutError:
                pass
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def release(
        self,
        ticket: Ticket,
        *,
        ok: bool = False,
        throttled: bool = False,
        congested: bool = False,
        unused: bool = False,
        limits: RateLimits | None = None,
    ) -> None:
        """The call is over: `ok` (an answer), `throttled` (a 429 or an overload), `congested`
        (the server is swamped: a throttle, or a timeout), or `unused` (never sent: its share
        of the buckets is given back)."""
        self._in_flight -= 1
        now = self._clock()
        if unused:  # never sent: it used nothing
            for name, amount in ticket.cost.items():
                bucket = self._buckets.get(name)
                if bucket is not None:
                    bucket.level = min(bucket.limit, bucket.level + amount)
            if ticket in self._sent:
                self._sent.remove(ticket)
        if limits:
            self.observe(limits, ticket, now)
        self._flying.discard(ticket.seq)
        oldest = min(self._flying, default=math.inf)
        while self._sent and self._sent[0].seq < oldest:
            self._sent.popleft()
        if ok:
            self._grow()
        if throttled:
            self.stats.throttled += 1
        if (throttled or congested) and ticket.started > self._last_cut:  # once per round of calls
            self._threshold = max(1.0, self.window / 2)
            self.window = self._threshold
            self._last_cut = now
            self._cut_once = True
        self._wake()

    def pause(self, seconds: float) -> None:
        """Hold every call back `seconds` from now (a throttle's Retry-After or back-off)."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)
        self._wake()

    def _grow(self) -> None:
        if self.window < self._threshold:
            self.window += 1.0
        else:
            self.window += 1.0 / self.window
        self.window = min(float(self.ceiling), self.window)
        self.stats.max_window = max(self.stats.max_window, self.window)

    def observe(self, limits: RateLimits, ticket: Ticket, now: float | None = None) -> None:
        """Re-align the mirrors on what a response's headers say. Its readings were taken when
        the call reached the provider (about `ticket.started`): calls sent since are not in
        them, and the bucket has refilled since."""
        now = self._clock() if now is None else now
        for name, reading in limits.items():
            self._observe(name, reading, ticket, now)
        if "requests" in limits and not self._cut_once:
            # The account's request rate is paced by the headers: no need to probe for it.
            self.window = float(self.ceiling)
            self.stats.max_window = max(self.stats.max_window, self.window)
        self.stats.paced_by_headers = self.stats.paced_by_headers or bool(limits)

    def _observe(self, name: str, reading: BucketReading, ticket: Ticket, now: float) -> None:
        if reading.limit <= 0:
            return
        used = reading.limit - reading.remaining
        reset = reading.reset_s
        if reset is None and reading.reset_at is not None:
            reset = reading.reset_at - ticket.wall  # from when the reading was taken
        estimate = None
        # The rate the reading implies: what was used over the time until the bucket is full
        # again. `remaining` is a whole number (rounded down), so `used` is up to one too high:
        # trusted only once it is large enough for that not to matter, and taken half a unit
        # lower.
        if reset is not None and reset > 0 and used >= max(2.0, reading.limit / 4):
            estimate = (used - 0.5) / reset
        bucket = self._buckets.get(name)
        first = bucket is None
        if bucket is None:
            rate = estimate or reading.limit / PER_MINUTE_S
            bucket = self._buckets[name] = _Bucket(reading.limit, reading.remaining, rate, now)
        elif estimate is not None:
            bucket.rate = (bucket.rate + estimate) / 2  # smooths the headers' rounding
        # Not in the reading: the calls sent after this one, and those sent before it that are
        # still in flight — calls let go together may reach the provider in another order, so the
        # first answer can be the last call's, whose reading misses the three sent just before it
        # (the mirror then let two calls too many go: two 429s).
        since = sum(
            t.cost.get(name, 0.0)
            for t in self._sent
            if t.seq > ticket.seq or (t.seq < ticket.seq and t.seq in self._flying)
        )
        bucket.limit = reading.limit
        refilled = bucket.rate * max(0.0, now - ticket.started)
        level = min(reading.limit, reading.remaining + refilled) - since
        if ticket.concurrent and not first:
            # a call sent beside others may have reached the provider before calls whose answers
            # were already read: its reading can only say the bucket holds less than thought
            level = min(level, bucket.at(now))
        bucket.level = level
        bucket.stamp = now

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
