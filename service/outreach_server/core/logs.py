"""Logging of every process of the service: stdlib logging to stderr, one JSON object per
line, every record tagged with the request id and scrubbed of bearer tokens, API keys and
secret values (`configure_logging`). No web framework here: operator commands and the
webhook worker use it too.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

__all__ = [
    "REDACTED",
    "JsonFormatter",
    "RedactSecretsFilter",
    "RequestIdFilter",
    "configure_logging",
    "redact_text",
    "request_id_var",
    "scrub",
]

request_id_var: ContextVar[str | None] = ContextVar("outreach_request_id", default=None)
"""The id of the HTTP request being served (None outside a request)."""

REDACTED = "[redacted]"


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
        # a level or `disabled` left by an earlier uvicorn.Config(log_level=...) or dictConfig
        # would hide its lines: the root's level decides, as for every other logger
        uvicorn_logger.setLevel(logging.NOTSET)
        uvicorn_logger.disabled = False
    uvicorn_access = logging.getLogger("uvicorn.access")
    uvicorn_access.handlers.clear()
    uvicorn_access.propagate = False
    uvicorn_access.disabled = True
    return handler
