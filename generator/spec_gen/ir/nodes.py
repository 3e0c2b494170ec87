"""Small readers of OpenAPI nodes the IR builder uses: servers, examples, statuses,
security, extensions, schema shapes."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..document.walk import structured_enum
from .model import MISSING, Requirement, SecurityScheme, Server

# statuses HTTP forbids a body for (1XX too): their `content` is ignored (rule `no-body-status`)
NO_BODY = frozenset({"204", "205", "304"})


def extensions(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sorted(node.items()) if isinstance(k, str) and k.startswith("x-")}


def server(node: dict[str, Any]) -> Server:
    variables = {k: str(v.get("default", "")) for k, v in (node.get("variables") or {}).items()}
    url = str(node.get("url", "/"))
    concrete = url
    for name, value in variables.items():
        concrete = concrete.replace("{" + name + "}", value)
    prefix = urlsplit(concrete).path.rstrip("/")
    if "{" in prefix or "}" in prefix or not prefix.startswith("/"):
        # a variable the server does not declare (its value unknown), or not a URL
        # (`<terminal-IP-address>`): no path of its own the routes could sit under
        prefix = ""
    return Server(url, str(node.get("description", "")), variables, prefix, extensions(node))


def example(node: dict[str, Any]) -> Any:
    """A parameter's or media type's `example`, else the value of its first `examples` entry."""
    if "example" in node:
        return node["example"]
    examples = node.get("examples")
    if isinstance(examples, dict):
        for entry in examples.values():
            if isinstance(entry, dict) and "value" in entry:
                return entry["value"]
    return MISSING


def status_key(status: Any) -> tuple[int, str]:
    text = str(status)
    if text.isdigit():
        return (int(text), text)
    if text[:1].isdigit():
        return (int(text[0]) * 100 + 99, text)
    return (999, text)


def requirements(raw: Any) -> tuple[Requirement, ...]:
    if not raw:
        return ()
    return tuple(
        Requirement(
            tuple(sorted(req)), {k: tuple(str(s) for s in v or ()) for k, v in sorted(req.items())}
        )
        for req in raw
        if isinstance(req, dict)
    )


def security_scheme(name: str, node: dict[str, Any]) -> SecurityScheme:
    kind = str(node.get("type", ""))
    if kind == "apiKey":
        location, parameter, scheme = str(node.get("in", "header")), str(node.get("name", "")), ""
    elif kind == "http":
        location, parameter, scheme = "header", "Authorization", str(node.get("scheme", "")).lower()
    elif kind in ("oauth2", "openIdConnect"):
        location, parameter, scheme = "header", "Authorization", "bearer"
    else:
        location, parameter, scheme = "none", "", ""
    scopes = sorted(
        {
            str(s)
            for flow in (node.get("flows") or {}).values()
            for s in (flow or {}).get("scopes") or {}
        }
    )
    return SecurityScheme(
        name, kind, location, parameter, scheme, str(node.get("description", "")), tuple(scopes),
        extensions(node),
    )  # fmt: skip


def is_enum(schema: dict[str, Any]) -> bool:
    """Whether datamodel-code-generator writes the schema as an enum class: an `enum` with
    no composition or properties; an object's enum (`type: object, enum: [{...}]`) is a
    model class (its values are not members)."""
    return (
        "enum" in schema
        and schema.get("type") != "object"
        and not structured_enum(schema)
        and not any(k in schema for k in ("oneOf", "anyOf", "allOf", "properties"))
    )


def is_primitive(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return not any(
        k in schema for k in ("enum", "oneOf", "anyOf", "allOf", "properties", "const")
    ) and all(k in ("string", "integer", "number", "boolean", "null") for k in kinds)


def variant_schema(schema: dict[str, Any], flag: str) -> dict[str, Any]:
    """A form schema without its `flag` properties (forms are flat: no nested classes)."""
    if not flag:
        return schema
    props = {
        k: v
        for k, v in (schema.get("properties") or {}).items()
        if not (isinstance(v, dict) and v.get(flag) is True)
    }
    out = {**schema, "properties": props}
    if "required" in schema:
        out["required"] = [r for r in schema.get("required") or [] if r in props]
    return out
