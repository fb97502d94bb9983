"""How a judge call reaches the provider (docs/ARCHITECTURE.md, the judge stage): one at a
time through the Messages / Chat Completions API (`Interactive`, here), or gathered into the
provider's batch API (`citecheck.judge.batch`). `Judge` builds the request and reads the
answer the same way for both; a dispatcher reserves its cost, sends it, and settles it.

`Interactive` sends each call when the `Pacer` lets it (the account's rate limits, the
concurrency window, the run's deadline), and tries again itself, without the SDK's retries:
- a throttle (429, 503, 529 overloaded) is waited out — the server's Retry-After, or an
  exponential back-off — for as long as the run's judge deadline allows, never given up on
  before: a rate limit costs time, not verdicts;
- a transient failure (a timeout, a dropped connection, another 5xx, 408, 409) is tried
  `JudgeConfig.max_retries` more times, like the SDK would;
- anything else is the call's failure.
A call that cannot be made before the deadline is a `limit` (`DEADLINE`), as one past the
cost cap is: the run's own budgets, not the judge's failures, left it unchecked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from citecheck.judge.ledger import Charge, CostLedger, Reservation
from citecheck.judge.pacing import DeadlineReached, Pacer, backoff_s
from citecheck.judge.pricing import ModelPrice, likely_tokens
from citecheck.judge.providers import Connection, JudgeFailure, Provider, Response
from citecheck.judge.providers.base import Request
from citecheck.redact import Redactor

CAP_REACHED = "cost cap reached"
# How the reason of a claim the judge deadline stopped begins (`Judge.deadline_stops` counts them).
DEADLINE = "judge deadline reached"


@dataclass
class Sent:
    """What became of one call: an answer (with what it cost), a failure, or a limit."""

    response: Response | None = None
    charge: Charge | None = None
    failure: JudgeFailure | None = None
    limit: str | None = None  # why the call was not made: the cost cap or the deadline
    attempted: bool = False  # a request reached the provider (a call, in the run's counts)
    latency_ms: int = 0


def deadline_reason(why: str, minutes: float) -> str:
    return f"{DEADLINE} ({minutes:g} min, judge-deadline-minutes): {why}"


class Dispatcher:
    """What `Judge` needs of a dispatcher. Batch mode gathers the run's calls; for that it is
    told how many sources are coming (`hold`), when each has come (`arrived`), and how many
    call sequences each runs (`join` / `leave`). One at a time, those are no-ops."""

    def hold(self, sources: int) -> None:
        pass

    def arrived(self) -> None:
        pass

    def join(self, sequences: int) -> None:
        pass

    def leave(self) -> None:
        pass

    async def send(self, request: Request, input_bound: int) -> Sent:
        raise NotImplementedError

    def notes(self) -> list[str]:
        return []


class Interactive(Dispatcher):
    def __init__(
        self,
        *,
        provider: Provider,
        connection: Callable[[], Connection],
        ledger: CostLedger,
        pacer: Pacer,
        deadline_at: float,
        deadline_minutes: float,
        max_retries: int,
        call_deadline_s: float,
        redact: Redactor,
        clock: Callable[[], float] = time.monotonic,
        price: ModelPrice | None = None,
    ) -> None:
        """`price`: what its calls are billed at, when not the ledger's (a batch-mode run's
        calls made one at a time)."""
        self._price = price
        self._provider = provider
        self._connection = connection
        self._ledger = ledger
        self._pacer = pacer
        self._deadline_at = deadline_at
        self._deadline_minutes = deadline_minutes
        self._max_retries = max_retries
        self._call_deadline_s = call_deadline_s
        self._redact = redact
        self._clock = clock

    def _cost(self, request: Request) -> dict[str, float]:
        # What the providers count against their limits while the call runs: one request, its
        # input tokens (estimated), and its whole output budget.
        tokens_in = float(likely_tokens(request.system + request.user))
        out = float(request.max_tokens)
        return {"requests": 1.0, "input-tokens": tokens_in, "output-tokens": out, "tokens": tokens_in + out}

    def _limit(self, why: str) -> str:
        return deadline_reason(why, self._deadline_minutes)

    async def send(self, request: Request, input_bound: int) -> Sent:
        cost = self._cost(request)
        started = self._clock()
        attempted = False
        transient = 0
        throttles = 0

        def elapsed_ms() -> int:
            return int((self._clock() - started) * 1000)

        while True:
            try:
                ticket = await self._pacer.acquire(cost, self._deadline_at)
            except DeadlineReached as exc:
                return Sent(limit=self._limit(str(exc)), attempted=attempted, latency_ms=elapsed_ms())
            reservation: Reservation | None = None
            outcome: dict[str, object] = {"unused": True}
            try:
                # Reserved once the call may start, so calls queued on the limits hold no budget.
                try:
                    async with asyncio.timeout(max(0.0, self._deadline_at - self._clock())):
                        reservation = await self._ledger.reserve_when_room(
                            input_bound, request.max_tokens, cache=request.cache, price=self._price
                        )
                except TimeoutError:
                    return Sent(
                        limit=self._limit("calls in flight held the rest of the cost cap"),
                        attempted=attempted,
                        latency_ms=elapsed_ms(),
                    )
                if reservation is None:
                    return Sent(limit=CAP_REACHED, attempted=attempted, latency_ms=elapsed_ms())
                attempted = True
                try:
                    response = await asyncio.wait_for(
                        self._connection().send(request), timeout=self._call_deadline_s
                    )
                except Exception as exc:
                    self._ledger.release(reservation)
                    reservation = None
                    advice = self._provider.retry_advice(exc)
                    outcome = {
                        "throttled": advice is not None and advice.kind == "throttle",
                        "congested": advice is not None and advice.congested,
                        "limits": advice.limits if advice is not None else None,
                    }
                    if advice is None or (advice.kind == "transient" and transient >= self._max_retries):
                        failure = self._provider.classify_error(exc)
                        if failure is None:
                            raise  # not an API error: a bug to see, not a verdict to miss
                        failure = JudgeFailure(
                            failure.code, self._redact(failure.message), self._redact(failure.hint)
                        )
                        return Sent(failure=failure, attempted=True, latency_ms=elapsed_ms())
                    if advice.kind == "throttle":
                        throttles += 1
                        wait = advice.after_s if advice.after_s is not None else backoff_s(throttles)
                        if self._clock() + wait > self._deadline_at:
                            why = (
                                "rate limited (HTTP 429 or overloaded), and the wait asked for "
                                f"({wait:.0f} s) ends after it"
                            )
                            return Sent(limit=self._limit(why), attempted=True, latency_ms=elapsed_ms())
                        self._pacer.pause(wait)  # the account's limit: every call waits
                        continue
                    transient += 1
                    wait = advice.after_s if advice.after_s is not None else backoff_s(transient) / 2
                    if self._clock() + wait > self._deadline_at:
                        return Sent(
                            limit=self._limit("a failed call could not be tried again in time"),
                            attempted=True,
                            latency_ms=elapsed_ms(),
                        )
                    outcome["sleep"] = wait
                    continue
                charge = self._ledger.settle(
                    reservation,
                    response.input_tokens,
                    response.output_tokens,
                    cache_read_tokens=response.cache_read_tokens,
                    cache_write_tokens=response.cache_write_tokens,
                )
                reservation = None
                outcome = {"ok": True, "limits": response.limits}
                return Sent(response=response, charge=charge, attempted=True, latency_ms=elapsed_ms())
            finally:
                if reservation is not None:  # cancelled in flight: nothing was billed
                    self._ledger.release(reservation)
                sleep = outcome.pop("sleep", None)
                self._pacer.release(ticket, **outcome)  # type: ignore[arg-type]
                if isinstance(sleep, float | int) and sleep > 0:
                    await asyncio.sleep(sleep)

    def notes(self) -> list[str]:
        stats = self._pacer.stats
        if not stats.throttled:
            return []
        return [
            f"the judge provider throttled {stats.throttled} call(s) (HTTP 429 or overloaded); "
            f"citecheck waited as asked and slowed down (at most {self._pacer.ceiling} calls at once, "
            "judge-concurrency)"
        ]
