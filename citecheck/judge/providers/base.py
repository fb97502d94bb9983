"""What a judge provider is (docs/ARCHITECTURE.md, the judge stage): the `Provider` protocol
each module of this package implements, and the hand-off types of one call.

A provider module must not import its SDK at module level: the SDKs take seconds to import,
and the registry is imported by every run (for the CLI's choices and the Action's inputs),
including runs with `judge: none`. The SDK is imported when the judge first connects.

What the protocol asks of a provider beyond one call:
- its list prices (`ListPrice`: standard, prompt-cache and batch prices);
- its rate-limit headers read into `RateLimits` (`rate_limits`), on every response, so the
  judge paces itself to the account (`citecheck.judge.pacing`);
- which of its errors are worth waiting out (`retry_advice`: a rate limit or an overload,
  and a transient failure), with the wait the server asks for;
- its batch API, when it has one (`supports_batch`, `Connection.submit_batch` …).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio

    from citecheck.judge.resolve import JudgeConfig


@dataclass(frozen=True)
class ListPrice:
    """A model's list prices, US dollars per million tokens.

    `cache_write` / `cache_read`: input tokens written to / read from the provider's prompt
    cache (None: billed as plain input). `batch_input` / `batch_output`: through the
    provider's batch API (None: no batch price known, billed at the standard price).
    `min_cache_tokens`: the shortest prefix the provider caches at all.
    """

    input: float
    output: float
    cache_write: float | None = None
    cache_read: float | None = None
    batch_input: float | None = None
    batch_output: float | None = None
    min_cache_tokens: int = 1024


@dataclass(frozen=True)
class OutputTool:
    """The structured answer a call asks for: a tool (Anthropic) or a JSON schema response
    format (OpenAI) of this name and schema; `json_note` spells the format out at the end of
    the prompt for a server that cannot enforce a schema."""

    name: str
    description: str
    schema: Mapping[str, Any]
    json_note: str


@dataclass(frozen=True)
class Request:
    """One call: the system prompt, the user message, its output budget and the answer's
    format (`tool`: the judge's verdicts, or the screen's answers).

    `source` is the user message's first part (the fenced source text), `claims` the rest;
    with `cache` set the provider marks the source part for its prompt cache (Anthropic's
    `cache_control`; OpenAI caches a repeated prefix by itself).
    """

    system: str
    source: str
    claims: str
    max_tokens: int
    tool: OutputTool
    cache: bool = False

    @property
    def user(self) -> str:
        return self.source + self.claims


@dataclass(frozen=True)
class BucketReading:
    """One rate limit as a response's headers state it: the bucket's size, what is left of it,
    and when it is full again — `reset_s` from when the reading was taken (a duration, as
    OpenAI states it) or `reset_at` (a wall-clock time, `time.time()`'s scale, as Anthropic
    states it); None: not said."""

    limit: float
    remaining: float
    reset_s: float | None = None
    reset_at: float | None = None


# "requests", "tokens", "input-tokens", "output-tokens" → what the headers said of each
RateLimits = dict[str, BucketReading]


@dataclass
class Response:
    """What one call returned, before its verdicts are parsed."""

    payload: Any = None  # tool input dict or JSON text
    refusal: str | None = None
    truncated: bool = False
    input_tokens: int | None = None  # every input token, cached or not; None: the server reported no usage
    output_tokens: int | None = None
    cache_read_tokens: int = 0  # of `input_tokens`: read from the prompt cache
    cache_write_tokens: int = 0  # of `input_tokens`: written to the prompt cache
    limits: RateLimits = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeFailure:
    """Why a call gave no verdict: a code, a message and what to do about it."""

    code: str
    message: str
    hint: str

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]; {self.hint}"


@dataclass(frozen=True)
class RetryAdvice:
    """An error worth trying again: `throttle` (a rate limit or an overload: wait, as long as the
    run may, and slow down) or `transient` (a timeout, a dropped connection, a server error:
    a few more tries). `after_s`: the wait the server asked for (Retry-After)."""

    kind: Literal["throttle", "transient"]
    after_s: float | None = None
    limits: RateLimits = field(default_factory=dict)
    # The server is swamped (a throttle, or a call that timed out): fewer calls at once. A
    # server that states no limits (a local one) says so only this way.
    congested: bool = False


@dataclass(frozen=True)
class BatchStatus:
    """A submitted batch as the provider last reported it."""

    id: str
    ended: bool
    total: int
    succeeded: int = 0
    failed: int = 0  # errored, expired or cancelled
    state: str = ""  # the provider's own word for it
    output_ref: str | None = None  # where its results are (OpenAI: the output file)
    error_ref: str | None = None  # OpenAI: the error file


# custom id → the request's response, or why it gave none
BatchResults = dict[str, "Response | JudgeFailure"]


class Connection(Protocol):
    """A provider's client for one run (made by `Provider.connect`); it may serve several
    event loops one after the other."""

    async def send(self, request: Request) -> Response:
        """One request with the verdict schema; SDK errors propagate (see `classify_error`).
        The SDK does not retry: the judge does (`retry_advice`), so that it sees every 429."""
        ...

    async def submit_batch(self, requests: Sequence[tuple[str, Request]]) -> BatchStatus:
        """Submit (custom id, request) pairs as one batch (only when `supports_batch`)."""
        ...

    async def poll_batch(self, batch: BatchStatus) -> BatchStatus: ...

    async def cancel_batch(self, batch: BatchStatus) -> BatchStatus: ...

    async def batch_results(self, batch: BatchStatus) -> BatchResults:
        """The results of an ended batch, by custom id (a request missing from them had none)."""
        ...

    async def aclose(self) -> None: ...


class Provider(Protocol):
    """One LLM provider: how its key is found, what it costs, how it is called."""

    @property
    def name(self) -> str:
        """The `--judge` value (and the Action's `judge` input)."""
        ...

    @property
    def key_env(self) -> str:
        """The environment variable holding its API key."""
        ...

    @property
    def key_input(self) -> str:
        """The Action input that passes the key (action.yml must list it)."""
        ...

    @property
    def default_model(self) -> str: ...

    @property
    def price_family(self) -> str:
        """Whose rows of the price table are its models (its own name when it has a list)."""
        ...

    @property
    def prices(self) -> Mapping[str, ListPrice]:
        """Its models' list prices, USD per million tokens."""
        ...

    @property
    def serves_any_model(self) -> bool:
        """Any model of the price table is accepted (a compatible server may host any)."""
        ...

    @property
    def auto(self) -> bool:
        """`judge: auto` may choose it (in registry order) when its key is set."""
        ...

    @property
    def needs_base_url(self) -> bool: ...

    @property
    def supports_batch(self) -> bool:
        """It has a batch API (`judge-mode: batch`)."""
        ...

    def fallback_key(self, base_url: str | None) -> str | None:
        """The key to use when its variable is unset (a local server needs none), or None."""
        ...

    def reasoning_model(self, model: str) -> bool:
        """The model reasons before answering: it needs room for that in its output budget."""
        ...

    def connect(self, config: JudgeConfig) -> Connection:
        """A client for the run; imports the SDK (seconds), so it is called only once a call is due."""
        ...

    def classify_error(self, exc: BaseException) -> JudgeFailure | None:
        """The failure a call's exception stands for, or None when it is not an API error (a bug)."""
        ...

    def retry_advice(self, exc: BaseException) -> RetryAdvice | None:
        """Whether a call's exception is worth trying again, and how (None: it is not)."""
        ...

    def rate_limits(self, headers: Mapping[str, str]) -> RateLimits:
        """The rate limits a response's headers state ({} when they state none)."""
        ...


def client_options(config: JudgeConfig) -> dict[str, Any]:
    """The keyword arguments the Anthropic and OpenAI SDK clients share. The SDK's own
    retries serve the batch API's calls; a judge call is sent without them (`LoopClient.calls`)."""
    options: dict[str, Any] = {
        "api_key": config.api_key.get_secret_value(),
        "timeout": config.timeout_s,
        "max_retries": config.max_retries,
    }
    if config.base_url:
        options["base_url"] = config.base_url
    return options


ClientT = TypeVar("ClientT")


class LoopClient(Generic[ClientT]):
    """An SDK client for the running event loop: a client's connection pool belongs to one
    loop, so a second `asyncio.run` gets a new client."""

    def __init__(self, factory: Callable[[], ClientT]) -> None:
        self._factory = factory
        self._client: ClientT | None = None
        self._calls: ClientT | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ClientT:
        # Imported here: asyncio costs ~40 ms, and every run (`extract` too) imports this module.
        import asyncio

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._factory()
            # The same connection pool, without the SDK's retries: the judge retries a call
            # itself, so that every 429 and overload slows it down (`citecheck.judge.pacing`)
            # and a rate limit is waited out as long as the run may, not three times.
            self._calls = self._client.with_options(max_retries=0)  # type: ignore[attr-defined]
            self._loop = loop
        return self._client

    def calls(self) -> ClientT:
        """The client for judge calls: no SDK retries."""
        self.get()
        assert self._calls is not None
        return self._calls

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()  # type: ignore[attr-defined]
            self._client = self._calls = None


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for: `retry-after-ms` (the SDKs' own, precise), else
    `retry-after` in seconds or as an HTTP date; None when it asks for none."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# Statuses a rate limit or an overloaded service answers with: 429, 503 (OpenAI's "slow down"),
# 529 (Anthropic's "overloaded").
THROTTLE_STATUSES = frozenset({429, 503, 529})
TRANSIENT_STATUSES = frozenset({408, 409})


def sdk_retry_advice(
    exc: BaseException, sdk: ModuleType, parse_limits: Callable[[Mapping[str, str]], RateLimits]
) -> RetryAdvice | None:
    """For the Anthropic and OpenAI SDKs (one exception hierarchy): what the SDK would retry,
    split into throttles and transient failures. A server's `x-should-retry` header decides
    first, as it does for the SDKs."""
    if isinstance(exc, sdk.APITimeoutError | TimeoutError):
        return RetryAdvice("transient", congested=True)
    if isinstance(exc, sdk.APIConnectionError):
        return RetryAdvice("transient")
    if not isinstance(exc, sdk.APIStatusError):
        return None
    headers = exc.response.headers
    status = exc.status_code
    advice = headers.get("x-should-retry")
    if advice == "false":
        return None
    limits = parse_limits(headers)
    after = retry_after_s(headers)
    if status in THROTTLE_STATUSES:
        return RetryAdvice("throttle", after, limits, congested=True)
    if advice == "true" or status in TRANSIENT_STATUSES or status >= 500:
        return RetryAdvice("transient", after, limits)
    return None


def classify_sdk_error(exc: BaseException, sdk: ModuleType, key_env: str) -> JudgeFailure | None:
    """For the Anthropic and OpenAI SDKs, which share one exception hierarchy (both are
    generated by Stainless); `TimeoutError` is the call deadline running out."""
    if not isinstance(exc, sdk.APIError | TimeoutError):
        return None
    status = getattr(exc, "status_code", None)
    detail = str(getattr(exc, "message", "") or exc)[:300]
    if isinstance(exc, sdk.AuthenticationError):
        return JudgeFailure(
            "judge-auth", f"the judge API rejected the key (HTTP {status})", f"check {key_env}"
        )
    if isinstance(exc, sdk.PermissionDeniedError):
        return JudgeFailure(
            "judge-permission",
            f"the key may not use this model (HTTP {status}): {detail}",
            f"check the model and the permissions of {key_env}",
        )
    if isinstance(exc, sdk.NotFoundError):
        return JudgeFailure(
            "judge-model-not-found",
            f"the judge API does not know the model (HTTP 404): {detail}",
            "check --model and --base-url",
        )
    if isinstance(exc, sdk.RateLimitError):
        return JudgeFailure(
            "judge-rate-limited",
            f"rate limited (HTTP 429): {detail}",
            "raise the account's rate limit or its quota, lower --judge-concurrency, or re-run later",
        )
    if isinstance(exc, sdk.APITimeoutError | TimeoutError):
        return JudgeFailure("judge-timeout", "the judge API did not answer in time", "re-run later")
    if isinstance(exc, sdk.APIConnectionError):
        return JudgeFailure(
            "judge-connection", f"cannot reach the judge API: {detail}", "check the network and --base-url"
        )
    if isinstance(exc, sdk.APIStatusError):
        if status is not None and status >= 500:
            return JudgeFailure(
                "judge-server-error",
                f"the judge API failed after retries (HTTP {status}): {detail}",
                "the provider is having trouble; re-run later",
            )
        return JudgeFailure(
            "judge-bad-request",
            f"the judge API refused the request (HTTP {status}): {detail}",
            "check --model and --base-url; report a bug if it persists",
        )
    return JudgeFailure("judge-error", f"judge call failed: {type(exc).__name__}: {detail}", "re-run later")
