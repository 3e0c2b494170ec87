"""A small W3C WebDriver client over httpx, driving /usr/bin/chromedriver (headless Chromium).

No selenium: the handful of endpoints the docs tests use. chromedriver runs as a subprocess
on a free port; each session gets a fresh profile directory. Browser console messages come
from chromedriver's log endpoint (`POST /session/{id}/se/log`, type "browser"), enabled by the
`goog:loggingPrefs` capability.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

CHROMEDRIVER = Path("/usr/bin/chromedriver")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C element reference key
CHROME_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]


def chromium_binary() -> str | None:
    for candidate in ("/usr/bin/chromium", "/usr/lib/chromium/chromium"):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


def available() -> bool:
    return CHROMEDRIVER.is_file() and os.access(CHROMEDRIVER, os.X_OK) and bool(chromium_binary())


class WebDriverError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Session:
    """One browser session: navigate, run scripts, find and click elements, type, screenshot."""

    def __init__(self, http: httpx.Client, session_id: str) -> None:
        self.http = http
        self.id = session_id

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.http.request(method, f"/session/{self.id}{path}", json=body)
        value = response.json().get("value")
        if response.status_code != 200:
            raise WebDriverError(f"{method} {path}: {response.status_code} {value}")
        return value

    def get(self, url: str) -> None:
        self._call("POST", "/url", {"url": url})

    def execute(self, script: str, *args: Any) -> Any:
        return self._call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css: str) -> str:
        found = self._call("POST", "/element", {"using": "css selector", "value": css})
        return str(found[ELEMENT])

    def click(self, element: str) -> None:
        self._call("POST", f"/element/{element}/click", {})

    def type(self, element: str, text: str) -> None:
        self._call("POST", f"/element/{element}/value", {"text": text})

    def clear(self, element: str) -> None:
        self._call("POST", f"/element/{element}/clear", {})

    def screenshot(self) -> bytes:
        return base64.b64decode(self._call("GET", "/screenshot"))

    def browser_log(self) -> list[dict[str, Any]]:
        """Console messages and page errors since the last call (chromedriver's log endpoint)."""
        return list(self._call("POST", "/se/log", {"type": "browser"}) or [])

    def wait_for(self, script: str, *args: Any, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.execute(script, *args)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.05)


@contextmanager
def chromedriver() -> Iterator[httpx.Client]:
    """chromedriver on a free port; an httpx client talking to it."""
    port = _free_port()
    process = subprocess.Popen(
        [str(CHROMEDRIVER), f"--port={port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", timeout=60.0, trust_env=False
        ) as http:
            deadline = time.monotonic() + 15
            while True:
                try:
                    if http.get("/status").json()["value"]["ready"]:
                        break
                except (httpx.HTTPError, ValueError, KeyError):
                    pass
                if time.monotonic() > deadline or process.poll() is not None:
                    raise WebDriverError("chromedriver did not become ready")
                time.sleep(0.05)
            yield http
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def browser(http: httpx.Client) -> Iterator[Session]:
    """A headless Chromium session with a fresh profile, console logging on."""
    with tempfile.TemporaryDirectory(prefix="docs-chromium-") as profile:
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium_binary(),
                "args": [*CHROME_FLAGS, f"--user-data-dir={profile}"],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }
        response = http.post("/session", json={"capabilities": {"alwaysMatch": capabilities}})
        value = response.json().get("value") or {}
        if response.status_code != 200 or "sessionId" not in value:
            raise WebDriverError(f"no session: {response.status_code} {value}")
        session = Session(http, value["sessionId"])
        try:
            yield session
        finally:
            http.delete(f"/session/{session.id}")
