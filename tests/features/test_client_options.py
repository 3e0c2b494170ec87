"""The typed constructor (issue 26, point 8): every credential and option is a keyword
parameter of `Client(...)`, `AsyncClient(...)` and `with_options(...)`, so `mypy --strict`
refuses a misspelt one (and an unknown environment), and accepts correct use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness import FEATURES, package

CORRECT = """
import httpx
from oauth_client import AsyncClient, Client

client = Client(
    partner_client_id="app", partner_client_secret="s", base_url="http://127.0.0.1:1",
    timeout=httpx.Timeout(5.0), max_retries=0, default_headers={"X-Trace": "1"},
)
copy = client.with_options(max_retries=3, partner_token=None)
production = Client(environment="example")
async_client = AsyncClient(user_refresh_token="r1", pacing=True).with_options(timeout=2.0)
"""

MISSPELT = """
from oauth_client import AsyncClient, Client

Client(partner_client_secrett="s")
Client(base_url="http://127.0.0.1:1").with_options(max_retry=1)
AsyncClient(environment="staging")
"""


def test_mypy_strict_refuses_a_misspelt_option_and_accepts_correct_use(tmp_path: Path) -> None:
    (tmp_path / "correct.py").write_text(CORRECT)
    (tmp_path / "misspelt.py").write_text(MISSPELT)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            os.devnull,
            "correct.py",
            "misspelt.py",
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(FEATURES / "oauth" / "expected" / "client")},
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if e.startswith("correct.py")], done.stdout
    assert 'Unexpected keyword argument "partner_client_secrett"' in done.stdout
    assert 'Unexpected keyword argument "max_retry"' in done.stdout
    assert 'misspelt.py:6: error: Argument "environment"' in done.stdout
    assert len(errors) == 3, done.stdout


def test_with_options_changes_only_what_it_is_given() -> None:
    pkg = package("oauth", "client")
    client = pkg.Client(base_url="http://127.0.0.1:1", partner_token="t", max_retries=5)
    copy = client.with_options(max_retries=0)
    assert (copy.partner_token, copy.max_retries, copy.base_url) == ("t", 0, "http://127.0.0.1:1")
    assert client.with_options(partner_token=None).partner_token is None  # None unsets
    assert client.with_options(environment="example").base_url == "https://api.example.com"
    client.close()
