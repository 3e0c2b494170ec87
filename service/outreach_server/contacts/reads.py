"""Reads of contacts beyond single records: the filtered fetch (one page of a filtered,
sorted selection), distinct column values, profile pictures and the dashboard statistics.

Every statement is filtered by the organisation and by what the key sees (ContactScope).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import case, func, select
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
    values_of,
)
from .store import (
    CHUNK,
    COMPANY_NOT_FOUND,
    CONTACT_NOT_FOUND,
    MAX_OFFSET,
    TOP_OWNERS,
    ContactScope,
    get_list,
    in_list,
    now,
    read_matching,
    storable,
)
from .tables import companies, profile_photos


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
    unchanged), then the page and the count in one hand-over, each statement compiled once
    per shape of the filter and sort (Reader.scan_many)."""
    matching = await read_matching(
        reader,
        scope,
        list_id=list_id,
        filter_model=filter_model,
        sort_model=sort_model,
        filter_loc=("body", "filter_model"),
        sort_loc=("body", "sort_model"),
    )
    catalogue = matching.catalogue
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
    count = matching.count()
    if offset <= MAX_OFFSET:
        page = matching.select(*needed.values()).limit(limit).offset(offset)
        rows, counted = await reader.scan_many(page, count)
    else:
        rows, (counted,) = [], await reader.scan_many(count)
    total = int(next(iter(counted[0].values())) or 0) if counted else 0
    selected = Catalogue(CONTACT, tuple(chosen))
    return [{"id": row["id"], **values_of(row, selected)} for row in rows], total


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
