"""Pacing the judge to the account: the providers' rate-limit headers read, the mirror of their
token buckets, the concurrency window (AIMD), back-off and the deadline — on a clock the test
moves, so nothing here waits."""

from __future__ import annotations

import asyncio
import email.utils
import time

import httpx
import pytest

from citecheck.judge.pacing import SPARE, START, DeadlineReached, Pacer, Ticket, backoff_s
from citecheck.judge.providers import PROVIDERS
from citecheck.judge.providers.base import BucketReading, retry_after_s
from citecheck.judge.providers.openai import parse_duration

ANTHROPIC = PROVIDERS["anthropic"]
OPENAI = PROVIDERS["openai"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.wall = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def wall_time(self) -> float:
        return self.wall

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.wall += seconds


def pacer(ceiling: int = 32) -> tuple[Pacer, Clock]:
    clock = Clock()
    return Pacer(ceiling, clock=clock, wall=clock.wall_time), clock


def acquire(p: Pacer, clock: Clock, cost: dict[str, float] | None = None, *, within: float = 0.0) -> Ticket:
    """A place for a call now, or DeadlineReached when it would have to wait past `within` s."""

    async def go() -> Ticket:
        return await p.acquire(cost or {"requests": 1.0}, clock.now + within)

    return asyncio.run(go())


# -- the headers ----------------------------------------------------------------------------------


def test_anthropic_rate_limit_headers_are_read() -> None:
    # As a real response carries them: an RFC 3339 time at which the bucket is full again.
    headers = httpx.Headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "12",
            "anthropic-ratelimit-requests-reset": "2025-08-21T12:40:59Z",
            "anthropic-ratelimit-tokens-limit": "96000",
            "anthropic-ratelimit-tokens-remaining": "90000",
            "anthropic-ratelimit-tokens-reset": "2025-08-21T12:41:00.500Z",
            "anthropic-ratelimit-input-tokens-limit": "80000",
            "anthropic-ratelimit-input-tokens-remaining": "79000",
            "anthropic-ratelimit-input-tokens-reset": "2025-08-21T12:40:59Z",
            "anthropic-ratelimit-output-tokens-limit": "16000",
            "anthropic-ratelimit-output-tokens-remaining": "oops",
        }
    )
    limits = ANTHROPIC.rate_limits(headers)
    assert set(limits) == {"requests", "tokens", "input-tokens"}  # an unreadable one is left out
    requests = limits["requests"]
    assert (requests.limit, requests.remaining, requests.reset_s) == (50, 12, None)
    assert (
        requests.reset_at == email.utils.parsedate_to_datetime("Thu, 21 Aug 2025 12:40:59 +0000").timestamp()
    )
    assert limits["tokens"].reset_at == pytest.approx(requests.reset_at + 1.5)  # type: ignore[operator]
    assert ANTHROPIC.rate_limits(httpx.Headers({})) == {}


def test_openai_rate_limit_headers_are_read_with_their_durations() -> None:
    headers = httpx.Headers(
        {
            "x-ratelimit-limit-requests": "5000",
            "x-ratelimit-remaining-requests": "4999",
            "x-ratelimit-reset-requests": "12ms",
            "x-ratelimit-limit-tokens": "160000",
            "x-ratelimit-remaining-tokens": "100000",
            "x-ratelimit-reset-tokens": "6m0s",
        }
    )
    limits = OPENAI.rate_limits(headers)
    assert limits["requests"] == BucketReading(5000, 4999, 0.012)
    assert limits["tokens"] == BucketReading(160000, 100000, 360.0)
    # Some proxies state no limit as -1: nothing to pace to.
    assert (
        OPENAI.rate_limits(
            httpx.Headers({"x-ratelimit-limit-tokens": "-1", "x-ratelimit-remaining-tokens": "-1"})
        )
        == {}
    )


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1s", 1.0), ("6m0s", 360.0), ("12ms", 0.012), ("1h2m3.5s", 3723.5), ("8.64s", 8.64), ("0s", 0.0)],
)
def test_openai_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5", "1x", "m5s", None])
def test_unreadable_durations_are_none(text: str | None) -> None:
    assert parse_duration(text) is None


