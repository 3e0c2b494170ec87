"""List membership and sequences: merge-filtered (add a filtered selection to a list, never a
suppressed contact or a second holder of an address) and withdrawal from sequences.

Each write is filtered by the organisation and by what the key sees (ContactScope).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    Integer,
    and_,
    exists,
    func,
    literal,
    not_,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.db import Reader
from ..core.errors import ApiError
from ..core.tables import contacts
from .store import (
    IDS_SHOWN,
    ContactScope,
    chunks,
    get_contact_list,
    in_list,
    named_ids,
    now,
    require_writable,
    select_matching,
    storable,
)
from .tables import (
    list_memberships,
    sequence_enrollments,
)
from .writes import dialect_insert

# -- list membership -------------------------------------------------------------------------


def blocked() -> Any:
    """A contact with an active suppression on channel all (the ledger's table)."""
    from ..ledger import suppressions

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
            dialect_insert(connection, list_memberships)
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
