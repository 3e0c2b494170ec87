"""Hostile input against a running server (issue 12), on SQLite and on PostgreSQL + Redis.

Every input of tests/contract/hostile.py (the issue's list and more) goes to the operations
it applies to. Each must answer one of its declared 4xx in under 100 ms, write nothing (every
table's rows are the same before and after, `last_used_at` aside), and leave the server
responsive: /healthz, polled on its own connection throughout, answers within 50 ms.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from hostile import Case, cases
from running_server import RunningServer
from sqlalchemy import MetaData, select
from sqlalchemy.ext.asyncio import create_async_engine

REQUEST_BUDGET = 0.100
HEALTH_BUDGET = 0.050
RAW_THRESHOLD = 256 * 1024  # larger bodies: announce them, send a little, read the answer


def database_digest(database_url: str) -> dict[str, str]:
    """Per table: a hash of every row (columns named last_used_at left out)."""

    async def run() -> dict[str, str]:
        engine = create_async_engine(database_url)
        try:
            async with engine.connect() as connection:
                meta = MetaData()
                await connection.run_sync(meta.reflect)
                out = {}
                for table in sorted(meta.tables.values(), key=lambda t: t.name):
                    columns = [c for c in table.columns if c.name != "last_used_at"]
                    rows = (await connection.execute(select(*columns))).all()
                    text = "\n".join(sorted(repr(tuple(row)) for row in rows))
                    out[table.name] = f"{len(rows)}:{hashlib.sha256(text.encode()).hexdigest()}"
                return out
        finally:
            await engine.dispose()

    return asyncio.run(run())


def send_raw(base_url: str, case: Case, headers: dict[str, str]) -> int:
    """Head plus the start of the body on a plain socket; the status line of the answer."""
    parts = urlsplit(base_url)
    body = case.body or b""
    length = case.announce or len(body)
    head = [
        f"{case.method} {case.path} HTTP/1.1",
        f"Host: {parts.netloc}",
        f"Content-Length: {length}",
    ]
    head += [f"{k}: {v}" for k, v in headers.items()]
    answer = b""
    with socket.create_connection((parts.hostname, parts.port), timeout=2) as sock:
        try:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body[: 64 * 1024])
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError:  # the server waited for the rest of the body, or reset the connection
            return -1
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else -1


class HealthProbe(threading.Thread):
    """Polls /healthz on its own connection every 20 ms; keeps the slowest answer."""

    def __init__(self, base_url: str) -> None:
        super().__init__(daemon=True)
        self.base_url = base_url
        self.stop = threading.Event()
        self.samples: list[float] = []

    def run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=10) as client:
            while not self.stop.is_set():
                started = time.perf_counter()
                assert client.get("/healthz").status_code == 200
                self.samples.append(time.perf_counter() - started)
                time.sleep(0.02)


@pytest.fixture
def probe(server: RunningServer) -> Iterator[HealthProbe]:
    thread = HealthProbe(server.base_url)
    thread.start()
    yield thread
    thread.stop.set()
    thread.join()


def test_every_hostile_input_is_refused_quickly_and_writes_nothing(
    server: RunningServer, probe: HealthProbe
) -> None:
    before = database_digest(server.database_url)
    slow, wrong = [], []
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        client.get("/healthz")
        for case in cases(server.list_id):
            headers = dict(case.headers)
            if case.auth:
                headers.setdefault("Authorization", f"Bearer {server.live_key}")
            if case.body is not None:
                headers.setdefault("Content-Type", "application/json")
            started = time.perf_counter()
            if case.announce or (case.body and len(case.body) > RAW_THRESHOLD):
                status = send_raw(server.base_url, case, headers)
            else:
                try:
                    status = client.request(
                        case.method,
                        case.path,
                        content=case.body,
                        headers={k: v.encode() for k, v in headers.items()},  # raw UTF-8 too
                    ).status_code
                except httpx.HTTPError as exc:
                    status = -1
                    wrong.append(f"{case.name}: {type(exc).__name__}")
            elapsed = time.perf_counter() - started
            if status not in case.expect:
                wrong.append(f"{case.name}: {status} (expected {case.expect})")
            if elapsed > REQUEST_BUDGET:
                slow.append(f"{case.name}: {elapsed * 1000:.0f} ms")
    after = database_digest(server.database_url)
    assert not wrong, "\n".join(wrong) + "\n--- server log ---\n" + server.log()[-4000:]
    assert not slow, "\n".join(slow)
    changed = [name for name in before if before[name] != after.get(name)]
    assert not changed, f"tables written by hostile input: {changed}"
    assert probe.samples, "the health probe never answered"
    assert max(probe.samples) < HEALTH_BUDGET, f"/healthz took {max(probe.samples) * 1000:.0f} ms"
    print(
        f"{len(cases(server.list_id))} hostile inputs; /healthz max {max(probe.samples) * 1000:.1f} ms"
    )
