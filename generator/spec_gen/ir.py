"""The typed intermediate representation every renderer reads.

Built from a bundled, validated OpenAPI 3.1 document. Nothing here knows about a
particular API: names come from the document, conventions from its x- extensions.

Inline request, response and parameter schemas that need a class (objects,
enums, unions) are hoisted into named schemas (`<OperationId>Request`,
`<OperationId>Response`, `<OperationId><Param>`), so that every type a router,
interface or client method names is a model class.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .load import resolve_pointer
from .naming import module_name, pascal, snake

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMA_REF = "#/components/schemas/"
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


@dataclass(frozen=True)
class Server:
    url: str
    description: str
    variables: dict[str, str]  # name -> default
    prefix: str  # path part of the URL, e.g. /api/v1
    extensions: dict[str, Any]


@dataclass(frozen=True)
class Header:
    name: str
    description: str
    annotation: str
    required: bool


@dataclass(frozen=True)
class Param:
    name: str  # on the wire
    py_name: str
    location: str  # path | query | header | cookie
    required: bool
    annotation: str  # Python type, without `| None`
    nullable: bool
    default: Any  # MISSING when there is none
    description: str
    constraints: dict[str, Any]  # ge, le, min_length, max_length, pattern
    schema: dict[str, Any]
    in_context: bool  # x-context: read by the request context, not passed to the handler
    extensions: dict[str, Any]
    example: Any = MISSING  # the parameter's own `example` (or first of `examples`)

    @property
    def optional(self) -> bool:
        return not self.required

    @property
    def client_annotation(self) -> str:
        """Optional parameters accept None, meaning "not sent" (the server applies its default)."""
        return f"{self.annotation} | None" if (self.optional or self.nullable) else self.annotation

    @property
    def full_annotation(self) -> str:
        optional_without_default = self.optional and self.default is MISSING
        if self.nullable or optional_without_default or self.default is None:
            return f"{self.annotation} | None"
        return self.annotation


@dataclass(frozen=True)
class Body:
    model: str
    required: bool
    content_type: str
    description: str
    schema: dict[str, Any]
    example: Any = MISSING  # the media type's `example` (or first of `examples`)


@dataclass(frozen=True)
class Response:
    status: str
    description: str
    model: str | None
    content_type: str | None
    headers: tuple[Header, ...]
    component: str | None  # name under components/responses when referenced
    extensions: dict[str, Any]
    example: Any = MISSING  # the media type's `example` (or first of `examples`)

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")


@dataclass
class Operation:
    operation_id: str
    method: str
    path: str  # as written in the spec
    prefix: str  # server path prefix that applies to it
    tag: str
    summary: str
    description: str
    params: list[Param]
    body: Body | None
    responses: list[Response]
    security: tuple[tuple[str, ...], ...]  # alternatives; () = no authentication
    deprecated: bool
    extensions: dict[str, Any]
    pointer: str  # where it lives in the bundled document

    @property
    def full_path(self) -> str:
        return self.prefix + self.path

    @property
    def handler_params(self) -> list[Param]:
        return [p for p in self.params if not p.in_context]

    @property
    def context_params(self) -> list[Param]:
        return [p for p in self.params if p.in_context]

    @property
    def success(self) -> Response:
        successes = [r for r in self.responses if r.is_success]
        return successes[0] if successes else Response("200", "", None, None, (), None, {})

    @property
    def error_responses(self) -> list[Response]:
        return [r for r in self.responses if not r.is_success]

    @property
    def tier(self) -> str | None:
        return self.extensions.get("x-tier")

    @property
    def scope(self) -> str | None:
        return self.extensions.get("x-scope")

    @property
    def lifecycle(self) -> str:
        return str(self.extensions.get("x-lifecycle", "active"))

    @property
    def pagination(self) -> str:
        return str(self.extensions.get("x-pagination", "none"))

    @property
    def feature_flag(self) -> str | None:
        return self.extensions.get("x-feature-flag")

    @property
    def provisional(self) -> bool:
        return bool(self.extensions.get("x-provisional", False))

    @property
    def client_namespace(self) -> tuple[str, ...]:
        dotted = self.extensions.get("x-client-namespace") or self.tag
        return tuple(module_name(part) for part in str(dotted).split("."))

    @property
    def client_method(self) -> str:
        return snake(str(self.extensions.get("x-client-method") or self.operation_id))

    @property
    def python_name(self) -> str:
        return snake(self.operation_id)


@dataclass
class Tag:
    name: str
    description: str
    operations: list[Operation] = field(default_factory=list)

    @property
    def module(self) -> str:
        return module_name(self.name)

    @property
    def class_name(self) -> str:
        return pascal(self.name)


@dataclass
class WebhookOperation:
    name: str
    method: str
    summary: str
    description: str
    headers: list[Param]
    body: Body | None
    responses: list[Response]


@dataclass
class Api:
    title: str
    version: str
    description: str
    servers: list[Server]
    tags: list[Tag]
    operations: list[Operation]
    schemas: dict[str, dict[str, Any]]  # component schemas plus hoisted ones, in document order
    security_schemes: dict[str, dict[str, Any]]
    default_security: tuple[tuple[str, ...], ...]
    extensions: dict[str, Any]  # root x- extensions
    webhooks: list[WebhookOperation]
    document: dict[str, Any]  # the bundled document, for targets that ship it whole

    @property
    def default_prefix(self) -> str:
        return self.servers[0].prefix if self.servers else ""

    def operation(self, operation_id: str) -> Operation:
        return next(op for op in self.operations if op.operation_id == operation_id)


def schema_ref_name(node: Any) -> str | None:
    """The component name a `{"$ref": "#/components/schemas/Name"}` node points at."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
        return ref[len(SCHEMA_REF) :]
    return None


