"""The judge stage (docs/ARCHITECTURE.md): an LLM decides whether a source supports each
claim that cites it.

One call per source, batching up to `Settings.batch_size` claims that cite it, on the
user's own key, through the provider the run resolved (`resolve.py`; one module per
provider in `providers/`). The calls go one at a time, paced to the account's rate limits
(`dispatch.Interactive`, `pacing.py`), or all of the run's in the provider's batch API
(`batch.py`, `judge-mode: batch`, at the batch price). When one source's claims take several
calls and the provider's prompt cache makes it cheaper, they share one excerpt, cached once
(`Judge._shared`).

Guarantees the rest of the pipeline relies on:
- the cost cap is never exceeded (`ledger.py`): a call whose worst case does not fit is not
  made, and it and every later call give `JudgeResult(limit=True, error="cost cap reached")`.
- a rate limit costs time, not verdicts: a 429 or an overload is waited out until the run's
  judge deadline (`Settings.judge_deadline_minutes`); a call the deadline stops is a `limit`
  too, its error beginning "judge deadline reached" (`dispatch.DEADLINE`).
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
- a verdict binds to the claim id it names (`prompt.parse_verdicts`): an answer with a
  verdict for an id not asked, or two for one id, is malformed for every claim of the call;
  an id left out is that claim's gap alone. Never re-assigned by position. From text, only
  the model's one verdict object of its own is read, never one quoted from the page
  (`answer.read_answer`), and a cut-off answer is not read at all. Malformed output is asked
  again once, then it is an error (`judge-error`).
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import ValidationError

from citecheck.cache import DiskCache, digest
from citecheck.config import JudgeMode, Settings
from citecheck.errors import JudgeFailedError
from citecheck.judge.answer import MalformedAnswer
from citecheck.judge.batch import BatchDispatcher
from citecheck.judge.dispatch import CAP_REACHED, DEADLINE, Dispatcher, Interactive, Sent
from citecheck.judge.ledger import CostLedger, input_upper_bound
from citecheck.judge.pacing import Pacer
from citecheck.judge.pricing import likely_tokens
from citecheck.judge.prompt import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    VERDICT_TOOL,
    Verdict,
    build_excerpt,
    build_prompt_parts,
    new_marker,
    parse_verdicts,
)
from citecheck.judge.providers import PROVIDERS, Connection, JudgeFailure
from citecheck.judge.providers.base import Request
from citecheck.judge.quotes import shown_evidence, weigh_evidence
from citecheck.judge.resolve import JudgeConfig
from citecheck.models import Claim, FetchedSource, JudgeOutcome, JudgeResult, Passage
from citecheck.policy import judge_doubt, states_no_fact
from citecheck.redact import Redactor

__all__ = ["CAP_REACHED", "DEADLINE", "Asked", "Judge", "JudgeItem"]

VERDICT_NAMESPACE = "verdicts"
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
    limit: str | None = None  # why the call was not made (the cost cap, the deadline)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: int = 0
    excerpt: str = ""  # the source text the judge was shown


@dataclass
class _Shared:
    """One excerpt and fence marker for every call of a source whose claims span several
    calls: their source part is then the same, a prefix the provider caches once and reads
    back at a tenth of the price (`Judge._shared`). The first call goes alone: a cache entry
    can be read only once the call that writes it has been answered."""

    excerpt: str
    marker: str
    primed: asyncio.Event | None = None  # set once the first call is answered


T = TypeVar("T")


@dataclass
class Asked(Generic[T]):
    """What a call made through `Judge.ask` gave: its parsed answer, or why none."""

    answer: T | None = None
    problem: str | None = None  # a failure, a refusal, malformed output, the cap or the deadline
    limit: bool = False  # the cost cap or the deadline stopped it
    cost_usd: float = 0.0


class Judge:
    """The judge for one run: provider connection, dispatcher (calls one at a time, paced, or
    through the batch API), cost ledger, verdict cache, call counters."""

    def __init__(
        self,
        config: JudgeConfig,
        settings: Settings,
        cache: DiskCache | None = None,
        *,
        redact: Redactor | None = None,
        deadline_at: float | None = None,
        progress: Callable[[str], None] | None = None,
        on_calls: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`redact`: the run's redactor (by default, one of the judge's own key). `deadline_at`
        (on `clock`): when the run's judge deadline falls; by default
        `Settings.judge_deadline_minutes` from now. `progress` gets batch mode's progress lines;
        `on_calls` is told whenever `calls_planned` or `calls_settled` moves (the run's progress)."""
        self.config = config
        self.settings = settings
        self.cache = cache
        self._provider = PROVIDERS[config.provider]
        # A provider's error may echo the request's key: its text is redacted where it is made,
        # and no secret of the run is sent in a prompt.
        self.redact = redact if redact is not None else Redactor([config.api_key.get_secret_value()])
        self.batch_mode = settings.judge_mode == JudgeMode.batch
        price = config.price.for_batch() if self.batch_mode else config.price
        self._ledger = CostLedger(settings.max_cost_usd, price)
        self._calls_made = 0
        self._calls_failed = 0
        self._calls_planned = 0
        self._calls_settled = 0
        self._on_calls = on_calls
        self.deadline_stops = 0  # claims the judge deadline left unjudged
        self.last_failure: JudgeFailure | None = None
        self._connection: Connection | None = None
        self._connecting: asyncio.Future[Connection] | None = None
        self._connecting_loop: asyncio.AbstractEventLoop | None = None
        minutes = settings.deadline_minutes()
        deadline = deadline_at if deadline_at is not None else clock() + minutes * 60
        self.pacer = Pacer(config.max_concurrency, clock=clock)
        interactive = Interactive(
            provider=self._provider,
            connection=self._connect,
            ledger=self._ledger,
            pacer=self.pacer,
            deadline_at=deadline,
            deadline_minutes=minutes,
            max_retries=config.max_retries,
            call_deadline_s=config.call_deadline_s,
            redact=self.redact,
            clock=clock,
            # In batch mode the ledger's price is the batch price; calls made one at a time
            # are billed at the standard one.
            price=config.price if self.batch_mode else None,
        )
        # Calls outside the verdicts (`ask`: the screen's, before any page is fetched) go one
        # at a time in batch mode too, under the same cap, rate limits and deadline.
        self._asking: Dispatcher = interactive
        self._dispatch: Dispatcher = interactive
        if self.batch_mode:
            self._dispatch = BatchDispatcher(
                provider=self._provider,
                connection=self._connect,
                ledger=self._ledger,
                deadline_at=deadline,
                deadline_minutes=minutes,
                redact=self.redact,
                progress=progress,
                poll_scale=config.batch_poll_scale,
                clock=clock,
            )

    def _connect(self) -> Connection:
        if self._connection is None:
            self._connection = self._provider.connect(self.config)
        return self._connection

    async def _connected(self) -> None:
        """The provider's connection, made once a call is due — it imports the SDK (seconds:
        a run whose verdicts are all cached never does) — in a thread, so that the event loop
        goes on downloading and checking pages meanwhile, and outside the timed call."""
        if self._connection is not None:
            return
        loop = asyncio.get_running_loop()
        if self._connecting is None or self._connecting_loop is not loop:
            self._connecting = loop.run_in_executor(None, self._connect)
            self._connecting_loop = loop
        await self._connecting

    def notes(self) -> list[str]:
        """What the run's report should say of the judge's pacing and deadline."""
        notes = self._dispatch.notes()
        if self.deadline_stops:
            notes.append(
                f"{DEADLINE}: {self.deadline_stops} claim(s) were not judged in time (limit); raise "
                "judge-deadline-minutes, or audit with judge-mode: batch"
            )
        return notes

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
    def calls_planned(self) -> int:
        """Calls the judge has to make so far: one per batch of claims not in the cache, one
        more for each set of claims asked again. Grows as sources are handed over."""
        return self._calls_planned

    @property
    def calls_settled(self) -> int:
        """Planned calls that are over: answered, failed, or stopped by the cap or the deadline."""
        return self._calls_settled

    def _calls_moved(self, planned: int = 0, settled: int = 0) -> None:
        self._calls_planned += planned
        self._calls_settled += settled
        if self._on_calls is not None:
            self._on_calls()

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

    # -- a call outside the verdicts ---------------------------------------------------------

    async def ask(self, request: Request, parse: Callable[[Any], T]) -> Asked[T]:
        """One call of another stage (the screen's) on the run's connection: paced to the
        account, under the run's cost cap and judge deadline, counted among the run's calls
        (`calls_made`, `calls_failed`, `failure_error`). `parse` reads the answer's payload and
        raises ValueError (or a pydantic ValidationError) when it cannot be used."""
        # No secret of the run reaches a model.
        request = replace(
            request, source=self.redact.secrets(request.source), claims=self.redact.secrets(request.claims)
        )
        await self._connected()
        self._calls_moved(planned=1)
        try:
            sent = await self._asking.send(
                request, input_upper_bound(request.system, request.user, request.tool)
            )
        finally:
            self._calls_moved(settled=1)
        self._count(sent)
        if sent.limit is not None:
            return Asked(problem=sent.limit, limit=True)
        if sent.failure is not None:
            return Asked(problem=str(sent.failure))
        response, charge = sent.response, sent.charge
        assert response is not None and charge is not None
        problem = None
        if response.refusal is not None:
            problem = f"the model refused to answer: {response.refusal[:200]}".rstrip(": ")
        else:
            try:
                return Asked(answer=parse(response.payload), cost_usd=charge.cost_usd)
            except (ValueError, ValidationError, TypeError):
                cut = " (cut off at max_tokens)" if response.truncated else ""
                problem = f"the model returned malformed output{cut}"
        self._bad_output(problem)
        return Asked(problem=problem, cost_usd=charge.cost_usd)

    def _count(self, sent: Sent) -> None:
        """A call in the run's counts: made when it reached the provider, failed when it gave
        nothing (`failure_error` reads them)."""
        if sent.attempted:
            self._calls_made += 1
        if sent.failure is not None:
            self._calls_failed += 1
            self.last_failure = sent.failure

    def _bad_output(self, problem: str) -> None:
        """An answer that came back unusable: a failed call too."""
        self._calls_failed += 1
        self.last_failure = JudgeFailure("judge-bad-output", problem, "re-run, or try another --model")

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
        shared = self._shared(source, items, batches)
        # Before any await: batch mode counts the call sequences still to come.
        self._dispatch.join(len(batches))
        if batches:
            self._calls_moved(planned=len(batches))
        self._dispatch.arrived()
        judged = await asyncio.gather(*(self._judge_batch(source, items, batch, shared) for batch in batches))
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
            self._with_doubts(r, item[0])
            if r is not None
            else JudgeResult(model=self.config.model, error="not judged", outcome=JudgeOutcome.error)
            for r, item in zip(results, items, strict=True)
        ]

    async def judge_sources(
        self, sources: Sequence[tuple[FetchedSource, Sequence[tuple[Claim, list[Passage]] | JudgeItem]]]
    ) -> list[list[JudgeResult]]:
        """`judge_source` for each (source, items), side by side: in batch mode their calls go
        in one batch (the dispatcher waits for every source to come)."""
        self._dispatch.hold(len(sources))
        return await asyncio.gather(*(self.judge_source(src, items) for src, items in sources))

    def _shared(
        self, source: FetchedSource, items: list[JudgeItem], batches: list[list[int]]
    ) -> _Shared | None:
        """One excerpt for all the source's calls, when the provider's prompt cache makes that
        cheaper than an excerpt per call: the shared excerpt (the union of every claim's
        passages) is written to the cache once and read by the other calls at the cache-read
        price, against each call's own, smaller excerpt at the full price. Only one call at a
        time: a batch runs its requests in no order, so its cache reads are not to be counted on."""
        price = self._ledger.price
        if len(batches) < 2 or self.batch_mode or not price.caches:
            return None
        chars = self.settings.evidence_chars
        own = [build_excerpt(source.text, [items[i].passages for i in batch], chars) for batch in batches]
        excerpt = build_excerpt(source.text, [items[i].passages for batch in batches for i in batch], chars)
        tokens = likely_tokens(excerpt)
        if likely_tokens(SYSTEM_PROMPT) + tokens < price.min_cache_tokens:
            return None  # too short for the provider to cache: every call would pay it in full
        write = price.cache_write_per_mtok or price.input_per_mtok
        read = price.cache_read_per_mtok or price.input_per_mtok
        cached = tokens * write + (len(batches) - 1) * tokens * read
        separate = sum(likely_tokens(e) for e in own) * price.input_per_mtok
        if cached >= separate:
            return None
        title = source.title or ""
        url = source.info.final_url or source.info.url
        texts = [excerpt, title, url]
        for item in items:
            texts += [item.claim.text, *item.hints]
        return _Shared(excerpt, new_marker(*texts))

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
            states_fact=entry.states_fact,
        )
        again = self._accept(verdict, claim_text, source_text, "")
        if again.outcome != JudgeOutcome.verdict:
            return None
        free = {"cached": True, "cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0, "latency_ms": 0}
        return again.model_copy(update=free)

    def _with_doubts(self, result: JudgeResult, claim: Claim) -> JudgeResult:
        """An accepted verdict, or `unsure` when the judge's own answer shows doubt. A claim with
        no cited fact kind that the judge read as stating none has no support to doubt
        (`citecheck.policy.judge_verdict` reports it as `no-fact`)."""
        if result.outcome != JudgeOutcome.verdict or result.supported is None:
            return result
        if states_no_fact(claim, result):
            return result
        doubt = judge_doubt(
            result.supported, result.confidence or 0.0, result.rationale or "", self.settings.min_confidence
        )
        if doubt is None:
            return result
        return result.model_copy(update={"supported": None, "outcome": JudgeOutcome.unsure, "error": doubt})

    async def _judge_batch(
        self, source: FetchedSource, items: list[JudgeItem], batch: list[int], shared: _Shared | None
    ) -> list[JudgeResult]:
        try:
            return await self._judge_sequence(source, items, batch, shared)
        finally:
            self._dispatch.leave()

    async def _judge_sequence(
        self, source: FetchedSource, items: list[JudgeItem], batch: list[int], shared: _Shared | None
    ) -> list[JudgeResult]:
        model = self.config.model
        spent: dict[int, list[int | float]] = {i: [0, 0, 0.0, 0] for i in batch}  # in, out, cost, ms
        accepted: dict[int, JudgeResult] = {}
        todo = list(batch)
        last: dict[int, JudgeResult] = {}
        for attempt in range(2):
            outcome = await self._call(source, [items[i] for i in todo], retry=attempt > 0, shared=shared)
            self._calls_moved(settled=1)
            n = len(todo)
            for pos, i in enumerate(todo):
                # Each claim bears an equal share of the call's tokens and cost.
                spent[i][0] += outcome.input_tokens // n + (1 if pos < outcome.input_tokens % n else 0)
                spent[i][1] += outcome.output_tokens // n + (1 if pos < outcome.output_tokens % n else 0)
                spent[i][2] += outcome.cost_usd / n
                spent[i][3] += outcome.latency_ms
            retry: list[int] = []
            for pos, i in enumerate(todo, 1):
                if outcome.limit is not None:
                    last[i] = JudgeResult(
                        model=model, limit=True, error=outcome.limit, outcome=JudgeOutcome.limit
                    )
                    if outcome.limit.startswith(DEADLINE):
                        self.deadline_stops += 1
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
            if not retry or attempt == 1:
                break
            self._calls_moved(planned=1)
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
        # What the model wrote goes to the report and to the verdict cache: an echoed secret
        # of the run is taken out here, where the result is made (its evidence once weighed).
        rationale = self.redact.secrets(verdict.rationale.strip()) or None
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
        evidence = self.redact.secrets(evidence) if evidence else evidence
        return JudgeResult(
            model=model,
            supported=verdict.supported,
            confidence=confidence,
            rationale=rationale,
            evidence=evidence,
            outcome=JudgeOutcome.verdict,
            states_fact=verdict.states_fact,
        )

    # -- one call ----------------------------------------------------------------------------

    def _max_tokens(self, n_claims: int) -> int:
        # ~350 output tokens cover one verdict (rationale + a quote of ≤300 characters).
        budget = 200 + 350 * n_claims
        return budget + self.config.reasoning_tokens

    async def _call(
        self, source: FetchedSource, claims: list[JudgeItem], *, retry: bool, shared: _Shared | None
    ) -> _Outcome:
        if shared is not None:
            excerpt = shared.excerpt
        else:
            excerpt = build_excerpt(
                source.text, [item.passages for item in claims], self.settings.evidence_chars
            )
        parts = build_prompt_parts(
            source,
            excerpt,
            [item.claim.text for item in claims],
            retry=retry,
            hints=[item.hints for item in claims],
            marker=shared.marker if shared is not None else None,
        )
        # No secret of the run reaches a model.
        request = Request(
            system=parts.system,
            source=self.redact.secrets(parts.source),
            claims=self.redact.secrets(parts.claims),
            max_tokens=self._max_tokens(len(claims)),
            tool=VERDICT_TOOL,
            cache=shared is not None,
        )
        await self._connected()
        primer = False
        if shared is not None:
            if shared.primed is None:
                shared.primed, primer = asyncio.Event(), True
            else:
                await shared.primed.wait()
        try:
            sent = await self._dispatch.send(
                request, input_upper_bound(request.system, request.user, request.tool)
            )
        finally:
            if primer and shared is not None and shared.primed is not None:
                shared.primed.set()
        self._count(sent)
        if sent.limit is not None:
            return _Outcome(limit=sent.limit, latency_ms=sent.latency_ms)
        if sent.failure is not None:
            return _Outcome(failure=str(sent.failure), latency_ms=sent.latency_ms)
        response, charge = sent.response, sent.charge
        assert response is not None and charge is not None
        outcome = _Outcome(
            input_tokens=charge.input_tokens,
            output_tokens=charge.output_tokens,
            cost_usd=charge.cost_usd,
            latency_ms=sent.latency_ms,
            excerpt=excerpt,
        )
        if response.refusal is not None:
            outcome.failure = f"the judge refused to answer: {response.refusal[:200]}".rstrip(": ")
        elif response.truncated:
            # A cut-off answer is not the model's last word, and what precedes the cut may be a
            # quote of the page (`answer.read_answer`): nothing of it is used.
            outcome.failure = "the judge returned malformed output (output cut off at max_tokens)"
            outcome.retryable = True
        else:
            try:
                outcome.verdicts = parse_verdicts(response.payload, len(claims), shown=request.user)
            except MalformedAnswer as exc:
                outcome.failure = f"the judge returned malformed output ({exc})"
                outcome.retryable = True
            except (ValueError, TypeError):
                outcome.failure = "the judge returned malformed output (output is not valid verdict JSON)"
                outcome.retryable = True
        if outcome.failure is not None:
            self._bad_output(outcome.failure)
        return outcome
