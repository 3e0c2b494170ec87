"""The `typescript` target: a zero-dependency TypeScript client (ESM, type declarations) from
the IR, rendered with `templates/client-ts/`.

Opt-in per project (`[tool.spec-gen] targets = ["python", "typescript"]`); written under
`<output>/client-ts/`. Everything here reads the IR only: the schemas become type aliases
(wire names kept), each operation a method `client.<namespace>.<method>(params, options)`
named as the Python client's, in camelCase. `typescript_check` type-checks the written
client with `tsc` under `spec-gen build --typecheck`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..document.openapi import SCHEMA_REF
from ..ir import Api, Operation, Param
from . import Target
from .client.auth import Scheme, schemes
from .client.facts import context_headers, status_errors, webhook_signature
from .client.names import client_paths

OUTPUT_DIR = "client-ts"
TYPESCRIPT_VERSION = "5.9.3"  # what the tests and .ci/run install; the package's devDependency
IDEMPOTENT_METHODS = frozenset({"get", "head", "options", "put", "delete"})
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# names a type alias must not take in types.ts: the globals its own declarations use
TS_GLOBALS = frozenset(
    {"Blob", "Array", "Record", "Promise", "String", "Number", "Boolean", "Object", "unknown",
     "Date", "Error", "Function", "Symbol", "Map", "Set", "JSON", "Math", "File", "FormData"}
)  # fmt: skip
TEMPLATES = (
    "package.json",
    "tsconfig.json",
    "README.md",
    "src/index.ts",
    "src/core.ts",
    "src/errors.ts",
    "src/types.ts",
    "src/resources.ts",
    "src/webhooks.ts",
)


def camel(snake_name: str) -> str:
    """`bulk_add` -> `bulkAdd`, `api_keys` -> `apiKeys`; leading and trailing `_` kept (`_1x`
    stays an identifier, `delete_` as the Python client's)."""
    core = snake_name.strip("_")
    if not core:
        return snake_name
    lead = snake_name[: len(snake_name) - len(snake_name.lstrip("_"))]
    trail = snake_name[len(snake_name.rstrip("_")) :]
    parts = [p for p in core.split("_") if p]
    return lead + parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:]) + trail


def type_name(cls: str) -> str:
    return cls + "_" if cls in TS_GLOBALS else cls


def literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def prop_key(name: str) -> str:
    return name if _IDENT.match(name) else literal(name)


