"""Parameter repairs (`parameter-repair`): Swagger 2.0 keywords on a parameter read as its
schema and style, path parameters not required or not declared, styles the location does
not allow."""

from __future__ import annotations

import re
from typing import Any

from ..core.lint_rules import Repair, Rule
from .openapi import METHODS as OPERATION_KEYS
from .pointer import join_pointer, resolve_pointer
from .refs import deref

# the keywords Swagger 2.0 put on a parameter itself: in OpenAPI 3 they are its schema's
_PARAMETER_SCHEMA_KEYS = frozenset(
    {
        "type",
        "format",
        "items",
        "enum",
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "multipleOf",
    }
)
# Swagger 2.0's collectionFormat as OpenAPI 3's style and explode (tsv has no equivalent)
_COLLECTION_FORMATS = {
    "csv": ("form", False),
    "multi": ("form", True),
    "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False),
}


def parameter_schemas(document: dict[str, Any], kinds: dict[str, str]) -> list[Repair]:
    """A Parameter or Header Object with neither `schema` nor `content` (one of them is
    required) was refused. Documents converted by hand from Swagger 2.0 keep its way of
    typing a parameter on the parameter itself (`type: integer`, `format`, `enum`, `items`,
    `collectionFormat: csv`): those keywords are read as its schema (and style); a parameter
    with none of them is a string, as every path, query, header and cookie value is. A
    `parameter-repair` warning each."""
    out = []
    for here, kind in kinds.items():
        if kind not in ("Parameter", "Header"):
            continue
        node = resolve_pointer(document, here)
        if not isinstance(node, dict) or {"$ref", "schema", "content"} & node.keys():
            continue
        schema = {key: node.pop(key) for key in list(node) if key in _PARAMETER_SCHEMA_KEYS}
        for bound in ("Minimum", "Maximum"):  # draft 4's boolean exclusive bounds
            flag, value = schema.get(f"exclusive{bound}"), schema.get(bound.lower())
            if isinstance(flag, bool):
                del schema[f"exclusive{bound}"]
                if flag and value is not None:
                    schema[f"exclusive{bound}"] = schema.pop(bound.lower())
        style = _COLLECTION_FORMATS.get(str(node.pop("collectionFormat", "")))
        if style is not None and kind == "Parameter" and node.get("in") == "query":
            node["style"], node["explode"] = style
        what = "parameter" if kind == "Parameter" else "header"
        if schema:
            node["schema"] = schema
            keys = ", ".join(f"`{key}`" for key in schema)
            message = f"a {what} without `schema` or `content`: its {keys} read as its schema"
        else:
            node["schema"] = {"type": "string"}
            message = f"a {what} without `schema` or `content`: read as a string"
        out.append((here, Rule.PARAMETER_REPAIR, message))
    return out


def path_parameters(document: dict[str, Any]) -> list[Repair]:
    """Path parameters as FastAPI needs them: one not marked `required: true` is required (a
    path has no optional parts); a `{placeholder}` no parameter declares becomes a string
    parameter of each operation; one the path has no placeholder for is reported as ignored
    (the IR leaves it out). Each a `parameter-repair` warning."""
    out: list[Repair] = []
    fixed: set[int] = set()
    paths = document.get("paths")
    for path, item in paths.items() if isinstance(paths, dict) else ():
        item_at = join_pointer("/paths", str(path))
        if not isinstance(item, dict):
            continue
        template = re.findall(r"{([^}]+)}", str(path))
        shared = _declared(document, item, item_at, fixed, out)
        _unplaced(shared, template, out)
        for method in OPERATION_KEYS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            at = join_pointer(item_at, method)
            own = _declared(document, op, at, fixed, out)
            _unplaced(own, template, out)
            declared = shared | own
            missing = [n for n in template if n not in declared]
            for name in dict.fromkeys(missing):
                params = op.setdefault("parameters", [])
                if not isinstance(params, list):
                    break
                params.append(
                    {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                )
                message = f"path parameter {name!r} is in the path but not declared: a string"
                out.append((at, Rule.PARAMETER_REPAIR, message))
    return list(dict.fromkeys(out))  # a shared component parameter is reported once


def _unplaced(declared: dict[str, str], template: list[str], out: list[Repair]) -> None:
    """Report each declared path parameter the path template has no placeholder for."""
    for name, at in declared.items():
        if name not in template:
            message = f"path parameter {name!r} is declared but not in the path: ignored"
            out.append((at, Rule.PARAMETER_REPAIR, message))


# the styles each parameter location allows, its default first
STYLES: dict[str, tuple[str, ...]] = {
    "path": ("simple", "matrix", "label"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}


def _declared(
    document: dict[str, Any],
    holder: dict[str, Any],
    here: str,
    fixed: set[int],
    out: list[Repair],
) -> dict[str, str]:
    """The path parameters `holder` declares (name -> pointer), each made required (reported
    once); a style its location does not allow is dropped (the default applies), for every
    parameter."""
    names: dict[str, str] = {}
    params = holder.get("parameters")
    for index, raw in enumerate(params if isinstance(params, list) else []):
        at = join_pointer(here, "parameters", index)
        param = raw
        if isinstance(raw, dict) and isinstance(raw.get("$ref"), str):
            at = raw["$ref"][1:]
            param = deref(document, raw)
        if not isinstance(param, dict):
            continue
        allowed = STYLES.get(str(param.get("in")))
        style = param.get("style")
        if allowed and isinstance(style, str) and style not in allowed:
            del param["style"]  # once: a shared component is seen without it afterwards
            message = (
                f"style {style!r} is not one a {param.get('in')} parameter may have "
                f"({', '.join(allowed)}): read as the default, {allowed[0]!r}"
            )
            out.append((join_pointer(at, "style"), Rule.PARAMETER_REPAIR, message))
        if param.get("in") != "path":
            continue
        names.setdefault(str(param.get("name")), at)
        if param.get("required") is not True and id(param) not in fixed:
            fixed.add(id(param))
            param["required"] = True
            message = "a path parameter is always required: read as `required: true`"
            out.append((at, Rule.PARAMETER_REPAIR, message))
    return names
