"""Anthropic as a judge provider: the Messages API with forced tool use (the tool's input
schema is the verdict schema), a `refusal` stop reason reported as a refusal.

Rate limits: every response carries `anthropic-ratelimit-{requests,tokens,input-tokens,
output-tokens}-{limit,remaining,reset}` (the reset an RFC 3339 time at which the bucket is
full again); a 429 carries `retry-after` (seconds), an overload is HTTP 529. Prompt caching:
the source part of a request is marked `cache_control: ephemeral` (a five-minute cache) when
asked (`Request.cache`). Batches: the Message Batches API (create, retrieve, results, cancel).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from citecheck.judge.providers.base import (
    BatchResults,
    BatchStatus,
    BucketReading,
    JudgeFailure,
    ListPrice,
    LoopClient,
    RateLimits,
    Request,
    Response,
    RetryAdvice,
    classify_sdk_error,
    client_options,
    sdk_retry_advice,
)

if TYPE_CHECKING:
    import anthropic

    from citecheck.judge.resolve import JudgeConfig

_BUCKETS = ("requests", "tokens", "input-tokens", "output-tokens")


def _price(price_in: float, price_out: float, min_cache_tokens: int) -> ListPrice:
    # Anthropic's multipliers of the input price: a five-minute cache write 1.25 ×, a cache
    # read 0.1 ×; the Message Batches API half of the input and output prices.
    return ListPrice(
        input=price_in,
        output=price_out,
        cache_write=round(price_in * 1.25, 6),
        cache_read=round(price_in * 0.1, 6),
        batch_input=price_in / 2,
        batch_output=price_out / 2,
        min_cache_tokens=min_cache_tokens,
    )


def _reset_at(value: str | None) -> float | None:
    if not value:
        return None
    try:
        when = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()


@dataclass(frozen=True)
class AnthropicProvider:
    name: str = "anthropic"
    key_env: str = "ANTHROPIC_API_KEY"
    key_input: str = "anthropic-api-key"
    # Sonnet: the quality/price balance for verdicts that gate a merge.
    default_model: str = "claude-sonnet-4-6"
    price_family: str = "anthropic"
    serves_any_model: bool = False
    auto: bool = True  # first in the registry: `auto` prefers it when both keys are set
    needs_base_url: bool = False
    supports_batch: bool = True
    # min_cache_tokens: Anthropic's documented minimum cacheable prefix (4,096 for Opus 4.5+
    # and Haiku 4.5, 1,024 for Sonnet); Sonnet 4.6 was seen caching only from 2,048
    # (anthropic-sdk-python issue 1194), so the judge counts on that.
    prices: ClassVar[Mapping[str, ListPrice]] = MappingProxyType(
        {
            "claude-opus-4-7": _price(5.00, 25.00, 4096),
            "claude-opus-4-6": _price(5.00, 25.00, 4096),
            "claude-opus-4-5": _price(5.00, 25.00, 4096),
            "claude-sonnet-4-6": _price(3.00, 15.00, 2048),
            "claude-sonnet-4-5": _price(3.00, 15.00, 1024),
            "claude-haiku-4-5": _price(1.00, 5.00, 4096),
            "claude-haiku-4-5-20251001": _price(1.00, 5.00, 4096),
        }
    )

    def fallback_key(self, base_url: str | None) -> str | None:
        return None

    def reasoning_model(self, model: str) -> bool:
        return False

    def connect(self, config: JudgeConfig) -> AnthropicConnection:
        return AnthropicConnection(config, self)

    def classify_error(self, exc: BaseException) -> JudgeFailure | None:
        import anthropic

        return classify_sdk_error(exc, anthropic, self.key_env)

    def retry_advice(self, exc: BaseException) -> RetryAdvice | None:
        import anthropic

        return sdk_retry_advice(exc, anthropic, self.rate_limits)

    def rate_limits(self, headers: Mapping[str, str]) -> RateLimits:
        out: RateLimits = {}
        for bucket in _BUCKETS:
            prefix = f"anthropic-ratelimit-{bucket}-"
            try:
                limit = float(headers[prefix + "limit"])
                remaining = float(headers[prefix + "remaining"])
            except (KeyError, ValueError):
                continue
            out[bucket] = BucketReading(limit, remaining, reset_at=_reset_at(headers.get(prefix + "reset")))
        return out


def _failure(kind: str, message: str) -> JudgeFailure:
    if kind in ("overloaded_error", "api_error"):
        return JudgeFailure(
            "judge-server-error", f"the batch request failed ({kind}): {message}", "re-run later"
        )
    return JudgeFailure(
        "judge-bad-request",
        f"the batch request was refused ({kind}): {message}",
        "check --model; report a bug if it persists",
    )


class AnthropicConnection:
    def __init__(self, config: JudgeConfig, provider: AnthropicProvider) -> None:
        import anthropic

        self._provider = provider
        self._model = config.model
        self._client: LoopClient[anthropic.AsyncAnthropic] = LoopClient(
            lambda: anthropic.AsyncAnthropic(**client_options(config))
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    def _params(self, request: Request) -> dict[str, Any]:
        content: str | list[dict[str, Any]] = request.user
        if request.cache:
            # The source part is the same in every call for the source (its excerpt and fence
            # marker are shared): cached once, read by the others at a tenth of the price.
            content = [
                {"type": "text", "text": request.source, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": request.claims},
            ]
        return {
            "model": self._model,
            "max_tokens": request.max_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": content}],
            "tools": [
                {
                    "name": request.tool.name,
                    "description": request.tool.description,
                    "input_schema": request.tool.schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": request.tool.name},
        }

    async def send(self, request: Request) -> Response:
        raw = await self._client.calls().messages.with_raw_response.create(**self._params(request))
        out = self._response(await raw.parse(), request.tool.name)
        out.limits = self._provider.rate_limits(raw.headers)
        return out

    @staticmethod
    def _response(message: anthropic.types.Message, tool_name: str) -> Response:
        usage = message.usage
        out = Response(truncated=message.stop_reason == "max_tokens")
        if usage is not None:
            # `input_tokens` counts only what follows the last cache breakpoint.
            written = usage.cache_creation_input_tokens or 0
            read = usage.cache_read_input_tokens or 0
            out.input_tokens = usage.input_tokens + written + read
            out.output_tokens = usage.output_tokens
            out.cache_write_tokens, out.cache_read_tokens = written, read
        texts = [getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text"]
        if message.stop_reason == "refusal":
            out.refusal = " ".join(t for t in texts if t).strip()
            return out
        calls = [
            block.input  # type: ignore[union-attr]
            for block in message.content
            if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == tool_name
        ]
        if len(calls) == 1:
            out.payload = calls[0]
        elif calls:
            # Several calls of the tool: read as one text, so that they count as one answer only
            # when they agree (`citecheck.judge.answer.read_answer`), as in any other text.
            out.payload = "\n".join(json.dumps(c, ensure_ascii=False) for c in calls)
        else:
            out.payload = "\n".join(texts)
        return out

    # -- the Message Batches API ------------------------------------------------------------

    @staticmethod
    def _status(batch: anthropic.types.messages.MessageBatch) -> BatchStatus:
        counts = batch.request_counts
        failed = counts.errored + counts.canceled + counts.expired
        total = counts.processing + counts.succeeded + failed
        return BatchStatus(
            id=batch.id,
            ended=batch.processing_status == "ended",
            total=total,
            succeeded=counts.succeeded,
            failed=failed,
            state=batch.processing_status,
        )

    async def submit_batch(self, requests: Sequence[tuple[str, Request]]) -> BatchStatus:
        batch = await self._client.get().messages.batches.create(
            requests=[{"custom_id": cid, "params": self._params(r)} for cid, r in requests]  # type: ignore[misc]
        )
        return self._status(batch)

    async def poll_batch(self, batch: BatchStatus) -> BatchStatus:
        return self._status(await self._client.get().messages.batches.retrieve(batch.id))

    async def cancel_batch(self, batch: BatchStatus) -> BatchStatus:
        return self._status(await self._client.get().messages.batches.cancel(batch.id))

    async def batch_results(self, batch: BatchStatus) -> BatchResults:
        # Only the judge's verdict calls go through the batch API (the screen's go one at a time).
        from citecheck.judge.prompt import VERDICT_TOOL

        out: BatchResults = {}
        async for item in await self._client.get().messages.batches.results(batch.id):
            result = item.result
            if result.type == "succeeded":
                out[item.custom_id] = self._response(result.message, VERDICT_TOOL.name)
            elif result.type == "errored":
                error = result.error.error
                out[item.custom_id] = _failure(error.type, error.message)
            elif result.type == "expired":
                out[item.custom_id] = JudgeFailure(
                    "judge-batch-expired",
                    "the batch expired before this request was processed",
                    "re-run; a smaller audit (shards) finishes sooner",
                )
            else:
                out[item.custom_id] = JudgeFailure(
                    "judge-batch-canceled", "the batch was cancelled before this request was processed", ""
                )
        return out


PROVIDER = AnthropicProvider()
