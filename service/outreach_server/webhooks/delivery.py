"""The webhook delivery worker: claims due attempts, POSTs them signed, records the outcome.

Rows (webhooks_tables.webhook_deliveries) are one per attempt. A pending row is due when
`next_attempt_at` has passed. A worker claims a batch of due rows in one statement that
pushes `next_attempt_at` forward by the lease (timeout + DNS timeout + a margin) and stamps
a fresh `lease_token` (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so concurrent workers never
claim the same row; SQLite: under BEGIN IMMEDIATE, one writer at a time). Only then is the
POST made; the outcome is recorded in a second transaction, guarded by the lease token. A
worker that dies between claim and record leaves the row pending: once the lease expires,
any worker claims it again, so every attempt is made at least once (a receiver may see one
twice and de-duplicates with `X-Webhook-Event-Id`, the same on every attempt).

A failed row's error_message names the attempt and what follows it: "HTTP 500 (attempt 1 of
3; retried as dlv_...)", then "... (attempt 3 of 3; no more attempts)", so the rows of one
event read as one delivery's attempts.

Outcome: only a 2xx answer is success (a redirect is not followed and counts as a failure).
A failed attempt made while fewer than WEBHOOK_DELIVERY_MAX_ATTEMPTS attempts were made
schedules the next attempt as a new pending row: attempt n+1 is due
WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS[n-1] x webhook_retry_scale seconds after attempt n
failed (10 s before the 2nd, 60 s before the 3rd; the first attempt is immediate, so with 3
attempts the 300 s delay is not used).

The request: POST of the event envelope `{"id", "event", "created_at", "data"}` as compact
JSON (the same bytes on every attempt) with headers X-Webhook-Signature (hex HMAC-SHA256 of
those bytes), X-Webhook-Event-Id, X-Webhook-Event, X-Webhook-Delivery-Id (this attempt's row)
and X-Webhook-Attempt. The target host is resolved and checked (webhook_targets) before each
attempt and the connection goes to the checked address.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from outreach_api.constants import (
    WEBHOOK_DELIVERY_MAX_ATTEMPTS,
    WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS,
    WEBHOOK_DELIVERY_SIGNATURE_HEADER,
)
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.resolver import Resolver, ip_literal
from ..core.secrets import SecretKeyMissing, SecretUndecryptable, secret_box
from ..core.settings import Settings
from .signature import sign
from .store import new_id, now_ms
from .tables import webhook_deliveries, webhook_events, webhooks
from .targets import TargetRefused, resolve_target

log = logging.getLogger("outreach_server.webhooks")

D = webhook_deliveries
LEASE_MARGIN_SECONDS = 2.0
MAX_ERROR_LENGTH = 500
USER_AGENT = "outreach-webhooks/1"


@dataclass(frozen=True)
class Claimed:
    id: str
    org_id: int
    webhook_id: str
    event_id: str
    event: str
    attempts: int  # made before this one
    max_attempts: int
    lease_token: str


@dataclass(frozen=True)
class Outcome:
    success: bool
    response_code: int | None = None
    error_message: str | None = None


def retry_delay_seconds(attempt_made: int, scale: float) -> float:
    """Delay before the attempt following attempt number `attempt_made` (1-based)."""
    delays = WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS
    return delays[min(attempt_made, len(delays)) - 1] * scale


def envelope(event_id: str, kind: str, created_at_ms: int, payload: Any) -> bytes:
    created = datetime.fromtimestamp(created_at_ms / 1000, UTC).replace(tzinfo=None)
    body = {
        "id": event_id,
        "event": kind,
        "created_at": created.isoformat(timespec="milliseconds"),
        "data": payload,
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


class DeliveryWorker:
    def __init__(
        self,
        engine: AsyncEngine,
        settings: Settings,
        resolver: Resolver,
        *,
        batch: int = 32,
        poll_interval: float = 0.05,
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.resolver = resolver
        self.batch = batch
        self.poll_interval = poll_interval
        self.sqlite = engine.dialect.name == "sqlite"
        self.lease_ms = int(
            (settings.webhook_timeout + settings.dns_timeout + LEASE_MARGIN_SECONDS) * 1000
        )
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._client: httpx.AsyncClient | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self.run(), name="webhook-delivery-worker")

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def run(self) -> None:
        while not self._stop.is_set():
            try:
                done = await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook delivery round failed")
                done = 0
            if done == 0:
                try:
                    await asyncio.wait_for(self._stop.wait(), self.poll_interval)
                except TimeoutError:
                    pass

    async def run_once(self) -> int:
        """Claim and deliver one batch of due attempts; the number claimed."""
        claimed = await self.claim()
        if claimed:
            await asyncio.gather(*(self.deliver(item) for item in claimed))
        return len(claimed)

    # -- claim -------------------------------------------------------------------------------

    async def claim(self) -> list[Claimed]:
        now = now_ms()
        token = secrets.token_hex(8)
        due = (
            select(D.c.id)
            .where(D.c.status == "pending", D.c.next_attempt_at <= now)
            .order_by(D.c.next_attempt_at)
            .limit(self.batch)
        )
        if not self.sqlite:
            due = due.with_for_update(skip_locked=True)
        statement = (
            update(D)
            .where(D.c.id.in_(due.scalar_subquery()), D.c.status == "pending")
            .values(next_attempt_at=now + self.lease_ms, lease_token=token)
            .returning(
                D.c.id,
                D.c.org_id,
                D.c.webhook_id,
                D.c.event_id,
                D.c.event,
                D.c.attempts,
                D.c.max_attempts,
            )
        )
        async with self.engine.connect() as connection:
            if self.sqlite:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
            rows = (await connection.execute(statement)).all()
            await connection.commit()
        return [
            Claimed(
                id=row.id,
                org_id=int(row.org_id),
                webhook_id=row.webhook_id,
                event_id=row.event_id,
                event=row.event,
                attempts=int(row.attempts),
                max_attempts=int(row.max_attempts),
                lease_token=token,
            )
            for row in rows
        ]

    # -- deliver -----------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,
                timeout=self.settings.webhook_timeout,
                limits=httpx.Limits(max_connections=100, max_keepalive_connections=100),
            )
        return self._client

    async def deliver(self, item: Claimed) -> None:
        try:
            outcome = await self.attempt(item)
        except Exception as exc:  # never lose the row: record the failure
            log.exception("webhook delivery %s failed unexpectedly", item.id)
            outcome = Outcome(False, None, f"internal error ({type(exc).__name__})")
        await self.record(item, outcome)

    async def attempt(self, item: Claimed) -> Outcome:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(
                        webhooks.c.url,
                        webhooks.c.is_active,
                        webhooks.c.secret_encrypted,
                        webhook_events.c.payload,
                        webhook_events.c.created_at,
                    )
                    .select_from(webhooks)
                    .join(webhook_events, webhook_events.c.id == item.event_id)
                    .where(webhooks.c.id == item.webhook_id, webhooks.c.org_id == item.org_id)
                    .where(webhook_events.c.org_id == item.org_id)
                )
            ).first()
        if row is None:
            return Outcome(False, None, "Webhook or event no longer exists")
        if not row.is_active:
            return Outcome(False, None, "Webhook is disabled")
        try:
            secret = secret_box(self.settings).decrypt(row.secret_encrypted)
        except (SecretKeyMissing, SecretUndecryptable) as exc:
            return Outcome(False, None, f"Webhook secret unavailable: {exc}")
        body = envelope(item.event_id, item.event, int(row.created_at), row.payload)
        settings = self.settings
        try:
            resolved = await resolve_target(
                row.url,
                allow_http=settings.webhook_allow_http,
                allowed=settings.webhook_allowed_networks,
                resolver=self.resolver,
            )
        except TargetRefused as exc:
            return Outcome(False, None, str(exc))
        target = resolved.target
        address = resolved.address
        host_part = f"[{address}]" if ":" in address else address
        url = f"{target.scheme}://{host_part}:{target.port}{target.path}"
        default_port = 443 if target.scheme == "https" else 80
        named_host = f"[{target.host}]" if ":" in target.host else target.host
        host_header = named_host if target.port == default_port else f"{named_host}:{target.port}"
        headers = {
            "Host": host_header,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            WEBHOOK_DELIVERY_SIGNATURE_HEADER: sign(body, secret),
            "X-Webhook-Event-Id": item.event_id,
            "X-Webhook-Event": item.event,
            "X-Webhook-Delivery-Id": item.id,
            "X-Webhook-Attempt": str(item.attempts + 1),
        }
        extensions: dict[str, Any] = {}
        if target.scheme == "https" and ip_literal(target.host) is None:
            extensions["sni_hostname"] = target.host
        try:
            response = await self._http().post(
                url, content=body, headers=headers, extensions=extensions
            )
        except httpx.TimeoutException:
            return Outcome(False, None, f"Timed out after {settings.webhook_timeout:g} s")
        except httpx.HTTPError as exc:
            return Outcome(False, None, f"{type(exc).__name__}: {exc}"[:MAX_ERROR_LENGTH])
        code = response.status_code
        if 200 <= code < 300:
            return Outcome(True, code, None)
        if 300 <= code < 400:
            return Outcome(False, code, f"HTTP {code} (redirects are not followed)")
        return Outcome(False, code, f"HTTP {code}")

    # -- record ------------------------------------------------------------------------------

    async def record(self, item: Claimed, outcome: Outcome) -> bool:
        """Record the attempt (and schedule the next); False when the lease was lost."""
        now = now_ms()
        made = item.attempts + 1
        limit = min(item.max_attempts, WEBHOOK_DELIVERY_MAX_ATTEMPTS)
        retry_id = new_id("dlv") if not outcome.success and made < limit else None
        message = outcome.error_message
        if not outcome.success:  # each row is one attempt: say which, and what follows it
            follows = f"retried as {retry_id}" if retry_id else "no more attempts"
            message = f"{message} (attempt {made} of {limit}; {follows})"
        async with self.engine.connect() as connection:
            if self.sqlite:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
            done = await connection.execute(
                update(D)
                .where(
                    D.c.id == item.id,
                    D.c.org_id == item.org_id,
                    D.c.status == "pending",
                    D.c.lease_token == item.lease_token,
                )
                .values(
                    status="success" if outcome.success else "failed",
                    attempts=made,
                    response_code=outcome.response_code,
                    error_message=message,
                    completed_at=now,
                    lease_token=None,
                )
            )
            if done.rowcount != 1:
                await connection.rollback()
                log.warning("webhook delivery %s: lease lost, outcome not recorded", item.id)
                return False
            if retry_id is not None:
                await self._schedule_retry(connection, item, made, now, retry_id)
            await connection.commit()
        return True

    async def _schedule_retry(
        self, connection: AsyncConnection, item: Claimed, made: int, now: int, retry_id: str
    ) -> None:
        delay = retry_delay_seconds(made, self.settings.webhook_retry_scale)
        await connection.execute(
            insert(D).values(
                id=retry_id,
                org_id=item.org_id,
                webhook_id=item.webhook_id,
                event_id=item.event_id,
                event=item.event,
                status="pending",
                attempts=made,
                max_attempts=item.max_attempts,
                created_at=now,
                next_attempt_at=now + int(delay * 1000),
            )
        )
