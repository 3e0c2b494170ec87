"""Authentication, API keys, tiers and scopes, organisation targeting: section 5 of the document.

Every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import time

from outreach_server.core.tables import api_keys
from outreach_server.keys.store import strip_prefix
from service_support import Api, bearer
from sqlalchemy import func, select

JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLWJ5dGVz"
KEYS = "/v1/api-keys"


def key_count(api: Api) -> int:
    async def count() -> int:
        async with api.services.engine.connect() as connection:
            return int(
                (await connection.execute(select(func.count()).select_from(api_keys))).scalar_one()
            )

    return int(api.call(count))


def test_missing_jwt_malformed_and_unknown_keys_get_the_documented_401s(api: Api) -> None:
    client = api.client
    cases = {
        None: "Missing Authorization header",
        f"Bearer {JWT}": "JWT token provided instead of API key",
        "Bearer": "Invalid or expired API key",
        "Basic dXNlcjpwYXNz": "Invalid or expired API key",
        "Bearer outreach_live_doesnotexist": "Invalid or expired API key",
        "Bearer " + "A" * 10_000: "Invalid or expired API key",  # 16 KiB+ of headers: 431
        "Bearer x' OR '1'='1": "Invalid or expired API key",
    }
    for header, message in cases.items():
        response = client.get(KEYS, headers={} if header is None else {"Authorization": header})
        assert response.status_code == 401, header
        assert response.json() == {"detail": message}, header


def test_key_without_organization_and_expired_or_revoked_keys(api: Api) -> None:
    orphan = api.key(None)
    assert api.client.get(KEYS, headers=bearer(orphan)).json() == {
        "detail": "API key not associated with an organization"
    }
    org = api.org()
    expired = api.key(org, expires_at=int(time.time()) - 1)
    revoked = api.key(org)
    assert api.client.get(KEYS, headers=bearer(revoked)).status_code == 200
    (record,) = [r for r in api.call(api.services.keys.list_for_org, org) if r.expires_at is None]
    assert api.call(api.services.keys.revoke, record.id) is True
    for token in (expired, revoked):
        response = api.client.get(KEYS, headers=bearer(token))
        assert (
            response.status_code == 401
            and response.json()["detail"] == "Invalid or expired API key"
        )


def test_create_returns_the_token_once_and_list_never_does(api: Api) -> None:
    org = api.org()
    admin = api.key(org, tier="write", scopes=("contacts:read",))
    created = api.client.post(KEYS, json={"name": "ci", "mode": "test"}, headers=bearer(admin))
    assert created.status_code == 201, created.text
    data = created.json()["data"]
    assert data["mode"] == "test" and data["api_key_token"].startswith("outreach_test_")
    assert len(strip_prefix(data["api_key_token"])) >= 43
    assert data["tier"] == "write" and data["scopes"] == ["contacts:read"]  # inherited, never more
    default = api.client.post(KEYS, json={"name": "default mode"}, headers=bearer(admin)).json()[
        "data"
    ]
    assert default["mode"] == "live" and default["api_key_token"].startswith("outreach_live_")

    listing = api.client.get(KEYS, headers=bearer(admin))
    assert listing.status_code == 200
    body = listing.json()["data"]
    assert body["total"] == 3 == len(body["keys"])
    assert data["api_key_token"] not in listing.text and "token" not in listing.text
    listed = {k["api_key_id"]: k for k in body["keys"]}[data["api_key_id"]]
    assert listed["is_agency"] is False and isinstance(listed["created_at"], int)
    assert abs(listed["created_at"] - time.time()) < 60
    assert listed["last_used_at"] is None


def test_the_stored_mode_wins_over_the_prefix(api: Api) -> None:
    org = api.org()
    test_token = api.key(org, mode="test")
    secret = strip_prefix(test_token)
    for variant in (secret, "outreach_live_" + secret, test_token):
        record = api.call(api.services.keys.authenticate, variant)
        assert record is not None and record.mode == "test", variant
        assert api.client.get(KEYS, headers=bearer(variant)).status_code == 200
    assert api.call(api.services.keys.authenticate, "outreach_live_" + secret[:-1] + "x") is None


def test_last_used_at_is_stamped_at_most_once_a_minute(api: Api) -> None:
    org = api.org()
    token = api.key(org)
    for _ in range(3):
        assert api.client.get(KEYS, headers=bearer(token)).status_code == 200
    (listed,) = api.client.get(KEYS, headers=bearer(token)).json()["data"]["keys"]
    stamped = listed["last_used_at"]
    assert stamped is not None and abs(stamped - time.time()) < 60
    assert api.services.keys._touched  # one write per key per minute, remembered in-process


def test_tier_refusals_happen_before_the_handler_and_write_nothing(api: Api) -> None:
    org = api.org()
    reader = api.key(org, tier="read")
    before = key_count(api)
    response = api.client.post(
        KEYS, json={"name": "escalate", "mode": "live"}, headers=bearer(reader)
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "API key tier 'read' does not allow 'write' operations"}
    assert key_count(api) == before
    # contact reads sent by POST are read tier: a read key passes the tier check
    fetch = api.client.post("/api/v1/contacts/fetch", json={}, headers=bearer(reader))
    assert fetch.status_code != 403


def test_scope_refusals(api: Api) -> None:
    org = api.org()
    narrow = api.key(org, tier="billable", scopes=("contacts:read",))
    response = api.client.post("/api/v1/contacts/1/suppress", json={}, headers=bearer(narrow))
    assert response.status_code == 403
    assert response.json() == {"detail": "API key lacks scope 'contacts:write'"}
    verify = api.client.post(
        "/api/v1/contacts/verify-email", json={"contact_ids": [1]}, headers=bearer(narrow)
    )
    assert verify.json() == {"detail": "API key lacks scope 'enrichment:run'"}


def test_creating_a_key_never_escalates(api: Api) -> None:
    org = api.org()
    writer = api.key(org, tier="write", scopes=("contacts:read",))
    before = key_count(api)
    higher = api.client.post(KEYS, json={"name": "x", "tier": "billable"}, headers=bearer(writer))
    assert higher.status_code == 403 and "tier 'billable'" in higher.json()["detail"]
    wider = api.client.post(
        KEYS, json={"name": "x", "scopes": ["contacts:write"]}, headers=bearer(writer)
    )
    assert wider.status_code == 403 and "contacts:write" in wider.json()["detail"]
    unknown = api.client.post(
        KEYS, json={"name": "x", "scopes": ["admin:all"]}, headers=bearer(writer)
    )
    assert unknown.status_code == 400 and unknown.json() == {"detail": "Unknown scope: admin:all"}
    assert key_count(api) == before
    narrower = api.client.post(
        KEYS, json={"name": "x", "tier": "read", "scopes": []}, headers=bearer(writer)
    )
    assert narrower.status_code == 201 and narrower.json()["data"]["tier"] == "read"


def test_bad_bodies_get_422_and_write_nothing(api: Api) -> None:
    org = api.org()
    token = api.key(org)
    before = key_count(api)
    headers = {**bearer(token), "content-type": "application/json"}
    for content in (
        b"{not json",
        b"[]",
        b'{"mode": "live"}',
        b'{"name": "x", "mode": "prod"}',
        b'{"name": 5}',
    ):
        response = api.client.post(KEYS, content=content, headers=headers)
        assert response.status_code == 422, content
        assert all({"loc", "msg", "type"} <= set(item) for item in response.json()["detail"])
    assert api.client.post(KEYS, json={"name": "   "}, headers=bearer(token)).status_code == 400
    assert key_count(api) == before


def test_sql_looking_names_are_stored_as_text(api: Api) -> None:
    org = api.org()
    token = api.key(org)
    name = "x'); DROP TABLE api_keys; --"
    assert api.client.post(KEYS, json={"name": name}, headers=bearer(token)).status_code == 201
    names = [k["name"] for k in api.client.get(KEYS, headers=bearer(token)).json()["data"]["keys"]]
    assert name in names


def test_organisation_targeting(api: Api) -> None:
    agency_org, client_org, stranger_org = api.org("agency"), api.org("client"), api.org("stranger")
    api.call(api.services.orgs.link, agency_org, client_org)
    agency = api.key(agency_org, agency=True)
    plain = api.key(agency_org)
    api.key(client_org, mode="test")
    refusal = {"detail": "API key may not act for the target organization"}

    def get(token: str, target: str | None) -> tuple[int, dict[str, object]]:
        headers = bearer(token) | ({"X-Target-Org-Id": target} if target is not None else {})
        response = api.client.get(KEYS, headers=headers)
        return response.status_code, response.json()

    status, body = get(agency, str(client_org))
    assert status == 200 and [k["mode"] for k in body["data"]["keys"]] == [
        "test"
    ]  # the client org's keys
    assert get(agency, str(agency_org))[0] == 200
    assert get(plain, str(agency_org))[0] == 200  # its own organisation
    for token, target in [
        (plain, str(client_org)),  # linked, but not an agency key
        (agency, str(stranger_org)),  # exists, not linked
        (agency, "999999"),  # does not exist: the same answer
        (agency, "1 OR 1=1"),
        (agency, "-1"),
        (agency, f"+{client_org}"),
        (agency, f"{client_org}_"),
    ]:
        assert get(token, target) == (403, refusal), target
    # issue 30 hole 8: digits of other scripts name no organisation (headers arrive as bytes)
    for raw in (
        "".join(chr(0x660 + int(d)) for d in str(client_org)).encode(),  # Arabic-Indic, UTF-8
        "".join(chr(0xFF10 + int(d)) for d in str(client_org)).encode(),  # fullwidth, UTF-8
        b"\xb2",  # read as latin-1: "\u00b2", which isdigit() accepts and int() refuses
    ):
        headers = {"Authorization": f"Bearer {agency}", "X-Target-Org-Id": raw}
        response = api.client.get(KEYS, headers=headers)  # type: ignore[arg-type]
        assert (response.status_code, response.json()) == (403, refusal), raw


def test_narrowed_keys_are_listed_with_their_tier_and_scopes(api: Api) -> None:
    org = api.org()
    api.key(org, tier="read", scopes=("contacts:read",))
    admin = api.key(org)
    keys = api.client.get(KEYS, headers=bearer(admin)).json()["data"]["keys"]
    assert {(k["tier"], tuple(k["scopes"])) for k in keys} == {
        ("read", ("contacts:read",)),
        ("billable", ("contacts:read", "contacts:write", "enrichment:run", "webhooks:manage")),
    }


def test_a_narrowed_key_only_creates_keys_as_narrow(api: Api) -> None:
    from outreach_server.core.tables import lists
    from outreach_server.keys.tables import api_key_lists
    from sqlalchemy import insert

    org = api.org()

    async def setup() -> tuple[int, int]:
        async with api.services.engine.begin() as connection:
            ids = []
            for name in ("granted", "other"):
                result = await connection.execute(
                    insert(lists)
                    .values(org_id=org, name=name, type="contacts", created_at=0)
                    .returning(lists.c.id)
                )
                ids.append(int(result.scalar_one()))
        return ids[0], ids[1]

    granted, _ = api.call(setup)
    narrow = api.key(org)
    (record,) = api.call(api.services.keys.list_for_org, org)

    async def narrow_it() -> None:
        async with api.services.engine.begin() as connection:
            await connection.execute(
                insert(api_key_lists).values(api_key_id=record.id, list_id=granted)
            )

    api.call(narrow_it)
    created = api.client.post(KEYS, json={"name": "child"}, headers=bearer(narrow)).json()["data"]

    async def lists_of(key_id: str) -> set[int]:
        async with api.services.engine.connect() as connection:
            query = select(api_key_lists.c.list_id).where(api_key_lists.c.api_key_id == key_id)
            return {int(row[0]) for row in await connection.execute(query)}

    assert api.call(lists_of, created["api_key_id"]) == {granted}
    wide = api.key(org)
    child = api.client.post(KEYS, json={"name": "wide child"}, headers=bearer(wide)).json()["data"]
    assert api.call(lists_of, child["api_key_id"]) == set()
