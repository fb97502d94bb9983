"""The judge stage (docs/ARCHITECTURE.md): an LLM decides whether a source supports each
claim that cites it.

One call per source, batching up to `Settings.batch_size` claims that cite it, on the
user's own key, through the provider the run resolved (`resolve.py`; one module per
provider in `providers/`).

Guarantees the rest of the pipeline relies on:
- the cost cap is never exceeded (`ledger.py`): a call whose worst case does not fit is not
  made, and it and every later call give `JudgeResult(limit=True, error="cost cap reached")`.
- a "supported" verdict is accepted only when its evidence quote is found verbatim (case-
  and whitespace-tolerant) in the source text (`quotes.py`); otherwise the claim is asked
  again once, then reported with `error="evidence quote not found in source"`.
- the source text and the claims (PR content) are fenced as data in the prompt (`prompt.py`).
- verdicts are cached by claim text + source text hash + model + PROMPT_VERSION, so a
  re-run on unchanged documents makes no call (and does not import the provider's SDK).
- when every call of the run failed, `failure_error()` is the run's exit-2 error.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from pydantic import ValidationError

from citecheck.cache import DiskCache, digest
from citecheck.config import Settings
from citecheck.errors import JudgeFailedError
from citecheck.judge.ledger import Charge, CostLedger, input_upper_bound
from citecheck.judge.prompt import PROMPT_VERSION, Verdict, build_excerpt, build_prompt, parse_verdicts
from citecheck.judge.providers import PROVIDERS, Connection, JudgeFailure
from citecheck.judge.quotes import locate_quote
from citecheck.judge.resolve import JudgeConfig
from citecheck.models import Claim, FetchedSource, JudgeResult, Passage

VERDICT_NAMESPACE = "verdicts"
CAP_REACHED = "cost cap reached"
QUOTE_NOT_FOUND = "evidence quote not found in source"


class JudgeItem(NamedTuple):
    """A claim to judge against a source: the passages it is shown, and `hints`, what the
    deterministic checks did not find on the page (`citecheck.checks.judge_hints`)."""

    claim: Claim
    passages: list[Passage]
    hints: Sequence[str] = ()


@dataclass
class _Outcome:
    """What one call gave for its claims (keyed by claim id 1..n)."""

    verdicts: dict[int, Verdict] = field(default_factory=dict)
    failure: str | None = None  # the whole call gave nothing usable
    retryable: bool = False  # output malformed: worth asking again
    limit: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: int = 0
    excerpt: str = ""  # the source text the judge was shown


class Judge:
    """The judge for one run: provider connection, cost ledger, verdict cache, call counters."""

    def __init__(self, config: JudgeConfig, settings: Settings, cache: DiskCache | None = None) -> None:
        self.config = config
        self.settings = settings
        self.cache = cache
        self._provider = PROVIDERS[config.provider]
        self._ledger = CostLedger(settings.max_cost_usd, config.price)
        self._calls_made = 0
        self._calls_failed = 0
        self.last_failure: JudgeFailure | None = None
        self._connection: Connection | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._semaphore_loop: asyncio.AbstractEventLoop | None = None

    # -- public counters ---------------------------------------------------------------

    @property
    def calls_made(self) -> int:
        """API calls attempted (cache hits and calls stopped by the cap are not calls)."""
        return self._calls_made

    @property
    def calls_failed(self) -> int:
        """Calls that gave no usable verdict: API error after retries, refusal, malformed output."""
        return self._calls_failed

    @property
    def total_cost_usd(self) -> float:
        return self._ledger.spent_usd

    def failure_error(self) -> JudgeFailedError | None:
        """The exit-2 error when every call failed (none succeeded), else None."""
        if self._calls_made == 0 or self._calls_failed < self._calls_made:
            return None
        last = self.last_failure
        return JudgeFailedError(
            f"every judge call failed ({self._calls_failed} of {self._calls_made})"
            + (f"; last error: {last.message} [{last.code}]" if last else ""),
            last.hint if last else "check the judge settings and re-run",
        )

    async def aclose(self) -> None:
        if self._connection is not None:
            await self._connection.aclose()

    # -- cache -------------------------------------------------------------------------------

    def _cache_key(self, claim_text: str, text_hash: str) -> str:
        return "\x00".join((PROMPT_VERSION, self.config.provider, self.config.model, text_hash, claim_text))

    # -- the stage ------------------------------------------------------------------------

    async def judge_source(
        self, source: FetchedSource, items: Sequence[tuple[Claim, list[Passage]] | JudgeItem]
    ) -> list[JudgeResult]:
        """One JudgeResult per item, in order, for claims citing `source` (fetched, with text);
        an item is a `JudgeItem` or a (claim, passages) pair."""
        items = [JudgeItem(*item) for item in items]
        results: list[JudgeResult | None] = [None] * len(items)
        text_hash = source.text_hash or digest(source.text)
        # Identical claim texts against one source are judged once.
        groups: dict[str, list[int]] = {}
        for i, (claim, *_) in enumerate(items):
            key = self._cache_key(claim.text, text_hash)
            hit = self.cache.get(VERDICT_NAMESPACE, key) if self.cache else None
            if hit is not None:
                try:
                    results[i] = JudgeResult.model_validate(hit).model_copy(
                        update={
                            "cached": True,
                            "cost_usd": 0.0,
                            "input_tokens": 0,
                            "output_tokens": 0,
                            "latency_ms": 0,
                        }
                    )
                    continue
                except ValidationError:
                    pass  # a stale entry from another version: judge again
            groups.setdefault(claim.text, []).append(i)

        firsts = [idxs[0] for idxs in groups.values()]
        size = self.settings.batch_size
        batches = [firsts[k : k + size] for k in range(0, len(firsts), size)]
        judged = await asyncio.gather(*(self._judge_batch(source, items, batch) for batch in batches))
        for batch, batch_results in zip(batches, judged, strict=True):
            for i, result in zip(batch, batch_results, strict=True):
                for j in groups[items[i][0].text]:
                    # A repeat of the claim shares the verdict but cost nothing more.
                    free = {"cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0}
                    results[j] = result if j == i else result.model_copy(update=free)
                if self.cache and result.error is None and result.supported is not None:
                    key = self._cache_key(items[i][0].text, text_hash)
                    self.cache.put(VERDICT_NAMESPACE, key, result.model_dump(mode="json"))
        return [
            r if r is not None else JudgeResult(model=self.config.model, error="not judged") for r in results
        ]

    async def _judge_batch(
        self, source: FetchedSource, items: list[JudgeItem], batch: list[int]
    ) -> list[JudgeResult]:
        model = self.config.model
        spent: dict[int, list[int | float]] = {i: [0, 0, 0.0, 0] for i in batch}  # in, out, cost, ms
        accepted: dict[int, JudgeResult] = {}
        todo = list(batch)
        last: dict[int, JudgeResult] = {}
        for attempt in range(2):
            outcome = await self._call(source, [items[i] for i in todo], retry=attempt > 0)
            n = len(todo)
            for pos, i in enumerate(todo):
                # Each claim bears an equal share of the call's tokens and cost.
                spent[i][0] += outcome.input_tokens // n + (1 if pos < outcome.input_tokens % n else 0)
                spent[i][1] += outcome.output_tokens // n + (1 if pos < outcome.output_tokens % n else 0)
                spent[i][2] += outcome.cost_usd / n
                spent[i][3] += outcome.latency_ms
            retry: list[int] = []
            for pos, i in enumerate(todo, 1):
                if outcome.limit:
                    last[i] = JudgeResult(model=model, limit=True, error=CAP_REACHED)
                    continue
                if outcome.failure is not None:
                    last[i] = JudgeResult(model=model, error=outcome.failure)
                    if outcome.retryable:
                        retry.append(i)
                    continue
                verdict = outcome.verdicts.get(pos)
                if verdict is None:
                    last[i] = JudgeResult(model=model, error="the judge gave no verdict for this claim")
                    retry.append(i)
                    continue
                result = self._accept(verdict, source.text, outcome.excerpt)
                if result.error is not None:
                    retry.append(i)
                    last[i] = result
                else:
                    accepted[i] = result
            if not retry:
                break
            todo = retry
        out: list[JudgeResult] = []
        for i in batch:
            result = accepted.get(i) or last[i]
            tin, tout, cost, ms = spent[i]
            out.append(
                result.model_copy(
                    update={
                        "input_tokens": int(tin),
                        "output_tokens": int(tout),
                        "cost_usd": round(float(cost), 8),
                        "latency_ms": int(ms),
                    }
                )
            )
        return out

    def _accept(self, verdict: Verdict, source_text: str, excerpt: str) -> JudgeResult:
        model = self.config.model
        confidence = min(1.0, max(0.0, verdict.confidence))
        evidence = locate_quote(verdict.evidence, source_text, excerpt)
        if verdict.supported and evidence is None:
            return JudgeResult(
                model=model, rationale=verdict.rationale, confidence=confidence, error=QUOTE_NOT_FOUND
            )
        return JudgeResult(
            model=model,
            supported=verdict.supported,
            confidence=confidence,
            rationale=verdict.rationale.strip() or None,
            evidence=evidence,
        )

    # -- one call ----------------------------------------------------------------------------

    def _max_tokens(self, n_claims: int) -> int:
        # ~350 output tokens cover one verdict (rationale + a quote of ≤300 characters).
        budget = 200 + 350 * n_claims
        return budget + (4096 if self.config.reasoning_model else 0)

    async def _call(self, source: FetchedSource, claims: list[JudgeItem], *, retry: bool) -> _Outcome:
        excerpt = build_excerpt(source.text, [item.passages for item in claims], self.settings.evidence_chars)
        hints = [item.hints for item in claims]
        system, user = build_prompt(
            source, excerpt, [item.claim.text for item in claims], retry=retry, hints=hints
        )
        max_tokens = self._max_tokens(len(claims))
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore_loop is not loop:
            # asyncio primitives belong to one event loop; a second asyncio.run needs new ones.
            self._semaphore = asyncio.Semaphore(self.config.max_concurrency)
            self._semaphore_loop = loop
        if self._connection is None:
            # Imports the provider's SDK (seconds): only once a call is due, and outside the
            # timed call.
            self._connection = self._provider.connect(self.config)
        async with self._semaphore:
            # Reserve only once a call slot is free, so queued calls hold no budget.
            reservation = self._ledger.reserve(input_upper_bound(system, user), max_tokens)
            if reservation is None:
                return _Outcome(limit=True)
            charge: Charge | None = None
            try:
                self._calls_made += 1
                started = time.monotonic()
                try:
                    response = await asyncio.wait_for(
                        self._connection.send(system, user, max_tokens), timeout=self.config.call_deadline_s
                    )
                except Exception as exc:
                    failure = self._provider.classify_error(exc)
                    if failure is None:
                        raise  # not an API error: a bug to see, not a verdict to miss
                    self._calls_failed += 1
                    self.last_failure = failure
                    return _Outcome(failure=str(failure), latency_ms=int((time.monotonic() - started) * 1000))
                latency = int((time.monotonic() - started) * 1000)
                charge = self._ledger.settle(reservation, response.input_tokens, response.output_tokens)
            finally:
                if charge is None:
                    self._ledger.release(reservation)
        outcome = _Outcome(
            input_tokens=charge.input_tokens,
            output_tokens=charge.output_tokens,
            cost_usd=charge.cost_usd,
            latency_ms=latency,
            excerpt=excerpt,
        )
        if response.refusal is not None:
            outcome.failure = f"the judge refused to answer: {response.refusal[:200]}".rstrip(": ")
        else:
            try:
                outcome.verdicts = parse_verdicts(response.payload, len(claims))
            except (ValueError, ValidationError, TypeError):
                cause = (
                    "output cut off at max_tokens"
                    if response.truncated
                    else "output is not valid verdict JSON"
                )
                outcome.failure = f"the judge returned malformed output ({cause})"
                outcome.retryable = True
        if outcome.failure is not None:
            self._calls_failed += 1
            self.last_failure = JudgeFailure(
                "judge-bad-output", outcome.failure, "re-run, or try another --model"
            )
        return outcome
