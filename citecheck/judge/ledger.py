"""The cost cap (docs/ARCHITECTURE.md, the judge stage): the run's judge spend never exceeds
`max_cost_usd`.

Before each call its worst case (an over-estimate of the input tokens plus `max_tokens` of
output, at the model's price — its batch price in batch mode, the price of a prompt-cache
write when the call may write the cache) is reserved against what remains of the cap; a call
that does not fit is not made, and no later call is either. After the call the reservation is
settled on the usage the API reports, cache reads and writes at their own prices (or
released, when the call failed), so the over-estimate only ever stops the last call or so
before the cap a little early.

With many calls in flight their reservations add up to far more than they will cost: a call
that would not fit beside them, but fits beside what was really spent, waits for them to
settle (`reserve_when_room`) instead of ending the run's judging early.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from citecheck.judge.pricing import ModelPrice, cost_usd, estimate_tokens
from citecheck.judge.prompt import VERDICT_TOOL
from citecheck.judge.providers.base import OutputTool

# The tool definition (Anthropic wraps it in a system prompt of its own, ~350 tokens) and
# per-message framing are covered by a fixed allowance.
FRAMING_TOKENS = 600


def input_upper_bound(system: str, user: str, tool: OutputTool = VERDICT_TOOL) -> int:
    """The most input tokens a call with these messages can be billed, whichever way the
    provider asks for the answer's schema (as a tool, a response format or a prompt note)."""
    return estimate_tokens(system + user + tool.json_note + json.dumps(tool.schema)) + FRAMING_TOKENS


@dataclass(frozen=True)
class Reservation:
    """The worst case of one call, held against the cap while the call is in flight."""

    input_tokens: int
    output_tokens: int
    cost_usd: float
    price: ModelPrice  # what the call is billed at (the ledger's own, or the one it was reserved at)


@dataclass(frozen=True)
class Charge:
    """What one call cost."""

    input_tokens: int
    output_tokens: int
    cost_usd: float
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class CostLedger:
    """The spend of one run's judge calls against its cap."""

    def __init__(self, cap_usd: float, price: ModelPrice) -> None:
        self.cap_usd = cap_usd
        self.price = price
        self._spent = 0.0
        self._reserved = 0.0
        self._capped = False
        self._waiters: list[asyncio.Future[None]] = []  # calls waiting for room (`reserve_when_room`)

    @property
    def spent_usd(self) -> float:
        return self._spent

    @property
    def capped(self) -> bool:
        """A call did not fit: from then on none is made."""
        return self._capped

    def worst_case(
        self,
        input_tokens: int,
        max_output_tokens: int,
        *,
        cache: bool = False,
        price: ModelPrice | None = None,
    ) -> float:
        price = price or self.price
        price_in = price.worst_input_per_mtok if cache else price.input_per_mtok
        return (input_tokens * price_in + max_output_tokens * price.output_per_mtok) / 1_000_000

    def reserve(
        self,
        input_tokens: int,
        max_output_tokens: int,
        *,
        cache: bool = False,
        price: ModelPrice | None = None,
    ) -> Reservation | None:
        """The call's reservation, or None when its worst case does not fit under the cap
        (`cache`: the call may write the prompt cache, at its price; `price`: the call is billed
        at another price than the ledger's, e.g. a call made one at a time in a batch-mode run)."""
        price = price or self.price
        worst = self.worst_case(input_tokens, max_output_tokens, cache=cache, price=price)
        # No await in here: under asyncio this check-and-reserve is atomic.
        if self._capped or self._spent + self._reserved + worst > self.cap_usd:
            self._capped = True
            return None
        self._reserved += worst
        return Reservation(input_tokens, max_output_tokens, worst, price)

    async def reserve_when_room(
        self,
        input_tokens: int,
        max_output_tokens: int,
        *,
        cache: bool = False,
        price: ModelPrice | None = None,
    ) -> Reservation | None:
        """Like `reserve`, but a call that fits beside what was spent and not yet beside the
        calls in flight waits for them to settle rather than being refused."""
        worst = self.worst_case(input_tokens, max_output_tokens, cache=cache, price=price)
        while (
            not self._capped
            and self._reserved > 0
            and self._spent + self._reserved + worst > self.cap_usd
            and self._spent + worst <= self.cap_usd
        ):
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        return self.reserve(input_tokens, max_output_tokens, cache=cache, price=price)

    def settle(
        self,
        reservation: Reservation,
        input_tokens: int | None,
        output_tokens: int | None,
        *,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> Charge:
        """Charge the call's reported usage in place of its reservation; usage the server did
        not report (some compatible servers) is charged at the reserved worst case."""
        if input_tokens is None:
            tin, cache_read_tokens, cache_write_tokens = reservation.input_tokens, 0, 0
        else:
            tin = input_tokens
        tout = output_tokens if output_tokens is not None else reservation.output_tokens
        actual = cost_usd(
            reservation.price,
            tin,
            tout,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
        )
        self._reserved -= reservation.cost_usd
        self._spent += actual
        self._notify()
        return Charge(tin, tout, actual, cache_read_tokens, cache_write_tokens)

    def release(self, reservation: Reservation) -> None:
        """The call failed or was cancelled: nothing was billed."""
        self._reserved -= reservation.cost_usd
        self._notify()

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
