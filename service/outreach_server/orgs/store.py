"""Organisations, agency links and feature flags.

Ending an agency link ends what hangs on it in the same transaction: the callbacks given
as `on_unlink` (the composition in runtime/services.py passes the webhooks domain's
`end_agency_webhooks`) run on the unlink's connection, so no access outlives the link.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.tables import agency_links, feature_flags, organizations

# (connection, agency_org_id, org_id), in the unlink's transaction
OnUnlink = Callable[[AsyncConnection, int, int], Awaitable[None]]


class OrgStore:
    def __init__(self, engine: AsyncEngine, on_unlink: Sequence[OnUnlink] = ()) -> None:
        self.engine = engine
        self.on_unlink = tuple(on_unlink)

    async def create(self, name: str) -> int:
        async with self.engine.begin() as connection:
            result = await connection.execute(
                insert(organizations)
                .values(name=name, created_at=int(time.time()))
                .returning(organizations.c.id)
            )
            return int(result.scalar_one())

    async def exists(self, org_id: int) -> bool:
        async with self.engine.connect() as connection:
            query = select(organizations.c.id).where(organizations.c.id == org_id)
            return (await connection.execute(query)).first() is not None

    async def link(self, agency_org_id: int, org_id: int) -> None:
        async with self.engine.begin() as connection:
            query = select(agency_links).where(
                agency_links.c.agency_org_id == agency_org_id, agency_links.c.org_id == org_id
            )
            if (await connection.execute(query)).first() is None:
                await connection.execute(
                    insert(agency_links).values(agency_org_id=agency_org_id, org_id=org_id)
                )

    async def unlink(self, agency_org_id: int, org_id: int) -> None:
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(agency_links).where(
                    agency_links.c.agency_org_id == agency_org_id, agency_links.c.org_id == org_id
                )
            )
            for ended in self.on_unlink:
                await ended(connection, agency_org_id, org_id)

    async def is_linked(self, agency_org_id: int, org_id: int) -> bool:
        query = select(agency_links.c.org_id).where(
            agency_links.c.agency_org_id == agency_org_id, agency_links.c.org_id == org_id
        )
        async with self.engine.connect() as connection:
            return (await connection.execute(query)).first() is not None

    async def enable_flag(self, org_id: int, flag: str) -> None:
        async with self.engine.begin() as connection:
            query = select(feature_flags).where(
                feature_flags.c.org_id == org_id, feature_flags.c.flag == flag
            )
            if (await connection.execute(query)).first() is None:
                await connection.execute(insert(feature_flags).values(org_id=org_id, flag=flag))

    async def flag_enabled(self, org_id: int, flag: str) -> bool:
        query = select(feature_flags.c.flag).where(
            feature_flags.c.org_id == org_id, feature_flags.c.flag == flag
        )
        async with self.engine.connect() as connection:
            return (await connection.execute(query)).first() is not None
