"""OpenAI as a judge provider: Chat Completions with a strict JSON-schema response format.

o-series reasoning models take no system message and no response format and count their
reasoning in `max_completion_tokens`: their instructions go in the user message, the JSON
shape is asked for in the prompt, and the judge gives them room to reason.

Rate limits: every response carries `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
(the reset a duration such as `1s`, `6m0s` or `12ms`: the time until the bucket is full
again). Prompt caching is automatic for a repeated prefix of 1,024 tokens or more, reported
as `usage.prompt_tokens_details.cached_tokens` and billed at the cached-input price.
Batches: a JSONL file uploaded to /v1/files, a batch on /v1/batches, its output file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

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
    import openai

    from citecheck.judge.resolve import JudgeConfig

JsonMode = Literal["json_schema", "json_object", "prompt"]
CHAT_ENDPOINT = "/v1/chat/completions"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})


def parse_duration(value: str | None) -> float | None:
    """OpenAI's reset durations: `1s`, `6m0s`, `12ms`, `1h2m3.5s` → seconds (None: unreadable)."""
    if not value:
        return None
    text = value.strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def _price(price_in: float, price_out: float, cached_in: float) -> ListPrice:
    # No surcharge for writing the cache; the Batch API halves the input and output prices.
    return ListPrice(
        input=price_in,
        output=price_out,
        cache_read=cached_in,
        batch_input=price_in / 2,
        batch_output=price_out / 2,
        min_cache_tokens=1024,
    )


@dataclass(frozen=True)
class OpenAIProvider:
    name: str = "openai"
    key_env: str = "OPENAI_API_KEY"
    key_input: str = "openai-api-key"
    # 4o-mini: cheap, supports strict JSON-schema output.
    default_model: str = "gpt-4o-mini"
    price_family: str = "openai"
    serves_any_model: bool = False
    auto: bool = True
    needs_base_url: bool = False
    supports_batch: bool = True
    prices: ClassVar[Mapping[str, ListPrice]] = MappingProxyType(
        {
            "gpt-4o": _price(2.50, 10.00, 1.25),
            "gpt-4o-mini": _price(0.15, 0.60, 0.075),
            "gpt-4.1": _price(2.00, 8.00, 0.50),
            "gpt-4.1-mini": _price(0.40, 1.60, 0.10),
            "o1-mini": _price(1.10, 4.40, 0.55),
        }
    )

    def fallback_key(self, base_url: str | None) -> str | None:
        return None

    def reasoning_model(self, model: str) -> bool:
        return re.match(r"o\d", model) is not None

    def connect(self, config: JudgeConfig) -> OpenAIConnection:
        return OpenAIConnection(config, self, reasoning=self.reasoning_model(config.model))

    def classify_error(self, exc: BaseException) -> JudgeFailure | None:
        import openai

        if _quota_exhausted(exc, openai):
            return JudgeFailure(
                "judge-quota",
                "the account's quota is used up (HTTP 429 insufficient_quota)",
                "add credit to the account or raise its spending limit",
            )
        return classify_sdk_error(exc, openai, self.key_env)

    def retry_advice(self, exc: BaseException) -> RetryAdvice | None:
        import openai

        if _quota_exhausted(exc, openai):
            return None  # a 429 that no wait will lift
        return sdk_retry_advice(exc, openai, self.rate_limits)

    def rate_limits(self, headers: Mapping[str, str]) -> RateLimits:
        out: RateLimits = {}
        for bucket in ("requests", "tokens"):
            try:
                limit = float(headers[f"x-ratelimit-limit-{bucket}"])
                remaining = float(headers[f"x-ratelimit-remaining-{bucket}"])
            except (KeyError, ValueError):
                continue
            if limit <= 0 or remaining < 0:
                continue  # some proxies send -1: no limit known
            reset = parse_duration(headers.get(f"x-ratelimit-reset-{bucket}"))
            out[bucket] = BucketReading(limit, remaining, reset)
        return out


def _quota_exhausted(exc: BaseException, sdk: Any) -> bool:
    return isinstance(exc, sdk.RateLimitError) and getattr(exc, "code", None) == "insufficient_quota"


