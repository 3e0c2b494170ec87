"""The generated layer alone against the same routes written by hand in FastAPI.

`generated`: outreach_api's routers (create_api_router) bound to a stub implementation that
answers each operation of bench/serve_mix.py with a constant model, and a context provider
whose dependency takes the request and returns a constant. `hand`: the same six routes as a
team writes them in FastAPI without spec-gen (the same parameters, constraints, body and
response models, a context dependency taking the request), answering the same constants.
Both are served by uvicorn as `stub_app:generated` and `stub_app:hand`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.routing import APIRoute
from outreach_api import OperationInfo, create_api_router
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
from serve_mix import ANSWERS

KEYS = ApiKeyListResponse.model_validate(ANSWERS["list_api_keys"])
CONTACT = ContactResponse.model_validate(ANSWERS["get_contact"])
WEBHOOKS = WebhookListResponse.model_validate(ANSWERS["list_webhooks"])
SUPPRESSIONS = SuppressionListResponse.model_validate(ANSWERS["list_suppressions"])
FETCHED = ContactListResponse.model_validate(ANSWERS["fetch_contacts"])
SUPPRESSED = SuppressActionResponse.model_validate(ANSWERS["suppress_contact"])


class Stub:
    """Every tag's implementation: the six operations of the mix, constant answers."""

    async def list_api_keys(self, ctx: Any) -> ApiKeyListResponse:
        return KEYS

    async def get_contact(self, ctx: Any, *, contact_id: int) -> ContactResponse:
        return CONTACT

    async def list_webhooks(self, ctx: Any, *, is_active: bool | None) -> WebhookListResponse:
        return WEBHOOKS

    async def list_suppressions(self, ctx: Any, **_: Any) -> SuppressionListResponse:
        return SUPPRESSIONS

    async def fetch_contacts(self, ctx: Any, **_: Any) -> ContactListResponse:
        return FETCHED

    async def suppress_contact(self, ctx: Any, **_: Any) -> SuppressActionResponse:
        return SUPPRESSED


async def context_of(request: Request) -> str:
    return "ctx"


def provider(operation: OperationInfo) -> Any:
    return context_of


TAGS = ("suppressions", "contacts", "lists", "enrichment", "forms", "feedback",
        "signatures", "webhooks", "api_keys", "app_platform")  # fmt: skip


def _generated() -> FastAPI:
    """The generated app factory (outreach_api.app.create_app) bound to the stub."""
    from outreach_api.app import create_app

    return create_app(context=provider, **dict.fromkeys(TAGS, Stub()))


generated = _generated()
hand = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
Ctx = Annotated[str, Depends(context_of)]


@hand.get("/v1/api-keys", response_model=ApiKeyListResponse)
async def list_api_keys(ctx: Ctx) -> ApiKeyListResponse:
    return KEYS


@hand.get("/api/v1/contacts/suppressions", response_model=SuppressionListResponse)
async def list_suppressions(
    ctx: Ctx,
    channel: SuppressionChannel | None = None,
    category: SuppressionCategory | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> SuppressionListResponse:
    return SUPPRESSIONS


@hand.post("/api/v1/contacts/fetch", response_model=ContactListResponse)
async def fetch_contacts(
    ctx: Ctx,
    body: FetchContactsRequest,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> ContactListResponse:
    return FETCHED


@hand.post("/api/v1/contacts/{contact_id}/suppress", response_model=SuppressActionResponse)
async def suppress_contact(
    ctx: Ctx, contact_id: int, body: SuppressContactRequest | None = None
) -> SuppressActionResponse:
    return SUPPRESSED


@hand.get("/api/v1/contacts/{contact_id}", response_model=ContactResponse)
async def get_contact(ctx: Ctx, contact_id: int) -> ContactResponse:
    return CONTACT


@hand.get("/api/v1/webhooks", response_model=WebhookListResponse)
async def list_webhooks(ctx: Ctx, is_active: bool | None = None) -> WebhookListResponse:
    return WEBHOOKS


async def other(ctx: Ctx) -> dict[str, Any]:
    return {}


def _the_other_routes() -> None:
    """The API's other 40 operations as routes too (a hand-written API has them all, and
    FastAPI tries routes in order): the same paths and methods, in the generated order."""
    mine = {(r.path, m) for r in hand.routes if isinstance(r, APIRoute) for m in r.methods}
    api = create_api_router(context=provider, **dict.fromkeys(TAGS, Stub()))
    routes = [r for r in api.routes if isinstance(r, APIRoute)]
    hand.router.routes.clear()
    for route in routes:
        method = next(iter(route.methods))
        if (route.path, method) in mine:
            hand.router.routes.append(
                next(r for r in HAND_ROUTES if r.path == route.path and method in r.methods)
            )
        else:
            hand.add_api_route(route.path, other, methods=[method])


HAND_ROUTES = [r for r in hand.routes if isinstance(r, APIRoute)]
_the_other_routes()
