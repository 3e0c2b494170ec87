"""Organisations, agency links and feature flags."""

from __future__ import annotations

import time

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.tables import agency_links, feature_flags, organizations


class OrgStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

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
