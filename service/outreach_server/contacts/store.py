"""Contacts as a key sees them: visibility, lists, selections and reads.

Every statement here is filtered by the organisation the request acts for, and by what
the key may see (`ContactScope`). A key is unrestricted within its target organisation
unless it is narrowed to some lists (`api_key_lists`, provisional): a narrowed key sees
the lists granted to it and the contacts in them (a contact's own list, or a list it was
added to by merge-filtered), everywhere: listings, reads, stats, selections, writes.

`select_matching` is the one way to turn a (list, filterModel, sortModel) selection into
SQL; the billable operations reuse it for "every matching contact".
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from outreach_api.models import ListType
from pydantic import BaseModel
from sqlalchemy import Select, and_, bindparam, exists, false, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from ..core.db import Reader
from ..core.errors import ApiError, ApiValidationError
from ..core.filters import FilterPlan, build_filter, compile_sort, parse_json, plan_filter
from ..core.tables import contacts, lists
from ..keys import api_key_lists
from .columns import (
    CONTACT,
    CONTACT_BASE,
    Catalogue,
    entity_of_list,
    load_catalogue,
    values_of,
)
from .tables import list_memberships

LIST_TYPES = tuple(t.value for t in ListType)
LIST_NOT_FOUND = "List not found"
CONTACT_NOT_FOUND = "Contact not found"
COMPANY_NOT_FOUND = "Company not found"
NOT_A_CONTACT_LIST = "The list holds companies, not contacts"
CHUNK = 500  # ids per IN (...) list: far below SQLite's and asyncpg's bound-parameter limits
IDS_SHOWN = 50  # ids named in an error message
TOP_OWNERS = 50
MAX_ID = 2**31 - 1  # ids are 32-bit on both backends: a larger one names nothing
MAX_OFFSET = 2**62  # past any table; SQLite cannot bind a larger OFFSET
MAX_FILTER_NUMBER = 2**63  # 64-bit bound parameters on both backends

KEY_LISTS = select(api_key_lists.c.list_id).where(api_key_lists.c.api_key_id == bindparam("key_id"))
LIST_BY_ID = select(lists).where(
    lists.c.id == bindparam("list_id"), lists.c.org_id == bindparam("org_id")
)
CONTACT_BY_ID = select(contacts).where(
    contacts.c.id == bindparam("contact_id"), contacts.c.org_id == bindparam("org_id")
)
MEMBER_OF = select(list_memberships.c.list_id).where(
    list_memberships.c.contact_id == bindparam("contact_id")
)
CONTACT_BASE_CATALOGUE = Catalogue(CONTACT, CONTACT_BASE)


def now() -> int:
    return int(time.time())


def storable(identifier: int | None) -> bool:
    """Whether an id can name a row at all (anything else is simply not found)."""
    return identifier is not None and 0 < identifier <= MAX_ID


def _check_numbers(value: Any, loc: list[str | int]) -> None:
    """422 for an integer in a filter or sort model that no bound parameter can carry."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) >= MAX_FILTER_NUMBER:
        raise ApiValidationError(loc, "number out of range")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, [*loc, str(key)])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_numbers(item, [*loc, index])


def chunks(values: Sequence[int], size: int = CHUNK) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def named_ids(ids: Iterable[int]) -> str:
    ordered = sorted(set(ids))
    shown = ", ".join(str(i) for i in ordered[:IDS_SHOWN])
    more = len(ordered) - IDS_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def in_list(list_id: Any) -> ColumnElement[bool]:
    """A contact of the list: its own list, or a list it was added to (`list_id`: the id, or
    a bound parameter standing for it)."""
    members = select(list_memberships.c.contact_id).where(list_memberships.c.list_id == list_id)
    return or_(contacts.c.list_id == list_id, contacts.c.id.in_(members))


@dataclass(frozen=True)
class ContactScope:
    """What a key may see in the organisation it acts for."""

    org_id: int
    list_ids: frozenset[int] | None = None  # None: not narrowed (the whole organisation)

    @classmethod
    async def for_key(cls, reader: Reader, key_id: str, org_id: int) -> ContactScope:
        """What the key `key_id` sees when it acts for `org_id`."""
        rows = await reader.all(KEY_LISTS, key_id=key_id)
        granted = frozenset(int(row["list_id"]) for row in rows)
        return cls(org_id, granted if rows else None)

    def contacts_visible(self, org_id: Any = None) -> ColumnElement[bool]:
        """The contacts the key sees (`org_id`: a bound parameter standing for the
        organisation's id; by default the id itself)."""
        clause = contacts.c.org_id == (self.org_id if org_id is None else org_id)
        if self.list_ids is None:
            return clause
        if not self.list_ids:
            return false()
        granted = sorted(self.list_ids)
        member = exists().where(
            list_memberships.c.contact_id == contacts.c.id,
            list_memberships.c.list_id.in_(granted),
        )
        return and_(clause, or_(contacts.c.list_id.in_(granted), member))

    def lists_visible(self) -> ColumnElement[bool]:
        clause = lists.c.org_id == self.org_id
        if self.list_ids is None:
            return clause
        return and_(clause, lists.c.id.in_(sorted(self.list_ids)))

    def sees_list(self, list_id: int) -> bool:
        return self.list_ids is None or list_id in self.list_ids


