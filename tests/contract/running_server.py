"""A real running `outreach-server serve` (uvicorn in a subprocess) on SQLite and on
PostgreSQL + Redis, seeded with the demo organisation, for the contract and hostile tests.
(Imported by name: this folder is on sys.path.)

PostgreSQL (127.0.0.1:5432, user postgres) and Redis (127.0.0.1:6379) are shared servers:
each run creates its own database (unique name, dropped afterwards) and its own Redis key
prefix. Without them the PostgreSQL run skips with the reason, except under CI=true.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet

PG_HOST = os.environ.get("OUTREACH_TEST_PG_HOST", "127.0.0.1")
PG_ADMIN_DSN = f"postgresql://postgres@{PG_HOST}:5432/postgres"
REDIS_URL = os.environ.get("OUTREACH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# the limiter has its own exact tests; here it must not be what answers
RAISED_LIMITS = {
    "OUTREACH_RATE_LIMIT_PER_SECOND": "1000000",
    "OUTREACH_RATE_LIMIT_PER_MINUTE": "100000000",
    "OUTREACH_APP_EXCHANGE_RATE_PER_SECOND": "1000000",
    "OUTREACH_APP_EXCHANGE_RATE_PER_MINUTE": "100000000",
    "OUTREACH_APP_SERVICE_TOKEN_RATE_PER_SECOND": "1000000",
    "OUTREACH_APP_SERVICE_TOKEN_RATE_PER_MINUTE": "100000000",
}


@dataclass
class RunningServer:
    base_url: str
    database_url: str
    live_key: str
    test_key: str
    org_id: int
    list_id: int
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def unavailable(what: str, reason: object) -> None:
    message = f"{what} not reachable: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (required under CI=true)")
    pytest.skip(message)


async def _pg_admin(statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(PG_ADMIN_DSN, timeout=3)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def _redis_ok() -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    finally:
        client.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(*args: str, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def start_server(
    database_url: str, workdir: Path, extra_env: dict[str, str]
) -> Iterator[RunningServer]:
    env = {**os.environ, **RAISED_LIMITS, **extra_env, "OUTREACH_DATABASE_URL": database_url}
    env["OUTREACH_STRICT_CONTRACT"] = "1"  # the generated layer fails undeclared answers loudly
    env.setdefault("OUTREACH_SECRET_KEY", Fernet.generate_key().decode())
    env["OUTREACH_KEY_CACHE_SECONDS"] = "0"
    if not database_url.startswith("sqlite"):
        _cli("migrate", env=env)
    demo = _cli("admin", "seed-demo", env=env)
    _cli("admin", "enable-flag", "--org-id", str(demo["org_id"]), "M6_APP_TOKENS_ENABLED", env=env)
    port = _free_port()
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=workdir,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base_url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start:\n" + log_path.read_text())
            time.sleep(0.1)
        yield RunningServer(
            base_url=base_url,
            database_url=database_url,
            live_key=str(demo["live_key"]),
            test_key=str(demo["test_key"]),
            org_id=int(str(demo["org_id"])),
            list_id=int(str(demo["list_id"])),
            log_path=log_path,
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def backend_server(
    kind: str, workdir: Path, settings: dict[str, str] | None = None
) -> Iterator[RunningServer]:
    """The demo organisation served by a real process on `kind` (sqlite | postgresql), with
    `settings` (OUTREACH_* variables) added to its environment."""
    settings = settings or {}
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{workdir / 'outreach.sqlite3'}"
        yield from start_server(url, workdir, settings)
        return
    try:
        asyncio.run(_pg_admin("SELECT 1"))
        _redis_ok()
    except Exception as exc:  # noqa: BLE001 - any failure to reach either server
        unavailable(f"PostgreSQL at {PG_HOST}:5432 or Redis at {REDIS_URL}", exc)
    name = f"outreach_test_{uuid.uuid4().hex[:16]}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    prefix = f"outreach-test:{name}:"
    extra = {**settings, "OUTREACH_REDIS_URL": REDIS_URL, "OUTREACH_REDIS_PREFIX": prefix}
    try:
        yield from start_server(
            f"postgresql+asyncpg://postgres@{PG_HOST}:5432/{name}", workdir, extra
        )
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        _redis_drop(prefix)


def _redis_drop(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        for key in client.scan_iter(match=prefix + "*"):
            client.delete(key)
    finally:
        client.close()
