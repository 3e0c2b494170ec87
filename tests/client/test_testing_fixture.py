"""`outreach_client.testing`: the fixtures run the real server, seeded, with a webhook receiver."""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from outreach_client import Client
from outreach_client.testing import (
    OutreachServer,
    ServerError,
    server_command,
    start_outreach_server,
)


def http_for(server: OutreachServer, key: str | None = None) -> httpx.Client:
    token = server.api_key if key is None else key
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(headers=headers, timeout=10.0, trust_env=False)


@contextmanager
def subscription(server: OutreachServer, path: str, events: list[str]) -> Iterator[dict[str, Any]]:
    """A webhook to `receiver.url + path` for `events`, deleted afterwards (10 per org at most)."""
    with http_for(server) as http:
        created = http.post(
            f"{server.base_url}/webhooks",
            json={"url": server.receiver.url + path, "events": events, "name": "fixture test"},
        )
        assert created.status_code == 201, created.text
        webhook: dict[str, Any] = created.json()["data"]
        try:
            yield webhook
        finally:
            deleted = http.delete(f"{server.base_url}/webhooks/{webhook['id']}")
            assert deleted.status_code in (200, 204), deleted.text


def emit(server: OutreachServer, event: str, payload: dict[str, Any]) -> None:
    server.run(
        "emit-event", event, "--org-id", str(server.org_id), "--payload", json.dumps(payload)
    )


def test_the_server_answers_with_the_seeded_keys(outreach_server: OutreachServer) -> None:
    server = outreach_server
    assert server.origin.startswith("http://127.0.0.1:")
    assert server.base_url == server.origin + "/api/v1"
    assert server.api_key.startswith("outreach_live_")
    assert server.test_key.startswith("outreach_test_")
    with http_for(server) as http:
        keys = http.get(f"{server.origin}/v1/api-keys")
        assert keys.status_code == 200, keys.text
        assert keys.json()["data"]["total"] >= 2
        ledger = http.get(f"{server.base_url}/contacts/suppressions")
        assert ledger.status_code == 200, ledger.text
        assert isinstance(ledger.json()["data"], list)
    with http_for(server, key=server.test_key) as http:
        assert http.get(f"{server.origin}/v1/api-keys").status_code == 200
    with http_for(server, key="") as http:
        missing = http.get(f"{server.base_url}/contacts/suppressions")
        assert missing.status_code == 401
        assert missing.json()["detail"] == "Missing Authorization header"


def test_admin_runs_against_the_servers_database(outreach_server: OutreachServer) -> None:
    created = outreach_server.run(
        "create-key", "--org-id", str(outreach_server.org_id), "--mode", "test", "--name", "admin"
    )
    assert created["mode"] == "test"
    with http_for(outreach_server, key=created["api_key_token"]) as http:
        listed = http.get(f"{outreach_server.origin}/v1/api-keys").json()["data"]["keys"]
    names = [key["name"] for key in listed]
    assert "admin" in names
    with pytest.raises(ServerError, match="no organisation 999999"):
        outreach_server.run("enable-flag", "--org-id", "999999", "M6_APP_TOKENS_ENABLED")


def test_the_client_fixture_talks_to_the_server(
    outreach_client: Client, outreach_server: OutreachServer
) -> None:
    assert outreach_client.api_key == outreach_server.api_key
    events = outreach_client.webhooks.events.list()
    assert "person.enriched" in {e.event.value for e in events}


def test_the_receiver_gets_a_signed_delivery(outreach_server: OutreachServer) -> None:
    receiver = outreach_server.receiver
    receiver.clear()
    with subscription(outreach_server, "/signed", ["person.enriched"]) as webhook:
        emit(outreach_server, "person.enriched", {"person_id": 7})
        (delivery,) = receiver.wait_for(1)
    assert delivery.path == "/hooks/signed"
    expected = hmac.new(webhook["secret"].encode(), delivery.body, hashlib.sha256).hexdigest()
    assert delivery.headers["x-webhook-signature"] == expected
    assert delivery.headers["x-webhook-event"] == "person.enriched"
    assert delivery.json()["data"] == {"person_id": 7}
    assert delivery.json()["event"] == "person.enriched"


def test_a_failed_delivery_is_retried(outreach_server: OutreachServer) -> None:
    receiver = outreach_server.receiver
    receiver.clear()
    receiver.respond_with(500, times=1)  # the first attempt fails, every later one succeeds
    try:
        with subscription(outreach_server, "/retried", ["company.enriched"]) as webhook:
            emit(outreach_server, "company.enriched", {"company_id": 3})
            rows = delivery_statuses(outreach_server, webhook["id"], until="success")
            assert sorted(rows) == [("failed", 500), ("success", 204)], rows
            received = receiver.wait_for(2)
            assert [d.headers["x-webhook-attempt"] for d in received] == ["1", "2"]
            assert len({d.headers["x-webhook-event-id"] for d in received}) == 1
            assert len({d.body for d in received}) == 1
    finally:
        receiver.respond_with(204)


def delivery_statuses(
    server: OutreachServer, webhook_id: str, until: str
) -> list[tuple[str, int | None]]:
    """The webhook's delivery rows as (status, response code), once one has status `until`."""
    deadline = time.monotonic() + 10
    with http_for(server) as http:
        while True:
            page = http.get(f"{server.base_url}/webhooks/{webhook_id}/deliveries")
            assert page.status_code == 200, page.text
            rows = [(d["status"], d["response_code"]) for d in page.json()["data"]]
            if any(status == until for status, _ in rows) or time.monotonic() > deadline:
                return rows
            time.sleep(0.2)


def test_wait_for_says_how_many_came(outreach_server: OutreachServer) -> None:
    outreach_server.receiver.clear()
    with pytest.raises(TimeoutError, match="0 of 1 webhook deliveries arrived"):
        outreach_server.receiver.wait_for(1, timeout=0.2)


@pytest.mark.slow
def test_rate_limits_env_and_shutdown(tmp_path: Path) -> None:
    with start_outreach_server(
        tmp_path,
        env={"OUTREACH_RATE_LIMIT_PER_SECOND": "1", "OUTREACH_RATE_LIMIT_PER_MINUTE": "100"},
    ) as server:
        with http_for(server) as http:
            first = http.get(f"{server.origin}/v1/api-keys")
            second = http.get(f"{server.origin}/v1/api-keys")
        assert first.status_code == 200, first.text
        assert second.status_code == 429
        assert second.headers["X-RateLimit-Limit-Second"] == "1"
        assert (tmp_path / "outreach.sqlite3").is_file()
        process, origin = server.process, server.origin
    assert process.poll() is not None
    assert server.log_path.is_file() and "serve" in server.log_path.read_text()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{origin}/healthz", timeout=2.0)


@pytest.mark.slow
def test_a_server_that_does_not_start_is_reported_with_its_log(tmp_path: Path) -> None:
    refused = r"(?i)exited with status \d+ before answering GET /healthz[\s\S]*redis"
    with (
        pytest.raises(ServerError, match=refused),
        start_outreach_server(tmp_path, env={"OUTREACH_WORKERS": "2"}),
    ):
        pass


def test_the_server_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OUTREACH_SERVER_COMMAND", "python -m outreach_server.cli")
    assert server_command() == ["python", "-m", "outreach_server.cli"]
    monkeypatch.delenv("OUTREACH_SERVER_COMMAND")
    assert Path(server_command()[0]).name == "outreach-server"
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with pytest.raises(ServerError, match=r"outreach-client\[testing\].*OUTREACH_SERVER_COMMAND"):
        server_command()
