"""publish_event: the transactional outbox of webhook events.

`publish_event(conn_or_engine, org_id, kind, payload)` writes the event and one pending
delivery row (its first attempt, due at once) per active webhook of the organisation that
subscribes to `kind`. Given the caller's AsyncConnection it writes in the caller's open
transaction (commit is the caller's): the event exists exactly when the caller's change
does. Given an engine it runs its own transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from outreach_api.constants import WEBHOOK_DELIVERY_MAX_ATTEMPTS
from outreach_api.models import WebhookEventKind
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .store import new_id, now_ms
from .tables import webhook_deliveries, webhook_events, webhooks

EVENT_KINDS = frozenset(kind.value for kind in WebhookEventKind)

# callbacks told when this process committed deliveries (publish_event given an engine): a
# delivery worker of the same process wakes at once instead of waiting out its idle poll;
# rows written in a caller's transaction, or by other processes, are found by that poll
_listeners: list[Callable[[], None]] = []


def on_publish(callback: Callable[[], None]) -> Callable[[], None]:
    """Call CALLBACK (no arguments, must not block) whenever publish_event, given an engine,
    has committed an event with deliveries; returns the function that removes it."""
    _listeners.append(callback)
    return lambda: _listeners.remove(callback) if callback in _listeners else None


@dataclass(frozen=True)
class PublishedEvent:
    event_id: str
    deliveries: int


async def _publish(
    connection: AsyncConnection, org_id: int, kind: str, payload: dict[str, Any]
) -> PublishedEvent:
    now = now_ms()
    event_id = new_id("evt")
    await connection.execute(
        insert(webhook_events).values(
            id=event_id, org_id=org_id, kind=kind, payload=payload, created_at=now
        )
    )
    rows = await connection.execute(
        select(webhooks.c.id, webhooks.c.events).where(
            webhooks.c.org_id == org_id, webhooks.c.is_active
        )
    )
    targets = [row.id for row in rows if kind in (row.events or [])]
    if targets:
        await connection.execute(
            insert(webhook_deliveries),
            [
                {
                    "id": new_id("dlv"),
                    "org_id": org_id,
                    "webhook_id": webhook_id,
                    "event_id": event_id,
                    "event": kind,
                    "status": "pending",
                    "attempts": 0,
                    "max_attempts": WEBHOOK_DELIVERY_MAX_ATTEMPTS,
                    "created_at": now,
                    "next_attempt_at": now,
                }
                for webhook_id in targets
            ],
        )
    return PublishedEvent(event_id, len(targets))


async def publish_event(
    target: AsyncConnection | AsyncEngine,
    org_id: int,
    kind: str,
    payload: dict[str, Any],
) -> PublishedEvent:
    """Record event `kind` of organisation `org_id` and its deliveries (see the module)."""
    if kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    json.dumps(payload)  # refuse what cannot be delivered as JSON before writing anything
    if isinstance(target, AsyncConnection):
        return await _publish(target, org_id, kind, payload)
    async with target.connect() as connection:
        if connection.dialect.name == "sqlite":
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
        published = await _publish(connection, org_id, kind, payload)
        await connection.commit()
    if published.deliveries:  # committed: a worker woken now sees the rows
        for callback in _listeners:
            callback()
    return published
