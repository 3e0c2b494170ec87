"""Slow clients and connection floods against a real `outreach-server serve`, on SQLite and on
PostgreSQL + Redis (issue 30, hole 7): six connections sending their head, or their body, a
byte at a time are closed at the deadline; one connection above the cap is refused at once;
the server keeps answering everyone else meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from running_server import RunningServer, backend_server

HEADER_TIMEOUT = 1.0
BODY_TIMEOUT = 1.5
MAX_CONNECTIONS = 24
DRIP = 0.25  # seconds between two bytes of a slow client
PATIENCE = 4.0  # how long a slow client keeps dripping before the test gives up on a close


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    workdir = tmp_path_factory.mktemp(f"slow-{request.param}")
    settings = {
        "OUTREACH_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "OUTREACH_BODY_TIMEOUT": str(BODY_TIMEOUT),
        "OUTREACH_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
    }
    yield from backend_server(str(request.param), workdir, settings)


def address(server: RunningServer) -> tuple[str, int]:
    parts = urlsplit(server.base_url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


async def drip(host: str, port: int, head: bytes, body: bytes) -> tuple[float, bytes]:
    """Send `head` at once, then `body` a byte every DRIP seconds (or `head` itself dripped when
    `body` is empty); returns when the server closed the connection: (seconds, what it said)."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection(host, port)
    slow = body or head
    if body:
        writer.write(head)
    answer = b""
    try:
        for byte in slow:
            writer.write(bytes([byte]))
            await writer.drain()
            try:
                chunk = await asyncio.wait_for(reader.read(1024), DRIP)
            except TimeoutError:
                chunk = None
            if chunk is not None:  # b"" (closed) or the refusal, then the close
                answer += chunk + await asyncio.wait_for(reader.read(), 2)
                return time.monotonic() - started, answer
            if time.monotonic() - started > PATIENCE:
                break
        return float("inf"), answer  # still open: never timed out
    except (ConnectionError, OSError):
        return time.monotonic() - started, answer
    finally:
        writer.close()


async def health_while(server: RunningServer, work: asyncio.Future[object]) -> float:
    """The slowest /healthz answer while `work` runs."""
    worst = 0.0
    async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as client:
        while not work.done():
            started = time.monotonic()
            assert (await client.get("/healthz")).status_code == 200
            worst = max(worst, time.monotonic() - started)
            await asyncio.sleep(0.1)
    return worst


def run_slow_clients(server: RunningServer, head: bytes, body: bytes) -> list[tuple[float, bytes]]:
    host, port = address(server)

    async def main() -> tuple[list[tuple[float, bytes]], float]:
        clients = asyncio.gather(*(drip(host, port, head, body) for _ in range(6)))
        worst = await health_while(server, clients)
        return await clients, worst

    outcomes, worst = asyncio.run(main())
    assert worst < 1.0, f"/healthz took {worst:.2f} s among the slow clients"
    return outcomes


def test_slow_request_heads_are_closed_at_the_deadline(server: RunningServer) -> None:
    head = b"GET /api/v1/lists HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 64 + b"\r\n\r\n"
    for seconds, answer in run_slow_clients(server, head, b""):
        assert HEADER_TIMEOUT / 2 <= seconds < HEADER_TIMEOUT + 1.5, (seconds, answer)
        assert answer.startswith(b"HTTP/1.1 408 "), answer


def test_slow_bodies_are_closed_at_the_deadline(server: RunningServer) -> None:
    body = b'{"name": "' + b"n" * 60 + b'"}'
    head = (
        f"POST /api/v1/lists HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {server.live_key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    for seconds, answer in run_slow_clients(server, head, body):
        assert BODY_TIMEOUT / 2 <= seconds < BODY_TIMEOUT + 1.5, (seconds, answer)
        assert answer.startswith(b"HTTP/1.1 408 "), answer
    names = httpx.get(
        server.base_url + "/api/v1/lists",
        headers={"Authorization": f"Bearer {server.live_key}"},
        params={"limit": 200},
    ).json()["data"]
    assert not [item for item in names if item["name"].startswith("nnn")]  # nothing half-read


def test_connections_above_the_cap_are_refused_at_once(server: RunningServer) -> None:
    host, port = address(server)

    async def main() -> list[bytes]:
        # opened together, so that all are open well within the head deadline even on a loaded
        # machine (opened one after another, the first ones could reach their deadline first)
        opened = await asyncio.gather(
            *(asyncio.open_connection(host, port) for _ in range(MAX_CONNECTIONS + 4))
        )

        async def first_words(reader: asyncio.StreamReader) -> bytes:
            try:
                return await asyncio.wait_for(reader.read(1024), 0.3)
            except TimeoutError:
                return b""  # held open (until the head deadline)

        answers = await asyncio.gather(*(first_words(reader) for reader, _ in opened))
        for _, writer in opened:
            writer.close()
        return answers

    answers = asyncio.run(main())
    refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
    assert len(refused) == 4, answers
    # the others are held: nothing said yet, or (on a slow machine) the head deadline's 408
    held = [a for a in answers if not a.startswith(b"HTTP/1.1 503 ")]
    assert all(a == b"" or a.startswith(b"HTTP/1.1 408 ") for a in held), answers
    time.sleep(HEADER_TIMEOUT + 0.5)  # the held ones time out; the server takes new ones again
    assert httpx.get(server.base_url + "/healthz", timeout=5).status_code == 200