def resolve_schema(api: Api, node: Any) -> dict[str, Any]:
    """A schema with its `$ref`s to component schemas followed; keys beside a `$ref` win."""
    seen = 0
    while isinstance(node, dict) and schema_ref_name(node) and seen < 32:
        beside = {k: v for k, v in node.items() if k != "$ref"}
        node = {**api.schemas.get(schema_ref_name(node) or "", {}), **beside}
        seen += 1
    return node if isinstance(node, dict) else {}


def _extensions(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sorted(node.items()) if k.startswith("x-")}


def _server(node: dict[str, Any]) -> Server:
    variables = {k: str(v.get("default", "")) for k, v in (node.get("variables") or {}).items()}
    url = str(node.get("url", "/"))
    concrete = url
    for name, value in variables.items():
        concrete = concrete.replace("{" + name + "}", value)
    prefix = urlsplit(concrete).path.rstrip("/")
    return Server(url, str(node.get("description", "")), variables, prefix, _extensions(node))


class _Builder:
    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        components = document.get("components") or {}
        self.schemas: dict[str, dict[str, Any]] = dict(components.get("schemas") or {})
        self.hoisted: set[str] = set()

    def deref(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            node = resolve_pointer(self.doc, node["$ref"][1:])
            seen += 1
        return node

    # -- types -----------------------------------------------------------------

    def hoist(self, name: str, schema: dict[str, Any]) -> str:
        base, n = name, 2
        while name in self.schemas and self.schemas[name] is not schema:
            name, n = f"{base}{n}", n + 1
        self.schemas[name] = schema
        self.hoisted.add(name)
        return name

    def model_for(self, schema: dict[str, Any], name: str) -> str:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMA_REF) and len(schema) == 1:
            return ref[len(SCHEMA_REF) :]
        return self.hoist(name, copy.deepcopy(schema))

    def annotation(self, schema: dict[str, Any], hoist_name: str) -> tuple[str, bool]:
        """Python annotation for a parameter or header schema, and whether null is allowed."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
            target = self.deref(schema)
            if _is_primitive(target):
                return self.annotation(target, hoist_name)
            return ref[len(SCHEMA_REF) :], False
        types = schema.get("type")
        type_list = types if isinstance(types, list) else [types] if types else []
        nullable = "null" in type_list
        concrete = [t for t in type_list if t != "null"]
        if "enum" in schema or "oneOf" in schema or "anyOf" in schema or len(concrete) > 1:
            return self.hoist(hoist_name, copy.deepcopy(schema)), nullable
        kind = concrete[0] if concrete else None
        if kind == "array":
            item, _ = self.annotation(schema.get("items") or {}, hoist_name + "Item")
            return f"list[{item}]", nullable
        if kind == "object":
            return "dict[str, Any]", nullable
        return {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}.get(
            kind or "", "Any"
        ), nullable

    # -- parts of an operation ---------------------------------------------------

    def param(self, node: dict[str, Any], op_name: str) -> Param:
        node = self.deref(node)
        name = str(node["name"])
        schema = self.deref(node.get("schema") or {})
        annotation, nullable = self.annotation(node.get("schema") or {}, op_name + pascal(name))
        constraints = {
            out: schema[key]
            for key, out in (
                ("minimum", "ge"),
                ("maximum", "le"),
                ("exclusiveMinimum", "gt"),
                ("exclusiveMaximum", "lt"),
                ("minLength", "min_length"),
                ("maxLength", "max_length"),
                ("pattern", "pattern"),
            )
            if key in schema
        }
        return Param(
            name=name,
            py_name=snake(name),
            location=str(node["in"]),
            required=bool(node.get("required", False)) or node["in"] == "path",
            annotation=annotation,
            nullable=nullable,
            default=schema.get("default", MISSING),
            description=str(node.get("description") or schema.get("description") or ""),
            constraints=constraints,
            schema=schema,
            in_context=bool(node.get("x-context", False)),
            extensions=_extensions(node),
            example=_example(node),
        )

    def headers(self, node: dict[str, Any], owner: str) -> tuple[Header, ...]:
        out = []
        for name, header in sorted((node or {}).items()):
            header = self.deref(header)
            annotation, _ = self.annotation(header.get("schema") or {}, owner + pascal(name))
            out.append(
                Header(
                    name,
                    str(header.get("description", "")),
                    annotation,
                    bool(header.get("required")),
                )
            )
        return tuple(out)

    def body(self, node: dict[str, Any] | None, op_name: str) -> Body | None:
        if not node:
            return None
        node = self.deref(node)
        content_type, media = _json_media(node.get("content") or {})
        if media is None or content_type is None:
            return None
        schema = media.get("schema") or {}
        return Body(
            model=self.model_for(schema, op_name + "Request"),
            required=bool(node.get("required", False)),
            content_type=content_type,
            description=str(node.get("description", "")),
            schema=self.deref(schema),
            example=_example(media),
        )

    def responses(self, node: dict[str, Any], op_name: str) -> list[Response]:
        out = []
        success_codes = [s for s in node if str(s).startswith("2")]
        for status in sorted(node, key=_status_key):
            raw = node[status]
            component = None
            if isinstance(raw, dict) and isinstance(raw.get("$ref"), str):
                component = raw["$ref"].rsplit("/", 1)[-1]
            response = self.deref(raw)
            content_type, media = _json_media(response.get("content") or {})
            model = None
            if media is not None and media.get("schema"):
                suffix = "Response" if len(success_codes) <= 1 else f"Response{status}"
                hoist_name = (
                    op_name + suffix if str(status).startswith("2") else f"{op_name}Error{status}"
                )
                model = self.model_for(media["schema"], hoist_name)
            out.append(
                Response(
                    status=str(status),
                    description=str(response.get("description", "")),
                    model=model,
                    content_type=content_type,
                    headers=self.headers(response.get("headers") or {}, op_name + str(status)),
                    component=component,
                    extensions=_extensions(response),
                    example=MISSING if media is None else _example(media),
                )
            )
        return out

    # -- the whole document --------------------------------------------------------

    def build(self) -> Api:
        doc = self.doc
        info = doc.get("info") or {}
        servers = [_server(s) for s in doc.get("servers") or [{"url": "/"}]]
        default_security = _security(doc.get("security"))
        tag_order = [t["name"] for t in doc.get("tags") or []]
        tags = {
            t["name"]: Tag(t["name"], str(t.get("description", ""))) for t in doc.get("tags") or []
        }
        operations: list[Operation] = []
        for path, item in (doc.get("paths") or {}).items():
            item = self.deref(item)
            item_prefix = (
                _server(item["servers"][0]).prefix if item.get("servers") else servers[0].prefix
            )
            shared = [self.deref(p) for p in item.get("parameters") or []]
            for method in HTTP_METHODS:
                if method not in item:
                    continue
                raw = item[method]
                # an operation's own servers apply to it alone, not to the methods after it
                prefix = _server(raw["servers"][0]).prefix if raw.get("servers") else item_prefix
                op_id = str(raw.get("operationId") or snake(f"{method} {path}"))
                op_name = pascal(op_id)
                own = [self.deref(p) for p in raw.get("parameters") or []]
                own_keys = {(p["name"], p["in"]) for p in own}
                merged = [p for p in shared if (p["name"], p["in"]) not in own_keys] + own
                tag_name = (raw.get("tags") or ["default"])[0]
                if tag_name not in tags:
                    tags[tag_name] = Tag(tag_name, "")
                    tag_order.append(tag_name)
                op = Operation(
                    operation_id=op_id,
                    method=method,
                    path=str(path),
                    prefix=prefix,
                    tag=tag_name,
                    summary=str(raw.get("summary", "")),
                    description=str(raw.get("description", "")),
                    params=[self.param(p, op_name) for p in merged],
                    body=self.body(raw.get("requestBody"), op_name),
                    responses=self.responses(raw.get("responses") or {}, op_name),
                    security=_security(raw["security"]) if "security" in raw else default_security,
                    deprecated=bool(raw.get("deprecated", False)),
                    extensions=_extensions(raw),
                    pointer="/paths/"
                    + str(path).replace("~", "~0").replace("/", "~1")
                    + "/"
                    + method,
                )
                operations.append(op)
                tags[tag_name].operations.append(op)
        webhooks = [
            self.webhook(name, method, op)
            for name, item in (doc.get("webhooks") or {}).items()
            for method, op in self.deref(item).items()
            if method in HTTP_METHODS
        ]
        return Api(
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=str(info.get("description", "")),
            servers=servers,
            tags=[tags[name] for name in tag_order if tags[name].operations],
            operations=operations,
            schemas=self.schemas,
            security_schemes=dict((doc.get("components") or {}).get("securitySchemes") or {}),
            default_security=default_security,
            extensions=_extensions(doc),
            webhooks=webhooks,
            document=doc,
        )

    def webhook(self, name: str, method: str, raw: dict[str, Any]) -> WebhookOperation:
        op_name = pascal(raw.get("operationId") or f"webhook {name}")
        params = [self.param(p, op_name) for p in raw.get("parameters") or []]
        return WebhookOperation(
            name=name,
            method=method,
            summary=str(raw.get("summary", "")),
            description=str(raw.get("description", "")),
            headers=[p for p in params if p.location == "header"],
            body=self.body(raw.get("requestBody"), op_name),
            responses=self.responses(raw.get("responses") or {}, op_name),
        )


def _example(node: dict[str, Any]) -> Any:
    """A parameter's or media type's `example`, else the value of its first `examples` entry."""
    if "example" in node:
        return node["example"]
    examples = node.get("examples")
    if isinstance(examples, dict):
        for entry in examples.values():
            if isinstance(entry, dict) and "value" in entry:
                return entry["value"]
    return MISSING


def _is_primitive(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return not any(k in schema for k in ("enum", "oneOf", "anyOf", "allOf", "properties")) and all(
        k in ("string", "integer", "number", "boolean", "null") for k in kinds
    )


def _json_media(content: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    for content_type in sorted(content):
        if content_type == "application/json" or content_type.endswith("+json"):
            return content_type, content[content_type] or {}
    return None, None


def _status_key(status: Any) -> tuple[int, str]:
    text = str(status)
    return (int(text) if text.isdigit() else 999, text)


def _security(requirements: Any) -> tuple[tuple[str, ...], ...]:
    if not requirements:
        return ()
    return tuple(tuple(sorted(req)) for req in requirements if req is not None)


def build_ir(document: dict[str, Any]) -> Api:
    """The IR of a bundled OpenAPI 3.1 document."""
    return _Builder(document).build()
