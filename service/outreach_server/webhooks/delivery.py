"""The webhook delivery worker: claims due attempts in batches, POSTs them signed and
concurrently, records the outcomes in batches as they arrive.

Rows (webhooks_tables.webhook_deliveries) are one per attempt. A pending row is due when
`next_attempt_at` has passed.

Claim. A worker claims up to `batch` due rows in one statement that pushes
`next_attempt_at` forward by the lease (timeout + DNS timeout + a margin) and stamps a fresh
`lease_token`, and reads with them everything the POST needs (the webhook's url, is_active
and encrypted secret, the event's payload and created_at; every join on the row's org_id).
PostgreSQL: one round trip, `WITH claimed AS (UPDATE ... WHERE id IN (SELECT ... FOR UPDATE
SKIP LOCKED) RETURNING ...) SELECT ... FROM claimed LEFT JOIN ...`, so concurrent workers
never claim the same row; SQLite: the UPDATE ... RETURNING and one SELECT of the batch under
one BEGIN IMMEDIATE (one writer at a time). The worker keeps its pipeline full: `lanes`
claim loops claim the next batches while earlier attempts are still sending, up to
`concurrency` attempts in flight, and leave out of a claim the webhooks whose target
already has 4 x `per_target` attempts queued (another worker may take them).

Send. Each attempt is its own task: its target is resolved and checked (webhook_targets)
and the connection goes to the checked address (resolutions are cached per URL for at most
one second; refusals too); the decrypted secret is cached in memory per webhook id and
ciphertext for at most 60 s. POSTs go over HTTP/1.1 keep-alive connections, at most
`per_target` at once per target (scheme, address, port, host; webhooks/transport.py), each
bounded by webhook_timeout as a whole. An attempt that cannot get a slot of its target
within DNS timeout + 1 s of its claim is released unsent (the row is due again at once,
nothing is recorded): its lease would otherwise run out while it waits behind a slow
target. A slow or hanging target holds only its own slots: other targets' attempts of the
same batch complete and are recorded without waiting for it.

Record. Outcomes are recorded as they arrive, in small batches (a flush every `flush_size`
outcomes or `flush_interval` seconds, whichever comes first; `lanes` flushes may be under
way at once), each batch atomically and guarded per row by the lease token and org_id: a
row whose lease was lost (another worker claimed it after the lease expired) records
nothing. PostgreSQL: one statement per batch, `WITH done AS (UPDATE ... FROM unnest(...)
RETURNING id), retried AS (INSERT ... the retries of the rows in done) SELECT id FROM done`,
on a connection the worker keeps in autocommit mode (the claim likewise is one statement:
one round trip each). SQLite: under one BEGIN IMMEDIATE, one SELECT of the leases
that still hold, one executemany UPDATE of those rows and one bulk INSERT of the retries. A worker that dies between claim and record leaves its rows pending:
once the lease expires any worker claims them again, so every attempt is made at least once (a receiver may see one twice and de-duplicates with
`X-Webhook-Event-Id`, the same on every attempt).

A failed row's error_message names the attempt and what follows it: "HTTP 500 (attempt 1 of
3; retried as dlv_...)", then "... (attempt 3 of 3; no more attempts)", so the rows of one
event read as one delivery's attempts.

Outcome: only a 2xx answer is success (a redirect is not followed and counts as a failure).
A failed attempt made while fewer than WEBHOOK_DELIVERY_MAX_ATTEMPTS attempts were made
schedules the next attempt as a new pending row: attempt n+1 is due
WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS[n-1] x webhook_retry_scale seconds after attempt n
failed (10 s before the 2nd, 60 s before the 3rd; the first attempt is immediate, so with 3
attempts the 300 s delay is not used). A timeout reads "Timed out after 10 s".

The request: POST of the event envelope `{"id", "event", "created_at", "data"}` as compact
JSON (the same bytes on every attempt) with headers X-Webhook-Signature (hex HMAC-SHA256 of
those bytes), X-Webhook-Event-Id, X-Webhook-Event, X-Webhook-Delivery-Id (this attempt's row)
and X-Webhook-Attempt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpcore
from outreach_api.constants import (
    WEBHOOK_DELIVERY_MAX_ATTEMPTS,
    WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS,
    WEBHOOK_DELIVERY_SIGNATURE_HEADER,
)
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Integer,
    String,
    Text,
    and_,
    bindparam,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..core.resolver import Resolver, ip_literal
from ..core.secrets import SecretKeyMissing, SecretUndecryptable, secret_box
from ..core.settings import Settings
from .outbox import on_publish
from .signature import sign
from .store import new_id, now_ms
from .tables import webhook_deliveries, webhook_events, webhooks
from .targets import ResolvedTarget, TargetRefused, resolve_target
from .transport import TargetKey, Transport

log = logging.getLogger("outreach_server.webhooks")

D = webhook_deliveries
LEASE_MARGIN_SECONDS = 2.0
MAX_ERROR_LENGTH = 500
USER_AGENT = "outreach-webhooks/1"
RESOLVE_CACHE_SECONDS = 1.0
SECRET_CACHE_SECONDS = 60.0


# PostgreSQL: a batch of outcomes in one statement (one round trip, atomic): the arrays are
# unnested side by side, so one compiled statement serves every batch size; each row is
# guarded by its lease token and org_id, and the retries of the rows actually recorded are
# inserted by the same statement
RECORD_OUTCOMES = text(
    """
    WITH done AS (
        UPDATE webhook_deliveries AS d
        SET status = o.status, attempts = o.attempts, response_code = o.response_code,
            error_message = o.error_message, completed_at = :now, lease_token = NULL
        FROM unnest(:id, :org_id, :lease_token, :status, :attempts, :response_code,
                    :error_message)
            AS o(id, org_id, lease_token, status, attempts, response_code, error_message)
        WHERE d.id = o.id AND d.org_id = o.org_id AND d.lease_token = o.lease_token
            AND d.status = 'pending'
        RETURNING d.id
    ), retried AS (
        INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status,
            attempts, max_attempts, created_at, next_attempt_at)
        SELECT r.id, r.org_id, r.webhook_id, r.event_id, r.event, 'pending', r.attempts,
            r.max_attempts, :now, r.next_attempt_at
        FROM unnest(:r_after, :r_id, :r_org_id, :r_webhook_id, :r_event_id, :r_event,
                    :r_attempts, :r_max_attempts, :r_next_attempt_at)
            AS r(after_id, id, org_id, webhook_id, event_id, event, attempts, max_attempts,
                 next_attempt_at)
        WHERE r.after_id IN (SELECT id FROM done)
        RETURNING id
    )
    SELECT id FROM done
    """
).bindparams(
    bindparam("id", type_=ARRAY(String)),
    bindparam("org_id", type_=ARRAY(Integer)),
    bindparam("lease_token", type_=ARRAY(String)),
    bindparam("status", type_=ARRAY(String)),
    bindparam("attempts", type_=ARRAY(Integer)),
    bindparam("response_code", type_=ARRAY(Integer)),
    bindparam("error_message", type_=ARRAY(Text)),
    bindparam("now", type_=BigInteger),
    bindparam("r_after", type_=ARRAY(String)),
    bindparam("r_id", type_=ARRAY(String)),
    bindparam("r_org_id", type_=ARRAY(Integer)),
    bindparam("r_webhook_id", type_=ARRAY(String)),
    bindparam("r_event_id", type_=ARRAY(String)),
    bindparam("r_event", type_=ARRAY(String)),
    bindparam("r_attempts", type_=ARRAY(Integer)),
    bindparam("r_max_attempts", type_=ARRAY(Integer)),
    bindparam("r_next_attempt_at", type_=ARRAY(BigInteger)),
)
# an attempt given back unsent: due again at once, its lease cleared
RELEASE = (
    update(D)
    .where(
        D.c.id == bindparam("r_id"),
        D.c.org_id == bindparam("r_org"),
        D.c.status == "pending",
        D.c.lease_token == bindparam("r_token"),
    )
    .values(next_attempt_at=bindparam("r_now"), lease_token=None)
)
# SQLite: one outcome, guarded by its lease token and org_id
RECORD_ONE = (
    update(D)
    .where(
        D.c.id == bindparam("o_id"),
        D.c.org_id == bindparam("o_org_id"),
        D.c.status == "pending",
        D.c.lease_token == bindparam("o_lease_token"),
    )
    .values(
        status=bindparam("o_status"),
        attempts=bindparam("o_attempts"),
        response_code=bindparam("o_response_code"),
        error_message=bindparam("o_error_message"),
        completed_at=bindparam("o_now"),
        lease_token=None,
    )
)
RETRY_FIELDS = ("id", "org_id", "webhook_id", "event_id", "event", "attempts", "max_attempts")


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
    # what the POST needs, read with the claim (url None: the webhook or event is gone)
    url: str | None = None
    is_active: bool = False
    secret_encrypted: str = ""
    payload: Any = None
    created_at: int = 0
    claimed_at: float = 0.0  # time.monotonic() of the claim


@dataclass(frozen=True)
class Outcome:
    success: bool
    response_code: int | None = None
    error_message: str | None = None


RELEASED = None  # an attempt given back unsent (no slot of its target in time)


def retry_delay_seconds(attempt_made: int, scale: float) -> float:
    """Delay before the attempt following attempt number `attempt_made` (1-based)."""
    delays = WEBHOOK_DELIVERY_RETRY_DELAYS_SECONDS
    return delays[min(attempt_made, len(delays)) - 1] * scale


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # json.dumps' compact


def envelope(event_id: str, kind: str, created_at_ms: int, payload: Any) -> bytes:
    created = datetime.fromtimestamp(created_at_ms / 1000, UTC).replace(tzinfo=None)
    body = {
        "id": event_id,
        "event": kind,
        "created_at": created.isoformat(timespec="milliseconds"),
        "data": payload,
    }
    return _ENCODER.encode(body).encode()


def _bool(value: Any) -> bool:
    return value in (True, 1, "1", "true", "t")


class DeliveryWorker:
    def __init__(
        self,
        engine: AsyncEngine,
        settings: Settings,
        resolver: Resolver,
        *,
        batch: int = 32,
        concurrency: int | None = None,
        per_target: int = 32,
        poll_interval: float = 0.05,
        idle_max: float = 1.0,
        flush_size: int = 64,
        flush_interval: float = 0.005,
        lanes: int = 2,
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.resolver = resolver
        self.batch = batch
        self.concurrency = concurrency  # attempts in flight; None: 4 batches
        self.per_target = per_target
        self.poll_interval = poll_interval
        # nothing due: the next look doubles its wait from poll_interval up to idle_max (an
        # idle worker does not take SQLite's write lock 40 times a second); an event this
        # process publishes, or a claim that found rows, brings it back to poll_interval
        self.idle_max = max(idle_max, poll_interval)
        self._idle_wait = poll_interval
        self._next_due_ms: int | None = None  # the earliest retry this worker scheduled
        self._wake = asyncio.Event()
        self._unlisten: Callable[[], None] | None = None
        self.flush_size = flush_size
        self.flush_interval = flush_interval
        self.sqlite = engine.dialect.name == "sqlite"
        self.lease_ms = int(
            (settings.webhook_timeout + settings.dns_timeout + LEASE_MARGIN_SECONDS) * 1000
        )
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._transport: Transport | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._reserved = 0  # attempts being claimed
        self.lanes = lanes
        self._slot_freed = asyncio.Event()
        self._results: list[tuple[Claimed, Outcome | None]] = []
        self._result_ready = asyncio.Event()
        self._recorders: list[asyncio.Task[None]] = []
        self._flushing = 0  # record_many calls under way
        self._flushed = asyncio.Event()  # set whenever none is
        self._flushed.set()
        self._closing = False
        self._connections: list[AsyncConnection] = []  # PostgreSQL, autocommit, idle
        self._resolved: dict[str, tuple[float, ResolvedTarget | TargetRefused]] = {}
        self._secrets: dict[tuple[str, str], tuple[float, str]] = {}
        self._target_of: dict[str, TargetKey] = {}  # webhook id -> its last target

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._stop = asyncio.Event()
            self._closing = False
            self._wake = asyncio.Event()
            self._idle_wait = self.poll_interval
            loop = asyncio.get_running_loop()
            wake = self._wake

            def woken() -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(self._woken, wake)

            self._unlisten = on_publish(woken)
            self._task = asyncio.create_task(self.run(), name="webhook-delivery-worker")

    async def close(self) -> None:
        """Stop claiming; let the attempts in flight finish (each bounded by the timeout),
        record them, then close the connections."""
        self._stop.set()
        self._wake.set()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._drain()
        await self._close_connections()
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None

    async def _drain(self) -> None:
        if self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)
        self._closing = True
        self._result_ready.set()
        if self._recorders:
            await asyncio.gather(*self._recorders, return_exceptions=True)
            self._recorders = []
        await self._flush_all()

    @property
    def max_in_flight(self) -> int:
        return self.concurrency or 4 * self.batch

    async def run(self) -> None:
        """Claim and send until stopped: `lanes` claim loops share the in-flight budget, so
        the next claim is under way while another one's rows are being spawned."""
        self._ensure_recorder()
        await asyncio.gather(*(self._claim_loop() for _ in range(self.lanes)))

    async def _claim_loop(self) -> None:
        while not self._stop.is_set():
            free = self.max_in_flight - len(self._in_flight) - self._reserved
            if free < max(1, min(self.batch, self.max_in_flight) // 2):
                self._slot_freed.clear()  # the pipeline is full: wait for a slot
                await self._wait(self._slot_freed, self.poll_interval)
                continue
            wanted = min(self.batch, free)
            skipped = self._saturated_webhooks()
            self._reserved += wanted
            try:
                items = await self.claim(wanted, skipped)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook delivery claim failed")
                items = []
            finally:
                self._reserved -= wanted
            if items:
                self._idle_wait = self.poll_interval
            for item in items:
                self._spawn(item)
            if len(items) == wanted:
                await asyncio.sleep(0)  # let the sends start, then claim more
            elif skipped and self._in_flight:  # a busy target's rows may be due: soon again
                self._slot_freed.clear()
                await self._wait(self._slot_freed, self.poll_interval)
            else:  # nothing more is due now
                await self._idle()

    def _woken(self, wake: asyncio.Event) -> None:
        self._idle_wait = self.poll_interval
        wake.set()

    async def _idle(self) -> None:
        """Wait while nothing is due: until woken, or the idle wait (doubled each time)."""
        wait = self._idle_wait
        if self._next_due_ms is not None:  # a retry of ours falls due: look then
            until = (self._next_due_ms - now_ms()) / 1000
            if until <= 0:
                self._next_due_ms = None
            wait = max(0.0, min(wait, until))
        try:
            await asyncio.wait_for(self._wake.wait(), wait)
        except TimeoutError:
            self._idle_wait = min(self._idle_wait * 2, self.idle_max)
        else:
            self._wake.clear()

    @staticmethod
    async def _wait(event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass

    async def run_once(self) -> int:
        """Claim one batch, deliver it and record every outcome; the number claimed."""
        self._ensure_recorder()
        items = await self.claim()
        tasks = [self._spawn(item) for item in items]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._recorded()  # a background recorder may hold some of them, mid-flush
        return len(items)

    def _spawn(self, item: Claimed) -> asyncio.Task[None]:
        task = asyncio.create_task(self.deliver(item))
        self._in_flight.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        self._slot_freed.set()

    # -- claim -------------------------------------------------------------------------------

    def _saturated_webhooks(self) -> list[str]:
        transport = self._transport
        if transport is None:
            return []
        return sorted(
            webhook_id for webhook_id, key in self._target_of.items() if transport.saturated(key)
        )

    async def claim(self, limit: int | None = None, skipped: Sequence[str] = ()) -> list[Claimed]:
        now = now_ms()
        token = secrets.token_hex(8)
        due = (
            select(D.c.id)
            .where(D.c.status == "pending", D.c.next_attempt_at <= now)
            .order_by(D.c.next_attempt_at)
            .limit(limit or self.batch)
        )
        if skipped:
            due = due.where(D.c.webhook_id.not_in(skipped))
        if not self.sqlite:
            due = due.with_for_update(skip_locked=True)
        claim = (
            update(D)
            .where(D.c.id.in_(due.scalar_subquery()), D.c.status == "pending")
            .values(next_attempt_at=now + self.lease_ms, lease_token=token)
        )
        fields = (D.c.id, D.c.org_id, D.c.webhook_id, D.c.event_id, D.c.event, D.c.attempts)
        rows: Sequence[Any]
        if self.sqlite:
            async with self.engine.connect() as connection:
                await connection.exec_driver_sql("BEGIN IMMEDIATE")
                ids = (await connection.execute(claim.returning(D.c.id))).scalars().all()
                rows = (
                    (await connection.execute(self._batch_query(D, token, list(ids)))).all()
                    if ids
                    else []
                )
                await connection.commit()
        else:  # one statement: claim and read in one round trip
            claimed = claim.returning(*fields, D.c.max_attempts).cte("claimed")
            async with self._autocommit() as connection:
                rows = (await connection.execute(self._batch_query(claimed, token, None))).all()
        at = time.monotonic()
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
                url=row.url if row.created_at is not None else None,
                is_active=_bool(row.is_active),
                secret_encrypted=row.secret_encrypted or "",
                payload=row.payload,
                created_at=int(row.created_at or 0),
                claimed_at=at,
            )
            for row in rows
        ]

    @staticmethod
    def _batch_query(rows: Any, token: str, ids: list[str] | None) -> Any:
        """The claimed rows with their webhook and event (each joined on the row's org_id)."""
        query = (
            select(
                rows.c.id,
                rows.c.org_id,
                rows.c.webhook_id,
                rows.c.event_id,
                rows.c.event,
                rows.c.attempts,
                rows.c.max_attempts,
                webhooks.c.url,
                webhooks.c.is_active,
                webhooks.c.secret_encrypted,
                webhook_events.c.payload,
                webhook_events.c.created_at,
            )
            .select_from(
                rows.outerjoin(
                    webhooks,
                    and_(webhooks.c.id == rows.c.webhook_id, webhooks.c.org_id == rows.c.org_id),
                ).outerjoin(
                    webhook_events,
                    and_(
                        webhook_events.c.id == rows.c.event_id,
                        webhook_events.c.org_id == rows.c.org_id,
                    ),
                )
            )
            .order_by(rows.c.id)
        )
        if ids is not None:
            query = query.where(rows.c.id.in_(ids), rows.c.lease_token == token)
        return query

    # -- deliver -----------------------------------------------------------------------------

    def _http(self) -> Transport:
        if self._transport is None:
            self._transport = Transport(self.per_target)
        return self._transport

    async def deliver(self, item: Claimed) -> None:
        try:
            outcome = await self.attempt(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never lose the row: record the failure
            log.exception("webhook delivery %s failed unexpectedly", item.id)
            outcome = Outcome(False, None, f"internal error ({type(exc).__name__})")
        self._results.append((item, outcome))
        self._result_ready.set()

    def _secret(self, item: Claimed) -> str:
        key = (item.webhook_id, item.secret_encrypted)
        now = time.monotonic()
        cached = self._secrets.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        secret = secret_box(self.settings).decrypt(item.secret_encrypted)
        if len(self._secrets) > 10_000:
            self._secrets.clear()
        self._secrets[key] = (now + SECRET_CACHE_SECONDS, secret)
        return secret

    async def _resolve(self, url: str) -> ResolvedTarget:
        now = time.monotonic()
        cached = self._resolved.get(url)
        if cached is None or cached[0] <= now:
            settings = self.settings
            result: ResolvedTarget | TargetRefused
            try:
                result = await resolve_target(
                    url,
                    allow_http=settings.webhook_allow_http,
                    allowed=settings.webhook_allowed_networks,
                    resolver=self.resolver,
                )
            except TargetRefused as exc:
                result = exc
            if len(self._resolved) > 10_000:
                self._resolved.clear()
            cached = self._resolved[url] = (now + RESOLVE_CACHE_SECONDS, result)
        if isinstance(cached[1], TargetRefused):
            raise cached[1]
        return cached[1]

    async def attempt(self, item: Claimed) -> Outcome | None:
        """The outcome of one attempt; None (RELEASED) when it was not made."""
        if item.url is None:
            return Outcome(False, None, "Webhook or event no longer exists")
        if not item.is_active:
            return Outcome(False, None, "Webhook is disabled")
        try:
            secret = self._secret(item)
        except (SecretKeyMissing, SecretUndecryptable) as exc:
            return Outcome(False, None, f"Webhook secret unavailable: {exc}")
        body = envelope(item.event_id, item.event, item.created_at, item.payload)
        try:
            resolved = await self._resolve(item.url)
        except TargetRefused as exc:
            return Outcome(False, None, str(exc))
        target = resolved.target
        default_port = 443 if target.scheme == "https" else 80
        named_host = f"[{target.host}]" if ":" in target.host else target.host
        host_header = named_host if target.port == default_port else f"{named_host}:{target.port}"
        headers = [
            (b"Host", host_header.encode()),
            (b"Content-Type", b"application/json"),
            (b"User-Agent", USER_AGENT.encode()),
            (WEBHOOK_DELIVERY_SIGNATURE_HEADER.encode(), sign(body, secret).encode()),
            (b"X-Webhook-Event-Id", item.event_id.encode()),
            (b"X-Webhook-Event", item.event.encode()),
            (b"X-Webhook-Delivery-Id", item.id.encode()),
            (b"X-Webhook-Attempt", str(item.attempts + 1).encode()),
        ]
        sni = target.host if ip_literal(target.host) is None else ""
        key: TargetKey = (target.scheme, resolved.address, target.port, sni)
        if len(self._target_of) > 10_000:
            self._target_of.clear()
        self._target_of[item.webhook_id] = key
        transport = self._http()
        slots = transport.target(key)
        # the POST must start early enough to end (timeout) well within the lease
        start_by = item.claimed_at + self.settings.dns_timeout + LEASE_MARGIN_SECONDS / 2
        slots.queued += 1
        try:
            if slots.slots.locked():
                try:
                    async with asyncio.timeout(max(0.0, start_by - time.monotonic())):
                        await slots.slots.acquire()
                except TimeoutError:
                    return RELEASED
            else:
                await slots.slots.acquire()
            try:
                timeout = self.settings.webhook_timeout
                async with asyncio.timeout(timeout):
                    code = await transport.post(key, slots, target.path, headers, body)
            except TimeoutError:
                return Outcome(False, None, f"Timed out after {timeout:g} s")
            except httpcore.TimeoutException:
                return Outcome(False, None, f"Timed out after {timeout:g} s")
            except (
                httpcore.NetworkError,
                httpcore.ProtocolError,
                httpcore.UnsupportedProtocol,
            ) as exc:
                return Outcome(False, None, f"{type(exc).__name__}: {exc}"[:MAX_ERROR_LENGTH])
            finally:
                slots.slots.release()
        finally:
            slots.queued -= 1
        if 200 <= code < 300:
            return Outcome(True, code, None)
        if 300 <= code < 400:
            return Outcome(False, code, f"HTTP {code} (redirects are not followed)")
        return Outcome(False, code, f"HTTP {code}")

    # -- record ------------------------------------------------------------------------------

    def _ensure_recorder(self) -> None:
        """`lanes` recorders: one flush can be under way while the next batch collects."""
        self._recorders = [task for task in self._recorders if not task.done()]
        while len(self._recorders) < self.lanes:
            self._recorders.append(
                asyncio.create_task(self._record_loop(), name="webhook-recorder")
            )

    async def _record_loop(self) -> None:
        while not (self._closing and not self._results):
            await self._result_ready.wait()
            if not self._closing and len(self._results) < self.flush_size:
                await asyncio.sleep(self.flush_interval)
            await self._flush_all()

    async def _flush_all(self) -> None:
        while self._results:
            taken = self._results[: self.flush_size * 4]
            del self._results[: len(taken)]
            if not self._results and not self._closing:
                self._result_ready.clear()
            self._flushing += 1
            self._flushed.clear()
            try:
                await self.record_many(taken)
            except asyncio.CancelledError:
                raise
            except Exception:  # the rows stay pending: delivered again once the lease ends
                log.exception("recording %d webhook deliveries failed", len(taken))
            finally:
                self._flushing -= 1
                if not self._flushing:
                    self._flushed.set()

    async def _recorded(self) -> None:
        """Until every outcome collected so far is recorded, by this task or a recorder."""
        while self._results or not self._flushed.is_set():
            await self._flush_all()
            await self._flushed.wait()

    async def record(self, item: Claimed, outcome: Outcome) -> bool:
        """Record one attempt (and schedule the next); False when the lease was lost."""
        return item.id in await self.record_many([(item, outcome)])

    async def record_many(self, results: list[tuple[Claimed, Outcome | None]]) -> set[str]:
        """Record attempts (and schedule their retries) in one transaction; release the
        attempts not made. Returns the ids recorded (a row whose lease was lost is not)."""
        now = now_ms()
        made_rows: list[dict[str, Any]] = []
        retries: dict[str, dict[str, Any]] = {}
        released: list[Claimed] = []
        for item, outcome in results:
            if outcome is None:  # RELEASED
                released.append(item)
                continue
            made = item.attempts + 1
            limit = min(item.max_attempts, WEBHOOK_DELIVERY_MAX_ATTEMPTS)
            retry_id = new_id("dlv") if not outcome.success and made < limit else None
            message = outcome.error_message
            if not outcome.success:  # each row is one attempt: say which, and what follows it
                follows = f"retried as {retry_id}" if retry_id else "no more attempts"
                message = f"{message} (attempt {made} of {limit}; {follows})"
            made_rows.append(
                {
                    "id": item.id,
                    "org_id": item.org_id,
                    "lease_token": item.lease_token,
                    "status": "success" if outcome.success else "failed",
                    "attempts": made,
                    "response_code": outcome.response_code,
                    "error_message": message,
                }
            )
            if retry_id is not None:
                delay = retry_delay_seconds(made, self.settings.webhook_retry_scale)
                retries[item.id] = {
                    "id": retry_id,
                    "org_id": item.org_id,
                    "webhook_id": item.webhook_id,
                    "event_id": item.event_id,
                    "event": item.event,
                    "status": "pending",
                    "attempts": made,
                    "max_attempts": item.max_attempts,
                    "created_at": now,
                    "next_attempt_at": now + int(delay * 1000),
                }
        if self.sqlite:
            recorded = await self._record_sqlite(made_rows, retries, released, now)
        else:
            recorded = await self._record_postgresql(made_rows, retries, released, now)
        if retries:  # an idle look falls on the earliest retry's due time
            due = min(int(row["next_attempt_at"]) for row in retries.values())
            if self._next_due_ms is None or due < self._next_due_ms:
                self._next_due_ms = due
        for row in made_rows:
            if row["id"] not in recorded:
                log.warning("webhook delivery %s: lease lost, outcome not recorded", row["id"])
        return recorded

    async def _record_postgresql(
        self,
        made_rows: list[dict[str, Any]],
        retries: dict[str, dict[str, Any]],
        released: list[Claimed],
        now: int,
    ) -> set[str]:
        recorded: set[str] = set()
        async with self._autocommit() as connection:
            if made_rows:
                given: dict[str, Any] = {
                    name: [row[name] for row in made_rows]
                    for name in (
                        "id", "org_id", "lease_token", "status", "attempts", "response_code",
                        "error_message",
                    )
                }  # fmt: skip
                given["r_after"] = list(retries)
                for name in (*RETRY_FIELDS, "next_attempt_at"):
                    given[f"r_{name}"] = [retry[name] for retry in retries.values()]
                result = await connection.execute(RECORD_OUTCOMES, {**given, "now": now})
                recorded = set(result.scalars().all())
            if released:
                await connection.execute(
                    RELEASE, [self._release_row(item, now) for item in released]
                )
        return recorded

    async def _record_sqlite(
        self,
        made_rows: list[dict[str, Any]],
        retries: dict[str, dict[str, Any]],
        released: list[Claimed],
        now: int,
    ) -> set[str]:
        async with self.engine.connect() as connection:
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
            recorded = await self._update_sqlite(connection, made_rows, now)
            if released:
                await connection.execute(RELEASE, [self._release_row(i, now) for i in released])
            wanted = [retries[i] for i in sorted(recorded) if i in retries]
            if wanted:
                await connection.execute(insert(D), wanted)
            await connection.commit()
        return recorded

    async def _update_sqlite(
        self, connection: AsyncConnection, made_rows: list[dict[str, Any]], now: int
    ) -> set[str]:
        """The rows whose lease still holds (read under the write lock BEGIN IMMEDIATE took,
        so nothing changes before the update), then one executemany for them."""
        if not made_rows:
            return set()
        leases = select(D.c.id, D.c.org_id, D.c.lease_token).where(
            D.c.id.in_([row["id"] for row in made_rows]), D.c.status == "pending"
        )
        held = {tuple(lease) for lease in (await connection.execute(leases)).all()}
        mine = [r for r in made_rows if (r["id"], r["org_id"], r["lease_token"]) in held]
        if mine:
            given = [{f"o_{k}": v for k, v in {**row, "now": now}.items()} for row in mine]
            await connection.execute(RECORD_ONE, given)
        return {row["id"] for row in mine}

    @staticmethod
    def _release_row(item: Claimed, now: int) -> dict[str, Any]:
        return {"r_id": item.id, "r_org": item.org_id, "r_token": item.lease_token, "r_now": now}

    @asynccontextmanager
    async def _autocommit(self) -> AsyncIterator[AsyncConnection]:
        """A PostgreSQL connection in autocommit mode, kept by the worker between uses (no
        pool checkout, ping, BEGIN or COMMIT per statement: each statement is atomic)."""
        connection = self._connections.pop() if self._connections else None
        if connection is None:
            connection = await self.engine.connect()
            await connection.execution_options(isolation_level="AUTOCOMMIT")
        try:
            yield connection
        except BaseException:
            try:
                await asyncio.shield(connection.invalidate())
            finally:
                await asyncio.shield(connection.close())
            raise
        self._connections.append(connection)

    async def _close_connections(self) -> None:
        while self._connections:
            await self._connections.pop().close()
