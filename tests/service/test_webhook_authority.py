"""Who may point the organisation's event stream somewhere, and what ends when authority
ends (issue 30, holes 1, 4 and 6), on SQLite and PostgreSQL.

- Hole 4 (spec/DECISIONS.md row 130): webhook operations need the scope `webhooks:manage`,
  a live key of the whole organisation (test-mode and list-narrowed keys are refused), and
  `contacts:read` to create or change one (its events carry contacts). Before the fix a
  narrowed, a test-mode and a contacts:read-only key each repointed the organisation's
  webhook to their own receiver.
- Hole 1 (row 131): a webhook whose URL an agency set stops when the link ends: disabled,
  its pending attempts failed, and the worker refuses it while the link is gone, however
  the link went.
- Hole 6 (row 96, row 132): a disabled webhook's due attempts fail without retry, and the
  pending attempts of a webhook that is disabled or repointed are failed at once, so old
  events never reach a re-enabled or repointed URL.

The app's own worker is off (`webhook_worker=False`): each test runs the worker by hand
(`run_once`), so what was sent is known exactly, with no timing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import make_api
from cryptography.fernet import Fernet
from outreach_server.core.tables import agency_links
from outreach_server.webhooks.outbox import publish_event
from outreach_server.webhooks.tables import webhook_deliveries, webhooks
from service_support import Api, bearer
from sqlalchemy import delete, select, update

SETTINGS: dict[str, Any] = {
    "rate_limit_per_second": 10_000,
    "rate_limit_per_minute": 100_000,
    "webhook_allow_http": True,
    "webhook_allowed_networks": "127.0.0.0/8",
    "webhook_retry_scale": 0.01,
    "webhook_timeout": 2.0,
    "secret_key": Fernet.generate_key().decode(),
    "webhook_worker": False,
    "key_cache_seconds": 0.0,
}
HOOKS = "/api/v1/webhooks"


@dataclass
class Receiver:
    """Records the path of every POST; answers `status`."""

    status: int = 200
    paths: list[str] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.paths.append(self.path)
            self.send_response(state.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def hooks(database_url: str) -> Iterator[Api]:
    yield from make_api(database_url, **SETTINGS)


def create(api: Api, token: str, url: str, **headers: str) -> Any:
    return api.client.post(
        HOOKS,
        json={"url": url, "events": ["person.enriched"]},
        headers=bearer(token) | headers,
    )


def emit(api: Api, org: int) -> None:
    api.call(publish_event, api.services.engine, org, "person.enriched", {"contact_id": 1})


def deliver(api: Api) -> int:
    """Run the worker until nothing is due; the number of attempts it handled."""
    total = 0
    while handled := int(api.call(api.services.webhooks.run_once)):
        total += handled
    return total


def rows(api: Api, hook_id: str) -> list[Any]:
    async def read() -> list[Any]:
        async with api.services.engine.connect() as connection:
            query = select(webhook_deliveries).where(webhook_deliveries.c.webhook_id == hook_id)
            return list((await connection.execute(query.order_by("created_at"))).all())

    return list(api.call(read))


def execute(api: Api, statement: Any) -> None:
    async def run() -> None:
        async with api.services.engine.begin() as connection:
            await connection.execute(statement)

    api.call(run)


# -- hole 4: authority ------------------------------------------------------------------------


def test_narrow_keys_cannot_take_the_organisations_event_stream(
    hooks: Api, receiver: Receiver
) -> None:
    org = hooks.org()
    admin = hooks.key(org)
    made = create(hooks, admin, receiver.url("/owner"))
    assert made.status_code == 201, made.text
    hook_id = made.json()["data"]["id"]
    listed = hooks.client.post(
        "/api/v1/lists", json={"name": "one", "type": "contacts"}, headers=bearer(admin)
    ).json()["data"]["id"]
    attackers = {
        "narrowed": (hooks.key(org, list_ids=[listed]), "API keys narrowed to lists"),
        "test": (hooks.key(org, mode="test"), "Test-mode API keys cannot manage webhooks"),
        "contacts-only": (
            hooks.key(org, tier="write", scopes=("contacts:read",)),
            "API key lacks scope 'webhooks:manage'",
        ),
        "webhooks-only": (
            hooks.key(org, tier="write", scopes=("webhooks:manage",)),
            "API key lacks scope 'contacts:read'",
        ),
    }
    for name, (token, refusal) in attackers.items():
        url = receiver.url(f"/{name}")
        attempts = [
            hooks.client.patch(f"{HOOKS}/{hook_id}", json={"url": url}, headers=bearer(token)),
            hooks.client.patch(
                f"{HOOKS}/{hook_id}", json={"events": ["person.enriched"]}, headers=bearer(token)
            ),
            create(hooks, token, url),
        ]
        if name != "webhooks-only":  # deleting takes no contacts: that key may
            attempts.append(hooks.client.delete(f"{HOOKS}/{hook_id}", headers=bearer(token)))
        for answer in attempts:
            assert answer.status_code == 403, (name, answer.text)
            assert answer.json()["detail"].startswith(refusal), (name, answer.text)
    for name in ("narrowed", "test", "contacts-only"):  # nor read the webhooks
        token = attackers[name][0]
        assert hooks.client.get(HOOKS, headers=bearer(token)).status_code == 403, name
    # the stream still goes to the organisation's own receiver, and only there
    emit(hooks, org)
    assert deliver(hooks) == 1
    assert receiver.paths == ["/owner"]
    got = hooks.client.get(f"{HOOKS}/{hook_id}", headers=bearer(admin)).json()["data"]
    assert got["url"] == receiver.url("/owner")


def test_the_event_catalogue_stays_open_to_every_key(hooks: Api) -> None:
    org = hooks.org()
    token = hooks.key(org, mode="test", tier="read", scopes=("contacts:read",))
    answer = hooks.client.get(f"{HOOKS}/events", headers=bearer(token))
    assert answer.status_code == 200 and answer.json()["data"]


# -- hole 1: an agency's webhook ends with the link -------------------------------------------


def test_an_agencys_webhook_stops_when_the_link_ends(hooks: Api, receiver: Receiver) -> None:
    agency_org, client_org = hooks.org("agency"), hooks.org("client")
    hooks.call(hooks.services.orgs.link, agency_org, client_org)
    agency = hooks.key(agency_org, agency=True)
    client = hooks.key(client_org)
    target = {"X-Target-Org-Id": str(client_org)}
    made = create(hooks, agency, receiver.url("/agency"), **target)
    assert made.status_code == 201, made.text
    hook_id = made.json()["data"]["id"]
    own = create(hooks, client, receiver.url("/client")).json()["data"]["id"]
    emit(hooks, client_org)
    assert deliver(hooks) == 2
    assert sorted(receiver.paths) == ["/agency", "/client"]
    receiver.paths.clear()
    # an event published (pending) before the link ends is not sent after it either
    emit(hooks, client_org)
    hooks.call(hooks.services.orgs.unlink, agency_org, client_org)
    pending = [r for r in rows(hooks, hook_id) if r.status != "success"]
    assert [(r.status, r.error_message) for r in pending] == [
        ("failed", "Agency link ended: webhook disabled (not sent, not retried)")
    ]
    got = hooks.client.get(f"{HOOKS}/{hook_id}", headers=bearer(client)).json()["data"]
    assert got["is_active"] is False  # listed, disabled, with its history
    emit(hooks, client_org)
    deliver(hooks)
    assert receiver.paths == ["/client", "/client"]  # the organisation's own webhook goes on
    assert all(r.status == "success" for r in rows(hooks, own))


def test_the_worker_refuses_an_agency_webhook_whose_link_is_gone(
    hooks: Api, receiver: Receiver
) -> None:
    """However the link went (here: deleted without the store's unlink), an agency's webhook
    delivers nothing once it is gone: the attempt fails without retry."""
    agency_org, client_org = hooks.org("agency"), hooks.org("client")
    hooks.call(hooks.services.orgs.link, agency_org, client_org)
    agency = hooks.key(agency_org, agency=True)
    made = create(hooks, agency, receiver.url("/agency"), **{"X-Target-Org-Id": str(client_org)})
    hook_id = made.json()["data"]["id"]
    execute(hooks, delete(agency_links).where(agency_links.c.org_id == client_org))
    emit(hooks, client_org)
    assert deliver(hooks) == 1
    assert receiver.paths == []
    [row] = rows(hooks, hook_id)
    assert (row.status, row.error_message) == (
        "failed",
        "Agency link ended (attempt 1 of 3; no more attempts)",
    )


def test_the_client_organisation_takes_a_webhook_back_by_pointing_it(
    hooks: Api, receiver: Receiver
) -> None:
    agency_org, client_org = hooks.org("agency"), hooks.org("client")
    hooks.call(hooks.services.orgs.link, agency_org, client_org)
    agency = hooks.key(agency_org, agency=True)
    client = hooks.key(client_org)
    made = create(hooks, agency, receiver.url("/agency"), **{"X-Target-Org-Id": str(client_org)})
    hook_id = made.json()["data"]["id"]
    moved = hooks.client.patch(
        f"{HOOKS}/{hook_id}", json={"url": receiver.url("/client")}, headers=bearer(client)
    )
    assert moved.status_code == 200
    hooks.call(hooks.services.orgs.unlink, agency_org, client_org)
    emit(hooks, client_org)
    assert deliver(hooks) == 1
    assert receiver.paths == ["/client"]


# -- hole 6: a disabled or repointed webhook's old attempts are never sent -----------------------


def test_a_disabled_webhooks_due_attempt_fails_without_retry(
    hooks: Api, receiver: Receiver
) -> None:
    org = hooks.org()
    token = hooks.key(org)
    hook_id = create(hooks, token, receiver.url("/hook")).json()["data"]["id"]
    emit(hooks, org)
    # disabled behind the API's back (as an older demo seeding did): the worker's own rule
    execute(hooks, update(webhooks).where(webhooks.c.id == hook_id).values(is_active=False))
    assert deliver(hooks) == 1
    assert receiver.paths == []
    [row] = rows(hooks, hook_id)
    assert (row.status, row.error_message) == (
        "failed",
        "Webhook is disabled (attempt 1 of 3; no more attempts)",
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"is_active": False}, "Webhook disabled before this attempt (not sent, not retried)"),
        ({"url": "/elsewhere"}, "Webhook URL changed before this attempt (not sent, not retried)"),
        (
            {"events": ["campaign.created"]},
            "Webhook unsubscribed from this event (not sent, not retried)",
        ),
    ],
)
def test_a_change_of_authority_ends_the_pending_attempts(
    hooks: Api, receiver: Receiver, change: dict[str, Any], message: str
) -> None:
    org = hooks.org()
    token = hooks.key(org)
    hook_id = create(hooks, token, receiver.url("/old")).json()["data"]["id"]
    receiver.status = 500
    emit(hooks, org)
    assert int(hooks.call(hooks.services.webhooks.run_once)) == 1  # attempt 1 fails
    [first, retry] = rows(hooks, hook_id)
    assert first.status == "failed" and retry.status == "pending"
    if "url" in change:
        change = {"url": receiver.url(change["url"])}
    answer = hooks.client.patch(f"{HOOKS}/{hook_id}", json=change, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    after = {r.id: r for r in rows(hooks, hook_id)}[retry.id]
    assert (after.status, after.error_message) == ("failed", message)
    # re-enabled (or pointed back) later: the old event is not sent again
    receiver.status = 200
    hooks.client.patch(
        f"{HOOKS}/{hook_id}",
        json={"is_active": True, "events": ["person.enriched"]},
        headers=bearer(token),
    )
    assert deliver(hooks) == 0
    assert receiver.paths == ["/old"]


def test_an_agency_repointing_the_clients_own_webhook_loses_it_with_the_link(
    hooks: Api, receiver: Receiver
) -> None:
    """The URL's setter counts, not the creator: an agency that points the client's own
    webhook at itself loses it when the link ends, and the client re-enabling it without
    pointing it elsewhere sends the agency nothing."""
    agency_org, client_org = hooks.org("agency"), hooks.org("client")
    hooks.call(hooks.services.orgs.link, agency_org, client_org)
    agency = hooks.key(agency_org, agency=True)
    client = hooks.key(client_org)
    hook_id = create(hooks, client, receiver.url("/client")).json()["data"]["id"]
    taken = hooks.client.patch(
        f"{HOOKS}/{hook_id}",
        json={"url": receiver.url("/agency")},
        headers=bearer(agency) | {"X-Target-Org-Id": str(client_org)},
    )
    assert taken.status_code == 200, taken.text
    hooks.call(hooks.services.orgs.unlink, agency_org, client_org)
    again = hooks.client.patch(
        f"{HOOKS}/{hook_id}", json={"is_active": True}, headers=bearer(client)
    )
    assert again.status_code == 200 and again.json()["data"]["is_active"] is True
    emit(hooks, client_org)
    assert deliver(hooks) == 1
    assert receiver.paths == []
    assert rows(hooks, hook_id)[-1].error_message.startswith("Agency link ended")


def test_unlink_org_from_the_command_line_ends_the_agencys_webhook(
    hooks: Api, database_url: str, receiver: Receiver
) -> None:
    """Issue 30's reproduction as written: the operator command, not the store call."""
    from service_support import one_json, outreach_cli

    agency_org, client_org = hooks.org("agency"), hooks.org("client")
    hooks.call(hooks.services.orgs.link, agency_org, client_org)
    agency = hooks.key(agency_org, agency=True)
    made = create(hooks, agency, receiver.url("/agency"), **{"X-Target-Org-Id": str(client_org)})
    hook_id = made.json()["data"]["id"]
    emit(hooks, client_org)  # pending when the link ends
    ids = ["--agency-org-id", str(agency_org), "--org-id", str(client_org)]
    one_json(outreach_cli("admin", "unlink-org", *ids, database_url=database_url))
    emit(hooks, client_org)  # after: a disabled webhook gets no delivery at all
    deliver(hooks)
    assert receiver.paths == []
    assert [(r.status, r.error_message) for r in rows(hooks, hook_id)] == [
        ("failed", "Agency link ended: webhook disabled (not sent, not retried)")
    ]
