"""The judge stage (docs/ARCHITECTURE.md): an LLM decides whether a source supports each
claim that cites it.

One call per source, batching up to `Settings.batch_size` claims that cite it, on the
user's own key, through the provider the run resolved (`resolve.py`; one module per
provider in `providers/`).

Guarantees the rest of the pipeline relies on:
- the cost cap is never exceeded (`ledger.py`): a call whose worst case does not fit is not
  made, and it and every later call give `JudgeResult(limit=True, error="cost cap reached")`.
- every result says what it is (`JudgeResult.outcome`): an accepted verdict, a doubt
  (`unsure`), an error (refusal, API error, malformed output), or the cost cap (`limit`);
  `citecheck.policy.judge_verdict` turns it into the claim's verdict and cause.
- a "supported" verdict is accepted only when its evidence quote carries weight
  (`quotes.weigh_evidence`: on the page on word boundaries, a few words at least, about the
  claim, not instructions to a model); otherwise the claim is asked again once, then it is
  `unsure` with the reason.
- an accepted verdict given with less confidence than `Settings.min_confidence`, or a
  "supported" whose rationale says the opposite, is `unsure` too (`policy.judge_doubt`): the
  judge abstains rather than guesses. Doubts are never retried.
- an output with two verdicts for one claim id is malformed (`prompt.parse_verdicts`):
  asked again once, like any malformed output, then an error.
- the source text and the claims (PR content) are fenced as data in the prompt (`prompt.py`).
- verdicts are cached by claim text + source text hash + model + PROMPT_VERSION, so a
  re-run on unchanged documents makes no call (and does not import the provider's SDK).
  What is cached is the accepted verdict before the doubt rules; a cached verdict is weighed
  again on the page and judged by the run's own `min_confidence`, so an entry that no
  longer holds up is judged again rather than trusted (and rejected: `DiskCache.reject`).
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
from citecheck.judge.prompt import (
    PROMPT_VERSION,
    MalformedVerdicts,
    Verdict,
    build_excerpt,
    build_prompt,
    parse_verdicts,
)
from citecheck.judge.providers import PROVIDERS, Connection, JudgeFailure
from citecheck.judge.quotes import shown_evidence, weigh_evidence
from citecheck.judge.resolve import JudgeConfig
from citecheck.models import Claim, FetchedSource, JudgeOutcome, JudgeResult, Passage
from citecheck.policy import judge_doubt
from citecheck.redact import Redactor

VERDICT_NAMESPACE = "verdicts"
CAP_REACHED = "cost cap reached"
NO_VERDICT = "the judge gave no verdict for this claim"


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
        # A provider's error may echo the request's key: its text is redacted where it is made.
        self._redact = Redactor([config.api_key.get_secret_value()])
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
            cached = self._from_cache(hit, claim.text, source.text) if hit is not None else None
            if cached is not None:
                results[i] = cached
                continue
            if hit is not None and self.cache is not None:  # counted in the report, and deleted
                self.cache.reject(VERDICT_NAMESPACE, key, "a verdict that does not hold up on the page")
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
                if self.cache and result.outcome == JudgeOutcome.verdict:
                    key = self._cache_key(items[i][0].text, text_hash)
                    self.cache.put(VERDICT_NAMESPACE, key, result.model_dump(mode="json"))
        return [
            self._with_doubts(r)
            if r is not None
            else JudgeResult(model=self.config.model, error="not judged", outcome=JudgeOutcome.error)
            for r in results
        ]

    def _from_cache(self, hit: object, claim_text: str, source_text: str) -> JudgeResult | None:
        """A cached verdict, weighed again on the page (None: judge the claim again)."""
        try:
            entry = JudgeResult.model_validate(hit)
        except ValidationError:
            return None  # a stale entry from another version
        if entry.supported is None:
            return None
        verdict = Verdict(
            id=1,
            supported=entry.supported,
            confidence=entry.confidence if entry.confidence is not None else 0.0,
            rationale=entry.rationale or "",
            evidence=entry.evidence or "",
        )
        again = self._accept(verdict, claim_text, source_text, "")
        if again.outcome != JudgeOutcome.verdict:
            return None
        free = {"cached": True, "cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0, "latency_ms": 0}
        return again.model_copy(update=free)

    def _with_doubts(self, result: JudgeResult) -> JudgeResult:
        """An accepted verdict, or `unsure` when the judge's own answer shows doubt."""
        if result.outcome != JudgeOutcome.verdict or result.supported is None:
            return result
        doubt = judge_doubt(
            result.supported, result.confidence or 0.0, result.rationale or "", self.settings.min_confidence
        )
        if doubt is None:
            return result
        return result.model_copy(update={"supported": None, "outcome": JudgeOutcome.unsure, "error": doubt})

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
                    last[i] = JudgeResult(
                        model=model, limit=True, error=CAP_REACHED, outcome=JudgeOutcome.limit
                    )
                    continue
                if outcome.failure is not None:
                    last[i] = JudgeResult(model=model, error=outcome.failure, outcome=JudgeOutcome.error)
                    if outcome.retryable:
                        retry.append(i)
                    continue
                verdict = outcome.verdicts.get(pos)
                if verdict is None:
                    last[i] = JudgeResult(model=model, error=NO_VERDICT, outcome=JudgeOutcome.error)
                    retry.append(i)
                    continue
                result = self._accept(verdict, items[i][0].text, source.text, outcome.excerpt)
                if result.outcome != JudgeOutcome.verdict:
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

    def _accept(self, verdict: Verdict, claim_text: str, source_text: str, excerpt: str) -> JudgeResult:
        """The verdict as a result, if its evidence holds up (`quotes.py`); else `unsure`
        with the reason (the caller asks again once). Doubt rules come later
        (`_with_doubts`), so that what is cached is the judge's answer."""
        model = self.config.model
        confidence = min(1.0, max(0.0, verdict.confidence))
        rationale = verdict.rationale.strip() or None
        if verdict.supported:
            evidence, problem = weigh_evidence(verdict.evidence, claim_text, source_text, excerpt)
            if problem is not None:
                return JudgeResult(
                    model=model,
                    rationale=rationale,
                    confidence=confidence,
                    error=problem,
                    outcome=JudgeOutcome.unsure,
                )
        else:
            evidence = shown_evidence(verdict.evidence, source_text, excerpt)
        return JudgeResult(
            model=model,
            supported=verdict.supported,
            confidence=confidence,
            rationale=rationale,
            evidence=evidence,
            outcome=JudgeOutcome.verdict,
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
        user = self._redact.secrets(user)  # no secret of the run reaches a model
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
                    failure = JudgeFailure(
                        failure.code, self._redact(failure.message), self._redact(failure.hint)
                    )
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
            except MalformedVerdicts as exc:
                outcome.failure = f"the judge returned malformed output ({exc})"
                outcome.retryable = True
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
