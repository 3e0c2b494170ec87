"""Where an OpenAPI 3.1 document keeps its operations and its schemas (read-only walks)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .openapi import (
    ARRAY_KEYWORDS,
    COMPONENT_KINDS,
    METHODS,
    OBJECT_KEYWORDS,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_ONE,
)
from .pointer import join_pointer

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


def inapplicable_keywords(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(keyword, "object" or "array") for each keyword of objects only (`properties`,
    `required`...) or of arrays only (`items`, `minItems`...) in a schema whose `type`
    admits no object (no array): JSON Schema applies it to no value the schema accepts
    (`type: string` with `properties` describing its values in prose). A build reads the
    document without them (repair.py)."""
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if not kinds or not all(k in _TYPE_NAMES for k in kinds):
        return []
    return [
        (keyword, family)
        for family, keywords in (("object", OBJECT_KEYWORDS), ("array", ARRAY_KEYWORDS))
        if family not in kinds
        for keyword in keywords
        if keyword in schema
    ]


_TYPE_NAMES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def prefix_members(schema: dict[str, Any]) -> list[Any] | None:
    """The item schemas a `prefixItems` list is read as (the models type each item as any of
    them; the `unchecked-keyword` rule warns that positions are not checked): the positions,
    and `items` when more may follow. None when what follows is unconstrained (no `items`,
    and no `maxItems` or `items: false` ending the list after the positions)."""
    prefix, items, most = schema.get("prefixItems"), schema.get("items"), schema.get("maxItems")
    if not (isinstance(prefix, list) and prefix and all(isinstance(m, dict) for m in prefix)):
        return None
    if items is False or (isinstance(most, int) and most <= len(prefix)):
        return list(prefix)
    if isinstance(items, dict) and items:
        return [*prefix, items]
    return None


def is_32(document: dict[str, Any]) -> bool:
    """An OpenAPI 3.2 document: validated against the 3.2 schema, then read as 3.1 is; what
    3.2 adds and spec-gen does not generate yet is an `oas32` warning where it is written."""
    return re.match(r"3\.2\.\d+", str(document.get("openapi", ""))) is not None


def not_carried(parameter: Any) -> bool:
    """A parameter the generated code does not carry: an ignored header (Accept,
    Content-Type, Authorization) or OpenAPI 3.2's `in: querystring` (the whole query string
    as one value)."""
    return ignored_header(parameter) or (
        isinstance(parameter, dict) and parameter.get("in") == "querystring"
    )


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


_REFERABLE = frozenset(COMPONENT_KINDS.values())


def typed_nodes(
    document: dict[str, Any], schemas: bool = True
) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Which OpenAPI Object sits at each pointer the document's structure types (`Schema`
    for every schema and subschema, `Parameter`, `Response`, ..., as COMPONENT_KINDS names
    them; `Operation`, `Media Type`, `Encoding` for the others), and every Reference Object
    found where one of the component kinds belongs: (pointer, kind expected, ref). A
    Reference Object is not walked into; `x-` extensions and data are never walked. Without
    `schemas`, a schema's subschemas are not walked (most of a large document's nodes)."""
    kinds: dict[str, str] = {}
    refs: list[tuple[str, str, str]] = []
    stack: list[tuple[str, Any, str]] = []

    def add(kind: str, node: Any, here: str) -> None:
        stack.append((kind, node, here))

    def each(kind: str, container: Any, here: str) -> None:
        for key, value in _items(container):
            if not key.startswith("x-"):
                add(kind, value, join_pointer(here, key))

    components = document.get("components")
    for section, kind in COMPONENT_KINDS.items():
        if isinstance(components, dict):
            each(kind, components.get(section), join_pointer("/components", section))
    each("Path Item", document.get("paths"), "/paths")
    each("Path Item", document.get("webhooks"), "/webhooks")
    while stack:
        kind, node, here = stack.pop()
        if here in kinds or not isinstance(node, dict):
            continue
        kinds[here] = kind
        ref = node.get("$ref")
        if isinstance(ref, str):
            if kind in _REFERABLE:
                refs.append((here, kind, ref))
            if kind not in ("Schema", "Path Item"):  # these two may have fields beside it
                continue
        if kind == "Schema":
            if not schemas:
                continue
            for key in SCHEMA_MAPS:
                each("Schema", node.get(key), join_pointer(here, key))
            for key in (*SCHEMA_LISTS, "items"):  # a list of `items`: draft 4's tuples
                value = node.get(key)
                for index, sub in enumerate(value if isinstance(value, list) else []):
                    add("Schema", sub, join_pointer(here, key, index))
            for key in (*SCHEMA_ONE, "contentSchema"):
                add("Schema", node.get(key), join_pointer(here, key))
        elif kind == "Path Item":
            _parameters(node, here, add)
            for method in METHODS:
                add("Operation", node.get(method), join_pointer(here, method))
        elif kind == "Operation":
            _parameters(node, here, add)
            add("Request Body", node.get("requestBody"), join_pointer(here, "requestBody"))
            each("Response", node.get("responses"), join_pointer(here, "responses"))
            each("Callback", node.get("callbacks"), join_pointer(here, "callbacks"))
        elif kind == "Callback":
            each("Path Item", node, here)
        elif kind in ("Parameter", "Header", "Media Type"):
            add("Schema", node.get("schema"), join_pointer(here, "schema"))
            each("Example", node.get("examples"), join_pointer(here, "examples"))
            each("Media Type", node.get("content"), join_pointer(here, "content"))
            each("Encoding", node.get("encoding"), join_pointer(here, "encoding"))
        elif kind in ("Request Body", "Response", "Encoding"):
            each("Media Type", node.get("content"), join_pointer(here, "content"))
            each("Header", node.get("headers"), join_pointer(here, "headers"))
            each("Link", node.get("links"), join_pointer(here, "links"))
    return kinds, refs


def _parameters(holder: dict[str, Any], here: str, add: Any) -> None:
    parameters = holder.get("parameters")
    for index, parameter in enumerate(parameters if isinstance(parameters, list) else []):
        add("Parameter", parameter, join_pointer(here, "parameters", index))
