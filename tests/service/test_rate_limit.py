"""The per-API-key rate limiters: exact rolling windows of 1 s and 60 s, in process and in Redis.

In-process tests drive an injected fake clock whose times are multiples of 1/1024 s, so every
sum and difference below is exact in binary floating point. Redis tests use the real server at
127.0.0.1:6379 (skipped if it is not there, failed under CI=true), a unique key prefix per test
(deleted afterwards) and small limits, and judge timing from the Redis TIME each decision
reports, never from exact sleeps.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import os
import random
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import uuid4

import pytest
from outreach_api.constants import RATE_LIMIT_PER_MINUTE, RATE_LIMIT_PER_SECOND
from outreach_server.core.limiter import (
    Decision,
    InProcessRateLimiter,
    Limits,
    RateLimiterUnavailable,
    RedisRateLimiter,
    retry_after_seconds,
)
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.exceptions import RedisError

TICK = 1 / 1024
REDIS_URL = "redis://127.0.0.1:6379/0"
US = 1_000_000


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def burst(limiter: InProcessRateLimiter, key: str, count: int) -> list[Decision]:
    return [limiter.decide(key) for _ in range(count)]


def assert_no_window_overflow(admitted: list[float], limits: Limits, second: float = 1.0) -> None:
    """No `per_second` + 1 admissions within any `second`, nor `per_minute` + 1 within 60x that.

    Any window (x - w, x] holding admissions i..j holds i..i+limit when j >= i + limit, so it is
    enough to look at each admission and the one `limit` places later.
    """
    times = sorted(admitted)
    for limit, width in ((limits.per_second, second), (limits.per_minute, 60 * second)):
        for i in range(len(times) - limit):
            assert times[i + limit] - times[i] >= width, (limit, width, times[i], times[i + limit])


def count_in(times: list[float], start: float, end: float) -> int:
    """How many of the sorted `times` lie in (start, end]."""
    return bisect.bisect_right(times, end) - bisect.bisect_right(times, start)


def fits(times: list[float], now: float, limits: Limits) -> bool:
    """Whether a request at `now` is admissible given the admitted `times`, from first principles."""
    return (
        count_in(times, now - 1, now) < limits.per_second
        and count_in(times, now - 60, now) < limits.per_minute
    )


# -- shared pieces ------------------------------------------------------------------------------


def test_default_limits_come_from_the_spec_constants() -> None:
    assert Limits.default() == Limits(RATE_LIMIT_PER_SECOND, RATE_LIMIT_PER_MINUTE)


@pytest.mark.parametrize(("per_second", "per_minute"), [(0, 200), (10, 0), (-1, -1)])
def test_limits_below_one_are_rejected(per_second: int, per_minute: int) -> None:
    with pytest.raises(ValueError):
        Limits(per_second, per_minute)


@pytest.mark.parametrize(
    ("wait", "expected"),
    [(1e-6, 1), (0.5, 1), (1.0, 1), (1.001, 2), (59.2, 60), (60.0, 60), (0.0, 1)],
)
def test_retry_after_rounds_up_to_whole_seconds(wait: float, expected: int) -> None:
    assert retry_after_seconds(wait) == expected


# -- in process ---------------------------------------------------------------------------------


def test_burst_admits_exactly_per_second_then_refuses_for_one_second() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    decisions = burst(limiter, "k", 11)
    assert [d.allowed for d in decisions] == [True] * 10 + [False]
    assert [d.retry_after for d in decisions] == [0] * 10 + [1]
    assert [d.remaining_second for d in decisions] == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]
    assert decisions[9].remaining_minute == 190
    assert decisions[10].remaining_minute == 190  # the refusal used nothing up
    clock.advance(1 - TICK)
    assert limiter.decide("k") == Decision(False, 1, 0, 190, 1 - TICK)
    clock.advance(TICK)
    assert [d.allowed for d in burst(limiter, "k", 11)] == [True] * 10 + [False]


def test_hit_is_the_async_face_of_decide() -> None:
    limiter = InProcessRateLimiter(Limits(1, 1), FakeClock())

    async def scenario() -> list[Decision]:
        assert await limiter.ping()
        decisions = [await limiter.hit("k"), await limiter.hit("k")]
        await limiter.close()
        return decisions

    first, second = asyncio.run(scenario())
    assert first.allowed and not second.allowed


def test_minute_limit_holds_across_seconds_until_the_oldest_leaves() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    for second in range(20):  # 10 per second for 20 s fills the minute
        clock.now = float(second)
        assert all(d.allowed for d in burst(limiter, "k", 10))
    clock.now = 20.0
    refused = limiter.decide("k")
    assert (refused.allowed, refused.retry_after) == (False, 40)
    assert (refused.remaining_second, refused.remaining_minute) == (10, 0)
    clock.now = 59.5
    assert limiter.decide("k").retry_after == 1
    clock.now = 60 - TICK
    assert not limiter.decide("k").allowed
    clock.now = 60.0  # the 10 admitted at 0 s leave the minute
    assert [d.allowed for d in burst(limiter, "k", 11)] == [True] * 10 + [False]
    clock.now = 61.0  # those admitted at 1 s leave; the 60 s ones left the second
    assert [d.allowed for d in burst(limiter, "k", 11)] == [True] * 10 + [False]


def test_refused_requests_use_up_nothing() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits(per_second=10, per_minute=30), clock)
    burst(limiter, "k", 10)
    while clock.now < 1 - TICK:  # hammer through the rest of the second
        clock.advance(TICK)
        assert not limiter.decide("k").allowed
    clock.advance(TICK)
    assert limiter.decide("k").allowed  # exactly when the first burst leaves the second
    clock.now = 2.0
    burst(limiter, "k", 10)  # admitted: 10 at 0 s, 1 at 1 s, 10 at 2 s, so 9 left this minute
    clock.now = 3.0
    assert sum(d.allowed for d in burst(limiter, "k", 10)) == 9
    while clock.now + 1 / 64 < 60:  # hammer until just before the 0 s burst leaves the minute
        clock.advance(1 / 64)
        assert limiter.decide("k").retry_after == math.ceil(60 - clock.now)
    clock.now = 60 - TICK
    assert not limiter.decide("k").allowed
    clock.now = 60.0
    assert sum(d.allowed for d in burst(limiter, "k", 20)) == 10


@pytest.mark.parametrize("seed", range(6))
def test_random_schedule_never_overflows_a_window_and_retry_after_is_exact(seed: int) -> None:
    rng = random.Random(seed)
    limits = Limits(per_second=rng.choice([1, 3, 10]), per_minute=rng.choice([20, 45, 200]))
    clock = FakeClock(rng.randrange(1 << 20) * TICK)
    limiter = InProcessRateLimiter(limits, clock)
    admitted: list[float] = []
    for _ in range(6000):
        clock.advance(rng.choice([0, 0, 1, 7, 40, 100, 300, 1024, 5000, 20000]) * TICK)
        now = clock.now
        expected = fits(admitted, now, limits)
        decision = limiter.decide("k")
        assert decision.allowed == expected, (seed, now)
        if decision.allowed:
            admitted.append(now)
            continue
        wait = decision.retry_after  # admitted after exactly this wait, not a second sooner
        assert fits(admitted, now + wait, limits), (seed, now, wait)
        assert wait == 1 or not fits(admitted, now + wait - 1, limits), (seed, now, wait)
    assert_no_window_overflow(admitted, limits)
    assert len(admitted) > 5 * limits.per_minute  # the schedule reached the limits many times


@pytest.mark.parametrize("seed", range(4))
def test_a_client_that_waits_exactly_retry_after_is_admitted(seed: int) -> None:
    rng = random.Random(seed)
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    waited = 0
    for _ in range(3000):
        decision = limiter.decide("k")
        if decision.allowed:
            clock.advance(rng.choice([0, 0, 0, 3, 50, 400]) * TICK)
            continue
        clock.advance(decision.retry_after)
        assert limiter.decide("k").allowed, (seed, clock.now)
        waited += 1
    assert waited > 100


def test_keys_are_independent() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    assert all(d.allowed for d in burst(limiter, "a", 10))
    assert not limiter.decide("a").allowed
    assert all(d.allowed for d in burst(limiter, "b", 10))
    assert not limiter.decide("b").allowed


def test_idle_keys_are_evicted_and_live_ones_kept() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    limiter.decide("idle")
    clock.now = 59.5
    assert all(d.allowed for d in burst(limiter, "busy", 10))
    clock.now = 60.25  # the first sweep happens; "busy" is still in its second
    assert limiter.decide("other").allowed
    assert limiter.key_count == 3
    assert not limiter.decide("busy").allowed
    clock.now = 121.0  # "idle" not seen since 0 s, "busy" since 60.25 s
    limiter.decide("other")
    assert limiter.key_count == 2
    clock.now = 1000.0  # nothing for several minutes: everything goes at once
    limiter.decide("new")
    assert limiter.key_count == 1


def test_memory_stays_bounded_under_many_keys() -> None:
    clock = FakeClock()
    limiter = InProcessRateLimiter(Limits.default(), clock)
    for i in range(40_000):  # a new key every 1/64 s for 625 s
        clock.advance(1 / 64)
        limiter.decide(f"key-{i}")
        assert limiter.key_count <= 2 * 60 * 64 + 1
    state = [*limiter._current.values(), *limiter._previous.values()]
    assert all(s.maxlen == 10 and m.maxlen == 200 for s, m in state)


# -- Redis --------------------------------------------------------------------------------------


@pytest.fixture
def redis_server() -> None:
    """Skip when no Redis answers at 127.0.0.1:6379, or fail under CI=true."""
    client = SyncRedis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except (RedisError, OSError) as error:
        reason = f"Redis not reachable at 127.0.0.1:6379 ({type(error).__name__}: {error})"
        print(reason)
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; required under CI=true")
        pytest.skip(reason)
    finally:
        client.close()


@asynccontextmanager
async def redis_limiters(
    limits: Limits, count: int = 1
) -> AsyncIterator[tuple[list[RedisRateLimiter], Redis, str]]:
    """`count` limiters on separate clients (as separate processes would be), one key prefix.

    Yields the limiters, an extra client to inspect Redis with, and the prefix; deletes every
    key under the prefix and closes the clients afterwards.
    """
    prefix = f"test:{uuid4().hex}:"
    inspector = Redis.from_url(REDIS_URL, socket_timeout=5, decode_responses=True)
    limiters = [
        RedisRateLimiter(Redis.from_url(REDIS_URL, socket_timeout=5), limits, prefix)
        for _ in range(count)
    ]
    try:
        yield limiters, inspector, prefix
    finally:
        names = [name async for name in inspector.scan_iter(match=f"{prefix}*")]
        if names:
            await inspector.delete(*names)
        for limiter in limiters:
            await limiter.close()
        await inspector.aclose()


def micros(decision: Decision) -> int:
    """The Redis TIME of a decision, in whole microseconds (exact: Redis gave microseconds)."""
    return round(decision.at * US)


def expected_retry_after(oldest_blocking_us: int, window_us: int, now_us: int) -> int:
    """What the script and Python together must answer: µs -> ms rounded up -> s rounded up."""
    wait_ms = -(-(oldest_blocking_us + window_us - now_us) // 1000)
    return -(-wait_ms // 1000)


def test_redis_burst_refusal_and_retry_after(redis_server: None) -> None:
    limits = Limits(per_second=5, per_minute=20)

    async def scenario() -> None:
        async with redis_limiters(limits) as ([limiter], inspector, prefix):
            assert await limiter.ping()
            decisions = [await limiter.hit("k") for _ in range(6)]
            assert [d.allowed for d in decisions] == [True] * 5 + [False]
            assert [d.remaining_second for d in decisions] == [4, 3, 2, 1, 0, 0]
            assert [d.remaining_minute for d in decisions] == [19, 18, 17, 16, 15, 15]
            refused = decisions[-1]
            assert refused.retry_after == 1
            assert refused.retry_after == expected_retry_after(
                micros(decisions[0]), US, micros(refused)
            )
            for _ in range(50):  # refusals add nothing to the log
                assert not (await limiter.hit("k")).allowed
            assert await inspector.zcard(prefix + "k") == 5
            assert await inspector.get(prefix + "k:seq") == "5"
            assert 0 < await inspector.pttl(prefix + "k") <= 61_000
            await asyncio.sleep(refused.retry_after)
            assert (await limiter.hit("k")).allowed
            assert (await limiter.hit("other")).allowed  # keys are independent

    asyncio.run(scenario())


def test_redis_minute_window_answers_the_exact_wait(redis_server: None) -> None:
    limits = Limits(per_second=5, per_minute=8)

    async def scenario() -> None:
        async with redis_limiters(limits) as ([limiter], inspector, prefix):
            first = [await limiter.hit("k") for _ in range(6)]
            assert [d.allowed for d in first] == [True] * 5 + [False]
            await asyncio.sleep(first[-1].retry_after)
            then = [await limiter.hit("k") for _ in range(4)]
            assert [d.allowed for d in then] == [True] * 3 + [False]
            refused = then[-1]
            assert refused.remaining_second == 2 and refused.remaining_minute == 0
            assert 58 <= refused.retry_after <= 60
            assert refused.retry_after == expected_retry_after(
                micros(first[0]), 60 * US, micros(refused)
            )
            assert await inspector.zcard(prefix + "k") == 8

    asyncio.run(scenario())


def test_redis_minute_window_reopens_after_retry_after(redis_server: None) -> None:
    """A full minute window refuses with Retry-After 59-60 s and reopens when it says.

    Waiting a real minute would make this the slowest test of the suite: the reopening is
    checked on a key whose four oldest admissions are written 58.5 s in the past (on Redis's
    clock, in the script's own format), so the window reopens within two seconds.
    """
    limits = Limits(per_second=5, per_minute=5)

    async def scenario() -> None:
        async with redis_limiters(limits) as ([limiter], inspector, prefix):
            decisions = [await limiter.hit("fresh") for _ in range(6)]
            refused = decisions[-1]
            assert not refused.allowed and 59 <= refused.retry_after <= 60

            seconds, micro = await inspector.time()
            aged = (seconds * US + micro) - 58_500_000
            await inspector.zadd(prefix + "k", {f"{aged + i}:{i}": aged + i for i in range(4)})
            assert (await limiter.hit("k")).allowed  # the fifth of the minute
            refused = await limiter.hit("k")
            assert not refused.allowed and 1 <= refused.retry_after <= 2
            assert not (await limiter.hit("k")).allowed  # still closed before Retry-After
            await asyncio.sleep(refused.retry_after)
            assert (await limiter.hit("k")).allowed

    asyncio.run(scenario())


async def hammer(limiters: list[RedisRateLimiter], seconds: float, tasks: int) -> list[Decision]:
    """Every limiter hits key "k" from `tasks` tasks for `seconds`; returns the admissions."""
    admitted: list[Decision] = []
    deadline = time.monotonic() + seconds

    async def worker(limiter: RedisRateLimiter) -> None:
        while time.monotonic() < deadline:
            decision = await limiter.hit("k")
            if decision.allowed:
                admitted.append(decision)

    await asyncio.gather(*(worker(limiter) for limiter in limiters for _ in range(tasks)))
    return admitted


def test_redis_two_processes_share_the_second_window(redis_server: None) -> None:
    limits = Limits(per_second=5, per_minute=1000)

    async def scenario() -> None:
        async with redis_limiters(limits, count=2) as (limiters, inspector, prefix):
            admitted = await hammer(limiters, seconds=2.2, tasks=4)
            times = [micros(d) for d in admitted]
            assert_no_window_overflow([t / US for t in times], limits)
            for i in range(len(times) - limits.per_second):  # again, in exact integers
                assert sorted(times)[i + limits.per_second] - sorted(times)[i] >= US
            assert len(admitted) >= 2 * limits.per_second  # it does admit, second after second
            assert await inspector.zcard(prefix + "k") == len(admitted)  # members are unique

    asyncio.run(scenario())


def test_redis_two_processes_share_the_minute_window(redis_server: None) -> None:
    limits = Limits(per_second=5, per_minute=7)

    async def scenario() -> None:
        async with redis_limiters(limits, count=2) as (limiters, _, _prefix):
            admitted = await hammer(limiters, seconds=2.0, tasks=3)
            assert len(admitted) == limits.per_minute  # 5 in the first second, 2 in the next
            assert not (await limiters[0].hit("k")).allowed
            assert not (await limiters[1].hit("k")).allowed

    asyncio.run(scenario())


async def assert_unavailable_promptly(url: str) -> None:
    limiter = RedisRateLimiter.from_url(url, Limits.default(), timeout=0.5)
    started = time.monotonic()
    with pytest.raises(RateLimiterUnavailable):
        await limiter.hit("k")
    assert time.monotonic() - started < 2
    assert not await limiter.ping()
    await limiter.close()


def test_redis_refusing_connections_raises_unavailable_promptly() -> None:
    asyncio.run(assert_unavailable_promptly("redis://127.0.0.1:1/0"))


def test_redis_that_never_answers_raises_unavailable_after_the_timeout() -> None:
    with socket.socket() as silent:  # accepts connections (the kernel does), never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        asyncio.run(assert_unavailable_promptly(f"redis://127.0.0.1:{port}/0"))
