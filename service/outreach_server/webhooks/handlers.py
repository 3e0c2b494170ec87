"""Implementation of the `webhooks` operations (outreach_api.interfaces.webhooks).

Authority (spec/DECISIONS.md row 130): every operation but the event catalogue carries the
scope `webhooks:manage` (checked with the tier by runtime/context.py); here, on top of it, a
test-mode key or a key narrowed to lists is refused (a webhook receives the events of the
whole organisation and redirects them wherever it points), and creating or changing a
webhook needs `contacts:read` too (its events carry contacts). An agency key acting for a
client organisation is recorded on the webhooks whose URL it sets (`agency_org_id`), so
they end with the link (row 131).

Provisional choices (recorded for DECISIONS): the 11th active webhook is refused with 400
(the spec's documented status); a create without a usable server key answers 503; a target
URL refused by the SSRF rules answers 400 with the reason; an empty `events` list is 400.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from outreach_api.models import (
    DeliveryStatus,
    Webhook,
    WebhookCreateRequest,
    WebhookDelivery,
    WebhookDeliveryListResponse,
    WebhookEventInfo,
    WebhookEventKind,
    WebhookEventListResponse,
    WebhookListResponse,
    WebhookResponse,
    WebhookUpdateRequest,
    WebhookWithSecret,
    WebhookWithSecretResponse,
)

from ..core.errors import ApiError
from ..core.pagination import Page
from ..core.secrets import NOT_CONFIGURED, SecretKeyMissing
from ..runtime.context import RequestContext, contact_scope
from .store import ActiveLimitReached, DeliveryRecord, WebhookRecord, WebhookStore
from .targets import TargetRefused, resolve_target

NOT_FOUND = "Webhook not found"
NO_FIELDS = "No fields to update"
NO_EVENTS = "At least one event is required"
TEST_KEY = "Test-mode API keys cannot manage webhooks"
NARROWED_KEY = "API keys narrowed to lists cannot manage webhooks"
READS_CONTACTS = "contacts:read"


async def _manager(ctx: RequestContext, *, subscribes: bool = False) -> int:
    """The organisation whose webhooks the request may manage (row 130); 403 otherwise."""
    key, org_id = ctx.require_org()
    if key.mode == "test":
        raise ApiError(403, TEST_KEY)
    if subscribes and READS_CONTACTS not in key.scopes:
        raise ApiError(403, f"API key lacks scope '{READS_CONTACTS}'")
    if (await contact_scope(ctx)).list_ids is not None:
        raise ApiError(403, NARROWED_KEY)
    return org_id


def _agency(ctx: RequestContext, org_id: int) -> int | None:
    """The agency organisation a request acts from, None for the organisation's own key."""
    key, _ = ctx.require_org()
    return key.org_id if key.org_id != org_id else None


