"""Python literals for JSON-like values, as the generated code writes them (a Jinja filter of
every target: `pyrepr`)."""

from __future__ import annotations

from typing import Any


def pyrepr(value: Any) -> str:
    """A Python literal for a JSON-like value; dict order is kept, so output is stable."""
    if isinstance(value, tuple):
        return "(" + "".join(pyrepr(v) + ", " for v in value).rstrip(" ") + ")" if value else "()"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    return repr(value)
