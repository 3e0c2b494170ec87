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


def test_a_busy_port_is_one_line_naming_port_and_nothing_starts(tmp_path: Path) -> None:
    with socket.socket() as holder:  # another server on the port
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        database = tmp_path / "db.sqlite3"
        done = subprocess.run(
            [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{database}"},
            check=False,
        )
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in lines[0]
    assert "--port 9000" in lines[0] and "Errno" not in lines[0]
    assert not database.exists()  # nothing migrated or created


def test_version_names_the_installed_distribution() -> None:
    from importlib import metadata

    done = subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = metadata.packages_distributions()["outreach_server"]
    assert done.stdout == f"outreach-server, version {metadata.version(names[0])}\n"


def test_the_served_docs_page_calls_the_address_served() -> None:
    from outreach_server.app import DOCS_HTML, served_docs

    assert DOCS_HTML.count(b"http://127.0.0.1:8000") > 50  # the examples, as generated
    page = served_docs("0.0.0.0", 9000)
    assert b"127.0.0.1:8000" not in page
    assert page.count(b"http://127.0.0.1:9000") == DOCS_HTML.count(b"http://127.0.0.1:8000")
    assert served_docs("127.0.0.1", 8000) is DOCS_HTML
    hostile = served_docs('x"><script>', 1)  # an operator's --host, still escaped
    assert b'x"><script>' not in hostile and b"x&quot;&gt;&lt;script&gt;" in hostile
