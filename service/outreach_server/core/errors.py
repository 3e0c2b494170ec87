"""Errors of the service in the API's format: `{"detail": "..."}`, and `{"detail": [{loc, msg,
type}]}` for 422. No web framework here: `app.errors` renders them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ApiError(Exception):
    """Raised by handlers and dependencies; rendered as `{"detail": message}` with `status`."""

    def __init__(self, status: int, detail: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = dict(headers or {})


class ApiValidationError(Exception):
    """A 422 raised by the service itself, in the same `loc/msg/type` form as schema failures."""

    def __init__(self, loc: list[str | int], msg: str, type_: str = "value_error") -> None:
        super().__init__(msg)
        self.items = [{"loc": loc, "msg": msg, "type": type_}]


def not_implemented(ctx: Any) -> ApiError:
    """The answer of an operation whose logic is not written yet: 501, never a fake success."""
    operation = getattr(getattr(ctx, "operation", None), "operation_id", "this operation")
    return ApiError(501, f"Not implemented yet: {operation}")
