"""`outreach-server admin seed-demo`: an organisation, a list with contacts, a live and a test key.

The first run also adds a custom column (with values), a companies list with two
companies, two enrolments in sequence 1 and a withheld LinkedIn URL whose photo is
allow-listed. Every run also makes sure the objects the reference docs' examples name
exist (demo_examples.py: a prospects list, a mailbox, a form, a survey with a trigger, a
waterfall config, a webhook, credits, the app-platform preview flag).

Running it again changes nothing that exists: the same organisation, list and keys. Keys are
stored hashed, so their tokens cannot be read back from the database: on the embedded SQLite
default they are kept in a file next to it (`outreach.sqlite3.demo-keys.json`, mode 0600,
like the webhook key file) and printed again while they still authenticate. Elsewhere (or
with `--rotate-keys`) the earlier demo keys are revoked and two new ones issued, so an
organisation never collects more than one live and one test demo key.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from outreach_api.constants import SCOPES
from sqlalchemy import insert, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from ..contacts import (
    companies,
    custom_columns,
    normalise_linkedin_url,
    profile_photos,
    sequence_enrollments,
)
from ..core.db import is_sqlite
from ..core.tables import contacts, lists, organizations
from ..runtime.services import Services
from .demo_examples import ensure_example_objects

DEMO_ORG = "Demo organisation"
DEMO_KEY_NAMES = {"live": "demo live key", "test": "demo test key"}
KEYS_FILE_SUFFIX = ".demo-keys.json"
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


def demo_keys_file(database_url: str) -> Path | None:
    """Where the demo tokens are kept: next to an SQLite database file, else nowhere."""
    if not is_sqlite(database_url):
        return None
    database = make_url(database_url).database
    if not database or database == ":memory:":
        return None
    return Path(database).with_name(Path(database).name + KEYS_FILE_SUFFIX)


def _read_tokens(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    return {
        mode: str(saved[mode])
        for mode in DEMO_KEY_NAMES
        if isinstance(saved, dict) and mode in saved
    }


def _write_tokens(path: Path, tokens: dict[str, str]) -> None:
    """Replace the file atomically, readable by its owner only (0600 from the start)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(tokens, handle, sort_keys=True)
        handle.write("\n")
    os.replace(partial, path)


async def _still_valid(services: Services, org_id: int, tokens: dict[str, str]) -> bool:
    """Both saved tokens authenticate as this organisation's demo keys."""
    if set(tokens) != set(DEMO_KEY_NAMES):
        return False
    for mode, token in tokens.items():
        record = await services.keys.authenticate(token)
        if record is None or record.org_id != org_id or record.name != DEMO_KEY_NAMES[mode]:
            return False
    return True


async def demo_keys(services: Services, org_id: int, rotate: bool) -> dict[str, str]:
    """The demo organisation's live and test tokens: the saved ones, else new ones."""
    path = demo_keys_file(services.settings.database_url)
    saved = _read_tokens(path)
    if not rotate and await _still_valid(services, org_id, saved):
        return saved
    for record in await services.keys.list_for_org(org_id):
        if record.name in DEMO_KEY_NAMES.values() and record.revoked_at is None:
            await services.keys.revoke(record.id)
    tokens = {}
    for mode, name in DEMO_KEY_NAMES.items():
        _, tokens[mode] = await services.keys.create(
            org_id=org_id, name=name, mode=mode, tier="billable", scopes=sorted(SCOPES)
        )
    if path is not None:
        _write_tokens(path, tokens)
    return tokens


async def seed_demo(services: Services, rotate_keys: bool = False) -> dict[str, Any]:
    org_id, list_id = await _demo_org_and_list(services)
    await ensure_example_objects(services, org_id, list_id)
    keys = await demo_keys(services, org_id, rotate_keys)
    return {
        "org_id": org_id,
        "live_key": keys["live"],
        "test_key": keys["test"],
        "list_id": list_id,
    }
