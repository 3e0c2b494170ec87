"""Requests per second of every kind of operation through the whole service, against a bare
FastAPI route, the same operations written by hand, and the generated layer alone.

Five servers, each one uvicorn process (uvloop, httptools) on this machine: the bare route
(bench/bare_app.py, a constant answer), `outreach-server serve` (the service), the mix's
operations written by hand in plain FastAPI over the same domain code and SQL
(bench/hand_app.py), and the generated layer with a stub implementation against the same
routes written by hand with the same stub (bench/stub_app.py). For each operation of the mix
(bench/serve_mix.py: a direct handler, a path parameter, query parameters, a JSON body, a
path parameter with an optional body that writes), wrk loads the servers in turns (bare,
service, hand, stub generated, stub hand, then again) and the medians are compared: each
ratio is measured side by side in one run. The mix's rate is the rate of equal numbers of
each operation (the harmonic mean of the operations' rates).

The service path: bearer parsing, key lookup (cached by hash), the two-window rate limiter
(limits raised by the benchmark setting OUTREACH_RATE_LIMIT_PER_*), tier and scope checks,
the operation's queries, the response model.

    python bench/serve_throughput.py [--seconds 4] [--rounds 2] [--connections 32]
    python bench/serve_throughput.py --backend postgresql   # PostgreSQL + Redis
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
from typing import Any

import httpx
from cryptography.fernet import Fernet

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_mix import MIX

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "serve_throughput.json"


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports (all held while they are chosen: a port closed and chosen
    again would give two servers one port, the later one failing to bind)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
            time.sleep(0.1)
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(
    url: str, seconds: int, connections: int, headers: dict[str, str], pid: int,
    method: str = "GET", body: bytes = b"",
) -> tuple[float, float]:  # fmt: skip
    """Requests per second, and the server's CPU microseconds per request, of one wrk run."""
    args = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    script = None
    if method != "GET":
        # wrk sends another method and a body through a Lua script
        descriptor, script = tempfile.mkstemp(suffix=".lua")
        lua = f"wrk.method = {json.dumps(method)}\nwrk.body = {json.dumps(body.decode())}\n"
        os.write(descriptor, lua.encode())
        os.close(descriptor)
        args += ["-s", script]
    before = cpu_seconds(pid)
    try:
        out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    finally:
        if script is not None:
            os.unlink(script)
    used = cpu_seconds(pid) - before
    if "Non-2xx" in out:
        raise SystemExit(f"non-2xx answers from {method} {url}:\n{out}")
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


SERVERS = ("bare", "service", "hand", "stub_generated", "stub_hand")
LABELS = {
    "bare": "bare FastAPI route (constant)",
    "service": "outreach-server (generated layer + service)",
    "hand": "hand-written FastAPI, same domain code",
    "stub_generated": "generated layer + stub",
    "stub_hand": "hand-written FastAPI routes + same stub",
}
AIMS = {
    "every_op_vs_bare": 0.3,  # every operation through the service, of the bare route (SQLite)
    "mix_vs_hand": 0.8,  # the mix through the service, of the hand-written operations
    "stub_generated_vs_stub_hand": 0.9,  # the generated layer alone, of hand-written routes
}


def harmonic(rates: list[float]) -> float:
    """The rate of equal numbers of requests of each kind."""
    return len(rates) / sum(1 / r for r in rates)


def start_servers(env: dict[str, str], ports: dict[str, int]) -> dict[str, subprocess.Popen[bytes]]:
    uvicorn = [sys.executable, "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools",
               "--no-access-log", "--log-level", "warning", "--app-dir", str(HERE)]  # fmt: skip
    apps = {"bare": "bare_app:app", "hand": "hand_app:app",
            "stub_generated": "stub_app:generated", "stub_hand": "stub_app:hand"}  # fmt: skip
    quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    servers = {
        "service": subprocess.Popen(
            [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(ports["service"])],
            **quiet,  # type: ignore[call-overload]
        )
    }
    for name, app in apps.items():
        servers[name] = subprocess.Popen([*uvicorn, "--port", str(ports[name]), app], **quiet)  # type: ignore[call-overload]
    for name, process in servers.items():
        probe = "/v1/api-keys" if name in ("bare", "stub_generated", "stub_hand") else "/healthz"
        wait_ready(f"http://127.0.0.1:{ports[name]}{probe}", process)
    time.sleep(1)
    for name, process in servers.items():  # each port answered by its own server
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode}")
    return servers


