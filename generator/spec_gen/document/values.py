"""Whether a value fits its schema (type, format, shape through `$ref`s), and a value
converted to the schema's type when that is unambiguous (`"false"` for a boolean): the
schema repairs use them on `default`s."""

from __future__ import annotations

import functools
import re
from typing import Any

from .refs import JSON_TYPES, deref

NOTHING: Any = object()

# `format`s whose string the models hold as another Python type (datamodel-code-generator's
# choice), by the pydantic type that reads them
FORMAT_TYPES = {
    "date-time": "AwareDatetime",
    "date": "date",
    "time": "time",
    "duration": "timedelta",
    "uuid": "UUID",
    "uri": "AnyUrl",
    "ipv4": "IPv4Address",
    "ipv6": "IPv6Address",
    "decimal": "Decimal",
}


def format_parses(fmt: str, value: str) -> bool:
    """Whether pydantic reads `value` as the Python type of `fmt`."""
    import pydantic

    try:
        _adapter(FORMAT_TYPES[fmt]).validate_python(value)
    except pydantic.ValidationError:
        return False
    return True


@functools.cache
def _adapter(name: str) -> Any:
    import datetime
    import decimal
    import ipaddress
    import uuid

    import pydantic

    types: dict[str, Any] = {
        "AwareDatetime": pydantic.AwareDatetime,
        "date": datetime.date,
        "time": datetime.time,
        "timedelta": datetime.timedelta,
        "UUID": uuid.UUID,
        "AnyUrl": pydantic.AnyUrl,
        "IPv4Address": ipaddress.IPv4Address,
        "IPv6Address": ipaddress.IPv6Address,
        "Decimal": decimal.Decimal,
    }
    return pydantic.TypeAdapter(types[name])


def fits_shape(
    document: dict[str, Any], schema: Any, value: Any, depth: int, budget: list[int]
) -> bool:
    """Whether `value` has a type and enum value `schema` allows, following `$ref`, allOf,
    oneOf / anyOf and array items (a default of `Columns = oneOf [Column enum, array of
    Column]` written "a,b,c" fits neither). Anything else is taken as fitting, and so is
    what lies deeper than `depth` steps or past `budget` schemas looked at (a recursive or
    wide union): 8 steps were too few for a default of a list of a discriminated union
    behind two `allOf` wrappers, which the generated code then refused at import."""
    budget[0] -= 1
    if depth <= 0 or budget[0] < 0 or not isinstance(schema, dict):
        return True
    if isinstance(schema.get("$ref"), str):
        target = deref(document, {"$ref": schema["$ref"]})
        if not fits_shape(document, target, value, depth - 1, budget):
            return False
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    checks = [JSON_TYPES[k] for k in kinds if k in JSON_TYPES]
    if checks and not any(check(value) for check in checks):
        return False
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    items = schema.get("items")
    if (
        isinstance(value, list)
        and isinstance(items, dict)
        and not all(fits_shape(document, items, v, depth - 1, budget) for v in value[:16])
    ):
        return False
    members = schema.get("allOf")
    if isinstance(members, list) and not all(
        fits_shape(document, m, value, depth - 1, budget) for m in members
    ):
        return False
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if (
            isinstance(options, list)
            and options
            and not any(fits_shape(document, m, value, depth - 1, budget) for m in options)
        ):
            return False
    return True


def convert_value(value: Any, kinds: list[str]) -> Any:
    """`value` as the first of `kinds` it reads as without guessing, else NOTHING."""
    text = str(value).strip() if isinstance(value, (str, int, float)) else None
    for kind in kinds:
        if kind == "boolean" and text is not None and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if kind == "integer" and text is not None and re.fullmatch(r"[-+]?\d+(\.0*)?", text):
            return int(float(text)) if "." in text else int(text)
        if kind == "number" and text is not None and not isinstance(value, bool):
            try:
                number = float(text)
            except ValueError:
                continue
            return int(number) if number.is_integer() and "." not in text else number
        if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if kind == "null" and value in ("null", "None", ""):
            return None
    return NOTHING
