"""Implementation of the `enrichment` operations (outreach_api.interfaces.enrichment)."""

from __future__ import annotations

from outreach_api.models import (
    EmailAddressVerification,
    EmailAddressVerificationResponse,
    EmailAddressVerifyRequest,
    WaterfallConfigList,
    WaterfallConfigListResponse,
)

from ..billing import (
    ADDRESS_CHECK_CREDITS,
    InsufficientCredits,
    charge,
    ensure_affordable,
    verify_address,
)
from ..contacts import get_list
from ..runtime.context import RequestContext, contact_scope
from .configs import configs_for_list

OPERATION = "verify_email_address"


class EnrichmentHandlers:
    """Saved waterfall enrichment pipelines per list, and single-address verification."""

    async def verify_email_address(
        self,
        ctx: RequestContext,
        *,
        body: EmailAddressVerifyRequest,
    ) -> EmailAddressVerificationResponse:
        """Check one address; stores nothing but the charge (which does not name the address)."""
        _, org_id = ctx.require_org()
        services = ctx.services
        try:
            await ensure_affordable(services.reader, org_id, ADDRESS_CHECK_CREDITS)
            verdict = await verify_address(body.email, services.resolver)
            answer = EmailAddressVerificationResponse(
                data=EmailAddressVerification.model_validate(
                    {
                        "email": body.email,
                        "status": verdict.status,
                        "reason": verdict.reason,
                        "domain": verdict.domain,
                        "mx_hosts": list(verdict.mx_hosts),
                        "credits_charged": ADDRESS_CHECK_CREDITS,
                    }
                )
            )
            async with services.engine.begin() as connection:
                await charge(
                    connection, org_id, ADDRESS_CHECK_CREDITS, operation=OPERATION, units=1
                )
                # the charge commits only with an answer that will be sent: serialising it
                # is the last thing that can fail, and failing rolls the charge back
                answer.model_dump_json()
        except InsufficientCredits as short:
            raise short.refusal() from None
        return answer

    async def list_waterfall_configs(
        self,
        ctx: RequestContext,
        *,
        list_id: int,
    ) -> WaterfallConfigListResponse:
        _, org_id = ctx.require_org()
        await get_list(ctx.services.reader, await contact_scope(ctx), list_id)
        configs = await configs_for_list(ctx.services.reader, org_id, list_id)
        return WaterfallConfigListResponse(
            data=WaterfallConfigList(configs=configs, count=len(configs), list_id=list_id)
        )
