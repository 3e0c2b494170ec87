"""Writes to contacts, lists and their neighbours: create, bulk update, owners, list
membership (merge-filtered), sequence withdrawal, and the operator's seeding helpers.

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
    BigInteger,
    Integer,
    and_,
    cast,
    exists,
    func,
    insert,
    literal,
    not_,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .contact_columns import (
    COMPANY,
    CONTACT,
    Catalogue,
    check_value,
    custom_column_id,
    entity_of_list,
    load_catalogue,
    normalise_linkedin_url,
)
from .contact_store import (
    COMPANY_NOT_FOUND,
    IDS_SHOWN,
    LIST_NOT_FOUND,
    LIST_TYPES,
    NOT_A_CONTACT_LIST,
    ContactScope,
    chunks,
    contact_record,
    get_contact_list,
    in_list,
    list_record,
    named_ids,
    now,
    require_writable,
    select_matching,
    storable,
)
from .contacts_tables import (
    CUSTOM_COLUMN_TYPES,
    ENTITY_TYPES,
    api_key_lists,
    companies,
    custom_columns,
    list_memberships,
    profile_photos,
    sequence_enrollments,
)
from .db import Reader, api_keys, contacts, lists
from .errors import ApiError, ApiValidationError

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


def _insert(connection: AsyncConnection, table: Any) -> Any:
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


# -- list membership -------------------------------------------------------------------------


def blocked() -> Any:
    """A contact with an active suppression on channel all (the ledger's table)."""
    from .ledger_tables import suppressions

    return exists().where(
        suppressions.c.org_id == contacts.c.org_id,
        suppressions.c.contact_id == contacts.c.id,
        suppressions.c.channel == "all",
        suppressions.c.active == true(),
    )


def email_taken_in(list_id: int) -> Any:
    """Another contact of the list already holds this contact's email address."""
    other = contacts.alias("holder")
    members = select(list_memberships.c.contact_id).where(list_memberships.c.list_id == list_id)
    return and_(
        contacts.c.email.is_not(None),
        exists().where(
            other.c.org_id == contacts.c.org_id,
            or_(other.c.list_id == list_id, other.c.id.in_(members)),
            other.c.id != contacts.c.id,
            func.lower(other.c.email) == func.lower(contacts.c.email),
        ),
    )


async def merge_filtered(
    engine: AsyncEngine,
    reader: Reader,
    scope: ContactScope,
    *,
    target_list_id: int,
    filter_model: Any,
    sort_model: str | None,
    filter_loc: Sequence[str | int],
    source_list_id: int | None,
    conflict_resolution: str | None,
) -> dict[str, Any]:
    """Add every matching contact to the target list (a membership; nothing is merged).

    Already in the list: left alone. Blocked (active suppression on channel all): never
    added. Needing a decision (its email address is held by another contact of the target
    list): 409 naming them until conflict_resolution is skip (leave them out) or add.
    """
    await get_contact_list(reader, scope, target_list_id)
    async with engine.begin() as connection:
        matching = await select_matching(
            connection,
            scope,
            list_id=source_list_id,
            filter_model=filter_model,
            sort_model=sort_model,
            filter_loc=filter_loc,
        )
        member = in_list(target_list_id)
        candidates = and_(matching.where, not_(member), not_(blocked()))
        conflict = email_taken_in(target_list_id)

        async def count(condition: Any) -> int:
            query = select(func.count()).select_from(contacts).where(condition)
            return int(await connection.scalar(query) or 0)

        conflicts = await count(and_(candidates, conflict))
        if conflicts and conflict_resolution is None:
            rows = await connection.execute(
                select(contacts.c.id)
                .where(candidates, conflict)
                .order_by(contacts.c.id)
                .limit(IDS_SHOWN)
            )
            ids = named_ids(row.id for row in rows)
            more = f" (the first {IDS_SHOWN})" if conflicts > IDS_SHOWN else ""
            raise ApiError(
                409,
                f"{conflicts} contacts need a decision: another contact of the target list "
                f"already has their email address. Contact ids{more}: {ids}. Resend with "
                "conflict_resolution skip (leave them out) or add (add them as well).",
            )
        chosen = candidates if conflict_resolution != "skip" else and_(candidates, not_(conflict))
        already = await count(and_(matching.where, member))
        blocked_count = await count(and_(matching.where, not_(member), blocked()))
        chosen_rows = select(
            literal(target_list_id, Integer),
            contacts.c.id,
            literal(scope.org_id, Integer),
            literal(now(), BigInteger),
        ).where(chosen)
        statement = (
            _insert(connection, list_memberships)
            .from_select(["list_id", "contact_id", "org_id", "added_at"], chosen_rows)
            .on_conflict_do_nothing()
        )
        added = int((await connection.execute(statement)).rowcount or 0)
    return {
        "added": added,
        "already_in_list": already,
        "blocked": blocked_count,
        "conflicts": conflicts,
        "conflicts_skipped": conflicts if conflict_resolution == "skip" else 0,
        "target_list_id": target_list_id,
    }


# -- sequences -------------------------------------------------------------------------------


async def withdraw(
    engine: AsyncEngine,
    scope: ContactScope,
    *,
    contact_ids: Sequence[int],
    sequence_id: int | None,
    remove_all: bool,
) -> dict[str, Any]:
    """Withdraw the contacts from one sequence, or (remove_all) from every sequence."""
    if not remove_all and sequence_id is None:
        raise ApiError(400, "sequence_id is required unless remove_all is true")
    ids = sorted(set(contact_ids))
    contacts_withdrawn: set[int] = set()
    enrollments = 0
    async with engine.begin() as connection:
        await require_writable(connection, scope, ids)
        stamp = now()
        for chunk in chunks(ids):
            conditions = [
                sequence_enrollments.c.org_id == scope.org_id,
                sequence_enrollments.c.contact_id.in_(chunk),
                sequence_enrollments.c.withdrawn_at.is_(None),
            ]
            if not remove_all:
                if not storable(sequence_id):
                    break  # no such sequence: nothing to withdraw
                conditions.append(sequence_enrollments.c.sequence_id == sequence_id)
            rows = await connection.execute(
                select(sequence_enrollments.c.contact_id).distinct().where(*conditions)
            )
            contacts_withdrawn.update(row.contact_id for row in rows)
            result = await connection.execute(
                update(sequence_enrollments).where(*conditions).values(withdrawn_at=stamp)
            )
            enrollments += int(result.rowcount or 0)
    return {
        "withdrawn": len(contacts_withdrawn),
        "enrollments_withdrawn": enrollments,
        "sequence_id": None if remove_all else sequence_id,
        "remove_all": remove_all,
    }


# -- lists -----------------------------------------------------------------------------------


async def create_list(
    engine: AsyncEngine, org_id: int, name: str, list_type: str, *, grant_key_id: str | None = None
) -> dict[str, Any]:
    """A new list; 400 "Invalid list type" for a type not in LIST_TYPES. A narrowed key that
    creates a list is granted it (grant_key_id), so it sees what it made."""
    if list_type not in LIST_TYPES:
        raise ApiError(400, "Invalid list type")
    name = name.strip()
    if not name:
        raise ApiError(400, "name must not be empty")
    if len(name) > 200:
        raise ApiError(400, "name is longer than 200 characters")
    async with engine.begin() as connection:
        row = (
            await connection.execute(
                insert(lists)
                .values(org_id=org_id, name=name, type=list_type, created_at=now())
                .returning(*lists.c)
            )
        ).one()
        if grant_key_id is not None:
            await connection.execute(
                insert(api_key_lists).values(api_key_id=grant_key_id, list_id=row.id)
            )
    return list_record(row._mapping)


# -- operator helpers (admin commands, demo) -------------------------------------------------


async def _list_of(connection: AsyncConnection, org_id: int, list_id: int) -> Any:
    row = (
        await connection.execute(
            select(lists.c.id, lists.c.type).where(lists.c.id == list_id, lists.c.org_id == org_id)
        )
    ).first()
    if row is None:
        raise ApiError(404, LIST_NOT_FOUND)
    return row


async def seed_contact(
    engine: AsyncEngine, org_id: int, list_id: int, values: Mapping[str, Any]
) -> int:
    """A contact as the platform holds it (withheld fields included, still locked)."""
    async with engine.begin() as connection:
        row = await _list_of(connection, org_id, list_id)
        if entity_of_list(row.type) != CONTACT:
            raise ApiError(400, NOT_A_CONTACT_LIST)
        stamp = now()
        return int(
            (
                await connection.execute(
                    insert(contacts)
                    .values(
                        org_id=org_id,
                        list_id=list_id,
                        fields=dict(values.get("fields") or {}),
                        created_at=stamp,
                        updated_at=stamp,
                        **{k: v for k, v in values.items() if k != "fields"},
                    )
                    .returning(contacts.c.id)
                )
            ).scalar_one()
        )


async def seed_company(
    engine: AsyncEngine, org_id: int, list_id: int, name: str, domain: str | None
) -> int:
    async with engine.begin() as connection:
        row = await _list_of(connection, org_id, list_id)
        if entity_of_list(row.type) != COMPANY:
            raise ApiError(400, "The list holds contacts, not companies")
        stamp = now()
        return int(
            (
                await connection.execute(
                    insert(companies)
                    .values(
                        org_id=org_id,
                        list_id=list_id,
                        name=name,
                        domain=domain,
                        fields={},
                        created_at=stamp,
                        updated_at=stamp,
                    )
                    .returning(companies.c.id)
                )
            ).scalar_one()
        )


async def create_custom_column(
    engine: AsyncEngine, org_id: int, entity: str, name: str, column_type: str
) -> dict[str, Any]:
    if entity not in ENTITY_TYPES:
        raise ApiError(400, f"Invalid entity_type '{entity}': use contact or company")
    if column_type not in CUSTOM_COLUMN_TYPES:
        raise ApiError(400, f"Invalid column type '{column_type}': use text or number")
    async with engine.begin() as connection:
        taken = await connection.scalar(
            select(custom_columns.c.id).where(
                custom_columns.c.org_id == org_id,
                custom_columns.c.entity_type == entity,
                custom_columns.c.name == name,
            )
        )
        if taken is not None:
            raise ApiError(409, f"A {entity} custom column named '{name}' exists")
        row_id = (
            await connection.execute(
                insert(custom_columns)
                .values(
                    org_id=org_id,
                    entity_type=entity,
                    name=name,
                    type=column_type,
                    created_at=now(),
                )
                .returning(custom_columns.c.id)
            )
        ).scalar_one()
    return {"id": int(row_id), "column_id": custom_column_id(int(row_id))}


async def allow_photo(engine: AsyncEngine, linkedin_url: str, photo_url: str) -> str:
    """Allow-list (or replace) the photo of a LinkedIn URL; returns the normalised key."""
    key = normalise_linkedin_url(linkedin_url)
    if key is None:
        raise ApiError(400, "Not a usable LinkedIn URL")
    async with engine.begin() as connection:
        statement = _insert(connection, profile_photos).values(
            linkedin_url=key, photo_url=photo_url, created_at=now()
        )
        await connection.execute(
            statement.on_conflict_do_update(
                index_elements=[profile_photos.c.linkedin_url],
                set_={"photo_url": photo_url},
            )
        )
    return key


async def enroll(engine: AsyncEngine, org_id: int, sequence_id: int, contact_id: int) -> int:
    """Enrol a contact in a sequence (its active enrolment if it has one); returns its id."""
    async with engine.begin() as connection:
        owner = await connection.scalar(
            select(contacts.c.id).where(contacts.c.id == contact_id, contacts.c.org_id == org_id)
        )
        if owner is None:
            raise ApiError(404, "Contact not found")
        active = sequence_enrollments.c
        existing = await connection.scalar(
            select(active.id).where(
                active.org_id == org_id,
                active.contact_id == contact_id,
                active.sequence_id == sequence_id,
                active.withdrawn_at.is_(None),
            )
        )
        if existing is not None:
            return int(existing)
        return int(
            (
                await connection.execute(
                    insert(sequence_enrollments)
                    .values(
                        org_id=org_id,
                        sequence_id=sequence_id,
                        contact_id=contact_id,
                        enrolled_at=now(),
                    )
                    .returning(sequence_enrollments.c.id)
                )
            ).scalar_one()
        )


async def restrict_key(engine: AsyncEngine, key_id: str, list_ids: Sequence[int]) -> list[int]:
    """Narrow a key to lists of its own organisation (provisional); returns all its lists."""
    async with engine.begin() as connection:
        org_id = await connection.scalar(select(api_keys.c.org_id).where(api_keys.c.id == key_id))
        if org_id is None:
            raise ApiError(404, "API key not found")
        for list_id in list_ids:
            await _list_of(connection, int(org_id), list_id)
        for list_id in sorted(set(list_ids)):
            statement = _insert(connection, api_key_lists).values(
                api_key_id=key_id, list_id=list_id
            )
            await connection.execute(statement.on_conflict_do_nothing())
        rows = await connection.execute(
            select(api_key_lists.c.list_id)
            .where(api_key_lists.c.api_key_id == key_id)
            .order_by(api_key_lists.c.list_id)
        )
        return [int(row.list_id) for row in rows]
