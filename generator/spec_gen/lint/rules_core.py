"""The default profile: what must hold for spec-gen to generate correct code.

Each function returns raw findings (a JSON pointer, a rule id, a message); the profile
decides each rule's severity. The document is the bundled, 3.1 form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote

from ..core.lint_rules import Rule
from ..document import patterns
from ..document.pointer import join_pointer, resolve_pointer
from ..document.refs import JSON_TYPES, deref, ref_loops
from ..document.walk import (
    IGNORED_HEADERS,
    METHODS,
    SCHEMA_MAPS,
    ignored_header,
    is_32,
    operations,
    path_items,
    prefix_members,
    schema_roots,
    structured_enum,
    typed_nodes,
)
from .findings import RawFinding

SCHEMA_KEYWORDS = frozenset(
    {
        # JSON Schema 2020-12 (core, applicator, validation, meta-data, format, content)
        "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$defs",
        "$comment", "$vocabulary", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "dependentSchemas", "prefixItems", "items", "contains", "properties",
        "patternProperties", "additionalProperties", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const", "multipleOf",
        "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
        "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
        "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
        "title", "description", "default", "deprecated", "readOnly", "writeOnly",
        "examples", "format", "contentEncoding", "contentMediaType", "contentSchema",
        "definitions", "dependencies", "additionalItems",
        # the OpenAPI 3.1 dialect
        "discriminator", "xml", "externalDocs", "example",
    }
)  # fmt: skip
JSON_MEDIA = re.compile(r"^application/([\w.+-]*\+)?json($|;)|^\*/\*$", re.IGNORECASE)


def _walk_refs(node: Any, here: str, names: bool = False) -> Iterator[tuple[str, str]]:
    """(pointer of the `$ref` value, the ref) for every reference, `x-` extensions and
    example/default values excepted (their `$ref`s are data, left as written), an Example
    Object's `value` too."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield join_pointer(here, "$ref"), ref
        for key, value in node.items():
            key = str(key)
            if not names and (
                key.startswith("x-") or key in ("example", "default", "enum", "const", "value")
            ):
                continue
            if key == "examples" and isinstance(value, list):
                continue
            yield from _walk_refs(value, join_pointer(here, key), key in NAME_KEYS and not names)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_refs(value, join_pointer(here, index))


NAME_KEYS = frozenset(
    {
        "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
        "schemas", "parameters", "headers", "examples", "links", "callbacks",
        "securitySchemes", "requestBodies", "responses", "pathItems", "webhooks",
        "encoding", "content", "variables", "mapping", "scopes", "paths",
    }
)  # fmt: skip


def dangling_refs(document: dict[str, Any]) -> list[RawFinding]:
    out = []
    resolves: dict[str, bool] = {}
    for pointer, ref in _walk_refs(document, ""):
        if not ref.startswith("#"):
            out.append(
                RawFinding(pointer, Rule.REF, f"$ref {ref!r} was not bundled (not a local file?)")
            )
            continue
        if ref not in resolves:
            try:
                resolve_pointer(document, unquote(ref[1:]))
                resolves[ref] = True
            except (KeyError, IndexError, ValueError, TypeError):
                resolves[ref] = False
        if not resolves[ref]:
            out.append(RawFinding(pointer, Rule.REF, f"$ref {ref!r} points at nothing"))
        elif ref_loops(document, ref):
            out.append(
                RawFinding(
                    pointer,
                    Rule.REF,
                    f"$ref {ref!r} leads back to itself through $refs only: it never reaches "
                    "a definition",
                )
            )
    return out


