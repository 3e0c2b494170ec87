"""Implementation of the `app-platform` operations (outreach_api.interfaces.app_platform).

None of the three takes an API key: the exchange reads the identity-provider principal from
the Authorization header itself, the service token reads the client credential from the body,
and the JWK Set is public. Order of the checks, each a provisional choice:

- exchange: principal (401) -> X-Org-Id, when given, must be the principal's organisation
  (403) -> feature flag of the principal's organisation (404) -> limiter per principal and
  app (429) -> consented installation of the app in that organisation (403) -> token;
- service token: limiter per client id, before the credential is looked at (429) ->
  credential (401) -> feature flag of the credential's organisation (404) -> consented
  installation still there (401) -> token;
- JWK Set: names no organisation, so it is never gated: empty while there is no signing key.
"""

from __future__ import annotations

import hashlib
from typing import Any

from outreach_api.models import (
    AppToken,
    AppTokenResponse,
    BrowserExchangeRequest,
    JwkSet,
    ServiceTokenRequest,
)

from ..core.errors import ApiError
from ..runtime.context import RequestContext, bearer_token, enforce_limit, require_feature
from .principals import Principal
from .tokens import AppTokens, SigningKeyUnavailable

NO_PRINCIPAL = "Missing or invalid identity-provider principal"
FOREIGN_ORG = "X-Org-Id does not match the principal's organization"
NO_CONSENT = "No consented installation of the app in the organization"
INVALID_CREDENTIAL = "Invalid client credential"
SIGNING_UNAVAILABLE = "App token signing is not configured"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


async def _mint(tokens: AppTokens, **claims: Any) -> AppTokenResponse:
    try:
        issued = await tokens.mint(**claims)
    except SigningKeyUnavailable:
        raise ApiError(503, SIGNING_UNAVAILABLE) from None
    return AppTokenResponse(data=AppToken.model_validate(issued.response()))


class AppPlatformHandlers:
    """App platform tokens (preview; gated by M6_APP_TOKENS_ENABLED)."""

    async def exchange_app_session(
        self,
        ctx: RequestContext,
        *,
        x_org_id: str | None,
        body: BrowserExchangeRequest,
    ) -> AppTokenResponse:
        platform = ctx.services.app_platform
        header = ctx.request.headers.get("authorization")
        principal: Principal | None = None
        if header is not None:
            principal = platform.principals.verify(bearer_token(header))
        if principal is None:
            raise ApiError(401, NO_PRINCIPAL, {"WWW-Authenticate": "Bearer"})
        # identity comes from the principal only; the body names nothing but the app
        if x_org_id is not None and x_org_id.strip() != str(principal.org_id):
            raise ApiError(403, FOREIGN_ORG)
        await require_feature(ctx.services, ctx.operation, principal.org_id)
        await enforce_limit(platform.exchange_limiter, _digest(principal.limiter_key, body.app_id))
        if not await platform.registry.consented(principal.org_id, body.app_id):
            raise ApiError(403, NO_CONSENT)
        return await _mint(
            platform.tokens,
            subject=principal.subject,
            org_id=principal.org_id,
            app_id=body.app_id,
            role=principal.role,
            token_use="session",
        )

    async def mint_service_token(
        self,
        ctx: RequestContext,
        *,
        body: ServiceTokenRequest,
    ) -> AppTokenResponse:
        platform = ctx.services.app_platform
        # throttled before the credential is looked at: wrong secrets use up the budget too
        await enforce_limit(platform.service_token_limiter, _digest(body.client_id))
        credential = await platform.registry.authenticate(body.client_id, body.client_secret)
        if credential is None:
            raise ApiError(401, INVALID_CREDENTIAL)
        await require_feature(ctx.services, ctx.operation, credential.org_id)
        if not await platform.registry.consented(credential.org_id, credential.app_id):
            raise ApiError(401, INVALID_CREDENTIAL)
        return await _mint(
            platform.tokens,
            subject=credential.client_id,
            org_id=credential.org_id,
            app_id=credential.app_id,
            token_use="service",
        )

    async def get_app_platform_jwks(
        self,
        ctx: RequestContext,
    ) -> JwkSet:
        return JwkSet.model_validate(await ctx.services.app_platform.tokens.jwks())