def timestamp(ms: int) -> str:
    """Unix milliseconds as ISO 8601 without zone (UTC)."""
    moment = datetime.fromtimestamp(ms / 1000, UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds")


def _events(events: list[WebhookEventKind]) -> list[str]:
    unique = list(dict.fromkeys(str(event.value) for event in events))
    if not unique:
        raise ApiError(400, NO_EVENTS)
    return unique


def _public(record: WebhookRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "name": record.name,
        "url": record.url,
        "events": record.events,
        "is_active": record.is_active,
        "created_at": timestamp(record.created_at),
        "updated_at": timestamp(record.updated_at),
    }


def _delivery(record: DeliveryRecord) -> WebhookDelivery:
    return WebhookDelivery.model_validate(
        {
            "id": record.id,
            "event": record.event,
            "status": record.status,
            "attempts": record.attempts,
            "max_attempts": record.max_attempts,
            "response_code": record.response_code,
            "error_message": record.error_message,
            "created_at": timestamp(record.created_at),
            "completed_at": None if record.completed_at is None else timestamp(record.completed_at),
        }
    )


def _store(ctx: RequestContext) -> WebhookStore:
    return WebhookStore(ctx.services.engine, ctx.services.settings, ctx.services.reader)


async def _check_url(ctx: RequestContext, url: str) -> str:
    settings = ctx.services.settings
    try:
        resolved = await resolve_target(
            url,
            allow_http=settings.webhook_allow_http,
            allowed=settings.webhook_allowed_networks,
            resolver=ctx.services.resolver,
        )
    except TargetRefused as exc:
        raise ApiError(400, str(exc)) from None
    return resolved.target.url


class WebhooksHandlers:
    """Signed callbacks for events in the organization."""

    async def list_webhook_events(
        self,
        ctx: RequestContext,
    ) -> WebhookEventListResponse:
        ctx.require_org()
        return WebhookEventListResponse(
            data=[WebhookEventInfo(event=kind) for kind in WebhookEventKind]
        )

    async def list_webhooks(
        self,
        ctx: RequestContext,
        *,
        is_active: bool | None,
    ) -> WebhookListResponse:
        org_id = await _manager(ctx)
        records = await _store(ctx).list_all(org_id, is_active)
        return WebhookListResponse(data=[Webhook.model_validate(_public(r)) for r in records])

    async def create_webhook(
        self,
        ctx: RequestContext,
        *,
        body: WebhookCreateRequest,
    ) -> WebhookWithSecretResponse:
        org_id = await _manager(ctx, subscribes=True)
        events = _events(body.events)
        url = await _check_url(ctx, body.url)
        try:
            record, secret = await _store(ctx).create(
                org_id, url=url, events=events, name=body.name, agency_org_id=_agency(ctx, org_id)
            )
        except SecretKeyMissing:
            raise ApiError(503, NOT_CONFIGURED) from None
        except ActiveLimitReached as exc:
            raise ApiError(400, str(exc)) from None
        return WebhookWithSecretResponse(
            data=WebhookWithSecret.model_validate({**_public(record), "secret": secret})
        )

    async def get_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
    ) -> WebhookResponse:
        org_id = await _manager(ctx)
        record = await _store(ctx).get(org_id, webhook_id)
        if record is None:
            raise ApiError(404, NOT_FOUND)
        return WebhookResponse(data=Webhook.model_validate(_public(record)))

    async def delete_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
    ) -> None:
        org_id = await _manager(ctx)
        if not await _store(ctx).delete(org_id, webhook_id):
            raise ApiError(404, NOT_FOUND)

    async def update_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
        body: WebhookUpdateRequest,
    ) -> WebhookResponse:
        org_id = await _manager(ctx, subscribes=True)
        given = body.model_dump(exclude_unset=True)
        changes: dict[str, Any] = {}
        if "url" in given and body.url is not None:
            changes["url"] = await _check_url(ctx, body.url)
            changes["agency_org_id"] = _agency(ctx, org_id)  # whoever points it owns that
        if "events" in given and body.events is not None:
            changes["events"] = _events(body.events)
        if "name" in given:
            changes["name"] = body.name
        if "is_active" in given and body.is_active is not None:
            changes["is_active"] = body.is_active
        if not changes:
            raise ApiError(400, NO_FIELDS)
        store = _store(ctx)
        try:
            record = await store.update(org_id, webhook_id, changes)
        except ActiveLimitReached as exc:
            raise ApiError(400, str(exc)) from None
        if record is None:
            raise ApiError(404, NOT_FOUND)
        return WebhookResponse(data=Webhook.model_validate(_public(record)))

    async def list_webhook_deliveries(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
        page: int,
        limit: int,
        status: DeliveryStatus | None,
    ) -> WebhookDeliveryListResponse:
        org_id = await _manager(ctx)
        request = Page(page, limit)
        found = await _store(ctx).deliveries(
            org_id,
            webhook_id,
            offset=request.offset,
            limit=limit,
            status=None if status is None else str(status.value),
        )
        if found is None:
            raise ApiError(404, NOT_FOUND)
        rows, total = found
        return WebhookDeliveryListResponse(
            data=[_delivery(row) for row in rows], pagination=request.pagination(total)
        )
