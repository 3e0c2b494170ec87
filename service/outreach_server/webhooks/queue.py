"""The delivery rows as a queue: claim due attempts under a lease, record their outcomes
and schedule their retries (the SQL itself: statements.py).

Rows (webhooks_tables.webhook_deliveries) are one per attempt. A pending row is due when
`next_attempt_at` has passed.

Claim. Up to `limit` due rows are claimed in one statement that pushes `next_attempt_at`
forward by the lease (timeout + DNS timeout + a margin) and stamps a fresh `lease_token`,
and reads with them everything the POST needs (the webhook's url, is_active and encrypted
secret, the event's payload and created_at; every join on the row's org_id). PostgreSQL:
one round trip, `WITH claimed AS (UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP
LOCKED) RETURNING ...) SELECT ... FROM claimed LEFT JOIN ...`, so concurrent workers never
claim the same row; SQLite: the UPDATE ... RETURNING and one SELECT of the batch under one
BEGIN IMMEDIATE (one writer at a time).

Record. A batch of outcomes is recorded atomically and guarded per row by the lease token
and org_id: a row whose lease was lost records nothing. PostgreSQL: one statement per batch
(`WITH done AS (UPDATE ... FROM unnest(...) RETURNING id), retried AS (INSERT ... the
retries of the rows in done) SELECT id FROM done`) on a connection kept in autocommit mode;
SQLite: under one BEGIN IMMEDIATE, one SELECT of the leases that still hold, one
executemany UPDATE of those rows and one bulk INSERT of the retries. A worker that dies
between claim and record leaves its rows pending: once the lease expires any worker claims
them again, so every attempt is made at least once.

A failed row's error_message names the attempt and what follows it: "HTTP 500 (attempt 1 of
3; retried as dlv_...)", then "... (attempt 3 of 3; no more attempts)", so the rows of one
event read as one delivery's attempts. A failed attempt made while fewer than
WEBHOOK_DELIVERY_MAX_ATTEMPTS attempts were made schedules the next attempt as a new pending
row: attempt n+1 is due WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS[n-1] x webhook_retry_scale
seconds after attempt n failed (10 s before the 2nd, 60 s before the 3rd; the first attempt
is immediate, so with 3 attempts the 300 s delay is not used).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from outreach_api.constants import (
    WEBHOOK_DELIVERY_MAX_ATTEMPTS,
    WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS,
)
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from . import statements
from .store import new_id, now_ms
from .tables import webhook_deliveries

LEASE_MARGIN_SECONDS = 2.0
# one organisation holds at most 1/IN_FLIGHT_SHARE of a worker's attempts in flight
# (spec/DECISIONS.md row 133): its backlog to hanging targets leaves the rest to the others
IN_FLIGHT_SHARE = 4


@dataclass(frozen=True)
class Claimed:
    id: str
    org_id: int
    webhook_id: str
    event_id: str
    event: str
    attempts: int  # made before this one
    max_attempts: int
    lease_token: str
    # what the POST needs, read with the claim (url None: the webhook or event is gone)
    url: str | None = None
    is_active: bool = False
    agency_ended: bool = False  # the webhook's URL was set by an agency no longer linked
    secret_encrypted: str = ""
    payload: Any = None
    created_at: int = 0
    claimed_at: float = 0.0  # time.monotonic() of the claim


@dataclass(frozen=True)
class Outcome:
    success: bool
    response_code: int | None = None
    error_message: str | None = None
    final: bool = False  # a failure never retried (the webhook is disabled or gone)


RELEASED = None  # an attempt given back unsent (no slot of its target in time)


def retry_delay_seconds(attempt_made: int, scale: float) -> float:
    """Delay before the attempt following attempt number `attempt_made` (1-based)."""
    delays = WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS
    return delays[min(attempt_made, len(delays)) - 1] * scale


def _bool(value: Any) -> bool:
    return value in (True, 1, "1", "true", "t")


@dataclass(frozen=True)
class Recorded:
    ids: set[str]  # the rows recorded (a row whose lease was lost is not)
    made: list[str]  # the rows whose outcome was given (released ones are not)
    next_due_ms: int | None  # when the earliest retry scheduled falls due


class DeliveryQueue:
    """Claims and records delivery rows on one engine (PostgreSQL: on connections it keeps
    in autocommit mode between uses)."""

    def __init__(self, engine: AsyncEngine, *, lease_ms: int, retry_scale: float) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.lease_ms = lease_ms
        self.retry_scale = retry_scale
        self._connections: list[AsyncConnection] = []  # PostgreSQL, autocommit, idle

    # -- claim -------------------------------------------------------------------------------

    async def claim(
        self,
        limit: int,
        skipped: Sequence[str] = (),
        *,
        full_orgs: Sequence[int] = (),
        room: Mapping[int, int] | None = None,
        per_org: int | None = None,
    ) -> list[Claimed]:
        """Lease up to `limit` due rows (statements.claim: organisations take turns, at most
        `room[org]`, else `per_org`, of each; none of `full_orgs` or of `skipped` webhooks)."""
        now = now_ms()
        token = secrets.token_hex(8)
        claim = statements.claim(
            now=now,
            lease_ms=self.lease_ms,
            token=token,
            limit=limit,
            skipped=skipped,
            full_orgs=full_orgs,
            room=room,
            per_org=per_org,
            sqlite=self.sqlite,
        )
        rows: Sequence[Any]
        if self.sqlite:
            async with self.engine.connect() as connection:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
                ids = (
                    (await connection.execute(claim.returning(webhook_deliveries.c.id)))
                    .scalars()
                    .all()
                )
                rows = (
                    (
                        await connection.execute(
                            statements.claimed_batch(webhook_deliveries, token, list(ids))
                        )
                    ).all()
                    if ids
                    else []
                )
                await connection.commit()
        else:  # one statement: claim and read in one round trip
            async with self._autocommit() as connection:
                query = statements.claim_and_read_postgresql(claim, token)
                rows = (await connection.execute(query)).all()
        at = time.monotonic()
        return [
            Claimed(
                id=row.id,
                org_id=int(row.org_id),
                webhook_id=row.webhook_id,
                event_id=row.event_id,
                event=row.event,
                attempts=int(row.attempts),
                max_attempts=int(row.max_attempts),
                lease_token=token,
                url=row.url if row.created_at is not None else None,
                is_active=_bool(row.is_active),
                agency_ended=row.agency_org_id is not None and row.agency_linked is None,
                secret_encrypted=row.secret_encrypted or "",
                payload=row.payload,
                created_at=int(row.created_at or 0),
                claimed_at=at,
            )
            for row in rows
        ]

    # -- record ------------------------------------------------------------------------------

    async def record(self, results: list[tuple[Claimed, Outcome | None]]) -> Recorded:
        """Record attempts (and schedule their retries) in one transaction; release the
        attempts not made (outcome None)."""
        now = now_ms()
        made_rows: list[dict[str, Any]] = []
        retries: dict[str, dict[str, Any]] = {}
        released: list[Claimed] = []
        for item, outcome in results:
            if outcome is None:  # RELEASED
                released.append(item)
                continue
            made = item.attempts + 1
            limit = min(item.max_attempts, WEBHOOK_DELIVERY_MAX_ATTEMPTS)
            retried = not outcome.success and not outcome.final and made < limit
            retry_id = new_id("dlv") if retried else None
            message = outcome.error_message
            if not outcome.success:  # each row is one attempt: say which, and what follows it
                follows = f"retried as {retry_id}" if retry_id else "no more attempts"
                message = f"{message} (attempt {made} of {limit}; {follows})"
            made_rows.append(
                {
                    "id": item.id,
                    "org_id": item.org_id,
                    "lease_token": item.lease_token,
                    "status": "success" if outcome.success else "failed",
                    "attempts": made,
                    "response_code": outcome.response_code,
                    "error_message": message,
                }
            )
            if retry_id is not None:
                delay = retry_delay_seconds(made, self.retry_scale)
                retries[item.id] = {
                    "id": retry_id,
                    "org_id": item.org_id,
                    "webhook_id": item.webhook_id,
                    "event_id": item.event_id,
                    "event": item.event,
                    "status": "pending",
                    "attempts": made,
                    "max_attempts": item.max_attempts,
                    "created_at": now,
                    "next_attempt_at": now + int(delay * 1000),
                }
        if self.sqlite:
            recorded = await self._record_sqlite(made_rows, retries, released, now)
        else:
            recorded = await self._record_postgresql(made_rows, retries, released, now)
        due = min((int(row["next_attempt_at"]) for row in retries.values()), default=None)
        return Recorded(recorded, [row["id"] for row in made_rows], due)

    async def _record_postgresql(
        self,
        made_rows: list[dict[str, Any]],
        retries: dict[str, dict[str, Any]],
        released: list[Claimed],
        now: int,
    ) -> set[str]:
        recorded: set[str] = set()
        async with self._autocommit() as connection:
            if made_rows:
                given = statements.record_outcomes_parameters(made_rows, retries, now)
                result = await connection.execute(statements.RECORD_OUTCOMES, given)
                recorded = set(result.scalars().all())
            if released:
                await connection.execute(statements.RELEASE, _released(released, now))
        return recorded

    async def _record_sqlite(
        self,
        made_rows: list[dict[str, Any]],
        retries: dict[str, dict[str, Any]],
        released: list[Claimed],
        now: int,
    ) -> set[str]:
        async with self.engine.connect() as connection:
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
            recorded = await self._update_sqlite(connection, made_rows, now)
            if released:
                await connection.execute(statements.RELEASE, _released(released, now))
            wanted = [retries[i] for i in sorted(recorded) if i in retries]
            if wanted:
                await connection.execute(insert(webhook_deliveries), wanted)
            await connection.commit()
        return recorded

    @staticmethod
    async def _update_sqlite(
        connection: AsyncConnection, made_rows: list[dict[str, Any]], now: int
    ) -> set[str]:
        """The rows whose lease still holds (read under the write lock BEGIN IMMEDIATE took,
        so nothing changes before the update), then one executemany for them."""
        if not made_rows:
            return set()
        leases = statements.leases([row["id"] for row in made_rows])
        held = {tuple(lease) for lease in (await connection.execute(leases)).all()}
        mine = [r for r in made_rows if (r["id"], r["org_id"], r["lease_token"]) in held]
        if mine:
            given = [{f"o_{k}": v for k, v in {**row, "now": now}.items()} for row in mine]
            await connection.execute(statements.RECORD_ONE, given)
        return {row["id"] for row in mine}

    # -- connections -------------------------------------------------------------------------

    @asynccontextmanager
    async def _autocommit(self) -> AsyncIterator[AsyncConnection]:
        """A PostgreSQL connection in autocommit mode, kept between uses (no pool checkout,
        ping, BEGIN or COMMIT per statement: each statement is atomic)."""
        connection = self._connections.pop() if self._connections else None
        if connection is None:
            connection = await self.engine.connect()
            await connection.execution_options(isolation_level="AUTOCOMMIT")
        try:
            yield connection
        except BaseException:
            try:
                await asyncio.shield(connection.invalidate())
            finally:
                await asyncio.shield(connection.close())
            raise
        self._connections.append(connection)

    async def close(self) -> None:
        while self._connections:
            await self._connections.pop().close()


def _released(items: list[Claimed], now: int) -> list[dict[str, Any]]:
    return [
        statements.release_parameters(item.id, item.org_id, item.lease_token, now) for item in items
    ]
