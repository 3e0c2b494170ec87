"""Requests per second through the whole service path against a bare FastAPI route.

Both servers run with uvicorn (uvloop, httptools), one process each, on this machine; wrk
(Debian package `wrk`) loads them in turns (bare, full, bare, full, ...) and the medians
are compared, so the ratio is measured side by side in one run.

The full path: `GET /v1/api-keys` with a live key: bearer parsing, key lookup (cached by
hash), the two-window rate limiter (limits raised by the benchmark setting
OUTREACH_RATE_LIMIT_PER_*), tier check, one SQLite query, response model.

    python bench/serve_throughput.py [--seconds 8] [--rounds 3] [--connections 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx
from cryptography.fernet import Fernet

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "serve_throughput.json"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(
    url: str, seconds: int, connections: int, headers: dict[str, str], pid: int
) -> tuple[float, float]:
    """Requests per second, and the server's CPU microseconds per request, of one wrk run."""
    args = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    before = cpu_seconds(pid)
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    used = cpu_seconds(pid) - before
    if "Non-2xx" in out:
        raise SystemExit(f"non-2xx answers from {url}:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return rate, round(used / total * 1e6, 1)


PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


async def pg_admin(statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(PG_ADMIN)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def drop_redis_prefix(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def outreach(*args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    results = args.json or (
        RESULTS
        if args.backend == "sqlite"
        else RESULTS.with_name("serve_throughput_postgresql.json")
    )
    tmp = Path(tempfile.mkdtemp(prefix="outreach-bench-"))
    env = {
        **os.environ,
        "OUTREACH_RATE_LIMIT_PER_SECOND": "100000000",
        "OUTREACH_RATE_LIMIT_PER_MINUTE": "1000000000",
        "OUTREACH_ACCESS_LOG": os.environ.get("OUTREACH_ACCESS_LOG", "0"),
    }
    database = redis_prefix = None
    if args.backend == "sqlite":
        env["OUTREACH_DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp / 'bench.sqlite3'}"
    else:
        # a database and a Redis key prefix of its own, dropped at the end
        database = f"outreach_bench_{uuid.uuid4().hex[:12]}"
        redis_prefix = f"bench:{uuid.uuid4().hex}:"
        asyncio.run(pg_admin(f'CREATE DATABASE "{database}"'))
        env["OUTREACH_DATABASE_URL"] = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database}"
        env["OUTREACH_REDIS_URL"] = REDIS_URL
        env["OUTREACH_REDIS_PREFIX"] = redis_prefix
        # as many pooled connections as wrk keeps requests in flight: with fewer, every
        # request beyond the pool opens and closes a connection of its own
        env["OUTREACH_DB_POOL_SIZE"] = str(args.connections)
        env["OUTREACH_SECRET_KEY"] = Fernet.generate_key().decode()  # seed-demo adds a webhook
    full = bare = None
    try:
        if database is not None:
            outreach("migrate", env=env)
        token = json.loads(outreach("admin", "seed-demo", env=env))["live_key"]
        full_port, bare_port = free_port(), free_port()
        uvicorn = [
            sys.executable,
            "-m",
            "uvicorn",
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        full = subprocess.Popen(
            [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(full_port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        bare = subprocess.Popen(
            [*uvicorn, "--app-dir", str(HERE), "--port", str(bare_port), "bare_app:app"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_ready(f"http://127.0.0.1:{full_port}/healthz", full)
        wait_ready(f"http://127.0.0.1:{bare_port}/v1/api-keys", bare)
        auth = {"Authorization": f"Bearer {token}"}
        full_url = f"http://127.0.0.1:{full_port}/v1/api-keys"
        assert httpx.get(full_url, headers=auth).status_code == 200
        runs: dict[str, list[float]] = {"bare": [], "full": []}
        cpu: dict[str, list[float]] = {"bare": [], "full": []}
        for _ in range(args.rounds):
            rate, used = wrk(
                f"http://127.0.0.1:{bare_port}/v1/api-keys",
                args.seconds,
                args.connections,
                {},
                bare.pid,
            )
            runs["bare"].append(rate)
            cpu["bare"].append(used)
            rate, used = wrk(full_url, args.seconds, args.connections, auth, full.pid)
            runs["full"].append(rate)
            cpu["full"].append(used)
    finally:
        for process in (full, bare):
            if process is not None:
                process.terminate()
                process.wait(timeout=15)
        shutil.rmtree(tmp, ignore_errors=True)
        if database is not None:
            asyncio.run(pg_admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        if redis_prefix is not None:
            drop_redis_prefix(redis_prefix)
    bare_rps, full_rps = statistics.median(runs["bare"]), statistics.median(runs["full"])
    bare_cpu, full_cpu = statistics.median(cpu["bare"]), statistics.median(cpu["full"])
    backend = "SQLite" if args.backend == "sqlite" else "PostgreSQL + Redis"
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "backend": args.backend,
        "requests_per_second": runs,
        "server_cpu_us_per_request": cpu,
        "median_bare": bare_rps,
        "median_full": full_rps,
        "ratio_full_to_bare": round(full_rps / bare_rps, 3),
        "median_cpu_us_bare": bare_cpu,
        "median_cpu_us_full": full_cpu,
        "cpu_ratio_bare_to_full": round(bare_cpu / full_cpu, 3),
        "aim": "full path at least 0.6 of the bare FastAPI rate (SQLite)",
    }
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2) + "\n")
    print(f"backend: {backend}")
    print("| server | requests/s (median) | runs | server CPU µs/request (median) |")
    print("| --- | ---: | --- | ---: |")
    print(
        f"| bare FastAPI route, same JSON | {bare_rps:,.0f} | "
        f"{', '.join(f'{r:,.0f}' for r in runs['bare'])} | {bare_cpu} |"
    )
    print(
        f"| outreach-server, auth + limiter + {backend} | {full_rps:,.0f} | "
        f"{', '.join(f'{r:,.0f}' for r in runs['full'])} | {full_cpu} |"
    )
    print(
        f"\nratio full/bare: {full_rps / bare_rps:.2f} requests/s, "
        f"{bare_cpu / full_cpu:.2f} by server CPU per request (aim: >= 0.6)"
    )


if __name__ == "__main__":
    main()
