"""Asynchronous verification jobs under attack (issue 30, holes 2, 3 and 5), on SQLite and on
PostgreSQL: charges follow the work, one organisation's jobs are bounded, and the worker takes
turns between organisations.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import make_api
from outreach_server.billing import verification
from outreach_server.billing.balances import charge
from outreach_server.billing.deliverability import NO_MX, VALID
from outreach_server.billing.tables import credit_charges, verification_jobs
from outreach_server.billing.verification import (
    ASYNC_OPERATION,
    MAX_UNFINISHED_JOBS,
    STOPPED,
    TooManyJobs,
    VerificationWorker,
    enqueue,
)
from outreach_server.contacts.selection import Selection
from outreach_server.core.resolver import FixedResolver
from outreach_server.core.tables import contacts
from service_support import Api
from sqlalchemy import select, update
from test_billable import (
    FIXED_DNS,
    VERIFY_ASYNC,
    add_contacts,
    credits_of,
    post,
    rows_of,
    run,
    setup_org,
)

ENTRIES = {"example.com": ["mx1.example.com"], "nomx.test": [], "valid.org": ["mx.valid.org"]}


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    """The service with its own worker stopped: each test runs the jobs when it chooses."""
    for made in make_api(
        database_url,
        key_cache_seconds=0.0,
        dns_fixed=FIXED_DNS,
        rate_limit_per_second=100_000,
        rate_limit_per_minute=100_000,
    ):
        made.services.verification.kick = lambda: None  # type: ignore[method-assign]
        yield made


class RecordingResolver(FixedResolver):
    """The fixed table, remembering the order in which domains were looked up."""

    def __init__(self) -> None:
        super().__init__(ENTRIES)
        self.asked: list[str] = []

    async def mx(self, domain: str) -> list[str]:
        self.asked.append(domain)
        return await super().mx(domain)


def worker(api: Api, batch_size: int = 200) -> tuple[VerificationWorker, RecordingResolver]:
    resolver = RecordingResolver()
    return VerificationWorker(api.services.engine, resolver, batch_size=batch_size), resolver


def charges(api: Api, org: int) -> list[tuple[str, int, int]]:
    query = (
        select(credit_charges.c.operation, credit_charges.c.units, credit_charges.c.credits)
        .where(credit_charges.c.org_id == org, credit_charges.c.credits < 0)
        .order_by(credit_charges.c.id)
    )
    return [tuple(row) for row in run(api, query)]


def set_emails(api: Api, emails: dict[int, str]) -> None:
    for contact_id, email in emails.items():
        run(api, update(contacts).where(contacts.c.id == contact_id).values(email=email))


def job_row(api: Api, job_id: int) -> Any:
    return run(api, select(verification_jobs).where(verification_jobs.c.id == job_id)).one()


# -- hole 2: charges follow the work ---------------------------------------------------------


def test_addresses_added_after_acceptance_are_not_verified_for_free(api: Api) -> None:
    """The reproduction: a job of contacts without an address costs nothing at acceptance;
    their addresses, filled in before the worker reaches them, used to be verified unpaid."""
    org, token, list_id = setup_org(api, credits=0)
    ids = add_contacts(api, org, list_id, [None, None, None])
    accepted = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["data"]["credits_charged"] == 0
    set_emails(api, {ids[0]: "a@example.com", ids[1]: "b@valid.org", ids[2]: "c@nomx.test"})

    job_runner, resolver = worker(api)
    api.call(job_runner.run_until_idle)
    assert [rows_of(api, ids)[i]["email_status"] for i in ids] == [None, None, None]
    assert resolver.asked == []  # not even looked up: the batch could not be paid for
    assert credits_of(api, org) == 0 and charges(api, org) == []
    assert job_row(api, accepted.json()["data"]["job_id"]).status == STOPPED


def test_addresses_added_after_acceptance_are_charged_when_verified(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=5)
    ids = add_contacts(api, org, list_id, [None, None, "a@example.com"])
    accepted = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert accepted.status_code == 202 and credits_of(api, org) == 5  # nothing charged yet
    set_emails(api, {ids[0]: "b@valid.org", ids[1]: "c@nomx.test"})

    api.call(worker(api)[0].run_until_idle)
    assert [rows_of(api, ids)[i]["email_status"] for i in ids] == [VALID, NO_MX, VALID]
    assert credits_of(api, org) == 2
    assert charges(api, org) == [(ASYNC_OPERATION, 3, -3)]
    assert job_row(api, accepted.json()["data"]["job_id"]).credits_charged == 3


def test_acceptance_is_refused_before_anything_when_the_balance_is_short(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=1)
    add_contacts(api, org, list_id, ["a@example.com", "b@valid.org"])
    refused = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert refused.status_code == 402, refused.text
    assert "2 required, 1 available" in refused.json()["detail"]
    assert run(api, select(verification_jobs.c.id)).all() == []  # no job recorded
    assert credits_of(api, org) == 1


def test_a_batch_the_balance_no_longer_covers_stops_the_job_and_is_neither_charged_nor_written(
    api: Api,
) -> None:
    org, token, list_id = setup_org(api, credits=5)
    emails = [f"p{i}@example.com" for i in range(5)]
    ids = add_contacts(api, org, list_id, emails)
    accepted = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert accepted.status_code == 202

    async def spend(amount: int) -> None:
        async with api.services.engine.begin() as connection:
            await charge(connection, org, amount, operation="elsewhere", units=1)

    api.call(spend, 2)  # spent elsewhere meanwhile: 3 left for 5 addresses
    api.call(worker(api, batch_size=2)[0].run_until_idle)
    statuses = [rows_of(api, ids)[i]["email_status"] for i in ids]
    assert statuses == [VALID, VALID, None, None, None]  # the second batch (2) found 1 credit
    assert credits_of(api, org) == 1  # never negative
    assert [c for c in charges(api, org) if c[0] == ASYNC_OPERATION] == [(ASYNC_OPERATION, 2, -2)]
    job = job_row(api, accepted.json()["data"]["job_id"])
    assert job.status == STOPPED and job.credits_charged == 2


def test_a_batch_run_by_two_workers_at_once_is_charged_once(api: Api) -> None:
    """A lease that ran out while its holder was still verifying: both finish the same batch;
    only the transaction that deletes the items charges and writes."""
    org, token, list_id = setup_org(api, credits=10)
    add_contacts(api, org, list_id, ["a@example.com", "b@valid.org", "a@EXAMPLE.com "])
    job_id = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True}).json()[
        "data"
    ]["job_id"]
    first, second = worker(api)[0], worker(api)[0]

    async def both() -> None:
        await asyncio.gather(first._turn(job_id, org), second._turn(job_id, org))

    api.call(both)
    assert credits_of(api, org) == 8
    assert charges(api, org) == [(ASYNC_OPERATION, 2, -2)]


def test_an_address_changed_while_its_batch_was_verified_keeps_no_verdict(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=10)
    (contact,) = add_contacts(api, org, list_id, ["a@example.com"])
    job_id = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True}).json()[
        "data"
    ]["job_id"]
    job_runner, resolver = worker(api)
    original = resolver.mx

    async def mx_then_change(domain: str) -> list[str]:  # the address changes mid-lookup
        async with api.services.engine.begin() as connection:
            await connection.execute(
                update(contacts).where(contacts.c.id == contact).values(email="z@nomx.test")
            )
        return await original(domain)

    resolver.mx = mx_then_change  # type: ignore[method-assign]
    api.call(job_runner._turn, job_id, org)
    assert rows_of(api, [contact])[contact]["email_status"] is None  # not "valid" for z@nomx.test


# -- hole 3: what one organisation can create ------------------------------------------------


def test_unfinished_jobs_per_organisation_are_bounded(api: Api) -> None:
    org, token, list_id = setup_org(api, credits=100)
    other, other_token, other_list = setup_org(api, credits=100, name="other")
    add_contacts(api, org, list_id, ["a@example.com"])
    add_contacts(api, other, other_list, ["b@example.com"])
    body = {"list_id": list_id, "all_matching": True}
    for _ in range(MAX_UNFINISHED_JOBS):
        assert post(api, VERIFY_ASYNC, token, body).status_code == 202
    refused = post(api, VERIFY_ASYNC, token, body)
    assert refused.status_code == 429, refused.text
    assert f"at most {MAX_UNFINISHED_JOBS}" in refused.json()["detail"]
    other_body = {"list_id": other_list, "all_matching": True}
    assert post(api, VERIFY_ASYNC, other_token, other_body).status_code == 202  # per organisation
    api.call(worker(api)[0].run_until_idle)
    assert post(api, VERIFY_ASYNC, token, body).status_code == 202  # finished jobs free a place


def test_concurrent_acceptances_cannot_pass_the_job_bound_together(api: Api) -> None:
    org, _, list_id = setup_org(api, credits=100)
    add_contacts(api, org, list_id, ["a@example.com"])
    selection = Selection(org, list_id)

    async def many() -> list[Any]:
        attempts = [enqueue(api.services.engine, selection, list_id) for _ in range(15)]
        return await asyncio.gather(*attempts, return_exceptions=True)

    outcomes = api.call(many)
    assert sum(isinstance(o, TooManyJobs) for o in outcomes) == 15 - MAX_UNFINISHED_JOBS
    assert not [o for o in outcomes if isinstance(o, Exception) and not isinstance(o, TooManyJobs)]


# -- hole 5: the worker takes turns between organisations ------------------------------------


def test_the_worker_takes_turns_between_organisations(api: Api) -> None:
    """The reproduction: a small job queued behind another organisation's large one used to
    wait for all of it; now it waits for one batch."""
    big, big_token, big_list = setup_org(api, credits=100, name="big")
    small, small_token, small_list = setup_org(api, credits=100, name="small")
    big_ids = add_contacts(api, big, big_list, [f"p{i}@example.com" for i in range(8)])
    (small_id,) = add_contacts(api, small, small_list, ["someone@valid.org"])
    for token, list_id in ((big_token, big_list), (big_token, big_list), (small_token, small_list)):
        body = {"list_id": list_id, "all_matching": True}
        assert post(api, VERIFY_ASYNC, token, body).status_code == 202

    job_runner, resolver = worker(api, batch_size=2)
    api.call(job_runner.run_until_idle)
    # 8 batches of the big organisation (two jobs), one of the small one: served second
    assert resolver.asked.index("valid.org") == 1, resolver.asked
    assert len(resolver.asked) == 9
    assert rows_of(api, [small_id])[small_id]["email_status"] == VALID
    assert all(row["email_status"] == VALID for row in rows_of(api, big_ids).values())
    assert credits_of(api, big) == 84 and credits_of(api, small) == 99  # 8 addresses, twice


def test_addresses_the_database_folds_differently_still_get_their_verdict(api: Api) -> None:
    """SQLite's lower() folds ASCII only and trim() only spaces: the write-back matches the
    stored address exactly, so what is charged is also written."""
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["Ä@Example.com", "b@valid.org\t", " C@VALID.org "])
    accepted = post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True})
    assert accepted.status_code == 202
    api.call(worker(api, batch_size=1)[0].run_until_idle)
    statuses = [rows_of(api, ids)[i]["email_status"] for i in ids]
    assert None not in statuses, statuses
    assert statuses[1:] == [VALID, VALID]
    assert credits_of(api, org) == 7


def test_one_address_on_many_contacts_is_charged_once_in_bounded_turns(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn takes at most EXTENSION_BATCHES more batches of its last address; the rest goes
    on in the next turn, which does not charge that address again."""
    org, token, list_id = setup_org(api, credits=10)
    ids = add_contacts(api, org, list_id, ["same@example.com"] * 9 + ["z@valid.org"])
    assert post(api, VERIFY_ASYNC, token, {"list_id": list_id, "all_matching": True}).status_code
    job_runner, resolver = worker(api, batch_size=2)
    # a turn: 2 rows, then at most 2 more of that address
    monkeypatch.setattr(verification, "EXTENSION_BATCHES", 1)
    api.call(job_runner.run_until_idle)
    assert resolver.asked.count("example.com") >= 3  # several turns for one address
    assert all(row["email_status"] == VALID for row in rows_of(api, ids).values())
    assert credits_of(api, org) == 8  # two addresses, each charged once
