"""The application factory: generated routers bound to the hand-written implementations."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from outreach_api import API_TITLE, API_VERSION, create_api_router
from outreach_api.contract import StrictContract

from ..app_platform.handlers import AppPlatformHandlers
from ..contacts.handlers import ContactsHandlers
from ..contacts.handlers_lists import ListsHandlers
from ..core.db import ping
from ..core.logs import configure_logging
from ..core.request_guard import RequestGuard
from ..core.settings import Settings
from ..enrichment.handlers import EnrichmentHandlers
from ..feedback.handlers import FeedbackHandlers
from ..forms.handlers import FormsHandlers
from ..keys.handlers import ApiKeysHandlers
from ..ledger.handlers import SuppressionsHandlers
from ..migrate import upgrade
from ..runtime.context import Authenticator
from ..runtime.services import Services
from ..signatures.handlers import SignaturesHandlers
from ..webhooks.handlers import WebhooksHandlers
from .errors import install_error_handlers
from .observability import Observability, install_observability
from .routing import RouteTable

OPENAPI_JSON = files("outreach_api").joinpath("openapi.json").read_bytes()
# the reference page spec-gen renders (generated/docs/index.html), shipped in the API package
DOCS_HTML = files("outreach_api").joinpath("docs.html").read_bytes()
# the address its examples call, as spec-gen wrote it (docs_example_origin)
_DOCS_ORIGIN = re.compile(rb'<meta name="spec-gen-origin" content="([^"]+)">')


def served_docs(host: str, port: int, page: bytes = DOCS_HTML) -> bytes:
    """The reference page with its examples calling the address served (`--port 9000`: every
    `http://127.0.0.1:8000` of the page becomes `http://127.0.0.1:9000`)."""
    found = _DOCS_ORIGIN.search(page)
    shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else f"[{host}]" if ":" in host else host
    origin = html.escape(f"http://{shown}:{port}", quote=True).encode()
    if found is None or found.group(1) == origin:
        return page
    return page.replace(found.group(1), origin)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    services = Services.create(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.migrate_on_start:
            await upgrade(settings.database_url)
        await services.start()
        yield
        await services.close()

    app = FastAPI(
        title=API_TITLE,
        version=API_VERSION,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.services = services
    install_error_handlers(app)
    if settings.strict_contract:
        app.add_middleware(StrictContract)
    # outermost but for the request id: sizes and encodings before routing, parsing or auth
    app.add_middleware(
        RequestGuard,
        max_body_bytes=settings.max_body_bytes,
        max_header_bytes=settings.max_header_bytes,
    )
    install_observability(app, Observability(access_log=settings.access_log))
    api_router = create_api_router(
        context=Authenticator(services),
        suppressions=SuppressionsHandlers(),
        contacts=ContactsHandlers(),
        lists=ListsHandlers(),
        enrichment=EnrichmentHandlers(),
        forms=FormsHandlers(),
        feedback=FeedbackHandlers(),
        signatures=SignaturesHandlers(),
        webhooks=WebhooksHandlers(),
        api_keys=ApiKeysHandlers(),
        app_platform=AppPlatformHandlers(),
    )
    # the routes themselves, not an included router: one routing layer less on every request;
    # in one table keyed by leading path segments, their order (literal segments first) kept
    app.router.routes.append(RouteTable(api_router.routes))

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_document() -> Response:
        """The bundled hand-written spec (not FastAPI's reconstruction of it)."""
        return Response(OPENAPI_JSON, media_type="application/json")

    docs_html = served_docs(settings.host, settings.port)

    @app.get("/docs", include_in_schema=False)
    async def docs_page() -> Response:
        """The reference docs: one self-contained page (its own CSS and JS, nothing fetched)."""
        return HTMLResponse(docs_html)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        """Nothing lives at /: send a browser (or a curious curl -L) to the reference docs."""
        return RedirectResponse("/docs", status_code=307)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """The database (and Redis, when configured) answer."""
        checks = {"database": await ping(services.engine)}
        if settings.redis_url:
            checks["redis"] = await services.limiter.ping()
        ready = all(checks.values())
        body = {"status": "ready" if ready else "not ready", "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)

    return app


def create_app_from_env() -> FastAPI:
    """Factory for uvicorn (each worker process builds its app from the environment)."""
    settings = Settings.from_env()
    configure_logging(settings.log_level, json_format=settings.json_logs)
    return create_app(settings)
