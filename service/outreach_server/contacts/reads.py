"""Reads of contacts beyond single records: the filtered fetch (one page of a filtered,
sorted selection), distinct column values, profile pictures and the dashboard statistics.

Every statement is filtered by the organisation and by what the key sees (ContactScope).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Integer, bindparam, case, func, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from ..core.db import Reader
from ..core.errors import ApiError, ApiValidationError
from ..core.tables import contacts
from .columns import (
    COMPANY,
    CONTACT,
    Catalogue,
    entity_of_list,
    load_catalogue,
    normalise_linkedin_url,
    read_catalogue,
    values_of,
)
from .store import (
    CHUNK,
    COMPANY_NOT_FOUND,
    CONTACT_NOT_FOUND,
    MAX_OFFSET,
    TOP_OWNERS,
    ContactScope,
    Matching,
    get_contact_list,
    get_list,
    in_list,
    now,
    plan_matching,
    storable,
)
from .tables import companies, profile_photos

# the page's bounds as bound parameters of the statements compiled once per shape
PAGE_LIMIT = bindparam("limit", type_=Integer, required=True)
PAGE_OFFSET = bindparam("offset", type_=Integer, required=True)


async def fetch(
    reader: Reader,
    scope: ContactScope,
    *,
    columns: Sequence[str],
    list_id: int | None,
    filter_model: Any,
    sort_model: Any,
    offset: int,
    limit: int,
) -> tuple[list[dict[str, Any]], int]:
    """A page of matching contacts with only `columns` (and id), and the total.

    A read on the Reader: the list and the column catalogue (kept while its rows are
    unchanged), then the page, and the count only when the page does not give the total (a
    full page, or an empty one past the first: `total_of_page`). The filter and sort are
    validated and keyed by their shape in plain Python (`plan_matching`): the statements of a
    shape are built and compiled once (its values, the organisation's and the list's id as
    named bound parameters) and every later call binds its values (Reader.scan_planned). A
    set filter (an IN list) is built per call and compiled once per shape (Reader.scan_many).
    """
    if list_id is not None:
        await get_contact_list(reader, scope, list_id)
    catalogue = await read_catalogue(reader, scope.org_id, CONTACT, list_id)
    plan = plan_matching(
        scope,
        list_id,
        catalogue,
        filter_model,
        sort_model,
        ("body", "filter_model"),
        ("body", "sort_model"),
    )
    chosen = []
    for index, column_id in enumerate(columns):
        column = catalogue.get(column_id)
        if column is None:
            raise ApiValidationError(["body", "columns", index], f"unknown column {column_id!r}")
        chosen.append(column)
    needed: dict[str, Any] = {"id": contacts.c.id}
    for column in chosen:
        if column.db_column is not None:
            needed[column.db_column] = contacts.c[column.db_column]
            if column.withheld:
                needed["unlocked_at"] = contacts.c.unlocked_at
        else:
            needed["fields"] = contacts.c.fields
    paged = offset <= MAX_OFFSET
    key = ("fetch", plan.key, tuple(needed)) if plan.bindable else None

    async def read(kind: str, make: Callable[[Matching, Any, Any], Any]) -> list[dict[str, Any]]:
        """The rows of the page or the count, compiled once per shape when the plan binds."""
        if key is None:
            (found,) = await reader.scan_many(make(plan.matching(), limit, offset))
            return found
        (found,) = await reader.scan_planned(
            (*key, kind),
            catalogue,
            lambda: (make(plan.bound(), PAGE_LIMIT, PAGE_OFFSET),),
            {**plan.parameters(), "limit": limit, "offset": offset},
        )
        return found

    rows: list[dict[str, Any]] = []
    total = None
    if paged:
        rows = await read(
            "page",
            lambda matching, size, start: (
                matching.select(*needed.values()).limit(size).offset(start)
            ),
        )
        total = total_of_page(rows, offset, limit)
    if total is None:
        counted = await read("count", lambda matching, _size, _start: matching.count())
        total = int(next(iter(counted[0].values())) or 0) if counted else 0
    selected = Catalogue(CONTACT, tuple(chosen))
    return [{"id": row["id"], **values_of(row, selected)} for row in rows], total


def total_of_page(rows: Sequence[Any], offset: int, limit: int) -> int | None:
    """How many rows the selection has, when its page says it: a page neither full nor empty
    is its end, and an empty first page an empty selection; None when only a count says."""
    if limit <= 0 or len(rows) >= limit:
        return None
    if rows:
        return offset + len(rows)
    return 0 if offset == 0 else None


async def column_values(
    connection: AsyncConnection, reader: Reader, scope: ContactScope, list_id: int, record_id: int
) -> dict[str, Any]:
    """Every column value of one row of the list: a company of a companies list, else a contact."""
    listed = await get_list(reader, scope, list_id)
    entity = entity_of_list(listed["type"])
    catalogue = await load_catalogue(connection, scope.org_id, entity, list_id)
    if entity == COMPANY:
        query = select(companies).where(
            companies.c.id == record_id,
            companies.c.org_id == scope.org_id,
            companies.c.list_id == list_id,
        )
        missing = COMPANY_NOT_FOUND
    else:
        query = select(contacts).where(
            contacts.c.id == record_id, scope.contacts_visible(), in_list(list_id)
        )
        missing = CONTACT_NOT_FOUND
    row = (await connection.execute(query)).first() if storable(record_id) else None
    if row is None:
        raise ApiError(404, missing)
    return values_of(row, catalogue)


async def profile_pictures(connection: AsyncConnection, urls: Sequence[str]) -> dict[str, str]:
    """Allow-listed photos by the caller's URL strings; URLs without one are left out."""
    by_key: dict[str, list[str]] = {}
    for url in urls:
        key = normalise_linkedin_url(url)
        if key is not None:
            by_key.setdefault(key, []).append(url)
    photos: dict[str, str] = {}
    keys = sorted(by_key)
    for chunk in (keys[i : i + CHUNK] for i in range(0, len(keys), CHUNK)):
        rows = await connection.execute(
            select(profile_photos.c.linkedin_url, profile_photos.c.photo_url).where(
                profile_photos.c.linkedin_url.in_(chunk)
            )
        )
        for row in rows:
            for url in by_key[row.linkedin_url]:
                photos[url] = row.photo_url
    return photos


