"""The billable contact operations (scope enrichment:run, tier billable): verification and unlocks.

Mixed into ContactsHandlers (contacts/handlers.py), which implements the `contacts` interface.
Each spends the organisation's credits (credits.py); a short balance refuses the whole
request before anything is charged or written (402, provisional).
"""

from __future__ import annotations

from outreach_api.constants import LIMITS_VERIFY_EMAIL_MAX_CONTACTS
from outreach_api.models import (
    AsyncVerifyEmailAccepted,
    AsyncVerifyEmailRequest,
    AsyncVerifyEmailResponse,
    UnlockInfoRequest,
    UnlockInfoResponse,
    UnlockInfoResult,
    VerifyEmailRequest,
    VerifyEmailResponse,
    VerifyEmailResult,
)

from ..contacts import (
    ContactScope,
    Selection,
    count_selected,
    filter_condition,
    require_contacts,
    require_list,
    selected_rows,
    unique_ids,
)
from ..core.errors import ApiError
from ..runtime.context import RequestContext, contact_scope
from .balances import InsufficientCredits
from .unlocks import unlock
from .verification import MAX_UNFINISHED_JOBS, TooManyJobs, enqueue, verify_now

SYNC_SELECTION_REQUIRED = "contact_ids is required, or list_id with filterModel"
FILTER_NEEDS_LIST = "list_id is required with filterModel"
IDS_OR_ALL = "contact_ids or all_matching is required"
IDS_AND_ALL = "Give contact_ids or all_matching, not both"
FILTER_NEEDS_ALL = "A filter selects contacts only with all_matching"
TOO_MANY_JOBS = (  # spec/DECISIONS.md row 124
    f"Too many verification jobs in progress: an organization has at most {MAX_UNFINISHED_JOBS} "
    "queued or running; retry once one has finished"
)


def _too_many(matched: int) -> ApiError:
    return ApiError(
        400,
        f"The selection matches {matched} contacts; at most {LIMITS_VERIFY_EMAIL_MAX_CONTACTS} "
        "are verified synchronously (use POST /contacts/verify-email/async)",
    )


async def _bulk_selection(
    ctx: RequestContext,
    scope: ContactScope,
    list_id: int,
    contact_ids: list[int] | None,
    all_matching: bool,
    has_filter: bool,
) -> tuple[int, ...] | None:
    """The explicit ids of an async/unlock request (None: every matching contact)."""
    if contact_ids and all_matching:
        raise ApiError(400, IDS_AND_ALL)
    if not contact_ids and not all_matching:
        raise ApiError(400, IDS_OR_ALL)
    if contact_ids and has_filter:
        raise ApiError(400, FILTER_NEEDS_ALL)
    await require_list(ctx.services.reader, scope, list_id)
    return tuple(unique_ids(contact_ids)) if contact_ids else None


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
        _, org_id = ctx.require_org()
        scope = await contact_scope(ctx)
        has_filter = bool(filter_model and filter_model.strip())
        if has_filter and list_id is None:
            raise ApiError(400, FILTER_NEEDS_LIST)
        if list_id is not None:
            await require_list(ctx.services.reader, scope, list_id)
        visible = scope.contacts_visible()
        async with ctx.services.engine.connect() as connection:
            loc = ("query", "filterModel")
            condition = await filter_condition(connection, scope, list_id, filter_model, loc)
            if condition is not None:  # the filter selection replaces the ids of the body
                selection = Selection(org_id, list_id, condition=condition, visible=visible)
            elif body.contact_ids:
                ids = tuple(unique_ids(body.contact_ids))
                selection = Selection(org_id, list_id, ids=ids, visible=visible)
            else:
                raise ApiError(400, SYNC_SELECTION_REQUIRED)
            await require_contacts(connection, selection)
            rows = await selected_rows(connection, selection, LIMITS_VERIFY_EMAIL_MAX_CONTACTS)
            if len(rows) > LIMITS_VERIFY_EMAIL_MAX_CONTACTS:
                raise _too_many(await count_selected(connection, selection))
        services = ctx.services
        try:
            result = await verify_now(
                services.engine, services.reader, services.resolver, org_id, rows
            )
        except InsufficientCredits as short:
            raise short.refusal() from None
        return VerifyEmailResponse(data=VerifyEmailResult.model_validate(result))

    async def verify_contact_emails_async(
        self,
        ctx: RequestContext,
        *,
        body: AsyncVerifyEmailRequest,
    ) -> AsyncVerifyEmailResponse:
        _, org_id = ctx.require_org()
        scope = await contact_scope(ctx)
        model = body.filter_model.model_dump() if body.filter_model is not None else None
        ids = await _bulk_selection(
            ctx, scope, body.list_id, body.contact_ids, body.all_matching, bool(model)
        )
        async with ctx.services.engine.connect() as connection:
            loc = ("body", "filter_model")
            condition = await filter_condition(connection, scope, body.list_id, model, loc)
            selection = Selection(
                org_id, body.list_id, ids=ids, condition=condition, visible=scope.contacts_visible()
            )
            await require_contacts(connection, selection)
        try:
            accepted = await enqueue(ctx.services.engine, selection, body.list_id)
        except InsufficientCredits as short:
            raise short.refusal() from None
        except TooManyJobs:
            raise ApiError(429, TOO_MANY_JOBS) from None
        if accepted.contacts:
            ctx.services.verification.kick()
        data = AsyncVerifyEmailAccepted.model_validate(
            {
                "contacts_accepted": accepted.contacts,
                "addresses_accepted": accepted.addresses,
                "credits_charged": accepted.credits_charged,
                "job_id": accepted.job_id,
            }
        )
        return AsyncVerifyEmailResponse(data=data)

    async def unlock_contact_info(
        self,
        ctx: RequestContext,
        *,
        filter_model: str | None,
        body: UnlockInfoRequest,
    ) -> UnlockInfoResponse:
        _, org_id = ctx.require_org()
        scope = await contact_scope(ctx)
        has_filter = bool(filter_model and filter_model.strip())
        ids = await _bulk_selection(
            ctx, scope, body.list_id, body.contact_ids, body.all_matching, has_filter
        )
        async with ctx.services.engine.connect() as connection:
            loc = ("query", "filterModel")
            condition = await filter_condition(connection, scope, body.list_id, filter_model, loc)
            selection = Selection(
                org_id, body.list_id, ids=ids, condition=condition, visible=scope.contacts_visible()
            )
            await require_contacts(connection, selection)
        try:
            done = await unlock(ctx.services.engine, selection)
        except InsufficientCredits as short:
            raise short.refusal() from None
        data = UnlockInfoResult.model_validate(
            {
                "unlocked": done.selected,
                "newly_unlocked": done.newly_unlocked,
                "already_unlocked": done.selected - done.newly_unlocked,
                "credits_charged": done.credits_charged,
            }
        )
        return UnlockInfoResponse(data=data)
