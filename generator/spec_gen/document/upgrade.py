"""OpenAPI 3.0 -> 3.1, in place, the way the OpenAPI Initiative's migration guide describes.

Everything after loading reads 3.1 only: a 3.0 document is upgraded in memory first, and
`spec-gen upgrade` writes the same result for a team that wants to move.

Only Schema Objects are rewritten, and only where the document puts schemas (components,
parameter, header and media-type `schema`, and the schema keywords under them), so a
property that happens to be called `nullable` or `example` is left alone:

- `nullable: true` (and Swagger 2's `x-nullable: true`) -> `"null"` added to `type`
  (a list), to `enum` when there is one; a schema without `type` (a `$ref`, `allOf`, ...)
  becomes `anyOf: [<the schema>, {type: "null"}]`.
- boolean `exclusiveMinimum` / `exclusiveMaximum` -> the number, `minimum` / `maximum` dropped.
- `example: X` -> `examples: [X]` (only in schemas: media types and parameters keep `example`).
- `format: binary` -> `contentMediaType` (the body's media type when the schema is the
  whole body, else `application/octet-stream`); `format: byte` / `format: base64` ->
  `contentEncoding: base64`.
- Swagger 2's `type: file` -> a binary string as above.

Works on plain dicts and on ruamel's round-trip maps alike (a replaced key keeps its place).
`moved` records pointers that changed (a wrapped schema), so findings still point at the source.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from .pointer import join_pointer
from .walk import METHODS as OPERATION_KEYS
from .walk import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE


def is_30(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    version = str(document.get("openapi", ""))
    return version == "3.0" or version.startswith("3.0.")


def _put(mapping: MutableMapping[str, Any], old: str | None, key: str, value: Any) -> None:
    """Set `key` (in `old`'s place when `old` is given and present), keeping key order."""
    if old == key or old is None:
        mapping[key] = value
        return
    insert = getattr(mapping, "insert", None)
    if old is not None and old in mapping and insert is not None and key not in mapping:
        position = list(mapping).index(old)
        del mapping[old]
        insert(position, key, value)
        return
    if old is not None and old in mapping:
        if key in mapping:
            del mapping[old]
            mapping[key] = value
            return
        items = [(key if k == old else k, value if k == old else v) for k, v in mapping.items()]
        mapping.clear()
        mapping.update(items)
        return
    mapping[key] = value


class Upgrader:
    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        self.moved: dict[str, str] = {}  # new pointer prefix -> old pointer prefix

    def run(self) -> dict[str, str]:
        doc = self.doc
        _put(doc, "openapi", "openapi", "3.1.0")
        components = doc.get("components")
        if isinstance(components, dict):
            for name, schema in _items(components.get("schemas")):
                self.schema(schema, join_pointer("/components/schemas", name))
            for name, param in _items(components.get("parameters")):
                self.parameter(param, join_pointer("/components/parameters", name))
            for name, header in _items(components.get("headers")):
                self.parameter(header, join_pointer("/components/headers", name))
            for name, body in _items(components.get("requestBodies")):
                self.content(body, join_pointer("/components/requestBodies", name))
            for name, response in _items(components.get("responses")):
                self.response(response, join_pointer("/components/responses", name))
            for name, item in _items(components.get("callbacks")):
                self.callback(item, join_pointer("/components/callbacks", name))
            for name, item in _items(components.get("pathItems")):
                self.path_item(item, join_pointer("/components/pathItems", name))
        for key in ("paths", "webhooks"):
            for path, item in _items(doc.get(key)):
                self.path_item(item, join_pointer("", key, path))
        return self.moved

    # -- containers of schemas ---------------------------------------------------------

    def path_item(self, item: Any, here: str) -> None:
        if not isinstance(item, dict):
            return
        for index, param in enumerate(_list(item.get("parameters"))):
            self.parameter(param, join_pointer(here, "parameters", index))
        for method in OPERATION_KEYS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            at = join_pointer(here, method)
            for index, param in enumerate(_list(op.get("parameters"))):
                self.parameter(param, join_pointer(at, "parameters", index))
            self.content(op.get("requestBody"), join_pointer(at, "requestBody"))
            for status, response in _items(op.get("responses")):
                self.response(response, join_pointer(at, "responses", status))
            for name, callback in _items(op.get("callbacks")):
                self.callback(callback, join_pointer(at, "callbacks", name))

    def callback(self, callback: Any, here: str) -> None:
        for expression, item in _items(callback):
            self.path_item(item, join_pointer(here, expression))

    def parameter(self, param: Any, here: str) -> None:
        if not isinstance(param, dict) or "$ref" in param:
            return
        if isinstance(param.get("schema"), dict):
            self.schema(param["schema"], join_pointer(here, "schema"))
        self.content(param, here)

    def response(self, response: Any, here: str) -> None:
        if not isinstance(response, dict) or "$ref" in response:
            return
        for name, header in _items(response.get("headers")):
            self.parameter(header, join_pointer(here, "headers", name))
        self.content(response, here)

    def content(self, holder: Any, here: str) -> None:
        if not isinstance(holder, dict) or "$ref" in holder:
            return
        for media_type, media in _items(holder.get("content")):
            if not isinstance(media, dict):
                continue  # no Media Type Object (`content: {description: ok}`): validation's
            if isinstance(media.get("schema"), dict):
                at = join_pointer(here, "content", media_type, "schema")
                self.schema(media["schema"], at, media_type=str(media_type))
            for name, encoding in _items(media.get("encoding")):
                if not isinstance(encoding, dict):
                    continue
                for header_name, header in _items(encoding.get("headers")):
                    at = join_pointer(here, "content", media_type, "encoding", name, "headers")
                    self.parameter(header, join_pointer(at, header_name))

    # -- the Schema Object -------------------------------------------------------------

    def schema(self, schema: Any, here: str, media_type: str | None = None) -> None:
        if not isinstance(schema, dict):
            return
        for keyword in SCHEMA_MAPS:
            for name, sub in _items(schema.get(keyword)):
                self.schema(sub, join_pointer(here, keyword, name))
        for keyword in SCHEMA_LISTS:
            for index, sub in enumerate(_list(schema.get(keyword))):
                self.schema(sub, join_pointer(here, keyword, index))
        for keyword in SCHEMA_ONE:
            if isinstance(schema.get(keyword), dict):
                self.schema(schema[keyword], join_pointer(here, keyword))
        items = schema.get("items")
        if isinstance(items, list):  # 3.0 never allowed it; JSON Schema's old tuple form
            _put(schema, "items", "prefixItems", items)
        self.bounds(schema, "exclusiveMinimum", "minimum")
        self.bounds(schema, "exclusiveMaximum", "maximum")
        if "example" in schema:
            _put(schema, "example", "examples", [schema["example"]])
        self.file(schema, media_type)
        self.nullable(schema, here)

    @staticmethod
    def bounds(schema: dict[str, Any], exclusive: str, inclusive: str) -> None:
        flag = schema.get(exclusive)
        if not isinstance(flag, bool):
            return
        if flag and inclusive in schema:
            value = schema[inclusive]
            del schema[exclusive]
            _put(schema, inclusive, exclusive, value)
        else:
            del schema[exclusive]

    @staticmethod
    def file(schema: dict[str, Any], media_type: str | None) -> None:
        if schema.get("type") == "file":
            schema["type"] = "string"
            schema.setdefault("format", "binary")
        fmt = schema.get("format")
        if fmt == "binary":
            whole_body = media_type is not None and not media_type.startswith(
                ("multipart/", "application/x-www-form-urlencoded")
            )
            chosen = media_type if whole_body and "*" not in str(media_type) else None
            _put(schema, "format", "contentMediaType", chosen or "application/octet-stream")
        elif fmt in ("byte", "base64"):
            _put(schema, "format", "contentEncoding", "base64")

    def nullable(self, schema: dict[str, Any], here: str) -> None:
        flags = [schema.pop(k) for k in ("nullable", "x-nullable") if k in schema]
        if not any(flag is True for flag in flags):
            return
        kind = schema.get("type")
        if isinstance(kind, (str, list)):
            kinds = [kind] if isinstance(kind, str) else list(kind)
            if "null" not in kinds:
                kinds.append("null")
            schema["type"] = kinds
            enum = schema.get("enum")
            if isinstance(enum, list) and None not in enum:
                enum.append(None)
            return
        # no type of its own ($ref, allOf, oneOf, ...): wrap it
        inner = type(schema)()
        inner.update(schema)
        schema.clear()
        schema["anyOf"] = [inner, {"type": "null"}]
        self.moved[join_pointer(here, "anyOf", 0)] = here


def _items(node: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in node.items()] if isinstance(node, dict) else []


def _list(node: Any) -> list[Any]:
    return list(node) if isinstance(node, list) else []


def upgrade(document: dict[str, Any]) -> dict[str, str]:
    """Rewrite a 3.0 `document` as 3.1, in place; return the moved pointers (new -> old)."""
    if not is_30(document):
        return {}
    return Upgrader(document).run()