def measure(args: argparse.Namespace, env: dict[str, str], token: str) -> dict[str, Any]:
    """Every operation on every server, in turns, `args.rounds` times."""
    ports = dict(zip(SERVERS, free_ports(len(SERVERS)), strict=True))
    servers = start_servers(env, ports)
    auth = {"Authorization": f"Bearer {token}"}
    runs: dict[str, dict[str, dict[str, list[float]]]] = {
        op.name: {name: {"rps": [], "cpu_us": []} for name in SERVERS} for op in MIX
    }
    try:
        for op in MIX:  # every server answers every operation before the bench starts
            for name in SERVERS[1:]:
                url = f"http://127.0.0.1:{ports[name]}{op.target}"
                headers = {**auth, "Content-Type": "application/json"} if op.body else auth
                answer = httpx.request(op.method, url, headers=headers, content=op.body or None)
                if answer.status_code != 200:
                    raise SystemExit(f"{name} {op.name}: {answer.status_code} {answer.text}")
        for _ in range(args.rounds):
            for op in MIX:
                for name in SERVERS:
                    if name == "bare":
                        url, method, body, headers = f"http://127.0.0.1:{ports[name]}/v1/api-keys", "GET", b"", {}  # fmt: skip
                    else:
                        url, method, body = f"http://127.0.0.1:{ports[name]}{op.target}", op.method, op.body  # fmt: skip
                        headers = {**auth, "Content-Type": "application/json"} if body else auth
                    rate, used = wrk(url, args.seconds, args.connections, headers,
                                     servers[name].pid, method, body)  # fmt: skip
                    if used <= 0:
                        raise SystemExit(f"{name} used no CPU: another process holds its port")
                    runs[op.name][name]["rps"].append(rate)
                    runs[op.name][name]["cpu_us"].append(used)
    finally:
        for process in servers.values():
            process.terminate()
            process.wait(timeout=15)
    return runs


def summarise(runs: dict[str, Any]) -> dict[str, Any]:
    medians = {
        op: {name: statistics.median(r["rps"]) for name, r in servers.items()}
        for op, servers in runs.items()
    }
    cpu = {
        op: {name: statistics.median(r["cpu_us"]) for name, r in servers.items()}
        for op, servers in runs.items()
    }
    ratios = {
        op: {
            "service_to_bare": round(m["service"] / m["bare"], 3),
            "hand_to_bare": round(m["hand"] / m["bare"], 3),
            "service_to_hand": round(m["service"] / m["hand"], 3),
            "stub_generated_to_stub_hand": round(m["stub_generated"] / m["stub_hand"], 3),
            "cpu_hand_to_service": round(cpu[op]["hand"] / cpu[op]["service"], 3),
            "cpu_stub_hand_to_stub_generated": round(
                cpu[op]["stub_hand"] / cpu[op]["stub_generated"], 3
            ),
        }
        for op, m in medians.items()
    }
    mix = {name: round(harmonic([medians[op][name] for op in medians]), 1) for name in SERVERS}
    worst = min(ratios, key=lambda op: ratios[op]["service_to_bare"])
    aims = {
        "every_op_vs_bare": {
            "aim": AIMS["every_op_vs_bare"],
            "figure": ratios[worst]["service_to_bare"],
            "worst_operation": worst,
        },
        "mix_vs_hand": {
            "aim": AIMS["mix_vs_hand"],
            "figure": round(mix["service"] / mix["hand"], 3),
        },
        "stub_generated_vs_stub_hand": {
            "aim": AIMS["stub_generated_vs_stub_hand"],
            "figure": round(mix["stub_generated"] / mix["stub_hand"], 3),
        },
    }
    for aim in aims.values():
        aim["met"] = aim["figure"] >= aim["aim"]
    return {"medians": medians, "cpu_us_medians": cpu, "ratios": ratios, "mix": mix, "aims": aims}


