"""Leftovers in a document that says 3.1: repaired in memory, each with a warning at its node.

Real-world 3.1 documents often keep 3.0 (or older JSON Schema draft) forms that JSON Schema
2020-12 refuses or reads differently. Refusing them would stop the build of a document every
other tool accepts; ignoring them would lose meaning (`nullable: true` ignored makes a field
that can be null refuse null). So they are read as their author meant, the way
`upgrade.py` reads a 3.0 document, and each repair is reported as a `schema-repair` warning
(`--strict` makes it an error):

- boolean `exclusiveMinimum` / `exclusiveMaximum`, `nullable` / `x-nullable` (3.0 forms);
In 3.0 documents too (the upgrade does not touch them):

- `$recursiveAnchor` / `$recursiveRef` (JSON Schema 2019-09): `$recursiveRef: "#"` becomes a
  `$ref` to the nearest enclosing schema that declares `$recursiveAnchor: true` (else the
  schema root it sits in, e.g. the component), which is what such documents mean;
- a list of `items` (draft 4's tuple form): `prefixItems`;
- `required` listing a property twice: the duplicates dropped;
- Swagger 2's `type: file`: a binary string;
- keywords of objects only (`properties`, `required`...) or of arrays only (`items`...) in a
  schema whose `type` admits no object (no array): ignored, as JSON Schema reads them (a
  `type: string` with `properties` stays a string, not a class; `spec-gen diff` keeps them);
- a `default` its schema refuses (in 3.0 documents too; reported under the `default` rule):
  converted when unambiguous (`"false"` for a boolean), else dropped (the model would not
  type-check, nor validate its own default); a string default its `format` refuses (`"24h"`
  for a `duration`) is dropped the same way (the model validates it as `timedelta`);
- a keyword whose value has a type JSON Schema does not allow (`required: true` on a
  property, `description: 42`, `minLength: "3"`): dropped, the schema stays usable; so is
  an `allOf`, `anyOf` or `oneOf` listing no schema (`anyOf: []`, a generator's unknown
  union: the meta-schema wants a branch, and the writer meant no constraint); a
  schema's `examples` written as a map of Example Objects (`{one: {value: 1}}`, as a media
  type writes them) is read as the list of their values.

`info.version` written as a number (`2.0`) is read as that string, and a response without
its required `description` as having an empty one (`document-repair`).

Fields of OpenAPI objects set to `null` (`description: null`) are read as absent
(`null-field`): schemas, examples, defaults and extensions are data and keep theirs (a map
of them left empty, `components: {schemas: null}`, is read as absent too).

Path parameters get the same treatment (`parameter-repair`): one without `required: true`
is required; a `{placeholder}` no parameter declares becomes a string parameter; a path
parameter the path has no `{placeholder}` for is ignored (no request can carry it; the IR
leaves it out, the document keeps it so every pointer still points at its source). A
parameter whose `style` its location does not allow (`simple` in a query) gets the
location's default.

Only keyword values that JSON Schema 2020-12 cannot read are touched; unknown keywords are
left for the `schema-keyword` rule (a warning: ignored).

`example` stays: the OpenAPI 3.1 dialect still defines it. `format: binary` stays: in 3.1
it is an annotation the IR understands.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..core.lint_rules import Repair, Rule
from .pointer import join_pointer, resolve_pointer
from .refs import JSON_TYPES, deref
from .upgrade import Upgrader, _put, is_30
from .walk import METHODS as OPERATION_KEYS
from .walk import inapplicable_keywords, typed_nodes


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return _number(value) and value >= 0 and float(value).is_integer()


# keyword -> does its value have the type JSON Schema 2020-12 requires? A keyword whose value
# does not is dropped (it cannot be read; the schema stays usable without it)
VALUE_CHECKS: dict[str, Any] = {
    **{k: lambda v: isinstance(v, str) for k in ("title", "description", "$comment", "pattern",
       "format", "contentMediaType", "contentEncoding", "$id", "$anchor")},
    **{k: lambda v: isinstance(v, bool) for k in ("deprecated", "readOnly", "writeOnly",
       "uniqueItems")},
    **{k: _number for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")},
    "multipleOf": lambda v: _number(v) and v > 0,
    **{k: _count for k in ("minLength", "maxLength", "minItems", "maxItems", "minProperties",
       "maxProperties", "minContains", "maxContains")},
    "required": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "enum": lambda v: isinstance(v, list),
    "examples": lambda v: isinstance(v, list),
}  # fmt: skip


class Repairer(Upgrader):
    """Walks every schema as the upgrade does; repairs only what 3.1 cannot read as written."""

    def __init__(self, document: dict[str, Any], leftovers: bool, inapplicable: bool) -> None:
        super().__init__(document)
        self.leftovers = leftovers  # a 3.1 document: also repair the 3.0 forms
        self.inapplicable = inapplicable  # drop the keywords of another type (see repair())
        self.repairs: list[Repair] = []  # (pointer, rule, what was done)
        self.anchors: list[str] = []  # pointers of the enclosing schemas, outermost first
        self.recursive: list[str] = []  # those with $recursiveAnchor: true

    def schema(self, schema: Any, here: str, media_type: str | None = None) -> None:
        if not isinstance(schema, dict):
            return
        anchored = schema.get("$recursiveAnchor") is True
        if "$recursiveAnchor" in schema:
            del schema["$recursiveAnchor"]
            self.repairs.append(
                (
                    join_pointer(here, "$recursiveAnchor"),
                    Rule.SCHEMA_REPAIR,
                    "2019-09's `$recursiveAnchor`: dropped",
                )
            )
        self.anchors.append(here)
        if anchored:
            self.recursive.append(here)
        try:
            self._children(schema, here)
        finally:
            self.anchors.pop()
            if anchored:
                self.recursive.pop()
        self._fix(schema, here)

    def _children(self, schema: dict[str, Any], here: str) -> None:
        from .walk import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE

        for keyword in SCHEMA_MAPS:
            value = schema.get(keyword)
            if isinstance(value, dict):
                for name, sub in list(value.items()):
                    self.schema(sub, join_pointer(here, keyword, str(name)))
        for keyword in SCHEMA_LISTS:
            value = schema.get(keyword)
            if isinstance(value, list):
                for index, sub in enumerate(value):
                    self.schema(sub, join_pointer(here, keyword, index))
        for keyword in SCHEMA_ONE:
            if isinstance(schema.get(keyword), dict):
                self.schema(schema[keyword], join_pointer(here, keyword))

    def _fix(self, schema: dict[str, Any], here: str) -> None:
        if "$recursiveRef" in schema:
            target = (self.recursive or self.anchors)[0]
            del schema["$recursiveRef"]
            schema["$ref"] = "#" + target
            self.repairs.append(
                (
                    join_pointer(here, "$recursiveRef"),
                    Rule.SCHEMA_REPAIR,
                    f"2019-09's `$recursiveRef`: read as $ref {target}",
                )
            )
        required = schema.get("required")
        if isinstance(required, list) and len(set(map(str, required))) != len(required):
            seen: list[Any] = []
            for name in required:
                if name not in seen:
                    seen.append(name)
            required[:] = seen
            self.repairs.append(
                (
                    join_pointer(here, "required"),
                    Rule.SCHEMA_REPAIR,
                    "`required` lists a name twice: once kept",
                )
            )
        if self.leftovers:
            self._leftovers(schema, here)
        self._types(schema, here)
        self._example_map(schema, here)
        for keyword, check in VALUE_CHECKS.items():
            if keyword in schema and not check(schema[keyword]):
                del schema[keyword]
                self.repairs.append(
                    (
                        join_pointer(here, keyword),
                        Rule.SCHEMA_REPAIR,
                        f"`{keyword}` has a value of the wrong type: dropped",
                    )
                )
        for keyword in ("allOf", "anyOf", "oneOf"):
            if schema.get(keyword) == []:
                # JSON Schema wants at least one branch; a generator that knew none wrote []
                del schema[keyword]
                self.repairs.append(
                    (
                        join_pointer(here, keyword),
                        Rule.SCHEMA_REPAIR,
                        f"`{keyword}` lists no schema: dropped (it says nothing of the value)",
                    )
                )
        if self.inapplicable:
            self._inapplicable(schema, here)
        if "default" in schema:
            self._default(schema, here)
        if isinstance(schema.get("default"), str):
            self._format_default(schema, here)
        if self.leftovers:
            self._nullable(schema, here)

    def _example_map(self, schema: dict[str, Any], here: str) -> None:
        """A schema's `examples` written as a media type's map of Example Objects
        (`examples: {single: {value: [a]}}`, SendGrid's 3.1 documents): JSON Schema's
        `examples` is an array, so it is read as the list of their values."""
        examples = schema.get("examples")
        if not isinstance(examples, dict) or not examples:
            return
        if not all(isinstance(e, dict) and "value" in e for e in examples.values()):
            return  # dropped as a value of the wrong type
        schema["examples"] = [e["value"] for e in examples.values()]
        self.repairs.append(
            (
                join_pointer(here, "examples"),
                Rule.SCHEMA_REPAIR,
                "`examples` is a map of Example Objects: read as the list of their values",
            )
        )

    def _default(self, schema: dict[str, Any], here: str) -> None:
        """A `default` its own schema refuses: converted when that is unambiguous ("false" for
        a boolean, "3" for an integer, 3 for a string), else dropped (the generated model
        would not type-check with it, nor validate its own default)."""
        value = schema["default"]
        nullable = any(schema.get(flag) is True for flag in ("nullable", "x-nullable"))
        if value is None and self.leftovers and nullable:
            return  # 3.0's `nullable` (read after this) lets it in
        kind = schema.get("type")
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
        checks = [JSON_TYPES[k] for k in kinds if k in JSON_TYPES]
        enum = schema.get("enum")
        fits = (not checks or any(check(value) for check in checks)) and (
            not isinstance(enum, list) or value in enum
        )
        if fits and not _fits_shape(self.doc, schema, value, 32, [2000]):
            # its own type and enum take it, the schemas it refers to or combines do not
            del schema["default"]
            self.repairs.append(
                (
                    join_pointer(here, "default"),
                    Rule.DEFAULT,
                    f"default {value!r} does not fit its schema: dropped",
                )
            )
            return
        if fits:
            return
        converted = _convert(value, [k for k in kinds if k in JSON_TYPES])
        at = join_pointer(here, "default")
        if converted is not _NOTHING and (not isinstance(enum, list) or converted in enum):
            schema["default"] = converted
            self.repairs.append(
                (
                    at,
                    Rule.DEFAULT,
                    f"default {value!r} does not fit its schema: read as {converted!r}",
                )
            )
        else:
            del schema["default"]
            self.repairs.append(
                (at, Rule.DEFAULT, f"default {value!r} does not fit its schema: dropped")
            )

    def _format_default(self, schema: dict[str, Any], here: str) -> None:
        """A string default its `format` refuses (`"24h"` for a duration, `"3600"` read from
        3600): dropped. The model validates its default as the format's Python type
        (`timedelta`, `UUID`...), so a class holding it could not be built without a value."""
        kind = schema.get("type")
        fmt = schema.get("format")
        value = schema["default"]
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
        if [k for k in kinds if k != "null"] != ["string"] or not isinstance(fmt, str):
            return
        if fmt not in FORMAT_TYPES or _parses(fmt, value):
            return
        del schema["default"]
        self.repairs.append(
            (
                join_pointer(here, "default"),
                Rule.DEFAULT,
                f"default {value!r} is not a valid `{fmt}`: dropped",
            )
        )

    def _types(self, schema: dict[str, Any], here: str) -> None:
        """`type: file` (Swagger 2) read as binary (any other unknown type stays an error); a
        YAML null in a type list (`type: [string, null]`, unquoted) read as `'null'`."""
        kind = schema.get("type")
        if isinstance(kind, list) and None in kind:
            schema["type"] = kind = ["null" if k is None else k for k in kind]
            self.repairs.append(
                (
                    join_pointer(here, "type"),
                    Rule.SCHEMA_REPAIR,
                    "`null` unquoted in a type list is no type name: read as 'null'",
                )
            )
        kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
        if "file" in kinds:
            self.repairs.append(
                (
                    join_pointer(here, "type"),
                    Rule.SCHEMA_REPAIR,
                    "Swagger 2's `type: file`: a binary string",
                )
            )
            self.file(schema, None)

    def _inapplicable(self, schema: dict[str, Any], here: str) -> None:
        """Keywords of objects only (`properties`, `required`...) or of arrays only (`items`,
        `minItems`...) in a schema whose `type` admits no object (no array): JSON Schema
        applies them to none of its values. Read as written, datamodel-code-generator made a
        class (or a list) of a `type: string` with `properties` (or `items`), and the model
        refused every value the document allows; a query parameter read them as an object."""
        for keyword, family in inapplicable_keywords(schema):
            del schema[keyword]
            kind = schema["type"]
            named = " or ".join(map(repr, kind if isinstance(kind, list) else [kind]))
            message = f"`{keyword}` applies only to an {family}, and `type` {named} admits none"
            self.repairs.append(
                (join_pointer(here, keyword), Rule.SCHEMA_REPAIR, f"{message}: ignored")
            )

    def _leftovers(self, schema: dict[str, Any], here: str) -> None:
        """3.0 forms in a 3.1 document."""
        if isinstance(schema.get("items"), list):
            self.repairs.append(
                (
                    join_pointer(here, "items"),
                    Rule.SCHEMA_REPAIR,
                    "a list of `items`: read as `prefixItems`",
                )
            )
            _put(schema, "items", "prefixItems", schema["items"])
        for exclusive, inclusive in (
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ):
            if isinstance(schema.get(exclusive), bool):
                self.repairs.append(
                    (
                        join_pointer(here, exclusive),
                        Rule.SCHEMA_REPAIR,
                        f"3.0's boolean `{exclusive}`: read as 3.0 did",
                    )
                )
                self.bounds(schema, exclusive, inclusive)

    def _nullable(self, schema: dict[str, Any], here: str) -> None:
        """3.0's `nullable` in a 3.1 document (last: it may wrap the schema in `anyOf`)."""
        for flag in ("nullable", "x-nullable"):
            if flag in schema:
                self.repairs.append(
                    (
                        join_pointer(here, flag),
                        Rule.SCHEMA_REPAIR,
                        f"3.0's `{flag}`: read as type [..., 'null']",
                    )
                )
        self.nullable(schema, here)


_NOTHING: Any = object()

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


def _parses(fmt: str, value: str) -> bool:
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


def _fits_shape(
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
        if not _fits_shape(document, target, value, depth - 1, budget):
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
        and not all(_fits_shape(document, items, v, depth - 1, budget) for v in value[:16])
    ):
        return False
    members = schema.get("allOf")
    if isinstance(members, list) and not all(
        _fits_shape(document, m, value, depth - 1, budget) for m in members
    ):
        return False
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if (
            isinstance(options, list)
            and options
            and not any(_fits_shape(document, m, value, depth - 1, budget) for m in options)
        ):
            return False
    return True


def _convert(value: Any, kinds: list[str]) -> Any:
    """`value` as the first of `kinds` it reads as without guessing, else _NOTHING."""
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
    return _NOTHING


def repair(
    document: dict[str, Any], source_version: str, inapplicable: bool = True
) -> tuple[dict[str, str], list[Repair]]:
    """Repair `document` (already upgraded when it was 3.0) in place; return the moved pointers
    (new -> old) and the repairs made (pointer, rule id, message). 3.0 forms are repaired only when the
    document was written as 3.1 (an upgraded 3.0 document has none left). Without
    `inapplicable`, keywords of another type stay (`spec-gen diff` compares what was
    written, as oasdiff does; a build reads what they mean: nothing)."""
    leftovers = not is_30({"openapi": source_version})
    fixer = Repairer(document, leftovers, inapplicable)
    version = document.get("openapi")
    found = null_fields(document)
    renamed = path_keys(document)  # first: the walk below sees the paths as read
    found += [(old, Rule.DOCUMENT_REPAIR, message) for old, _, message in renamed]
    # which OpenAPI Object sits where (one walk for the repairs below: 0.15 s at 900
    # operations); what they add or remove keeps the pointers of the others
    kinds = typed_nodes(document, schemas=False)[0]
    statuses = response_keys(document, kinds)
    if statuses:  # the answers renamed: where they sit now
        renamed += statuses
        found += [(old, Rule.DOCUMENT_REPAIR, message) for old, _, message in statuses]
        kinds = typed_nodes(document, schemas=False)[0]
    keys, dropped = media_type_keys(document, kinds)
    if keys or dropped:  # the walk again, so the repairs below see the content maps as read
        renamed += keys
        found += [(old, Rule.DOCUMENT_REPAIR, message) for old, _, message in keys] + dropped
        kinds = typed_nodes(document, schemas=False)[0]
    found += parameter_schemas(document, kinds) + required_fields(document, kinds)
    fixer.run()
    if version is not None:
        document["openapi"] = version  # run() stamps 3.1.0; keep what the author wrote
    else:  # nor invent one: the validator reports the missing field
        document.pop("openapi", None)
    moved = {new: old for old, new, _ in renamed}
    return (
        {**fixer.moved, **moved},
        found
        + fixer.repairs
        + path_parameters(document)
        + info_fields(document)
        + info_version(document)
        + response_descriptions(document, kinds),
    )


# where a value is data (or a schema, which the schema repairs handle), never a field
_DATA_KEYS = frozenset(
    {"schema", "schemas", "example", "examples", "value", "default", "enum", "const", "links"}
)


# data keys whose value is a map of named objects (`components: {schemas: }`, a media type's
# `examples:` left empty): null there is no datum, only a map nobody filled in
_MAP_OF_DATA_KEYS = frozenset({"schemas", "examples", "links"})


def _empty_map(name: str, value: Any) -> bool:
    return value is None and name in _MAP_OF_DATA_KEYS


def null_fields(document: dict[str, Any]) -> list[Repair]:
    """Fields of OpenAPI objects set to `null` (`description: null` on operations, as some
    generators write every unset field): no field of an OpenAPI object takes null, and
    absent is what such a document means. Each removed, a `null-field` warning; schemas,
    examples, defaults and extensions are data and stay, but a map of them left empty
    (`schemas:` with nothing under it) is a field like any other."""
    out: list[Repair] = []

    def walk(node: Any, here: str, parent: str) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, join_pointer(here, index), "")
            return
        if not isinstance(node, dict):
            return
        for key in list(node):
            name = str(key)
            data = name in _DATA_KEYS and not (name == "default" and parent == "responses")
            if name.startswith("x-") or (data and not _empty_map(name, node[key])):
                continue
            at = join_pointer(here, name)
            if node[key] is None:
                del node[key]
                out.append((at, Rule.NULL_FIELD, f"{name!r} is null: read as absent"))
            else:
                walk(node[key], at, name)

    walk(document, "", "")
    return out


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


