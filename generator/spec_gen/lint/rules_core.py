"""The default profile: what must hold for spec-gen to generate correct code.

Each function returns raw findings (a JSON pointer, a rule id, a message); the profile
decides each rule's severity. The document is the bundled, 3.1 form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from ..core.lint_rules import Rule
from ..document.openapi import METHODS, NAME_MAPS, STREAMED_MEDIA
from ..document.pointer import join_pointer, resolve_pointer, split_pointer
from ..document.refs import deref, ref_loops, ref_pointer
from ..document.walk import (
    IGNORED_HEADERS,
    ignored_header,
    is_32,
    operations,
    path_items,
    typed_nodes,
)
from .findings import RawFinding
from .rules_schemas import allof_cycles, schemas_checks

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
            yield from _walk_refs(value, join_pointer(here, key), key in NAME_MAPS and not names)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_refs(value, join_pointer(here, index))


def dangling_refs(document: dict[str, Any]) -> list[RawFinding]:
    out = []
    resolves: dict[str, bool] = {}
    for pointer, ref in _walk_refs(document, ""):
        target = ref_pointer(ref)
        if target is None:
            out.append(
                RawFinding(pointer, Rule.REF, f"$ref {ref!r} was not bundled (not a local file?)")
            )
            continue
        if ref not in resolves:
            try:
                resolve_pointer(document, target)
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
        pointer = ref_pointer(ref)
        if pointer is None:
            continue
        found = kinds.get(pointer)
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
        elif (
            kind == "Media Type"
            and "itemSchema" in node
            and "schema" not in node
            and split_pointer(here)[-1].split(";")[0].strip().lower() not in STREAMED_MEDIA
        ):
            warn(
                join_pointer(here, "itemSchema"), "`itemSchema`", "read as a body without a schema"
            )
    return out


# an operationId read as a name as it is: letters, digits and the separators _ - . /
_OPERATION_ID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*")


def operation_ids(document: dict[str, Any]) -> list[RawFinding]:
    from ..core.naming import snake

    seen: dict[str, str] = {}
    out = []
    for here, _method, _item, op in operations(document):
        op_id = op.get("operationId")
        if not isinstance(op_id, str):
            continue
        if not _OPERATION_ID_NAME.fullmatch(op_id):
            out.append(
                RawFinding(
                    join_pointer(here, "operationId"),
                    Rule.OPERATION_ID_NAME,
                    f"operationId {op_id!r} is not an identifier (it must start with an ASCII "
                    "letter, then letters, digits, _ - . /): its method is named "
                    f"`{snake(op_id)}` and its docs anchor is a slug of it",
                )
            )
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


# the default profile's checks, in the order their findings are reported
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
