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

import re
from typing import Any

from ..core.lint_rules import Repair, Rule
from .openapi import DATA_KEYS
from .parameter_repair import parameter_schemas, path_parameters
from .pointer import join_pointer, resolve_pointer
from .schema_repair import Repairer
from .upgrade import is_30
from .walk import typed_nodes


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
    fixer.walk()  # the schemas; `openapi` stays as the author wrote it
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
_NULL_IS_DATA = DATA_KEYS | {"schema", "schemas", "examples", "links"}


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
            data = name in _NULL_IS_DATA and not (name == "default" and parent == "responses")
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
