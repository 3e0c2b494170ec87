#!/usr/bin/env python3
"""Rate-limit decision benchmark: what one limiter decision costs, in process and in Redis.

Every request with an API key pays for one decision (`outreach_server.core.limiter`), so this
times decisions over many keys (hashed-id-like strings, visited in a seeded random order; with
the defaults, 50 in-process decisions per key come within a fraction of a second, so the spec's
limits admit some and refuse the rest, and both paths are timed):

  1. in-process `decide()`      the synchronous core, the spec's limits (10/s, 200/min)
  2. in-process `await hit()`   what the service calls: the same plus a coroutine
  3. in-process, raised limits  every request admitted (the benchmark setting raises limits)
  4. Redis PING                 one round trip, the floor of any Redis-backed decision
  5. Redis `await hit()`        one decision at a time: round trip plus the Lua script
  6. Redis, N in flight         --concurrency decisions at once on one client (a busy worker)

Each row is run --repeat times on a fresh limiter (Redis: a fresh, unique key prefix, deleted
afterwards); the table shows the median and the minimum of the runs in microseconds per
decision. The results also go to bench/results/rate_limit_decision.json. Run it with the
project's virtual environment active: `python bench/rate_limit_decision.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import hashlib
import json
import platform
import random
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import redis
from outreach_server.core.limiter import Decision, InProcessRateLimiter, Limits, RedisRateLimiter
from redis.asyncio import Redis

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "rate_limit_decision.json"
RAISED = Limits(per_second=1_000_000, per_minute=60_000_000)


@dataclass
class Row:
    """One benchmark row: what was timed and the per-run results."""

    key: str
    label: str
    decisions: int
    us_per_decision: list[float] = field(default_factory=list)
    admitted_share: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def median_us(self) -> float:
        return statistics.median(self.us_per_decision)

    @property
    def min_us(self) -> float:
        return min(self.us_per_decision)


def make_keys(count: int, decisions: int, seed: int) -> list[str]:
    """`decisions` keys drawn from `count` hashed ids, in a seeded random order."""
    ids = [hashlib.sha256(f"key-{i}".encode()).hexdigest()[:32] for i in range(count)]
    rng = random.Random(seed)
    return [rng.choice(ids) for _ in range(decisions)]


@contextmanager
def gc_paused() -> Iterator[None]:
    """No garbage collection while timing (as `timeit` does): less noise, same work."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def record(row: Row, elapsed: float, decisions: list[Decision] | int) -> None:
    """Add one run's time per decision and admitted share to `row`."""
    row.us_per_decision.append(elapsed / row.decisions * 1e6)
    if isinstance(decisions, list):
        row.admitted_share.append(sum(d.allowed for d in decisions) / len(decisions))


# -- in process ---------------------------------------------------------------------------------


def time_decide(row: Row, limits: Limits, keys: list[str]) -> None:
    limiter = InProcessRateLimiter(limits)
    decide = limiter.decide
    with gc_paused():
        started = time.perf_counter()
        decisions = [decide(key) for key in keys]
        elapsed = time.perf_counter() - started
    record(row, elapsed, decisions)


def time_hit(row: Row, limits: Limits, keys: list[str]) -> None:
    limiter = InProcessRateLimiter(limits)

    async def run() -> tuple[float, list[Decision]]:
        hit = limiter.hit
        started = time.perf_counter()
        decisions = [await hit(key) for key in keys]
        return time.perf_counter() - started, decisions

    with gc_paused():
        elapsed, decisions = asyncio.run(run())
    record(row, elapsed, decisions)


# -- Redis --------------------------------------------------------------------------------------


async def delete_prefix(client: Redis, prefix: str) -> None:
    names = [name async for name in client.scan_iter(match=f"{prefix}*", count=1000)]
    for start in range(0, len(names), 500):
        await client.delete(*names[start : start + 500])


async def redis_round(
    url: str, keys: list[str], concurrency: int
) -> tuple[float, list[Decision], float]:
    """One Redis run: (seconds for the decisions, the decisions, seconds for as many PINGs)."""
    client = Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
    prefix = f"bench:{uuid.uuid4().hex}:"
    limiter = RedisRateLimiter(client, Limits.default(), prefix)
    try:
        await asyncio.gather(*(client.ping() for _ in range(concurrency)))  # open connections
        await limiter.hit("warm-up")  # loads the script
        started = time.perf_counter()
        for _ in keys:
            await client.ping()
        ping_s = time.perf_counter() - started
        elapsed, decisions = await timed_hits(limiter.hit, keys, concurrency)
        return elapsed, decisions, ping_s
    finally:
        await delete_prefix(client, prefix)
        await client.aclose()


