"""Webhook delivery throughput to a local receiver: 1, 2 and 4 worker processes on
PostgreSQL, one on SQLite.

For each run: a fresh database (PostgreSQL at 127.0.0.1:5432, user postgres, dropped
afterwards; SQLite: a temporary file), W webhooks pointing at a local receiver that answers
204 (`bench/receiver_app.py` under uvicorn with httptools: a raw ASGI callable counting
POSTs by X-Webhook-Delivery-Id), E events published through the transactional outbox
(E x W deliveries) with their first attempt held back; then N `outreach-server worker`
processes are started and, once every one is up, all deliveries are made due at once.
Timed from that moment until every delivery is recorded as success (polled every 50 ms),
so process start-up is not counted. Deliveries per second = E x W / seconds. The receiver
then says how many POSTs it got and how many attempts it saw twice (must be 0).

The machine's cores are shared by the database, the receiver, the workers and this script:
on a 2-core machine more worker processes compete with the receiver and PostgreSQL.

    python bench/webhook_throughput.py [--events 2000] [--webhooks 5] [--workers 1,2,4]
        [--backend both|postgresql|sqlite] [--sqlite-workers 1] [--concurrency 256]
        [--per-target 32] [--per-org N]

`--per-org` is the worker's bound of one organisation's attempts in flight (default: a
quarter of --concurrency, spec/DECISIONS.md row 133); every delivery here is one
organisation's, so `--per-org` equal to `--concurrency` shows what the bound costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from cryptography.fernet import Fernet
from sqlalchemy import update

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "webhook_throughput.json"
ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
HELD_BACK = 2**62  # next_attempt_at of the seeded first attempts until the workers are up


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def admin(statement: str) -> None:
    connection = await asyncpg.connect(ADMIN)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


async def seed(url: str, port: int, webhooks: int, events: int) -> int:
    """An organisation, its webhooks and `events` published events (their deliveries held
    back); returns the number of deliveries."""
    from outreach_server.core.db import create_engine
    from outreach_server.core.settings import Settings
    from outreach_server.orgs.store import OrgStore
    from outreach_server.webhooks.outbox import publish_event
    from outreach_server.webhooks.store import WebhookStore
    from outreach_server.webhooks.tables import webhook_deliveries

    engine = create_engine(url)
    try:
        org = await OrgStore(engine).create(f"bench {uuid.uuid4().hex[:6]}")
        store = WebhookStore(engine, Settings.from_env(database_url=url))
        for index in range(webhooks):
            await store.create(
                org,
                url=f"http://127.0.0.1:{port}/hook/{index}",
                events=["campaign.created"],
                name=f"bench {index}",
                secret=f"whsec_bench_{index}",
            )
        for start in range(0, events, 500):
            async with engine.begin() as connection:
                for index in range(start, min(start + 500, events)):
                    await publish_event(connection, org, "campaign.created", {"campaign_id": index})
        async with engine.begin() as connection:
            await connection.execute(update(webhook_deliveries).values(next_attempt_at=HELD_BACK))
    finally:
        await engine.dispose()
    return webhooks * events


class Counter:
    """Counts the deliveries recorded as success, over one connection kept open."""

    def __init__(self, backend: str, url: str) -> None:
        self.backend = backend
        self.loop = asyncio.new_event_loop()
        if backend == "sqlite":
            self.sqlite = sqlite3.connect(url.split("///", 1)[1])
        else:
            dsn = url.replace("postgresql+asyncpg", "postgresql")
            self.pg = self.loop.run_until_complete(asyncpg.connect(dsn))

    def run(self, statement: str) -> int:
        if self.backend == "sqlite":
            with self.sqlite:
                cursor = self.sqlite.execute(statement)
                return int(cursor.fetchone()[0]) if cursor.description else cursor.rowcount
        if statement.startswith("SELECT"):
            return int(self.loop.run_until_complete(self.pg.fetchval(statement)))
        self.loop.run_until_complete(self.pg.execute(statement))
        return 0

    def successes(self) -> int:
        return self.run("SELECT count(*) FROM webhook_deliveries WHERE status = 'success'")

    def release(self) -> None:
        now = int(time.time() * 1000)
        self.run(f"UPDATE webhook_deliveries SET next_attempt_at = {now}")

    def close(self) -> None:
        if self.backend == "sqlite":
            self.sqlite.close()
        else:
            self.loop.run_until_complete(self.pg.close())
        self.loop.close()


def wait_started(process: subprocess.Popen[bytes], log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if b'"started": true' in log.read_bytes():
            return
        if process.poll() is not None:
            raise SystemExit(f"worker exited before starting: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    raise SystemExit("worker did not start in time")


def run(
    backend: str,
    workers: int,
    args: argparse.Namespace,
    env: dict[str, str],
    port: int,
    baseline: str | None = None,
) -> dict[str, object]:
    name = f"outreach_bench_{uuid.uuid4().hex[:12]}"
    folder = tempfile.TemporaryDirectory(prefix="webhook-bench-")
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{folder.name}/bench.sqlite3"
    else:
        asyncio.run(admin(f'CREATE DATABASE "{name}"'))
        url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    env = {**env, "OUTREACH_DATABASE_URL": url}
    if baseline:  # another checkout's worker (its service and generated code first on the path)
        env["PYTHONPATH"] = f"{baseline}/service:{baseline}/generated/server"
    try:
        subprocess.run(
            [sys.executable, "-m", "outreach_server.cli", "migrate"],
            env=env,
            check=True,
            capture_output=True,
        )
        os.environ.update({k: v for k, v in env.items() if k.startswith("OUTREACH_")})
        total = asyncio.run(seed(url, port, args.webhooks, args.events))
        httpx.delete(f"http://127.0.0.1:{port}/count")
        command = [sys.executable, "-m", "outreach_server.cli", "worker"]
        if baseline:
            command += ["--concurrency", str(args.baseline_concurrency)]
        else:
            command += [
                "--concurrency",
                str(args.concurrency),
                "--per-target",
                str(args.per_target),
            ]
            if args.per_org is not None:
                command += ["--per-org", str(args.per_org)]
        counter = Counter(backend, url)
        logs = [Path(folder.name) / f"worker{index}.log" for index in range(workers)]
        processes = [
            subprocess.Popen(command, env=env, stderr=log.open("wb"), stdout=subprocess.DEVNULL)
            for log in logs
        ]
        try:
            for process, log in zip(processes, logs, strict=True):
                wait_started(process, log)
            started = time.perf_counter()
            counter.release()
            done = 0
            deadline = started + args.timeout
            while done < total and time.perf_counter() < deadline:
                time.sleep(0.05)
                done = counter.successes()
            elapsed = time.perf_counter() - started
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=30)
            counter.close()
        if done < total:
            raise SystemExit(f"only {done} of {total} deliveries succeeded within {args.timeout} s")
        received = httpx.get(f"http://127.0.0.1:{port}/count").json()
        return {
            "backend": backend,
            "workers": workers,
            "deliveries": total,
            "seconds": round(elapsed, 3),
            "per_second": round(total / elapsed, 1),
            "posts_received": received["posts"],
            "attempts_sent_twice": received["posts"] - received["distinct_attempts"],
        }
    finally:
        if backend != "sqlite":
            asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        folder.cleanup()


async def receiver_alone(port: int, posts: int = 3000, connections: int = 32) -> float:
    """POSTs/s the receiver answers alone: `connections` keep-alive connections sending
    minimal requests back to back (a probe of the receiver, not a client to copy)."""
    request = (
        b"POST /hook/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Webhook-Delivery-Id: probe-%d\r\nContent-Length: 2\r\n\r\n{}"
    )

    async def one(ids: range) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for index in ids:
            writer.write(request % index)
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 204"), head
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(range(j, posts, connections)) for j in range(connections)))
    return posts / (time.perf_counter() - started)


def counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--webhooks", type=int, default=5)
    parser.add_argument("--workers", type=counts, default=[1, 2, 4], help="e.g. 1,2,4")
    parser.add_argument("--sqlite-workers", type=counts, default=[1])
    parser.add_argument("--backend", choices=("both", "postgresql", "sqlite"), default="both")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--per-target", type=int, default=32)
    parser.add_argument("--per-org", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also time the worker of another checkout (e.g. `git archive main service generated`"
        " unpacked in DIR), alternating with this one, 1 worker on PostgreSQL, --rounds times",
    )
    parser.add_argument("--baseline-concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    port = free_port()
    env = {
        **os.environ,
        "OUTREACH_SECRET_KEY": Fernet.generate_key().decode(),
        "OUTREACH_WEBHOOK_ALLOW_HTTP": "1",
        "OUTREACH_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "OUTREACH_LOG_LEVEL": "WARNING",
    }
    receiver = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(HERE), "--port", str(port), "--loop", "uvloop",
         "--http", "httptools", "--no-access-log", "--log-level", "warning", "receiver_app:app"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    plan = []
    if args.backend in ("both", "postgresql"):
        plan += [("postgresql", workers) for workers in args.workers]
    if args.backend in ("both", "sqlite"):
        plan += [("sqlite", workers) for workers in args.sqlite_workers]
    try:
        for _ in range(100):
            try:
                httpx.post(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        alone = round(asyncio.run(receiver_alone(port)), 1)
        print(json.dumps({"receiver_alone_per_second": alone}), flush=True)
        rows = []
        for backend, workers in plan:
            rows.append(run(backend, workers, args, env, port))
            print(json.dumps(rows[-1]), flush=True)
        compared: list[dict[str, Any]] = []
        for _ in range(args.rounds if args.baseline else 0):
            for label in ("baseline", "this"):
                row = run(
                    "postgresql", 1, args, env, port, args.baseline if label == "baseline" else None
                )
                compared.append({"code": label, **row})
                print(json.dumps(compared[-1]), flush=True)
    finally:
        receiver.terminate()
        receiver.wait(timeout=15)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "note": "database, receiver, workers and this script share these cores",
        },
        "settings": {k: v for k, v in vars(args).items()},
        "receiver_alone_per_second": alone,
        "runs": rows,
    }
    if compared:
        result["baseline_runs"] = compared
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"\n{args.events} events x {args.webhooks} webhooks, receiver answering 204; "
        f"{os.cpu_count()} CPUs shared by the database, the receiver and the workers\n"
    )
    print(
        "| backend | workers | deliveries | seconds | deliveries/s | POSTs received | sent twice |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = ("backend", "workers", "deliveries", "seconds", "per_second", "posts_received",
            "attempts_sent_twice")  # fmt: skip
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    if compared:
        print("\nSide by side (alternating rounds, PostgreSQL, 1 worker):\n")
        print("| code | deliveries/s | sent twice |")
        print("| --- | ---: | ---: |")
        for row in compared:
            print(f"| {row['code']} | {row['per_second']} | {row['attempts_sent_twice']} |")
        base = [float(r["per_second"]) for r in compared if r["code"] == "baseline"]
        this = [float(r["per_second"]) for r in compared if r["code"] == "this"]
        print(f"\nratio this / baseline: {sum(this) / sum(base):.2f}")
    if any(row["attempts_sent_twice"] for row in rows + compared):
        raise SystemExit("an attempt reached the receiver twice")


if __name__ == "__main__":
    main()