def ts_type(schema: Any, depth: int = 0, ns: str = "") -> str:
    """The TypeScript type of a (3.1) schema; `$ref`s name the type aliases of types.ts
    (prefixed with `ns`: `T.` outside it)."""
    if depth > 40 or schema is True or not isinstance(schema, dict) or not schema:
        return "unknown"
    if schema is False:
        return "never"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref.startswith(SCHEMA_REF) and "/" not in ref[len(SCHEMA_REF) :]:
            return ns + type_name(ref[len(SCHEMA_REF) :].replace("~1", "/").replace("~0", "~"))
        return "unknown"
    if "const" in schema:
        return literal(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _union([literal(v) for v in schema["enum"]])
    parts: list[str] = []
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        members = [ts_type(s, depth + 1, ns) for s in schema["allOf"]]
        parts.append("(" + " & ".join(members) + ")")
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            parts.append(_alternatives(schema[key], schema.get("discriminator"), depth, ns))
    own = _own_type(schema, depth, ns)
    if own is not None:
        parts.append(own)
    if not parts:
        return "unknown"
    if len(parts) == 1:
        return parts[0]
    return "(" + " & ".join(p if p.startswith("(") else f"({p})" for p in parts) + ")"


def _union(members: list[str]) -> str:
    unique = list(dict.fromkeys(members))
    if "unknown" in unique:
        return "unknown"
    return unique[0] if len(unique) == 1 else "(" + " | ".join(unique) + ")"


def _alternatives(members: list[Any], discriminator: Any, depth: int, ns: str) -> str:
    prop = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if not isinstance(prop, str):
        return _union([ts_type(s, depth + 1, ns) for s in members])
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    tags: dict[str, list[str]] = {}
    if isinstance(mapping, dict):
        for value, ref in mapping.items():
            if isinstance(ref, str):
                name = ref.split("/")[-1] if ref.startswith("#/") else ref
                tags.setdefault(name, []).append(str(value))
    out = []
    for member in members:
        kind = ts_type(member, depth + 1, ns)
        ref = member.get("$ref") if isinstance(member, dict) else None
        if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
            name = ref[len(SCHEMA_REF) :]
            values = tags.get(name) or ([] if mapping else [name])
            if values:
                tag = " | ".join(literal(v) for v in values)
                kind = f"({kind} & {{ {prop_key(prop)}: {tag} }})"
        out.append(kind)
    return _union(out)


def _own_type(schema: dict[str, Any], depth: int, ns: str) -> str | None:
    kinds = schema.get("type")
    if kinds is None:
        if any(k in schema for k in ("properties", "additionalProperties")):
            kinds = "object"
        elif "items" in schema:
            kinds = "array"
        else:
            return None
    if not isinstance(kinds, list):
        kinds = [kinds]
    return _union([_one_type(str(k), schema, depth, ns) for k in kinds]) if kinds else None


def _one_type(kind: str, schema: dict[str, Any], depth: int, ns: str) -> str:
    if kind == "string":
        if schema.get("format") == "binary" or "contentMediaType" in schema:
            return "Blob"
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        items = schema.get("items")
        if isinstance(schema.get("prefixItems"), list):
            return "unknown[]"
        return f"{_wrap(ts_type(items if items is not None else True, depth + 1, ns))}[]"
    if kind == "object":
        return _object(schema, depth, ns)
    return "unknown"


def _wrap(text: str) -> str:
    return text if _IDENT.match(text) or text.startswith("(") else f"({text})"


def _object(schema: dict[str, Any], depth: int, ns: str) -> str:
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    required = set(schema.get("required") or [])
    extra = schema.get("additionalProperties", True)
    fields = []
    for name, sub in props.items():
        optional = "" if name in required else "?"
        fields.append(f"{prop_key(str(name))}{optional}: {ts_type(sub, depth + 1, ns)}")
    if extra is not False:
        if props or extra is True or extra == {}:
            fields.append("[key: string]: unknown")
        else:
            fields.append(f"[key: string]: {ts_type(extra, depth + 1, ns)}")
    if not fields:
        return "{ [key: string]: never }"
    if depth == 0 and not ns:  # a schema's own object type: a field a line
        return "{\n" + "".join(f"  {f};\n" for f in fields) + "}"
    return "{ " + "; ".join(fields) + " }"


# -- operations ----------------------------------------------------------------------------


@dataclass
class TsParam:
    name: str  # the key in the method's object
    wire: str
    location: str
    required: bool
    type: str


@dataclass
class TsOp:
    op: Operation
    namespace: tuple[str, ...]
    method: str
    params: list[TsParam]
    body_key: str | None
    body_type: str
    body_required: bool
    body_kind: str  # json | form | multipart | binary | text
    body_content_type: str
    returns: str  # the method's result type (the item type when paginated)
    unwrap: bool  # the answer's `data` is the result
    answer: str  # none | json | binary | text | events | mixed
    page: dict[str, Any] | None
    retry_safe: bool
    security: list[list[str]]  # alternatives of scheme names; [] = anonymous
    accept: str

    @property
    def options_type(self) -> str:
        fields = [f"{prop_key(p.name)}{'' if p.required else '?'}: {p.type}" for p in self.params]
        if self.body_key:
            optional = "" if self.body_required else "?"
            fields.append(f"{self.body_key}{optional}: {self.body_type}")
        return "{ " + "; ".join(fields) + " }" if fields else "Record<string, never>"

    @property
    def options_required(self) -> bool:
        return any(p.required for p in self.params) or (bool(self.body_key) and self.body_required)

    @property
    def result_type(self) -> str:
        if self.page is not None:
            return f"Paginator<{self.returns}>"
        return f"Promise<{self.returns}>"

    @property
    def docs(self) -> list[str]:
        lines = [" ".join((self.op.summary or self.op.operation_id).split())]
        lines.append(f"{self.op.method.upper()} {self.op.full_path}")
        return [line.replace("*/", "*\\/") for line in lines]


def _param_type(p: Param) -> str:
    base = ts_type(p.schema, ns="T.")
    if p.location == "path" and base == "number":
        base = "number | string"
    return f"{base} | null" if p.nullable and "null" not in base else base


def _data_type(api: Api, model: str | None) -> tuple[str | None, str | None]:
    """(the `data` property's type, its item type when it is an array) of an envelope."""
    schema = api.schemas.get(model or "")
    if not isinstance(schema, dict):
        return None, None
    data = (schema.get("properties") or {}).get("data")
    if not isinstance(data, dict) or "data" not in (schema.get("required") or []):
        return None, None
    item = None
    if data.get("type") == "array" and isinstance(data.get("items"), dict):
        item = ts_type(data["items"], ns="T.")
    return ts_type(data, ns="T."), item


def ts_op(api: Api, op: Operation, path: tuple[tuple[str, ...], str]) -> TsOp:
    taken = {"body"}
    params = []
    for p in sorted(op.params, key=lambda p: not p.required):
        name = camel(p.py_name)
        taken.add(name)
        params.append(
            TsParam(name, p.name, p.location, p.required and not p.in_context, _param_type(p))
        )
    body = op.body
    body_key = None
    body_type = "never"
    kind = "json"
    content_type = ""
    if body is not None:
        body_key = "body" if "body" not in {p.name for p in params} else "requestBody"
        media = body.media[0] if body.media else None
        kind = media.kind if media else "json"
        content_type = media.content_type if media else "application/json"
        if kind == "binary":
            body_type = "Blob | ArrayBuffer | Uint8Array | string"
        elif kind == "text":
            body_type = "string"
        elif media is not None and media.model:
            body_type = "T." + type_name(media.model)
        else:
            body_type = ts_type(body.schema, ns="T.") if body.schema else "unknown"
    success = op.success
    answer = success.kind
    model = success.model
    raw = success.raw_media
    accept = ", ".join(m.content_type for m in success.media)
    if raw is not None and raw.content_type.startswith("text/event-stream"):
        answer = "events"
    unwrap = False
    page: dict[str, Any] | None = None
    if answer == "none":
        returns = "void"
    elif answer == "events":
        returns = "AsyncIterable<ServerSentEvent>"
    elif answer in ("binary", "text", "mixed"):
        plain = "Blob" if raw is not None and raw.kind == "binary" else "string"
        returns = f"T.{type_name(model)} | {plain}" if answer == "mixed" and model else plain
    elif model:
        data, item = _data_type(api, model)
        if op.pagination in ("page", "offset") and item is not None:
            returns, unwrap = item, True
            limit = next(
                (p for p in op.params if p.name == "limit" and p.location == "query"), None
            )
            page = {"kind": op.pagination}
            if limit is not None and isinstance(limit.default, int):
                page = {"kind": op.pagination, "defaultLimit": limit.default}
        elif data is not None:
            returns, unwrap = data, True
        else:
            returns = "T." + type_name(model)
    else:
        returns = "unknown"
    safe = op.tier != "billable" and (op.method in IDEMPOTENT_METHODS or op.tier == "read")
    namespace, method = path
    return TsOp(
        op=op,
        namespace=tuple(camel(n) for n in namespace),
        method=camel(method),
        params=params,
        body_key=body_key,
        body_type=body_type,
        body_required=bool(body and body.required),
        body_kind=kind,
        body_content_type=content_type,
        returns=returns,
        unwrap=unwrap,
        answer=answer,
        page=page,
        retry_safe=safe,
        security=[list(alt) for alt in op.security],
        accept=accept,
    )


@dataclass
class TsNamespace:
    path: tuple[str, ...]
    class_name: str
    ops: list[TsOp] = field(default_factory=list)
    children: list[TsNamespace] = field(default_factory=list)


def namespaces(ops: list[TsOp]) -> list[TsNamespace]:
    """Every namespace, children before their parent (each class is declared before use)."""
    found: dict[tuple[str, ...], TsNamespace] = {}
    for op in ops:
        for depth in range(1, len(op.namespace) + 1):
            key = op.namespace[:depth]
            if key not in found:
                name = "".join(w[:1].upper() + w[1:] for w in key) + "Resource"
                found[key] = TsNamespace(key, name)
                if depth > 1:
                    found[key[:-1]].children.append(found[key])
        found[op.namespace].ops.append(op)
    return sorted(found.values(), key=lambda n: -len(n.path))


@dataclass(frozen=True)
class TsScheme:
    name: str
    kind: str
    wire: str
    options: tuple[str, ...]
    envs: tuple[str, ...]


def ts_schemes(table: dict[str, Scheme]) -> list[TsScheme]:
    return [
        TsScheme(s.name, s.kind, s.wire_name, tuple(camel(o) for o in s.options), s.envs)
        for s in table.values()
    ]


def error_classes(api: Api) -> list[dict[str, Any]]:
    """Per status: the class name and the union of the error bodies operations declare."""
    out = []
    for code, name in status_errors(api):
        bodies = []
        for op in api.operations:
            for r in op.error_responses:
                if r.status == str(code):
                    bodies.append("T." + type_name(r.model) if r.model else "unknown")
        body = _union(bodies) if bodies else "unknown"
        out.append({"code": code, "name": name, "body": body})
    return out


def render_typescript(target: Target, api: Api, env_prefix: str) -> dict[str, str]:
    """{path under client-ts/: content}."""
    table = schemes(api, env_prefix)
    options = frozenset(o for s in table.values() for o in s.options)
    paths = client_paths(api, options)
    ops = [ts_op(api, op, paths[op.operation_id]) for op in api.operations]
    roots = [n for n in namespaces(ops) if len(n.path) == 1]
    types = {type_name(cls): ts_type(schema) for cls, schema in sorted(api.schemas.items())}
    signature = webhook_signature(api)
    webhook_payload = None
    for hook in api.webhooks:
        if hook.body is not None and hook.body.media and hook.body.media[0].model:
            webhook_payload = "T." + type_name(hook.body.media[0].model)
            break
    servers = [s.url for s in api.servers]
    base_url = servers[0] if servers else "http://localhost"
    for server in api.servers[:1]:
        for var, value in server.variables.items():
            base_url = base_url.replace("{" + var + "}", value)
    context = {
        **target.context(api),
        "header": f"// generated by spec-gen from {target.source}; do not edit",
        "ops": ops,
        "namespaces": namespaces(ops),
        "roots": roots,
        "types": types,
        "schemes": ts_schemes(table),
        "context_headers": {camel(k): v for k, v in context_headers(api).items()},
        "errors": error_classes(api),
        "signature": signature,
        "webhook_payload": webhook_payload,
        "base_url": base_url.rstrip("/"),
        "base_path": api.default_prefix,
        "ts_version": TYPESCRIPT_VERSION,
        "literal": literal,
        "prop_key": prop_key,
    }
    return {name: target.render(f"client-ts/{name}.j2", **context) for name in TEMPLATES}