def ref_kinds(document: dict[str, Any]) -> list[RawFinding]:
    """A `$ref` that points at another kind of Object than belongs where it stands (a
    parameter's `$ref` to a schema, a schema's `$ref` to `#/components/parameters/...`):
    openapi-spec-validator lets it through; the generated code cannot use it as what it
    should be (a schema becomes any value, a parameter or answer is left out)."""
    kinds, refs = typed_nodes(document)
    out = []
    for here, expected, ref in refs:
        if not ref.startswith("#"):
            continue
        found = kinds.get(unquote(ref[1:]))
        if found is None or found == expected:
            continue
        out.append(
            RawFinding(
                join_pointer(here, "$ref"),
                Rule.REF_KIND,
                f"$ref {ref!r} points at a {found} Object where a {expected} Object belongs: "
                "the generated code cannot use it as one",
            )
        )
    return out


def oas32_features(document: dict[str, Any]) -> list[RawFinding]:
    """What OpenAPI 3.2 adds that the generated code does not carry yet, each where it is
    written: the QUERY method and `additionalOperations` (ignored: no route, no client
    method), `in: querystring` parameters (ignored), a media type with only an
    `itemSchema` (streamed items: read as a body without a schema)."""
    if not is_32(document):
        return []
    out = []

    def warn(pointer: str, what: str, effect: str = "ignored") -> None:
        message = f"{what} (OpenAPI 3.2) is not generated yet: {effect}"
        out.append(RawFinding(pointer, Rule.OAS32, message))

    kinds, _ = typed_nodes(document)
    for here, kind in kinds.items():
        node = resolve_pointer(document, here)
        if not isinstance(node, dict) or "$ref" in node and kind != "Path Item":
            continue
        if kind == "Path Item":
            if isinstance(node.get("query"), dict):
                warn(join_pointer(here, "query"), "the QUERY method")
            extra = node.get("additionalOperations")
            for method in extra if isinstance(extra, dict) else {}:
                warn(
                    join_pointer(here, "additionalOperations", method),
                    f"the {method} method of `additionalOperations`",
                )
        elif kind == "Parameter" and node.get("in") == "querystring":
            warn(here, "a querystring parameter")
        elif kind == "Media Type" and "itemSchema" in node and "schema" not in node:
            warn(
                join_pointer(here, "itemSchema"), "`itemSchema`", "read as a body without a schema"
            )
    return out


def operation_ids(document: dict[str, Any]) -> list[RawFinding]:
    seen: dict[str, str] = {}
    out = []
    for here, _method, _item, op in operations(document):
        op_id = op.get("operationId")
        if not isinstance(op_id, str):
            continue
        if op_id in seen:
            out.append(
                RawFinding(
                    join_pointer(here, "operationId"),
                    Rule.OPERATION_ID_UNIQUE,
                    f"operationId {op_id!r} is also used at {seen[op_id]}: this one is "
                    "generated with a number appended",
                )
            )
        else:
            seen[op_id] = here
    return out


def path_params(document: dict[str, Any]) -> list[RawFinding]:
    out = []
    for here, _method, item, op in operations(document):
        parts = here.split("/")  # "", "paths", the path, the method
        if len(parts) != 4 or parts[1] != "paths":
            # webhooks and callbacks (under /paths/.../callbacks/...) are requests the API
            # sends: their keys are names and runtime expressions, no path templates
            continue
        path = parts[2].replace("~1", "/").replace("~0", "~")
        declared = set()
        for param in list(item.get("parameters") or []) + list(op.get("parameters") or []):
            param = deref(document, param)
            if isinstance(param, dict) and param.get("in") == "path":
                declared.add(str(param.get("name")))
        in_template = set(re.findall(r"{([^}]+)}", path))
        for name in sorted(in_template - declared):
            out.append(
                RawFinding(
                    here,
                    Rule.PATH_PARAMS,
                    f"path parameter {name!r} is in the path but not declared",
                )
            )
        # a path parameter the path has no placeholder for: ignored, a `parameter-repair`
        # warning (repair.py)
    return out


def no_operations(document: dict[str, Any]) -> list[RawFinding]:
    if any(True for _ in operations(document)):
        return []
    where = "/paths" if "paths" in document else ""
    return [
        RawFinding(
            where, Rule.NO_OPERATIONS, "the document has no operations: no routes are generated"
        )
    ]


