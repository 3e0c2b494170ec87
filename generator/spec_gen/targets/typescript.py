"""The `typescript` target: a zero-dependency TypeScript client (ESM, type declarations) from
the IR, rendered with `templates/client-ts/`.

Opt-in per project (`[tool.spec-gen] targets = ["python", "typescript"]`); written under
`<output>/client-ts/`. Everything here reads the IR only: the schemas become type aliases
(wire names kept), each operation a method `client.<namespace>.<method>(params, options)`
named as the Python client's, in camelCase. `typescript_check` type-checks the written
client with `tsc` under `spec-gen build --typecheck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.naming import words
from ..ir import Api, Operation, Param
from ..ir.media import stream_kind
from . import Target
from .client.auth import Scheme, primary_scheme, schemes
from .client.facts import context_headers, rate_limits, status_errors, webhook_signature
from .client.names import client_paths
from .client.paging import DEFAULTS, page_style, schema_at
from .typescript_types import Aliases, aliases, literal, prop_key, ts_type, type_name, union

__all__ = [
    "body_fields",
    "camel",
    "literal",
    "param_keys",
    "prop_key",
    "render_typescript",
    "streamed",
    "ts_type",
    "type_name",
]

OUTPUT_DIR = "client-ts"
TYPESCRIPT_VERSION = "5.9.3"  # what the tests and .ci/run install; the package's devDependency
IDEMPOTENT_METHODS = frozenset({"get", "head", "options", "put", "delete"})
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


# -- operations ----------------------------------------------------------------------------


@dataclass
class TsParam:
    name: str  # the key in the method's object
    wire: str
    location: str  # path | query | header | cookie | body (a field of a flattened body)
    required: bool
    type: str


@dataclass
class TsOp:
    op: Operation
    namespace: tuple[str, ...]
    method: str
    params: list[TsParam]
    body_fields: list[TsParam]  # an object body's fields, beside the parameters
    body_key: str | None  # else the member holding the whole body
    body_type: str
    body_required: bool
    body_kind: str  # json | form | multipart | binary | text
    body_content_type: str
    returns: str  # the method's result type (the item type when paginated)
    unwrap: bool  # the answer's `data` is the result
    answer: str  # none | json | binary | text | events | mixed
    page: dict[str, Any] | None  # the runtime's PageStyle
    typed: bool  # an event stream's data is JSON of a known schema
    retry_safe: bool
    security: list[list[str]]  # alternatives of scheme names; [] = anonymous
    accept: str

    @property
    def options_type(self) -> str:
        fields = [
            f"{prop_key(p.name)}{'' if p.required else '?'}: {p.type}"
            for p in (*self.params, *self.body_fields)
        ]
        if self.body_key:
            optional = "" if self.body_required else "?"
            fields.append(f"{self.body_key}{optional}: {self.body_type}")
        return "{ " + "; ".join(fields) + " }" if fields else "Record<string, never>"

    @property
    def options_required(self) -> bool:
        return any(p.required for p in (*self.params, *self.body_fields)) or (
            bool(self.body_key) and self.body_required
        )

    @property
    def body_pairs(self) -> dict[str, str]:
        """{key in the method's object: wire name} of each body field."""
        return {p.name: p.wire for p in self.body_fields}

    @property
    def result_type(self) -> str:
        if self.page is not None:
            return f"Paginator<{self.returns}>"
        return f"APIPromise<{self.returns}>"

    @property
    def docs(self) -> list[str]:
        lines = [" ".join((self.op.summary or self.op.operation_id).split())]
        lines.append(f"{self.op.method.upper()} {self.op.full_path}")
        return [line.replace("*/", "*\\/") for line in lines]


def field_key(wire: str) -> str:
    """A body field's key in the method's object: camelCase of its words (`contact_ids` ->
    `contactIds`, `class` stays `class`: a key, never a variable); no words: the wire name."""
    parts = [w.lower() for w in words(wire)]
    if not parts:
        return wire
    key = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return "_" + key if key[0].isdigit() else key


def param_keys(op: Operation) -> list[str]:
    return [camel(p.py_name) for p in op.params]


def body_fields(api: Api, op: Operation) -> list[tuple[str, str, bool, Any]] | None:
    """(key, wire name, required, schema) of each field of the body, when the method takes them
    beside its parameters: a JSON or url-encoded body whose schema is an object with named
    properties, none of whose names (camelCase or on the wire) is a parameter's or another
    field's. None: the method takes the body whole, as `body` (arrays, primitives, binary,
    multipart, maps, compositions, or when names collide)."""
    media = op.body.media[0] if op.body is not None and op.body.media else None
    if media is None or media.kind not in ("json", "form"):
        return None
    schema = api.schemas.get(media.model or "", media.schema)
    if not isinstance(schema, dict) or any(
        k in schema for k in ("$ref", "allOf", "oneOf", "anyOf", "not", "if", "enum", "const")
    ):
        return None
    props = schema.get("properties")
    extra = schema.get("additionalProperties", True)
    if schema.get("type", "object") != "object" or not isinstance(props, dict) or not props:
        return None
    if extra is not True and extra is not False and extra != {}:
        return None  # a map with typed extra keys: whole
    required = (
        set(schema.get("required") or []) if op.body is not None and op.body.required else set()
    )
    taken = {*param_keys(op), *(p.name for p in op.params)}
    out = []
    for wire, sub in props.items():
        key = field_key(str(wire))
        if key in taken or wire in taken:
            return None
        taken.add(key)
        out.append((key, str(wire), wire in required, sub))
    return out


def _param_type(p: Param, names: dict[str, str]) -> str:
    base = ts_type(p.schema, ns="T.", names=names)
    if p.location == "path" and base == "number":
        base = "number | string"
    return f"{base} | null" if p.nullable and "null" not in base else base


def _data_type(api: Api, model: str | None, names: dict[str, str]) -> tuple[str | None, str | None]:
    """(the `data` property's type, its item type when it is an array) of an envelope."""
    schema = api.schemas.get(model or "")
    if not isinstance(schema, dict):
        return None, None
    data = (schema.get("properties") or {}).get("data")
    if not isinstance(data, dict) or "data" not in (schema.get("required") or []):
        return None, None
    item = None
    if data.get("type") == "array" and isinstance(data.get("items"), dict):
        item = ts_type(data["items"], ns="T.", answer=True, names=names)
    return ts_type(data, ns="T.", answer=True, names=names), item


def streamed(op: Operation) -> str | None:
    """`events`, `jsonl` or `jsonseq` when the method answers an async iterable of items."""
    raw = op.success.raw_media
    if raw is None:
        return None
    if raw.content_type.startswith("text/event-stream"):
        return "events"
    kind = stream_kind(raw.content_type)
    if kind is None or op.success.kind not in ("binary", "text"):
        return None
    return "jsonl" if kind == "json_lines" else "jsonseq"


def ts_page(api: Api, op: Operation, names: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
    """(the runtime's `PageStyle`, the item type) of a paging list, as the Python client pages
    it (`client.paging.page_style`: the same recognition), or (None, "")."""
    style, _ = page_style(api, op, set(api.schemas))
    if style is None:
        return None, ""
    style.pop("item", None)
    array = schema_at(api, op, style.get("items", DEFAULTS["items"]))
    items = array.get("items") if isinstance(array, dict) else None
    item = (
        ts_type(items, ns="T.", answer=True, names=names) if isinstance(items, dict) else "unknown"
    )
    return {camel(k): list(v) if isinstance(v, tuple) else v for k, v in style.items()}, item


def ts_op(api: Api, op: Operation, path: tuple[tuple[str, ...], str], names: Aliases) -> TsOp:
    sent = names.request
    params = []
    for p in sorted(op.params, key=lambda p: not p.required):
        required = p.required and not p.in_context
        params.append(TsParam(camel(p.py_name), p.name, p.location, required, _param_type(p, sent)))
    body = op.body
    body_key = None
    body_type = "never"
    kind = "json"
    content_type = ""
    flat = body_fields(api, op)
    fields = [
        TsParam(key, wire, "body", required, ts_type(sub, ns="T.", names=sent))
        for key, wire, required, sub in flat or ()
    ]
    if body is not None:
        media = body.media[0] if body.media else None
        kind = media.kind if media else "json"
        content_type = media.content_type if media else "application/json"
        if flat is None:
            body_key = "requestBody" if "body" in {p.name for p in params} else "body"
        if kind == "binary":
            body_type = "Blob | ArrayBuffer | Uint8Array | string"
        elif kind == "text":
            body_type = "string"
        elif media is not None and media.model:
            body_type = "T." + sent.get(media.model, type_name(media.model))
        else:
            body_type = ts_type(body.schema, ns="T.", names=sent) if body.schema else "unknown"
    got = names.answer
    success = op.success
    answer = success.kind
    model = success.model
    raw = success.raw_media
    accept = ", ".join(m.content_type for m in success.media)
    item = "T." + got[raw.item_model] if raw is not None and raw.item_model in got else None
    answer = streamed(op) or answer
    unwrap = False
    page: dict[str, Any] | None = None
    if answer == "none":
        returns = "void"
    elif answer == "events":
        returns = f"AsyncIterable<ServerSentEvent{'<' + item + '>' if item else ''}>"
    elif answer in ("jsonl", "jsonseq"):
        returns = f"AsyncIterable<{item or 'unknown'}>"
    elif answer in ("binary", "text", "mixed"):
        plain = "Blob" if raw is not None and raw.kind == "binary" else "string"
        returns = f"T.{got.get(model, model)} | {plain}" if answer == "mixed" and model else plain
    elif model:
        data, _ = _data_type(api, model, got)
        page, page_item = ts_page(api, op, got)
        if page is not None:
            returns = page_item
        elif data is not None:
            returns, unwrap = data, True
        else:
            returns = "T." + got.get(model, type_name(model))
    else:
        returns = "unknown"
    safe = op.tier != "billable" and (op.method in IDEMPOTENT_METHODS or op.tier == "read")
    namespace, method = path
    return TsOp(
        op=op,
        namespace=tuple(camel(n) for n in namespace),
        method=camel(method),
        params=params,
        body_fields=fields,
        body_key=body_key,
        body_type=body_type,
        body_required=bool(body and body.required),
        body_kind=kind,
        body_content_type=content_type,
        returns=returns,
        unwrap=unwrap,
        answer=answer,
        page=page,
        typed=item is not None and answer == "events",
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
    oauth: dict[str, Any] | None = None  # where the client fetches its tokens (OAuth2, OIDC)

    @property
    def oauth_options(self) -> list[tuple[str, str, str]]:
        """(option, environment variable, what it holds) of each token-fetching credential."""
        if self.oauth is None:
            return []
        held = ("client id", "client secret", "refresh token")
        pairs = zip(self.oauth["options"], self.oauth["envs"], held, strict=True)
        return [(o, e, h) for o, e, h in pairs if o]


def ts_schemes(table: dict[str, Scheme]) -> list[TsScheme]:
    out = []
    for s in table.values():
        oauth = None
        if s.oauth is not None:
            o = s.oauth
            oauth = {
                "tokenUrl": o.token_url,
                "refreshUrl": o.refresh_url,
                "discoveryUrl": o.discovery_url,
                "scopes": list(o.scopes),
                "options": [camel(n) if n else "" for n in o.options],
                "envs": list(o.envs),
            }
        options = tuple(camel(o) for o in s.options)
        out.append(TsScheme(s.name, s.kind, s.wire_name, options, s.envs, oauth))
    return out


def error_classes(api: Api, names: dict[str, str]) -> list[dict[str, Any]]:
    """Per status: the class name and the union of the error bodies operations declare."""
    bodies: dict[str, list[str]] = {}
    for op in api.operations:
        for r in op.error_responses:
            bodies.setdefault(r.status, []).append(
                "T." + names.get(r.model, r.model) if r.model else "unknown"
            )
    out = []
    for code, name in status_errors(api):
        found = bodies.get(str(code))
        out.append({"code": code, "name": name, "body": union(found) if found else "unknown"})
    return out


def render_typescript(target: Target, api: Api, env_prefix: str) -> dict[str, str]:
    """{path under client-ts/: content}."""
    table = schemes(api, env_prefix)
    options = frozenset(o for s in table.values() for o in s.options)
    paths = client_paths(api, options)
    names = aliases(api)
    primary = primary_scheme(api, table)
    ops = [ts_op(api, op, paths[op.operation_id], names) for op in api.operations]
    roots = [n for n in namespaces(ops) if len(n.path) == 1]
    signature = webhook_signature(api)
    webhook_payload = None
    for hook in api.webhooks:
        if hook.body is not None and hook.body.media and hook.body.media[0].model:
            webhook_payload = "T." + names.answer[hook.body.media[0].model]
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
        "types": names.declarations,
        "schemes": ts_schemes(table),
        "oauth": any(s.oauth is not None for s in table.values()),
        "primary_scheme": primary.name if primary else None,
        "rate_limits": [[count, int(window * 1000)] for count, window in rate_limits(api)],
        "context_headers": {camel(k): v for k, v in context_headers(api).items()},
        "errors": error_classes(api, names.answer),
        "signature": signature,
        "webhook_payload": webhook_payload,
        "base_url": base_url.rstrip("/"),
        "base_path": api.default_prefix,
        "ts_version": TYPESCRIPT_VERSION,
        "literal": literal,
        "prop_key": prop_key,
    }
    return {name: target.render(f"client-ts/{name}.j2", **context) for name in TEMPLATES}
