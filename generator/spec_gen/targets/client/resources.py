"""The Python client: one namespace per tag (deeper with x-client-namespace), one method per operation."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ...core.naming import snake, unique
from ...ir import Api, Operation, Param
from .. import Target
from ..render import names_in
from ..units import Units, unit_key
from . import wire as client_wire
from .answers import data_annotation, plain_answer
from .auth import Scheme, primary_scheme, schemes, token_param
from .body import BodyField, body_fields, models_in
from .body import body_annotation as client_body_annotation
from .examples import param_example, request_example
from .facts import (
    context_headers,
    environments,
    key_modes,
    rate_limits,
    status_docs,
    status_errors,
    webhook_signature,
)
from .names import client_paths, resource_classes
from .options import client_options, credential_options
from .paging import page_style

IDEMPOTENCY = "idempotency-key"  # the header (any case) that makes a call safe to retry
IDEMPOTENT_METHODS = frozenset({"get", "head", "options", "put", "delete"})


@dataclass
class Namespace:
    path: tuple[str, ...]
    doc: str = ""
    operations: list[Operation] = field(default_factory=list)
    children: list[Namespace] = field(default_factory=list)
    class_name: str = ""  # unique among the client's classes, imports and models

    @property
    def attribute(self) -> str:
        return self.path[-1]

    @property
    def module(self) -> str:
        return self.path[0]

    def all(self) -> list[Namespace]:
        """This namespace and every one under it, children first (definition order)."""
        out: list[Namespace] = []
        for child in self.children:
            out.extend(child.all())
        return out + [self]


@dataclass
class ClientOp:
    """An operation as the client sees it: what it returns, how it authenticates, retries, pages."""

    op: Operation
    returns: str  # the method's return annotation (the page's item type for paginated lists)
    parse: str  # expression turning `response` into the result ("" when nothing is returned)
    body_model: str | None
    retry_safe: bool
    token_param: str | None  # a bearer token the call takes instead of the client's API key
    page: dict[str, Any] | None  # PageStyle arguments for list operations
    token_scheme: str | None = None  # the security scheme `token_param` is sent for
    namespace: tuple[str, ...] = ()  # client.<namespace...>.<method>: safe, unique names
    method: str = ""
    fields: list[BodyField] = field(default_factory=list)  # the body's fields as keywords
    accept_arg: str | None = None  # the keyword choosing one of several answer media types
    stream_method: str | None = None  # `<method>_stream`: the answer read incrementally
    body_type: str | None = None  # `body=`'s precise union / sequence type, when it has one
    body_enums: frozenset[str] = frozenset()  # body models that are enum classes
    errors: dict[str, str] = field(default_factory=dict)  # status -> its error model class
    idempotency_header: str | None = None  # a declared Idempotency-Key header (any case)
    events: bool = False  # a streamed answer read item by item (`returns`: one item)

    @property
    def accepts(self) -> tuple[str, ...]:
        """The success answer's media types when there are several (sent as `Accept`)."""
        return client_wire.accepts(self.op.success)

    @property
    def accept_annotation(self) -> str:
        return "Literal[" + ", ".join(repr(m) for m in self.accepts) + "] | None"

    @property
    def required_fields(self) -> list[BodyField]:
        return [f for f in self.fields if f.required]

    @property
    def optional_fields(self) -> list[BodyField]:
        return [f for f in self.fields if not f.required]

    @property
    def body_expression(self) -> str:
        """`body`, or the runtime merging `body=` with the body's fields passed as keywords."""
        if not self.fields:
            return "body"
        fields = ", ".join(f"({f.py_name!r}, {f.name!r}, {f.py_name})" for f in self.fields)
        required = tuple(f.py_name for f in self.required_fields)
        body_required = self.op.body is not None and self.op.body.required
        return f"_wire.body_of(body, ({fields},), {required!r}, {body_required!r})"

    def annotation(self, p: Param) -> str:
        """A parameter's type as the method takes it: ids accepted as `int | str`."""
        base = client_wire.id_annotation(p)
        return f"{base} | None" if (p.optional or p.nullable) else base

    @property
    def call_path(self) -> str:
        """`contacts.get`: the attribute path under a client."""
        return ".".join((*self.namespace, self.method))

    @property
    def params(self) -> list[Param]:
        return sorted(self.op.params, key=lambda p: not p.required)

    @property
    def body_annotation(self) -> str:
        """Each media type's model (or plain data validated into it), bytes or text."""
        return self.body_type or client_wire.body_annotation(self.op.body)

    @property
    def path_expression(self) -> str:
        return client_wire.path_expression(self.op)

    @property
    def query_styles(self) -> dict[str, tuple[str, bool]]:
        return client_wire.query_styles(self.op)

    @property
    def cookies(self) -> str:
        return client_wire.cookies_expression(self.op)

    @property
    def media(self) -> str:
        return client_wire.media_expression(self.op.body, self.body_enums)

    @property
    def content_type_arg(self) -> str | None:
        return client_wire.content_type_argument(self.op)

    @property
    def args_doc(self) -> list[str]:
        """`name: description` lines for the docstring's Args section."""
        out = []
        for p in [*self.path_params, *self.keyword_params]:
            text = " ".join(p.description.split())
            if text:
                out.append(f"{p.py_name}: {text}")
        if self.token_param:
            out.append(
                f"{self.token_param}: the {self.token_scheme} bearer token for this call "
                "(default: the client's option of that name)."
            )
        if self.op.body is not None:
            text = " ".join((self.op.body.description or "").split())
            out.append(f"body: {client_wire.body_doc(self.op.body)}. {text}".rstrip())
            if self.fields:
                out[-1] += " Or pass its fields as keywords instead (not both)."
            for f in self.fields:
                out.append(f"{f.py_name}: {f.description or 'the body field ' + repr(f.name)}")
            if self.content_type_arg:
                out.append(f"{self.content_type_arg}: the media type to send (default: by value).")
        if self.accept_arg:
            out.append(
                f"{self.accept_arg}: the media type to ask for (default: any of "
                + ", ".join(self.accepts)
                + "); the answer is decoded by its Content-Type."
            )
        return out

    @property
    def path_params(self) -> list[Param]:
        """Positional or keyword: `client.webhooks.get("wh_1")` reads like the URL."""
        return [p for p in self.params if p.location == "path" and p.required]

    @property
    def keyword_params(self) -> list[Param]:
        return [p for p in self.params if p not in self.path_params]


