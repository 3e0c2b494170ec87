"""Webhook subscriptions of an organisation, and the listing of their deliveries.

Every statement is filtered by the organisation: another organisation's webhook is "not
found" exactly as an unknown one. At most WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG webhooks of an
organisation are active; a create or a re-activation that would exceed it is refused, also
under concurrent requests: the count and the write run in one transaction serialized per
organisation (PostgreSQL: the organisation's row locked FOR UPDATE; SQLite: BEGIN IMMEDIATE,
the database's single writer lock).

Signing secrets are encrypted and decrypted here and nowhere else (`seal_secret`,
`open_secret`: Fernet with the server key, core/secrets.py): callers hand the store a secret
in clear, or let it draw one, and the delivery worker asks it for the clear text.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from outreach_api.constants import WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.db import Reader
from ..core.secrets import new_secret, secret_box
from ..core.settings import Settings
from ..core.tables import organizations
from .tables import webhook_deliveries, webhooks

ACTIVE_LIMIT_MESSAGE = (
    f"Maximum of {WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG} active webhooks per organization reached"
)


class ActiveLimitReached(Exception):
    pass


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def seal_secret(settings: Settings, secret: str) -> str:
    """The stored form of a signing secret; raises SecretKeyMissing without a server key."""
    return secret_box(settings).encrypt(secret)


def open_secret(settings: Settings, ciphertext: str) -> str:
    """A stored signing secret in clear; raises SecretKeyMissing or SecretUndecryptable."""
    return secret_box(settings).decrypt(ciphertext)


@dataclass(frozen=True)
class WebhookRecord:
    id: str
    org_id: int
    name: str | None
    url: str
    events: list[str]
    is_active: bool
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class DeliveryRecord:
    id: str
    webhook_id: str
    event_id: str
    event: str
    status: str
    attempts: int
    max_attempts: int
    response_code: int | None
    error_message: str | None
    created_at: int
    completed_at: int | None


W = webhooks
D = webhook_deliveries
PUBLIC_COLUMNS = (
    W.c.id,
    W.c.org_id,
    W.c.name,
    W.c.url,
    W.c.events,
    W.c.is_active,
    W.c.created_at,
    W.c.updated_at,
)
# an organisation's webhooks, all or by state (the listing through Reader.scan)
LISTED = select(*PUBLIC_COLUMNS).where(W.c.org_id == bindparam("org"))
LISTED_ALL = LISTED.order_by(W.c.created_at, W.c.id)
LISTED_BY_STATE = LISTED.where(W.c.is_active == bindparam("active")).order_by(
    W.c.created_at, W.c.id
)


def _webhook(row: Any) -> WebhookRecord:
    m = row if isinstance(row, dict) else row._mapping
    return WebhookRecord(
        id=str(m["id"]),
        org_id=int(m["org_id"]),
        name=m["name"],
        url=str(m["url"]),
        events=list(m["events"]),
        is_active=bool(m["is_active"]),
        created_at=int(m["created_at"]),
        updated_at=int(m["updated_at"]),
    )


def _delivery(row: Any) -> DeliveryRecord:
    m = row._mapping
    return DeliveryRecord(
        id=str(m["id"]),
        webhook_id=str(m["webhook_id"]),
        event_id=str(m["event_id"]),
        event=str(m["event"]),
        status=str(m["status"]),
        attempts=int(m["attempts"]),
        max_attempts=int(m["max_attempts"]),
        response_code=m["response_code"],
        error_message=m["error_message"],
        created_at=int(m["created_at"]),
        completed_at=None if m["completed_at"] is None else int(m["completed_at"]),
    )


async def insert_webhook(
    connection: AsyncConnection,
    settings: Settings,
    org_id: int,
    *,
    url: str,
    events: Sequence[str],
    name: str | None,
    is_active: bool = True,
    webhook_id: str | None = None,
    secret: str | None = None,
    agency_org_id: int | None = None,
) -> tuple[WebhookRecord, str]:
    """Insert a webhook in the caller's transaction (no active-limit check: see
    WebhookStore.create); its secret (drawn when not given) is stored encrypted and returned
    in clear with the record, the only time it is. Raises SecretKeyMissing before writing."""
    secret = secret if secret is not None else new_secret()
    now = now_ms()
    values: dict[str, Any] = {
        "id": webhook_id or new_id("wh"),
        "org_id": org_id,
        "name": name,
        "url": url,
        "events": list(events),
        "is_active": is_active,
        "secret_encrypted": seal_secret(settings, secret),
        "created_at": now,
        "updated_at": now,
    }
    await connection.execute(insert(W).values(**values, agency_org_id=agency_org_id))
    del values["secret_encrypted"]
    return WebhookRecord(**values), secret


DISABLED_BEFORE_SENT = "Webhook disabled before this attempt (not sent, not retried)"
REPOINTED_BEFORE_SENT = "Webhook URL changed before this attempt (not sent, not retried)"
UNSUBSCRIBED_BEFORE_SENT = "Webhook unsubscribed from this event (not sent, not retried)"


async def fail_pending(
    connection: AsyncConnection, org_id: int, webhook_ids: Sequence[str], message: str, *where: Any
) -> None:
    """Fail the pending (due, scheduled or leased) attempts of these webhooks at once,
    without retry: they are never sent later, to a re-enabled or repointed URL either. A
    worker holding one of them under a lease records nothing for it (its guard is the
    pending status)."""
    if not webhook_ids:
        return
    await connection.execute(
        update(D)
        .where(
            D.c.org_id == org_id,
            D.c.webhook_id.in_(list(webhook_ids)),
            D.c.status == "pending",
            *where,
        )
        .values(status="failed", error_message=message, completed_at=now_ms(), lease_token=None)
    )


async def _end_pending(
    connection: AsyncConnection,
    org_id: int,
    webhook_id: str,
    changes: dict[str, Any],
    url_before: str,
) -> None:
    """What a change ends: a disabled or repointed webhook's pending attempts, and those of
    events it no longer subscribes to (spec/DECISIONS.md row 96)."""
    if changes.get("is_active") is False:
        await fail_pending(connection, org_id, [webhook_id], DISABLED_BEFORE_SENT)
    if "url" in changes and changes["url"] != url_before:
        await fail_pending(connection, org_id, [webhook_id], REPOINTED_BEFORE_SENT)
    if "events" in changes:
        kept = list(changes["events"])
        await fail_pending(
            connection, org_id, [webhook_id], UNSUBSCRIBED_BEFORE_SENT, D.c.event.not_in(kept)
        )


AGENCY_LINK_ENDED = "Agency link ended: webhook disabled (not sent, not retried)"


async def end_agency_webhooks(connection: AsyncConnection, agency_org_id: int, org_id: int) -> None:
    """In the transaction that ends an agency's link to `org_id`: disable the webhooks of
    `org_id` whose URL the agency set, and fail their pending attempts without retry
    (spec/DECISIONS.md row 131). They stay listed, disabled, with their delivery history;
    the organisation may point them elsewhere and re-enable them."""
    ended = (
        (
            await connection.execute(
                update(W)
                .where(W.c.org_id == org_id, W.c.agency_org_id == agency_org_id)
                .values(is_active=False, updated_at=now_ms())
                .returning(W.c.id)
            )
        )
        .scalars()
        .all()
    )
    await fail_pending(connection, org_id, list(ended), AGENCY_LINK_ENDED)


class WebhookStore:
    def __init__(
        self, engine: AsyncEngine, settings: Settings, reader: Reader | None = None
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.reader = reader
        self.sqlite = engine.dialect.name == "sqlite"

    @asynccontextmanager
    async def _org_locked(self, org_id: int) -> AsyncIterator[AsyncConnection]:
        """A write transaction holding the organisation's webhook lock."""
        async with self.engine.connect() as connection:
            if self.sqlite:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                await connection.execute(
                    select(organizations.c.id).where(organizations.c.id == org_id).with_for_update()
                )
            try:
                yield connection
            except BaseException:
                await connection.rollback()
                raise
            await connection.commit()

    async def _active_count(self, connection: AsyncConnection, org_id: int) -> int:
        count = await connection.scalar(
            select(func.count()).select_from(W).where(W.c.org_id == org_id, W.c.is_active)
        )
        return int(count or 0)

    async def list_all(self, org_id: int, is_active: bool | None = None) -> list[WebhookRecord]:
        if self.reader is not None:
            if is_active is None:
                listed = await self.reader.scan(LISTED_ALL, org=org_id)
            else:
                listed = await self.reader.scan(LISTED_BY_STATE, org=org_id, active=is_active)
            return [_webhook(row) for row in listed]
        query = select(*PUBLIC_COLUMNS).where(W.c.org_id == org_id)
        if is_active is not None:
            query = query.where(W.c.is_active == is_active)
        async with self.engine.connect() as connection:
            rows = await connection.execute(query.order_by(W.c.created_at, W.c.id))
            return [_webhook(row) for row in rows]

    async def get(self, org_id: int, webhook_id: str) -> WebhookRecord | None:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(*PUBLIC_COLUMNS).where(W.c.org_id == org_id, W.c.id == webhook_id)
                )
            ).first()
        return None if row is None else _webhook(row)

    async def create(
        self,
        org_id: int,
        *,
        url: str,
        events: Sequence[str],
        name: str | None,
        secret: str | None = None,
        agency_org_id: int | None = None,
    ) -> tuple[WebhookRecord, str]:
        """A new active webhook and its secret in clear (drawn when not given); refused
        (ActiveLimitReached) beyond the active limit, SecretKeyMissing without a server key."""
        secret_box(self.settings)  # SecretKeyMissing before anything is locked
        async with self._org_locked(org_id) as connection:
            if await self._active_count(connection, org_id) >= WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG:
                raise ActiveLimitReached(ACTIVE_LIMIT_MESSAGE)
            return await insert_webhook(
                connection,
                self.settings,
                org_id,
                url=url,
                events=events,
                name=name,
                secret=secret,
                agency_org_id=agency_org_id,
            )

    async def update(
        self, org_id: int, webhook_id: str, changes: dict[str, Any]
    ) -> WebhookRecord | None:
        async with self._org_locked(org_id) as connection:
            current = (
                await connection.execute(
                    select(W.c.is_active, W.c.url).where(W.c.org_id == org_id, W.c.id == webhook_id)
                )
            ).first()
            if current is None:
                return None
            if changes.get("is_active") and not current.is_active:
                active = await self._active_count(connection, org_id)
                if active >= WEBHOOK_DELIVERY_MAX_ACTIVE_PER_ORG:
                    raise ActiveLimitReached(ACTIVE_LIMIT_MESSAGE)
            await connection.execute(
                update(W)
                .where(W.c.org_id == org_id, W.c.id == webhook_id)
                .values(**changes, updated_at=now_ms())
            )
            await _end_pending(connection, org_id, webhook_id, changes, current.url)
            row = (
                await connection.execute(
                    select(*PUBLIC_COLUMNS).where(W.c.org_id == org_id, W.c.id == webhook_id)
                )
            ).one()
            return _webhook(row)

    async def delete(self, org_id: int, webhook_id: str) -> bool:
        async with self.engine.begin() as connection:
            result = await connection.execute(
                delete(W).where(W.c.org_id == org_id, W.c.id == webhook_id)
            )
            return bool(result.rowcount)

    async def deliveries(
        self,
        org_id: int,
        webhook_id: str,
        *,
        offset: int,
        limit: int,
        status: str | None,
    ) -> tuple[list[DeliveryRecord], int] | None:
        """A page of the webhook's deliveries, newest first, and the total; None: no webhook."""
        where = [D.c.org_id == org_id, D.c.webhook_id == webhook_id]
        if status is not None:
            where.append(D.c.status == status)
        async with self.engine.connect() as connection:
            found = await connection.scalar(
                select(W.c.id).where(W.c.org_id == org_id, W.c.id == webhook_id)
            )
            if found is None:
                return None
            total = int(
                await connection.scalar(select(func.count()).select_from(D).where(*where)) or 0
            )
            rows = await connection.execute(
                select(D)
                .where(*where)
                .order_by(D.c.created_at.desc(), D.c.attempts.desc(), D.c.id)
                .offset(offset)
                .limit(limit)
            )
            return [_delivery(row) for row in rows], total
