"""Billable operations: credits, contact email verification (sync and async), unlock-info,
single-address verification, the deliverability check and the resolver behind it.

Every HTTP test runs on SQLite and on PostgreSQL; DNS answers come from the fixed resolver
(this machine has no DNS), set through the OUTREACH_DNS_FIXED setting.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_api
from outreach_server.billing.balances import balance, grant
from outreach_server.billing.deliverability import (
    INVALID_SYNTAX,
    NO_MX,
    UNKNOWN,
    VALID,
    check_syntax,
    verify_addresses,
)
from outreach_server.billing.tables import credit_charges, verification_job_items, verification_jobs
from outreach_server.billing.unlocks import unlock
from outreach_server.contacts.selection import Selection
from outreach_server.core.resolver import (
    DnsResolver,
    FixedResolver,
    LookupUnavailable,
    create_resolver,
    parse_fixed,
)
from outreach_server.core.tables import contacts, lists
from service_support import Api, bearer, one_json, outreach_cli
from sqlalchemy import func, insert, select

FIXED_DNS = "example.com=mx1.example.com,mx2.example.com;nomx.test=;valid.org=mx.valid.org"
VERIFY = "/api/v1/contacts/verify-email"
VERIFY_ASYNC = "/api/v1/contacts/verify-email/async"
UNLOCK = "/api/v1/contacts/unlock-info"
CHECK = "/api/v1/enrichment/verify-email"


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    """The shared service fixture with the fixed resolver these tests need."""
    yield from make_api(
        database_url,
        key_cache_seconds=0.0,
        dns_fixed=FIXED_DNS,
        rate_limit_per_second=100_000,
        rate_limit_per_minute=100_000,
    )


def run(api: Api, statement: Any) -> Any:
    async def go() -> Any:
        async with api.services.engine.begin() as connection:
            return await connection.execute(statement)

    return api.call(go)


def add_list(api: Api, org: int, name: str = "list") -> int:
    statement = (
        insert(lists)
        .values(org_id=org, name=name, type="contacts", created_at=int(time.time()))
        .returning(lists.c.id)
    )
    return int(run(api, statement).scalar_one())


def add_contacts(
    api: Api, org: int, list_id: int, emails: list[str | None], **extra: Any
) -> list[int]:
    ids = []
    for email in emails:
        statement = (
            insert(contacts)
            .values(
                org_id=org,
                list_id=list_id,
                email=email,
                fields={},
                created_at=int(time.time()),
                phone="+1 555 0100",
                linkedin_url="https://www.linkedin.com/in/someone",
                **extra,
            )
            .returning(contacts.c.id)
        )
        ids.append(int(run(api, statement).scalar_one()))
    return ids


def add_many_contacts(api: Api, org: int, list_id: int, count: int) -> None:
    rows = [
        {
            "org_id": org,
            "list_id": list_id,
            "email": f"person{i}@example.com",
            "fields": {},
            "created_at": 0,
        }
        for i in range(count)
    ]
    run(api, insert(contacts).values(rows))


def give_credits(api: Api, org: int, amount: int) -> None:
    async def go() -> None:
        async with api.services.engine.begin() as connection:
            await grant(connection, org, amount)

    api.call(go)


def credits_of(api: Api, org: int) -> int:
    return int(api.call(balance, api.services.reader, org))


def rows_of(api: Api, ids: list[int]) -> dict[int, dict[str, Any]]:
    result = run(api, select(contacts).where(contacts.c.id.in_(ids)))
    return {row.id: dict(row._mapping) for row in result}


def charges_of(api: Api, org: int) -> list[dict[str, Any]]:
    query = (
        select(credit_charges)
        .where(credit_charges.c.org_id == org, credit_charges.c.credits < 0)
        .order_by(credit_charges.c.id)
    )
    return [dict(row._mapping) for row in run(api, query)]


def count(api: Api, table: Any) -> int:
    return int(run(api, select(func.count()).select_from(table)).scalar_one())


def setup_org(api: Api, credits: int, name: str = "org") -> tuple[int, str, int]:
    """An organisation with credits, a billable key and a list: (org, token, list_id)."""
    org = api.org(name)
    if credits:
        give_credits(api, org, credits)
    return org, api.key(org), add_list(api, org)


def post(api: Api, path: str, token: str, body: Any, **params: Any) -> Any:
    return api.client.post(path, json=body, params=params or None, headers=bearer(token))


def wait_until(condition: Any, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the background work"
        time.sleep(0.05)


# -- the resolver and the deliverability check (no HTTP) -------------------------------------


def test_fixed_resolver_answers_hosts_no_mx_and_no_lookup_possible(tmp_path: Path) -> None:
    assert parse_fixed(FIXED_DNS) == {
        "example.com": ["mx1.example.com", "mx2.example.com"],
        "nomx.test": [],
        "valid.org": ["mx.valid.org"],
    }
    table = tmp_path / "dns.txt"
    table.write_text("# offline table\nExample.COM = mx.example.com.\nempty.test=\n")
    from_file = parse_fixed(f"@{table}")
    assert from_file == {"example.com": ["mx.example.com"], "empty.test": []}
    with pytest.raises(ValueError, match="domain=host"):
        parse_fixed("no-equals-sign")

    resolver = FixedResolver(parse_fixed(FIXED_DNS))
    assert asyncio.run(resolver.mx("EXAMPLE.com.")) == ["mx1.example.com", "mx2.example.com"]
    assert asyncio.run(resolver.mx("nomx.test")) == []
    with pytest.raises(LookupUnavailable):
        asyncio.run(resolver.mx("elsewhere.net"))
    offline = create_resolver("", 2.0)  # set but empty: an offline deployment
    with pytest.raises(LookupUnavailable):
        asyncio.run(offline.mx("example.com"))
    assert isinstance(create_resolver(None, 2.0), DnsResolver)


def test_dns_resolver_reports_no_lookup_possible_when_no_server_answers() -> None:
    resolver = DnsResolver(timeout=0.3, nameservers=["127.0.0.1"], port=9)  # nothing listens
    started = time.monotonic()
    with pytest.raises(LookupUnavailable) as raised:
        asyncio.run(resolver.mx("example.com"))
    assert time.monotonic() - started < 5
    assert raised.value.reason


@pytest.mark.parametrize(
    ("address", "ok"),
    [
        ("ada@example.com", True),
        ("first.last+tag@sub.example.co.uk", True),
        ("josé@example.com", False),  # non-ASCII local parts are refused (provisional)
        ("user@bücher.de", True),  # IDNA domains are checked in their ASCII form
        ("no-at-sign", False),
        ("two@@example.com", False),
        (".dot@example.com", False),
        ("a..b@example.com", False),
        ("user@localhost", False),
        ("user@-bad-.com", False),
        ("user@example.123", False),
        ("user@[127.0.0.1]", False),
        ("a" * 65 + "@example.com", False),
        ("", False),
    ],
)
def test_syntax(address: str, ok: bool) -> None:
    domain, problem = check_syntax(address)
    assert (domain is not None) is ok, problem
    assert (problem is None) is ok


def test_one_lookup_per_domain_and_verdicts() -> None:
    asked: list[str] = []

    class Counting(FixedResolver):
        async def mx(self, domain: str) -> list[str]:
            asked.append(domain)
            return await super().mx(domain)

    resolver = Counting(parse_fixed(FIXED_DNS))
    verdicts = asyncio.run(
        verify_addresses(
            ["a@example.com", "B@EXAMPLE.COM", "a@example.com", "c@nomx.test", "x@", "d@far.net"],
            resolver,
        )
    )
    assert sorted(asked) == ["example.com", "far.net", "nomx.test"]
    assert {key: v.status for key, v in verdicts.items()} == {
        "a@example.com": VALID,
        "b@example.com": VALID,
        "c@nomx.test": NO_MX,
        "x@": INVALID_SYNTAX,
        "d@far.net": UNKNOWN,
    }
    assert verdicts["a@example.com"].mx_hosts == ("mx1.example.com", "mx2.example.com")
    assert "no DNS lookup possible" in (verdicts["d@far.net"].reason or "")


# -- POST /contacts/verify-email -------------------------------------------------------------


def test_verify_charges_one_credit_per_distinct_address_and_writes_results_back(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    emails = ["a@example.com", "A@Example.com", "b@nomx.test", "not-an-address", "c@far.net", None]
    ids = add_contacts(api, org, list_id, emails)

    response = post(api, VERIFY, token, {"contact_ids": ids})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["verified"] == 5 and data["contacts"] == 6 and data["skipped_without_email"] == 1
    assert data["addresses"] == 4 and data["credits_charged"] == 4
    assert data["statuses"] == {VALID: 2, NO_MX: 1, INVALID_SYNTAX: 1, UNKNOWN: 1}
    unknown = next(r for r in data["results"] if r["status"] == UNKNOWN)
    assert unknown["contact_id"] == ids[4] and "no DNS lookup possible" in unknown["reason"]

    assert credits_of(api, org) == 6
    (entry,) = charges_of(api, org)
    assert entry["credits"] == -4 and entry["units"] == 4 and entry["balance_after"] == 6
    stored = rows_of(api, ids)
    assert [stored[i]["email_status"] for i in ids] == [
        VALID,
        VALID,
        NO_MX,
        INVALID_SYNTAX,
        UNKNOWN,
        None,
    ]
    assert all(abs(stored[i]["email_checked_at"] - time.time()) < 60 for i in ids[:5])
    assert stored[ids[5]]["email_checked_at"] is None


def test_insufficient_credits_refuse_the_whole_request_and_charge_nothing(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=3)
    ids = add_contacts(api, org, list_id, ["a@example.com", "b@example.com", "c@x.org", "d@y.org"])
    refusal = {"detail": "Insufficient credits: 4 required, 3 available"}

    verify = post(api, VERIFY, token, {"contact_ids": ids})
    assert (verify.status_code, verify.json()) == (402, refusal)
    queued = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert (queued.status_code, queued.json()) == (402, refusal)
    unlock_all = post(api, UNLOCK, token, {"list_id": list_id, "all_matching": True})
    assert (unlock_all.status_code, unlock_all.json()) == (402, refusal)

    assert credits_of(api, org) == 3 and charges_of(api, org) == []
    stored = rows_of(api, ids)
    assert all(r["email_status"] is None and r["unlocked_at"] is None for r in stored.values())
    assert count(api, verification_jobs) == 0 and count(api, verification_job_items) == 0

    _, broke_token, _ = setup_org(api, credits=0, name="broke")
    check = post(api, CHECK, broke_token, {"email": "a@example.com"})
    assert check.status_code == 402
    assert check.json() == {"detail": "Insufficient credits: 1 required, 0 available"}


def test_the_cap_is_the_spec_constant(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=5)
    too_many = post(api, VERIFY, token, {"contact_ids": list(range(1, 1002))})
    assert too_many.status_code == 422
    assert all({"loc", "msg", "type"} <= set(item) for item in too_many.json()["detail"])
    at_cap = post(api, VERIFY, token, {"contact_ids": list(range(10**6, 10**6 + 1000))})
    assert at_cap.status_code == 404  # accepted by the schema; those contacts do not exist
    assert at_cap.json()["detail"].startswith("Contact not found: 1000000, 1000001")

    add_many_contacts(api, org, list_id, 1001)
    everything = post(api, VERIFY, token, {}, list_id=list_id, filterModel="{}")
    assert everything.status_code == 400
    assert "matches 1001 contacts" in everything.json()["detail"]
    assert "at most 1000" in everything.json()["detail"]
    assert credits_of(api, org) == 5 and charges_of(api, org) == []


def test_list_and_filter_select_every_matching_contact_instead_of_the_ids(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=100)
    other_list = add_list(api, org, "other")
    matching = add_contacts(api, org, list_id, ["a@example.com", "b@example.com"])
    not_matching = add_contacts(api, org, list_id, ["c@nomx.test"])
    elsewhere = add_contacts(api, org, other_list, ["d@example.com"])
    model = json.dumps(
        {"email": {"filterType": "text", "type": "endsWith", "filter": "@example.com"}}
    )

    response = post(
        api,
        VERIFY,
        token,
        {"contact_ids": not_matching + elsewhere},
        list_id=list_id,
        filterModel=model,
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["verified"] == 2
    stored = rows_of(api, matching + not_matching + elsewhere)
    assert [stored[i]["email_status"] for i in matching] == [VALID, VALID]
    assert stored[not_matching[0]]["email_status"] is None
    assert stored[elsewhere[0]]["email_status"] is None
    assert credits_of(api, org) == 98

    # without a filter, list_id narrows the ids: a contact of another list is not found
    narrowed = post(api, VERIFY, token, {"contact_ids": elsewhere}, list_id=list_id)
    assert narrowed.status_code == 404
    assert narrowed.json() == {"detail": f"Contact not found: {elsewhere[0]}"}
    no_list = post(api, VERIFY, token, {"contact_ids": matching}, filterModel=model)
    assert no_list.status_code == 400
    assert no_list.json() == {"detail": "list_id is required with filterModel"}
    nothing = post(api, VERIFY, token, {})
    assert nothing.status_code == 400


@pytest.mark.parametrize(
    "model",
    [
        "{not json",
        "[]",
        json.dumps({"no_such_column": {"filterType": "text", "type": "equals", "filter": "x"}}),
        json.dumps({"email": {"filterType": "text", "type": "resembles", "filter": "x"}}),
        json.dumps({"id": {"filterType": "number", "type": "equals", "filter": "seven"}}),
    ],
)
def test_malformed_filter_models_are_422_and_charge_nothing(api: Api, model: str) -> None:
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["a@example.com"])
    for response in (
        post(api, VERIFY, token, {"contact_ids": ids}, list_id=list_id, filterModel=model),
        post(api, UNLOCK, token, {"list_id": list_id, "all_matching": True}, filterModel=model),
    ):
        assert response.status_code == 422, response.text
        (item,) = response.json()["detail"]
        assert item["loc"][:2] == ["query", "filterModel"]
    if model.startswith("{") and model != "{not json":
        body = {"list_id": list_id, "all_matching": True, "filter_model": json.loads(model)}
        queued = post(api, VERIFY_ASYNC, token, body)
        assert queued.status_code == 422
        assert queued.json()["detail"][0]["loc"][:2] == ["body", "filter_model"]
    assert credits_of(api, org) == 10 and charges_of(api, org) == []
    assert rows_of(api, ids)[ids[0]]["unlocked_at"] is None


def test_other_organisations_lists_and_contacts_are_not_found(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    mine = add_contacts(api, org, list_id, ["a@example.com"])
    other, other_token, other_list = setup_org(api, credits=10, name="other")
    theirs = add_contacts(api, other, other_list, ["b@example.com"])

    cases = [
        (VERIFY, {"contact_ids": theirs}, {}, f"Contact not found: {theirs[0]}"),
        (VERIFY, {"contact_ids": mine + theirs}, {}, f"Contact not found: {theirs[0]}"),
        (VERIFY, {}, {"list_id": other_list, "filterModel": "{}"}, "List not found"),
        (VERIFY, {"contact_ids": mine}, {"list_id": 2**40}, "List not found"),
        (VERIFY_ASYNC, {"list_id": other_list, "all_matching": True}, {}, "List not found"),
        (VERIFY_ASYNC, {"list_id": list_id, "contact_ids": theirs}, {}, None),
        (UNLOCK, {"list_id": other_list, "all_matching": True}, {}, "List not found"),
        (UNLOCK, {"list_id": list_id, "contact_ids": theirs}, {}, None),
        (UNLOCK, {"list_id": list_id, "contact_ids": [2**40]}, {}, None),
    ]
    for path, body, params, message in cases:
        response = post(api, path, token, body, **params)
        assert response.status_code == 404, (path, body, response.text)
        if message:
            assert response.json() == {"detail": message}
    assert credits_of(api, org) == 10 and credits_of(api, other) == 10
    assert rows_of(api, theirs)[theirs[0]]["unlocked_at"] is None
    assert rows_of(api, theirs)[theirs[0]]["email_status"] is None
    # the other organisation's own key does reach them
    assert post(api, VERIFY, other_token, {"contact_ids": theirs}).status_code == 200


# -- POST /contacts/verify-email/async -------------------------------------------------------


def test_async_verification_accepts_then_results_land_on_the_contacts(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(
        api, org, list_id, ["a@example.com", "a@example.com", "b@nomx.test", "c@far.net", None]
    )
    response = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert data["contacts_accepted"] == 5 and data["addresses_accepted"] == 3
    # nothing is charged at acceptance: charges follow the work (test_verification_jobs.py)
    assert data["credits_charged"] == 0 and isinstance(data["job_id"], int)

    wait_until(lambda: all(rows_of(api, ids)[i]["email_status"] for i in ids[:4]))
    stored = rows_of(api, ids)
    assert [stored[i]["email_status"] for i in ids] == [VALID, VALID, NO_MX, UNKNOWN, None]
    wait_until(lambda: count(api, verification_job_items) == 0)
    job = run(api, select(verification_jobs).where(verification_jobs.c.id == data["job_id"])).one()
    wait_until(lambda: run(api, select(verification_jobs.c.status)).scalar_one() == "done")
    assert job.contacts_accepted == 5 and job.addresses_accepted == 3
    assert credits_of(api, org) == 7  # charged once, as verified


def test_async_verification_of_ids_and_of_a_filtered_selection(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["a@example.com", "b@valid.org", "c@nomx.test"])
    chosen = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "contact_ids": [ids[0], ids[0]]})
    assert chosen.status_code == 202
    assert chosen.json()["data"]["contacts_accepted"] == 1

    body = {
        "list_id": list_id,
        "all_matching": True,
        "filter_model": {"email": {"filterType": "text", "type": "contains", "filter": "valid"}},
    }
    filtered = post(api, VERIFY_ASYNC, token, body)
    assert filtered.status_code == 202
    assert filtered.json()["data"]["contacts_accepted"] == 1
    wait_until(lambda: rows_of(api, ids)[ids[1]]["email_status"] == VALID)
    wait_until(lambda: rows_of(api, ids)[ids[0]]["email_status"] == VALID)
    assert rows_of(api, ids)[ids[2]]["email_status"] is None
    assert credits_of(api, org) == 8

    empty_body = {
        **body,
        "filter_model": {"email": {"filterType": "text", "type": "equals", "filter": "z"}},
    }
    empty = post(api, VERIFY_ASYNC, token, empty_body)
    assert empty.status_code == 202
    assert (
        empty.json()["data"]["contacts_accepted"] == 0 == empty.json()["data"]["addresses_accepted"]
    )

    for refused in (
        {"list_id": list_id},
        {"list_id": list_id, "contact_ids": ids, "all_matching": True},
        {"list_id": list_id, "contact_ids": ids, "filter_model": body["filter_model"]},
    ):
        assert post(api, VERIFY_ASYNC, token, refused).status_code == 400, refused
    assert post(api, VERIFY_ASYNC, token, {"all_matching": True}).status_code == 422


def test_a_worker_waiting_on_another_process_lease_still_takes_new_jobs_at_once(
    api: Api,
) -> None:
    org, token, list_id = setup_org(api, credits=10)
    leased = {
        "org_id": org,
        "list_id": list_id,
        "status": "running",
        "contacts_accepted": 0,
        "addresses_accepted": 0,
        "credits_charged": 0,
        "created_at": 0,
        "claimed_until": int(time.time()) + 3600,  # held by another process for an hour
    }
    run(api, insert(verification_jobs).values(leased))
    first, second = add_contacts(api, org, list_id, ["a@example.com", "b@valid.org"])
    body = {"list_id": list_id, "contact_ids": [first]}
    assert post(api, VERIFY_ASYNC, token, body).status_code == 202
    wait_until(lambda: rows_of(api, [first])[first]["email_status"] == VALID, seconds=5)
    time.sleep(0.2)  # the worker now waits for the other lease
    body = {"list_id": list_id, "contact_ids": [second]}
    assert post(api, VERIFY_ASYNC, token, body).status_code == 202
    wait_until(lambda: rows_of(api, [second])[second]["email_status"] == VALID, seconds=5)


def test_a_job_left_by_a_stopped_process_is_resumed(api: Api) -> None:
    """Jobs live in the database: a worker that starts later finishes them."""
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["a@example.com", "b@nomx.test"])
    worker = api.services.verification
    worker.kick = lambda: None  # type: ignore[method-assign]  # as if the process stopped
    accepted = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert accepted.status_code == 202
    time.sleep(0.2)
    assert rows_of(api, ids)[ids[0]]["email_status"] is None
    api.call(worker.run_until_idle)
    assert [rows_of(api, ids)[i]["email_status"] for i in ids] == [VALID, NO_MX]
    assert run(api, select(verification_jobs.c.status)).scalar_one() == "done"


# -- POST /contacts/unlock-info --------------------------------------------------------------


def test_unlock_charges_each_contact_once(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["a@example.com", "b@example.com", "c@example.com"])

    first = post(api, UNLOCK, token, {"list_id": list_id, "contact_ids": ids[:2]})
    assert first.status_code == 200, first.text
    assert first.json()["data"] == {
        "unlocked": 2,
        "newly_unlocked": 2,
        "already_unlocked": 0,
        "credits_charged": 2,
    }
    assert credits_of(api, org) == 8
    stored = rows_of(api, ids)
    assert stored[ids[0]]["unlocked_at"] and stored[ids[1]]["unlocked_at"]
    assert stored[ids[2]]["unlocked_at"] is None

    again = post(api, UNLOCK, token, {"list_id": list_id, "contact_ids": ids[:2]})
    assert again.json()["data"]["credits_charged"] == 0
    assert again.json()["data"]["already_unlocked"] == 2
    every = post(api, UNLOCK, token, {"list_id": list_id, "all_matching": True})
    assert every.json()["data"] == {
        "unlocked": 3,
        "newly_unlocked": 1,
        "already_unlocked": 2,
        "credits_charged": 1,
    }
    assert credits_of(api, org) == 7
    assert [(c["credits"], c["units"]) for c in charges_of(api, org)] == [(-2, 2), (-1, 1)]

    # nothing left to charge: succeeds even with an empty balance
    _, broke_token, broke_list = setup_org(api, credits=0, name="broke")
    assert (
        post(api, UNLOCK, broke_token, {"list_id": broke_list, "all_matching": True}).json()[
            "data"
        ]["credits_charged"]
        == 0
    )


def test_unlock_with_a_filter_resolved_against_the_list(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    other_list = add_list(api, org, "other")
    ids = add_contacts(api, org, list_id, ["ada@example.com", "bob@example.com"])
    elsewhere = add_contacts(api, org, other_list, ["ada@elsewhere.com"])
    model = json.dumps({"email": {"filterType": "text", "type": "startsWith", "filter": "ada"}})
    response = post(
        api, UNLOCK, token, {"list_id": list_id, "all_matching": True}, filterModel=model
    )
    assert response.json()["data"]["credits_charged"] == 1
    stored = rows_of(api, ids + elsewhere)
    assert stored[ids[0]]["unlocked_at"] is not None
    assert stored[ids[1]]["unlocked_at"] is None and stored[elsewhere[0]]["unlocked_at"] is None

    for refused, message in (
        ({"list_id": list_id}, "contact_ids or all_matching is required"),
        ({"list_id": list_id, "contact_ids": ids, "all_matching": True}, None),
        ({"list_id": list_id, "contact_ids": []}, "contact_ids or all_matching is required"),
    ):
        answer = post(api, UNLOCK, token, refused)
        assert answer.status_code == 400, refused
        if message:
            assert answer.json() == {"detail": message}
    with_ids = post(api, UNLOCK, token, {"list_id": list_id, "contact_ids": ids}, filterModel=model)
    assert with_ids.status_code == 400
    assert credits_of(api, org) == 9


def test_concurrent_unlocks_never_charge_a_contact_twice(api: Api) -> None:
    org, _, list_id = setup_org(api, credits=100)
    add_contacts(api, org, list_id, [f"p{i}@example.com" for i in range(20)])

    async def both() -> list[Any]:
        selection = Selection(org, list_id)
        return list(
            await asyncio.gather(*(unlock(api.services.engine, selection) for _ in range(4)))
        )

    results = api.call(both)
    assert sum(r.credits_charged for r in results) == 20
    assert credits_of(api, org) == 80


# -- POST /enrichment/verify-email -----------------------------------------------------------


def test_single_address_verification_stores_nothing_but_the_charge(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["a@example.com"])
    expected = {
        "ada@example.com": (VALID, None, ["mx1.example.com", "mx2.example.com"]),
        "bob@nomx.test": (NO_MX, "the domain has no MX record", []),
        "not an address": (INVALID_SYNTAX, None, []),
        "carl@far.net": (UNKNOWN, None, []),
    }
    for address, (status, reason, hosts) in expected.items():
        response = post(api, CHECK, token, {"email": address})
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        assert data["email"] == address and data["status"] == status
        assert data["mx_hosts"] == hosts and data["credits_charged"] == 1
        if reason:
            assert data["reason"] == reason
    unknown = post(api, CHECK, token, {"email": "carl@far.net"}).json()["data"]
    assert unknown["reason"].startswith("no DNS lookup possible")

    assert credits_of(api, org) == 5
    assert rows_of(api, ids)[ids[0]]["email_status"] is None  # not the contact verification
    assert count(api, contacts) == 1 and count(api, verification_jobs) == 0
    entries = charges_of(api, org)
    assert len(entries) == 5 and all(e["reference"] is None for e in entries)
    assert "example.com" not in json.dumps(entries)


# -- the operator command --------------------------------------------------------------------


def run_cli(database_url: str, *args: str) -> dict[str, Any]:
    return one_json(outreach_cli("admin", *args, database_url=database_url))


def test_add_credits_command(api: Api, database_url: str) -> None:
    org, token, list_id = setup_org(api, credits=0)
    first = run_cli(database_url, "add-credits", "--org-id", str(org), "--amount", "5")
    assert (
        first["org_id"] == org
        and first["balance"] == 5
        and isinstance(first["credit_entry_id"], int)
    )
    second = run_cli(database_url, "add-credits", "--org-id", str(org), "--amount", "2")
    assert second["balance"] == 7 and second["credit_entry_id"] != first["credit_entry_id"]
    ids = add_contacts(api, org, list_id, ["a@example.com"])
    assert post(api, UNLOCK, token, {"list_id": list_id, "contact_ids": ids}).status_code == 200
    assert credits_of(api, org) == 6
    refused = outreach_cli(
        "admin", "add-credits", "--org-id", "999999", "--amount", "5", database_url=database_url
    )
    assert refused.returncode != 0 and "no organisation 999999" in refused.stderr