async def dashboard_stats(connection: AsyncConnection, scope: ContactScope) -> dict[str, Any]:
    """Counts and distributions over the contacts the key sees in the organisation."""
    visible = scope.contacts_visible()
    current = now()
    week, month = current - 7 * 86_400, current - 30 * 86_400

    def count_if(condition: ColumnElement[bool]) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    totals = (
        await connection.execute(
            select(
                func.count().label("total"),
                count_if(contacts.c.owner_id.is_not(None)).label("assigned"),
                count_if(contacts.c.unlocked_at.is_not(None)).label("unlocked"),
                count_if(contacts.c.email.is_not(None)).label("with_email"),
                count_if(contacts.c.created_at >= week).label("created_last_7_days"),
                count_if(contacts.c.created_at >= month).label("created_last_30_days"),
            ).where(visible)
        )
    ).one()
    stats: dict[str, Any] = {key: int(value) for key, value in totals._mapping.items()}
    stats["unassigned"] = stats["total"] - stats["assigned"]

    status = func.coalesce(contacts.c.email_status, "unverified")
    rows = await connection.execute(
        select(status.label("status"), func.count().label("n"))
        .where(visible)
        .group_by(status)
        .order_by(status)
    )
    stats["by_email_status"] = {row.status: int(row.n) for row in rows}
    rows = await connection.execute(
        select(contacts.c.list_id, func.count().label("n"))
        .where(visible)
        .group_by(contacts.c.list_id)
        .order_by(contacts.c.list_id)
    )
    stats["by_list"] = [{"list_id": row.list_id, "contacts": int(row.n)} for row in rows]
    n = func.count().label("n")
    rows = await connection.execute(
        select(contacts.c.owner_id, n)
        .where(visible, contacts.c.owner_id.is_not(None))
        .group_by(contacts.c.owner_id)
        .order_by(n.desc(), contacts.c.owner_id)
        .limit(TOP_OWNERS)
    )
    stats["by_owner"] = [{"owner_id": row.owner_id, "contacts": int(row.n)} for row in rows]
    stats["narrowed"] = scope.list_ids is not None
    return stats
