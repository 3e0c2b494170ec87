"""Implementation of the `forms` operations (outreach_api.interfaces.forms)."""

from outreach_api.models import FormOverviewResponse

from ..context import RequestContext
from ..errors import not_implemented


class FormsService:
    """Per-form operational overview."""

    async def get_form_overview(
        self,
        ctx: RequestContext,
        *,
        form_key: str,
        source_id: str,
    ) -> FormOverviewResponse:
        raise not_implemented(ctx)
