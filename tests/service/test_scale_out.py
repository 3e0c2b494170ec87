"""Scale-out: two real server processes on one PostgreSQL database and one Redis share each
key's budget (at most 10 admitted in any 1 s window, counted on Redis's clock); SIGTERM stops
a server gracefully."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import REDIS_URL, drop_postgres_database, make_postgres_database, unavailable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_client():  # type: ignore[no-untyped-def]
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        unavailable(f"Redis at {REDIS_URL}", exc)
    return client


def start_server(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(port)],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    pytest.fail(f"server on {port} did not become ready: {log.read_text()[-2000:]}")


@pytest.fixture
def shared_backends(postgres_available: None) -> Iterator[tuple[str, str]]:
    client = redis_client()
    prefix = f"test:{uuid.uuid4().hex}:rl:"
    name, url = make_postgres_database()
    try:
        yield url, prefix
    finally:
        drop_postgres_database(name)
        for key in client.scan_iter(match=prefix + "*"):
            client.delete(key)
        client.close()


def cli(env: dict[str, str], *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.slow
def test_two_processes_share_one_budget_per_key(
    shared_backends: tuple[str, str], tmp_path: Path
) -> None:
    database_url, prefix = shared_backends
    env = {**os.environ, "OUTREACH_DATABASE_URL": database_url, "OUTREACH_REDIS_URL": REDIS_URL}
    env["OUTREACH_REDIS_PREFIX"] = prefix
    cli(env, "migrate")
    org = cli(env, "admin", "create-org", "scale")["org_id"]
    key = cli(env, "admin", "create-key", "--org-id", str(org))
    ports = [free_port(), free_port()]
    servers = [start_server(port, env, tmp_path / f"server{port}.log") for port in ports]
    statuses: list[int] = []
    lock = threading.Lock()
    stop = time.monotonic() + 2.5

    def hammer(port: int) -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
            headers = {"Authorization": f"Bearer {key['api_key_token']}"}
            while time.monotonic() < stop:
                status = http.get("/v1/api-keys", headers=headers).status_code
                with lock:
                    statuses.append(status)

    try:
        threads = [
            threading.Thread(target=hammer, args=(port,)) for port in ports for _ in range(3)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=15)
    client = redis_client()
    admitted = sorted(
        int(score)
        for _, score in client.zrange(prefix + str(key["api_key_id"]), 0, -1, withscores=True)
    )
    client.close()
    assert set(statuses) == {200, 429}, set(statuses)
    assert statuses.count(200) == len(admitted)  # every admitted request is in the shared log
    assert 20 <= len(admitted) <= 30  # about 2.5 s at 10 per second, over two processes
    for index, start in enumerate(admitted):  # any 1 s window, on Redis's clock, in microseconds
        in_window = [t for t in admitted[index:] if t < start + 1_000_000]
        assert len(in_window) <= 10, (start, in_window)


def test_sigterm_stops_the_server_gracefully(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"}
    log = tmp_path / "server.log"
    server = start_server(port, env, log)
    response = httpx.get(f"http://127.0.0.1:{port}/healthz")
    assert response.headers["X-Request-Id"]
    server.send_signal(signal.SIGTERM)
    # uvicorn shuts down (lifespan end: engine disposed), then re-raises the signal it caught
    assert server.wait(timeout=15) in (0, -signal.SIGTERM)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    messages = [line["msg"] for line in lines]
    assert "Application shutdown complete." in messages, messages
    assert all(line["request_id"] is None or len(line["request_id"]) == 32 for line in lines)
