"""The cost cap (docs/ARCHITECTURE.md, the judge stage): the run's judge spend never exceeds
`max_cost_usd`.

Before each call its worst case (an over-estimate of the input tokens plus `max_tokens` of
output, at the model's list price) is reserved against what remains of the cap; a call that
does not fit is not made, and no later call is either. After the call the reservation is
settled on the usage the API reports (or released, when the call failed), so the
over-estimate only ever stops the last call or so before the cap a little early.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from citecheck.judge.pricing import ModelPrice, cost_usd, estimate_tokens
from citecheck.judge.prompt import PROMPT_JSON_NOTE, VERDICT_SCHEMA

# The tool definition (Anthropic wraps it in a system prompt of its own, ~350 tokens) and
# per-message framing are covered by a fixed allowance.
FRAMING_TOKENS = 600


def input_upper_bound(system: str, user: str) -> int:
    """The most input tokens a call with these messages can be billed, whichever way the
    provider asks for the verdict schema (as a tool, a response format or a prompt note)."""
    return estimate_tokens(system + user + PROMPT_JSON_NOTE + json.dumps(VERDICT_SCHEMA)) + FRAMING_TOKENS


@dataclass(frozen=True)
class Reservation:
    """The worst case of one call, held against the cap while the call is in flight."""

    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class Charge:
    """What one call cost."""

    input_tokens: int
    output_tokens: int
    cost_usd: float


class CostLedger:
    """The spend of one run's judge calls against its cap."""

    def __init__(self, cap_usd: float, price: ModelPrice) -> None:
        self.cap_usd = cap_usd
        self.price = price
        self._spent = 0.0
        self._reserved = 0.0
        self._capped = False

    @property
    def spent_usd(self) -> float:
        return self._spent

    @property
    def capped(self) -> bool:
        """A call did not fit: from then on none is made."""
        return self._capped

    def reserve(self, input_tokens: int, max_output_tokens: int) -> Reservation | None:
        """The call's reservation, or None when its worst case does not fit under the cap."""
        worst = cost_usd(self.price, input_tokens, max_output_tokens)
        # No await in here: under asyncio this check-and-reserve is atomic.
        if self._capped or self._spent + self._reserved + worst > self.cap_usd:
            self._capped = True
            return None
        self._reserved += worst
        return Reservation(input_tokens, max_output_tokens, worst)

    def settle(self, reservation: Reservation, input_tokens: int | None, output_tokens: int | None) -> Charge:
        """Charge the call's reported usage in place of its reservation; usage the server did
        not report (some compatible servers) is charged at the reserved worst case."""
        tin = input_tokens if input_tokens is not None else reservation.input_tokens
        tout = output_tokens if output_tokens is not None else reservation.output_tokens
        actual = cost_usd(self.price, tin, tout)
        self._reserved -= reservation.cost_usd
        self._spent += actual
        return Charge(tin, tout, actual)

    def release(self, reservation: Reservation) -> None:
        """The call failed or was cancelled: nothing was billed."""
        self._reserved -= reservation.cost_usd
