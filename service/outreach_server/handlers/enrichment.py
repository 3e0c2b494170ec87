"""Implementation of the `enrichment` operations (outreach_api.interfaces.enrichment)."""

from outreach_api.models import (
    EmailAddressVerificationResponse,
    EmailAddressVerifyRequest,
    WaterfallConfigListResponse,
)

from ..context import RequestContext
from ..errors import not_implemented


class EnrichmentService:
    """Saved waterfall enrichment pipelines per list, and single-address verification."""

    async def verify_email_address(
        self,
        ctx: RequestContext,
        *,
        body: EmailAddressVerifyRequest,
    ) -> EmailAddressVerificationResponse:
        raise not_implemented(ctx)

    async def list_waterfall_configs(
        self,
        ctx: RequestContext,
        *,
        list_id: int,
    ) -> WaterfallConfigListResponse:
        raise not_implemented(ctx)
