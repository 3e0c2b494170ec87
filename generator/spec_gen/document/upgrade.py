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

from typing import Any

from .openapi import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE
from .pointer import join_pointer
from .schema_walk import SchemaWalk, items_of, list_of, put


def is_30(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    version = str(document.get("openapi", ""))
    return version == "3.0" or version.startswith("3.0.")


class Upgrader(SchemaWalk):
    def __init__(self, document: dict[str, Any]) -> None:
        super().__init__(document)
        self.moved: dict[str, str] = {}  # new pointer prefix -> old pointer prefix

    def run(self) -> dict[str, str]:
        put(self.doc, "openapi", "openapi", "3.1.0")
        self.walk()
        return self.moved

    # -- the Schema Object -------------------------------------------------------------

    def schema(self, schema: Any, here: str, media_type: str | None = None) -> None:
        if not isinstance(schema, dict):
            return
        for keyword in SCHEMA_MAPS:
            for name, sub in items_of(schema.get(keyword)):
                self.schema(sub, join_pointer(here, keyword, name))
        for keyword in SCHEMA_LISTS:
            for index, sub in enumerate(list_of(schema.get(keyword))):
                self.schema(sub, join_pointer(here, keyword, index))
        for keyword in SCHEMA_ONE:
            if isinstance(schema.get(keyword), dict):
                self.schema(schema[keyword], join_pointer(here, keyword))
        items = schema.get("items")
        if isinstance(items, list):  # 3.0 never allowed it; JSON Schema's old tuple form
            put(schema, "items", "prefixItems", items)
        bounds(schema, "exclusiveMinimum", "minimum")
        bounds(schema, "exclusiveMaximum", "maximum")
        if "example" in schema:
            put(schema, "example", "examples", [schema["example"]])
        file(schema, media_type)
        nullable(schema, here, self.moved)


def bounds(schema: dict[str, Any], exclusive: str, inclusive: str) -> None:
    flag = schema.get(exclusive)
    if not isinstance(flag, bool):
        return
    if flag and inclusive in schema:
        value = schema[inclusive]
        del schema[exclusive]
        put(schema, inclusive, exclusive, value)
    else:
        del schema[exclusive]


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
        put(schema, "format", "contentMediaType", chosen or "application/octet-stream")
    elif fmt in ("byte", "base64"):
        put(schema, "format", "contentEncoding", "base64")


def nullable(schema: dict[str, Any], here: str, moved: dict[str, str]) -> None:
    """`nullable: true` read as 3.1 says; a wrapped schema's move recorded in `moved`."""
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
    moved[join_pointer(here, "anyOf", 0)] = here


def upgrade(document: dict[str, Any]) -> dict[str, str]:
    """Rewrite a 3.0 `document` as 3.1, in place; return the moved pointers (new -> old)."""
    if not is_30(document):
        return {}
    return Upgrader(document).run()