def client_views(api: Api, known: set[str], env_prefix: str = "") -> dict[str, ClientOp]:
    """Every operation as the client sees it, with its safe, unique place in the client.

    Asked by the client and by the docs of one build: the last answer is kept, for the same
    Api, known classes, enum classes and prefix (read-only to its callers)."""
    if _VIEWS:
        last_api, last_key, last_views = _VIEWS[0]
        if last_api is api and last_key == (frozenset(known), api.enum_classes, env_prefix):
            return last_views
    views = _client_views(api, known, env_prefix)
    _VIEWS[:] = [(api, (frozenset(known), api.enum_classes, env_prefix), views)]
    return views


_VIEWS: list[tuple[Api, tuple[frozenset[str], frozenset[str], str], dict[str, ClientOp]]] = []


def _client_views(api: Api, known: set[str], env_prefix: str) -> dict[str, ClientOp]:
    table = schemes(api, env_prefix)
    options = {o.name for o in client_options(table, {}, context_headers(api))}
    paths = client_paths(api, frozenset(options))
    views = {}
    for op in api.operations:
        view = client_op(api, op, known, table)
        view.namespace, view.method = paths[op.operation_id]
        taken = {"self", "body", *(p.py_name for p in op.params)}
        taken |= {name for name in (view.token_param, view.content_type_arg) if name}
        view.fields = body_fields(api, op, taken, known)
        view.body_type = client_body_annotation(api, op, known)
        if view.accepts:
            taken |= {f.py_name for f in view.fields}
            view.accept_arg = unique("accept", taken, prefix="response_")
        views[op.operation_id] = view
    _stream_methods(views)
    return views


def _stream_methods(views: dict[str, ClientOp]) -> None:
    """`<method>_stream` for answers of bytes or text, unique in its namespace."""
    taken: dict[tuple[str, ...], set[str]] = {}
    for view in views.values():
        taken.setdefault(view.namespace, set()).add(view.method)
        for depth in range(1, len(view.namespace)):  # child namespaces are attributes too
            taken.setdefault(view.namespace[:depth], set()).add(view.namespace[depth])
    for view in views.values():
        if client_wire.streams(view.op.success) and view.page is None:
            names = taken[view.namespace]
            name = view.method + "_stream"
            while name in names:
                name += "_"
            names.add(name)
            view.stream_method = name


def namespaces(
    api: Api,
    views: dict[str, ClientOp] | None = None,
    models: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[Namespace], list[Namespace]]:
    """Every namespace (children before parents, so classes are defined in order) and the roots.
    Resource class names never collide with `models` (the model classes resource modules import)."""
    docs = {snake(tag.name).rstrip("_"): tag.description for tag in api.tags}
    table: dict[tuple[str, ...], Namespace] = {}

    def get(path: tuple[str, ...]) -> Namespace:
        if path not in table:
            table[path] = Namespace(path, docs.get(path[-1], f"Operations under {'.'.join(path)}."))
            if len(path) > 1:
                get(path[:-1]).children.append(table[path])
        return table[path]

    for op in api.operations:
        path = views[op.operation_id].namespace if views else op.client_namespace
        get(path).operations.append(op)
    first = {path: n for n, path in enumerate(table)}  # definition order
    ordered = sorted(table.values(), key=lambda ns: (-len(ns.path), first[ns.path]))
    roots = [ns for ns in table.values() if len(ns.path) == 1]
    classes = resource_classes(list(table), models)
    for ns in table.values():
        ns.class_name = classes[ns.path]
    return ordered, roots


