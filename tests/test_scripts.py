"""The quick-start scripts, run for real: setup.sh skips pip when nothing changed, and
serve.sh's hints name the address it serves."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"

needs_venv = pytest.mark.skipif(
    Path(sys.prefix).resolve() != VENV.resolve(), reason="runs inside the project's .venv only"
)


@needs_venv
def test_setup_skips_the_install_while_pyproject_is_unchanged() -> None:
    for _ in range(2):  # the first run may install (no stamp yet); the second must not
        done = subprocess.run(
            ["./scripts/setup.sh"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert "up to date" in done.stderr
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = (VENV / ".setup-stamp").read_text().split()
    assert stamp == [digest, platform.python_version()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@needs_venv
def test_serve_hints_name_the_port_served(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'demo.sqlite3'}",
        "OUTREACH_DNS_FIXED": "example.com=mx.example.com",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["./scripts/serve.sh", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, log.read_text()
                time.sleep(0.2)
        else:
            pytest.fail("serve.sh did not answer:\n" + log.read_text())
        assert answer.status_code == 307 and answer.headers["location"] == "/docs"
        output = log.read_text()
        hints = [line for line in output.splitlines() if line.startswith(("try:", "docs:"))]
        assert len(hints) == 2, output
        assert all(f"http://127.0.0.1:{port}/" in line for line in hints), hints
        assert ":8000" not in "\n".join(hints)
        key = re.search(r"Bearer (outreach_live_[^' ]+)", hints[0])
        assert key is not None
        listed = httpx.get(
            f"http://127.0.0.1:{port}/v1/api-keys",
            headers={"Authorization": f"Bearer {key.group(1)}"},
            timeout=5,
        )
        assert listed.status_code == 200  # the printed key works
        docs = httpx.get(f"http://127.0.0.1:{port}/docs", timeout=5).text
        assert f"curl -s http://127.0.0.1:{port}/" in docs and "127.0.0.1:8000" not in docs
        # a second serve.sh on the busy port: one line naming --port, nothing built or seeded
        again = subprocess.run(
            ["./scripts/serve.sh", "--port", str(port)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert again.returncode == 1, again.stdout + again.stderr
        assert again.stdout == "", again.stdout  # no build report, no demo keys
        problem = [line for line in again.stderr.splitlines() if not line.startswith("setup:")]
        assert len(problem) == 1 and f"port {port} on 127.0.0.1 is already in use" in problem[0]
        assert "--port" in problem[0] and "Errno" not in again.stderr
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
