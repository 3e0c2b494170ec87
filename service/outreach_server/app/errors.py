"""Rendering errors in the API's format: `{"detail": "..."}`, and `{"detail": [{loc, msg, type}]}`
for 422 (the service's ApiError / ApiValidationError, FastAPI's and Starlette's own)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from ..core.errors import ApiError, ApiValidationError
from .routing import every_route

log = logging.getLogger("outreach_server")
# a 422 names at most this many failures (a megabyte of bad ids is one short answer)
MAX_VALIDATION_ITEMS = 50


def _validation_items(exc: RequestValidationError) -> list[dict[str, Any]]:
    errors = exc.errors()
    items: list[dict[str, Any]] = [
        {
            "loc": list(err.get("loc", ()))[:10],
            "msg": str(err.get("msg", ""))[:500],
            "type": str(err.get("type", "")),
        }
        for err in errors[:MAX_VALIDATION_ITEMS]
    ]
    if len(errors) > MAX_VALIDATION_ITEMS:
        more = len(errors) - MAX_VALIDATION_ITEMS
        items.append({"loc": ["body"], "msg": f"and {more} more errors", "type": "too_many_errors"})
    return items


def allowed_methods(request: Request) -> list[str]:
    """The methods of the path's own routes (the `Allow` header): of the routes matching the
    path, those with the most literal segments (`/contacts/fetch`, not `/contacts/{id}`)."""
    best, methods = -1, set[str]()
    for route in every_route(request.app.router.routes):
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match == Match.NONE:
            continue
        path = str(getattr(route, "path", ""))
        literal = sum(1 for part in path.split("/") if part and not part.startswith("{"))
        if literal > best:
            best, methods = literal, set()
        if literal == best:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(ApiValidationError)
    async def service_validation_error(_: Request, exc: ApiValidationError) -> JSONResponse:
        return JSONResponse({"detail": exc.items}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_items(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "Error"
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only the first route's
            headers["Allow"] = ", ".join(allowed_methods(request))
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=headers)

    @app.exception_handler(RecursionError)
    async def too_deep(_: Request, exc: RecursionError) -> JSONResponse:
        item = {"loc": ["body"], "msg": "nested too deeply", "type": "value_error"}
        return JSONResponse({"detail": [item]}, status_code=422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "Internal server error"}, status_code=500)