def client_op(
    api: Api, op: Operation, known: set[str], table: dict[str, Scheme] | None = None
) -> ClientOp:
    model = op.success.model
    page = page_style(api, op, known)[0] if model else None
    data = data_annotation(api, model, known) if model else None
    enum = bool(model) and model in api.enum_classes
    raw = client_wire.raw_result(op.success, enum)
    if raw is not None:
        page = None
        returns, parse = raw
    elif model is None:
        returns, parse = "None", ""
    elif page is not None:
        returns, parse = page.pop("item"), client_wire.parse_json(model, enum)
    elif data and data in known and (plain := plain_answer(api, data, known)):
        returns, parse = plain, f"{model}.model_validate_json(response.content).data.root"
    elif data:
        returns, parse = data, f"{model}.model_validate_json(response.content).data"
    elif not enum and (plain := plain_answer(api, model, known)):
        returns, parse = plain, f"{model}.model_validate_json(response.content).root"
    else:
        page = None
        returns, parse = model, client_wire.parse_json(model, enum)
    events = client_wire.event_stream(op.success, known)
    if events is not None:
        returns, parse = events
    tier = op.tier
    idempotency = next(
        (p.name for p in op.params if p.location == "header" and p.name.lower() == IDEMPOTENCY),
        None,
    )
    safe = bool(idempotency) or (
        tier != "billable" and (op.method in IDEMPOTENT_METHODS or tier == "read")
    )
    own = token_param(api, op, table if table is not None else schemes(api, ""))
    token, token_scheme = own if own else (None, None)
    body_model = op.body.model if op.body else None
    body_enums = frozenset(
        m.model for m in client_wire.body_media(op.body) if m.model and m.model in api.enum_classes
    )
    errors = {
        r.status: r.model
        for r in op.responses
        if not r.is_success and r.model in known and r.model not in api.enum_classes
    }
    return ClientOp(
        op,
        returns,
        parse,
        body_model,
        safe,
        token,
        page,
        token_scheme,
        body_enums=body_enums,
        errors=errors,
        idempotency_header=idempotency,
        events=events is not None,
    )


def models_used(view: ClientOp, known: set[str]) -> set[str]:
    """Model classes a resource module imports for one operation."""
    used: set[str] = set()
    for p in view.op.params:
        used |= names_in(p.annotation, known)
    used |= names_in(view.returns, known) | names_in(view.parse, known)
    used |= models_in(view.fields, known) | names_in(view.body_annotation, known)
    return used | (client_wire.body_models(view.op.body) & known)


