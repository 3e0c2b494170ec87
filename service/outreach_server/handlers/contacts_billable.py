"""The billable contact operations (scope enrichment:run, tier billable): verification and unlocks.

Mixed into ContactsService (handlers/contacts.py), which implements the `contacts` interface.
"""

from outreach_api.models import (
    AsyncVerifyEmailRequest,
    AsyncVerifyEmailResponse,
    UnlockInfoRequest,
    UnlockInfoResponse,
    VerifyEmailRequest,
    VerifyEmailResponse,
)

from ..context import RequestContext
from ..errors import not_implemented


class ContactBillingOperations:
    """verify-email (sync and async) and unlock-info, against the organisation's credit balance."""

    async def verify_contact_emails(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
        filter_model: str | None,
        body: VerifyEmailRequest,
    ) -> VerifyEmailResponse:
        raise not_implemented(ctx)

    async def verify_contact_emails_async(
        self,
        ctx: RequestContext,
        *,
        body: AsyncVerifyEmailRequest,
    ) -> AsyncVerifyEmailResponse:
        raise not_implemented(ctx)

    async def unlock_contact_info(
        self,
        ctx: RequestContext,
        *,
        filter_model: str | None,
        body: UnlockInfoRequest,
    ) -> UnlockInfoResponse:
        raise not_implemented(ctx)
