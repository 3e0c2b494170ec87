"""Writes to contacts, lists and their neighbours: create, bulk update, owners, list
and owners (list membership: membership.py; the operator's seeding helpers: seeding.py).

Each write is filtered by the organisation and by what the key sees (ContactScope). An
explicit set of contact ids is authorised as a whole before anything is written: one id
the key may not write (unknown, foreign, or outside a narrowed key's lists) refuses the
batch with 403 naming the ids. Custom values are merged into the `fields` JSON in SQL
(json_patch on SQLite, jsonb || on PostgreSQL), never read-modify-written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    cast,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.db import Reader
from ..core.errors import ApiError, ApiValidationError
from ..core.tables import contacts, lists
from .columns import (
    CONTACT,
    Catalogue,
    check_value,
    entity_of_list,
    load_catalogue,
)
from .store import (
    COMPANY_NOT_FOUND,
    LIST_NOT_FOUND,
    ContactScope,
    chunks,
    contact_record,
    get_contact_list,
    now,
    require_writable,
    select_matching,
    storable,
)
from .tables import (
    companies,
)

LIST_ID_REQUIRED = "list_id is required when creating contacts"
NO_FIELDS = "No fields to update"
MAX_OWNER_ID = 100


def _json_merge(connection: AsyncConnection, table: Any, patch: Mapping[str, Any]) -> Any:
    """`fields` with `patch` merged in, computed by the database (no read-modify-write)."""
    payload = json.dumps(dict(patch))
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        merged = cast(table.c.fields, JSONB).op("||")(cast(literal(payload), JSONB))
        return cast(merged, JSON)
    return func.json_patch(table.c.fields, payload)


def dialect_insert(connection: AsyncConnection, table: Any) -> Any:
    """INSERT with ON CONFLICT DO NOTHING available, for either backend."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


# -- field validation ------------------------------------------------------------------------


@dataclass
class Changes:
    """The validated fields of one contact write: base columns, custom values, errors."""

    base: dict[str, Any] = field(default_factory=dict)
    custom: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def validate_fields(catalogue: Catalogue, values: Mapping[str, Any]) -> Changes:
    """Sort the fields of one write into base columns and custom values, or errors.

    Custom values may be given flat (`{"cc_3": "x"}`) or, as records show them, under
    `fields` (`{"fields": {"cc_3": "x"}}`)."""
    changes = Changes()
    flat = dict(values)
    nested = flat.pop("fields", None)
    if isinstance(nested, Mapping):
        for name, value in nested.items():
            column = catalogue.get(name)
            if column is not None and column.db_column is not None:
                changes.errors.append(f"Field '{name}' is not a custom column")
            else:
                flat[name] = value
    elif nested is not None:
        changes.errors.append("fields takes an object of custom values")
    for name, value in flat.items():
        column = catalogue.get(name)
        if column is None:
            changes.errors.append(f"Unknown field '{name[:100]}'")
            continue
        if not column.writable:
            changes.errors.append(f"Field '{name}' is read-only")
            continue
        problem = check_value(column, value)
        if problem is not None:
            changes.errors.append(problem)
        elif column.db_column is not None:
            changes.base[column.db_column] = value
        else:
            changes.custom[column.column_id] = value
    return changes


async def _references(
    connection: AsyncConnection, scope: ContactScope, all_changes: Sequence[Changes]
) -> None:
    """Per-write errors for list_id / company_id values that name nothing the key may use."""
    list_ids = {c.base["list_id"] for c in all_changes if "list_id" in c.base}
    company_ids = {c.base["company_id"] for c in all_changes if c.base.get("company_id")}
    usable_lists: set[int] = set()
    for chunk in chunks(sorted(i for i in list_ids if storable(i))):
        rows = await connection.execute(
            select(lists.c.id, lists.c.type).where(scope.lists_visible(), lists.c.id.in_(chunk))
        )
        usable_lists.update(r.id for r in rows if entity_of_list(r.type) == CONTACT)
    known_companies: set[int] = set()
    for chunk in chunks(sorted(i for i in company_ids if storable(i))):
        rows = await connection.execute(
            select(companies.c.id).where(
                companies.c.org_id == scope.org_id, companies.c.id.in_(chunk)
            )
        )
        known_companies.update(r.id for r in rows)
    for changes in all_changes:
        if "list_id" in changes.base and changes.base["list_id"] not in usable_lists:
            changes.errors.append(f"list_id: {LIST_NOT_FOUND}")
        company_id = changes.base.get("company_id")
        if company_id is not None and company_id not in known_companies:
            changes.errors.append(f"company_id: {COMPANY_NOT_FOUND}")


