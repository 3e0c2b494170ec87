"""`outreach-server admin seed-demo`: an organisation, a list with contacts, a live and a test key.

Running it again reuses the organisation and its list and issues fresh keys (tokens are
never stored, so earlier ones cannot be shown again).
"""

from __future__ import annotations

import time
from typing import Any

from outreach_api.constants import SCOPES
from sqlalchemy import insert, select

from .db import contacts, lists, organizations
from .services import Services

DEMO_ORG = "Demo organisation"
DEMO_LIST = "Demo contacts"
DEMO_CONTACTS = [
    ("ada@example.com", "Ada", "Lovelace", "Analytical Engines"),
    ("grace@example.com", "Grace", "Hopper", "Compilers Inc"),
    ("alan@example.com", "Alan", "Turing", "Bletchley Labs"),
    ("katherine@example.com", "Katherine", "Johnson", "Orbital Mechanics"),
    ("edsger@example.com", "Edsger", "Dijkstra", "Shortest Paths BV"),
]


async def _demo_org_and_list(services: Services) -> tuple[int, int]:
    now = int(time.time())
    async with services.engine.begin() as connection:
        org_id = (
            await connection.execute(
                select(organizations.c.id).where(organizations.c.name == DEMO_ORG)
            )
        ).scalar()
        if org_id is None:
            org_id = (
                await connection.execute(
                    insert(organizations)
                    .values(name=DEMO_ORG, created_at=now)
                    .returning(organizations.c.id)
                )
            ).scalar_one()
        list_id = (
            await connection.execute(
                select(lists.c.id).where(lists.c.org_id == org_id, lists.c.name == DEMO_LIST)
            )
        ).scalar()
        if list_id is None:
            list_id = (
                await connection.execute(
                    insert(lists)
                    .values(org_id=org_id, name=DEMO_LIST, type="contacts", created_at=now)
                    .returning(lists.c.id)
                )
            ).scalar_one()
            rows = [
                {
                    "org_id": org_id,
                    "list_id": list_id,
                    "email": email,
                    "first_name": first,
                    "last_name": last,
                    "company_name": company,
                    "fields": {},
                    "created_at": now,
                }
                for email, first, last, company in DEMO_CONTACTS
            ]
            await connection.execute(insert(contacts), rows)
    return int(org_id), int(list_id)


async def seed_demo(services: Services) -> dict[str, Any]:
    org_id, list_id = await _demo_org_and_list(services)
    keys = {}
    for mode in ("live", "test"):
        _, token = await services.keys.create(
            org_id=org_id,
            name=f"demo {mode} key",
            mode=mode,
            tier="billable",
            scopes=sorted(SCOPES),
        )
        keys[mode] = token
    return {
        "org_id": org_id,
        "live_key": keys["live"],
        "test_key": keys["test"],
        "list_id": list_id,
    }
