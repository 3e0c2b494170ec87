"""Verification of contacts' addresses, paid in credits; results written back to the contacts.

Synchronous (`verify_now`): a balance check first, then the lookups, then one transaction
that charges and writes every result, so a short balance charges and writes nothing.

Asynchronous (`enqueue` + `VerificationWorker`): one transaction records a job with the
selected contacts as items and charges for the accepted addresses; the worker, a task on
the service's event loop, verifies the items in batches and deletes each item once its
result is written. Jobs live in the database: a job is claimed with a lease (a compare-
and-set on `claimed_until`, renewed every batch), so several processes share the work and
a job left by a stopped process is taken over when its lease runs out; `start()` resumes
what an earlier process left.

Price: one charge per distinct address (case-insensitive), whatever the verdict; contacts
without an address are neither checked nor charged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, and_, delete, distinct, func, insert, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..contacts import Selection, chunks
from ..core.db import Reader
from ..core.resolver import Resolver
from ..core.tables import contacts
from .balances import VERIFY_CREDITS_PER_ADDRESS, charge, ensure_affordable
from .deliverability import Verdict, address_key, verify_addresses
from .tables import verification_job_items, verification_jobs

log = logging.getLogger("outreach_server.verification")

QUEUED, RUNNING, DONE = "queued", "running", "done"
UNFINISHED = (QUEUED, RUNNING)
SYNC_OPERATION = "verify_contact_emails"
ASYNC_OPERATION = "verify_contact_emails_async"


def has_address(email: str | None) -> bool:
    return bool(email and email.strip())


async def write_back(
    connection: AsyncConnection, org_id: int, results: Sequence[tuple[int, str]], now: int
) -> None:
    """Store each contact's verdict (email_status, email_checked_at)."""
    by_status: dict[str, list[int]] = {}
    for contact_id, status in results:
        by_status.setdefault(status, []).append(contact_id)
    for status, ids in by_status.items():
        for chunk in chunks(ids):
            await connection.execute(
                update(contacts)
                .where(contacts.c.org_id == org_id, contacts.c.id.in_(list(chunk)))
                .values(email_status=status, email_checked_at=now)
            )


async def verify_now(
    engine: AsyncEngine,
    reader: Reader,
    resolver: Resolver,
    org_id: int,
    rows: Sequence[tuple[int, str | None]],
) -> dict[str, Any]:
    """Verify the given contacts now: charge, write back, and return the result payload."""
    checked = [(contact_id, email) for contact_id, email in rows if email and email.strip()]
    addresses = {address_key(email) for _, email in checked}
    price = len(addresses) * VERIFY_CREDITS_PER_ADDRESS
    await ensure_affordable(reader, org_id, price)
    verdicts = await verify_addresses([email for _, email in checked], resolver)
    results = [(cid, email, verdicts[address_key(email)]) for cid, email in checked]
    async with engine.begin() as connection:
        await charge(connection, org_id, price, operation=SYNC_OPERATION, units=len(addresses))
        await write_back(
            connection, org_id, [(cid, v.status) for cid, _, v in results], int(time.time())
        )
    return {
        "verified": len(results),
        "contacts": len(rows),
        "skipped_without_email": len(rows) - len(results),
        "addresses": len(addresses),
        "credits_charged": price,
        "statuses": dict(Counter(v.status for _, _, v in results)),
        "results": [_result(cid, email, v) for cid, email, v in results],
    }


def _result(contact_id: int, email: str, verdict: Verdict) -> dict[str, Any]:
    return {
        "contact_id": contact_id,
        "email": email,
        "status": verdict.status,
        "reason": verdict.reason,
    }


@dataclass(frozen=True)
class Accepted:
    job_id: int | None
    contacts: int
    addresses: int
    credits_charged: int


async def enqueue(engine: AsyncEngine, selection: Selection, list_id: int) -> Accepted:
    """Record a job for the selection and charge for its addresses, in one transaction."""
    now = int(time.time())
    async with engine.begin() as connection:
        job_id = int(
            (
                await connection.execute(
                    insert(verification_jobs)
                    .values(
                        org_id=selection.org_id,
                        list_id=list_id,
                        status=QUEUED,
                        contacts_accepted=0,
                        addresses_accepted=0,
                        credits_charged=0,
                        created_at=now,
                    )
                    .returning(verification_jobs.c.id)
                )
            ).scalar_one()
        )
        for where in selection.statements_where():
            await connection.execute(
                insert(verification_job_items).from_select(
                    ["job_id", "contact_id"],
                    select(literal(job_id, Integer), contacts.c.id).where(where),
                )
            )
        in_job = verification_job_items.c.job_id == job_id
        joined = verification_job_items.join(
            contacts, contacts.c.id == verification_job_items.c.contact_id
        )
        accepted = int(
            (
                await connection.execute(
                    select(func.count()).select_from(verification_job_items).where(in_job)
                )
            ).scalar_one()
        )
        address = func.lower(func.trim(contacts.c.email))
        addresses = int(
            (
                await connection.execute(
                    select(func.count(distinct(address)))
                    .select_from(joined)
                    .where(in_job, contacts.c.email.is_not(None), func.trim(contacts.c.email) != "")
                )
            ).scalar_one()
        )
        price = addresses * VERIFY_CREDITS_PER_ADDRESS
        await charge(
            connection,
            selection.org_id,
            price,
            operation=ASYNC_OPERATION,
            units=addresses,
            reference=f"verification_job:{job_id}",
        )
        await connection.execute(
            update(verification_jobs)
            .where(verification_jobs.c.id == job_id)
            .values(
                contacts_accepted=accepted,
                addresses_accepted=addresses,
                credits_charged=price,
                status=QUEUED if accepted else DONE,
                finished_at=None if accepted else now,
            )
        )
    return Accepted(job_id, accepted, addresses, price)