def no_body_statuses(document: dict[str, Any]) -> list[RawFinding]:
    """A 1XX, 204, 205 or 304 response with `content`: HTTP sends no body, so none is read."""
    out = []
    for here, _method, _item, op in operations(document):
        responses = op.get("responses")
        for status, response in responses.items() if isinstance(responses, dict) else ():
            text = str(status)
            if not (text in ("204", "205", "304") or text.startswith("1")):
                continue
            response = deref(document, response)
            if isinstance(response, dict) and response.get("content"):
                out.append(
                    RawFinding(
                        join_pointer(here, "responses", text, "content"),
                        Rule.NO_BODY_STATUS,
                        f"a {text} response has no body in HTTP: its content is ignored",
                    )
                )
    return out


_PLAIN_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_.\- ]*")


def python_names(document: dict[str, Any]) -> list[RawFinding]:
    """Schema names whose class is not simply the name in PascalCase: a name the generated
    modules already use (`Response`, `None`, `UUID`...), one that gives the class name of an
    earlier schema, one not made of ASCII letters, digits and separators. Kebab-case,
    snake_case and dotted names (`repository-subscription`, GitHub's style), with leading
    separators too (`_types.Id`), are the ordinary conversion and no finding."""
    from ..core.naming import class_name, pascal

    out = []
    schemas = (document.get("components") or {}).get("schemas") or {}
    taken: set[str] = set()
    owner: dict[str, str] = {}  # a plain class name -> the schema name that has it
    for name in schemas if isinstance(schemas, dict) else ():
        name = str(name)
        plain = name if re.fullmatch(r"[A-Z][A-Za-z0-9]*", name) else pascal(name)
        given = class_name(name, taken)
        reason = None
        lead = name.lstrip("_.- ")  # `_types.Id` is `TypesId` as `types.Id` is: no finding
        if not (lead[:1].isascii() and lead[:1].isalpha()):
            reason = "does not start with an ASCII letter"
        elif not _PLAIN_SCHEMA_NAME.fullmatch(name):
            reason = "has characters other than ASCII letters, digits and - _ . space"
        elif given != plain and plain in owner:
            reason = f"gives the class name of schema {owner[plain]!r}"
        elif given != plain:
            reason = "is a name the generated modules already use"
        owner.setdefault(plain, name)
        if reason:
            out.append(
                RawFinding(
                    join_pointer("/components/schemas", name),
                    Rule.PYTHON_NAME,
                    f"schema name {name!r} {reason}: its class gets another name",
                )
            )
    return out


