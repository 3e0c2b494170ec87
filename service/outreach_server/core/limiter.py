"""Per-API-key rate limiting: N requests per rolling second AND M per rolling minute.

The API source document asks for both windows at once; a request over either is refused with
429 and a `Retry-After` of whole seconds. Both limiters here count EXACT rolling windows: each
keeps a log of the times of the requests it admitted, and a request at time `now` is admitted
iff fewer than `per_second` admitted requests lie in (now - 1 s, now] and fewer than
`per_minute` in (now - 60 s, now]. A refused request is not logged, so it uses up nothing. A
log, unlike fixed buckets, has no double burst at a bucket edge.

- `InProcessRateLimiter`: one process, one event loop; deques in a dict.
- `RedisRateLimiter`: every process that shares a Redis shares the limit; one Lua script
  decides atomically on Redis's own clock, so the hosts' clocks do not matter.

The limits come from the spec (`outreach_api.constants`) through `Limits.default()`; they are
constructor arguments so that a benchmark setting can raise them.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from outreach_api.constants import RATE_LIMIT_PER_MINUTE, RATE_LIMIT_PER_SECOND
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, ReadOnlyError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

SECOND = 1.0
"""Length of the short window, in seconds."""
MINUTE = 60.0
"""Length of the long window, in seconds; also how often idle keys are swept."""
DEFAULT_PREFIX = "outreach:rl:"
"""Namespace of the limiter's keys in Redis."""
SEQUENCE_SUFFIX = ":seq"
"""Appended to a key's Redis name for its counter that keeps log members unique."""

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError, InvalidResponse, ReadOnlyError)
"""Errors that mean "no Redis to decide with": refused, timed out, not Redis, a read-only replica."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How many requests one key may make per rolling second and per rolling minute."""

    per_second: int
    per_minute: int

    def __post_init__(self) -> None:
        if self.per_second < 1 or self.per_minute < 1:
            raise ValueError(f"rate limits must be at least 1, got {self}")

    @classmethod
    def default(cls) -> Limits:
        """The spec's limits (`x-rate-limit` in spec/openapi.yaml)."""
        return cls(per_second=RATE_LIMIT_PER_SECOND, per_minute=RATE_LIMIT_PER_MINUTE)


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer for one request.

    - `allowed`: admitted (and logged) or refused (and not logged).
    - `retry_after`: 0 when allowed; else whole seconds, rounded up, after which this key would
      be admitted if nothing else is admitted for it meanwhile (the `Retry-After` header).
    - `remaining_second`, `remaining_minute`: free places left in each window after this
      decision, each window considered on its own.
    - `at`: when it was decided, in seconds on the deciding clock (the injected clock for the
      in-process limiter; Redis `TIME`, seconds since the epoch, for Redis).
    """

    allowed: bool
    retry_after: int
    remaining_second: int
    remaining_minute: int
    at: float


class RateLimiterUnavailable(Exception):
    """The shared store cannot be reached; the service answers 503."""


class RateLimiter(Protocol):
    """What the service needs of a limiter."""

    async def hit(self, key: str) -> Decision:
        """Decide one request of `key` (a hashed API-key id, never a token) and log it if admitted."""
        ...

    async def ping(self) -> bool:
        """Readiness: True if the limiter can decide now."""
        ...

    async def close(self) -> None:
        """Release the limiter's connections."""
        ...


def retry_after_seconds(wait_seconds: float) -> int:
    """`Retry-After` for a refusal whose exact wait is `wait_seconds`: rounded up, at least 1.

    Rounding up means a client that waits exactly the header's value is admitted.
    """
    return max(1, math.ceil(wait_seconds))


# -- in process ---------------------------------------------------------------------------------

_Logs = tuple["deque[float]", "deque[float]"]
"""One key's admitted request times: those of the last second, those of the last minute."""


class InProcessRateLimiter:
    """Exact rolling windows for one process, used from one event loop (no awaits inside).

    Memory: per key, two deques capped at `per_second` and `per_minute` entries. Keys live in
    two generations: a key is looked up in the current dict and, if missing, moved over from
    the previous one. Every `MINUTE` the previous generation is dropped whole, so a key idle
    for more than a minute (both windows empty) is gone within two minutes, without a scan.
    """

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._per_second = limits.per_second
        self._per_minute = limits.per_minute
        self._clock = clock
        self._current: dict[str, _Logs] = {}
        self._previous: dict[str, _Logs] = {}
        self._sweep_at = clock() + MINUTE

    @property
    def key_count(self) -> int:
        """How many keys have state (including idle ones not yet swept)."""
        return len(self._current) + len(self._previous)

    async def hit(self, key: str) -> Decision:
        """`decide` for the `RateLimiter` protocol."""
        return self.decide(key)

    async def ping(self) -> bool:
        """Always ready."""
        return True

    async def close(self) -> None:
        """Nothing to release."""

    def decide(self, key: str) -> Decision:
        """Decide one request of `key` now; the hot path, kept inline on purpose."""
        now = self._clock()
        if now >= self._sweep_at:
            self._sweep(now)
        logs = self._current.get(key)
        if logs is None:
            logs = self._adopt(key)
        second, minute = logs
        cutoff = now - SECOND
        while second and second[0] <= cutoff:
            second.popleft()
        cutoff = now - MINUTE
        while minute and minute[0] <= cutoff:
            minute.popleft()
        in_second = len(second)
        in_minute = len(minute)
        if in_second < self._per_second and in_minute < self._per_minute:
            second.append(now)
            minute.append(now)
            return Decision(
                True, 0, self._per_second - in_second - 1, self._per_minute - in_minute - 1, now
            )
        return self._refusal(second, minute, now)

    def _refusal(self, second: deque[float], minute: deque[float], now: float) -> Decision:
        """The refusal at `now`: wait until the entry that blocks each full window leaves it."""
        per_second, per_minute = self._per_second, self._per_minute
        wait = 0.0
        if len(second) >= per_second:
            wait = second[-per_second] + SECOND - now
        if len(minute) >= per_minute:
            wait = max(wait, minute[-per_minute] + MINUTE - now)
        return Decision(
            False,
            retry_after_seconds(wait),
            max(0, per_second - len(second)),
            max(0, per_minute - len(minute)),
            now,
        )

    def _adopt(self, key: str) -> _Logs:
        """The key's logs, moved from the previous generation or new, now in the current one."""
        logs = self._previous.pop(key, None)
        if logs is None:
            logs = (deque(maxlen=self._per_second), deque(maxlen=self._per_minute))
        self._current[key] = logs
        return logs

    def _sweep(self, now: float) -> None:
        """Start a generation; drop keys not seen for a whole generation (idle > 1 minute)."""
        if now >= self._sweep_at + MINUTE:  # no call for a whole generation: all keys are idle
            self._previous = {}
        else:
            self._previous = self._current
        self._current = {}
        self._sweep_at = now + MINUTE


