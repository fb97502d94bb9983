"""Anthropic as a judge provider: the Messages API with forced tool use (the tool's input
schema is the verdict schema), a `refusal` stop reason reported as a refusal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar

from citecheck.judge.prompt import TOOL_NAME, VERDICT_SCHEMA
from citecheck.judge.providers.base import (
    JudgeFailure,
    LoopClient,
    Response,
    classify_sdk_error,
    client_options,
)

if TYPE_CHECKING:
    import anthropic

    from citecheck.judge.resolve import JudgeConfig


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
    prices: ClassVar[Mapping[str, tuple[float, float]]] = MappingProxyType(
        {
            "claude-opus-4-7": (5.00, 25.00),
            "claude-opus-4-6": (5.00, 25.00),
            "claude-opus-4-5": (5.00, 25.00),
            "claude-sonnet-4-6": (3.00, 15.00),
            "claude-sonnet-4-5": (3.00, 15.00),
            "claude-haiku-4-5": (1.00, 5.00),
            "claude-haiku-4-5-20251001": (1.00, 5.00),
        }
    )

    def fallback_key(self, base_url: str | None) -> str | None:
        return None

    def reasoning_model(self, model: str) -> bool:
        return False

    def connect(self, config: JudgeConfig) -> AnthropicConnection:
        return AnthropicConnection(config)

    def classify_error(self, exc: BaseException) -> JudgeFailure | None:
        import anthropic

        return classify_sdk_error(exc, anthropic, self.key_env)


class AnthropicConnection:
    def __init__(self, config: JudgeConfig) -> None:
        import anthropic

        self._model = config.model
        self._client: LoopClient[anthropic.AsyncAnthropic] = LoopClient(
            lambda: anthropic.AsyncAnthropic(**client_options(config))
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def send(self, system: str, user: str, max_tokens: int) -> Response:
        message = await self._client.get().messages.create(
            model=self._model,
            max_tokens=max_tokens,
            system=system,
            messages=[{"role": "user", "content": user}],
            tools=[
                {
                    "name": TOOL_NAME,
                    "description": "Record one verdict for every claim id.",
                    "input_schema": VERDICT_SCHEMA,
                }
            ],
            tool_choice={"type": "tool", "name": TOOL_NAME},
        )
        out = Response(
            input_tokens=message.usage.input_tokens if message.usage else None,
            output_tokens=message.usage.output_tokens if message.usage else None,
            truncated=message.stop_reason == "max_tokens",
        )
        texts = [getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text"]
        if message.stop_reason == "refusal":
            out.refusal = " ".join(t for t in texts if t).strip()
            return out
        for block in message.content:
            if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == TOOL_NAME:
                out.payload = block.input  # type: ignore[union-attr]
                return out
        out.payload = "\n".join(texts)
        return out


PROVIDER = AnthropicProvider()
