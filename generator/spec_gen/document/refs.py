"""Following `$ref`s in the bundled document, and the JSON types a value can have."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from .pointer import resolve_pointer

JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def ref_loops(document: dict[str, Any], ref: str) -> bool:
    """Whether following `ref` meets only `$ref`s until one repeats."""
    seen = {ref}
    while True:
        try:
            node = resolve_pointer(document, unquote(ref[1:]))
        except (KeyError, IndexError, ValueError, TypeError):
            return False
        following = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(following, str) or not following.startswith("#"):
            return False
        ref = following
        if ref in seen:
            return True
        seen.add(ref)


def deref(document: dict[str, Any], node: Any) -> Any:
    for _ in range(32):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node
        ref = node["$ref"]
        try:
            node = resolve_pointer(document, ref[1:]) if ref.startswith("#") else {}
        except (KeyError, IndexError, ValueError, TypeError):
            return {}
    return node