def path_keys(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    """A path written without its leading `/` (`users/{id}:`) was not a path (a stray key,
    its operations left out): it is read as `/users/{id}`, unless that path is also written.
    Returns (old pointer, new pointer, message) for each."""
    paths = document.get("paths")
    if not isinstance(paths, dict):
        return []
    out = []
    renamed = {}
    for key, item in paths.items():
        name = str(key)
        if name.startswith(("/", "x-")) or f"/{name}" in paths or not isinstance(item, dict):
            renamed[key] = item
            continue
        renamed[f"/{name}"] = item
        message = f"path {name!r} does not start with `/`: read as {'/' + name!r}"
        out.append((join_pointer("/paths", name), join_pointer("/paths", f"/{name}"), message))
    if out:
        paths.clear()
        paths.update(renamed)
    return out


# a status range or `default` in another case than OpenAPI's: `2xx`, `Default`
_STATUS_SPELLING = re.compile(r"^(?:[1-5]xx|default)$", re.IGNORECASE)


def response_keys(document: dict[str, Any], kinds: dict[str, str]) -> list[tuple[str, str, str]]:
    """A status range or `default` written in another case (`4xx`, `Default`) was not an
    answer (a stray key, left out): it is read as `4XX` / `default`, unless that key is also
    written. Returns (old pointer, new pointer, message) for each, as `path_keys` does."""
    out = []
    for here, kind in kinds.items():
        operation = resolve_pointer(document, here) if kind == "Operation" else None
        responses = operation.get("responses") if isinstance(operation, dict) else None
        if not isinstance(responses, dict):
            continue
        wrong = [k for k in responses if isinstance(k, str) and _STATUS_SPELLING.match(k)]
        wrong = [k for k in wrong if k not in ("default", k.upper())]
        if not wrong:
            continue
        renamed: dict[str, Any] = {}
        for key, value in responses.items():
            meant = key.lower() if str(key).lower() == "default" else str(key).upper()
            if key in wrong and meant not in responses:
                renamed[meant] = value
                at = join_pointer(here, "responses")
                message = f"response key {key!r} is not OpenAPI's spelling: read as {meant!r}"
                out.append((join_pointer(at, key), join_pointer(at, meant), message))
            else:
                renamed[key] = value
        responses.clear()
        responses.update(renamed)
    return out


# `type/subtype`, then what the author meant as its parameters after a comma
_MEDIA_TYPE_COMMA = re.compile(r"^\s*([^\s/;,]+/[^\s/;,]+)\s*,\s*([^\s/;,=]+\s*=.*)$")


def media_type_keys(
    document: dict[str, Any], kinds: dict[str, str]
) -> tuple[list[tuple[str, str, str]], list[Repair]]:
    """Keys of a `content` map that are no media type. One without a `/` (`examples:` written
    one level too high, beside the media types) was read as a media type of its own, and the
    body became bytes: the entry is ignored. A media type whose parameters follow a comma
    (`application/json, version=1`) was not JSON, so its body became bytes too: read with a
    `;` (`application/json; version=1`). Returns the renamed keys (old pointer, new pointer,
    message) and the dropped ones (pointer, rule, message), `document-repair` warnings."""
    renamed: list[tuple[str, str, str]] = []
    dropped: list[Repair] = []
    for here, kind in kinds.items():
        parent, _, last = here.rpartition("/")
        if kind != "Media Type" or not parent.endswith("/content"):
            continue
        name = last.replace("~1", "/").replace("~0", "~")
        content = resolve_pointer(document, parent)
        if not isinstance(content, dict) or name not in content:
            continue
        if "/" not in name:
            del content[name]
            message = f"{name!r} is not a media type (type/subtype): this entry is ignored"
            dropped.append((here, Rule.DOCUMENT_REPAIR, message))
            continue
        match = _MEDIA_TYPE_COMMA.match(name)
        if match is None:
            continue
        meant = f"{match.group(1)}; {match.group(2).strip()}"
        if meant in content:
            continue
        entries = [(meant if key == name else key, value) for key, value in content.items()]
        content.clear()  # the same order: the first media type is the primary one
        content.update(entries)
        message = f"media type {name!r} has its parameters after a comma: read as {meant!r}"
        renamed.append((here, join_pointer(parent, meant), message))
    return renamed, dropped


def required_fields(document: dict[str, Any], kinds: dict[str, str]) -> list[Repair]:
    """Required fields left out, or written as another type, where one reading is plain, each
    a `document-repair` warning: a server variable without `default` takes its first `enum`
    value (else ""); a number as an operationId is its text, one tag name as `tags` a list of
    it; a request body without `content` has none (`content: {}`), nor an OAuth flow
    without `scopes` (`scopes: {}`);
    a license or tag without `name`, an external document without `url`, is read as absent
    (nothing generated depends on them)."""
    out: list[Repair] = []

    def note(here: str, message: str) -> None:
        out.append((here, Rule.DOCUMENT_REPAIR, message))

    info = document.get("info")
    license_ = info.get("license") if isinstance(info, dict) else None
    if isinstance(info, dict) and isinstance(license_, dict) and "name" not in license_:
        del info["license"]
        note("/info/license", "a license without `name` (required): read as absent")
    tags = document.get("tags")
    tags = tags if isinstance(tags, list) else []
    for index in reversed(range(len(tags))):
        if isinstance(tags[index], dict) and "name" not in tags[index]:
            del tags[index]
            note(join_pointer("/tags", index), "a tag without `name` (required): read as absent")
    holders = [("", document)] + [(join_pointer("/tags", i), tag) for i, tag in enumerate(tags)]
    servers: list[tuple[str, Any]] = [("", document)]
    for here, kind in kinds.items():
        node = resolve_pointer(document, here)
        if not isinstance(node, dict):
            continue
        if kind == "Operation":
            holders.append((here, node))
            servers.append((here, node))
            if isinstance(node.get("tags"), str):
                node["tags"] = [node["tags"]]
                note(join_pointer(here, "tags"), "`tags` is one name: read as a list of it")
            operation_id = node.get("operationId")
            if isinstance(operation_id, (int, float)) and not isinstance(operation_id, bool):
                node["operationId"] = str(operation_id)
                note(
                    join_pointer(here, "operationId"),
                    f"operationId {operation_id!r} is a number: read as the string "
                    f"{str(operation_id)!r}",
                )
        elif kind == "Path Item":
            servers.append((here, node))
        elif kind == "Request Body" and "$ref" not in node and "content" not in node:
            node["content"] = {}
            note(here, "a request body without `content` (required): read as having none")
        elif kind == "Security Scheme" and node.get("type") == "oauth2":
            flows = node.get("flows")
            for name, flow in flows.items() if isinstance(flows, dict) else ():
                if isinstance(flow, dict) and "scopes" not in flow:
                    flow["scopes"] = {}
                    note(
                        join_pointer(here, "flows", name),
                        "an OAuth flow without `scopes` (required): read as having none",
                    )
    for here, node in holders:
        docs = node.get("externalDocs") if isinstance(node, dict) else None
        if isinstance(docs, dict) and "url" not in docs:
            del node["externalDocs"]
            note(
                join_pointer(here, "externalDocs"),
                "an external document without `url` (required): read as absent",
            )
    for here, node in servers:
        listed = node.get("servers")
        for index, server in enumerate(listed if isinstance(listed, list) else []):
            variables = server.get("variables") if isinstance(server, dict) else None
            for name, variable in variables.items() if isinstance(variables, dict) else ():
                if not isinstance(variable, dict) or "default" in variable:
                    continue
                enum = variable.get("enum")
                default = str(enum[0]) if isinstance(enum, list) and enum else ""
                variable["default"] = default
                note(
                    join_pointer(here, "servers", index, "variables", name),
                    f"a server variable without `default` (required): read as {default!r}",
                )
    return out


# what a document without them is read as having (nothing generated depends on them but
# the packages' descriptions and the docs' title)
INFO_DEFAULTS = {"title": "API", "version": "0"}


def info_fields(document: dict[str, Any]) -> list[Repair]:
    """A document (it says `openapi`) without `info`, or whose `info` lacks `title` or
    `version` (all required), is read as having the defaults: refusing it would stop a build
    for a field no generated code depends on. A fragment (no `openapi`) is left to the
    validator."""
    if "openapi" not in document:
        return []
    info = document.get("info")
    if not isinstance(info, dict):
        if "info" in document:  # a value of another type: the validator says which
            return []
        document["info"] = dict(INFO_DEFAULTS)
        shown = ", ".join(f"{k} {v!r}" for k, v in INFO_DEFAULTS.items())
        return [
            ("", Rule.DOCUMENT_REPAIR, f"a document without `info` (required): read as {shown}")
        ]
    out = []
    for field, value in INFO_DEFAULTS.items():
        if field not in info:
            info[field] = value
            message = f"`info` without `{field}` (required): read as {value!r}"
            out.append(("/info", Rule.DOCUMENT_REPAIR, message))
    return out


def info_version(document: dict[str, Any]) -> list[Repair]:
    """`info.version: 2.0` (YAML reads a number) is the string "2.0" the author meant."""
    info = document.get("info")
    version = info.get("version") if isinstance(info, dict) else None
    if not isinstance(version, (int, float)) or isinstance(version, bool):
        return []
    assert isinstance(info, dict)
    info["version"] = str(version)
    message = f"info.version {version!r} is a number: read as the string {str(version)!r}"
    return [("/info/version", Rule.DOCUMENT_REPAIR, message)]


def response_descriptions(document: dict[str, Any], kinds: dict[str, str]) -> list[Repair]:
    """A Response Object without its required `description` (hand-written documents often
    leave it out: `"200": {content: ...}`) is read as having an empty one: nothing generated
    depends on it, and refusing the document for it would stop a build every other tool
    makes."""
    out = []
    for here, kind in kinds.items():
        if kind != "Response":
            continue
        response = resolve_pointer(document, here)
        if isinstance(response, dict) and "$ref" not in response and "description" not in response:
            response["description"] = ""
            message = "a response without `description` (required): read as an empty one"
            out.append((here, Rule.DOCUMENT_REPAIR, message))
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
