"""Implementation of the `signatures` operations (outreach_api.interfaces.signatures)."""

from __future__ import annotations

from outreach_api.models import DeploymentOutcome, DeploymentOutcomeResponse, SignaturePushRequest

from ..core.errors import ApiError
from ..runtime.context import RequestContext
from .store import QUEUED, MailboxNotFound, StaleRevision, push

MAILBOX_NOT_FOUND = "Mailbox not found"


class SignaturesHandlers:
    """Per-mailbox signature deployment."""

    async def push_mailbox_signature(
        self,
        ctx: RequestContext,
        *,
        mailbox_id: int,
        body: SignaturePushRequest,
    ) -> DeploymentOutcomeResponse:
        _, org_id = ctx.require_org()
        try:
            pushed = await push(ctx.services.engine, org_id, mailbox_id, body.version)
        except MailboxNotFound:
            raise ApiError(404, MAILBOX_NOT_FOUND) from None
        except StaleRevision as stale:
            raise ApiError(
                409,
                f"Revision mismatch: the mailbox signature is at revision {stale.current}, "
                f"not {body.version}; read it again and retry",
            ) from None
        outcome = DeploymentOutcome(
            status=QUEUED,
            message=f"Re-compile and re-install queued for mailbox {mailbox_id}",
            revision=pushed.revision,
        )
        return DeploymentOutcomeResponse(data=outcome)
