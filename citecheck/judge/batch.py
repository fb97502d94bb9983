"""Batch mode (`judge-mode: batch`, docs/ARCHITECTURE.md, the judge stage): the run's judge
calls go through the provider's batch API — Anthropic's Message Batches, OpenAI's Batch API —
at half the price, in exchange for answers that take minutes to hours. For scheduled audits,
not for pull requests.

`Judge` builds the same requests and reads the same answers as one call at a time; this
dispatcher gathers them instead of sending them:
- every request's worst case is reserved against the cost cap, at the batch price, before
  anything is submitted; a request that does not fit is a `limit` and is not submitted (nor is
  any after it), so the cap holds although nothing is settled until the batch ends;
- the requests of a round are submitted together once every call sequence of the run is
  waiting on one (`Dispatcher.hold` / `arrived` / `join` / `leave`); the claims asked again
  (a quote not on the page, malformed output) make a second, smaller round;
- it polls with progress lines (`progress`) until the batch ends, then settles each request
  on its reported usage; at the run's judge deadline it cancels the batch, and the requests
  that had not run are a `limit` with the deadline's reason.
Requests ask for no prompt cache: a batch runs its requests in no order, so a cache write is
not reliably read back (`pricing.ModelPrice.for_batch`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citecheck.judge.dispatch import CAP_REACHED, Dispatcher, Sent, deadline_reason
from citecheck.judge.ledger import CostLedger, Reservation
from citecheck.judge.providers import Connection, JudgeFailure, Provider
from citecheck.judge.providers.base import BatchResults, BatchStatus, Request
from citecheck.redact import Redactor

# Seconds between polls: soon at first (small batches end in minutes), then every half minute.
POLL_INTERVALS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
# After a cancel at the deadline: how long to wait for the batch to end and yield what ran.
CANCEL_GRACE_S = 60.0
# Below both providers' limits (Anthropic 100,000 requests or 256 MB, OpenAI 50,000 / 200 MB).
MAX_REQUESTS = 10_000
MAX_BYTES = 150 * 1024 * 1024
CANCELED = "judge-batch-canceled"


@dataclass
class _Pending:
    custom_id: str
    request: Request
    reservation: Reservation
    future: asyncio.Future[Sent]


class BatchDispatcher(Dispatcher):
    def __init__(
        self,
        *,
        provider: Provider,
        connection: Callable[[], Connection],
        ledger: CostLedger,
        deadline_at: float,
        deadline_minutes: float,
        redact: Redactor,
        progress: Callable[[str], None] | None = None,
        poll_scale: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._provider = provider
        self._connection = connection
        self._ledger = ledger
        self._deadline_at = deadline_at
        self._deadline_minutes = deadline_minutes
        self._redact = redact
        self._progress = progress or (lambda line: None)
        self._poll_scale = poll_scale  # tests shorten the polls
        self._clock = clock
        self._announced = 0
        self._active = 0
        self._queue: list[_Pending] = []
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches: list[str] = []  # ids of the batches submitted, in order

    # -- who is still to come -------------------------------------------------------------

    def hold(self, sources: int) -> None:
        self._announced += sources

    def arrived(self) -> None:
        self._announced = max(0, self._announced - 1)
        self._maybe_flush()

    def join(self, sequences: int) -> None:
        self._active += sequences

    def leave(self) -> None:
        self._active -= 1
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        # A round is complete when every call sequence still running waits on this queue.
        if self._announced > 0 or not self._queue or len(self._queue) < self._active:
            return
        items, self._queue = self._queue, []
        task = asyncio.get_running_loop().create_task(self._run(items))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def send(self, request: Request, input_bound: int) -> Sent:
        # Reserved now, before anything is submitted: the batch is paid for when it ends.
        reservation = self._ledger.reserve(input_bound, request.max_tokens)
        if reservation is None:
            return Sent(limit=CAP_REACHED)
        future: asyncio.Future[Sent] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(f"c{next(self._ids)}", request, reservation, future))
        self._maybe_flush()
        return await future

    # -- one round ---------------------------------------------------------------------------

    def _chunks(self, items: list[_Pending]) -> list[list[_Pending]]:
        chunks: list[list[_Pending]] = [[]]
        size = 0
        for item in items:
            n = len(json.dumps([item.request.system, item.request.user])) + 2048
            if chunks[-1] and (len(chunks[-1]) >= MAX_REQUESTS or size + n > MAX_BYTES):
                chunks.append([])
                size = 0
            chunks[-1].append(item)
            size += n
        return chunks

    async def _run(self, items: list[_Pending]) -> None:
        try:
            await asyncio.gather(*(self._run_one(chunk) for chunk in self._chunks(items)))
        except BaseException as exc:
            for item in items:
                if not item.future.done():
                    self._ledger.release(item.reservation)
                    item.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    async def _run_one(self, items: list[_Pending]) -> None:
        connection = self._connection()
        started = self._clock()
        try:
            batch = await connection.submit_batch([(item.custom_id, item.request) for item in items])
        except Exception as exc:
            self._fail_all(items, exc)
            return
        self.batches.append(batch.id)
        self._progress(f"citecheck: judge batch {batch.id}: {len(items)} request(s) submitted; polling")
        polls = iter(itertools.chain(POLL_INTERVALS, itertools.repeat(POLL_INTERVALS[-1])))
        canceled = False
        shown = (-1, -1)
        try:
            while not batch.ended:
                wait = next(polls) * self._poll_scale
                left = self._deadline_at - self._clock()
                if not canceled and left <= 0:
                    self._progress(
                        f"citecheck: judge batch {batch.id}: the judge deadline "
                        f"({self._deadline_minutes:g} min) is reached; cancelling it"
                    )
                    batch = await connection.cancel_batch(batch)
                    canceled = True
                    grace_until = self._clock() + CANCEL_GRACE_S
                    continue
                if canceled and self._clock() > grace_until:
                    break
                await asyncio.sleep(max(0.0, min(wait, left) if not canceled else wait))
                batch = await connection.poll_batch(batch)
                if (batch.succeeded, batch.failed) != shown:
                    shown = (batch.succeeded, batch.failed)
                    self._progress(self._line(batch, started))
            results: BatchResults = await connection.batch_results(batch) if batch.ended else {}
        except Exception as exc:
            self._fail_all(items, exc)
            return
        if (batch.succeeded, batch.failed) != shown:
            self._progress(self._line(batch, started))
        latency = int((self._clock() - started) * 1000)
        for item in items:
            self._deliver(item, results.get(item.custom_id), canceled=canceled, latency=latency)

    def _line(self, batch: BatchStatus, started: float) -> str:
        done = batch.succeeded + batch.failed
        elapsed = int(self._clock() - started)
        counts = f"{done}/{batch.total} done ({batch.failed} failed), {elapsed // 60}m{elapsed % 60:02d}s"
        return f"citecheck: judge batch {batch.id}: {batch.state}, {counts}"

    def _deliver(self, item: _Pending, result: object, *, canceled: bool, latency: int) -> None:
        if item.future.done():
            return
        if (isinstance(result, JudgeFailure) and result.code == CANCELED) or (result is None and canceled):
            self._ledger.release(item.reservation)
            why = "the batch was cancelled before this request ran"
            item.future.set_result(
                Sent(limit=deadline_reason(why, self._deadline_minutes), latency_ms=latency)
            )
            return
        if result is None:
            self._ledger.release(item.reservation)
            failure = JudgeFailure(
                "judge-batch-missing", "the batch gave no result for this request", "re-run"
            )
            item.future.set_result(Sent(failure=failure, attempted=True, latency_ms=latency))
            return
        if isinstance(result, JudgeFailure):
            self._ledger.release(item.reservation)
            failure = JudgeFailure(result.code, self._redact(result.message), self._redact(result.hint))
            item.future.set_result(Sent(failure=failure, attempted=True, latency_ms=latency))
            return
        response = result
        charge = self._ledger.settle(
            item.reservation,
            response.input_tokens,  # type: ignore[attr-defined]
            response.output_tokens,  # type: ignore[attr-defined]
            cache_read_tokens=response.cache_read_tokens,  # type: ignore[attr-defined]
            cache_write_tokens=response.cache_write_tokens,  # type: ignore[attr-defined]
        )
        item.future.set_result(Sent(response=response, charge=charge, attempted=True, latency_ms=latency))  # type: ignore[arg-type]

    def _fail_all(self, items: Sequence[_Pending], exc: Exception) -> None:
        failure = self._provider.classify_error(exc)
        if failure is None:
            raise exc  # not an API error: a bug to see
        failure = JudgeFailure(failure.code, self._redact(failure.message), self._redact(failure.hint))
        for item in items:
            if not item.future.done():
                self._ledger.release(item.reservation)
                item.future.set_result(Sent(failure=failure, attempted=True))
