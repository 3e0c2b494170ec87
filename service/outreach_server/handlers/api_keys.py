"""Implementation of the `api-keys` operations (outreach_api.interfaces.api_keys)."""

from outreach_api.models import ApiKeyCreatedResponse, ApiKeyCreateRequest, ApiKeyListResponse

from ..context import RequestContext
from ..errors import not_implemented


class ApiKeysService:
    """Organization API keys, live and test modes (served under /v1)."""

    async def list_api_keys(
        self,
        ctx: RequestContext,
    ) -> ApiKeyListResponse:
        raise not_implemented(ctx)

    async def create_api_key(
        self,
        ctx: RequestContext,
        *,
        body: ApiKeyCreateRequest,
    ) -> ApiKeyCreatedResponse:
        raise not_implemented(ctx)
