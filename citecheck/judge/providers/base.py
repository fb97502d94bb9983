"""What a judge provider is (docs/ARCHITECTURE.md, the judge stage): the `Provider` protocol
each module of this package implements, and the hand-off types of one call.

A provider module must not import its SDK at module level: the SDKs take seconds to import,
and the registry is imported by every run (for the CLI's choices and the Action's inputs),
including runs with `judge: none`. The SDK is imported when the judge first connects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio

    from citecheck.judge.resolve import JudgeConfig


@dataclass
class Response:
    """What one call returned, before its verdicts are parsed."""

    payload: Any = None  # tool input dict or JSON text
    refusal: str | None = None
    truncated: bool = False
    input_tokens: int | None = None  # None: the server reported no usage
    output_tokens: int | None = None


@dataclass(frozen=True)
class JudgeFailure:
    """Why a call gave no verdict: a code, a message and what to do about it."""

    code: str
    message: str
    hint: str

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]; {self.hint}"


class Connection(Protocol):
    """A provider's client for one run (made by `Provider.connect`); it may serve several
    event loops one after the other."""

    async def send(self, system: str, user: str, max_tokens: int) -> Response:
        """One request with the verdict schema; SDK errors propagate (see `classify_error`)."""
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
    def prices(self) -> Mapping[str, tuple[float, float]]:
        """Its models' list prices, USD per million tokens (input, output)."""
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


def client_options(config: JudgeConfig) -> dict[str, Any]:
    """The keyword arguments the Anthropic and OpenAI SDK clients share."""
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
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ClientT:
        # Imported here: asyncio costs ~40 ms, and every run (`extract` too) imports this module.
        import asyncio

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._factory()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()  # type: ignore[attr-defined]
            self._client = None


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
            f"rate limited after retries (HTTP 429): {detail}",
            "wait and re-run, lower --concurrency, or raise the account's rate limit",
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
