"""OpenAI as a judge provider: Chat Completions with a strict JSON-schema response format.

o-series reasoning models take no system message and no response format and count their
reasoning in `max_completion_tokens`: their instructions go in the user message, the JSON
shape is asked for in the prompt, and the judge gives them room to reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from citecheck.judge.prompt import PROMPT_JSON_NOTE, TOOL_NAME, VERDICT_SCHEMA
from citecheck.judge.providers.base import (
    JudgeFailure,
    LoopClient,
    Response,
    classify_sdk_error,
    client_options,
)

if TYPE_CHECKING:
    import openai

    from citecheck.judge.resolve import JudgeConfig

JsonMode = Literal["json_schema", "json_object", "prompt"]


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
    prices: ClassVar[Mapping[str, tuple[float, float]]] = MappingProxyType(
        {
            "gpt-4o": (2.50, 10.00),
            "gpt-4o-mini": (0.15, 0.60),
            "gpt-4.1": (2.00, 8.00),
            "gpt-4.1-mini": (0.40, 1.60),
            "o1-mini": (1.10, 4.40),
        }
    )

    def fallback_key(self, base_url: str | None) -> str | None:
        return None

    def reasoning_model(self, model: str) -> bool:
        return re.match(r"o\d", model) is not None

    def connect(self, config: JudgeConfig) -> OpenAIConnection:
        return OpenAIConnection(config, reasoning=self.reasoning_model(config.model))

    def classify_error(self, exc: BaseException) -> JudgeFailure | None:
        import openai

        return classify_sdk_error(exc, openai, self.key_env)


class OpenAIConnection:
    def __init__(self, config: JudgeConfig, *, reasoning: bool) -> None:
        import openai

        self._sdk = openai
        self._model = config.model
        self._reasoning = reasoning
        self._client: LoopClient[openai.AsyncOpenAI] = LoopClient(
            lambda: openai.AsyncOpenAI(**client_options(config))
        )
        # Kept for the whole run, across event loops: a server that refused a mode once is
        # not asked in it again.
        self._json_mode: JsonMode = "prompt" if reasoning else "json_schema"

    def step_down(self, mode: JsonMode) -> JsonMode | None:
        """The mode to try after the server refused `mode`, or None to report the error:
        OpenAI itself supports JSON schemas, so a refusal is a real error."""
        return None

    async def aclose(self) -> None:
        await self._client.aclose()

    async def send(self, system: str, user: str, max_tokens: int) -> Response:
        sdk = self._sdk
        if self._reasoning:
            messages = [{"role": "user", "content": system + "\n\n" + user}]
            kwargs: dict[str, Any] = {"max_completion_tokens": max_tokens}
        else:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            kwargs = {"max_tokens": max_tokens}
        while True:
            mode = self._json_mode
            if mode == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": TOOL_NAME, "strict": True, "schema": VERDICT_SCHEMA},
                }
            elif mode == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
            else:
                kwargs.pop("response_format", None)
            if mode != "json_schema" and not messages[-1]["content"].endswith(PROMPT_JSON_NOTE):
                messages[-1] = {"role": "user", "content": messages[-1]["content"] + PROMPT_JSON_NOTE}
            try:
                completion = await self._client.get().chat.completions.create(
                    model=self._model,
                    messages=messages,  # type: ignore[arg-type]
                    **kwargs,
                )
                break
            except (sdk.BadRequestError, sdk.UnprocessableEntityError):
                lower = self.step_down(mode)
                if lower is None:
                    raise
                self._json_mode = lower
        usage = completion.usage
        out = Response(
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
        )
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


PROVIDER = OpenAIProvider()
