"""Verification of contacts' addresses, paid in credits; results written back to the contacts.

Synchronous (`verify_now`): a balance check first, then the lookups, then one transaction
that charges and writes every result, so a short balance charges and writes nothing.

Asynchronous (`enqueue` + `VerificationWorker`): one transaction records a job with the
selected contacts as items, refusing it (402, nothing recorded) when the balance cannot pay
for the addresses the selection holds now, and refusing a job beyond the organisation's
MAX_UNFINISHED_JOBS (429). Nothing is charged at acceptance: charges follow the work
(issue 30, hole 2). The worker, a task on the service's event loop, verifies the items in
batches; each batch is one transaction that deletes its items (DELETE ... RETURNING: only the
transaction that deletes an item verifies and charges it, so a batch is never charged twice),
charges for the distinct addresses it verified (the conditional UPDATE of `charge`: never
negative) and writes the verdicts back onto the contacts whose address is still one that was
verified. A batch the balance can no longer pay for stops the job (status `stopped`): nothing
of that batch is charged or written, and its remaining items are dropped.

Batches are taken in address order (an address's contacts never straddle two batches, so an
address is charged once per job), and the workers take turns between organisations: one
batch of the organisation served longest ago, then the next (issue 30, hole 5). Jobs live in
the database: a turn claims its job with a lease (a compare-and-set on `claimed_until`,
released at the end of the turn), so several processes share the work and a job left by a
stopped process is taken over when its lease runs out; `start()` resumes what an earlier
process left.

Price: one charge per distinct address (case-insensitive) verified, whatever the verdict;
contacts without an address are neither checked nor charged.
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

from outreach_api.constants import LIMITS_VERIFY_EMAIL_MAX_UNFINISHED_JOBS
from sqlalchemy import Integer, and_, delete, distinct, func, insert, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from ..contacts import Selection, chunks
from ..core.db import Reader
from ..core.resolver import Resolver
from ..core.tables import contacts, lock_organization
from .balances import (
    BALANCE,
    VERIFY_CREDITS_PER_ADDRESS,
    InsufficientCredits,
    charge,
    ensure_affordable,
)
from .deliverability import Verdict, address_key, verify_addresses
from .tables import verification_job_items, verification_jobs

log = logging.getLogger("outreach_server.verification")

QUEUED, RUNNING, DONE, STOPPED = "queued", "running", "done", "stopped"
UNFINISHED = (QUEUED, RUNNING)
# a full batch also takes the rest of its last address's contacts, up to this many batches more
EXTENSION_BATCHES = 10
# spec/DECISIONS.md row 124: unfinished jobs one organisation can hold (the next one is a 429)
MAX_UNFINISHED_JOBS = LIMITS_VERIFY_EMAIL_MAX_UNFINISHED_JOBS
SYNC_OPERATION = "verify_contact_emails"
ASYNC_OPERATION = "verify_contact_emails_async"


def has_address(email: str | None) -> bool:
    return bool(email and email.strip())


def address_of(column: Any = contacts.c.email) -> ColumnElement[str]:
    """The address key in SQL: what `address_key` computes, '' for no address."""
    return func.coalesce(func.lower(func.trim(column)), "")


async def write_back(
    connection: AsyncConnection,
    org_id: int,
    results: Sequence[tuple[int, str]],
    now: int,
    emails: dict[str, set[str]] | None = None,
) -> None:
    """Store each contact's verdict (email_status, email_checked_at).

    With `emails` (status -> the stored addresses, exactly as read, that got it), a contact
    is written only while its address is still one of them: an address changed since it was
    read keeps no verdict of another address.
    """
    by_status: dict[str, list[int]] = {}
    for contact_id, status in results:
        by_status.setdefault(status, []).append(contact_id)
    for status, ids in by_status.items():
        for chunk in chunks(ids):
            where = [contacts.c.org_id == org_id, contacts.c.id.in_(list(chunk))]
            if emails is not None:
                where.append(contacts.c.email.in_(sorted(emails.get(status, ()))))
            await connection.execute(
                update(contacts).where(*where).values(email_status=status, email_checked_at=now)
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


class TooManyJobs(Exception):
    """The organisation already has MAX_UNFINISHED_JOBS jobs queued or running."""


async def enqueue(engine: AsyncEngine, selection: Selection, list_id: int) -> Accepted:
    """Record a job for the selection, in one transaction; nothing is charged yet.

    InsufficientCredits (nothing recorded) when the balance cannot pay for the addresses the
    selection holds now; TooManyJobs beyond MAX_UNFINISHED_JOBS unfinished jobs.
    """
    now = int(time.time())
    org_id = selection.org_id
    async with engine.begin() as connection:
        await lock_organization(connection, org_id)  # the job count below, one at a time
        unfinished = (
            await connection.execute(
                select(func.count()).where(
                    verification_jobs.c.org_id == org_id, verification_jobs.c.status.in_(UNFINISHED)
                )
            )
        ).scalar()
        if int(unfinished or 0) >= MAX_UNFINISHED_JOBS:
            raise TooManyJobs(MAX_UNFINISHED_JOBS)
        job_id = int(
            (
                await connection.execute(
                    insert(verification_jobs)
                    .values(
                        org_id=org_id,
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
        addresses = int(
            (
                await connection.execute(
                    select(func.count(distinct(address_of())))
                    .select_from(joined)
                    .where(in_job, address_of() != "")
                )
            ).scalar_one()
        )
        price = addresses * VERIFY_CREDITS_PER_ADDRESS
        available = int((await connection.execute(BALANCE, {"org_id": org_id})).scalar() or 0)
        if price > available:  # refused before anything: the transaction records nothing
            raise InsufficientCredits(price, available)
        await connection.execute(
            update(verification_jobs)
            .where(verification_jobs.c.id == job_id)
            .values(
                contacts_accepted=accepted,
                addresses_accepted=addresses,
                status=QUEUED if accepted else DONE,
                finished_at=None if accepted else now,
            )
        )
    return Accepted(job_id, accepted, addresses, 0)


class VerificationWorker:
    """Runs queued verification jobs on the event loop of the process that serves requests,
    one batch per turn, taking turns between organisations."""

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
        self._turns = 0
        self._served: dict[int, int] = {}  # organisation -> the turn it was last served in
        # job -> the address its last turn here ended on and charged: a group of one address
        # longer than a turn (EXTENSION_BATCHES batches) goes on in the next turn, uncharged
        self._ended_on: dict[int, str] = {}

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
            await self._turn(*job)

    async def _drain(self) -> None:
        while True:
            self._wake.clear()
            try:
                job = await self._claim()
                if job is not None:
                    await self._turn(*job)
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
        """A job for the next turn: the oldest claimable job of the organisation served
        longest ago (never served first, then by job age), leased to this process."""
        now = int(time.time())
        claimable = and_(
            verification_jobs.c.status.in_(UNFINISHED),
            or_(
                verification_jobs.c.claimed_until.is_(None), verification_jobs.c.claimed_until < now
            ),
        )
        async with self.engine.connect() as connection:
            oldest = (
                await connection.execute(
                    select(verification_jobs.c.org_id, func.min(verification_jobs.c.id))
                    .where(claimable)
                    .group_by(verification_jobs.c.org_id)
                )
            ).all()
        candidates = sorted(
            ((int(org_id), int(job_id)) for org_id, job_id in oldest),
            key=lambda c: (self._served.get(c[0], -1), c[1]),
        )
        for org_id, job_id in candidates:
            async with self.engine.begin() as connection:
                taken = await connection.execute(
                    update(verification_jobs)
                    .where(verification_jobs.c.id == job_id, claimable)
                    .values(status=RUNNING, claimed_until=now + self.lease_seconds)
                )
            if taken.rowcount == 1:
                self._turns += 1
                self._served[org_id] = self._turns
                if len(self._served) > 10_000:  # forget the oldest turns, keep the order
                    for stale in sorted(self._served, key=self._served.__getitem__)[:5_000]:
                        del self._served[stale]
                return job_id, org_id
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

    async def _batch(self, job_id: int, org_id: int) -> list[tuple[int, str | None]]:
        """The job's next items in address order (no address first); a batch that is full
        also takes the other contacts of its last address, up to EXTENSION_BATCHES batches."""
        in_job = verification_job_items.c.job_id == job_id
        address = address_of()
        base = (
            select(verification_job_items.c.contact_id, contacts.c.email, address)
            .select_from(
                verification_job_items.join(
                    contacts, contacts.c.id == verification_job_items.c.contact_id
                )
            )
            .where(in_job, contacts.c.org_id == org_id)
        )
        async with self.engine.connect() as connection:
            found = await connection.execute(
                base.order_by(address, verification_job_items.c.contact_id).limit(self.batch_size)
            )
            read = list(found.all())
            if len(read) == self.batch_size and read[-1][2]:
                last_id, last_key = int(read[-1][0]), read[-1][2]  # the database's own key
                rest = await connection.execute(
                    base.where(address == last_key, verification_job_items.c.contact_id > last_id)
                    .order_by(verification_job_items.c.contact_id)
                    .limit(self.batch_size * EXTENSION_BATCHES)
                )
                read.extend(rest.all())
        return [(int(r[0]), r[1]) for r in read]

    async def _turn(self, job_id: int, org_id: int) -> None:
        """One batch of the job: verified, charged and written back in one transaction."""
        rows = await self._batch(job_id, org_id)
        now = int(time.time())
        if not rows:
            await self._finish(job_id, DONE)
            return
        checked = [(cid, str(email)) for cid, email in rows if has_address(email)]
        paid = self._ended_on.get(job_id)  # charged by this job's previous turn here
        price = len({address_key(e) for _, e in checked} - {paid}) * VERIFY_CREDITS_PER_ADDRESS
        async with self.engine.connect() as connection:
            available = int((await connection.execute(BALANCE, {"org_id": org_id})).scalar() or 0)
        if price > available:  # no lookup for a batch the balance cannot pay for
            await self._stop(job_id, org_id, InsufficientCredits(price, available))
            return
        verdicts = await verify_addresses([email for _, email in checked], self.resolver)
        try:
            async with self.engine.begin() as connection:
                owned = await self._take_items(connection, job_id, [cid for cid, _ in rows])
                mine = [(cid, email) for cid, email in checked if cid in owned]
                verified = {address_key(email) for _, email in mine}
                price = len(verified - {paid}) * VERIFY_CREDITS_PER_ADDRESS
                await charge(
                    connection,
                    org_id,
                    price,
                    operation=ASYNC_OPERATION,
                    units=len(verified - {paid}),
                    reference=f"verification_job:{job_id}",
                )
                by_status: dict[str, set[str]] = {}  # status -> the stored addresses given it
                for _, email in mine:
                    by_status.setdefault(verdicts[address_key(email)].status, set()).add(email)
                await write_back(
                    connection,
                    org_id,
                    [(cid, verdicts[address_key(email)].status) for cid, email in mine],
                    now,
                    by_status,
                )
                await connection.execute(
                    update(verification_jobs)
                    .where(verification_jobs.c.id == job_id)
                    .values(
                        credits_charged=verification_jobs.c.credits_charged + price,
                        claimed_until=None,  # the turn is over: the next one may go elsewhere
                    )
                )
            last = rows[-1][1]
            if has_address(last):
                if len(self._ended_on) > 10_000:  # jobs another process finished
                    self._ended_on.clear()
                self._ended_on[job_id] = address_key(str(last))
        except InsufficientCredits as short:  # spent meanwhile: nothing of the batch is kept
            await self._stop(job_id, org_id, short)

    @staticmethod
    async def _take_items(connection: AsyncConnection, job_id: int, ids: list[int]) -> set[int]:
        """Delete the batch's items; only the ones this transaction deleted are its to verify."""
        owned: set[int] = set()
        for chunk in chunks(ids):
            result = await connection.execute(
                delete(verification_job_items)
                .where(
                    verification_job_items.c.job_id == job_id,
                    verification_job_items.c.contact_id.in_(list(chunk)),
                )
                .returning(verification_job_items.c.contact_id)
            )
            owned.update(int(row[0]) for row in result)
        return owned

    async def _finish(self, job_id: int, status: str) -> None:
        self._ended_on.pop(job_id, None)
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(verification_job_items).where(verification_job_items.c.job_id == job_id)
            )
            await connection.execute(
                update(verification_jobs)
                .where(verification_jobs.c.id == job_id)
                .values(status=status, finished_at=int(time.time()), claimed_until=None)
            )

    async def _stop(self, job_id: int, org_id: int, short: InsufficientCredits) -> None:
        log.warning(
            "verification job %s of organisation %s stopped: insufficient credits (%s)",
            job_id,
            org_id,
            short,
        )
        await self._finish(job_id, STOPPED)