class OpenAIConnection:
    def __init__(self, config: JudgeConfig, provider: OpenAIProvider, *, reasoning: bool) -> None:
        import openai

        self._sdk = openai
        self._provider = provider
        self._model = config.model
        self._reasoning = reasoning
        self._client: LoopClient[openai.AsyncOpenAI] = LoopClient(
            lambda: openai.AsyncOpenAI(**client_options(config))
        )
        # Kept for the whole run, across event loops: a server that refused a mode once is
        # not asked in it again.
        self._json_mode: JsonMode = "prompt" if reasoning else "json_schema"

    def step_down(self, mode: JsonMode, error: Exception) -> JsonMode | None:
        """The mode to try after the server refused `mode` with `error`, or None to report the
        error: OpenAI itself supports JSON schemas, so a refusal is a real error."""
        return None

    async def aclose(self) -> None:
        await self._client.aclose()

    def _body(self, request: Request, mode: JsonMode) -> dict[str, Any]:
        """The Chat Completions request body (also a batch line's `body`). The source part
        leads the user message, so calls for one source share their prefix (OpenAI's cache)."""
        if self._reasoning:
            messages = [{"role": "user", "content": request.system + "\n\n" + request.user}]
            body: dict[str, Any] = {"max_completion_tokens": request.max_tokens}
        else:
            messages = [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ]
            body = {"max_tokens": request.max_tokens}
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.tool.name, "strict": True, "schema": request.tool.schema},
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        if mode != "json_schema":
            messages[-1] = {"role": "user", "content": messages[-1]["content"] + request.tool.json_note}
        return {"model": self._model, "messages": messages, **body}

    async def send(self, request: Request) -> Response:
        sdk = self._sdk
        while True:
            mode = self._json_mode
            try:
                raw = await self._client.calls().chat.completions.with_raw_response.create(
                    **self._body(request, mode)
                )
                break
            except (sdk.BadRequestError, sdk.UnprocessableEntityError, sdk.InternalServerError) as exc:
                lower = self.step_down(mode, exc)
                if lower is None:
                    raise
                self._json_mode = lower
        out = self._response(raw.parse())
        out.limits = self._provider.rate_limits(raw.headers)
        return out

    @staticmethod
    def _response(completion: openai.types.chat.ChatCompletion) -> Response:
        usage = completion.usage
        out = Response()
        if usage is not None:
            details = usage.prompt_tokens_details
            out.input_tokens = usage.prompt_tokens  # cached tokens included
            out.output_tokens = usage.completion_tokens
            out.cache_read_tokens = (details.cached_tokens or 0) if details is not None else 0
        if not completion.choices:
            out.payload = ""
            return out
        choice = completion.choices[0]
        out.truncated = choice.finish_reason == "length"
        if choice.message.refusal:
            out.refusal = choice.message.refusal
        elif choice.finish_reason == "content_filter":
            out.refusal = "content filtered by the provider"
        else:
            out.payload = choice.message.content or ""
        return out

    # -- the Batch API ------------------------------------------------------------------------

    @staticmethod
    def _status(batch: openai.types.Batch) -> BatchStatus:
        counts = batch.request_counts
        return BatchStatus(
            id=batch.id,
            ended=batch.status in _ENDED,
            total=counts.total if counts else 0,
            succeeded=counts.completed if counts else 0,
            failed=counts.failed if counts else 0,
            state=batch.status,
            output_ref=batch.output_file_id,
            error_ref=batch.error_file_id,
        )

    async def submit_batch(self, requests: Sequence[tuple[str, Request]]) -> BatchStatus:
        lines = [
            json.dumps(
                {
                    "custom_id": cid,
                    "method": "POST",
                    "url": CHAT_ENDPOINT,
                    "body": self._body(r, self._json_mode),
                },
                ensure_ascii=False,
            )
            for cid, r in requests
        ]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        client = self._client.get()
        upload = await client.files.create(file=("citecheck-batch.jsonl", data), purpose="batch")
        batch = await client.batches.create(
            input_file_id=upload.id, endpoint=CHAT_ENDPOINT, completion_window="24h"
        )
        return self._status(batch)

    async def poll_batch(self, batch: BatchStatus) -> BatchStatus:
        return self._status(await self._client.get().batches.retrieve(batch.id))

    async def cancel_batch(self, batch: BatchStatus) -> BatchStatus:
        return self._status(await self._client.get().batches.cancel(batch.id))

    async def batch_results(self, batch: BatchStatus) -> BatchResults:
        from openai.types.chat import ChatCompletion

        client = self._client.get()
        out: BatchResults = {}
        for ref in (batch.output_ref, batch.error_ref):
            if not ref:
                continue
            text = (await client.files.content(ref)).text
            for line in text.splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                cid = item.get("custom_id")
                response = item.get("response") or {}
                error = item.get("error") or {}
                if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
                    out[cid] = self._response(ChatCompletion.model_validate(response["body"]))
                    continue
                body_error = (response.get("body") or {}).get("error") if isinstance(response, dict) else None
                detail = error or body_error or {}
                code = str(detail.get("code") or response.get("status_code") or "error")
                message = str(detail.get("message") or "no result")[:300]
                if code == "batch_expired":
                    out[cid] = JudgeFailure(
                        "judge-batch-expired",
                        f"the batch expired before this request ran: {message}",
                        "re-run",
                    )
                elif code == "batch_cancelled":
                    out[cid] = JudgeFailure("judge-batch-canceled", "the batch was cancelled", "")
                else:
                    out[cid] = JudgeFailure(
                        "judge-bad-request", f"the batch request failed ({code}): {message}", "re-run later"
                    )
        return out


PROVIDER = OpenAIProvider()
