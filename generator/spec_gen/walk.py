"""Where an OpenAPI 3.1 document keeps its operations and its schemas (read-only walks)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .pointer import join_pointer

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# header parameters OpenAPI says to ignore, and what carries them instead
IGNORED_HEADERS = {
    "accept": "the response media types",
    "content-type": "the request body's media types",
    "authorization": "the security schemes",
}


def structured_enum(schema: dict[str, Any]) -> bool:
    """An `enum` with an object or array member (`enum: [[], {}, "x"]`): no enum class can
    hold it (datamodel-code-generator wrote `LIST___ = []`, which fails mypy --strict); the
    models read the schema as its type and the `models` rule warns."""
    enum = schema.get("enum")
    return isinstance(enum, list) and any(isinstance(v, (dict, list)) for v in enum)


def ignored_header(parameter: Any) -> bool:
    """A header parameter named Accept, Content-Type or Authorization (any case): OpenAPI
    says its definition SHALL be ignored."""
    return (
        isinstance(parameter, dict)
        and parameter.get("in") == "header"
        and str(parameter.get("name", "")).lower() in IGNORED_HEADERS
    )


def _items(node: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in node.items()] if isinstance(node, dict) else []


def path_items(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, path item) for paths, webhooks, callbacks and components/pathItems."""
    roots = [("/paths", document.get("paths")), ("/webhooks", document.get("webhooks"))]
    components = document.get("components")
    if isinstance(components, dict):
        roots.append(("/components/pathItems", components.get("pathItems")))
        for name, callback in _items(components.get("callbacks")):
            roots.append((join_pointer("/components/callbacks", name), callback))
    stack = list(reversed(roots))
    while stack:
        base, container = stack.pop()
        for key, item in _items(container):
            if not isinstance(item, dict):
                continue
            here = join_pointer(base, key)
            yield here, item
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    for name, callback in _items(op.get("callbacks")):
                        stack.append((join_pointer(here, method, "callbacks", name), callback))


def operations(
    document: dict[str, Any],
) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(pointer, method, path item, operation) for every operation, callbacks included."""
    for here, item in path_items(document):
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                yield join_pointer(here, method), method, item, op


def _content_schemas(holder: Any, here: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(holder, dict):
        return
    if "schema" in holder:
        yield join_pointer(here, "schema"), holder["schema"]
    for media_type, media in _items(holder.get("content")):
        if isinstance(media, dict) and "schema" in media:
            yield join_pointer(here, "content", media_type, "schema"), media["schema"]


def schema_roots(document: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(pointer, schema) for every schema that is not inside another schema."""
    components = document.get("components")
    if isinstance(components, dict):
        for name, schema in _items(components.get("schemas")):
            yield join_pointer("/components/schemas", name), schema
        for kind in ("parameters", "headers", "requestBodies"):
            for name, holder in _items(components.get(kind)):
                yield from _content_schemas(holder, join_pointer("/components", kind, name))
        for name, response in _items(components.get("responses")):
            yield from _response_schemas(response, join_pointer("/components/responses", name))
    for here, item in path_items(document):
        for index, param in enumerate(item.get("parameters") or []):
            yield from _content_schemas(param, join_pointer(here, "parameters", index))
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            at = join_pointer(here, method)
            params = op.get("parameters")
            for index, param in enumerate(params if isinstance(params, list) else []):
                yield from _content_schemas(param, join_pointer(at, "parameters", index))
            yield from _content_schemas(op.get("requestBody"), join_pointer(at, "requestBody"))
            for status, response in _items(op.get("responses")):
                yield from _response_schemas(response, join_pointer(at, "responses", status))


def _response_schemas(response: Any, here: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(response, dict):
        return
    for name, header in _items(response.get("headers")):
        yield from _content_schemas(header, join_pointer(here, "headers", name))
    yield from _content_schemas(response, here)