def cpu_in_process(pair: tuple[str, str], env: dict[str, str], token: str) -> Any:
    """bench/serve_profile.py --compare: the two apps' CPU per call in one process, in turns
    (a figure that moves less with the machine's other load than requests per second)."""
    command = [sys.executable, str(HERE / "serve_profile.py"), "--token", token,
               "--compare", *pair, "--calls", "1000", "--rounds", "3"]  # fmt: skip
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
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
        # the delivery worker polls the database while idle: not part of a request's path
        "OUTREACH_WEBHOOK_WORKER": "0",
        "OUTREACH_SECRET_KEY": Fernet.generate_key().decode(),  # seed-demo adds a webhook
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
        # two servers on the database (the service, the hand-written one), each with an
        # engine pool (+20 overflow) and a reader pool of this size, all under PostgreSQL's
        # default max_connections of 100 ("too many clients" otherwise)
        env["OUTREACH_DB_POOL_SIZE"] = "12"
    load_before = [round(x, 2) for x in os.getloadavg()]
    in_process: dict[str, Any] = {}
    try:
        outreach("migrate", env=env)
        token = json.loads(outreach("admin", "seed-demo", env=env))["live_key"]
        runs = measure(args, env, token)
        for first, second in (("hand", "service"), ("stub-hand", "stub-generated")):
            name = f"{second}_vs_{first}".replace("-", "_")
            in_process[name] = cpu_in_process((first, second), env, token)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if database is not None:
            asyncio.run(pg_admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        if redis_prefix is not None:
            drop_redis_prefix(redis_prefix)
    summary = summarise(runs)
    keys = summary["medians"]["list_api_keys"]
    keys_cpu = summary["cpu_us_medians"]["list_api_keys"]
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_at_start": load_before,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "backend": args.backend,
        "operations": {op.name: f"{op.method} {op.target}" for op in MIX},
        "runs": runs,
        **summary,
        "in_process": in_process,
        # the figures of the one operation measured before (GET /v1/api-keys)
        "median_bare": keys["bare"],
        "median_full": keys["service"],
        "ratio_full_to_bare": round(keys["service"] / keys["bare"], 3),
        "median_cpu_us_bare": keys_cpu["bare"],
        "median_cpu_us_full": keys_cpu["service"],
        "cpu_ratio_bare_to_full": round(keys_cpu["bare"] / keys_cpu["service"], 3),
    }
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2) + "\n")
    backend = "SQLite" if args.backend == "sqlite" else "PostgreSQL + Redis"
    print(
        f"backend: {backend}; load average {load_before} -> {result['machine']['load_average_at_end']}"
    )
    print(
        "| operation | "
        + " | ".join(LABELS[n] for n in SERVERS)
        + " | service/bare | service/hand | stub gen/hand |"
    )
    print("| --- |" + " ---: |" * (len(SERVERS) + 3))
    for op in MIX:
        m, r = summary["medians"][op.name], summary["ratios"][op.name]
        print(f"| {op.method} {op.target} | " + " | ".join(f"{m[n]:,.0f}" for n in SERVERS)
              + f" | {r['service_to_bare']:.2f} | {r['service_to_hand']:.2f} | {r['stub_generated_to_stub_hand']:.2f} |")  # fmt: skip
    print("| the mix | " + " | ".join(f"{summary['mix'][n]:,.0f}" for n in SERVERS) + " | | | |")
    for name, aim in summary["aims"].items():
        print(
            f"{name}: {aim['figure']} (aim >= {aim['aim']}): {'met' if aim['met'] else 'NOT met'}"
        )
    for name, found in in_process.items():
        print(f"in process, by CPU per call, {name}: mix {found['mix_speed_by_cpu']}, "
              f"per operation {found['speed_by_cpu']}")  # fmt: skip


if __name__ == "__main__":
    main()