def _listed_parameters(document: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(pointer of the list entry, the parameter with its `$ref` followed) for each parameter
    a path item or an operation lists."""
    for here, item in path_items(document):
        holders = [(here, item)] + [
            (join_pointer(here, method), item[method])
            for method in METHODS
            if isinstance(item.get(method), dict)
        ]
        for at, holder in holders:
            parameters = holder.get("parameters")
            for index, parameter in enumerate(parameters if isinstance(parameters, list) else []):
                yield join_pointer(at, "parameters", index), deref(document, parameter)


def ignored_headers(document: dict[str, Any]) -> list[RawFinding]:
    """Each header parameter OpenAPI says to ignore (the IR leaves it out), at the place it
    is listed; a client that must still send one sets it in its default headers."""
    out = []
    for at, parameter in _listed_parameters(document):
        if ignored_header(parameter):
            name = str(parameter["name"])
            carried = IGNORED_HEADERS[name.lower()]
            out.append(
                RawFinding(
                    at,
                    Rule.IGNORED_HEADER,
                    f"header parameter {name!r} is ignored, as OpenAPI says: {carried} "
                    "carry it (a client can still send it in its default headers)",
                )
            )
    return out


def nested_parameter_arrays(document: dict[str, Any]) -> list[RawFinding]:
    """A parameter (with a `schema`, not `content`) that is an array of arrays: OpenAPI
    defines no way to write one in a path, query, header or cookie (FastAPI refused the
    route); each item is read as a string (`?pairs=1,2&pairs=3,4`: `["1,2", "3,4"]`)."""
    out = []
    for at, parameter in _listed_parameters(document):
        if not isinstance(parameter, dict):
            continue
        schema = deref(document, parameter.get("schema"))
        items = deref(document, schema.get("items")) if isinstance(schema, dict) else None
        if isinstance(items, dict) and _is_array(items):
            out.append(
                RawFinding(
                    at,
                    Rule.PARAMETER_REPAIR,
                    f"parameter {str(parameter.get('name'))!r} is an array of arrays, "
                    "which OpenAPI gives no way to write: each item read as a string",
                )
            )
    return out


def _is_array(schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    return "array" in (types if isinstance(types, list) else [types]) or "items" in schema


def _sub_schemas(schema: Any, here: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(schema, dict):
        return
    yield here, schema
    for key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _sub_schemas(sub, join_pointer(here, key, name))
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        value = schema.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _sub_schemas(sub, join_pointer(here, key, index))
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                "propertyNames", "unevaluatedItems", "unevaluatedProperties"):  # fmt: skip
        if isinstance(schema.get(key), dict):
            yield from _sub_schemas(schema[key], join_pointer(here, key))


def schemas_checks(document: dict[str, Any]) -> list[RawFinding]:
    """`default` values that do not fit their schema, and keywords JSON Schema does not know."""
    out = []
    for root, schema in schema_roots(document):
        for here, node in _sub_schemas(schema, root):
            if "default" in node:
                problem = _default_problem(node, node["default"])
                if problem:
                    out.append(RawFinding(join_pointer(here, "default"), Rule.DEFAULT, problem))
            out += _pattern_problems(node, here)
            if isinstance(node.get("const"), (dict, list)):
                out.append(
                    RawFinding(
                        join_pointer(here, "const"),
                        Rule.MODELS,
                        "a `const` object or array is not checked by the generated models: "
                        "read as its type",
                    )
                )
            if structured_enum(node):
                out.append(
                    RawFinding(
                        join_pointer(here, "enum"),
                        Rule.MODELS,
                        "an `enum` with object or array members is not checked by the "
                        "generated models: read as its members' type",
                    )
                )
            if not _inside_unchecked(here):
                out += _unchecked_keywords(node, here)
            for key in node:
                key = str(key)
                if key not in SCHEMA_KEYWORDS and not key.startswith("x-"):
                    hint = (
                        " (3.0's `nullable`: use type [..., 'null'])" if key == "nullable" else ""
                    )
                    out.append(
                        RawFinding(
                            join_pointer(here, key),
                            Rule.SCHEMA_KEYWORD,
                            f"{key!r} is not a JSON Schema keyword; it is ignored{hint}",
                        )
                    )
    return out


# JSON Schema assertions the generated models (pydantic, through datamodel-code-generator,
# and the parameters' FastAPI constraints) do not make: a value they forbid passes
_UNCHECKED = {
    "minProperties": "an object with fewer members passes",
    "maxProperties": "an object with more members passes",
    "uniqueItems": "a list with duplicates passes",
    "prefixItems": "an item is checked against every position's type, not its own position's",
    "contains": "a list without a matching item passes",
    "not": "a value it forbids passes",
    "if": "`then` / `else` are not applied",
    "dependentRequired": "a member present without the members it requires passes",
    "dependentSchemas": "a member present does not apply its schema",
    "unevaluatedItems": "extra items pass",
}
# applicators whose subschemas are not applied at all: nothing inside them is reported again
_NOT_APPLIED = frozenset({"not", "if", "then", "else", "contains", "dependentSchemas",
                          "unevaluatedItems", "unevaluatedProperties"})  # fmt: skip


def _inside_unchecked(here: str) -> bool:
    parts = here.split("/")
    return any(
        part in _NOT_APPLIED and parts[index - 1] not in SCHEMA_MAPS  # not a member's name
        for index, part in enumerate(parts)
        if index
    )


def _unchecked_keywords(schema: dict[str, Any], here: str) -> list[RawFinding]:
    """Assertions the generated models leave out, one warning at each keyword."""
    found = []
    for key, consequence in _UNCHECKED.items():
        value = schema.get(key)
        if value is None or value is False or (key == "uniqueItems" and value is not True):
            continue
        if key == "if" and "then" not in schema and "else" not in schema:
            continue  # `if` alone asserts nothing
        if key == "prefixItems" and prefix_members(schema) is None:
            consequence = "the items are read as any values"
        found.append(
            RawFinding(
                join_pointer(here, key),
                Rule.UNCHECKED_KEYWORD,
                f"`{key}` is not checked by the generated models: {consequence}",
            )
        )
    unevaluated = schema.get("unevaluatedProperties")
    if isinstance(unevaluated, dict) and unevaluated:
        found.append(
            RawFinding(
                join_pointer(here, "unevaluatedProperties"),
                Rule.UNCHECKED_KEYWORD,
                "a schema for `unevaluatedProperties` is not checked by the generated models: "
                "extra members pass unchecked",
            )
        )
    return found


def _pattern_problems(schema: dict[str, Any], here: str) -> list[RawFinding]:
    """A `pattern` (or `patternProperties` key) neither of pydantic's regular expression
    engines compiles, even with its ECMA-262 spellings rewritten: not checked."""
    found = []
    if isinstance(schema.get("pattern"), str):
        found.append((join_pointer(here, "pattern"), schema["pattern"]))
    keyed = schema.get("patternProperties")
    for key in keyed if isinstance(keyed, dict) else ():
        found.append((join_pointer(here, "patternProperties", str(key)), str(key)))
    return [
        RawFinding(
            at,
            Rule.PATTERN,
            f"pattern {expression!r} is not a regular expression Python or Rust compiles: "
            "not checked",
        )
        for at, expression in found
        if patterns.readable(expression) is None
    ]


def _default_problem(schema: dict[str, Any], value: Any) -> str | None:
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(kinds, list) and kinds:
        checks = [JSON_TYPES[k] for k in kinds if k in JSON_TYPES]
        if checks and not any(check(value) for check in checks):
            return f"default {value!r} is not of type {' or '.join(map(str, kinds))}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"default {value!r} is not one of the enum values"
    return None


_SCHEMA_REF = "#/components/schemas/"


def _extended(
    schema: Any, here: str, keywords: tuple[str, ...], one_member: bool
) -> Iterator[tuple[str, str, str]]:
    """(pointer of the `$ref`, schema name, keyword) for each component a schema's `keywords`
    members name, through inline members under those keywords too; `one_member`: a union
    (anyOf, oneOf) counts only when it has one member (it is that member)."""
    if not isinstance(schema, dict):
        return
    for keyword in keywords:
        members = schema.get(keyword)
        if not isinstance(members, list):
            continue
        if one_member and keyword != "allOf" and len(members) != 1:
            continue
        for index, member in enumerate(members):
            at = join_pointer(here, keyword, index)
            ref = member.get("$ref") if isinstance(member, dict) else None
            if isinstance(ref, str) and ref.startswith(_SCHEMA_REF):
                yield join_pointer(at, "$ref"), unquote(ref[len(_SCHEMA_REF) :]), keyword
            else:
                yield from _extended(member, at, keywords, one_member)


def _extension_message(keyword: str, loop: str) -> str:
    message = f"{keyword} cycle {loop}: a schema cannot extend itself"
    if keyword != "allOf":
        message += f" ({keyword} with one member is that member)"
    return message


def _union_message(keyword: str, loop: str) -> str:
    return (
        f"oneOf/anyOf cycle {loop}: a union that is a member of itself (no value can be checked"
        " against it: the check goes round for ever)"
    )


# the cycles reported, each through these members alone: a schema that extends itself
# (allOf, or a union of one member, which is that member: no class can be made); a union
# that is one of its own members (`A: anyOf [B]`, `B: anyOf [string, A]`: checking a value
# goes round for ever). Cycles mixing allOf and a union of several members are the usual
# polymorphism (`Pet: oneOf [Cat, Dog]`, `Cat: allOf [Pet, ...]`) and are not reported.
_CYCLE_KINDS: tuple[tuple[tuple[str, ...], bool, Callable[[str, str], str]], ...] = (
    (("allOf", "anyOf", "oneOf"), True, _extension_message),
    (("oneOf", "anyOf"), False, _union_message),
)


def allof_cycles(document: dict[str, Any]) -> list[RawFinding]:
    """Component schemas that extend themselves through allOf (`A: allOf [B]`, `B: allOf [A]`,
    an alias `B: {$ref: A}` counting as B itself), or through an anyOf or oneOf of one member
    (`A: anyOf [A]`: A is only itself): no class can be generated for them; and unions that
    are members of themselves through oneOf/anyOf alone (see _CYCLE_KINDS). Each cycle once,
    at the `$ref` that closes it."""
    components = document.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if not isinstance(schemas, dict):
        return []
    out: list[RawFinding] = []
    for keywords, one_member, message in _CYCLE_KINDS:
        reported = {finding.pointer for finding in out}
        out += [
            finding
            for finding in _cycles(schemas, keywords, one_member, message)
            if finding.pointer not in reported
        ]
    return out


def _cycles(
    schemas: dict[str, Any],
    keywords: tuple[str, ...],
    one_member: bool,
    message: Callable[[str, str], str],
) -> list[RawFinding]:
    """The cycles among component schemas through their `keywords` members alone."""

    def alias_of(name: str) -> str:
        seen = {name}
        while True:
            node = schemas.get(name)
            ref = node.get("$ref") if isinstance(node, dict) and len(node) == 1 else None
            if not (isinstance(ref, str) and ref.startswith(_SCHEMA_REF)):
                return name
            name = unquote(ref[len(_SCHEMA_REF) :])
            if name in seen:
                return name
            seen.add(name)

    edges = {
        str(name): [
            (at, alias_of(target), keyword)
            for at, target, keyword in _extended(
                schema, join_pointer("/components/schemas", str(name)), keywords, one_member
            )
            if target in schemas
        ]
        for name, schema in schemas.items()
    }
    out: list[RawFinding] = []
    done: set[str] = set()
    path: list[str] = []  # the schemas being visited, depth first

    def visit(name: str) -> None:
        if name in done:
            return
        path.append(name)
        for at, target, keyword in edges.get(name, []):
            if target in path:  # reported once, at the `$ref` that closes the cycle
                loop = " -> ".join([*path[path.index(target) :], target])
                out.append(RawFinding(at, Rule.SCHEMA_CYCLE, message(keyword, loop)))
            else:
                visit(target)
        path.pop()
        done.add(name)

    for name in edges:
        visit(name)
    return out


def webhook_payloads(document: dict[str, Any]) -> list[RawFinding]:
    out = []
    for here, _method, _item, op in operations(document):
        if not here.startswith("/webhooks/"):
            continue
        body = deref(document, op.get("requestBody"))
        content = body.get("content") if isinstance(body, dict) else None
        if isinstance(content, dict) and content and not any(JSON_MEDIA.match(m) for m in content):
            out.append(
                RawFinding(
                    join_pointer(here, "requestBody", "content"),
                    Rule.WEBHOOK_PAYLOAD,
                    f"webhook payload in {', '.join(content)} is not JSON: no typed payload model",
                )
            )
    return out


# rule id -> default severity in the default profile
CORE_CHECKS: tuple[Callable[[dict[str, Any]], list[RawFinding]], ...] = (
    dangling_refs,
    ref_kinds,
    oas32_features,
    operation_ids,
    path_params,
    no_operations,
    python_names,
    ignored_headers,
    nested_parameter_arrays,
    schemas_checks,
    webhook_payloads,
    no_body_statuses,
    allof_cycles,
)
