"""Hostile input against a running server (issue 12), on SQLite and on PostgreSQL + Redis.

Every input of tests/contract/hostile.py (the issue's list and more) goes to the operations
it applies to. Each must answer one of its declared 4xx in under 100 ms, write nothing (every
table's rows are the same before and after, `last_used_at` aside), and leave the server
responsive: /healthz, polled on its own connection throughout, answers within 50 ms.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Self
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
            # past the server's limit: only the start (it answers on the announced length)
            sent = body[: 64 * 1024] if case.announce or len(body) > 1_000_000 else body
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + sent)
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError:  # the server waited for the rest of the body, or reset the connection
            return -1
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else -1


PROBE = """
import json, sys, time, httpx
samples = []
with httpx.Client(base_url=sys.argv[1], timeout=10) as client:
    client.get("/healthz").raise_for_status()
    print("ready", flush=True)
    while not sys.stdin.closed:
        started = time.monotonic()
        client.get("/healthz").raise_for_status()
        samples.append((started, time.monotonic() - started))
        time.sleep(0.02)
        if select.select([sys.stdin], [], [], 0)[0]:
            break
print(json.dumps(samples), flush=True)
""".replace("import json,", "import json, select,")


class HealthProbe:
    """Polls /healthz every 20 ms in its own process (no share of the test's GIL) and reports
    (monotonic start, duration) pairs when stopped."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.samples: list[tuple[float, float]] = []
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        self.process = subprocess.Popen(
            [sys.executable, "-c", PROBE, self.base_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"
        return self

    def __exit__(self, *_: object) -> None:
        if self.process is None:
            return
        process, self.process = self.process, None
        out = process.communicate("stop\n", timeout=30)[0]
        self.samples = [(float(a), float(b)) for a, b in json.loads(out.strip().splitlines()[-1])]


@pytest.fixture
def probe(server: RunningServer) -> Iterator[HealthProbe]:
    with HealthProbe(server.base_url) as running:
        yield running


def send(client: httpx.Client, server: RunningServer, case: Case) -> tuple[int, float, float]:
    """The status of one hostile request, when it started and how long it took."""
    headers = dict(case.headers)
    if case.auth:
        key = server.test_key if case.mode == "test" else server.live_key
        headers.setdefault("Authorization", f"Bearer {key}")
    if case.body is not None:
        headers.setdefault("Content-Type", "application/json")
    started = time.monotonic()
    # big bodies, and long URLs (httpx spends ~60 ms quoting 20 KB), go on a socket
    if case.announce or len(case.body or b"") > RAW_THRESHOLD or len(case.path) > 4096:
        status = send_raw(server.base_url, case, headers)
    else:
        try:
            status = client.request(
                case.method,
                case.path,
                content=case.body,
                headers={k.encode(): v.encode() for k, v in headers.items()},  # raw UTF-8 too
            ).status_code
        except httpx.HTTPError:
            status = -1
    return status, started, time.monotonic() - started


def run_cases(
    client: httpx.Client, server: RunningServer, cases: list[Case]
) -> tuple[list[tuple[str, float, float]], list[str], list[str]]:
    """Send each case; its time windows, the wrong statuses and the slow answers.

    On 2 shared cores a neighbour can stall any one request: a slow answer is measured once
    more and the faster of the two counts (the status of both must hold)."""
    windows: list[tuple[str, float, float]] = []
    slow, wrong = [], []
    for case in cases:
        for attempt in range(2):
            status, started, elapsed = send(client, server, case)
            windows.append((case.name, started, started + elapsed))
            if status not in case.expect:
                wrong.append(f"{case.name}: {status} (expected {case.expect})")
            if elapsed <= REQUEST_BUDGET:
                break
            if attempt == 1:
                slow.append(f"{case.name}: {elapsed * 1000:.0f} ms")
    return windows, wrong, slow


def stalls(
    samples: list[tuple[float, float]], windows: list[tuple[str, float, float]]
) -> dict[str, str]:
    """Hostile cases during which a /healthz answer took the budget or more (a probe answer
    counts when it overlaps a hostile request; the rest is the machine's noise)."""
    found: dict[str, str] = {}
    for at, took in samples:
        if took < HEALTH_BUDGET:
            continue
        for name, a, b in windows:
            if a < at + took and b > at:
                found.setdefault(name, f"/healthz took {took * 1000:.0f} ms during {name}")
    return found


def test_every_hostile_input_is_refused_quickly_and_writes_nothing(
    server: RunningServer, probe: HealthProbe
) -> None:
    all_cases = cases(server.list_id)  # built before anything is timed
    before = database_digest(server.database_url)
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        # warm: the pool's first database connection is not the hostile input's cost
        client.get("/api/v1/contacts", headers={"Authorization": f"Bearer {server.live_key}"})
        windows, wrong, slow = run_cases(client, server, all_cases)
        time.sleep(0.1)
        probe.__exit__()
        first = stalls(probe.samples, windows)
        # a stall a hostile input causes happens again when it is sent again; a neighbour's
        # does not: the cases a slow probe answer overlapped are sent once more, probed afresh
        again: dict[str, str] = {}
        if first:
            with HealthProbe(server.base_url) as second_probe:
                retry = [case for case in all_cases if case.name in first]
                windows2, wrong2, _ = run_cases(client, server, retry)
                wrong += wrong2
                time.sleep(0.1)
            again = stalls(second_probe.samples, windows2)
    after = database_digest(server.database_url)
    assert not wrong, "\n".join(wrong) + "\n--- server log ---\n" + server.log()[-4000:]
    assert not slow, "\n".join(slow)
    changed = [name for name in before if before[name] != after.get(name)]
    assert not changed, f"tables written by hostile input: {changed}"
    assert probe.samples, "the health probe never answered"
    assert not again, "\n".join(first[name] + " (and again: " + again[name] + ")" for name in again)
    worst = max(took for _, took in probe.samples)
    print(
        f"{len(windows)} hostile inputs; /healthz max {worst * 1000:.1f} ms; {len(first)} rechecked"
    )
