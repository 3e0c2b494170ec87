"""The Python client example of docs/client.md (linked from the README) runs as written against the demo data `serve.sh` seeds,
offline: the service is started with an empty fixed DNS table (every lookup unavailable)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "client.md"
SECTION = "# The generated Python client"


def client_example() -> str:
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", text[text.index(SECTION) :], re.DOTALL)
    assert found is not None, f"no python block under {SECTION!r}"
    return found.group(1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_readme_client_example_runs_offline_against_the_demo(tmp_path: Path) -> None:
    example = client_example()
    assert "client.webhooks.create(" in example and "127.0.0.1:8000" in example
    port = free_port()
    env = {
        **os.environ,
        "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'demo.sqlite3'}",
        "OUTREACH_DNS_FIXED": "",  # an offline deployment: no name resolves
    }
    server = [sys.executable, "-m", "outreach_server.cli"]
    seeded = subprocess.run(
        [*server, "admin", "seed-demo"], env=env, capture_output=True, text=True, check=False
    )
    assert seeded.returncode == 0, seeded.stderr
    key = re.search(r'"live_key": "([^"]+)"', seeded.stdout)
    assert key is not None, seeded.stdout
    process = subprocess.Popen(
        [*server, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("the service did not start")
                time.sleep(0.2)
        script = f"KEY = {key.group(1)!r}\n" + example.replace(
            "127.0.0.1:8000", f"127.0.0.1:{port}"
        )
        (tmp_path / "example.py").write_text(script, encoding="utf-8")
        ran = subprocess.run(
            [sys.executable, "example.py"],
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k != "OUTREACH_API_KEY"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "@example.com" in ran.stdout  # the demo contacts were listed
    finally:
        process.terminate()
        process.wait(timeout=30)
