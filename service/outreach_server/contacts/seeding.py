"""Lists, and the operator's seeding helpers: contacts and companies with withheld fields,
custom columns, allow-listed profile photos, sequence enrolments, keys narrowed to lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    insert,
    select,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.errors import ApiError
from ..core.tables import api_keys, contacts, lists
from ..keys import api_key_lists
from .columns import (
    COMPANY,
    CONTACT,
    custom_column_id,
    entity_of_list,
    normalise_linkedin_url,
)
from .store import (
    LIST_NOT_FOUND,
    LIST_TYPES,
    NOT_A_CONTACT_LIST,
    list_record,
    now,
)
from .tables import (
    CUSTOM_COLUMN_TYPES,
    ENTITY_TYPES,
    companies,
    custom_columns,
    profile_photos,
    sequence_enrollments,
)
from .writes import dialect_insert


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
        statement = dialect_insert(connection, profile_photos).values(
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
            statement = dialect_insert(connection, api_key_lists).values(
                api_key_id=key_id, list_id=list_id
            )
            await connection.execute(statement.on_conflict_do_nothing())
        rows = await connection.execute(
            select(api_key_lists.c.list_id)
            .where(api_key_lists.c.api_key_id == key_id)
            .order_by(api_key_lists.c.list_id)
        )
        return [int(row.list_id) for row in rows]