# -- Redis --------------------------------------------------------------------------------------

DECIDE_SCRIPT = """
-- KEYS[1]: sorted set of the key's admitted requests; score = Redis TIME in microseconds.
-- KEYS[2]: the key's counter; members are "<microseconds>:<counter>", so never equal.
-- ARGV[1], ARGV[2]: per_second, per_minute.
-- Returns {allowed 0/1, wait in ms (0 if allowed), remaining_second, remaining_minute,
--          the Redis TIME used, in microseconds}.
if redis.replicate_commands then redis.replicate_commands() end
local per_second = tonumber(ARGV[1])
local per_minute = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local function int(n) return string.format('%.0f', n) end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now - 60000000))
local in_minute = redis.call('ZCARD', KEYS[1])
local in_second = redis.call('ZCOUNT', KEYS[1], int(now - 1000000 + 1), '+inf')

if in_second < per_second and in_minute < per_minute then
  local sequence = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], int(now), int(now) .. ':' .. sequence)
  redis.call('PEXPIRE', KEYS[1], 61000)
  redis.call('PEXPIRE', KEYS[2], 61000)
  return {1, 0, per_second - in_second - 1, per_minute - in_minute - 1, now}
end

-- The limit-th newest entry is the one whose leaving frees a place in that window.
local wait = 0
if in_second >= per_second then
  local entry = redis.call('ZRANGE', KEYS[1], -per_second, -per_second, 'WITHSCORES')
  wait = tonumber(entry[2]) + 1000000 - now
end
if in_minute >= per_minute then
  local entry = redis.call('ZRANGE', KEYS[1], -per_minute, -per_minute, 'WITHSCORES')
  wait = math.max(wait, tonumber(entry[2]) + 60000000 - now)
end
return {0, math.ceil(wait / 1000), math.max(0, per_second - in_second),
        math.max(0, per_minute - in_minute), now}
"""
"""The whole decision, atomic in Redis: prune, count both windows, then log or compute the wait."""


class RedisRateLimiter:
    """Exact rolling windows shared by every process and host that uses the same Redis.

    Per key: a sorted set at `prefix + key` (admitted times) and a counter at
    `prefix + key + ":seq"`; both expire 61 s after the last admission. The script runs by
    EVALSHA (redis-py loads it on first use and after a Redis restart). Connection errors and
    timeouts (and the other `_UNREACHABLE` errors) become `RateLimiterUnavailable`. Two keys per script: a single Redis, not Cluster.
    """

    def __init__(self, client: Redis, limits: Limits, prefix: str = DEFAULT_PREFIX) -> None:
        self.limits = limits
        self.prefix = prefix
        self._client = client
        self._args = (limits.per_second, limits.per_minute)
        self._script = client.register_script(DECIDE_SCRIPT)

    @classmethod
    def from_url(
        cls, url: str, limits: Limits, *, timeout: float = 0.5, prefix: str = DEFAULT_PREFIX
    ) -> RedisRateLimiter:
        """A limiter with its own client whose connect and read timeouts are `timeout` seconds.

        redis-py's default of 5 s would hold every request that long while Redis hangs.
        """
        client = Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        return cls(client, limits, prefix)

    async def hit(self, key: str) -> Decision:
        """Decide one request of `key` on Redis's clock; log it there if admitted."""
        name = self.prefix + key
        try:
            reply = await self._script(keys=[name, name + SEQUENCE_SUFFIX], args=self._args)
        except _UNREACHABLE as error:
            raise RateLimiterUnavailable(f"rate limiter store unreachable: {error}") from error
        return _decision_from_reply(reply)

    async def ping(self) -> bool:
        """True if Redis answers PING."""
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        """Close the client (and its connection pool) the limiter was given."""
        await self._client.aclose()


def _decision_from_reply(reply: Any) -> Decision:
    """The script's five integers as a `Decision`."""
    allowed, wait_ms, remaining_second, remaining_minute, now_us = (int(x) for x in reply)
    return Decision(
        allowed=bool(allowed),
        retry_after=0 if allowed else retry_after_seconds(wait_ms / 1000),
        remaining_second=remaining_second,
        remaining_minute=remaining_minute,
        at=now_us / 1_000_000,
    )
