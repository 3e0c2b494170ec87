"""Media types of bodies and responses: which kind each is, and a form's fields."""

from __future__ import annotations

from typing import Any

from ..document.openapi import STREAMED_MEDIA
from .model import FormField


def media_kind(content_type: str) -> str:
    """json | form | multipart | text | binary."""
    base = content_type.split(";", 1)[0].strip().lower()
    if base == "application/json" or base.endswith("+json"):
        return "json"
    if base == "application/x-www-form-urlencoded":
        return "form"
    if base.startswith("multipart/"):
        return "multipart"
    if (
        base.startswith("text/")
        or base in ("application/xml", "application/yaml")
        or base.endswith("+xml")
    ):
        return "text"
    return "binary"


RANGES = ("*/*", "application/*")


def stream_kind(content_type: str) -> str | None:
    """`events`, `json_lines` or `json_seq` for a streamed media type, else None."""
    return STREAMED_MEDIA.get(content_type.split(";", 1)[0].strip().lower())


def item_schema(content_type: str, entry: dict[str, Any], deref: Any) -> tuple[Any, str] | None:
    """(the schema of one item, its pointer below the Media Type Object) of a streamed media
    type, when it is an object (a model class); None for text or an undescribed item.

    An event stream's item is its events' data: OpenAPI 3.2's `itemSchema` describes the
    event (`data` with a `contentSchema`, or an object `data`), a 3.1 `schema` the data. A
    JSON sequence's item is `itemSchema`, else `schema` (its `items` when an array)."""
    kind = stream_kind(content_type)
    item, where = entry.get("itemSchema"), "itemSchema"
    if kind == "events" and isinstance(item, dict):
        data = (deref(item).get("properties") or {}).get("data")
        data = deref(data) if isinstance(data, dict) else {}
        if isinstance(data.get("contentSchema"), dict):
            item, where = data["contentSchema"], "itemSchema/properties/data/contentSchema"
        else:
            item, where = (
                (deref(item).get("properties") or {}).get("data"),
                "itemSchema/properties/data",
            )
    elif not isinstance(item, dict):
        item, where = entry.get("schema"), "schema"
        target = deref(item) if isinstance(item, dict) else {}
        if (
            kind != "events"
            and _has_type(target, "array")
            and isinstance(target.get("items"), dict)
        ):
            item, where = target["items"], "schema/items"
    if kind is None or not isinstance(item, dict) or not _object_like(deref(item)):
        return None
    return item, where


def _object_like(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    shaping = ("properties", "allOf", "oneOf", "anyOf")
    return _has_type(schema, "object") or any(k in schema for k in shaping)


def json_range(content_type: str, schema: Any) -> bool:
    """A media range (`*/*`, `application/*`) whose schema describes JSON data (an object, an
    array, a number, a composition...; not a string, which may be any bytes): its body is
    sent and read as `application/json`, as other generators do (it was raw bytes, the
    schema lost)."""
    base = content_type.split(";", 1)[0].strip().lower()
    if base not in RANGES or not isinstance(schema, dict) or not schema:
        return False
    if is_binary_schema(schema) or schema.get("type") == "string":
        return False
    shaping = ("properties", "items", "allOf", "oneOf", "anyOf", "$ref", "enum", "const")
    return "type" in schema or any(k in schema for k in shaping)


def media_order(content: dict[str, Any]) -> list[str]:
    """Media types, the primary one first: JSON, then the document's order."""
    names = [str(k) for k in content]
    json_first = [n for n in names if media_kind(n) == "json"]
    return json_first + [n for n in names if n not in json_first]


def is_binary_schema(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("format") in ("binary", "byte") and schema.get("type") in ("string", None):
        return True
    media = schema.get("contentMediaType")
    return (
        isinstance(media, str) and not media.startswith("text/") and "contentEncoding" not in schema
    )


def form_fields(
    schema: dict[str, Any], deref: Any, encoding: Any = None, multipart: bool = False
) -> tuple[FormField, ...]:
    """The properties of a form body; `encoding`: its Encoding Objects: a url-encoded body's
    `style: deepObject` sends a property as `name[key][0]=value` pairs, a multipart body's
    `contentType` is a file part's type (else the property's `contentMediaType`)."""
    encoding = encoding if isinstance(encoding, dict) else {}
    out = []
    for name, raw in (schema.get("properties") or {}).items():
        prop = deref(raw) if isinstance(raw, dict) else {}
        items = deref(prop.get("items")) if isinstance(prop.get("items"), dict) else None
        is_list = _has_type(prop, "array")
        target = items if is_list and items is not None else prop
        is_file = is_binary_schema(target)
        is_json = not is_file and (
            _has_type(target, "object")
            or "properties" in target
            or "$ref" in target
            or any(k in target for k in ("allOf", "oneOf", "anyOf"))
        )
        how = encoding.get(name)
        how = how if isinstance(how, dict) else {}
        is_deep = not is_file and not multipart and how.get("style") == "deepObject"
        declared = how.get("contentType") or (target.get("contentMediaType") if is_file else "")
        # a list of types or a range (`image/*`): the first concrete type, if any
        concrete = [t.strip() for t in str(declared or "").split(",") if "*" not in t]
        content_type = concrete[0] if is_file and concrete else ""
        out.append(
            FormField(str(name), is_file, is_list, is_json and not is_deep, is_deep, content_type)
        )
    return tuple(out)


def file_schema(schema: dict[str, Any], fields: tuple[FormField, ...]) -> dict[str, Any]:
    """A form schema whose file properties read as bytes for the models."""
    props = dict(schema.get("properties") or {})
    binary = {"type": "string", "format": "binary"}
    for f in fields:
        if f.is_file:
            old = props.get(f.name) or {}
            keep = {k: old[k] for k in ("description",) if k in old}
            props[f.name] = (
                {"type": "array", "items": binary, **keep} if f.is_list else {**binary, **keep}
            )
    return {**schema, "properties": props}


def _has_type(schema: Any, kind: str) -> bool:
    if not isinstance(schema, dict):
        return False
    types = schema.get("type")
    return kind == types or (isinstance(types, list) and kind in types)
