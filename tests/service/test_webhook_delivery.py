"""Webhook delivery to a real HTTP receiver on 127.0.0.1: signature over the raw bytes, the
retry schedule (scaled), 2xx-only success, no redirect following, and at-least-once delivery
across a worker killed between claim and record (SQLite and PostgreSQL)."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import make_api
from cryptography.fernet import Fernet
from outreach_api.constants import WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS
from outreach_server.webhooks.outbox import publish_event
from outreach_server.webhooks.signature import verify_signature
from service_support import Api, bearer

KEY = Fernet.generate_key().decode()
SCALE = 0.01
SETTINGS: dict[str, Any] = {
    "rate_limit_per_second": 10_000,
    "rate_limit_per_minute": 100_000,
    "webhook_allow_http": True,
    "webhook_allowed_networks": "127.0.0.0/8",
    "webhook_retry_scale": SCALE,
    "webhook_timeout": 2.0,
    "secret_key": KEY,
}


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """Answers each POST with `respond(hit) -> (status, headers)`; records every request."""

    respond: Callable[[Hit], tuple[int, dict[str, str]]] = lambda hit: (200, {})
    hits: list[Hit] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait(self, count: int, timeout: float = 10.0) -> list[Hit]:
        deadline = time.monotonic() + timeout
        while len(self.hits) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return list(self.hits)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            hit = Hit(
                self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic()
            )
            state.hits.append(hit)
            status, headers = state.respond(hit)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def hooks(database_url: str) -> Iterator[Api]:
    yield from make_api(database_url, key_cache_seconds=0.0, **SETTINGS)


def deliveries(api: Api, token: str, hook_id: str) -> list[dict[str, Any]]:
    answer = api.client.get(f"/api/v1/webhooks/{hook_id}/deliveries", headers=bearer(token))
    assert answer.status_code == 200
    return list(answer.json()["data"])


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def subscribe(api: Api, token: str, url: str, events: list[str] | None = None) -> tuple[str, str]:
    made = api.client.post(
        "/api/v1/webhooks",
        json={"url": url, "events": events or ["campaign.created"]},
        headers=bearer(token),
    )
    assert made.status_code == 201, made.text
    return made.json()["data"]["id"], made.json()["data"]["secret"]


def test_delivery_is_signed_over_the_raw_bytes(hooks: Api, receiver: Receiver) -> None:
    org = hooks.org()
    token = hooks.key(org)
    hook_id, secret = subscribe(hooks, token, receiver.url())
    other_id, _ = subscribe(hooks, token, receiver.url("/other"), ["document.created"])
    payload = {"campaign_id": 7, "name": "Spring ✓"}
    published = hooks.call(publish_event, hooks.services.engine, org, "campaign.created", payload)
    assert published.deliveries == 1
    [hit] = receiver.wait(1)
    expected = hmac.new(secret.encode(), hit.body, hashlib.sha256).hexdigest()
    assert hit.headers["x-webhook-signature"] == expected
    assert verify_signature(hit.body, hit.headers["x-webhook-signature"], secret)
    assert hit.headers["x-webhook-event-id"] == published.event_id
    assert hit.headers["x-webhook-event"] == "campaign.created"
    assert hit.headers["content-type"] == "application/json"
    envelope = json.loads(hit.body)
    assert envelope["id"] == published.event_id and envelope["data"] == payload
    assert envelope["event"] == "campaign.created"
    wait_for(lambda: deliveries(hooks, token, hook_id)[0]["status"] == "success")
    [row] = deliveries(hooks, token, hook_id)
    assert row["attempts"] == 1 and row["response_code"] == 200 and row["completed_at"]
    assert deliveries(hooks, token, other_id) == []
    time.sleep(0.2)
    assert len(receiver.hits) == 1  # the other webhook is not subscribed; no repeat


def test_failures_are_retried_on_schedule_then_failed(hooks: Api, receiver: Receiver) -> None:
    receiver.respond = lambda hit: (500, {})
    org = hooks.org()
    token = hooks.key(org)
    hook_id, _secret = subscribe(hooks, token, receiver.url())
    hooks.call(publish_event, hooks.services.engine, org, "campaign.created", {"n": 1})
    hits = receiver.wait(3)
    assert len(hits) == 3
    wait_for(lambda: [d["status"] for d in deliveries(hooks, token, hook_id)] == ["failed"] * 3)
    time.sleep(WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS[2] * SCALE + 0.5)
    assert len(receiver.hits) == 3  # never a 4th attempt
    # the same bytes, signature and event id on every attempt; attempt numbers rise
    assert len({(h.body, h.headers["x-webhook-signature"]) for h in hits}) == 1
    assert len({h.headers["x-webhook-event-id"] for h in hits}) == 1
    assert [h.headers["x-webhook-attempt"] for h in hits] == ["1", "2", "3"]
    gaps = [b.at - a.at for a, b in itertools.pairwise(hits)]
    for gap, delay in zip(gaps, WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS, strict=False):
        assert delay * SCALE - 0.02 <= gap <= delay * SCALE + 0.5, gaps
    rows = deliveries(hooks, token, hook_id)
    assert sorted(r["attempts"] for r in rows) == [1, 2, 3]
    assert {r["response_code"] for r in rows} == {500}
    assert all(r["max_attempts"] == 3 for r in rows)
    # each row is one attempt; its message says which, and which row retried it
    first, second, third = sorted(rows, key=lambda r: r["attempts"])
    assert first["error_message"] == f"HTTP 500 (attempt 1 of 3; retried as {second['id']})"
    assert second["error_message"] == f"HTTP 500 (attempt 2 of 3; retried as {third['id']})"
    assert third["error_message"] == "HTTP 500 (attempt 3 of 3; no more attempts)"


def test_success_after_a_failure(hooks: Api, receiver: Receiver) -> None:
    receiver.respond = lambda hit: (503, {}) if len(receiver.hits) == 1 else (204, {})
    org = hooks.org()
    token = hooks.key(org)
    hook_id, _ = subscribe(hooks, token, receiver.url())
    hooks.call(publish_event, hooks.services.engine, org, "campaign.created", {})
    receiver.wait(2)
    wait_for(
        lambda: (
            sorted(d["status"] for d in deliveries(hooks, token, hook_id)) == ["failed", "success"]
        )
    )
    time.sleep(0.3)
    assert len(receiver.hits) == 2


def test_redirects_are_not_followed(hooks: Api, receiver: Receiver) -> None:
    receiver.respond = lambda hit: (
        (302, {"Location": receiver.url("/elsewhere")}) if hit.path == "/hook" else (200, {})
    )
    org = hooks.org()
    token = hooks.key(org)
    hook_id, _ = subscribe(hooks, token, receiver.url())
    hooks.call(publish_event, hooks.services.engine, org, "campaign.created", {})
    receiver.wait(3)
    wait_for(lambda: len(deliveries(hooks, token, hook_id)) == 3)
    wait_for(lambda: all(d["status"] == "failed" for d in deliveries(hooks, token, hook_id)))
    assert all(hit.path == "/hook" for hit in receiver.hits)
    assert {d["response_code"] for d in deliveries(hooks, token, hook_id)} == {302}


def _env(database_url: str) -> dict[str, str]:
    env = os.environ.copy()
    env.update(
        {
            "OUTREACH_DATABASE_URL": database_url,
            "OUTREACH_SECRET_KEY": KEY,
            "OUTREACH_WEBHOOK_ALLOW_HTTP": "1",
            "OUTREACH_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
            "OUTREACH_WEBHOOK_RETRY_SCALE": str(SCALE),
            "OUTREACH_WEBHOOK_TIMEOUT": "1",
            "OUTREACH_DNS_TIMEOUT": "0.5",
            "OUTREACH_AUTO_MIGRATE": "1",
        }
    )
    return env


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "outreach_server.cli", "worker"],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


@pytest.mark.slow
def test_worker_killed_between_claim_and_record_loses_nothing(
    database_url: str, receiver: Receiver, tmp_path: Path
) -> None:
    """SIGKILL the worker while the receiver holds its first request, restart it: every
    event is delivered (at least once), each delivery row ends in success."""
    held = threading.Event()
    release = threading.Event()

    def respond(hit: Hit) -> tuple[int, dict[str, str]]:
        if not held.is_set():
            held.set()
            release.wait(5)  # hold the first request until the worker is dead
        return 200, {}

    receiver.respond = respond
    events = 5
    for api in make_api(database_url, **{**SETTINGS, "webhook_worker": False}):
        org = api.org()
        token = api.key(org)
        hook_id, _ = subscribe(api, token, receiver.url())
        published = [
            api.call(publish_event, api.services.engine, org, "campaign.created", {"i": i})
            for i in range(events)
        ]
        env = _env(database_url)
        log = tmp_path / "worker.log"
        first = start_worker(env, log)
        try:
            assert held.wait(20), log.read_text()[-2000:]
            first.send_signal(signal.SIGKILL)
            first.wait(5)
        finally:
            release.set()
            if first.poll() is None:
                first.kill()
        second = start_worker(env, log)
        try:
            wanted = {p.event_id for p in published}
            wait_for(
                lambda: (
                    wanted <= {h.headers["x-webhook-event-id"] for h in receiver.hits}  # noqa: B023
                    and all(d["status"] == "success" for d in deliveries(api, token, hook_id))  # noqa: B023
                ),
                timeout=25,
            )
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(10)
        rows = deliveries(api, token, hook_id)
        assert len(rows) == events and {r["status"] for r in rows} == {"success"}
