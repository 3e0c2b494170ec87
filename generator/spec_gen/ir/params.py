"""Parameters: Python annotation, wire style and whether FastAPI reads them natively."""

from __future__ import annotations

from typing import Any

from ..document import patterns
from .model import MISSING

SCALARS = {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}
CONSTRAINTS = (
    ("minimum", "ge"),
    ("maximum", "le"),
    ("exclusiveMinimum", "gt"),
    ("exclusiveMaximum", "lt"),
    ("minLength", "min_length"),
    ("maxLength", "max_length"),
    ("pattern", "pattern"),
)
DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


# which constraints a scalar parameter's Python type takes (pydantic refuses the others when
# the parameter arrives: `min_length` on an int is a 500)
_FITTING = {
    "str": {"min_length", "max_length", "pattern"},
    "int": {"ge", "le", "gt", "lt"},
    "float": {"ge", "le", "gt", "lt"},
}


def constraints(schema: dict[str, Any], annotation: str = "str") -> dict[str, Any]:
    """FastAPI's `Path`/`Query`/... constraints of a scalar parameter of type `annotation`:
    those its type takes; a `pattern` only as Rust's engine (FastAPI's) compiles it."""
    out = {}
    fitting = _FITTING.get(annotation, set())
    for key, name in CONSTRAINTS:
        value = schema.get(key)
        # 3.0 leftovers (a boolean exclusiveMinimum) are not a bound
        if key not in schema or isinstance(value, bool) or name not in fitting:
            continue
        if name == "pattern":
            readable = patterns.readable(str(value))
            if readable is None or readable[1] != "rust-regex":
                continue  # Python's engine only: `python_pattern`; neither: not checked
            value = readable[0]
        elif not isinstance(value, (int, float)):
            continue  # `minLength: "3"` and the like: not a bound
        out[name] = value
    return out


def python_pattern(schema: dict[str, Any], annotation: str = "str") -> str | None:
    """A string parameter's `pattern` that only Python's engine compiles (look-around,
    back-references): checked by a validator of the generated `transport` module."""
    value = schema.get("pattern")
    if annotation != "str" or not isinstance(value, str):
        return None
    readable = patterns.readable(value)
    return readable[0] if readable and readable[1] == "python-re" else None


def list_by_default(schema: dict[str, Any]) -> bool:
    """No type, nothing but a list as its default (`{default: [red, blue]}`): an array
    (read as a string, the router's default failed mypy --strict)."""
    shaping = ("type", "items", "$ref", "enum", "const", "oneOf", "anyOf", "allOf", "properties")
    return isinstance(schema.get("default"), list) and not any(k in schema for k in shaping)


def shape(schema: dict[str, Any]) -> str:
    types = schema.get("type")
    kinds = types if isinstance(types, list) else [types]
    if "array" in kinds or "items" in schema or list_by_default(schema):
        return "array"
    if "object" in kinds or "properties" in schema:
        return "object"
    return "scalar"


def is_native(location: str, style: str, explode: bool, kind: str, scalar_type: bool) -> bool:
    """Whether FastAPI's own Path/Query/Header/Cookie reads this parameter as the spec means."""
    if style in ("label", "matrix"):  # `.5` / `;id=5`: the prefix is the decoder's job
        return False
    if kind == "scalar":
        return scalar_type
    if kind == "array" and location == "query" and style == "form" and explode:
        return scalar_type
    return False


def default_of(schema: dict[str, Any], location: str) -> Any:
    # a path parameter is always sent: a default there means nothing on the server
    if location == "path":
        return MISSING
    default = schema.get("default", MISSING)
    # a default that does not fit its schema is a warning of the validator; not used here
    return default if default is MISSING or fits(default, schema) else MISSING


def fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a default value has its schema's type (and is one of its enum values)."""
    if value is None:
        return True
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return False
    types = schema.get("type")
    kinds = set(types if isinstance(types, list) else [types] if types else [])
    if not kinds and list_by_default(schema):
        kinds = {"array"}
    if not kinds:
        return True
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: (
            isinstance(v, list) and all(fits(item, _items_read(schema.get("items"))) for item in v)
        ),
        "object": lambda v: isinstance(v, dict),
    }
    return any(checks.get(kind, lambda v: True)(value) for kind in kinds if kind != "null")


# what makes a parameter's item schema more than a bare value (see Parts.annotation)
_TYPED = ("type", "$ref", "enum", "const", "default", "oneOf", "anyOf", "allOf", "properties")


def _items_read(items: Any) -> dict[str, Any]:
    """A parameter array's item schema as its annotation reads it: items with no type (or no
    `items` at all) are strings, as they arrive on the wire (`list[str]`), so a default
    `[a, 1]` for them does not fit (the int failed mypy --strict in the router)."""
    if not isinstance(items, dict):
        return {"type": "string"}
    if any(k in items for k in _TYPED):
        return items
    return {**items, "type": "string"}
