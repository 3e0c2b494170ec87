"""The suppression ledger: the one store every send path and every suppression endpoint reads.

A suppression row names a contact, a channel (all, email, phone, linkedin) and a category
(contact_initiated: the contact asked; org_initiated: an operator; system: a bounce or a
complaint). It is active until cleared; cleared rows stay as history. No personal data is
stored: only ids, the channel, the category and who/when.

Rules (section 3 of the source document, and the provisional choices the service made):

- A contact is unreachable on channel C while it has an active row on C or on `all`, of any
  category (`reachable`). On `all` itself, any active row blocks.
- `operator_reversible` (per contact): it has an active org_initiated row and no active
  contact_initiated or system row. Only such contacts are reinstated; an operator never
  overrides what the contact asked for or what a bounce says.
- `unsuppress` and `reinstate` clear org_initiated rows only.
- The database keeps at most one active row per (org, contact, channel, category) (a
  partial unique index); inserts skip rows already active (ON CONFLICT DO NOTHING), so
  concurrent callers stay idempotent instead of failing.
- Every statement is filtered by the organisation; a contact of another organisation is
  "not found", exactly as an unknown one.

Bulk statements bind the whole id list as one value: a PostgreSQL array (`= ANY(:ids)`,
`unnest(:ids)`) or, on SQLite, a JSON array read with `json_each`: one statement for any
number of ids, no bound-variable limit.
"""

from __future__ import annotations

import asyncio
import random
import time
from bisect import bisect_right
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.db import Reader
from .statements import (
    ACTIVE_RECORDED,
    ALL,
    NON_REVERSIBLE,
    ORG_INITIATED,
    STATUS,
    listing_contact_id,
    listing_statement,
    statements,
)
from .tables import (
    CATEGORIES,
    CHANNELS,
)

NOT_SUPPRESSED = "not_suppressed"
NOT_REVERSIBLE = "not_operator_reversible"
MAX_ID = 2**31 - 1  # contacts.id is a 32-bit integer on PostgreSQL
RETRIES = 4
T = TypeVar("T")


class ContactNotFound(LookupError):
    """Some contact ids are unknown or belong to another organisation (nothing was written)."""

    def __init__(self, contact_ids: Iterable[int]) -> None:
        self.contact_ids = sorted(set(contact_ids))
        super().__init__(f"Contact not found: {', '.join(map(str, self.contact_ids))}")


@dataclass(frozen=True)
class ContactStatus:
    contact_id: int
    channels: tuple[str, ...]  # distinct active channels, in CHANNELS order; "all" = every one
    categories: tuple[str, ...]  # distinct active categories, in CATEGORIES order
    operator_reversible: bool

    @property
    def suppressed(self) -> bool:
        return bool(self.channels)


@dataclass(frozen=True)
class SuppressionRow:
    """One ledger row as listed: no personal data."""

    id: int
    contact_id: int
    channel: str
    category: str
    active: bool
    created_at: int
    created_by: str
    cleared_at: int | None
    cleared_by: str | None
    operator_reversible: bool


@dataclass(frozen=True)
class Recorded:
    suppression_id: int
    contact_id: int
    channel: str
    category: str
    created: bool  # False: an active row already existed and was left untouched


@dataclass(frozen=True)
class Unsuppressed:
    cleared: bool  # an active org_initiated row was cleared
    status: ContactStatus  # what remains active


@dataclass(frozen=True)
class BulkAdded:
    added: list[int]
    already_active: list[int]


@dataclass(frozen=True)
class Skipped:
    contact_id: int
    reason: str  # NOT_SUPPRESSED or NOT_REVERSIBLE
    active_categories: tuple[str, ...]


@dataclass(frozen=True)
class Reinstated:
    reinstated: list[int]
    skipped: list[Skipped]


def operator_reversible(categories: Iterable[str]) -> bool:
    """The rule, on a contact's active categories."""
    active = set(categories)
    return ORG_INITIATED in active and not active.intersection(NON_REVERSIBLE)


def _status(contact_id: int, rows: Iterable[tuple[str, str]]) -> ContactStatus:
    pairs = list(rows)
    channels = {channel for channel, _ in pairs}
    categories = {category for _, category in pairs}
    return ContactStatus(
        contact_id=contact_id,
        channels=tuple(c for c in CHANNELS if c in channels),
        categories=tuple(c for c in CATEGORIES if c in categories),
        operator_reversible=operator_reversible(categories),
    )


def _check_channel(channel: str) -> None:
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}; known: {', '.join(CHANNELS)}")


def _check(channel: str, category: str) -> None:
    _check_channel(channel)
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}; known: {', '.join(CATEGORIES)}")


def _split_ids(contact_ids: Iterable[int]) -> tuple[list[int], list[int]]:
    """(distinct storable ids sorted, ids that cannot exist)."""
    ids = sorted(set(contact_ids))
    low, high = bisect_right(ids, 0), bisect_right(ids, MAX_ID)
    return ids[low:high], ids[:low] + ids[high:]


