"""Implementation of the `lists` operations (outreach_api.interfaces.lists)."""

from outreach_api.models import (
    ListCreateRequest,
    ListRecord,
    ListRecordListResponse,
    ListRecordResponse,
)

from ..core.pagination import Page
from ..runtime.context import RequestContext, contact_scope
from . import seeding
from . import store as contact_store


class ListsHandlers:
    """Lists that contacts belong to (referred to only by name in the source; provisional)."""

    async def list_lists(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
    ) -> ListRecordListResponse:
        scope = await contact_scope(ctx)
        paging = Page(page, limit)
        async with ctx.services.engine.connect() as connection:
            records, total = await contact_store.page_of_lists(
                connection, scope, paging.offset, limit
            )
        return ListRecordListResponse(
            data=[ListRecord.model_validate(r) for r in records],
            pagination=paging.pagination(total),
        )

    async def create_list(
        self,
        ctx: RequestContext,
        *,
        body: ListCreateRequest,
    ) -> ListRecordResponse:
        key, _ = ctx.require_org()
        scope = await contact_scope(ctx)
        record = await seeding.create_list(
            ctx.services.engine,
            scope.org_id,
            body.name,
            body.type,
            grant_key_id=key.id if scope.list_ids is not None else None,
        )
        return ListRecordResponse(data=ListRecord.model_validate(record))
