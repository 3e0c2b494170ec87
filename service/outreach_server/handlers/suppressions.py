"""Implementation of the `suppressions` operations (outreach_api.interfaces.suppressions)."""

from outreach_api.models import (
    BulkReinstateResponse,
    BulkSuppressRequest,
    BulkSuppressResponse,
    ReinstateSuppressionsRequest,
    SuppressActionResponse,
    SuppressContactRequest,
    SuppressionCategory,
    SuppressionChannel,
    SuppressionListResponse,
    SuppressionStatusResponse,
    UnsuppressActionResponse,
)

from ..context import RequestContext
from ..errors import not_implemented


class SuppressionsService:
    """Central ledger of opt-outs that every send path checks (sequencer, newsletter, audience sync)."""

    async def get_contact_suppression_status(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
    ) -> SuppressionStatusResponse:
        raise not_implemented(ctx)

    async def list_suppressions(
        self,
        ctx: RequestContext,
        *,
        channel: SuppressionChannel | None,
        category: SuppressionCategory | None,
        limit: int,
        offset: int,
    ) -> SuppressionListResponse:
        raise not_implemented(ctx)

    async def suppress_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
        body: SuppressContactRequest | None,
    ) -> SuppressActionResponse:
        raise not_implemented(ctx)

    async def unsuppress_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
        body: SuppressContactRequest | None,
    ) -> UnsuppressActionResponse:
        raise not_implemented(ctx)

    async def bulk_add_suppressions(
        self,
        ctx: RequestContext,
        *,
        body: BulkSuppressRequest,
    ) -> BulkSuppressResponse:
        raise not_implemented(ctx)

    async def reinstate_suppressions(
        self,
        ctx: RequestContext,
        *,
        body: ReinstateSuppressionsRequest,
    ) -> BulkReinstateResponse:
        raise not_implemented(ctx)
