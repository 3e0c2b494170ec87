"""One delivery attempt over HTTP: the signed POST of a claimed row, and its outcome.

The target is resolved and checked (webhook_targets, through caches.TargetCache) and the
connection goes to the checked address. POSTs go over HTTP/1.1 keep-alive connections, at
most `per_target` at once per target (scheme, address, port, host; webhooks/transport.py),
each bounded by webhook_timeout as a whole. An attempt that cannot get a slot of its target
within DNS timeout + 1 s of its claim is released unsent (RELEASED: the row is due again at
once, nothing is recorded): its lease would otherwise run out while it waits behind a slow
target. A slow or hanging target holds only its own slots.

Outcome: only a 2xx answer is success (a redirect is not followed and counts as a failure).
A timeout reads "Timed out after 10 s".

The request: POST of the event envelope `{"id", "event", "created_at", "data"}` as compact
JSON (the same bytes on every attempt) with headers X-Webhook-Signature (hex HMAC-SHA256 of
those bytes), X-Webhook-Event-Id, X-Webhook-Event, X-Webhook-Delivery-Id (this attempt's row)
and X-Webhook-Attempt.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from typing import Any

import httpcore
from outreach_api.constants import WEBHOOK_DELIVERY_SIGNATURE_HEADER

from ..core.resolver import Resolver, ip_literal
from ..core.secrets import SecretKeyMissing, SecretUndecryptable
from ..core.settings import Settings
from .caches import MAX_ENTRIES, SecretCache, TargetCache
from .queue import LEASE_MARGIN_SECONDS, RELEASED, Claimed, Outcome
from .signature import sign
from .targets import TargetRefused
from .transport import TargetKey, Transport

MAX_ERROR_LENGTH = 500
USER_AGENT = "outreach-webhooks/1"

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


class Sender:
    """Makes attempts: the transport (connections per target), the caches, and which target
    each webhook last went to (so a claim can leave out webhooks whose target is saturated)."""

    def __init__(self, settings: Settings, resolver: Resolver, per_target: int) -> None:
        self.settings = settings
        self.per_target = per_target
        self.targets = TargetCache(settings, resolver)
        self.secrets = SecretCache(settings)
        self._transport: Transport | None = None
        self._target_of: dict[str, TargetKey] = {}  # webhook id -> its last target

    def _http(self) -> Transport:
        if self._transport is None:
            self._transport = Transport(self.per_target)
        return self._transport

    def saturated_webhooks(self) -> list[str]:
        """The webhooks whose last target has 4 x per_target attempts queued."""
        transport = self._transport
        if transport is None:
            return []
        return sorted(
            webhook_id for webhook_id, key in self._target_of.items() if transport.saturated(key)
        )

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None

    async def attempt(self, item: Claimed) -> Outcome | None:
        """The outcome of one attempt; None (RELEASED) when it was not made."""
        if item.url is None:
            return Outcome(False, None, "Webhook or event no longer exists", final=True)
        if not item.is_active:  # failed without retry (spec/DECISIONS.md row 96)
            return Outcome(False, None, "Webhook is disabled", final=True)
        if item.agency_ended:  # spec/DECISIONS.md row 131
            return Outcome(False, None, "Agency link ended", final=True)
        try:
            secret = self.secrets.secret(item.webhook_id, item.secret_encrypted)
        except (SecretKeyMissing, SecretUndecryptable) as exc:
            return Outcome(False, None, f"Webhook secret unavailable: {exc}")
        body = envelope(item.event_id, item.event, item.created_at, item.payload)
        try:
            resolved = await self.targets.resolve(item.url)
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
        if len(self._target_of) > MAX_ENTRIES:
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
