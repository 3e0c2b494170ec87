"""Implementation of the `suppressions` operations (outreach_api.interfaces.suppressions).

Every operation reads or writes the suppression ledger (`outreach_server.ledger`), the same
store the send paths check, for the organisation the request acts for.
"""

from outreach_api.models import (
    BulkReinstateResponse,
    BulkReinstateResult,
    BulkSuppressRequest,
    BulkSuppressResponse,
    BulkSuppressResult,
    ReinstateSuppressionsRequest,
    SkippedReason,
    SuppressActionResponse,
    SuppressActionResult,
    SuppressContactRequest,
    SuppressionCategory,
    SuppressionChannel,
    SuppressionListResponse,
    SuppressionRecord,
    SuppressionStatus,
    SuppressionStatusResponse,
    UnsuppressActionResponse,
    UnsuppressActionResult,
)
from sqlalchemy import select

from ..contacts import ContactScope, Selection, require_contacts
from ..core.errors import ApiError
from ..core.tables import contacts
from ..runtime.context import RequestContext, contact_scope
from .store import ContactNotFound, SuppressionLedger, SuppressionRow

CONTACT_NOT_FOUND = "Contact not found"
MAX_IDS_IN_MESSAGE = 100


async def narrowed(ctx: RequestContext) -> ContactScope | None:
    """The key's scope when it is narrowed to lists (spec/DECISIONS.md row 82), else None."""
    scope = await contact_scope(ctx)
    return scope if scope.list_ids is not None else None


async def require_visible(ctx: RequestContext, contact_ids: list[int]) -> None:
    """404 "Contact not found" for ids outside a narrowed key's lists: the answer for an id
    that does not exist, so the key learns nothing about the rest of the organisation."""
    scope = await narrowed(ctx)
    if scope is None:
        return
    selection = Selection(scope.org_id, ids=tuple(contact_ids), visible=scope.contacts_visible())
    async with ctx.services.engine.connect() as connection:
        await require_contacts(connection, selection)


def ledger(ctx: RequestContext) -> SuppressionLedger:
    return SuppressionLedger(ctx.services.engine, ctx.services.reader)


def not_found(error: ContactNotFound, *, name_ids: bool) -> ApiError:
    """404 "Contact not found", naming the ids for a bulk request (at most 100 of them)."""
    if not name_ids:
        return ApiError(404, CONTACT_NOT_FOUND)
    ids = error.contact_ids
    named = ", ".join(map(str, ids[:MAX_IDS_IN_MESSAGE]))
    more = f" and {len(ids) - MAX_IDS_IN_MESSAGE} more" if len(ids) > MAX_IDS_IN_MESSAGE else ""
    return ApiError(404, f"{CONTACT_NOT_FOUND}: {named}{more}")


def record(row: SuppressionRow) -> SuppressionRecord:
    """A listed row: ids, channel, category, who/when; never personal data."""
    return SuppressionRecord(
        id=row.id,
        contact_id=row.contact_id,
        channel=SuppressionChannel(row.channel),
        category=SuppressionCategory(row.category),
        operator_reversible=row.operator_reversible,
        created_at=row.created_at,
        created_by=row.created_by,
    )


class SuppressionsHandlers:
    """Central ledger of opt-outs that every send path checks (sequencer, newsletter, audience sync)."""

    async def get_contact_suppression_status(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
    ) -> SuppressionStatusResponse:
        _, org_id = ctx.require_org()
        await require_visible(ctx, [contact_id])
        try:
            status = await ledger(ctx).status(org_id, contact_id)
        except ContactNotFound as error:
            raise not_found(error, name_ids=False) from None
        data = SuppressionStatus(
            contact_id=contact_id,
            channels=[SuppressionChannel(c) for c in status.channels],
            categories=[SuppressionCategory(c) for c in status.categories],
            operator_reversible=status.operator_reversible,
        )
        return SuppressionStatusResponse(data=data)

    async def list_suppressions(
        self,
        ctx: RequestContext,
        *,
        channel: SuppressionChannel | None,
        category: SuppressionCategory | None,
        limit: int,
        offset: int,
    ) -> SuppressionListResponse:
        _, org_id = ctx.require_org()
        scope = await narrowed(ctx)
        visible = None
        if scope is not None:
            visible = select(contacts.c.id).where(scope.contacts_visible())
        rows = await ledger(ctx).listing(
            org_id,
            channel=None if channel is None else channel.value,
            category=None if category is None else category.value,
            limit=limit,
            offset=offset,
            contacts_in=visible,
        )
        return SuppressionListResponse(data=[record(row) for row in rows])

    async def suppress_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
        body: SuppressContactRequest | None,
    ) -> SuppressActionResponse:
        key, org_id = ctx.require_org()
        await require_visible(ctx, [contact_id])
        try:
            done = await ledger(ctx).suppress(org_id, contact_id, actor=key.id)
        except ContactNotFound as error:
            raise not_found(error, name_ids=False) from None
        result = SuppressActionResult(contact_id=contact_id, suppressed=True, created=done.created)
        return SuppressActionResponse(data=result)

    async def unsuppress_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
        body: SuppressContactRequest | None,
    ) -> UnsuppressActionResponse:
        key, org_id = ctx.require_org()
        await require_visible(ctx, [contact_id])
        try:
            done = await ledger(ctx).unsuppress(org_id, contact_id, actor=key.id)
        except ContactNotFound as error:
            raise not_found(error, name_ids=False) from None
        result = UnsuppressActionResult(
            contact_id=contact_id,
            suppressed=done.status.suppressed,
            cleared=done.cleared,
            channels=[SuppressionChannel(c) for c in done.status.channels],
        )
        return UnsuppressActionResponse(data=result)

    async def bulk_add_suppressions(
        self,
        ctx: RequestContext,
        *,
        body: BulkSuppressRequest,
    ) -> BulkSuppressResponse:
        key, org_id = ctx.require_org()
        await require_visible(ctx, body.contact_ids)
        try:
            done = await ledger(ctx).bulk_add(org_id, body.contact_ids, actor=key.id)
        except ContactNotFound as error:
            raise not_found(error, name_ids=True) from None
        result = BulkSuppressResult(
            suppressed=done.added,
            already_suppressed=done.already_active,
            suppressed_count=len(done.added),
            already_suppressed_count=len(done.already_active),
        )
        return BulkSuppressResponse(data=result)

    async def reinstate_suppressions(
        self,
        ctx: RequestContext,
        *,
        body: ReinstateSuppressionsRequest,
    ) -> BulkReinstateResponse:
        key, org_id = ctx.require_org()
        await require_visible(ctx, body.contact_ids)
        try:
            done = await ledger(ctx).reinstate(org_id, body.contact_ids, actor=key.id)
        except ContactNotFound as error:
            raise not_found(error, name_ids=True) from None
        reasons = [
            SkippedReason(
                contact_id=skip.contact_id,
                reason=skip.reason,
                active_categories=[SuppressionCategory(c) for c in skip.active_categories],
            )
            for skip in done.skipped
        ]
        result = BulkReinstateResult(
            reinstated=done.reinstated,
            skipped=[skip.contact_id for skip in done.skipped],
            skipped_reasons=reasons,
        )
        return BulkReinstateResponse(data=result)
