"""`outreach-server admin seed-demo`: an organisation, a list with contacts, a live and a test key.

The first run also adds a custom column (with values), a companies list with two
companies, two enrolments in sequence 1 and a withheld LinkedIn URL whose photo is
allow-listed. Every run also makes sure the objects the reference docs' examples name
exist (demo_examples.py: a prospects list, a mailbox, a form, a survey with a trigger, a
waterfall config, a webhook, credits, the app-platform preview flag).

Running it again reuses the organisation and its list and issues fresh keys (tokens are
never stored, so earlier ones cannot be shown again).
"""

from __future__ import annotations

import time
from typing import Any

from outreach_api.constants import SCOPES
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..contacts import (
    companies,
    custom_columns,
    normalise_linkedin_url,
    profile_photos,
    sequence_enrollments,
)
from ..core.tables import contacts, lists, organizations
from ..runtime.services import Services
from .demo_examples import ensure_example_objects

DEMO_ORG = "Demo organisation"
DEMO_LIST = "Demo contacts"
DEMO_CONTACTS = [
    ("ada@example.com", "Ada", "Lovelace", "Analytical Engines"),
    ("grace@example.com", "Grace", "Hopper", "Compilers Inc"),
    ("alan@example.com", "Alan", "Turing", "Bletchley Labs"),
    ("katherine@example.com", "Katherine", "Johnson", "Orbital Mechanics"),
    ("edsger@example.com", "Edsger", "Dijkstra", "Shortest Paths BV"),
]
DEMO_ERAS = ["1840s", "1950s", "1930s", "1960s", "1950s"]
DEMO_COMPANIES = "Demo companies"
DEMO_COMPANY_ROWS = [
    ("Analytical Engines", "engines.example"),
    ("Compilers Inc", "compilers.example"),
]
DEMO_SEQUENCE = 1
DEMO_LINKEDIN = "https://www.linkedin.com/in/ada-lovelace-demo"
DEMO_PHOTO = "https://images.example/ada-lovelace.jpg"


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
            await _demo_extras(connection, int(org_id), int(list_id), now)
    return int(org_id), int(list_id)


async def _demo_extras(connection: AsyncConnection, org_id: int, list_id: int, now: int) -> None:
    """A custom column with values, a companies list, sequence enrolments, a withheld
    LinkedIn URL with an allow-listed photo."""
    column_id = (
        await connection.execute(
            insert(custom_columns)
            .values(org_id=org_id, entity_type="contact", name="Era", type="text", created_at=now)
            .returning(custom_columns.c.id)
        )
    ).scalar_one()
    ids = (
        (
            await connection.execute(
                select(contacts.c.id).where(contacts.c.list_id == list_id).order_by(contacts.c.id)
            )
        )
        .scalars()
        .all()
    )
    for contact_id, era in zip(ids, DEMO_ERAS):
        await connection.execute(
            update(contacts)
            .where(contacts.c.id == contact_id)
            .values(fields={f"cc_{column_id}": era})
        )
    await connection.execute(
        update(contacts).where(contacts.c.id == ids[0]).values(linkedin_url=DEMO_LINKEDIN)
    )
    companies_list = (
        await connection.execute(
            insert(lists)
            .values(org_id=org_id, name=DEMO_COMPANIES, type="companies", created_at=now)
            .returning(lists.c.id)
        )
    ).scalar_one()
    await connection.execute(
        insert(companies),
        [
            {
                "org_id": org_id,
                "list_id": companies_list,
                "name": name,
                "domain": domain,
                "fields": {},
                "created_at": now,
            }
            for name, domain in DEMO_COMPANY_ROWS
        ],
    )
    await connection.execute(
        insert(sequence_enrollments),
        [
            {"org_id": org_id, "sequence_id": DEMO_SEQUENCE, "contact_id": i, "enrolled_at": now}
            for i in ids[:2]
        ],
    )
    photo_key = normalise_linkedin_url(DEMO_LINKEDIN)
    known = await connection.scalar(
        select(profile_photos.c.linkedin_url).where(profile_photos.c.linkedin_url == photo_key)
    )
    if known is None:
        await connection.execute(
            insert(profile_photos).values(
                linkedin_url=photo_key, photo_url=DEMO_PHOTO, created_at=now
            )
        )


async def seed_demo(services: Services) -> dict[str, Any]:
    org_id, list_id = await _demo_org_and_list(services)
    await ensure_example_objects(services, org_id, list_id)
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
