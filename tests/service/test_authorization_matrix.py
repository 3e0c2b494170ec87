"""Authorisation of every operation, generated from the operation table (issue 12).

Each test walks `outreach_api.operations.OPERATIONS` (built from the spec), so an operation
added to the spec is covered without anyone remembering to: test-mode keys never spend credits
(spec/DECISIONS.md row 115), an agency reaches a client organisation only while linked (row
117), a key without an operation's scope is refused, and a key narrowed to lists acts on no
contact outside them in any suppression operation (row 82).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from outreach_api.constants import SCOPES
from outreach_api.operations import OPERATIONS
from outreach_api.runtime import OperationInfo
from outreach_server.billing.balances import balance, grant
from service_support import Api, bearer

ALL_SCOPES = tuple(sorted(SCOPES))
FOREIGN = {"detail": "API key may not act for the target organization"}


def keyed(op: OperationInfo) -> bool:
    return any("ApiKey" in alternative for alternative in op.security)


def call(api: Api, op: OperationInfo, token: str, **headers: str) -> Any:
    path = re.sub(r"\{[^}]+\}", "1", op.path)
    body = {} if op.method in ("POST", "PUT", "PATCH") else None
    return api.client.request(op.method, path, json=body, headers=bearer(token) | headers)


def give(api: Api, org: int, amount: int) -> None:
    async def run() -> None:
        async with api.services.engine.begin() as connection:
            await grant(connection, org, amount)

    api.call(run)


def credits(api: Api, org: int) -> int:
    return int(api.call(balance, api.services.reader, org))


BILLABLE = sorted(op.operation_id for op in OPERATIONS.values() if op.tier == "billable")
KEYED = sorted(op.operation_id for op in OPERATIONS.values() if keyed(op))
SCOPED = sorted(op.operation_id for op in OPERATIONS.values() if keyed(op) and op.scope)


def test_the_table_has_what_the_matrix_walks() -> None:
    assert len(BILLABLE) >= 4 and len(KEYED) >= 40 and len(SCOPED) >= 25


def test_a_test_mode_key_never_spends_credits(api: Api) -> None:
    org = api.org()
    give(api, org, 50)
    token = api.key(org, mode="test")
    for operation_id in BILLABLE:
        response = call(api, OPERATIONS[operation_id], token)
        assert response.status_code == 403, (operation_id, response.text)
        assert response.json() == {"detail": "Test-mode API keys cannot spend credits"}
    assert credits(api, org) == 50


def test_a_test_mode_key_never_creates_a_live_key(api: Api) -> None:
    org = api.org()
    token = api.key(org, mode="test")
    refused = api.client.post(
        "/v1/api-keys", json={"name": "x", "mode": "live"}, headers=bearer(token)
    )
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Test-mode API keys create only test-mode keys"}
    default = api.client.post("/v1/api-keys", json={"name": "x"}, headers=bearer(token))
    assert default.status_code == 403  # the default mode is live: refused the same way
    made = api.client.post(
        "/v1/api-keys", json={"name": "x", "mode": "test"}, headers=bearer(token)
    )
    assert made.status_code == 201 and made.json()["data"]["mode"] == "test"
    modes = [
        k["mode"]
        for k in api.client.get("/v1/api-keys", headers=bearer(token)).json()["data"]["keys"]
    ]
    assert modes.count("live") == 0


def test_an_agency_reaches_a_client_only_while_linked(api: Api) -> None:
    agency_org, client_org = api.org("agency"), api.org("client")
    api.call(api.services.orgs.link, agency_org, client_org)
    agency = api.key(agency_org, agency=True)
    target = {"X-Target-Org-Id": str(client_org)}
    for operation_id in KEYED:
        linked = call(api, OPERATIONS[operation_id], agency, **target)
        assert linked.json() != FOREIGN, operation_id
    api.call(api.services.orgs.unlink, agency_org, client_org)
    for operation_id in KEYED:
        unlinked = call(api, OPERATIONS[operation_id], agency, **target)
        assert (unlinked.status_code, unlinked.json()) == (403, FOREIGN), operation_id


def test_an_agency_key_mints_no_key_in_a_client_organisation(api: Api) -> None:
    agency_org, client_org = api.org("agency"), api.org("client")
    api.call(api.services.orgs.link, agency_org, client_org)
    agency = api.key(agency_org, agency=True)
    response = api.client.post(
        "/v1/api-keys",
        json={"name": "backdoor", "mode": "live"},
        headers=bearer(agency) | {"X-Target-Org-Id": str(client_org)},
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "API keys are created only by the organization's own keys"}


def test_a_key_without_the_scope_is_refused(api: Api) -> None:
    org = api.org()
    give(api, org, 50)
    lacking = {s: api.key(org, scopes=tuple(o for o in ALL_SCOPES if o != s)) for s in ALL_SCOPES}
    for operation_id in SCOPED:
        op = OPERATIONS[operation_id]
        assert op.scope is not None
        response = call(api, op, lacking[op.scope])
        assert (response.status_code, response.json()) == (
            403,
            {"detail": f"API key lacks scope '{op.scope}'"},
        ), operation_id
    assert credits(api, org) == 50


# -- narrowed keys on every suppression operation ---------------------------------------------

SUPPRESSION_CALLS: dict[str, tuple[str, str, Any]] = {
    "get_contact_suppression_status": ("GET", "/api/v1/contacts/{id}/suppression", None),
    "suppress_contact": ("POST", "/api/v1/contacts/{id}/suppress", {}),
    "unsuppress_contact": ("POST", "/api/v1/contacts/{id}/unsuppress", {}),
    "bulk_add_suppressions": (
        "POST",
        "/api/v1/contacts/suppressions/bulk-add",
        {"contact_ids": ["{id}"]},
    ),
    "reinstate_suppressions": (
        "POST",
        "/api/v1/contacts/suppressions/reinstate",
        {"contact_ids": ["{id}"]},
    ),
    "list_suppressions": ("GET", "/api/v1/contacts/suppressions", None),
}


def test_every_suppression_operation_is_in_the_narrowing_matrix() -> None:
    tagged = {op.operation_id for op in OPERATIONS.values() if op.tag == "suppressions"}
    assert tagged == set(SUPPRESSION_CALLS)


def _fill(value: Any, contact_id: int) -> Any:
    if value == "{id}":
        return contact_id
    if isinstance(value, dict):
        return {k: _fill(v, contact_id) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, contact_id) for v in value]
    return value


def _send(api: Api, token: str, operation_id: str, contact_id: int) -> Any:
    method, path, body = SUPPRESSION_CALLS[operation_id]
    return api.client.request(
        method,
        path.replace("{id}", str(contact_id)),
        json=_fill(body, contact_id),
        headers=bearer(token),
    )


@pytest.mark.parametrize("operation_id", sorted(SUPPRESSION_CALLS))
def test_a_narrowed_key_acts_on_no_contact_outside_its_lists(api: Api, operation_id: str) -> None:
    org = api.org()
    admin = api.key(org)
    granted = api.client.post(
        "/api/v1/lists", json={"name": "granted", "type": "contacts"}, headers=bearer(admin)
    ).json()["data"]["id"]
    other = api.client.post(
        "/api/v1/lists", json={"name": "other", "type": "contacts"}, headers=bearer(admin)
    ).json()["data"]["id"]
    inside = api.client.post(
        "/api/v1/contacts",
        json={"list_id": granted, "email": "in@example.com"},
        headers=bearer(admin),
    ).json()["data"]["id"]
    outside = api.client.post(
        "/api/v1/contacts",
        json={"list_id": other, "email": "out@example.com"},
        headers=bearer(admin),
    ).json()["data"]["id"]
    # a suppression row on the outside contact, so the listing has something to leak
    assert (
        api.client.post(
            f"/api/v1/contacts/{outside}/suppress", json={}, headers=bearer(admin)
        ).status_code
        == 200
    )
    narrowed = api.key(org, list_ids=[granted])
    before = api.client.get("/api/v1/contacts/suppressions", headers=bearer(admin)).json()
    if operation_id == "list_suppressions":
        rows = _send(api, narrowed, operation_id, outside).json()["data"]
        assert outside not in {row["contact_id"] for row in rows}
        return
    foreign = _send(api, narrowed, operation_id, outside)
    missing = _send(api, narrowed, operation_id, 10**9)
    assert foreign.status_code == 404, foreign.text
    # the same answer as for an id that does not exist (only the id named differs)
    assert foreign.json()["detail"].replace(str(outside), "ID") == missing.json()["detail"].replace(
        str(10**9), "ID"
    )
    assert api.client.get("/api/v1/contacts/suppressions", headers=bearer(admin)).json() == before
    assert _send(api, narrowed, operation_id, inside).status_code == 200


def test_unlink_org_ends_the_link(database_url: str) -> None:
    from service_support import one_json, outreach_cli

    outreach_cli("migrate", database_url=database_url)
    agency = one_json(outreach_cli("admin", "create-org", "agency", database_url=database_url))
    client = one_json(outreach_cli("admin", "create-org", "client", database_url=database_url))
    ids = ["--agency-org-id", str(agency["org_id"]), "--org-id", str(client["org_id"])]
    linked = one_json(outreach_cli("admin", "link-org", *ids, database_url=database_url))
    assert linked["linked"] is True
    unlinked = one_json(outreach_cli("admin", "unlink-org", *ids, database_url=database_url))
    assert unlinked == {
        "agency_org_id": agency["org_id"],
        "org_id": client["org_id"],
        "linked": False,
    }
