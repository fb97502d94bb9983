"""The one price table: judge models citecheck accepts and what they cost.

Prices are US dollars per million tokens (input, output), the providers' list prices for
standard (non-batch, non-cached) requests. A model outside this table is a configuration
error unless the run gives its prices (`price_in_per_mtok` / `price_out_per_mtok`), so the
cost cap always rests on a known price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Provider = Literal["anthropic", "openai"]


@dataclass(frozen=True)
class ModelPrice:
    provider: Provider
    input_per_mtok: float
    output_per_mtok: float


PRICES: dict[str, ModelPrice] = {
    # Anthropic
    "claude-opus-4-7": ModelPrice("anthropic", 5.00, 25.00),
    "claude-opus-4-6": ModelPrice("anthropic", 5.00, 25.00),
    "claude-opus-4-5": ModelPrice("anthropic", 5.00, 25.00),
    "claude-sonnet-4-6": ModelPrice("anthropic", 3.00, 15.00),
    "claude-sonnet-4-5": ModelPrice("anthropic", 3.00, 15.00),
    "claude-haiku-4-5": ModelPrice("anthropic", 1.00, 5.00),
    "claude-haiku-4-5-20251001": ModelPrice("anthropic", 1.00, 5.00),
    # OpenAI
    "gpt-4o": ModelPrice("openai", 2.50, 10.00),
    "gpt-4o-mini": ModelPrice("openai", 0.15, 0.60),
    "gpt-4.1": ModelPrice("openai", 2.00, 8.00),
    "gpt-4.1-mini": ModelPrice("openai", 0.40, 1.60),
    "o1-mini": ModelPrice("openai", 1.10, 4.40),
}

DEFAULT_MODELS: dict[Provider, str] = {
    # Sonnet: the quality/price balance for verdicts that gate a merge.
    "anthropic": "claude-sonnet-4-6",
    # 4o-mini: cheap, supports strict JSON-schema output.
    "openai": "gpt-4o-mini",
}


def known_models(provider: Provider | None = None) -> list[str]:
    return sorted(m for m, p in PRICES.items() if provider is None or p.provider == provider)


def estimate_tokens(text: str) -> int:
    """A strict upper bound on the tokens `text` costs, without a tokenizer: its UTF-8 bytes.

    Byte-level tokenizers never spend more than one token per byte (English runs about
    four bytes a token), so the cost cap holds for any text, even one built to tokenize
    badly. The over-estimate costs little: reservations are settled on the real usage
    after each call, so it only stops the last call or so before the cap a bit early.
    """
    return len(text.encode("utf-8", "surrogatepass"))


def cost_usd(price: ModelPrice, input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000
