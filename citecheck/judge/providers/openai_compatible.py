"""Any OpenAI-compatible server (Ollama, vLLM, LiteLLM, a proxy) as a judge provider: the
OpenAI protocol at a base URL the run gives.

Such servers differ in what they support, so the response format steps down from a JSON
schema to JSON mode to JSON asked for in the prompt alone, whichever the server accepts
(the verdicts are validated the same way in every mode). A server on this machine or the
local network usually needs no key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from citecheck.judge.providers.base import ListPrice
from citecheck.judge.providers.openai import JsonMode, OpenAIConnection, OpenAIProvider

if TYPE_CHECKING:
    from citecheck.judge.resolve import JudgeConfig

# A dummy key for an OpenAI-compatible server on this machine or the local network, which
# usually needs none; the SDK refuses to start without one.
LOCAL_DUMMY_KEY = "citecheck-no-key"


def is_local_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


@dataclass(frozen=True)
class OpenAICompatibleProvider(OpenAIProvider):
    name: str = "openai-compatible"
    # Priced like OpenAI's models when it serves one of them; otherwise the run gives prices.
    serves_any_model: bool = True
    auto: bool = False  # only when asked for: it needs a base URL
    needs_base_url: bool = True
    # Such servers differ in whether they have OpenAI's batch endpoints (/v1/files,
    # /v1/batches) at all: `judge-mode: batch` is refused before anything is fetched.
    supports_batch: bool = False
    prices: ClassVar[Mapping[str, ListPrice]] = MappingProxyType({})

    def fallback_key(self, base_url: str | None) -> str | None:
        return LOCAL_DUMMY_KEY if base_url and is_local_url(base_url) else None

    def connect(self, config: JudgeConfig) -> OpenAICompatibleConnection:
        return OpenAICompatibleConnection(config, self, reasoning=self.reasoning_model(config.model))


class OpenAICompatibleConnection(OpenAIConnection):
    def step_down(self, mode: JsonMode, error: Exception) -> JsonMode | None:
        # A server without JSON-schema (or JSON-mode) support: step down once per mode; the
        # connection remembers it for the rest of the run.
        if mode == "prompt":
            return None
        if isinstance(error, self._sdk.InternalServerError) and "response_format" not in str(error):
            # llama-cpp-python's server answers a field it does not know with a 500 that names
            # the field; any other server error is the server's, not the format's
            return None
        return "json_object" if mode == "json_schema" else "prompt"


PROVIDER = OpenAICompatibleProvider()
