"""Following `$ref`s in the bundled document, and the JSON types a value can have."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal
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


MAX_HOPS = 32
"""How many `$ref`s in a row a follower takes before it stops (a longer chain loops: the `ref`
rule names it, `ref_loops`)."""

Siblings = Literal["ignore", "merge"]
Missing = Literal["empty", "raise"]


class DanglingRef(LookupError):
    """A `$ref` whose pointer names nothing in the document (`deref(missing="raise")`)."""


def copied(node: Any) -> Any:
    """A copy of JSON values (dicts, lists, scalars), 5x faster than `copy.deepcopy`: no
    memo, as a document's values share nothing that must stay shared."""
    if isinstance(node, dict):
        return {key: copied(value) for key, value in node.items()}
    if isinstance(node, list):
        return [copied(value) for value in node]
    return node


def ref_pointer(ref: str) -> str | None:
    """The JSON pointer a local `$ref` names, None for a reference into another document.

    The one reading of a reference: its URI fragment percent-decoded (RFC 3986: `#/components/
    schemas/Error%20Body`), then read as an RFC 6901 pointer (`~1` is `/`, `~0` is `~`) by
    `resolve_pointer`. The bundler reads a ref the same way and writes the pointer back
    decoded, so a bundled document's refs decode to themselves (but for a key holding a
    literal `%` and two hex digits, which no document met so far has)."""
    return unquote(ref[1:]) if ref.startswith("#") else None


def ref_loops(document: dict[str, Any], ref: str) -> bool:
    """Whether following `ref` meets only `$ref`s until one repeats."""
    seen = {ref}
    while True:
        pointer = ref_pointer(ref)
        if pointer is None:
            return False
        try:
            node = resolve_pointer(document, pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            return False
        following = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(following, str) or not following.startswith("#"):
            return False
        ref = following
        if ref in seen:
            return True
        seen.add(ref)


def follow(
    document: Any, node: Any, *, siblings: Siblings = "ignore", missing: Missing = "empty"
) -> tuple[Any, str | None]:
    """The node a chain of `$ref`s starting at `node` ends at, and the last `$ref` followed
    (None when `node` is no reference). Each step reads its ref by `ref_pointer`; at most
    `MAX_HOPS` steps (then the last node reached, still a `$ref`).

    - `siblings="merge"`: the keys written beside a `$ref` are laid over its target, each
      step (3.1 schemas: `{$ref: Pet, description: ...}` is Pet with that description);
      `"ignore"`: the target as it is (a Reference Object's `summary` / `description`).
    - `missing="empty"`: a ref naming nothing (or another document: a bundled document has
      none) reads as `{}`, the keys beside it merged when asked; `"raise"`: `DanglingRef`
      (a caller that runs only on documents whose refs the `ref` rule passed)."""
    ref = None
    for _ in range(MAX_HOPS):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            break
        ref = node["$ref"]
        pointer = ref_pointer(ref)
        try:
            target = {} if pointer is None else resolve_pointer(document, pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            if missing == "raise":
                raise DanglingRef(f"$ref {ref!r} points at nothing") from None
            target = {}
        if siblings == "merge" and len(node) > 1 and isinstance(target, dict):
            target = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        node = target
    return node, ref


def deref(
    document: Any, node: Any, *, siblings: Siblings = "ignore", missing: Missing = "empty"
) -> Any:
    """The node a chain of `$ref`s starting at `node` ends at (`follow`)."""
    return follow(document, node, siblings=siblings, missing=missing)[0]
