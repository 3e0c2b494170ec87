"""Where each operation of the served mix spends its time, in process (cProfile).

Builds an ASGI app (`--app service`: outreach-server on a seeded database; `hand`:
bench/hand_app.py; `stub-generated`, `stub-hand`: bench/stub_app.py; `bare`: bench/bare_app.py), calls it directly
(no sockets, no server) for each operation of bench/serve_mix.py, and prints the CPU
microseconds per call and the functions with the most own time under cProfile.

    python bench/serve_profile.py --database-url sqlite+aiosqlite:///x.sqlite3 --token T \
        [--app service] [--calls 2000] [--top 25] [--only get_contact]
    python bench/serve_profile.py --token T --compare stub-hand stub-generated [--rounds 3]

The database must be seeded (`outreach-server admin seed-demo`); the limits should be raised
(OUTREACH_RATE_LIMIT_PER_SECOND, OUTREACH_RATE_LIMIT_PER_MINUTE), as serve_throughput.py does.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from serve_mix import MIX, Operation


def load_app(kind: str) -> Any:
    if kind == "service":
        from outreach_server.app import create_app_from_env

        return create_app_from_env()
    if kind.startswith("stub-"):
        return getattr(__import__("stub_app"), kind.removeprefix("stub-"))
    module = {"hand": "hand_app", "bare": "bare_app"}[kind]
    return __import__(module).app


def caller(app: Any, operation: Operation, token: str) -> Callable[[], Any]:
    path, _, query = operation.target.partition("?")
    headers = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {token}".encode())]
    body = operation.body
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]  # fmt: skip
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": operation.method, "scheme": "http", "path": path, "raw_path": path.encode(),
        "query_string": query.encode(), "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 1234), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    status: list[int] = []

    async def call() -> None:
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(dict(scope, state={}), receive, send)
        if status[-1] >= 300:
            raise SystemExit(f"{operation.name}: status {status[-1]}")

    return call


async def lifespan(app: Any) -> Any:
    """Start the app's lifespan (services started); returns the context to stop it."""
    router = getattr(app, "router", None)
    context = router.lifespan_context(app) if router is not None else None
    if context is not None:
        await context.__aenter__()
    return context


async def measure(app: Any, token: str, calls: int, top: int, only: set[str]) -> None:
    context = await lifespan(app)
    try:
        for operation in MIX:
            if only and operation.name not in only:
                continue
            call = caller(app, operation, token)
            for _ in range(200):
                await call()
            start = time.process_time()
            for _ in range(calls):
                await call()
            used = (time.process_time() - start) / calls * 1e6
            print(f"== {operation.name}: {used:.0f} µs CPU per call")
            if top:
                profile = cProfile.Profile(time.thread_time)
                profile.enable()
                for _ in range(calls):
                    await call()
                profile.disable()
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out)
                stats.sort_stats("tottime").print_stats(top)
                # the hand-written parts, by time including what they call
                stats.sort_stats("cumulative").print_stats("outreach_server|bench/", top)
                print("\n".join(out.getvalue().splitlines()[6:]))
    finally:
        if context is not None:
            await context.__aexit__(None, None, None)


async def compare(kinds: list[str], token: str, calls: int, rounds: int) -> dict[str, Any]:
    """CPU µs per call of each operation on each app, the apps in turns, `rounds` times:
    in one process, so the ratio does not move with the machine's other load as rates do."""
    apps = {kind: load_app(kind) for kind in kinds}
    contexts = [await lifespan(app) for app in apps.values()]
    used: dict[str, dict[str, list[float]]] = {op.name: {k: [] for k in kinds} for op in MIX}
    try:
        for _ in range(rounds):
            for operation in MIX:
                for kind, app in apps.items():
                    # the bare app has one route: each operation is measured against it
                    call = caller(app, MIX[0] if kind == "bare" else operation, token)
                    for _ in range(100):
                        await call()
                    start = time.process_time()
                    for _ in range(calls):
                        await call()
                    used[operation.name][kind].append((time.process_time() - start) / calls * 1e6)
    finally:
        for context in contexts:
            if context is not None:
                await context.__aexit__(None, None, None)
    medians = {
        op: {k: round(statistics.median(v), 1) for k, v in by.items()} for op, by in used.items()
    }
    first, second = kinds
    # how fast B is against A: A's CPU per call over B's (above 1: B is cheaper)
    speed = {op: round(m[first] / m[second], 3) for op, m in medians.items()}
    mix = {k: sum(m[k] for m in medians.values()) for k in kinds}  # equal numbers of each
    return {"apps": kinds, "cpu_us_per_call": medians, "speed_by_cpu": speed,
            "mix_speed_by_cpu": round(mix[first] / mix[second], 3)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--app",
        choices=("service", "hand", "stub-generated", "stub-hand", "bare"),
        default="service",
    )
    parser.add_argument("--database-url", default=os.environ.get("OUTREACH_DATABASE_URL"))
    parser.add_argument("--token", required=True)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        default=None,
        help="CPU per call of two apps in turns; B's speed against A's, as JSON",
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.database_url:
        os.environ["OUTREACH_DATABASE_URL"] = args.database_url
    os.environ.setdefault("OUTREACH_RATE_LIMIT_PER_SECOND", "100000000")
    os.environ.setdefault("OUTREACH_RATE_LIMIT_PER_MINUTE", "1000000000")
    os.environ.setdefault("OUTREACH_WEBHOOK_WORKER", "0")
    import uvloop

    if args.compare:
        found = uvloop.run(compare(args.compare, args.token, args.calls, args.rounds))
        print(json.dumps(found))  # one line, the last
        return
    uvloop.run(measure(load_app(args.app), args.token, args.calls, args.top, set(args.only)))


if __name__ == "__main__":
    main()