def render_client(
    target: Target,
    api: Api,
    known: set[str],
    env_prefix: str,
    testing: dict[str, Any] | None,
    units: Units | None = None,
) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Every file of the client but its models, and the model classes each module names.

    The models come from the API layer's models module, split by `client_models` along
    the second value (operationId, or `<webhooks>` -> the model classes it names): each
    method imports its own when it runs, so a call builds only the classes it needs. A resource
    module is read back from `units` when its inputs did not change."""
    pkg = target.package
    units = units or Units(None)
    table = schemes(api, env_prefix)
    views = client_views(api, known, env_prefix)
    _, roots = namespaces(api, views, known)
    envs = environments(api)
    modes, default_mode = key_modes(api)
    # the first webhook whose payload is a model class (a text or form payload is none: its
    # `str` was imported from the models, an ImportError when a delivery came)
    webhook = next((w for w in api.webhooks if w.body is not None and w.body.model in known), None)
    ctx: dict[str, Any] = {
        **target.context(api),
        "status_errors": status_errors(api),
        "status_docs": status_docs(api),
        "environments": {name: url for name, url in envs.items()},
        "default_environment": next(iter(envs), "default"),
        "base_path": api.default_prefix,
        "schemes": table,
        "primary": primary_scheme(api, table),
        "key_modes": modes,
        "default_key_mode": default_mode,
        "rate_limits": rate_limits(api),
        "context_headers": context_headers(api),
        "options": client_options(table, envs, context_headers(api)),
        "credentials": credential_options(table),
        "oauth": {name: s.oauth for name, s in table.items() if s.oauth is not None},
        "events": any(v.events for v in views.values()),
        "roots": roots,
        "views": views,
        "webhook": webhook,
        "signature": webhook_signature(api),
        "examples": root_examples(api, roots, views),
        "testing": testing,
    }
    files = {
        "pyproject.toml": target.render(
            "client/pyproject.toml.j2", **ctx, dependencies=target.dependencies
        ),
        f"{pkg}/py.typed": "",
        f"{pkg}/__init__.py": target.render("client/__init__.py.j2", **ctx),
        f"{pkg}/errors.py": target.render("client/errors.py.j2", **ctx),
        f"{pkg}/_enums.py": target.render("client/_enums.py.j2", **ctx),
        f"{pkg}/wire.py": target.render("client/wire.py.j2", **ctx),
        f"{pkg}/pacing.py": target.render("client/pacing.py.j2", **ctx),
        f"{pkg}/auth.py": target.render("client/auth.py.j2", **ctx),
        f"{pkg}/_http.py": target.render("client/_http.py.j2", **ctx),
        **({f"{pkg}/oauth.py": target.render("client/oauth.py.j2", **ctx)} if ctx["oauth"] else {}),
        **(
            {f"{pkg}/streaming.py": target.render("client/streaming.py.j2", **ctx)}
            if ctx["events"]
            else {}
        ),
        f"{pkg}/base.py": target.render("client/base.py.j2", **ctx),
        f"{pkg}/pagination.py": target.render("client/pagination.py.j2", **ctx),
        f"{pkg}/client.py": target.render("client/client.py.j2", **ctx),
        f"{pkg}/resources/__init__.py": target.render("client/resources_init.py.j2", **ctx),
        "README.md": target.render("client/README.md.j2", **ctx),
    }
    if testing is not None:
        files[f"{pkg}/testing.py"] = target.render("client/testing.py.j2", **ctx)
    uses: dict[str, set[str]] = {}  # operationId (unique) -> the model classes it names
    scope = ""
    if units.enabled:  # the template reads `root`, `views` of its operations, `header` and
        scope = units.scope_of("client", target.header)  # what is made of them below
    for root in roots:
        used: set[str] = set()
        root_views = [views[op.operation_id] for ns in root.all() for op in ns.operations]
        for view in root_views:
            uses[view.op.operation_id] = models_used(view, known) & known
            used |= uses[view.op.operation_id]
        op_models = {v.op.operation_id: sorted(uses[v.op.operation_id]) for v in root_views}
        own = ""
        if units.enabled:  # targets/unit_keys.py
            own = units.keys.digest(root, root_views, sorted(used & known), op_models)
        files[f"{pkg}/resources/{root.module}.py"] = units.text(
            "client",
            unit_key(scope, root.module, own),
            partial(
                target.render,
                "client/resource.py.j2",
                **ctx,
                root=root,
                models=sorted(used & known),
                op_models=op_models,
                root_overload=any(v.required_fields for v in root_views),
                root_literal=any(
                    v.accept_arg or any("Literal[" in f.annotation for f in v.fields)
                    for v in root_views
                ),
                root_stream=any(v.stream_method for v in root_views),
                root_events=any(v.events for v in root_views),
            ),
        )
    if webhook is not None and webhook.body is not None:  # its payload a model class (above)
        files[f"{pkg}/webhooks.py"] = target.render(
            "client/webhooks.py.j2", **ctx, enum_payload=webhook.body.model in api.enum_classes
        )
        uses.setdefault("<webhooks>", set()).add(webhook.body.model)
    return files, uses


def example_call(api: Api, view: ClientOp, client: str = "client") -> str:
    """A Python call of the operation with example arguments (required ones only)."""
    op = view.op
    args = [
        f"{p.py_name}={param_example(api, p)!r}"
        for p in view.params
        if p.required and not p.in_context
    ]
    if view.token_param:
        args.append(f'{view.token_param}="<token>"')
    if op.body is not None and op.body.required:
        example = request_example(api, op)
        by_wire = {f.name: f.py_name for f in view.fields}
        if isinstance(example, dict) and example and set(example) <= set(by_wire):
            args += [f"{by_wire[name]}={value!r}" for name, value in example.items()]
        else:
            args.append(f"body={example!r}")
    call = f"{client}.{view.call_path}({', '.join(args)})"
    if view.page:
        return f"for item in {call}:\n    print(item)"
    if view.returns == "None":
        return call
    return f"result = {call}\nprint(result)"


def root_examples(api: Api, roots: list[Namespace], views: dict[str, ClientOp]) -> dict[str, str]:
    out = {}
    for root in roots:
        ops = [op for ns in reversed(root.all()) for op in ns.operations]
        pick = next((op for op in ops if op.method == "get" and op.security), ops[0])
        out[root.attribute] = example_call(api, views[pick.operation_id])
    return out
