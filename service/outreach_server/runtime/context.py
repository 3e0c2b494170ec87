"""The request context every handler receives, and the dependency that builds it.

For an operation that takes an API key, before the handler runs: authenticate the key
(401), apply the key's rate limit (429, or 503 when the shared store is down), resolve
the target organisation (403), enforce the operation's tier and scope (403) and its
feature flag (404 while gated). Each number comes from the spec through the generated
constants; each message is the document's where it names one.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Request
from outreach_api import OperationInfo

from ..contacts import ContactScope
from ..core.errors import ApiError
from ..core.identifiers import org_id_from_text
from ..core.limiter import Decision, RateLimiter, RateLimiterUnavailable
from ..core.request_guard import RATE_HEADERS_STATE
from ..keys import ApiKeyRecord
from .services import Services

MISSING_AUTHORIZATION = "Missing Authorization header"
JWT_INSTEAD_OF_KEY = "JWT token provided instead of API key"
INVALID_KEY = "Invalid or expired API key"
NO_ORGANIZATION = "API key not associated with an organization"
RATE_LIMITED = "Rate limit exceeded. Please slow down."
LIMITER_DOWN = "Rate limiter unavailable"
FOREIGN_TARGET = "API key may not act for the target organization"
TEST_KEY_SPENDS = "Test-mode API keys cannot spend credits"
MAX_TOKEN_LENGTH = 256
API_KEY_SCHEME = "ApiKey"


@dataclass(frozen=True)
class RequestContext:
    operation: OperationInfo
    request: Request
    services: Services
    key: ApiKeyRecord | None = None
    org_id: int | None = None  # the organisation the request acts for

    def require_org(self) -> tuple[ApiKeyRecord, int]:
        if self.key is None or self.org_id is None:
            raise ApiError(401, MISSING_AUTHORIZATION)
        return self.key, self.org_id


async def contact_scope(ctx: RequestContext) -> ContactScope:
    """What the request's key sees in the organisation it acts for."""
    key, org_id = ctx.require_org()
    return await ContactScope.for_key(ctx.services.reader, key.id, org_id)


def bearer_token(header: str) -> str:
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def looks_like_jwt(token: str) -> bool:
    """Three base64url segments whose first decodes to a JSON header naming an algorithm."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and "alg" in header


async def enforce_limit(
    limiter: RateLimiter, key: str, headers: dict[str, str] | None = None
) -> Decision:
    """One request of `key` against `limiter`: 429 with Retry-After when refused, 503 when the
    limiter's store is unreachable (never an unlimited request)."""
    try:
        decision = await limiter.hit(key)
    except RateLimiterUnavailable:
        raise ApiError(503, LIMITER_DOWN) from None
    if not decision.allowed:
        refused = {"Retry-After": str(decision.retry_after), **rate_limit_headers(decision)}
        raise ApiError(429, RATE_LIMITED, {**refused, **(headers or {})})
    return decision


def rate_limit_headers(decision: Decision) -> dict[str, str]:
    """`X-RateLimit-Remaining` (places left in the fuller of the two windows) and
    `X-RateLimit-Reset` (whole seconds until that window has room again: 0 while it has; at
    most 1 for the second window and 60 for the minute window), on every keyed answer."""
    remaining = max(0, min(decision.remaining_second, decision.remaining_minute))
    if not decision.allowed:
        reset = decision.retry_after
    elif remaining > 0:
        reset = 0
    else:
        reset = 1 if decision.remaining_second <= decision.remaining_minute else 60
    return {"X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset": str(reset)}


async def require_feature(services: Services, operation: OperationInfo, org_id: int) -> None:
    """A gated (preview) operation is 404 until its flag is on for the organisation."""
    flag = operation.feature_flag
    if flag and not await services.orgs.flag_enabled(org_id, flag):
        raise ApiError(404, "Not Found")


class Authenticator:
    """Builds the FastAPI dependency of each operation (the generated routers' context provider)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        limits = services.settings
        self.rate_headers = {
            "X-RateLimit-Limit-Minute": str(limits.rate_limit_per_minute),
            "X-RateLimit-Limit-Second": str(limits.rate_limit_per_second),
        }

    def __call__(self, operation: OperationInfo) -> Callable[[Request], Awaitable[RequestContext]]:
        services = self.services
        if not any(API_KEY_SCHEME in alternative for alternative in operation.security):

            async def open_dependency(request: Request) -> RequestContext:
                return RequestContext(operation, request, services)

            return open_dependency

        async def dependency(request: Request) -> RequestContext:
            key = await self.authenticate(request.headers.get("authorization"))
            decision = await self.rate_limit(key)
            # in the request's state (as request.state would, without building its wrapper)
            request.scope.setdefault("state", {})[RATE_HEADERS_STATE] = rate_limit_headers(decision)
            org_id = await self.target(key, request.headers.get("x-target-org-id"))
            self.authorize(operation, key)
            await require_feature(services, operation, org_id)
            await services.keys.touch(key)
            return RequestContext(operation, request, services, key, org_id)

        return dependency

    async def authenticate(self, header: str | None) -> ApiKeyRecord:
        if header is None:
            raise ApiError(401, MISSING_AUTHORIZATION)
        token = bearer_token(header)
        if looks_like_jwt(token):
            raise ApiError(401, JWT_INSTEAD_OF_KEY)
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise ApiError(401, INVALID_KEY)
        key = await self.services.keys.authenticate(token)
        if key is None:
            raise ApiError(401, INVALID_KEY)
        if key.org_id is None:
            raise ApiError(401, NO_ORGANIZATION)
        return key

    async def rate_limit(self, key: ApiKeyRecord) -> Decision:
        return await enforce_limit(self.services.limiter, key.id, self.rate_headers)

    async def target(self, key: ApiKeyRecord, header: str | None) -> int:
        """The organisation the request acts for; the same refusal whatever the reason."""
        assert key.org_id is not None
        if header is None or header.strip() == str(key.org_id):
            return key.org_id
        target = org_id_from_text(header.strip())  # ASCII digits only (core/identifiers.py)
        if (
            key.is_agency
            and target is not None
            and await self.services.orgs.is_linked(key.org_id, target)
        ):
            return target
        raise ApiError(403, FOREIGN_TARGET)

    @staticmethod
    def authorize(operation: OperationInfo, key: ApiKeyRecord) -> None:
        if operation.tier and not key.allows_tier(operation.tier):
            raise ApiError(
                403, f"API key tier '{key.tier}' does not allow '{operation.tier}' operations"
            )
        if operation.scope and operation.scope not in key.scopes:
            raise ApiError(403, f"API key lacks scope '{operation.scope}'")
        if operation.tier == "billable" and key.mode == "test":
            raise ApiError(403, TEST_KEY_SPENDS)  # spec/DECISIONS.md row 115
