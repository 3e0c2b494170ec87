"""`outreach-server serve` starts a real process that answers over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_health_and_routes(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("server did not start")
                time.sleep(0.1)
        assert response.json() == {"status": "ok"}
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/webhooks").status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_several_workers_without_redis_are_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", "serve", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=30,
        env={k: v for k, v in os.environ.items() if k != "OUTREACH_REDIS_URL"},
        check=False,
    )
    assert done.returncode == 2
    assert "without --redis-url" in done.stderr
