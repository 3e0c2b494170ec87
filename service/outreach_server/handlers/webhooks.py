"""Implementation of the `webhooks` operations (outreach_api.interfaces.webhooks)."""

from outreach_api.models import (
    DeliveryStatus,
    WebhookCreateRequest,
    WebhookDeliveryListResponse,
    WebhookEventListResponse,
    WebhookListResponse,
    WebhookResponse,
    WebhookUpdateRequest,
    WebhookWithSecretResponse,
)

from ..context import RequestContext
from ..errors import not_implemented


class WebhooksService:
    """Signed callbacks for events in the organization."""

    async def list_webhook_events(
        self,
        ctx: RequestContext,
    ) -> WebhookEventListResponse:
        raise not_implemented(ctx)

    async def list_webhooks(
        self,
        ctx: RequestContext,
        *,
        is_active: bool | None,
    ) -> WebhookListResponse:
        raise not_implemented(ctx)

    async def create_webhook(
        self,
        ctx: RequestContext,
        *,
        body: WebhookCreateRequest,
    ) -> WebhookWithSecretResponse:
        raise not_implemented(ctx)

    async def get_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
    ) -> WebhookResponse:
        raise not_implemented(ctx)

    async def delete_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
    ) -> None:
        raise not_implemented(ctx)

    async def update_webhook(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
        body: WebhookUpdateRequest,
    ) -> WebhookResponse:
        raise not_implemented(ctx)

    async def list_webhook_deliveries(
        self,
        ctx: RequestContext,
        *,
        webhook_id: str,
        page: int,
        limit: int,
        status: DeliveryStatus | None,
    ) -> WebhookDeliveryListResponse:
        raise not_implemented(ctx)
