"""Implementation of the `forms` operations (outreach_api.interfaces.forms)."""

from __future__ import annotations

from outreach_api.models import FormOverviewResponse

from ..core.errors import ApiError
from ..runtime.context import RequestContext
from .store import find_overview

FORM_NOT_FOUND = "Form not found"


class FormsHandlers:
    """Per-form operational overview."""

    async def get_form_overview(
        self,
        ctx: RequestContext,
        *,
        form_key: str,
        source_id: str,
    ) -> FormOverviewResponse:
        _, org_id = ctx.require_org()
        found = await find_overview(ctx.services.reader, org_id, source_id, form_key)
        if found is None:
            raise ApiError(404, FORM_NOT_FOUND)
        return FormOverviewResponse(data=found)
