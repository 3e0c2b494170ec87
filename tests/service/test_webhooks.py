"""Webhook subscriptions: CRUD, the secret shown once, the 10-active limit (also under
concurrency), target URL refusals (SSRF), the deliveries listing; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import make_api
from cryptography.fernet import Fernet
from outreach_api.constants import WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG
from outreach_api.models import WebhookEventKind
from outreach_server.core.resolver import FixedResolver
from outreach_server.core.secrets import SecretBox, secret_box
from outreach_server.webhooks.outbox import publish_event
from outreach_server.webhooks.signature import sign, verify_signature
from outreach_server.webhooks.tables import webhook_deliveries, webhooks
from outreach_server.webhooks.targets import TargetRefused, resolve_target
from service_support import Api, bearer

BASE = "/api/v1/webhooks"
KEY = Fernet.generate_key().decode()
URL = "http://127.0.0.1:9/hook"
FAST = {"rate_limit_per_second": 10_000, "rate_limit_per_minute": 100_000}


@pytest.fixture
def hooks(database_url: str) -> Iterator[Api]:
    yield from make_api(
        database_url,
        **FAST,
        key_cache_seconds=0.0,
        webhook_allow_http=True,
        webhook_allowed_networks="127.0.0.0/8",
        webhook_worker=False,
        secret_key=KEY,
    )


@pytest.fixture(scope="module")
def refusing(module_database_url: str) -> Iterator[Api]:
    """One app per backend for the target checks (http allowed, no network exempted)."""
    yield from make_api(
        module_database_url, **FAST, webhook_allow_http=True, webhook_worker=False, secret_key=KEY
    )


def create(api: Api, token: str, **body: Any) -> httpx.Response:
    payload = {"url": URL, "events": ["campaign.created"], **body}
    return api.client.post(BASE, json=payload, headers=bearer(token))


def test_event_kinds_are_the_thirteen(hooks: Api) -> None:
    token = hooks.key(hooks.org())
    answer = hooks.client.get(f"{BASE}/events", headers=bearer(token))
    assert answer.status_code == 200
    kinds = [item["event"] for item in answer.json()["data"]]
    assert kinds == [kind.value for kind in WebhookEventKind] and len(kinds) == 13


def test_crud_and_secret_only_on_create(hooks: Api) -> None:
    org = hooks.org()
    token = hooks.key(org)
    made = create(hooks, token, name="crm", events=["campaign.created", "person.enriched"])
    assert made.status_code == 201, made.text
    data = made.json()["data"]
    secret = data["secret"]
    assert secret.startswith("whsec_") and len(secret) > 40
    assert data["name"] == "crm" and data["is_active"] is True
    hook_id = data["id"]

    got = hooks.client.get(f"{BASE}/{hook_id}", headers=bearer(token))
    assert got.status_code == 200 and "secret" not in got.json()["data"]
    listed = hooks.client.get(BASE, headers=bearer(token)).json()["data"]
    assert [h["id"] for h in listed] == [hook_id] and "secret" not in listed[0]
    assert secret not in got.text and secret not in str(listed)

    # stored encrypted, decryptable with the server key
    async def stored() -> str:
        async with hooks.services.engine.connect() as connection:
            return str(
                await connection.scalar(
                    webhooks.select().with_only_columns(webhooks.c.secret_encrypted)
                )
            )

    encrypted = hooks.call(stored)
    assert secret not in encrypted
    assert secret_box(hooks.services.settings).decrypt(encrypted) == secret

    empty = hooks.client.patch(f"{BASE}/{hook_id}", json={}, headers=bearer(token))
    assert empty.status_code == 400 and empty.json() == {"detail": "No fields to update"}
    patched = hooks.client.patch(
        f"{BASE}/{hook_id}", json={"is_active": False, "name": "x"}, headers=bearer(token)
    )
    assert patched.status_code == 200
    assert patched.json()["data"]["is_active"] is False and patched.json()["data"]["name"] == "x"
    assert hooks.client.get(BASE, params={"is_active": "true"}, headers=bearer(token)).json() == {
        "data": []
    }
    inactive = hooks.client.get(BASE, params={"is_active": "false"}, headers=bearer(token))
    assert [h["id"] for h in inactive.json()["data"]] == [hook_id]

    unknown = create(hooks, token, events=["campaign.exploded"])
    assert unknown.status_code == 422
    assert create(hooks, token, events=[]).status_code == 400

    # tenant isolation: another organisation sees nothing
    other = hooks.key(hooks.org("other"))
    assert hooks.client.get(f"{BASE}/{hook_id}", headers=bearer(other)).status_code == 404
    assert hooks.client.delete(f"{BASE}/{hook_id}", headers=bearer(other)).status_code == 404
    assert hooks.client.get(BASE, headers=bearer(other)).json() == {"data": []}

    assert hooks.client.delete(f"{BASE}/{hook_id}", headers=bearer(token)).status_code == 204
    assert hooks.client.get(f"{BASE}/{hook_id}", headers=bearer(token)).status_code == 404
    assert hooks.client.delete(f"{BASE}/{hook_id}", headers=bearer(token)).status_code == 404
    assert (
        hooks.client.patch(f"{BASE}/{hook_id}", json={"name": "y"}, headers=bearer(token))
    ).status_code == 404


def test_ten_active_limit_on_create_and_reactivation(hooks: Api) -> None:
    token = hooks.key(hooks.org())
    ids = []
    for _ in range(WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG):
        made = create(hooks, token)
        assert made.status_code == 201
        ids.append(made.json()["data"]["id"])
    refused = create(hooks, token)
    assert refused.status_code == 400
    assert "Maximum of 10 active webhooks" in refused.json()["detail"]
    off = hooks.client.patch(f"{BASE}/{ids[0]}", json={"is_active": False}, headers=bearer(token))
    assert off.status_code == 200
    eleventh = create(hooks, token)
    assert eleventh.status_code == 201
    back = hooks.client.patch(f"{BASE}/{ids[0]}", json={"is_active": True}, headers=bearer(token))
    assert back.status_code == 400 and "Maximum of 10" in back.json()["detail"]


def test_ten_active_limit_under_concurrent_creates(hooks: Api) -> None:
    org = hooks.org()
    token = hooks.key(org)
    app = hooks.client.app

    async def burst() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            answers = await asyncio.gather(
                *(
                    client.post(
                        BASE,
                        json={"url": URL, "events": ["document.created"]},
                        headers=bearer(token),
                    )
                    for _ in range(20)
                )
            )
        return [answer.status_code for answer in answers]

    codes = hooks.call(burst)
    assert sorted(codes) == [201] * 10 + [400] * 10
    listed = hooks.client.get(BASE, params={"is_active": "true"}, headers=bearer(token))
    assert len(listed.json()["data"]) == WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.0.0.5/hook", "not allowed"),
        ("http://192.168.1.1/hook", "not allowed"),
        ("http://[::1]/hook", "not allowed"),
        ("http://169.254.10.10/hook", "not allowed"),
        ("http://169.254.169.254/latest/meta-data", "not allowed"),
        ("http://0.0.0.0/hook", "not allowed"),
        ("http://[::ffff:10.0.0.1]/hook", "not allowed"),
        ("ftp://example.com/hook", "https"),
        ("http://user:pw@203.0.113.9/hook", "credentials"),
    ],
)
def test_internal_targets_are_refused(refusing: Api, url: str, reason: str) -> None:
    answer = create(refusing, refusing.key(refusing.org()), url=url)
    assert answer.status_code == 400, answer.text
    assert reason in answer.json()["detail"]


def test_http_needs_the_setting_and_loopback_needs_allowed_network(database_url: str) -> None:
    for api in make_api(database_url, **FAST, webhook_worker=False, secret_key=KEY):
        token = api.key(api.org())
        answer = create(api, token, url="http://93.184.216.34/hook")
        assert answer.status_code == 400 and "https" in answer.json()["detail"]
        answer = create(api, token, url="https://127.0.0.1/hook")
        assert answer.status_code == 400 and "not allowed" in answer.json()["detail"]


def test_metadata_address_refused_even_when_its_network_is_allowed() -> None:
    async def check() -> None:
        resolver = FixedResolver(
            {"addr:meta.example": ["169.254.169.254"], "addr:ok.example": ["169.254.1.2"]}
        )
        options = {"allow_http": True, "allowed": "169.254.0.0/16", "resolver": resolver}
        with pytest.raises(TargetRefused, match="not allowed"):
            await resolve_target("http://169.254.169.254/", **options)  # type: ignore[arg-type]
        with pytest.raises(TargetRefused, match="not allowed"):
            await resolve_target("https://meta.example/", **options)  # type: ignore[arg-type]
        fine = await resolve_target("https://ok.example/x?y=1", **options)  # type: ignore[arg-type]
        assert fine.address == "169.254.1.2" and fine.target.path == "/x?y=1"
        with pytest.raises(TargetRefused, match="could not be resolved"):
            await resolve_target("https://unknown.example/", **options)  # type: ignore[arg-type]

    asyncio.run(check())


def test_hostnames_resolve_through_the_resolver(database_url: str) -> None:
    fixed = "addr:internal.example=10.1.2.3;addr:public.example=93.184.216.34"
    for api in make_api(
        database_url, **FAST, webhook_worker=False, secret_key=KEY, dns_fixed=fixed
    ):
        token = api.key(api.org())
        refused = create(api, token, url="https://internal.example/hook")
        assert refused.status_code == 400 and "not allowed" in refused.json()["detail"]
        assert "10.1.2.3" not in refused.text  # never what the host resolved to
        assert create(api, token, url="https://public.example/hook").status_code == 201


def test_postgresql_without_secret_key_is_503(database_url: str) -> None:
    if database_url.startswith("sqlite"):
        for api in make_api(
            database_url,
            **FAST,
            webhook_worker=False,
            webhook_allow_http=True,
            webhook_allowed_networks="127.0.0.0/8",
        ):
            assert create(api, api.key(api.org())).status_code == 201  # key file created
        return
    for api in make_api(
        database_url,
        **FAST,
        webhook_worker=False,
        webhook_allow_http=True,
        webhook_allowed_networks="127.0.0.0/8",
    ):
        answer = create(api, api.key(api.org()))
        assert answer.status_code == 503
        assert answer.json() == {"detail": "Webhook secret key not configured"}


def test_deliveries_listing_paginates_and_filters(hooks: Api) -> None:
    org = hooks.org()
    token = hooks.key(org)
    hook_id = create(hooks, token).json()["data"]["id"]
    for _ in range(5):
        hooks.call(publish_event, hooks.services.engine, org, "campaign.created", {"n": 1})
    hooks.call(publish_event, hooks.services.engine, org, "document.created", {"n": 2})

    async def mark_two_failed() -> None:
        async with hooks.services.engine.begin() as connection:
            ids = [
                row.id
                for row in await connection.execute(
                    webhook_deliveries.select().order_by(webhook_deliveries.c.id).limit(2)
                )
            ]
            await connection.execute(
                webhook_deliveries.update()
                .where(webhook_deliveries.c.id.in_(ids))
                .values(status="failed", attempts=1)
            )

    hooks.call(mark_two_failed)
    url = f"{BASE}/{hook_id}/deliveries"
    page = hooks.client.get(url, params={"limit": 2}, headers=bearer(token)).json()
    assert len(page["data"]) == 2
    assert page["pagination"] == {
        "page": 1,
        "limit": 2,
        "total": 5,
        "has_next": True,
        "next_cursor": None,
    }
    last = hooks.client.get(url, params={"limit": 2, "page": 3}, headers=bearer(token)).json()
    assert len(last["data"]) == 1 and last["pagination"]["has_next"] is False
    failed = hooks.client.get(url, params={"status": "failed"}, headers=bearer(token)).json()
    assert failed["pagination"]["total"] == 2
    assert {d["status"] for d in failed["data"]} == {"failed"}
    pending = hooks.client.get(url, params={"status": "pending"}, headers=bearer(token)).json()
    assert pending["pagination"]["total"] == 3
    row = pending["data"][0]
    assert row["event"] == "campaign.created" and row["attempts"] == 0
    assert row["max_attempts"] == 3 and row["completed_at"] is None
    assert hooks.client.get(url, params={"limit": 201}, headers=bearer(token)).status_code == 422
    other = hooks.key(hooks.org("other"))
    assert hooks.client.get(url, headers=bearer(other)).status_code == 404


def test_signature_helpers_and_key_rotation() -> None:
    body = b'{"id":"evt_1"}'
    signature = sign(body, "whsec_abc")
    assert signature == signature.lower() and len(signature) == 64
    assert verify_signature(body, signature, "whsec_abc")
    assert not verify_signature(body + b" ", signature, "whsec_abc")
    assert not verify_signature(body, signature, "whsec_other")
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    token = SecretBox.from_setting(old).encrypt("s3cret")
    rotated = SecretBox.from_setting(f"{new},{old}")
    assert rotated.decrypt(token) == "s3cret"
    assert SecretBox.from_setting(new).decrypt(rotated.encrypt("x")) == "x"
