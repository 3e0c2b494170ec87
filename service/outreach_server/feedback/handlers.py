"""Implementation of the `feedback` operations (outreach_api.interfaces.feedback)."""

from __future__ import annotations

from outreach_api.models import SurveyTriggerDeletionResponse, SurveyTriggerDeletionResult

from ..core.errors import ApiError, ApiValidationError
from ..runtime.context import RequestContext
from .store import canonical_uuid, delete_trigger, survey_exists

SURVEY_NOT_FOUND = "Survey not found"
TRIGGER_NOT_FOUND = "Survey trigger not found"


class FeedbackHandlers:
    """Feedback survey automated-send triggers."""

    async def delete_survey_trigger(
        self,
        ctx: RequestContext,
        *,
        survey_id: str,
        trigger_id: str,
    ) -> SurveyTriggerDeletionResponse:
        _, org_id = ctx.require_org()
        survey = canonical_uuid(survey_id)
        if survey is None:
            raise ApiValidationError(
                ["path", "survey_id"], "survey_id must be a UUID", "uuid_parsing"
            )
        if not await survey_exists(ctx.services.reader, org_id, survey):
            raise ApiError(404, SURVEY_NOT_FOUND)
        if not await delete_trigger(ctx.services.engine, org_id, survey, trigger_id):
            raise ApiError(404, TRIGGER_NOT_FOUND)
        return SurveyTriggerDeletionResponse(
            data=SurveyTriggerDeletionResult(deleted=True, trigger_id=trigger_id, survey_id=survey)
        )
