"""The operations of bench/serve_mix.py written by hand, as a team would without spec-gen.

Plain FastAPI routes (parameters, constraints and bodies declared on the functions), one
authentication dependency (bearer key, the key store's cached lookup, the same rate limiter,
tier and scope checks), and the same domain code behind them: each route calls the
service's handler of its operation, so every SQL statement is the service's. What is left
out is what spec-gen and the service's architecture add: the generated routers, transport
and Protocols, the request context provider, the request guard, request ids and metrics,
the error rendering in the spec's shapes. Served by uvicorn as `hand_app:app`, configured
from the same OUTREACH_* variables as the service.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from outreach_api import OPERATIONS
from outreach_api.models import (
    ApiKeyListResponse,
    ContactListResponse,
    ContactResponse,
    FetchContactsRequest,
    SuppressActionResponse,
    SuppressContactRequest,
    SuppressionCategory,
    SuppressionChannel,
    SuppressionListResponse,
    WebhookListResponse,
)
from outreach_server.contacts.handlers import ContactsHandlers
from outreach_server.core.errors import ApiError
from outreach_server.core.settings import Settings
from outreach_server.keys.handlers import ApiKeysHandlers
from outreach_server.ledger.handlers import SuppressionsHandlers
from outreach_server.runtime.context import RequestContext
from outreach_server.runtime.services import Services
from outreach_server.webhooks.handlers import WebhooksHandlers

settings = Settings.from_env()
services = Services.create(settings)


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    await services.start()
    yield
    await services.close()


app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)


@app.exception_handler(ApiError)
async def api_error(request: Request, error: ApiError) -> Any:
    from fastapi.responses import JSONResponse

    return JSONResponse({"detail": error.detail}, error.status_code, headers=error.headers)


def authenticated(operation_id: str) -> Any:
    """The dependency of one operation: its key, limit, tier and scope checked."""
    operation = OPERATIONS[operation_id]

    async def check(
        request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> RequestContext:
        scheme, _, token = (authorization or "").partition(" ")
        key = (
            await services.keys.authenticate(token.strip()) if scheme.lower() == "bearer" else None
        )
        if key is None or key.org_id is None:
            raise HTTPException(401, "Invalid or expired API key")
        if not (await services.limiter.hit(key.id)).allowed:
            raise HTTPException(429, "Rate limit exceeded. Please slow down.")
        if operation.tier and not key.allows_tier(operation.tier):
            raise HTTPException(403, "API key tier does not allow the operation")
        if operation.scope and operation.scope not in key.scopes:
            raise HTTPException(403, f"API key lacks scope '{operation.scope}'")
        await services.keys.touch(key)
        return RequestContext(operation, request, services, key, key.org_id)

    return Depends(check)


keys, contacts, webhooks, ledger = (
    ApiKeysHandlers(), ContactsHandlers(), WebhooksHandlers(), SuppressionsHandlers(),
)  # fmt: skip


@app.get("/v1/api-keys", response_model=ApiKeyListResponse)
async def list_api_keys(
    ctx: Annotated[RequestContext, authenticated("list_api_keys")],
) -> ApiKeyListResponse:
    return await keys.list_api_keys(ctx)


@app.get("/api/v1/contacts/suppressions", response_model=SuppressionListResponse)
async def list_suppressions(
    ctx: Annotated[RequestContext, authenticated("list_suppressions")],
    channel: SuppressionChannel | None = None,
    category: SuppressionCategory | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> SuppressionListResponse:
    return await ledger.list_suppressions(
        ctx, channel=channel, category=category, limit=limit, offset=offset
    )


@app.post("/api/v1/contacts/fetch", response_model=ContactListResponse)
async def fetch_contacts(
    ctx: Annotated[RequestContext, authenticated("fetch_contacts")],
    body: FetchContactsRequest,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> ContactListResponse:
    return await contacts.fetch_contacts(ctx, page=page, limit=limit, body=body)


@app.post("/api/v1/contacts/{contact_id}/suppress", response_model=SuppressActionResponse)
async def suppress_contact(
    ctx: Annotated[RequestContext, authenticated("suppress_contact")],
    contact_id: int,
    body: SuppressContactRequest | None = None,
) -> SuppressActionResponse:
    return await ledger.suppress_contact(ctx, contact_id=contact_id, body=body)


@app.get("/api/v1/contacts/{contact_id}", response_model=ContactResponse)
async def get_contact(
    ctx: Annotated[RequestContext, authenticated("get_contact")], contact_id: int
) -> ContactResponse:
    return await contacts.get_contact(ctx, contact_id=contact_id)


@app.get("/api/v1/webhooks", response_model=WebhookListResponse)
async def list_webhooks(
    ctx: Annotated[RequestContext, authenticated("list_webhooks")],
    is_active: bool | None = None,
) -> WebhookListResponse:
    return await webhooks.list_webhooks(ctx, is_active=is_active)


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
