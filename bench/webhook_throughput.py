"""Webhook delivery throughput to a local receiver, one worker and two workers, on PostgreSQL.

Creates a temporary database (127.0.0.1:5432, user postgres; dropped afterwards), W webhooks
pointing at a local uvicorn receiver that answers 204, then publishes E events (E x W
deliveries through the transactional outbox) and times `outreach-server worker` processes
until every delivery is recorded as success. Deliveries per second = E x W / seconds.

    python bench/webhook_throughput.py [--events 400] [--webhooks 5] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import httpx
from cryptography.fernet import Fernet
from sqlalchemy import func, select

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "webhook_throughput.json"
ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


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
    """An organisation, its webhooks and `events` published events; returns the deliveries."""
    from outreach_server.core.db import create_engine
    from outreach_server.core.secrets import secret_box
    from outreach_server.core.settings import Settings
    from outreach_server.orgs.store import OrgStore
    from outreach_server.webhooks.outbox import publish_event
    from outreach_server.webhooks.store import WebhookStore

    engine = create_engine(url)
    try:
        org = await OrgStore(engine).create(f"bench {uuid.uuid4().hex[:6]}")
        box = secret_box(Settings.from_env(database_url=url))
        store = WebhookStore(engine)
        for index in range(webhooks):
            await store.create(
                org,
                url=f"http://127.0.0.1:{port}/hook/{index}",
                events=["campaign.created"],
                name=f"bench {index}",
                secret_encrypted=box.encrypt(f"whsec_bench_{index}"),
            )
        for index in range(events):
            await publish_event(engine, org, "campaign.created", {"campaign_id": index})
    finally:
        await engine.dispose()
    return webhooks * events


async def successes(url: str) -> int:
    from outreach_server.core.db import create_engine
    from outreach_server.webhooks.tables import webhook_deliveries

    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            query = select(func.count()).select_from(webhook_deliveries).where(webhook_deliveries.c.status == "success")
            return int((await connection.execute(query)).scalar_one())
    finally:
        await engine.dispose()


def run(workers: int, args: argparse.Namespace, env: dict[str, str], port: int) -> dict[str, float]:
    name = f"outreach_bench_{uuid.uuid4().hex[:12]}"
    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    env = {**env, "OUTREACH_DATABASE_URL": url}
    try:
        subprocess.run([sys.executable, "-m", "outreach_server.cli", "migrate"], env=env, check=True, capture_output=True)
        os.environ.update({k: v for k, v in env.items() if k.startswith("OUTREACH_")})
        total = asyncio.run(seed(url, port, args.webhooks, args.events))
        httpx.delete(f"http://127.0.0.1:{port}/count")
        command = [sys.executable, "-m", "outreach_server.cli", "worker", "--concurrency", str(args.concurrency)]
        started = time.perf_counter()
        processes = [subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL) for _ in range(workers)]
        try:
            done = 0
            deadline = started + args.timeout
            while done < total and time.perf_counter() < deadline:
                time.sleep(0.05)
                done = asyncio.run(successes(url))
            elapsed = time.perf_counter() - started
        finally:
            for process in processes:
                process.terminate()
                process.wait(timeout=15)
        if done < total:
            raise SystemExit(f"only {done} of {total} deliveries succeeded within {args.timeout} s")
        received = httpx.get(f"http://127.0.0.1:{port}/count").json()
        if received["posts"] != received["distinct_attempts"]:
            raise SystemExit(f"an attempt was sent twice: {received}")
        return {
            "workers": workers,
            "deliveries": total,
            "seconds": round(elapsed, 3),
            "per_second": round(total / elapsed, 1),
            "posts_received": received["posts"],
            "attempts_sent_twice": received["posts"] - received["distinct_attempts"],
        }
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--webhooks", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--timeout", type=float, default=120.0)
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
    try:
        for _ in range(100):
            try:
                httpx.post(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        rows = [run(workers, args, env, port) for workers in (1, 2)]
    finally:
        receiver.terminate()
        receiver.wait(timeout=15)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "settings": vars(args),
        "runs": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{args.events} events x {args.webhooks} webhooks, PostgreSQL, receiver answering 204\n")
    print("| workers | deliveries | seconds | deliveries/s | POSTs received | sent twice |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        cells = [row[k] for k in ("workers", "deliveries", "seconds", "per_second", "posts_received", "attempts_sent_twice")]
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