# -- lists -----------------------------------------------------------------------------------


def list_record(row: Mapping[Any, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "type": row["type"],
        "created_at": row["created_at"],
    }


async def get_list(reader: Reader, scope: ContactScope, list_id: int) -> dict[str, Any]:
    """A list the key sees, else 404 "List not found" (unknown, foreign or not granted)."""
    row = None
    if storable(list_id):
        row = await reader.one(LIST_BY_ID, list_id=list_id, org_id=scope.org_id)
    if row is None or not scope.sees_list(list_id):
        raise ApiError(404, LIST_NOT_FOUND)
    return row


async def get_contact_list(reader: Reader, scope: ContactScope, list_id: int) -> dict[str, Any]:
    """A list of contacts the key sees: 404 when not visible, 400 for a companies list."""
    row = await get_list(reader, scope, list_id)
    if entity_of_list(row["type"]) != CONTACT:
        raise ApiError(400, NOT_A_CONTACT_LIST)
    return row


async def page_of_lists(
    connection: AsyncConnection, scope: ContactScope, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    where = scope.lists_visible()
    records = []
    if offset <= MAX_OFFSET:
        rows = await connection.execute(
            select(lists).where(where).order_by(lists.c.id).limit(limit).offset(offset)
        )
        records = [list_record(row._mapping) for row in rows]
    total = await connection.scalar(select(func.count()).select_from(lists).where(where))
    return records, int(total or 0)


# -- selections ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matching:
    """A resolved selection of contacts: a WHERE clause over `contacts` and an order."""

    where: ColumnElement[bool]
    order_by: tuple[Any, ...]
    catalogue: Catalogue

    def select(self, *columns: Any) -> Select[Any]:
        """The matching rows (`contacts.c.id` by default), sorted, then by id."""
        chosen = columns or (contacts.c.id,)
        return select(*chosen).where(self.where).order_by(*self.order_by, contacts.c.id)

    def count(self) -> Select[Any]:
        return select(func.count()).select_from(contacts).where(self.where)


def _model(value: Any, loc: Sequence[str | int], expected: type) -> Any:
    if isinstance(value, str):
        return parse_json(value, list(loc), expected)
    if isinstance(value, BaseModel):
        return value.model_dump()
    return value


async def select_matching(
    connection: AsyncConnection,
    scope: ContactScope,
    *,
    list_id: int | None = None,
    filter_model: str | Mapping[str, Any] | BaseModel | None = None,
    sort_model: str | Sequence[Any] | None = None,
    filter_loc: Sequence[str | int] = ("query", "filterModel"),
    sort_loc: Sequence[str | int] = ("query", "sortModel"),
    catalogue: Catalogue | None = None,
) -> Matching:
    """Every contact the key sees in the organisation [of list_id] matching the filter.

    filter_model / sort_model: a JSON string (a query parameter) or the parsed value.
    Raises 404 "List not found" (list unknown, foreign or not granted), 400 for a
    companies list, 422 (ApiValidationError at filter_loc / sort_loc) for a malformed
    model or an unknown column or operator. The catalogue (base, custom and enrichment
    columns) is loaded on `connection` unless given.
    """
    if list_id is not None:
        row = None
        if storable(list_id):
            query = select(lists.c.type).where(
                lists.c.id == list_id, lists.c.org_id == scope.org_id
            )
            row = (await connection.execute(query)).first()
        if row is None or not scope.sees_list(list_id):
            raise ApiError(404, LIST_NOT_FOUND)
        if entity_of_list(row.type) != CONTACT:
            raise ApiError(400, NOT_A_CONTACT_LIST)
    if catalogue is None:
        catalogue = await load_catalogue(connection, scope.org_id, CONTACT, list_id)
    return matching(scope, list_id, catalogue, filter_model, sort_model, filter_loc, sort_loc)


def matching(
    scope: ContactScope,
    list_id: int | None,
    catalogue: Catalogue,
    filter_model: str | Mapping[str, Any] | BaseModel | None,
    sort_model: str | Sequence[Any] | None,
    filter_loc: Sequence[str | int],
    sort_loc: Sequence[str | int],
) -> Matching:
    """The selection of a list the key sees (already checked) and a filter and sort model
    over the catalogue's columns (422 at filter_loc / sort_loc when malformed)."""
    return plan_matching(
        scope, list_id, catalogue, filter_model, sort_model, filter_loc, sort_loc
    ).matching()


@dataclass(frozen=True)
class MatchingPlan:
    """A selection validated (`matching`'s 422s, in its order) but not built: its shape
    (`key`, hashable, with the catalogue it reads: no values of the call), and the values of
    the call. `matching()` builds it with its values; `bound()` with a bound parameter for
    each value, named as in `parameters()` (the organisation, the list, the filter's values),
    so one compiled statement serves every call of the same shape."""

    scope: ContactScope
    list_id: int | None
    catalogue: Catalogue
    filter: FilterPlan
    sort: tuple[tuple[str, str], ...]

    @property
    def bindable(self) -> bool:
        return self.filter.bindable

    @property
    def key(self) -> tuple[Any, ...]:
        narrowed = None if self.scope.list_ids is None else tuple(sorted(self.scope.list_ids))
        return (narrowed, self.list_id is None, self.filter.shape, self.sort)

    def parameters(self) -> dict[str, Any]:
        found = {f"filter_{i}": value for i, value in enumerate(self.filter.values)}
        found["org_id"] = self.scope.org_id
        if self.list_id is not None:
            found["list_id"] = self.list_id
        return found

    def matching(self) -> Matching:
        return self._built(None)

    def bound(self) -> Matching:
        return self._built(
            lambda left, operator, value, index: bindparam(
                f"filter_{index}",
                type_=left.type.coerce_compared_value(operator, value),  # as for a literal
                required=True,
            )
        )

    def _built(self, slot: Any) -> Matching:
        columns = self.catalogue.filter_columns()
        org_id = list_id = None
        if slot is not None:
            org_id = bindparam("org_id", type_=contacts.c.org_id.type, required=True)
            list_id = bindparam("list_id", type_=contacts.c.list_id.type, required=True)
        clauses = [self.scope.contacts_visible(org_id)]
        if self.list_id is not None:
            clauses.append(in_list(self.list_id if list_id is None else list_id))
        where = (
            build_filter(self.filter, columns)
            if slot is None
            else build_filter(self.filter, columns, slot)
        )
        clauses.append(where)
        order = tuple(
            columns[column_id].expression.asc()
            if direction == "asc"
            else columns[column_id].expression.desc()
            for column_id, direction in self.sort
        )
        return Matching(and_(*clauses), order, self.catalogue)


def plan_matching(
    scope: ContactScope,
    list_id: int | None,
    catalogue: Catalogue,
    filter_model: str | Mapping[str, Any] | BaseModel | None,
    sort_model: str | Sequence[Any] | None,
    filter_loc: Sequence[str | int],
    sort_loc: Sequence[str | int],
) -> MatchingPlan:
    """`matching`'s selection, validated in plain Python and not yet built."""
    columns = catalogue.filter_columns()
    model = _model(filter_model, filter_loc, dict)
    _check_numbers(model, list(filter_loc))
    plan = plan_filter(model, columns, list(filter_loc))
    sort = _model(sort_model, sort_loc, list)
    compile_sort(sort, columns, list(sort_loc))  # its 422s; the sort's shape below
    order = tuple((entry["colId"], entry.get("sort", "asc")) for entry in sort or ())
    return MatchingPlan(scope, list_id, catalogue, plan, order)


async def not_writable(
    connection: AsyncConnection, scope: ContactScope, ids: Iterable[int]
) -> list[int]:
    """The ids among `ids` that are not contacts the key may write (unknown, foreign, narrowed)."""
    wanted = sorted(set(ids))
    found: set[int] = set()
    for chunk in chunks([i for i in wanted if storable(i)]):
        rows = await connection.execute(
            select(contacts.c.id).where(scope.contacts_visible(), contacts.c.id.in_(chunk))
        )
        found.update(row.id for row in rows)
    return [i for i in wanted if i not in found]


async def require_writable(
    connection: AsyncConnection, scope: ContactScope, ids: Iterable[int]
) -> None:
    """403 naming the ids unless every contact is one the key may write; nothing is written."""
    refused = await not_writable(connection, scope, ids)
    if refused:
        raise ApiError(403, f"Contacts not writable by this API key: {named_ids(refused)}")


# -- records ---------------------------------------------------------------------------------


def contact_record(row: Any) -> dict[str, Any]:
    """A contact as the API shows it: base columns (withheld ones null until unlocked) and
    the custom and enrichment values in `fields`, keyed by column_id."""
    mapping = row._mapping if hasattr(row, "_mapping") else row
    record = values_of(mapping, CONTACT_BASE_CATALOGUE)
    record["fields"] = dict(mapping.get("fields") or {})
    return record


async def get_contact(reader: Reader, scope: ContactScope, contact_id: int) -> Any:
    row = None
    if storable(contact_id):
        row = await reader.one(CONTACT_BY_ID, contact_id=contact_id, org_id=scope.org_id)
    if row is None:
        raise ApiError(404, CONTACT_NOT_FOUND)
    if scope.list_ids is not None and row["list_id"] not in scope.list_ids:
        member_of = {r["list_id"] for r in await reader.all(MEMBER_OF, contact_id=contact_id)}
        if not member_of & scope.list_ids:
            raise ApiError(404, CONTACT_NOT_FOUND)
    return row


async def page_of_contacts(
    connection: AsyncConnection, scope: ContactScope, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    where = scope.contacts_visible()
    records = []
    if offset <= MAX_OFFSET:
        rows = await connection.execute(
            select(contacts).where(where).order_by(contacts.c.id).limit(limit).offset(offset)
        )
        records = [contact_record(row) for row in rows]
    total = await connection.scalar(select(func.count()).select_from(contacts).where(where))
    return records, int(total or 0)
