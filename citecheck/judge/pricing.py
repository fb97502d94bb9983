"""The one price table: judge models citecheck accepts and what they cost.

Prices are US dollars per million tokens (input, output), the providers' list prices for
standard (non-batch, non-cached) requests. Each provider module lists its own models'
prices; this table joins them, tagged with the provider's price family. A model outside
it is a configuration error unless the run gives its prices (`price_in_per_mtok` /
`price_out_per_mtok`), so the cost cap always rests on a known price.
"""

from __future__ import annotations

from dataclasses import dataclass

from citecheck.judge.providers import PROVIDERS, Provider


@dataclass(frozen=True)
class ModelPrice:
    provider: str  # the price family: the provider whose list the model is in
    input_per_mtok: float
    output_per_mtok: float


def _price_table(providers: list[Provider]) -> dict[str, ModelPrice]:
    table: dict[str, ModelPrice] = {}
    for provider in providers:
        for model, (price_in, price_out) in provider.prices.items():
            if model in table:
                # A model has one price; two lists naming it would make the cap depend on order.
                raise ValueError(f"model {model!r} is priced by two providers")
            table[model] = ModelPrice(provider.price_family, price_in, price_out)
    return table


PRICES: dict[str, ModelPrice] = _price_table(list(PROVIDERS.values()))


def known_models(family: str | None = None) -> list[str]:
    return sorted(m for m, p in PRICES.items() if family is None or p.provider == family)


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
