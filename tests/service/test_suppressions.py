"""The suppression ledger: sections 2 (Suppression), 3 (Suppression table), 4 (Suppressions).

Every test runs on SQLite and on PostgreSQL. Contacts are inserted directly into the
`contacts` table (with personal data, so the tests can check it never leaks into the ledger).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest
from outreach_server.core.tables import contacts, lists
from outreach_server.ledger.store import ContactNotFound, SuppressionLedger
from outreach_server.ledger.tables import suppressions
from service_support import Api, bearer, one_json, outreach_cli
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

BASE = "/api/v1/contacts"
LIST = f"{BASE}/suppressions"
BULK = f"{BASE}/suppressions/bulk-add"
REINSTATE = f"{BASE}/suppressions/reinstate"
NOT_FOUND = {"detail": "Contact not found"}
RECORD_FIELDS = {
    "id", "contact_id", "channel", "category", "operator_reversible", "created_at", "created_by",
}  # fmt: skip


# -- helpers ------------------------------------------------------------------------------------


def add_contacts(api: Api, org_id: int, count: int) -> list[int]:
    """`count` contacts (with personal data) in a new list of the organisation."""

    async def run() -> list[int]:
        now = int(time.time())
        async with api.services.engine.begin() as connection:
            list_id = (
                await connection.execute(
                    insert(lists)
                    .values(org_id=org_id, name="people", type="contacts", created_at=now)
                    .returning(lists.c.id)
                )
            ).scalar_one()
            rows = [
                {
                    "org_id": org_id,
                    "list_id": list_id,
                    "email": f"person{i}.org{org_id}@example.com",
                    "first_name": f"First{i}",
                    "last_name": f"Last{i}",
                    "company_name": "Private Co",
                    "fields": {"phone": f"+3161234{i:04d}"},
                    "created_at": now,
                }
                for i in range(count)
            ]
            await connection.execute(insert(contacts), rows)
            query = select(contacts.c.id).where(contacts.c.list_id == list_id)
            return sorted((await connection.execute(query.order_by(contacts.c.id))).scalars())

    return list(api.call(run))


def ledger_rows(api: Api, org_id: int | None = None) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        query = select(suppressions).order_by(suppressions.c.id)
        if org_id is not None:
            query = query.where(suppressions.c.org_id == org_id)
        async with api.services.engine.connect() as connection:
            return [dict(row._mapping) for row in await connection.execute(query)]

    return list(api.call(run))


def active(api: Api, org_id: int) -> set[tuple[int, str, str]]:
    return {
        (r["contact_id"], r["channel"], r["category"])
        for r in ledger_rows(api, org_id)
        if r["active"]
    }


def ledger(api: Api) -> SuppressionLedger:
    return SuppressionLedger(api.services.engine, api.services.reader)


def record(api: Api, org_id: int, contact_id: int, category: str, channel: str = "all") -> Any:
    return api.call(
        ledger(api).record, org_id, contact_id, channel=channel, category=category, actor="test"
    )


class World:
    """Two organisations: ours (a write key, five contacts) and another (one contact)."""

    def __init__(self, api: Api, contact_count: int = 5) -> None:
        self.api = api
        self.org = api.org("ours")
        self.headers = bearer(api.key(self.org, tier="write"))
        self.contacts = add_contacts(api, self.org, contact_count)
        self.other_org = api.org("theirs")
        self.other_headers = bearer(api.key(self.other_org, tier="write"))
        (self.foreign,) = add_contacts(api, self.other_org, 1)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.api.client.post(path, json=body, headers=self.headers, **kwargs)

    def get(self, path: str, **params: Any) -> Any:
        return self.api.client.get(path, params=params, headers=self.headers)

    def status(self, contact_id: int) -> dict[str, Any]:
        response = self.get(f"{BASE}/{contact_id}/suppression")
        assert response.status_code == 200, response.text
        return dict(response.json()["data"])


@pytest.fixture
def world(api: Api) -> World:
    return World(api)


# -- section 3: the suppression table, row by row -----------------------------------------------


def test_suppress_records_an_active_all_channel_org_initiated_row_idempotently(
    world: World,
) -> None:
    a = world.contacts[0]
    assert world.status(a) == {
        "contact_id": a, "channels": [], "categories": [], "operator_reversible": False,
    }  # fmt: skip
    first = world.post(f"{BASE}/{a}/suppress")  # no body: the default empty object
    assert first.status_code == 200, first.text
    assert first.json() == {"data": {"contact_id": a, "suppressed": True, "created": True}}
    again = world.post(f"{BASE}/{a}/suppress", {"note": "unknown fields are accepted"})
    assert again.json() == {"data": {"contact_id": a, "suppressed": True, "created": False}}
    assert active(world.api, world.org) == {(a, "all", "org_initiated")}
    (row,) = ledger_rows(world.api, world.org)
    assert row["created_by"].startswith("key_") and row["cleared_at"] is None
    assert world.status(a) == {
        "contact_id": a, "channels": ["all"], "categories": ["org_initiated"],
        "operator_reversible": True,
    }  # fmt: skip
    for channel in ("email", "phone", "linkedin", "all"):  # every send path honours it
        assert world.api.call(ledger(world.api).reachable, world.org, [a], channel) == set()


def test_unsuppress_clears_the_org_initiated_row_and_keeps_history(world: World) -> None:
    a = world.contacts[0]
    world.post(f"{BASE}/{a}/suppress", {})
    cleared = world.post(f"{BASE}/{a}/unsuppress", {})
    assert cleared.status_code == 200, cleared.text
    assert cleared.json()["data"] == {
        "contact_id": a, "suppressed": False, "cleared": True, "channels": [],
    }  # fmt: skip
    assert world.status(a)["channels"] == []
    again = world.post(f"{BASE}/{a}/unsuppress")
    assert again.json()["data"] == {
        "contact_id": a, "suppressed": False, "cleared": False, "channels": [],
    }  # fmt: skip
    assert world.post(f"{BASE}/{a}/suppress").json()["data"]["created"] is True
    rows = ledger_rows(world.api, world.org)
    assert [r["active"] for r in rows] == [False, True]  # the cleared row stays as history
    assert rows[0]["cleared_at"] is not None and rows[0]["cleared_by"].startswith("key_")


def test_unsuppress_never_clears_contact_initiated_or_system_rows(world: World) -> None:
    a, b = world.contacts[:2]
    record(world.api, world.org, a, "contact_initiated")
    record(world.api, world.org, a, "system", channel="email")
    world.post(f"{BASE}/{a}/suppress")
    record(world.api, world.org, b, "system", channel="phone")
    response = world.post(f"{BASE}/{a}/unsuppress")
    assert response.json()["data"] == {
        "contact_id": a, "suppressed": True, "cleared": True, "channels": ["all", "email"],
    }  # fmt: skip
    nothing = world.post(f"{BASE}/{b}/unsuppress").json()["data"]
    assert nothing == {"contact_id": b, "suppressed": True, "cleared": False, "channels": ["phone"]}
    assert active(world.api, world.org) == {
        (a, "all", "contact_initiated"), (a, "email", "system"), (b, "phone", "system"),
    }  # fmt: skip
    assert world.status(a) == {
        "contact_id": a, "channels": ["all", "email"],
        "categories": ["contact_initiated", "system"], "operator_reversible": False,
    }  # fmt: skip


def test_reinstate_reinstates_reversible_contacts_and_skips_the_others_with_reasons(
    world: World,
) -> None:
    org_only, optout, bounce, mixed, clean = world.contacts
    for contact in (org_only, mixed):
        world.post(f"{BASE}/{contact}/suppress")
    record(world.api, world.org, optout, "contact_initiated")
    record(world.api, world.org, bounce, "system", channel="email")
    record(world.api, world.org, mixed, "contact_initiated", channel="phone")
    before = active(world.api, world.org)
    listed = {r["contact_id"]: r["operator_reversible"] for r in world.get(LIST).json()["data"]}
    assert listed == {org_only: True, optout: False, bounce: False, mixed: False}

    response = world.post(REINSTATE, {"contact_ids": [clean, mixed, bounce, optout, org_only]})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["reinstated"] == [org_only]
    assert data["skipped"] == [optout, bounce, mixed, clean]
    assert data["skipped_reasons"] == [
        {"contact_id": optout, "reason": "not_operator_reversible",
         "active_categories": ["contact_initiated"]},
        {"contact_id": bounce, "reason": "not_operator_reversible",
         "active_categories": ["system"]},
        {"contact_id": mixed, "reason": "not_operator_reversible",
         "active_categories": ["contact_initiated", "org_initiated"]},
        {"contact_id": clean, "reason": "not_suppressed", "active_categories": []},
    ]  # fmt: skip
    assert active(world.api, world.org) == before - {(org_only, "all", "org_initiated")}
    assert world.status(org_only)["channels"] == []
    again = world.post(REINSTATE, {"contact_ids": [org_only]}).json()["data"]
    assert again["reinstated"] == [] and again["skipped_reasons"][0]["reason"] == "not_suppressed"


def test_bulk_add_is_idempotent_and_counts_added_and_already_active(world: World) -> None:
    a, b, c, d, _ = world.contacts
    record(world.api, world.org, d, "contact_initiated")  # another category: a separate row
    first = world.post(BULK, {"contact_ids": [b, a]})
    assert first.status_code == 200, first.text
    assert first.json()["data"] == {
        "suppressed": [a, b], "already_suppressed": [],
        "suppressed_count": 2, "already_suppressed_count": 0,
    }  # fmt: skip
    created = {r["contact_id"]: r["created_at"] for r in ledger_rows(world.api, world.org)}
    second = world.post(BULK, {"contact_ids": [a, b, c, c, d]}).json()["data"]
    assert second == {
        "suppressed": [c, d], "already_suppressed": [a, b],
        "suppressed_count": 2, "already_suppressed_count": 2,
    }  # fmt: skip
    rows = ledger_rows(world.api, world.org)
    assert len(rows) == 5 and all(r["active"] for r in rows)
    assert {r["contact_id"]: r["created_at"] for r in rows if r["contact_id"] in (a, b)} == {
        a: created[a],
        b: created[b],
    }  # already-active rows untouched
    for contact in (a, b, c):
        assert world.status(contact)["channels"] == ["all"]  # the same ledger the send paths read


def test_bulk_add_and_reinstate_are_all_or_nothing(world: World) -> None:
    a, b = world.contacts[:2]
    world.post(f"{BASE}/{b}/suppress")
    before = ledger_rows(world.api)
    for path in (BULK, REINSTATE):
        response = world.post(path, {"contact_ids": [a, world.foreign, 999_999, b]})
        assert response.status_code == 404
        assert response.json() == {"detail": f"Contact not found: {world.foreign}, 999999"}
        huge = world.post(path, {"contact_ids": [a, 2**40, -3, 999_999]})
        assert huge.json() == {"detail": f"Contact not found: -3, 999999, {2**40}"}
    assert ledger_rows(world.api) == before  # nothing written, in either organisation
    many = world.post(BULK, {"contact_ids": [a, *range(10**6, 10**6 + 150)]})
    assert many.status_code == 404
    detail = many.json()["detail"]
    assert detail.startswith("Contact not found: 1000000, 1000001,")
    assert detail.endswith(", 1000099 and 50 more")


# -- not found, tenant isolation ----------------------------------------------------------------


def test_unknown_and_foreign_contacts_are_not_found_everywhere(world: World) -> None:
    world.api.client.post(f"{BASE}/{world.foreign}/suppress", headers=world.other_headers)
    foreign_rows = ledger_rows(world.api, world.other_org)
    for contact in (world.foreign, 999_999, 10**15, 0, -1):
        for method, path in (
            ("GET", f"{BASE}/{contact}/suppression"),
            ("POST", f"{BASE}/{contact}/suppress"),
            ("POST", f"{BASE}/{contact}/unsuppress"),
        ):
            response = world.api.client.request(method, path, headers=world.headers)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json() == NOT_FOUND
    assert ledger_rows(world.api, world.other_org) == foreign_rows
    assert ledger_rows(world.api, world.org) == []
    assert world.get(LIST).json() == {"data": []}  # the other organisation's rows are not listed


def test_an_agency_key_acts_in_the_target_organisation_only(api: Api) -> None:
    agency, client_org = api.org("agency"), api.org("client")
    api.call(api.services.orgs.link, agency, client_org)
    (contact,) = add_contacts(api, client_org, 1)
    headers = bearer(api.key(agency, tier="write", agency=True))
    path = f"{BASE}/{contact}/suppress"
    assert api.client.post(path, headers=headers).json() == NOT_FOUND  # not the agency's own
    targeted = api.client.post(path, headers={**headers, "X-Target-Org-Id": str(client_org)})
    assert targeted.status_code == 200, targeted.text
    assert [r["org_id"] for r in ledger_rows(api)] == [client_org]


def test_the_database_keeps_one_active_row_per_key(api: Api) -> None:
    org = api.org()
    (contact,) = add_contacts(api, org, 1)
    row = {"org_id": org, "contact_id": contact, "channel": "email", "category": "system",
           "created_at": 0, "created_by": "test"}  # fmt: skip

    async def write(*rows: dict[str, Any]) -> None:
        async with api.services.engine.begin() as connection:
            await connection.execute(insert(suppressions), list(rows))

    api.call(write, {**row, "active": False}, {**row, "active": False}, {**row, "active": True})
    with pytest.raises(IntegrityError):
        api.call(write, {**row, "active": True})
    assert len(ledger_rows(api, org)) == 3


# -- the listing ----------------------------------------------------------------------------------


def test_listing_filters_pages_and_carries_no_personal_data(world: World) -> None:
    a, b, c, d, e = world.contacts
    world.post(BULK, {"contact_ids": [a, b]})
    record(world.api, world.org, c, "system", channel="email")
    record(world.api, world.org, d, "contact_initiated", channel="phone")
    record(world.api, world.org, e, "contact_initiated", channel="email")
    world.post(f"{BASE}/{b}/unsuppress")  # cleared: no longer listed
    world.api.client.post(f"{BASE}/{world.foreign}/suppress", headers=world.other_headers)

    rows = world.get(LIST).json()["data"]
    assert [(r["contact_id"], r["channel"], r["category"]) for r in rows] == [
        (a, "all", "org_initiated"), (c, "email", "system"),
        (d, "phone", "contact_initiated"), (e, "email", "contact_initiated"),
    ]  # fmt: skip
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    for row in rows:
        assert set(row) == RECORD_FIELDS
    text = json.dumps(rows)
    for personal in ("@example.com", "First", "Last", "Private Co", "+3161234"):
        assert personal not in text

    def contact_ids(**params: Any) -> list[int]:
        response = world.get(LIST, **params)
        assert response.status_code == 200, response.text
        return [r["contact_id"] for r in response.json()["data"]]

    assert contact_ids(channel="email") == [c, e]
    assert contact_ids(category="contact_initiated") == [d, e]
    assert contact_ids(channel="email", category="system") == [c]
    assert contact_ids(channel="linkedin") == []
    assert contact_ids(limit=2) == [a, c]
    assert contact_ids(limit=2, offset=2) == [d, e]
    assert contact_ids(limit=500, offset=3) == [e]
    assert contact_ids(offset=10) == []
    for params in (
        {"limit": 0}, {"limit": 501}, {"offset": -1}, {"limit": "x"},
        {"channel": "sms"}, {"category": "bounce"},
    ):  # fmt: skip
        response = world.get(LIST, **params)
        assert response.status_code == 422, params
        assert isinstance(response.json()["detail"], list)


# -- bad input, tiers and scopes ------------------------------------------------------------------


def test_bad_input_gets_422(world: World) -> None:
    a = world.contacts[0]
    for path in (BULK, REINSTATE):
        for body in ({}, {"contact_ids": []}, {"contact_ids": ["x"]}, {"contact_ids": "1"},
                     {"contact_ids": [1.5]}, [1, 2], None):  # fmt: skip
            response = world.post(path, body)
            assert response.status_code == 422, (path, body, response.text)
    for path in (f"{BASE}/abc/suppress", f"{BASE}/abc/unsuppress", f"{BASE}/1.5/suppression"):
        response = world.api.client.request(
            "GET" if path.endswith("suppression") else "POST", path, headers=world.headers
        )
        assert response.status_code == 422, path
    assert world.post(f"{BASE}/{a}/suppress", [1]).status_code == 422
    assert ledger_rows(world.api) == []


def test_tier_and_scope_are_enforced(world: World) -> None:
    a = world.contacts[0]
    client = world.api.client
    reader = bearer(world.api.key(world.org, tier="read", scopes=("contacts:read",)))
    assert client.get(f"{BASE}/{a}/suppression", headers=reader).status_code == 200
    assert client.get(LIST, headers=reader).status_code == 200
    for path, body in (
        (f"{BASE}/{a}/suppress", None),
        (f"{BASE}/{a}/unsuppress", None),
        (BULK, {"contact_ids": [a]}),
        (REINSTATE, {"contact_ids": [a]}),
    ):
        response = client.post(path, json=body, headers=reader)
        assert response.status_code == 403, path
    unscoped = bearer(world.api.key(world.org, tier="write", scopes=("contacts:read",)))
    refused = client.post(f"{BASE}/{a}/suppress", headers=unscoped)
    assert refused.json() == {"detail": "API key lacks scope 'contacts:write'"}
    writer = bearer(world.api.key(world.org, tier="write", scopes=("contacts:write",)))
    assert client.get(LIST, headers=writer).status_code == 403
    assert client.post(f"{BASE}/{a}/suppress", headers=writer).status_code == 200
    assert ledger_rows(world.api, world.org)[0]["contact_id"] == a


# -- the send-path check --------------------------------------------------------------------------


def test_send_path_check_by_channel(world: World) -> None:
    api, org = world.api, world.org
    bounced, opted_out_phone, suppressed, cleared, clean = world.contacts
    record(api, org, bounced, "system", channel="email")
    record(api, org, opted_out_phone, "contact_initiated", channel="phone")
    api.call(ledger(api).suppress, org, suppressed, actor="test")
    api.call(ledger(api).suppress, org, cleared, actor="test")
    api.call(ledger(api).unsuppress, org, cleared, actor="test")
    everyone = [*world.contacts, world.foreign, 999_999, 2**40, -1]

    def reachable(channel: str) -> set[int]:
        return set(api.call(ledger(api).reachable, org, everyone, channel))

    assert reachable("email") == {opted_out_phone, cleared, clean}
    assert reachable("phone") == {bounced, cleared, clean}
    assert reachable("linkedin") == {bounced, opted_out_phone, cleared, clean}
    assert reachable("all") == {cleared, clean}  # any active row blocks "every channel"
    assert api.call(ledger(api).reachable, org, [], "email") == set()
    # the other organisation sees its own contact, never ours
    assert api.call(ledger(api).reachable, world.other_org, everyone, "email") == {world.foreign}
    with pytest.raises(ValueError):
        api.call(ledger(api).reachable, org, [clean], "sms")


def test_send_path_check_answers_ten_thousand_contacts_at_once(api: Api) -> None:
    org = api.org()
    ids = add_contacts(api, org, 10_000)
    blocked = set(random.Random(7).sample(ids, 3_000))
    store = ledger(api)
    added = api.call(store.bulk_add, org, sorted(blocked), actor="test")
    assert len(added.added) == 3_000
    email_only = ids[:500]
    api.call(store.bulk_add, org, email_only, actor="test", channel="email", category="system")
    started = time.perf_counter()
    reachable = api.call(store.reachable, org, ids, "phone")
    elapsed = time.perf_counter() - started
    assert reachable == set(ids) - blocked
    assert api.call(store.reachable, org, ids, "email") == set(ids) - blocked - set(email_only)
    assert elapsed < 5  # generous: the benchmark measures it (bench/send_path_check.py)


# -- concurrency ------------------------------------------------------------------------------------


def test_concurrent_bulk_add_and_unsuppress_keep_the_ledger_consistent(api: Api) -> None:
    org = api.org()
    ids = add_contacts(api, org, 30)
    store = ledger(api)
    rng = random.Random(2024)
    # per contact: (start, end, suppressed afterwards) of every operation touching it
    history: dict[int, list[tuple[float, float, bool]]] = {i: [] for i in ids}
    errors: list[BaseException] = []

    async def bulk_add(chosen: list[int]) -> None:
        started = time.perf_counter()
        result = await store.bulk_add(org, chosen, actor="task")
        ended = time.perf_counter()
        assert sorted(result.added + result.already_active) == sorted(set(chosen))
        for contact in chosen:
            history[contact].append((started, ended, True))

    async def unsuppress(chosen: list[int]) -> None:
        for contact in chosen:
            started = time.perf_counter()
            await store.unsuppress(org, contact, actor="task")
            history[contact].append((started, time.perf_counter(), False))

    async def scenario() -> None:
        tasks = []
        for n in range(40):
            chosen = rng.sample(ids, rng.randint(1, 12))
            tasks.append(bulk_add(chosen) if n % 2 == 0 else unsuppress(chosen))
        results = await asyncio.gather(*tasks, return_exceptions=True)
        errors.extend(r for r in results if isinstance(r, BaseException))

    api.call(scenario)
    assert errors == []

    async def duplicates() -> list[Any]:
        key = (suppressions.c.org_id, suppressions.c.contact_id, suppressions.c.channel,
               suppressions.c.category)  # fmt: skip
        query = (
            select(*key, func.count())
            .where(suppressions.c.active)
            .group_by(*key)
            .having(func.count() > 1)
        )
        async with api.services.engine.connect() as connection:
            return list(await connection.execute(query))

    assert (
        api.call(duplicates) == []
    )  # at most one active row per (org, contact, channel, category)
    suppressed_now = {c for c, _, _ in active(api, org)}
    determinable = 0
    for contact, operations in history.items():
        if not operations:
            continue
        last = max(operations, key=lambda op: op[0])
        if all(op[1] < last[0] for op in operations if op is not last):  # no overlap
            determinable += 1
            assert (contact in suppressed_now) == last[2], contact
    assert determinable > 0
    # and sequential operations afterwards land exactly
    final: dict[int, bool] = {}
    for contact in ids:
        final[contact] = rng.random() < 0.5
        if final[contact]:
            api.call(store.bulk_add, org, [contact], actor="final")
        else:
            api.call(store.unsuppress, org, contact, actor="final")
    assert active(api, org) == {(c, "all", "org_initiated") for c, on in final.items() if on}


def test_a_unique_violation_is_already_active_never_an_error(api: Api) -> None:
    org = api.org()
    (contact,) = add_contacts(api, org, 1)
    store = ledger(api)

    async def race() -> list[Any]:
        return list(
            await asyncio.gather(*(store.suppress(org, contact, actor="t") for _ in range(20)))
        )

    results = api.call(race)
    assert sum(r.created for r in results) == 1
    assert len({r.suppression_id for r in results}) == 1
    with pytest.raises(ContactNotFound):
        api.call(store.suppress, org, contact + 1, actor="t")


# -- operator commands ----------------------------------------------------------------------------


def run_cli(*args: str, database_url: str, ok: bool = True) -> Any:
    done = outreach_cli(*args, database_url=database_url)
    return one_json(done) if ok else done


def test_record_optout_and_record_bounce_commands(world: World) -> None:
    url = world.api.services.settings.database_url
    a, b = world.contacts[:2]
    org = str(world.org)
    optout = run_cli("admin", "record-optout", "--org-id", org, "--contact-id", str(a),
                     database_url=url)  # fmt: skip
    assert optout == {
        "suppression_id": optout["suppression_id"], "org_id": world.org, "contact_id": a,
        "channel": "all", "category": "contact_initiated", "created": True,
    }  # fmt: skip
    again = run_cli("admin", "record-optout", "--org-id", org, "--contact-id", str(a),
                    database_url=url)  # fmt: skip
    assert again == {**optout, "created": False}
    bounce = run_cli("admin", "record-bounce", "--org-id", org, "--contact-id", str(b),
                     database_url=url)  # fmt: skip
    assert (bounce["channel"], bounce["category"], bounce["created"]) == ("email", "system", True)
    phone = run_cli("admin", "record-bounce", "--org-id", org, "--contact-id", str(b),
                    "--channel", "phone", database_url=url)  # fmt: skip
    assert phone["channel"] == "phone" and phone["suppression_id"] != bounce["suppression_id"]
    assert world.status(a)["categories"] == ["contact_initiated"]
    assert world.status(b)["channels"] == ["email", "phone"]
    rows = ledger_rows(world.api, world.org)
    assert {r["created_by"] for r in rows} == {"operator"}
    for contact in (world.foreign, 999_999):
        refused = run_cli("admin", "record-optout", "--org-id", org, "--contact-id",
                          str(contact), database_url=url, ok=False)  # fmt: skip
        assert refused.returncode != 0 and refused.stdout == ""
        assert "Contact not found" in refused.stderr and "Traceback" not in refused.stderr
    bad = run_cli("admin", "record-bounce", "--org-id", org, "--contact-id", str(a),
                  "--channel", "sms", database_url=url, ok=False)  # fmt: skip
    assert bad.returncode != 0 and bad.stdout == ""
    assert len(ledger_rows(world.api, world.org)) == 3
