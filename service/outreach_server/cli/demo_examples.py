"""The objects the reference docs' examples name, added to the demo organisation by seed-demo.

The generated docs (generated/docs, /docs) show a curl and a Python example per operation,
run against a server seeded with `outreach-server admin seed-demo`. Their string ids (the
webhook, the survey and its trigger, the form) are the spec's parameter examples, read here
from the bundled spec, so the two cannot disagree; integer ids (the mailbox, the prospects
list) are the first ones a fresh database hands out. Each object is created only when
missing, so running seed-demo again restores what an example deleted.
"""

from __future__ import annotations

import json
import logging
import time
from importlib.resources import files
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..billing import credits, grant
from ..core.secrets import SecretKeyMissing
from ..core.tables import lists
from ..enrichment import waterfall_configs
from ..feedback import survey_triggers, surveys
from ..forms import forms
from ..runtime.services import Services
from ..signatures import mailboxes
from ..webhooks import insert_webhook, webhooks

log = logging.getLogger("outreach_server.demo")

DEMO_CREDITS = 1000  # the balance seed-demo tops the organisation up to (billable examples)
DEMO_PROSPECTS = "Demo prospects"  # an empty contacts list, the merge-filtered target
DEMO_MAILBOX = "team@example.com"
DEMO_FORM_NAME = "Newsletter sign-up"
DEMO_SURVEY_NAME = "Onboarding feedback"
DEMO_WEBHOOK = ("Demo webhook", "https://example.com/hooks/outreach", ["campaign.created"])
DEMO_WATERFALL = ("Work email", "work_email", [{"provider": "demo", "credential_source": "system"}])
APP_TOKENS_FLAG = "M6_APP_TOKENS_ENABLED"


def spec_examples() -> dict[str, Any]:
    """Parameter name -> the example the spec gives it (components/parameters)."""
    document = json.loads(files("outreach_api").joinpath("openapi.json").read_text("utf-8"))
    parameters = (document.get("components") or {}).get("parameters") or {}
    return {p["name"]: p["example"] for p in parameters.values() if "example" in p}


async def _missing(connection: AsyncConnection, query: Any) -> bool:
    return (await connection.execute(query)).first() is None


async def _lists_and_inbox(connection: AsyncConnection, org_id: int, now: int) -> None:
    if await _missing(
        connection,
        select(lists.c.id).where(lists.c.org_id == org_id, lists.c.name == DEMO_PROSPECTS),
    ):
        await connection.execute(
            insert(lists).values(
                org_id=org_id, name=DEMO_PROSPECTS, type="contacts", created_at=now
            )
        )
    if await _missing(
        connection,
        select(mailboxes.c.id).where(
            mailboxes.c.org_id == org_id, mailboxes.c.email == DEMO_MAILBOX
        ),
    ):
        await connection.execute(
            insert(mailboxes).values(org_id=org_id, email=DEMO_MAILBOX, revision=1, created_at=now)
        )


async def _form_and_survey(
    connection: AsyncConnection, org_id: int, examples: dict[str, Any], now: int
) -> None:
    source, key = examples.get("source_id"), examples.get("form_key")
    if (
        source
        and key
        and await _missing(
            connection,
            select(forms.c.id).where(
                forms.c.org_id == org_id, forms.c.source_id == source, forms.c.form_key == key
            ),
        )
    ):
        await connection.execute(
            insert(forms).values(
                org_id=org_id,
                source_id=source,
                form_key=key,
                display_name=DEMO_FORM_NAME,
                placement_count=2,
                metrics={"submissions_7d": 42},
                created_at=now,
            )
        )
    survey, trigger = examples.get("survey_id"), examples.get("trigger_id")
    if not survey or not trigger:
        return
    if await _missing(connection, select(surveys.c.id).where(surveys.c.id == survey)):
        await connection.execute(
            insert(surveys).values(id=survey, org_id=org_id, name=DEMO_SURVEY_NAME, created_at=now)
        )
    if await _missing(
        connection, select(survey_triggers.c.id).where(survey_triggers.c.id == trigger)
    ):
        await connection.execute(
            insert(survey_triggers).values(
                id=trigger, survey_id=survey, org_id=org_id, created_at=now
            )
        )


async def _waterfall(connection: AsyncConnection, org_id: int, list_id: int, now: int) -> None:
    name, column_id, steps = DEMO_WATERFALL
    if await _missing(
        connection,
        select(waterfall_configs.c.id).where(
            waterfall_configs.c.org_id == org_id, waterfall_configs.c.column_id == column_id
        ),
    ):
        await connection.execute(
            insert(waterfall_configs).values(
                org_id=org_id,
                name=name,
                column_id=column_id,
                list_id=list_id,
                is_global=False,
                is_active=True,
                data_type="email",
                field_to_enrich="email",
                steps=steps,
                created_at=now,
            )
        )


async def _webhook(
    services: Services, connection: AsyncConnection, org_id: int, webhook_id: str | None
) -> None:
    """The docs' example webhook, created inactive: its target (example.com) receives
    nothing, so an active one would turn every demo event into failing deliveries and
    retries. Activate it (PATCH is_active) after pointing it at a real receiver."""
    if not webhook_id:
        return
    name, url, events = DEMO_WEBHOOK
    if not await _missing(connection, select(webhooks.c.id).where(webhooks.c.id == webhook_id)):
        # seeded active by an earlier version: stop its deliveries to the placeholder target
        await connection.execute(
            update(webhooks)
            .where(webhooks.c.id == webhook_id, webhooks.c.url == url, webhooks.c.is_active)
            .values(is_active=False, updated_at=int(time.time() * 1000))
        )
        return
    try:
        await insert_webhook(
            connection,
            services.settings,
            org_id,
            webhook_id=webhook_id,
            url=url,
            events=events,
            name=name,
            is_active=False,
        )
    except SecretKeyMissing:
        log.warning("no webhook secret key configured: the demo webhook is left out")


async def ensure_example_objects(services: Services, org_id: int, list_id: int) -> None:
    """Create whatever the docs' examples need and is missing; top up the credits."""
    examples = spec_examples()
    now = int(time.time())
    async with services.engine.begin() as connection:
        await _lists_and_inbox(connection, org_id, now)
        await _form_and_survey(connection, org_id, examples, now)
        await _waterfall(connection, org_id, list_id, now)
        await _webhook(services, connection, org_id, examples.get("webhook_id"))
        current = (
            await connection.execute(select(credits.c.balance).where(credits.c.org_id == org_id))
        ).scalar()
        if (current or 0) < DEMO_CREDITS:
            await grant(connection, org_id, DEMO_CREDITS - (current or 0), operation="seed_demo")
    await services.orgs.enable_flag(org_id, APP_TOKENS_FLAG)
