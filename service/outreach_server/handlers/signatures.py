"""Implementation of the `signatures` operations (outreach_api.interfaces.signatures)."""

from outreach_api.models import DeploymentOutcomeResponse, SignaturePushRequest

from ..context import RequestContext
from ..errors import not_implemented


class SignaturesService:
    """Per-mailbox signature deployment."""

    async def push_mailbox_signature(
        self,
        ctx: RequestContext,
        *,
        mailbox_id: int,
        body: SignaturePushRequest,
    ) -> DeploymentOutcomeResponse:
        raise not_implemented(ctx)