# -- create ----------------------------------------------------------------------------------


async def create_contact(
    engine: AsyncEngine, reader: Reader, scope: ContactScope, body: Mapping[str, Any]
) -> dict[str, Any]:
    """A new contact in a list of contacts the key sees; 400/404 with the document's messages."""
    list_id = body.get("list_id")
    if list_id is None:
        raise ApiError(400, LIST_ID_REQUIRED)
    await get_contact_list(reader, scope, list_id)
    values = {k: v for k, v in body.items() if k != "list_id"}
    async with engine.begin() as connection:
        catalogue = await load_catalogue(connection, scope.org_id, CONTACT, list_id)
        changes = validate_fields(catalogue, values)
        await _references(connection, scope, [changes])
        if changes.errors:
            raise ApiError(400, "; ".join(changes.errors))
        stamp = now()
        row = (
            await connection.execute(
                insert(contacts)
                .values(
                    org_id=scope.org_id,
                    list_id=list_id,
                    fields=changes.custom,
                    created_at=stamp,
                    updated_at=stamp,
                    **changes.base,
                )
                .returning(*contacts.c)
            )
        ).one()
    return contact_record(row)


# -- bulk update -----------------------------------------------------------------------------


async def bulk_update(
    engine: AsyncEngine, scope: ContactScope, items: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Authorise every id first (403, nothing written), then update each contact on its own
    merits: a contact with an unknown field or a wrongly typed value fails alone."""
    seen: dict[int, int] = {}
    for index, item in enumerate(items):
        contact_id = int(item["id"])
        if contact_id in seen:
            raise ApiValidationError(
                ["body", index, "id"], f"duplicate id {contact_id} (also item {seen[contact_id]})"
            )
        seen[contact_id] = index
    async with engine.connect() as connection:
        await require_writable(connection, scope, seen)
        catalogue = await load_catalogue(connection, scope.org_id, CONTACT)
        planned = []
        for item in items:
            values = {k: v for k, v in item.items() if k != "id"}
            changes = validate_fields(catalogue, values)
            if not (changes.base or changes.custom or changes.errors):
                changes.errors.append(NO_FIELDS)
            planned.append((int(item["id"]), changes))
        await _references(connection, scope, [c for _, c in planned])
    errors: list[dict[str, Any]] = []
    updated = 0
    async with engine.begin() as connection:
        stamp = now()
        for contact_id, changes in planned:
            if changes.errors:
                errors.append({"id": contact_id, "detail": "; ".join(changes.errors)})
                continue
            assignments: dict[str, Any] = {**changes.base, "updated_at": stamp}
            if changes.custom:
                assignments["fields"] = _json_merge(connection, contacts, changes.custom)
            result = await connection.execute(
                update(contacts)
                .where(contacts.c.id == contact_id, scope.contacts_visible())
                .values(**assignments)
            )
            if result.rowcount:
                updated += 1
            else:  # vanished since it was authorised
                errors.append({"id": contact_id, "detail": "Contact not found"})
    return {"updated": updated, "failed": len(errors), "errors": errors}


# -- owners ----------------------------------------------------------------------------------


async def assign_owner(
    engine: AsyncEngine,
    scope: ContactScope,
    *,
    owner_id: str | None,
    contact_ids: Sequence[int] | None,
    filter_model: Any,
    list_id: int | None,
) -> int:
    """Set (or, with None, clear) the owner of every selected contact; returns how many."""
    if not contact_ids and filter_model is None:
        raise ApiError(400, "A selection is required: contact_ids or filter_model")
    if owner_id is not None and not owner_id.strip():
        raise ApiError(400, "owner_id must not be empty (null unassigns)")
    if owner_id is not None and len(owner_id) > MAX_OWNER_ID:
        raise ApiError(400, f"owner_id is longer than {MAX_OWNER_ID} characters")
    async with engine.begin() as connection:
        matching = await select_matching(
            connection,
            scope,
            list_id=list_id,
            filter_model=filter_model,
            filter_loc=("body", "filter_model"),
        )
        values = {"owner_id": owner_id, "updated_at": now()}
        if not contact_ids:
            result = await connection.execute(
                update(contacts).where(matching.where).values(**values)
            )
            return int(result.rowcount or 0)
        ids = sorted(set(contact_ids))
        await require_writable(connection, scope, ids)
        total = 0
        for chunk in chunks(ids):
            result = await connection.execute(
                update(contacts).where(matching.where, contacts.c.id.in_(chunk)).values(**values)
            )
            total += int(result.rowcount or 0)
        return total
