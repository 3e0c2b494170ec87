"""Observability: request ids, Prometheus metrics, access logs, JSON logs with secrets redacted.

- `RequestContextMiddleware`, a pure ASGI middleware: one request id per HTTP request
  (the client's `X-Request-Id` when sane, else a fresh one) kept in `request_id_var` and
  echoed in the response headers; after the response, the request counter and duration
  histogram of an `Observability`, and one access log line.
- `configure_logging()` (from core.logs): stdlib logging to stderr, one JSON object per line, every record
  tagged with the request id and scrubbed of bearer tokens, API keys and secret values.
- `install_observability(app)`: the middleware, outermost, and `GET /metrics`.

Metric labels are bounded: the operation id of the matched route (`"unmatched"` when no
route matched, never the raw path), a known HTTP method or `"OTHER"`, the status code.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import secrets
import time

from fastapi import FastAPI
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..core.logs import (
    REDACTED,
    JsonFormatter,
    RedactSecretsFilter,
    RequestIdFilter,
    configure_logging,
    redact_text,
    request_id_var,
)

__all__ = [
    "REDACTED",
    "UNMATCHED",
    "JsonFormatter",
    "Observability",
    "RedactSecretsFilter",
    "RequestContextMiddleware",
    "RequestIdFilter",
    "configure_logging",
    "install_observability",
    "redact_text",
    "request_id_var",
]

REQUEST_ID_HEADER = b"x-request-id"
UNMATCHED = "unmatched"
DURATION_BUCKETS = (0.005, 0.025, 0.1, 0.5, 2.5, 10.0)
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

_SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")


class RequestIds:
    """Fresh request ids: 32 hex digits, a random 64-bit prefix of the process then a counter.

    Unique across processes (the prefix is drawn again in a forked child) without a call to
    the system's random source per request, as `uuid.uuid4()` makes. An id names a request
    in the logs; it is not a secret and grants nothing.
    """

    def __init__(self) -> None:
        self.reseed()
        os.register_at_fork(after_in_child=self.reseed)

    def reseed(self) -> None:
        self._prefix = secrets.token_hex(8)
        self._counter = itertools.count(1)

    def __call__(self) -> str:
        return f"{self._prefix}{next(self._counter) & 0xFFFFFFFFFFFFFFFF:016x}"


new_request_id = RequestIds()
access_log = logging.getLogger("outreach_server.access")


# --- metrics -------------------------------------------------------------------------------


class Observability:
    """The metrics of one app, in a registry of its own (apps in one process never collide)."""

    def __init__(self, registry: CollectorRegistry | None = None, access_log: bool = True) -> None:
        self.access_log = access_log  # write one access log line per request
        self.registry = registry if registry is not None else CollectorRegistry()
        self.requests = Counter(
            "outreach_http_requests_total",
            "HTTP requests answered, by operation, method and status.",
            ("operation_id", "method", "status"),
            registry=self.registry,
        )
        self.duration = Histogram(
            "outreach_http_request_duration_seconds",
            "Time from the request's arrival to the end of its response, by operation.",
            ("operation_id",),
            buckets=DURATION_BUCKETS,
            registry=self.registry,
        )
        # label children cached: `.labels()` takes a lock and builds a key on every call
        self._counters: dict[tuple[str, str, int], Counter] = {}
        self._histograms: dict[str, Histogram] = {}

    def observe(self, operation_id: str, method: str, status: int, seconds: float) -> None:
        """Count one answered request and record its duration."""
        key = (operation_id, method, status)
        counter = self._counters.get(key)
        if counter is None:
            counter = self._counters[key] = self.requests.labels(operation_id, method, str(status))
        histogram = self._histograms.get(operation_id)
        if histogram is None:
            histogram = self._histograms[operation_id] = self.duration.labels(operation_id)
        counter.inc()
        histogram.observe(seconds)

    def metrics_response(self) -> Response:
        """The registry in the Prometheus text exposition format."""
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


# --- the middleware ------------------------------------------------------------------------


def incoming_request_id(scope: Scope) -> str | None:
    """The request's `X-Request-Id` if it is 1-64 characters of [A-Za-z0-9._-], else None."""
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER:
            return value.decode("ascii") if _SANE_REQUEST_ID.fullmatch(value) else None
    return None


def route_labels(scope: Scope) -> tuple[str, str | None]:
    """The matched route's operation id (else its name, else "unmatched") and path template.

    Starlette's and FastAPI's routers store the matched route in `scope["route"]`, in place,
    so the middleware reads it once the app has answered. Its template is the path the route
    was declared with: without the prefix of `include_router(prefix=...)`, if one was used.
    """
    route = scope.get("route")
    if route is None:
        return UNMATCHED, None
    label = getattr(route, "operation_id", None) or getattr(route, "name", None)
    template = getattr(route, "path_format", None)
    return (label if isinstance(label, str) else UNMATCHED), template


class RequestContextMiddleware:
    """Pure ASGI middleware: request id, metrics and access log of every HTTP request.

    Placed outside Starlette's ServerErrorMiddleware (as `install_observability` does), it
    also tags the 500 of an unhandled exception, and the error handler's log line, with the
    request id; with `app.add_middleware` it would sit inside and miss both.
    """

    def __init__(self, app: ASGIApp, observability: Observability | None = None) -> None:
        self.app = app
        self.observability = observability if observability is not None else Observability()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = incoming_request_id(scope) or new_request_id()
        id_header = (REQUEST_ID_HEADER, request_id.encode("ascii"))
        status = 500  # what the server answers if the app raises before starting a response

        async def send_with_request_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # a new list: the response object may be sending its own, reusable one
                message["headers"] = [*message.get("headers", ()), id_header]
            await send(message)

        token = request_id_var.set(request_id)
        start = time.perf_counter()
        try:
            await self.app(scope, receive, send_with_request_id)
        finally:
            self._record(scope, status, time.perf_counter() - start)
            request_id_var.reset(token)

    def _record(self, scope: Scope, status: int, seconds: float) -> None:
        """Metrics and the access log line of one finished request."""
        operation_id, template = route_labels(scope)
        method = scope["method"] if scope["method"] in KNOWN_METHODS else "OTHER"
        self.observability.observe(operation_id, method, status, seconds)
        if self.observability.access_log and access_log.isEnabledFor(logging.INFO):
            path = scope["path"]  # never the query string: it may carry secrets
            access_log.info(
                "%s %s %d %.1fms",
                method,
                path,
                status,
                seconds * 1000,
                extra={
                    "method": method,
                    "path": path,
                    "route": template,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    "operation_id": operation_id,
                },
            )


def install_observability(
    app: FastAPI, observability: Observability | None = None
) -> Observability:
    """Wrap `app` in `RequestContextMiddleware` (outermost) and add `GET /metrics`.

    Call before the app serves its first request. Calling it again returns the same object.
    """
    existing = getattr(app.state, "observability", None)
    if isinstance(existing, Observability):
        return existing
    if app.middleware_stack is not None:
        raise RuntimeError("install_observability() must run before the app starts serving")
    obs = observability if observability is not None else Observability()
    build_inner_stack = app.build_middleware_stack

    def build_middleware_stack() -> ASGIApp:
        return RequestContextMiddleware(build_inner_stack(), obs)

    # user middleware (`add_middleware`) always sits inside ServerErrorMiddleware
    app.build_middleware_stack = build_middleware_stack  # type: ignore[method-assign]

    async def metrics() -> Response:
        """Prometheus scrape endpoint."""
        return obs.metrics_response()

    app.add_api_route("/metrics", metrics, methods=["GET"], include_in_schema=False)
    app.state.observability = obs
    return obs