def test_retry_after_in_its_three_forms() -> None:
    assert retry_after_s(httpx.Headers({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert retry_after_s(httpx.Headers({"retry-after": "7"})) == 7.0
    in_a_minute = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 < retry_after_s(httpx.Headers({"retry-after": in_a_minute})) <= 60  # type: ignore[operator]
    assert retry_after_s(httpx.Headers({"retry-after": "whenever"})) is None
    assert retry_after_s(httpx.Headers({})) is None


def test_backoff_doubles_up_to_a_minute_with_jitter() -> None:
    assert [backoff_s(n, lambda: 0.0) for n in (1, 2, 3, 7, 20)] == [1.0, 2.0, 4.0, 60.0, 60.0]
    assert backoff_s(3, lambda: 1.0) == 3.0  # at most a quarter less


# -- the concurrency window ------------------------------------------------------------------------


def test_without_headers_the_window_starts_small_and_grows_while_calls_succeed() -> None:
    p, clock = pacer(ceiling=10)
    tickets = [acquire(p, clock) for _ in range(START)]
    with pytest.raises(DeadlineReached):
        acquire(p, clock)  # a fifth call waits for a place
    for t in tickets:
        p.release(t, ok=True)
    assert p.window == START + 4  # one more per success: doubling each round
    for _ in range(20):
        p.release(acquire(p, clock), ok=True)
    assert p.window == 10  # up to the ceiling, no further


def test_a_throttle_halves_the_window_once_per_round_of_calls() -> None:
    p, clock = pacer(ceiling=32)
    first = [acquire(p, clock) for _ in range(4)]
    for t in first:
        p.release(t, ok=True)
    assert p.window == 8
    round_ = [acquire(p, clock) for _ in range(8)]
    clock.advance(1)
    for t in round_:
        p.release(t, throttled=True)  # eight 429s of one round: one cut
    assert p.window == 4 and p.stats.throttled == 8
    for _ in range(4):
        p.release(acquire(p, clock), ok=True)
    assert 4 < p.window < 6  # after a cut: one more per round, not per call


def test_headers_with_a_request_limit_open_the_window_to_the_ceiling() -> None:
    p, clock = pacer(ceiling=20)
    t = acquire(p, clock)
    p.release(t, ok=True, limits={"requests": BucketReading(1000, 999, 0.06)})
    assert p.window == 20 and p.stats.paced_by_headers


# -- the buckets -----------------------------------------------------------------------------------


def test_an_empty_bucket_holds_calls_back_until_it_refills() -> None:
    p, clock = pacer()
    t = acquire(p, clock)
    # 60 a minute, nothing left: the next request in a second, with the spare one in two.
    p.release(t, ok=True, limits={"requests": BucketReading(60, 0, 60.0)})
    with pytest.raises(DeadlineReached, match="rate limit"):
        acquire(p, clock, within=1.9)
    clock.advance(1 + SPARE["requests"] + 0.1)  # refilled at the rate the reading implies: 59.5 a minute
    acquire(p, clock)


def test_calls_sent_after_the_one_a_reading_answers_are_taken_off_it() -> None:
    p, clock = pacer()
    first = acquire(p, clock)
    p.release(first, ok=True, limits={"requests": BucketReading(10, 10, None)})  # a bucket of 10
    reader = acquire(p, clock)
    later = [acquire(p, clock) for _ in range(5)]  # sent after `reader` reached the provider
    # The reading `reader` brings back was taken when it arrived: 9 left, before the 5 others.
    p.release(reader, ok=True, limits={"requests": BucketReading(10, 9, None)})
    for _ in range(3):
        acquire(p, clock)  # 9 - 5 = 4 left: 3 calls, and the spare
    with pytest.raises(DeadlineReached):
        acquire(p, clock)
    for t in later:
        p.release(t, ok=True)


def test_the_refill_rate_comes_from_the_headers_when_they_tell_it() -> None:
    p, clock = pacer()
    t = acquire(p, clock)
    # 20 of 60 used, full again in 5 s: 4 a second, not the 1 a second of "60 a minute".
    p.release(t, ok=True, limits={"requests": BucketReading(60, 40, 5.0)})
    p.release(acquire(p, clock), ok=True, limits={"requests": BucketReading(60, 0, 15.0)})
    with pytest.raises(DeadlineReached):
        acquire(p, clock, within=0.3)
    clock.advance(0.6)  # (1 + the spare) at about 4 a second: half a second
    acquire(p, clock)


def test_an_absolute_reset_counts_from_when_the_reading_was_taken() -> None:
    p, clock = pacer()
    t = acquire(p, clock)
    clock.advance(2)  # the answer comes 2 s after the call: the reading is 2 s old
    reset_at = t.wall + 30  # full again 30 s after the reading: 30 used over 30 s, 1 a second
    p.release(t, ok=True, limits={"requests": BucketReading(60, 30, reset_at=reset_at)})
    assert p._buckets["requests"].rate == pytest.approx(29.5 / 30)


def test_calls_sent_together_and_answered_out_of_order_do_not_overdraw_the_account() -> None:
    # 4 calls let go at once reach the provider in the order 4, 1, 2, 3 (a 4-a-second account,
    # full): their readings say 3, 2, 1, 0 left. Answers read in the order 1, 2, 3, 4 — the last
    # one, from the call that arrived first, is the oldest news. The account is empty: the next
    # call waits (before, the mirror believed call 4's reading and let two calls go: two 429s).
    p, clock = pacer()
    tickets = [acquire(p, clock) for _ in range(4)]
    readings = {0: 2, 1: 1, 2: 0, 3: 3}
    for k, t in enumerate(tickets):
        clock.advance(0.001)
        p.release(
            t, ok=True, limits={"requests": BucketReading(4, readings[k], reset_s=0.25 * (4 - readings[k]))}
        )
    with pytest.raises(DeadlineReached):
        acquire(p, clock, within=0.1)
    # the first answer read, from the call that arrived second, misses the calls still in flight
    p, clock = pacer()
    tickets = [acquire(p, clock) for _ in range(4)]
    clock.advance(0.001)
    p.release(tickets[3], ok=True, limits={"requests": BucketReading(4, 3, reset_s=0.25)})
    assert p._buckets["requests"].level < 1  # 3 left at its arrival, less the 3 calls sent before it


def test_a_call_never_sent_gives_its_share_back() -> None:
    p, clock = pacer()
    p.release(acquire(p, clock), ok=True, limits={"requests": BucketReading(3, 3, None)})
    t = acquire(p, clock)
    p.release(t, unused=True)
    acquire(p, clock)
    acquire(p, clock)  # 3 - 2 = 1 left: the spare
    with pytest.raises(DeadlineReached):
        acquire(p, clock)


def test_a_pause_holds_every_call_and_the_deadline_ends_the_wait_at_once() -> None:
    p, clock = pacer()
    p.pause(30)  # a 429's Retry-After
    with pytest.raises(DeadlineReached):
        acquire(p, clock, within=10)
    clock.advance(30)
    acquire(p, clock)


def test_a_timed_out_call_halves_the_window_without_counting_as_a_throttle() -> None:
    # A server that states no limits (a local one) tells it is swamped only by answering late.
    p, clock = pacer(ceiling=32)
    for _ in range(4):
        p.release(acquire(p, clock), ok=True)
    assert p.window == 8
    p.release(acquire(p, clock), congested=True)
    assert p.window == 4 and p.stats.throttled == 0


def test_timeouts_and_throttles_are_congestion_other_failures_are_not() -> None:
    import anthropic

    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")

    def status_error(status: int, headers: dict[str, str] | None = None) -> anthropic.APIStatusError:
        response = httpx.Response(status, headers=headers or {}, request=request)
        return ANTHROPIC_ERRORS[status](f"HTTP {status}", response=response, body=None)

    ANTHROPIC_ERRORS = {
        429: anthropic.RateLimitError,
        529: anthropic.InternalServerError,
        500: anthropic.InternalServerError,
        400: anthropic.BadRequestError,
    }
    throttle = ANTHROPIC.retry_advice(status_error(429, {"retry-after": "3"}))
    assert throttle is not None and (throttle.kind, throttle.after_s, throttle.congested) == (
        "throttle",
        3.0,
        True,
    )
    overloaded = ANTHROPIC.retry_advice(status_error(529))
    assert overloaded is not None and overloaded.kind == "throttle"
    server_error = ANTHROPIC.retry_advice(status_error(500))
    assert server_error is not None and (server_error.kind, server_error.congested) == ("transient", False)
    timeout = ANTHROPIC.retry_advice(anthropic.APITimeoutError(request=request))
    assert timeout is not None and (timeout.kind, timeout.congested) == ("transient", True)
    assert ANTHROPIC.retry_advice(status_error(400)) is None
    assert ANTHROPIC.retry_advice(status_error(429, {"x-should-retry": "false"})) is None
    assert ANTHROPIC.retry_advice(KeyError("a bug")) is None
