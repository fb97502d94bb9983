"""The cost cap's arithmetic: reserve the worst case before a call, settle on the real usage."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from citecheck.judge.ledger import CostLedger, input_upper_bound
from citecheck.judge.pricing import ModelPrice, cost_usd
from citecheck.judge.prompt import PROMPT_JSON_NOTE, VERDICT_SCHEMA

PRICE = ModelPrice("anthropic", 3.00, 15.00)  # per million tokens: $0.000003 in, $0.000015 out


def test_a_call_that_fits_is_reserved_then_charged_its_real_usage() -> None:
    ledger = CostLedger(1.0, PRICE)
    reservation = ledger.reserve(10_000, 1_000)
    assert reservation is not None
    assert reservation.cost_usd == pytest.approx(0.03 + 0.015)
    charge = ledger.settle(reservation, 2_000, 100)
    assert (charge.input_tokens, charge.output_tokens) == (2_000, 100)
    assert charge.cost_usd == pytest.approx(cost_usd(PRICE, 2_000, 100)) == ledger.spent_usd
    assert not ledger.capped


def test_unreported_usage_is_charged_at_the_reserved_worst_case() -> None:
    ledger = CostLedger(1.0, PRICE)
    reservation = ledger.reserve(10_000, 1_000)
    assert reservation is not None
    charge = ledger.settle(reservation, None, 40)
    assert (charge.input_tokens, charge.output_tokens) == (10_000, 40)
    charge = ledger.settle(ledger.reserve(5, 1_000), 5, None)  # type: ignore[arg-type]
    assert (charge.input_tokens, charge.output_tokens) == (5, 1_000)


def test_a_call_whose_worst_case_does_not_fit_is_refused_and_so_is_every_later_one() -> None:
    ledger = CostLedger(0.05, PRICE)
    assert ledger.reserve(10_000, 1_000) is not None  # $0.045 of $0.05 held
    assert ledger.reserve(10_000, 1_000) is None  # would pass the cap while the first is in flight
    assert ledger.capped
    # Even a call small enough to fit now is refused: the cap stops the run's calls for good.
    assert ledger.reserve(1, 1) is None


def test_in_flight_reservations_count_and_a_failed_call_releases_its_own() -> None:
    ledger = CostLedger(0.1, PRICE)
    first = ledger.reserve(10_000, 1_000)
    second = ledger.reserve(10_000, 1_000)
    assert first is not None and second is not None  # $0.09 held
    ledger.release(first)
    ledger.settle(second, 1_000, 100)
    assert ledger.spent_usd == pytest.approx(cost_usd(PRICE, 1_000, 100))
    # With both reservations gone, the room is the cap minus what was spent.
    assert ledger.reserve(10_000, 1_000) is not None and ledger.reserve(10_000, 1_000) is not None


def test_worst_case_exactly_at_the_cap_fits() -> None:
    price = ModelPrice("openai", 1.0, 1.0)
    ledger = CostLedger(cost_usd(price, 500_000, 500_000), price)
    assert ledger.reserve(500_000, 500_000) is not None


def test_a_zero_cap_allows_no_call() -> None:
    assert CostLedger(0.0, PRICE).reserve(1, 1) is None


def test_spend_never_passes_the_cap_whatever_the_billed_usage() -> None:
    rng = random.Random(7)
    capped = 0
    for _ in range(50):
        ledger = CostLedger(rng.uniform(0.01, 0.5), PRICE)
        in_flight = []
        for _ in range(200):
            if in_flight and rng.random() < 0.5:
                r = in_flight.pop(rng.randrange(len(in_flight)))
                # Billed usage never exceeds what was reserved: input_upper_bound is an upper bound.
                ledger.settle(r, rng.randint(0, r.input_tokens), rng.randint(0, r.output_tokens))
            else:
                r = ledger.reserve(rng.randint(100, 20_000), rng.randint(100, 5_000))
                if r is not None:
                    in_flight.append(r)
        for r in in_flight:
            ledger.settle(r, r.input_tokens, r.output_tokens)
        assert ledger.spent_usd <= ledger.cap_usd
        capped += ledger.capped
    assert capped > 25  # the cap was reached, not merely never approached


def test_input_upper_bound_covers_every_byte_sent_and_the_framing() -> None:
    system, user = "sys ✓", "user " * 100
    assert input_upper_bound(system, user) == (
        len((system + user + PROMPT_JSON_NOTE + json.dumps(VERDICT_SCHEMA)).encode()) + 600
    )


CACHED = ModelPrice("anthropic", 3.00, 15.00, cache_write_per_mtok=3.75, cache_read_per_mtok=0.30)


def test_a_call_that_may_write_the_cache_reserves_at_the_write_price() -> None:
    ledger = CostLedger(1.0, CACHED)
    plain = ledger.reserve(10_000, 1_000)
    cached = ledger.reserve(10_000, 1_000, cache=True)
    assert plain is not None and cached is not None
    assert plain.cost_usd == pytest.approx(0.03 + 0.015)
    assert cached.cost_usd == pytest.approx(0.0375 + 0.015)


def test_cache_reads_and_writes_are_charged_at_their_prices() -> None:
    ledger = CostLedger(1.0, CACHED)
    reservation = ledger.reserve(10_000, 1_000, cache=True)
    assert reservation is not None
    # 6,000 input tokens: 4,000 read from the cache, 1,500 written to it, 500 plain.
    charge = ledger.settle(reservation, 6_000, 100, cache_read_tokens=4_000, cache_write_tokens=1_500)
    expected = (500 * 3.00 + 4_000 * 0.30 + 1_500 * 3.75 + 100 * 15.00) / 1_000_000
    assert charge.cost_usd == pytest.approx(expected) == ledger.spent_usd
    assert (charge.cache_read_tokens, charge.cache_write_tokens) == (4_000, 1_500)
    assert cost_usd(CACHED, 6_000, 100, cache_read_tokens=4_000, cache_write_tokens=1_500) == pytest.approx(
        expected
    )


def test_without_cache_prices_cache_tokens_cost_as_plain_input() -> None:
    assert cost_usd(PRICE, 6_000, 0, cache_read_tokens=4_000, cache_write_tokens=1_000) == pytest.approx(
        cost_usd(PRICE, 6_000, 0)
    )


def test_a_call_that_fits_beside_the_spend_waits_for_the_calls_in_flight() -> None:
    async def go() -> None:
        ledger = CostLedger(0.1, PRICE)
        first = ledger.reserve(10_000, 1_000)  # $0.045 held
        second = ledger.reserve(10_000, 1_000)  # $0.09 held
        assert first is not None and second is not None
        waiting = asyncio.create_task(ledger.reserve_when_room(10_000, 1_000))
        await asyncio.sleep(0)
        assert not waiting.done() and not ledger.capped  # not refused: the two may cost less
        ledger.settle(first, 1_000, 100)
        third = await waiting
        assert third is not None and not ledger.capped
        # One that does not fit even beside the real spend is refused at once, as before.
        assert await ledger.reserve_when_room(100_000, 10_000) is None and ledger.capped

    asyncio.run(go())


def test_a_call_reserved_at_another_price_is_charged_at_that_price_under_the_same_cap() -> None:
    """A batch-mode run's ledger prices at the batch rate; the screen's calls go one at a time
    and are billed at the standard one: reserved and settled at it, against the one cap."""
    batch = ModelPrice("anthropic", 1.50, 7.50)
    ledger = CostLedger(0.05, batch)
    standard = ledger.reserve(10_000, 1_000, price=PRICE)
    assert standard is not None and standard.cost_usd == pytest.approx(0.03 + 0.015)
    assert ledger.settle(standard, 2_000, 100).cost_usd == pytest.approx(cost_usd(PRICE, 2_000, 100))
    # What is left of the cap ($0.0425) fits this call at the batch price ($0.0225), not at the
    # standard one ($0.045).
    assert ledger.worst_case(10_000, 1_000) < ledger.cap_usd - ledger.spent_usd
    assert ledger.reserve(10_000, 1_000, price=PRICE) is None
