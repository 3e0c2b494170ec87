"""The request context every handler receives, and the dependency that builds it.

This is the skeleton of authentication: it answers the document's 401s that need
no storage (missing header, a JWT where an API key is expected). Key lookup,
tiers, scopes, organisation targeting and rate limiting come with the service core.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Request
from outreach_api import OperationInfo

from .errors import ApiError

MISSING_AUTHORIZATION = "Missing Authorization header"
JWT_INSTEAD_OF_KEY = "JWT token provided instead of API key"


@dataclass(frozen=True)
class RequestContext:
    operation: OperationInfo
    request: Request
    api_key: str | None


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return ""
    return token.strip()


def looks_like_jwt(token: str) -> bool:
    parts = token.split(".")
    return len(parts) == 3 and all(parts) and token.startswith("eyJ")


def context_provider(operation: OperationInfo) -> Callable[[Request], Awaitable[RequestContext]]:
    """The FastAPI dependency for one operation: authenticate, then build the context."""
    uses_api_key = any("ApiKey" in alternative for alternative in operation.security)

    async def dependency(request: Request) -> RequestContext:
        token = bearer_token(request) if uses_api_key else None
        if uses_api_key:
            if token is None:
                raise ApiError(401, MISSING_AUTHORIZATION)
            if looks_like_jwt(token):
                raise ApiError(401, JWT_INSTEAD_OF_KEY)
            if not token:
                raise ApiError(401, "Invalid or expired API key")
        return RequestContext(operation=operation, request=request, api_key=token)

    return dependency
