"""The schema repairs: a walk over every Schema Object (`SchemaWalk`) that reads 3.0 and
2019-09 leftovers, ill-typed keywords, defaults its schema refuses and keywords of another
type as their author meant, each a warning (see repair.py for the list)."""

from __future__ import annotations

from typing import Any

from ..core.lint_rules import Repair, Rule
from .pointer import join_pointer
from .refs import JSON_TYPES
from .schema_walk import SchemaWalk, put
from .upgrade import bounds, file, nullable
from .values import FORMAT_TYPES, NOTHING, convert_value, fits_shape, format_parses
from .walk import inapplicable_keywords


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


class Repairer(SchemaWalk):
    """Walks every schema as the upgrade does; repairs only what 3.1 cannot read as written."""

    def __init__(self, document: dict[str, Any], leftovers: bool, inapplicable: bool) -> None:
        super().__init__(document)
        self.moved: dict[str, str] = {}  # new pointer prefix -> old (a schema wrapped)
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
        from .openapi import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE

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
        if fits and not fits_shape(self.doc, schema, value, 32, [2000]):
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
        converted = convert_value(value, [k for k in kinds if k in JSON_TYPES])
        at = join_pointer(here, "default")
        if converted is not NOTHING and (not isinstance(enum, list) or converted in enum):
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
        if fmt not in FORMAT_TYPES or format_parses(fmt, value):
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
            file(schema, None)

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
            put(schema, "items", "prefixItems", schema["items"])
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
                bounds(schema, exclusive, inclusive)

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
        nullable(schema, here, self.moved)
