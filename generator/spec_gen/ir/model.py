"""The IR's data classes: what every renderer reads. No logic beyond derived properties."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.naming import module_name, pascal, snake

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


_ROUTE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")  # what Starlette reads as `{name}`


@dataclass(frozen=True)
class Param:
    name: str  # on the wire
    py_name: str  # unique among the operation's arguments, never a keyword, builtin or import
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
    style: str = "form"  # form | simple | deepObject | spaceDelimited | pipeDelimited | ...
    explode: bool = True
    shape: str = "scalar"  # scalar | array | object: how the value is spread on the wire
    properties: tuple[str, ...] = ()  # an object parameter's property names (form, explode)
    native: bool = True  # FastAPI reads it itself; else the runtime's parameter decoder does
    python_pattern: str | None = None  # a `pattern` only Python's `re` compiles (look-around)

    @property
    def optional(self) -> bool:
        return not self.required

    @property
    def route_key(self) -> str:
        """The key the server reads this parameter under: its name, except a path parameter
        whose name is not one Starlette reads from a route's `{placeholder}` (its Python
        name then)."""
        if self.location == "path" and not _ROUTE_NAME.fullmatch(self.name):
            return self.py_name
        return self.name

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
class FormField:
    """One property of a multipart or url-encoded body."""

    name: str
    is_file: bool  # binary content: bytes in the model, a file part on the wire
    is_list: bool
    is_json: bool  # an object or array of objects, sent as JSON text in its part
    # url-encoded, its Encoding Object's `style: deepObject`: `name[key][0]=value` pairs
    is_deep: bool = False
    content_type: str = ""  # multipart, a file: its Encoding Object's (or schema's) type


@dataclass(frozen=True)
class Media:
    """One media type of a request body or response.

    kind: `json` (a model), `form` (url-encoded) and `multipart` (a model whose file
    properties are bytes), `binary` (bytes), `text` (str).
    """

    content_type: str
    kind: str
    model: str | None  # json, form, multipart: the model class
    schema: dict[str, Any]
    fields: tuple[FormField, ...] = ()
    example: Any = MISSING
    item_model: str | None = None  # a streamed media type's item (an event's data) class

    @property
    def annotation(self) -> str:
        if self.model is not None:
            return self.model
        if self.kind == "json":
            return "Any"  # JSON without a schema: any JSON value
        return "bytes" if self.kind == "binary" else "str"


@dataclass(frozen=True)
class Body:
    model: str  # the primary media type's model (json/form/multipart), else "bytes" or "str"
    required: bool
    content_type: str  # the primary media type: JSON when there is one, else the first
    description: str
    schema: dict[str, Any]
    example: Any = MISSING  # the media type's `example` (or first of `examples`)
    media: tuple[Media, ...] = ()  # every media type, primary first

    @property
    def kind(self) -> str:
        return self.media[0].kind if self.media else "json"

    @property
    def annotation(self) -> str:
        """What the handler receives: one type per distinct media annotation."""
        seen: list[str] = []
        for m in self.media:
            if m.annotation not in seen:
                seen.append(m.annotation)
        return " | ".join(seen) or self.model

    @property
    def native(self) -> bool:
        """One JSON media type: FastAPI reads and validates it itself."""
        return len(self.media) <= 1 and self.kind == "json"


@dataclass(frozen=True)
class Response:
    status: str  # "200", "2XX", "default"
    description: str
    model: str | None  # the JSON media type's model
    content_type: str | None  # the primary media type
    headers: tuple[Header, ...]
    component: str | None  # name under components/responses when referenced
    extensions: dict[str, Any]
    example: Any = MISSING  # the media type's `example` (or first of `examples`)
    media: tuple[Media, ...] = ()  # every media type, JSON first

    @property
    def is_success(self) -> bool:
        return self.status.startswith("2")

    @property
    def code(self) -> int:
        """The HTTP status a server sends: `2XX` -> 200, `default` -> 200 (if it is the success)."""
        if self.status.isdigit():
            return int(self.status)
        if self.status[:1].isdigit():
            return int(self.status[0]) * 100
        return 200

    @property
    def kind(self) -> str:
        """none | json | binary | text | mixed (JSON and something else)."""
        kinds = {m.kind for m in self.media}
        if not kinds:
            return "none"
        if len(kinds) > 1 and not self.model:
            kinds.discard("json")  # JSON without a schema beside text or bytes: no model to send
        if len(kinds) == 1:
            return kinds.pop() if self.model or "json" not in kinds else "json"
        if "json" in kinds and self.model:
            return "mixed"
        # JSON without a schema beside text or bytes: answered as those (no model to send)
        return min(kinds - {"json"})

    @property
    def raw_media(self) -> Media | None:
        """The first non-JSON media type, what bytes or text are sent as."""
        return next((m for m in self.media if m.kind != "json"), None)

    @property
    def annotation(self) -> str:
        """What the handler returns."""
        kind = self.kind
        raw = self.raw_media
        stream = "AsyncIterable[bytes]" if raw and raw.kind == "binary" else "AsyncIterable[str]"
        plain = "bytes" if raw and raw.kind == "binary" else "str"
        if kind == "none":
            return "None"
        if kind == "json":
            return self.model or "None"
        if kind == "mixed":
            return f"{self.model} | {plain} | {stream}"
        return f"{plain} | {stream}"


@dataclass(frozen=True)
class SecurityScheme:
    """A scheme of components/securitySchemes, reduced to where its credential travels."""

    name: str
    type: str  # apiKey | http | oauth2 | openIdConnect | mutualTLS
    location: str  # header | query | cookie | none (mutualTLS)
    parameter: str  # header, query or cookie name: Authorization for http/oauth2/openIdConnect
    scheme: str  # http: basic | bearer | digest ...; oauth2/openIdConnect: bearer; apiKey: ""
    description: str
    scopes: tuple[str, ...] = ()  # oauth2: every scope its flows declare
    extensions: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Requirement:
    """One alternative of a security requirement: every scheme in it must be satisfied."""

    schemes: tuple[str, ...]
    scopes: dict[str, tuple[str, ...]]


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
    requirements: tuple[Requirement, ...] = ()  # security with scopes; () = no authentication
    callbacks: list[WebhookOperation] = field(default_factory=list)
    python_name: str = ""  # unique snake_case name of its handler

    def __post_init__(self) -> None:
        if not self.python_name:
            self.python_name = snake(self.operation_id)

    @property
    def full_path(self) -> str:
        return self.prefix + self.path

    @property
    def route_path(self) -> str:
        """`full_path` as the server's router matches it: a placeholder Starlette cannot read
        (`{user-id}`, `{item.id}`) named after its parameter's `route_key`, a placeholder the
        path repeats numbered after its first use (the first is the one read)."""
        keys = {p.name: p.route_key for p in self.params if p.location == "path"}
        taken = set(keys.values())
        used: set[str] = set()

        def placeholder(match: re.Match[str]) -> str:
            name = match.group(1)
            key = keys.get(name, name)
            if key in used:
                n = 2
                while f"{key}_{n}" in taken:
                    n += 1
                key = f"{key}_{n}"
                taken.add(key)
            used.add(key)
            return "{" + key + "}"

        return self.prefix + re.sub(r"{([^}]+)}", placeholder, self.path)

    @property
    def handler_params(self) -> list[Param]:
        return [p for p in self.params if not p.in_context]

    @property
    def context_params(self) -> list[Param]:
        return [p for p in self.params if p.in_context]

    @property
    def success(self) -> Response:
        successes = [r for r in self.responses if r.is_success]
        if successes:
            return successes[0]
        default = [r for r in self.responses if r.status == "default"]
        return default[0] if default else Response("200", "", None, None, (), None, {})

    @property
    def error_responses(self) -> list[Response]:
        success = self.success
        return [r for r in self.responses if not r.is_success and r is not success]

    @property
    def optional_security(self) -> bool:
        """Anonymous access is one of the alternatives (`{}` in the requirement list)."""
        return any(not r.schemes for r in self.requirements)

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


@dataclass
class Tag:
    name: str
    description: str
    operations: list[Operation] = field(default_factory=list)
    module: str = ""  # unique module name
    class_name: str = ""  # unique Protocol name prefix

    def __post_init__(self) -> None:
        self.module = self.module or module_name(self.name)
        self.class_name = self.class_name or pascal(self.name)


@dataclass
class WebhookOperation:
    """A webhook (root `webhooks`) or a callback of an operation: a request the API sends."""

    name: str
    method: str
    summary: str
    description: str
    headers: list[Param]
    body: Body | None
    responses: list[Response]
    expression: str = ""  # callbacks: the URL expression, e.g. {$request.body#/callback_url}
    pointer: str = ""


@dataclass
class Api:
    title: str
    version: str
    description: str
    servers: list[Server]
    tags: list[Tag]
    operations: list[Operation]
    schemas: dict[str, dict[str, Any]]  # model class name -> schema (components plus hoisted)
    security_schemes: dict[str, dict[str, Any]]
    default_security: tuple[tuple[str, ...], ...]
    extensions: dict[str, Any]  # root x- extensions
    webhooks: list[WebhookOperation]
    document: dict[str, Any]  # the bundled document, for targets that ship it whole
    schemes: dict[str, SecurityScheme] = field(default_factory=dict)
    # model class name -> JSON pointer of the spec node it is generated from
    schema_pointers: dict[str, str] = field(default_factory=dict)
    # components/schemas name as written -> model class name (they differ when unsafe)
    class_names: dict[str, str] = field(default_factory=dict)
    # model classes written as enum classes (no `model_validate_json`): what the schemas say
    # (`nodes.is_enum`), corrected by the build from the models datamodel-code-generator wrote
    enum_classes: frozenset[str] = frozenset()

    @property
    def default_prefix(self) -> str:
        return self.servers[0].prefix if self.servers else ""

    def operation(self, operation_id: str) -> Operation:
        return next(op for op in self.operations if op.operation_id == operation_id)
