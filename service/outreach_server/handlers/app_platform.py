"""Implementation of the `app-platform` operations (outreach_api.interfaces.app_platform)."""

from outreach_api.models import (
    AppTokenResponse,
    BrowserExchangeRequest,
    JwkSet,
    ServiceTokenRequest,
)

from ..context import RequestContext
from ..errors import not_implemented


class AppPlatformService:
    """App platform tokens (preview; gated by M6_APP_TOKENS_ENABLED)."""

    async def exchange_app_session(
        self,
        ctx: RequestContext,
        *,
        x_org_id: str | None,
        body: BrowserExchangeRequest,
    ) -> AppTokenResponse:
        raise not_implemented(ctx)

    async def mint_service_token(
        self,
        ctx: RequestContext,
        *,
        body: ServiceTokenRequest,
    ) -> AppTokenResponse:
        raise not_implemented(ctx)

    async def get_app_platform_jwks(
        self,
        ctx: RequestContext,
    ) -> JwkSet:
        raise not_implemented(ctx)