def _transient(exc: DBAPIError) -> bool:
    """A deadlock or serialization failure (PostgreSQL), or a busy database (SQLite)."""
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    return code in {"40P01", "40001"} or "database is locked" in str(exc.orig)


# -- the store ---------------------------------------------------------------------------------


class SuppressionLedger:
    """The ledger of one database; every method takes the organisation it acts for."""

    def __init__(self, engine: AsyncEngine, reader: Reader | None = None) -> None:
        self.engine = engine
        self.reader = reader
        self.sql = statements(engine.dialect.name)
        self._sqlite = engine.dialect.name == "sqlite"

    # -- writes

    async def suppress(self, org_id: int, contact_id: int, *, actor: str) -> Recorded:
        """Active suppression, channel all, category org_initiated (idempotent)."""
        return await self.record(
            org_id, contact_id, channel=ALL, category=ORG_INITIATED, actor=actor
        )

    async def record(
        self, org_id: int, contact_id: int, *, channel: str, category: str, actor: str
    ) -> Recorded:
        """One active row; an already active one is left untouched (`created` False)."""
        _check(channel, category)
        params = {"org": org_id, "cid": contact_id, "ch": channel, "cat": category}
        if self.reader is not None and 0 < contact_id <= MAX_ID:
            # already active (the contact's, in the organisation): the answer the write
            # transaction would give, from one indexed read
            found = await self.reader.one(ACTIVE_RECORDED, **params)
            if found is not None:
                return Recorded(int(found["id"]), contact_id, channel, category, False)

        async def work(connection: AsyncConnection) -> Recorded:
            await self._require(connection, org_id, [contact_id])
            values = {**params, "now": int(time.time()), "actor": actor}
            for _ in range(RETRIES):  # the active row the insert met may be cleared meanwhile
                row_id = (await connection.execute(self.sql.insert_one, values)).scalar()
                if row_id is not None:
                    return Recorded(int(row_id), contact_id, channel, category, True)
                row_id = (await connection.execute(self.sql.active_id, params)).scalar()
                if row_id is not None:
                    return Recorded(int(row_id), contact_id, channel, category, False)
            raise RuntimeError("the active suppression kept changing; try again")

        return await self._transaction(work)

    async def unsuppress(self, org_id: int, contact_id: int, *, actor: str) -> Unsuppressed:
        """Clears the contact's active org_initiated rows; other categories stay active."""

        async def work(connection: AsyncConnection) -> Unsuppressed:
            await self._require(connection, org_id, [contact_id])
            params = {"org": org_id, "cid": contact_id, "now": int(time.time()), "actor": actor}
            cleared = (await connection.execute(self.sql.clear_one, params)).first() is not None
            remaining = await self._active(connection, org_id, [contact_id])
            return Unsuppressed(cleared, _status(contact_id, remaining.get(contact_id, [])))

        return await self._transaction(work)

    async def bulk_add(
        self,
        org_id: int,
        contact_ids: Iterable[int],
        *,
        actor: str,
        channel: str = ALL,
        category: str = ORG_INITIATED,
    ) -> BulkAdded:
        """All or nothing: any unknown or foreign id raises ContactNotFound, nothing written."""
        _check(channel, category)
        wanted = list(contact_ids)

        async def work(connection: AsyncConnection) -> BulkAdded:
            ids = await self._require(connection, org_id, wanted)
            params = {"org": org_id, "ids": self.sql.ids(ids), "ch": channel, "cat": category}
            params |= {"now": int(time.time()), "actor": actor}
            added = set((await connection.execute(self.sql.insert_many, params)).scalars())
            return BulkAdded(sorted(added), [i for i in ids if i not in added])

        return await self._transaction(work) if wanted else BulkAdded([], [])

    async def reinstate(self, org_id: int, contact_ids: Iterable[int], *, actor: str) -> Reinstated:
        """Clears org_initiated rows of operator-reversible contacts; the others are skipped."""
        wanted = list(contact_ids)

        async def work(connection: AsyncConnection) -> Reinstated:
            ids = await self._require(connection, org_id, wanted)
            params = {"org": org_id, "ids": self.sql.ids(ids), "now": int(time.time())}
            result = await connection.execute(self.sql.reinstate, {**params, "actor": actor})
            done = set(result.scalars())
            left = await self._active(connection, org_id, [i for i in ids if i not in done])
            skipped = [_skip(i, left.get(i, [])) for i in ids if i not in done]
            return Reinstated(sorted(done), skipped)

        return await self._transaction(work) if wanted else Reinstated([], [])

    # -- reads

    async def status(self, org_id: int, contact_id: int) -> ContactStatus:
        """Which channels are suppressed (ContactNotFound for an unknown or foreign contact)."""
        if not 0 < contact_id <= MAX_ID:
            raise ContactNotFound([contact_id])
        if self.reader is not None:
            rows = await self.reader.all(STATUS, org=org_id, cid=contact_id)
        else:
            async with self.engine.connect() as connection:
                result = await connection.execute(STATUS, {"org": org_id, "cid": contact_id})
                rows = [dict(row._mapping) for row in result]
        if not rows:
            raise ContactNotFound([contact_id])
        pairs = [(r["channel"], r["category"]) for r in rows if r["channel"] is not None]
        return _status(contact_id, pairs)

    async def listing(
        self,
        org_id: int,
        *,
        channel: str | None = None,
        category: str | None = None,
        limit: int = 50,
        offset: int = 0,
        contacts_in: Any = None,
    ) -> list[SuppressionRow]:
        """The organisation's active rows in id order, each with its contact's reversibility;
        only rows of contacts selected by `contacts_in` (a SELECT of contact ids) when given."""
        query = listing_statement(channel, category)
        params: dict[str, Any] = {"org": org_id, "limit": limit, "offset": offset}
        if channel is not None:
            params["channel"] = channel
        if category is not None:
            params["category"] = category
        if contacts_in is None and self.reader is not None:
            # one statement per channel and category (cached): on SQLite off the loop's
            # thread in one hand-over (Reader.scan), on PostgreSQL one round trip
            return [_row(row) for row in await self.reader.scan(query, **params)]
        if contacts_in is not None:
            query = query.where(listing_contact_id().in_(contacts_in))
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query, params)).mappings().all()
        return [_row(row) for row in rows]

    async def reachable(self, org_id: int, contact_ids: Iterable[int], channel: str) -> set[int]:
        """The send-path check: which of these contacts may be reached on `channel`.

        A contact is reachable if it is a contact of the organisation with no active row on
        `channel` or on `all` (any category); for `channel="all"`, with no active row at all.
        Unknown and foreign ids are never reachable. One indexed statement for any number
        of ids.
        """
        _check_channel(channel)
        ids, _ = _split_ids(contact_ids)
        if not ids:
            return set()
        query = self.sql.reachable[channel == ALL]
        params = {"org": org_id, "ids": self.sql.ids(ids), "ch": channel}
        async with self.engine.connect() as connection:
            return set((await connection.execute(query, params)).scalars())

    # -- helpers

    async def _require(
        self, connection: AsyncConnection, org_id: int, contact_ids: Sequence[int]
    ) -> list[int]:
        """The distinct ids sorted, if all are contacts of the organisation; else
        ContactNotFound naming every other one (unknown, foreign or out of range)."""
        ids, impossible = _split_ids(contact_ids)
        found: set[int] = set()
        if ids:
            params = {"org": org_id, "ids": self.sql.ids(ids)}
            found = set((await connection.execute(self.sql.existing, params)).scalars())
        if impossible or len(found) != len(ids):
            raise ContactNotFound([*impossible, *(i for i in ids if i not in found)])
        return ids

    async def _active(
        self, connection: AsyncConnection, org_id: int, contact_ids: Sequence[int]
    ) -> dict[int, list[tuple[str, str]]]:
        """Active (channel, category) pairs per contact."""
        active: dict[int, list[tuple[str, str]]] = defaultdict(list)
        if contact_ids:
            params = {"org": org_id, "ids": self.sql.ids(contact_ids)}
            for row in await connection.execute(self.sql.active_rows, params):
                active[int(row.contact_id)].append((row.channel, row.category))
        return active

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction; on SQLite it takes the write lock first (BEGIN IMMEDIATE), so
        a read inside it never has to be upgraded (which fails at once under contention)."""
        async with self.engine.connect() as connection:
            if self._sqlite:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
            yield connection
            await connection.commit()

    async def _transaction(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run `work` in a write transaction, again after a deadlock or a busy database."""
        for attempt in range(RETRIES):
            try:
                async with self._write() as connection:
                    return await work(connection)
            except DBAPIError as exc:
                if attempt + 1 == RETRIES or not _transient(exc):
                    raise
            await asyncio.sleep(random.uniform(0.005, 0.02) * 2**attempt)
        raise AssertionError("unreachable")


def _skip(contact_id: int, pairs: Sequence[tuple[str, str]]) -> Skipped:
    categories = _status(contact_id, pairs).categories
    return Skipped(contact_id, NOT_REVERSIBLE if categories else NOT_SUPPRESSED, categories)


def _row(row: Any) -> SuppressionRow:
    return SuppressionRow(
        id=int(row["id"]),
        contact_id=int(row["contact_id"]),
        channel=str(row["channel"]),
        category=str(row["category"]),
        active=bool(row["active"]),
        created_at=int(row["created_at"]),
        created_by=str(row["created_by"]),
        cleared_at=row["cleared_at"],
        cleared_by=row["cleared_by"],
        operator_reversible=bool(row["operator_reversible"]),
    )