class VerificationWorker:
    """Runs queued verification jobs on the event loop of the process that serves requests."""

    def __init__(
        self,
        engine: AsyncEngine,
        resolver: Resolver,
        *,
        batch_size: int = 200,
        lease_seconds: int = 60,
    ) -> None:
        self.engine = engine
        self.resolver = resolver
        self.batch_size = batch_size
        self.lease_seconds = lease_seconds
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def kick(self) -> None:
        """Make sure jobs get run (call after committing a job); never blocks."""
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def start(self) -> None:
        """Resume the jobs an earlier process left (call once the database is migrated)."""
        self.kick()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run_until_idle(self) -> None:
        """Run every claimable job to the end on the calling task (operator commands, tests)."""
        while (job := await self._claim()) is not None:
            await self._run(*job)

    async def _drain(self) -> None:
        while True:
            self._wake.clear()
            try:
                job = await self._claim()
                if job is not None:
                    await self._run(*job)
                    continue
                if self._wake.is_set():  # a job was committed while claiming
                    continue
                wait = await self._next_lease_expiry()
            except Exception:  # keep the worker alive; the job's lease makes it retry later
                log.exception("verification worker failed; retrying after the lease")
                wait = float(self.lease_seconds)
            if wait is None:
                if self._wake.is_set():  # kicked while looking (no await since): go on
                    continue
                return  # nothing left; the next kick() starts a new task
            with contextlib.suppress(TimeoutError):  # a new job, or a lease running out
                await asyncio.wait_for(self._wake.wait(), wait)

    async def _claim(self) -> tuple[int, int] | None:
        now = int(time.time())
        claimable = and_(
            verification_jobs.c.status.in_(UNFINISHED),
            or_(
                verification_jobs.c.claimed_until.is_(None), verification_jobs.c.claimed_until < now
            ),
        )
        async with self.engine.connect() as connection:
            candidates = (
                await connection.execute(
                    select(verification_jobs.c.id, verification_jobs.c.org_id)
                    .where(claimable)
                    .order_by(verification_jobs.c.id)
                    .limit(5)
                )
            ).all()
        for job_id, org_id in candidates:
            async with self.engine.begin() as connection:
                taken = await connection.execute(
                    update(verification_jobs)
                    .where(verification_jobs.c.id == job_id, claimable)
                    .values(status=RUNNING, claimed_until=now + self.lease_seconds)
                )
            if taken.rowcount == 1:
                return int(job_id), int(org_id)
        return None

    async def _next_lease_expiry(self) -> float | None:
        """Seconds until a job another process holds becomes claimable (None: no such job)."""
        async with self.engine.connect() as connection:
            soonest = (
                await connection.execute(
                    select(func.min(verification_jobs.c.claimed_until)).where(
                        verification_jobs.c.status.in_(UNFINISHED)
                    )
                )
            ).scalar()
        if soonest is None:
            return None
        return float(min(max(int(soonest) - time.time() + 1, 1), self.lease_seconds))

    async def _run(self, job_id: int, org_id: int) -> None:
        in_job = verification_job_items.c.job_id == job_id
        batch_query = (
            select(verification_job_items.c.contact_id, contacts.c.email)
            .select_from(
                verification_job_items.join(
                    contacts, contacts.c.id == verification_job_items.c.contact_id
                )
            )
            .where(in_job, contacts.c.org_id == org_id)
            .order_by(verification_job_items.c.contact_id)
            .limit(self.batch_size)
        )
        while True:
            async with self.engine.connect() as connection:
                rows = [(int(r[0]), r[1]) for r in await connection.execute(batch_query)]
            now = int(time.time())
            if not rows:
                async with self.engine.begin() as connection:
                    await connection.execute(
                        update(verification_jobs)
                        .where(verification_jobs.c.id == job_id)
                        .values(status=DONE, finished_at=now, claimed_until=None)
                    )
                return
            checked = [(cid, email) for cid, email in rows if has_address(email)]
            verdicts = await verify_addresses([email for _, email in checked], self.resolver)
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(verification_jobs)
                    .where(verification_jobs.c.id == job_id)
                    .values(claimed_until=int(time.time()) + self.lease_seconds)
                )
                await write_back(
                    connection,
                    org_id,
                    [(cid, verdicts[address_key(email)].status) for cid, email in checked],
                    int(time.time()),
                )
                await connection.execute(
                    delete(verification_job_items).where(
                        in_job,
                        verification_job_items.c.contact_id.in_([cid for cid, _ in rows]),
                    )
                )
