"""Fairness between organisations in the delivery worker (issue 30, hole 5; spec/DECISIONS.md
row 133), on SQLite and PostgreSQL, with a worker run in process against real receivers.

The attack: one organisation holds 300 due deliveries to hanging endpoints, enough to fill
every slot the worker has (several targets, so no one target's cap stops it). Before the fix
another organisation's deliveries waited until the hanging attempts timed out; now one
organisation has at most `per_org` attempts in flight and the claims take turns, so the
other organisation's deliveries are made and recorded while every hanging attempt is still
held, before any of them times out.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from outreach_server.orgs.store import OrgStore
from outreach_server.webhooks.outbox import publish_event
from outreach_server.webhooks.store import WebhookStore
from outreach_server.webhooks.tables import webhooks
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from test_webhook_batched_delivery import Receiver, serve, settings_for, until, worker

HANGING_TARGETS = 4
PER_TARGET = 8  # 4 hanging targets x 8 slots = every slot of a worker with 32 in flight
PER_ORG = 8


async def organisation(
    engine: AsyncEngine, settings: Any, name: str, urls: list[str], events: int
) -> int:
    org = await OrgStore(engine).create(name)
    store = WebhookStore(engine, settings)
    for index, url in enumerate(urls):
        await store.create(org, url=url, events=["campaign.created"], name=f"{name} {index}")
    async with engine.begin() as connection:  # one transaction: all due at once
        for index in range(events):
            await publish_event(connection, org, "campaign.created", {"n": index})
    return org


def test_a_tenants_hanging_backlog_does_not_delay_another_tenant(database_url: str) -> None:
    hanging = [Receiver(hang=True) for _ in range(HANGING_TARGETS)]
    healthy = Receiver()
    servers = [serve(receiver) for receiver in [*hanging, healthy]]
    settings = settings_for(database_url, webhook_timeout=20.0)

    async def scenario() -> None:
        each = worker(
            settings,
            batch=8,
            concurrency=32,
            per_target=PER_TARGET,
            per_org=PER_ORG,
            lanes=2,
        )
        engine = each.engine
        try:
            noisy = await organisation(
                engine,
                settings,
                "noisy",
                [r.url() for r in hanging],
                300 // HANGING_TARGETS,  # 300 due deliveries in all
            )
            quiet = await organisation(engine, settings, "quiet", [healthy.url()], 5)
            async with engine.connect() as connection:
                query = select(webhooks.c.id, webhooks.c.org_id)
                org_of = {row.id: row.org_id for row in await connection.execute(query)}
            await each.start()

            def quiet_done(found: list[Any]) -> bool:
                rows = [r for r in found if org_of[r.webhook_id] == quiet]
                return sum(r.status == "success" for r in rows) == 5

            found = await until(engine, quiet_done, timeout=15.0)
            # made while the noisy organisation's attempts are all still held: none ended
            noisy_rows = [r for r in found if org_of[r.webhook_id] == noisy]
            assert len(noisy_rows) == 300
            assert {r.status for r in noisy_rows} == {"pending"}
            assert sum(r.held for r in hanging) >= 1
            # and the noisy organisation never had more than its share in flight
            assert sum(r.held for r in hanging) <= PER_ORG
            assert max(Counter(healthy.ids).values()) == 1
        finally:
            for receiver in hanging:
                receiver.release.set()
            await each.close()
            await engine.dispose()

    try:
        asyncio.run(scenario())
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
