"""Implementation of the `feedback` operations (outreach_api.interfaces.feedback)."""

from outreach_api.models import SurveyTriggerDeletionResponse

from ..context import RequestContext
from ..errors import not_implemented


class FeedbackService:
    """Feedback survey automated-send triggers."""

    async def delete_survey_trigger(
        self,
        ctx: RequestContext,
        *,
        survey_id: str,
        trigger_id: str,
    ) -> SurveyTriggerDeletionResponse:
        raise not_implemented(ctx)
