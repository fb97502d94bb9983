"""The one price table: judge models citecheck accepts and what they cost.

Prices are US dollars per million tokens. Each provider module lists its own models'
prices (`providers.base.ListPrice`: the list prices of standard requests, of prompt-cache
writes and reads, and of its batch API); this table joins them, tagged with the provider's
price family. A model outside it is a configuration error unless the run gives its prices
(`price_in_per_mtok` / `price_out_per_mtok`: then no cache or batch discount is counted on),
so the cost cap always rests on a known price.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from citecheck.judge.providers import PROVIDERS, Provider


@dataclass(frozen=True)
class ModelPrice:
    provider: str  # the price family: the provider whose list the model is in
    input_per_mtok: float
    output_per_mtok: float
    # Input tokens written to / read from the prompt cache (None: billed as plain input).
    cache_write_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    # Through the provider's batch API (None: no batch price known: the standard one counts).
    batch_input_per_mtok: float | None = None
    batch_output_per_mtok: float | None = None
    min_cache_tokens: int = 1024

    @property
    def caches(self) -> bool:
        """A prompt-cache read costs less than plain input: sharing a prefix pays."""
        return self.cache_read_per_mtok is not None and self.cache_read_per_mtok < self.input_per_mtok

    def for_batch(self) -> ModelPrice:
        """The price of the same model through its batch API. Batch requests ask for no cache
        (see `citecheck.judge.batch`): any cache token a batch result reports is charged as
        plain batch input, which is never less than its real price."""
        return replace(
            self,
            input_per_mtok=self.batch_input_per_mtok or self.input_per_mtok,
            output_per_mtok=self.batch_output_per_mtok or self.output_per_mtok,
            cache_write_per_mtok=None,
            cache_read_per_mtok=None,
        )

    @property
    def worst_input_per_mtok(self) -> float:
        """The most one input token can cost: a cache write may cost more than plain input."""
        return max(self.input_per_mtok, self.cache_write_per_mtok or 0.0)


def _price_table(providers: list[Provider]) -> dict[str, ModelPrice]:
    table: dict[str, ModelPrice] = {}
    for provider in providers:
        for model, price in provider.prices.items():
            if model in table:
                # A model has one price; two lists naming it would make the cap depend on order.
                raise ValueError(f"model {model!r} is priced by two providers")
            table[model] = ModelPrice(
                provider.price_family,
                price.input,
                price.output,
                cache_write_per_mtok=price.cache_write,
                cache_read_per_mtok=price.cache_read,
                batch_input_per_mtok=price.batch_input,
                batch_output_per_mtok=price.batch_output,
                min_cache_tokens=price.min_cache_tokens,
            )
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


def likely_tokens(text: str) -> int:
    """About how many tokens `text` is (four bytes a token, English's rate): for pacing to the
    account's token rate limits and for whether a prefix is long enough to cache, never for
    the cost cap (`estimate_tokens`)."""
    return (estimate_tokens(text) + 3) // 4


def cost_usd(
    price: ModelPrice,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> float:
    """What a call costs; `input_tokens` counts every input token, cache reads and writes included."""
    plain = max(0, input_tokens - cache_read_tokens - cache_write_tokens)
    read = price.cache_read_per_mtok if price.cache_read_per_mtok is not None else price.input_per_mtok
    write = price.cache_write_per_mtok if price.cache_write_per_mtok is not None else price.input_per_mtok
    return (
        plain * price.input_per_mtok
        + cache_read_tokens * read
        + cache_write_tokens * write
        + output_tokens * price.output_per_mtok
    ) / 1_000_000
