"""Observability: request ids, Prometheus metrics, access logs, JSON logs with secrets redacted.

- `RequestContextMiddleware`, a pure ASGI middleware: one request id per HTTP request
  (the client's `X-Request-Id` when sane, else a fresh one) kept in `request_id_var` and
  echoed in the response headers; after the response, the request counter and duration
  histogram of an `Observability`, and one access log line.
- `configure_logging()`: stdlib logging to stderr, one JSON object per line, every record
  tagged with the request id and scrubbed of bearer tokens, API keys and secret values.
- `install_observability(app)`: the middleware, outermost, and `GET /metrics`.

Metric labels are bounded: the operation id of the matched route (`"unmatched"` when no
route matched, never the raw path), a known HTTP method or `"OTHER"`, the status code.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

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

request_id_var: ContextVar[str | None] = ContextVar("outreach_request_id", default=None)
"""The id of the HTTP request being served (None outside a request)."""

REQUEST_ID_HEADER = b"x-request-id"
UNMATCHED = "unmatched"
REDACTED = "[redacted]"
DURATION_BUCKETS = (0.005, 0.025, 0.1, 0.5, 2.5, 10.0)
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

_SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
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
        request_id = incoming_request_id(scope) or uuid.uuid4().hex
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


# --- redaction -----------------------------------------------------------------------------

_SECRET_WORDS = r"secret|token|passw(?:or)?d|api[_-]?key|authorization|cookie"
_SENSITIVE_KEY = re.compile(_SECRET_WORDS, re.IGNORECASE)
# every pattern below needs one of these (lowercased): text without any is returned as is
_TRIGGERS = (
    "secret",
    "token",
    "passw",
    "apikey",
    "api_key",
    "api-key",
    "authorization",
    "cookie",
    "bearer",
    "_live_",
    "_test_",
    "eyj",
)
_TEXT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # key=value / "key": "value" with a sensitive key name, optionally an auth scheme
    (
        re.compile(
            rf"""\b([\w-]*(?:{_SECRET_WORDS})[\w-]*)"""
            r"""(["']?\s*[:=]\s*["']?)((?:bearer|basic)\s+)?+(?!\[redacted\])[^\s"',;&})\]]+""",
            re.IGNORECASE,
        ),
        rf"\1\2\3{REDACTED}",
    ),
    (re.compile(r"\b(bearer)\s+(?!\[redacted\])[^\s\"',;]+", re.IGNORECASE), rf"\1 {REDACTED}"),
    # API key tokens: outreach_live_..., outreach_test_..., sk_live_...
    (re.compile(r"[A-Za-z0-9]+_(?:live|test)_[A-Za-z0-9_-]{24,}"), REDACTED),
    # JWTs (app-platform and service tokens)
    (re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), REDACTED),
)
_SCALARS = (int, float, bool, type(None))
_MAX_DEPTH = 6


def redact_text(text: str) -> str:
    """`text` with bearer tokens, API keys, JWTs and `secret=...`-like values redacted."""
    lowered = text.lower()
    if not any(trigger in lowered for trigger in _TRIGGERS):
        return text
    for pattern, replacement in _TEXT_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _is_sensitive(key: object) -> bool:
    return isinstance(key, str) and _SENSITIVE_KEY.search(key) is not None


def scrub(value: object, text: bool = True, depth: int = 0) -> object:
    """A copy of `value` with the values of sensitive dict keys redacted, at any depth.

    With `text`, strings go through `redact_text` too. Scalars and strings keep their type;
    other objects are kept as they are (`%d` still works), for `redact_text` once rendered.
    """
    if isinstance(value, str):
        return redact_text(value) if text else value
    if isinstance(value, _SCALARS) or depth >= _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        return {
            k: REDACTED if _is_sensitive(k) else scrub(v, text, depth + 1) for k, v in value.items()
        }
    if isinstance(value, tuple):
        return tuple(scrub(v, text, depth + 1) for v in value)
    if isinstance(value, list):
        return [scrub(v, text, depth + 1) for v in value]
    return value


_STANDARD_ATTRS = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "taskName",
    "color_message",  # uvicorn's copy of msg with ANSI colours
}


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a log call passed with `extra=`."""
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD_ATTRS}


class RedactSecretsFilter(logging.Filter):
    """Renders each record's message and redacts secrets from it, its extras and traceback.

    Dict values under keys named like secret/token/password/api_key/authorization/cookie
    become "[redacted]"; bearer tokens, API keys and JWTs anywhere in the text too. The
    message is rendered here (`record.args` emptied), so objects' `str()` is covered.
    """

    _exc_formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._render(record)
        record.args = None
        for key, value in extra_fields(record).items():
            setattr(record, key, REDACTED if _is_sensitive(key) else scrub(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = self._exc_formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True

    @staticmethod
    def _render(record: logging.LogRecord) -> str:
        # the rendered text is redacted as a whole: here only the values of sensitive keys
        msg = record.msg if isinstance(record.msg, str) else scrub(record.msg, text=False)
        args = scrub(record.args, text=False) if record.args else None
        try:
            text = str(msg) % args if args else str(msg)
        except (TypeError, ValueError, KeyError):
            text = f"{msg} {args!r}"
        return redact_text(text)


class RequestIdFilter(logging.Filter):
    """Sets `record.request_id` from `request_id_var` unless the call passed one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id_var.get()
        return True


# --- logging -------------------------------------------------------------------------------


def _json_default(value: object) -> str:
    return redact_text(str(value))


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, msg, request_id, then extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in extra_fields(record).items():
            payload.setdefault(key, value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            payload["exc"] = record.exc_text
        if record.stack_info:
            payload["stack"] = record.stack_info
        return json.dumps(payload, default=_json_default, ensure_ascii=False)


class _ObservabilityHandler(logging.StreamHandler[TextIO]):
    """The handler `configure_logging` installs (recognised to stay idempotent)."""


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def configure_logging(
    level: str | int = "INFO", json_format: bool = True, stream: TextIO | None = None
) -> logging.Handler:
    """Root logging to `stream` (stderr): request ids, secrets redacted, JSON lines by default.

    Idempotent: a second call replaces the handler of the first. uvicorn's loggers go through
    it too, except `uvicorn.access`, disabled (the middleware writes the access log). When
    uvicorn configures logging itself, call this afterwards (e.g. in the app factory) or run
    uvicorn with `log_config=None`.
    """
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _ObservabilityHandler)]:
        root.removeHandler(old)
        old.close()
    handler = _ObservabilityHandler(stream if stream is not None else sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactSecretsFilter())
    handler.setFormatter(JsonFormatter() if json_format else logging.Formatter(TEXT_FORMAT))
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    for name in ("uvicorn", "uvicorn.error"):
        uvicorn_logger = logging.getLogger(name)
        uvicorn_logger.handlers.clear()
        uvicorn_logger.propagate = True
    uvicorn_access = logging.getLogger("uvicorn.access")
    uvicorn_access.handlers.clear()
    uvicorn_access.propagate = False
    uvicorn_access.disabled = True
    return handler
