"""Implementation of the `lists` operations (outreach_api.interfaces.lists)."""

from outreach_api.models import ListCreateRequest, ListRecordListResponse, ListRecordResponse

from ..context import RequestContext
from ..errors import not_implemented


class ListsService:
    """Lists that contacts belong to (referred to only by name in the source; provisional)."""

    async def list_lists(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
    ) -> ListRecordListResponse:
        raise not_implemented(ctx)

    async def create_list(
        self,
        ctx: RequestContext,
        *,
        body: ListCreateRequest,
    ) -> ListRecordResponse:
        raise not_implemented(ctx)