async def timed_hits(
    hit: Callable[[str], Awaitable[Decision]], keys: list[str], concurrency: int
) -> tuple[float, list[Decision]]:
    """Seconds to decide every key with `concurrency` decisions in flight, and the decisions."""
    started = time.perf_counter()
    if concurrency == 1:
        decisions = [await hit(key) for key in keys]
    else:
        decisions = []
        for start in range(0, len(keys), concurrency):
            decisions += await asyncio.gather(*(hit(k) for k in keys[start : start + concurrency]))
    return time.perf_counter() - started, decisions


# -- running and reporting ----------------------------------------------------------------------


def run_in_process(args: argparse.Namespace, repeat: int) -> list[Row]:
    keys = make_keys(args.keys, args.inprocess, seed=1)
    rows = [
        Row("decide", "in-process `decide()`, spec limits", len(keys)),
        Row("hit", "in-process `await hit()`, spec limits", len(keys)),
        Row("decide_raised", "in-process `decide()`, raised limits (all admitted)", len(keys)),
    ]
    for _ in range(repeat):  # interleaved: a slow moment of the machine hits every row alike
        time_decide(rows[0], Limits.default(), keys)
        time_hit(rows[1], Limits.default(), keys)
        time_decide(rows[2], RAISED, keys)
    return rows


def run_redis(args: argparse.Namespace, repeat: int) -> list[Row]:
    keys = make_keys(args.redis_keys, args.redis, seed=2)
    rows = [
        Row("redis_ping", "Redis PING (round-trip floor)", len(keys)),
        Row("redis_hit", "Redis `await hit()`, one at a time", len(keys)),
        Row(
            "redis_hit_concurrent", f"Redis `await hit()`, {args.concurrency} in flight", len(keys)
        ),
    ]
    try:
        for _ in range(repeat):
            elapsed, decisions, ping_s = asyncio.run(redis_round(args.redis_url, keys, 1))
            record(rows[0], ping_s, len(keys))
            record(rows[1], elapsed, decisions)
            elapsed, decisions, _ = asyncio.run(redis_round(args.redis_url, keys, args.concurrency))
            record(rows[2], elapsed, decisions)
    except (redis.RedisError, OSError) as error:
        for row in rows:
            row.error = f"{type(error).__name__}: {error}"
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| row | decisions | admitted | median µs/decision | min µs/decision | decisions/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        if row.error:
            lines.append(f"| {row.label} | {row.decisions} | | failed: {row.error} | | |")
            continue
        admitted = f"{statistics.median(row.admitted_share):.0%}" if row.admitted_share else ""
        lines.append(
            f"| {row.label} | {row.decisions:,} | {admitted} | {row.median_us:.2f} | "
            f"{row.min_us:.2f} | {1e6 / row.median_us:,.0f} |"
        )
    return "\n".join(lines)


def redis_version(url: str) -> str | None:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        with client:
            return str(client.info("server")["redis_version"])
    except (redis.RedisError, OSError):
        return None


def report(args: argparse.Namespace, rows: list[Row]) -> dict[str, Any]:
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "python_version": platform.python_version(),
            "platform": platform.platform(),
            "machine": platform.machine(),
        },
        "redis_url": None if args.no_redis else args.redis_url,
        "redis_server": None if args.no_redis else redis_version(args.redis_url),
        "redis_py": redis.__version__,
        "keys": args.keys,
        "redis_keys": args.redis_keys,
        "repeat": args.repeat,
        "spec_limits": asdict(Limits.default()),
        "raised_limits": asdict(RAISED),
        "results": [
            {
                **asdict(row),
                "median_us": None if row.error else round(row.median_us, 3),
                "min_us": None if row.error else round(row.min_us, 3),
            }
            for row in rows
        ],
    }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inprocess", type=int, default=50_000, help="in-process decisions/run")
    parser.add_argument("--redis", type=int, default=5_000, help="Redis decisions per run")
    parser.add_argument("--keys", type=int, default=1_000, help="distinct keys, in process")
    parser.add_argument("--redis-keys", type=int, default=250, help="distinct keys, Redis")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per row")
    parser.add_argument("--concurrency", type=int, default=32, help="in flight, last Redis row")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--no-redis", action="store_true", help="in-process rows only")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the results")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    rows = run_in_process(args, args.repeat)
    if not args.no_redis:
        rows += run_redis(args, args.repeat)
    print(table(rows))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report(args, rows), indent=2, ensure_ascii=False) + "\n")
    print(f"\nwritten: {args.json}", file=sys.stderr)
    return 1 if any(row.error for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
