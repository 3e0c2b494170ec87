"""Which contacts a billable request selects: explicit ids, or a list with a filter.

Everything is scoped to what the key sees (store.ContactScope: the organisation,
narrowed to some lists for a narrowed key); a list means its own contacts and the ones
added to it; filters go through store.select_matching (base, custom and
enrichment columns). An unknown, foreign or invisible list or contact is a 404.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from ..core.db import Reader
from ..core.errors import ApiError
from ..core.tables import contacts
from .store import ContactScope, get_contact_list, in_list, select_matching

MAX_STORED_ID = 2**31 - 1  # ids are 32-bit integers on both backends
ID_CHUNK = 5_000  # ids per statement (bound parameters are limited per statement)


def storable(identifier: int) -> bool:
    """Whether an id can exist at all (anything else is simply not found)."""
    return 0 < identifier <= MAX_STORED_ID


def chunks(ids: Sequence[int], size: int = ID_CHUNK) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


async def filter_condition(
    connection: AsyncConnection,
    scope: ContactScope,
    list_id: int | None,
    model: str | Mapping[str, Any] | None,
    loc: Sequence[str | int],
) -> ColumnElement[bool] | None:
    """The contacts the key sees [in the list] matching a filter model (None without one)."""
    if model is None or (isinstance(model, str) and not model.strip()):
        return None
    matching = await select_matching(
        connection, scope, list_id=list_id, filter_model=model, filter_loc=loc
    )
    return matching.where


async def require_list(reader: Reader, scope: ContactScope, list_id: int) -> None:
    """404 for a list the key does not see, 400 for a list of companies."""
    await get_contact_list(reader, scope, list_id)


def unique_ids(ids: Sequence[int]) -> list[int]:
    return list(dict.fromkeys(ids))


def missing_ids_error(missing: Sequence[int]) -> ApiError:
    shown = ", ".join(str(i) for i in missing[:10])
    more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    return ApiError(404, f"Contact not found: {shown}{more}")


@dataclass(frozen=True)
class Selection:
    """Contacts of one organisation: given ids, or a list (with an optional filter)."""

    org_id: int
    list_id: int | None = None
    ids: tuple[int, ...] | None = None
    condition: ColumnElement[bool] | None = None
    visible: ColumnElement[bool] | None = None  # the key's scope (default: the organisation)

    def clauses(self, chunk: Sequence[int] | None = None) -> list[ColumnElement[bool]]:
        """WHERE clauses; with ids, `chunk` is the part of them one statement covers."""
        where: list[ColumnElement[bool]] = [
            self.visible if self.visible is not None else contacts.c.org_id == self.org_id
        ]
        if self.list_id is not None:
            where.append(in_list(self.list_id))
        if self.condition is not None:
            where.append(self.condition)
        if self.ids is not None:
            where.append(contacts.c.id.in_(list(chunk if chunk is not None else self.ids)))
        return where

    def statements_where(self) -> Iterator[ColumnElement[bool]]:
        """One WHERE condition per statement needed to cover the whole selection."""
        if self.ids is None:
            yield and_(*self.clauses())
            return
        for chunk in chunks(self.ids):
            yield and_(*self.clauses(chunk))


async def require_contacts(connection: AsyncConnection, selection: Selection) -> None:
    """404 naming the ids that are not contacts of the organisation (and list, when given)."""
    if selection.ids is None:
        return
    found: set[int] = set()
    storable_ids = [i for i in selection.ids if storable(i)]
    for chunk in chunks(storable_ids):
        part = Selection(
            selection.org_id, selection.list_id, tuple(chunk), visible=selection.visible
        )
        where = and_(*part.clauses())
        result = await connection.execute(select(contacts.c.id).where(where))
        found.update(int(row[0]) for row in result)
    missing = [i for i in selection.ids if i not in found]
    if missing:
        raise missing_ids_error(missing)


async def selected_rows(
    connection: AsyncConnection, selection: Selection, limit: int | None = None
) -> list[tuple[int, str | None]]:
    """(id, email) of the selected contacts, by id; at most `limit` when given."""
    rows: list[tuple[int, str | None]] = []
    for where in selection.statements_where():
        query = select(contacts.c.id, contacts.c.email).where(where).order_by(contacts.c.id)
        if limit is not None:
            query = query.limit(limit - len(rows) + 1)
        rows.extend((int(r[0]), r[1]) for r in await connection.execute(query))
        if limit is not None and len(rows) > limit:
            break
    return rows


async def count_selected(connection: AsyncConnection, selection: Selection) -> int:
    total = 0
    for where in selection.statements_where():
        query = select(func.count()).select_from(contacts).where(where)
        total += int((await connection.execute(query)).scalar_one())
    return total
