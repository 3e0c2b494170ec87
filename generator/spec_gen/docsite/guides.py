"""The guide pages, each made from what the spec declares: authentication, errors, rate
limits, pagination, webhooks and environments. A guide with nothing to say is left out."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..examples import (
    ExampleRequest,
    curl_command,
    example_request,
    example_value,
    op_credentials,
)
from ..ir import MISSING, Api, Operation, resolve_schema
from ..targets.client import ClientOp, environments, key_modes, status_docs, webhook_signature
from .model import (
    Block,
    Code,
    DocsSettings,
    Guide,
    Heading,
    Table,
    Text,
    call_expression,
    client_error,
    py_literal,
    python_call,
    python_client_setup,
    python_example,
    schema_blocks,
    status_text,
)

GuideMaker = Callable[[Api, DocsSettings, dict[str, ClientOp]], Guide | None]


def _op_link(op: Operation) -> str:
    return f"[`{op.method.upper()} {op.full_path}`](op:{op.operation_id})"


def _ops_text(ops: list[Operation], total: int) -> str:
    if len(ops) == total:
        return "every operation"
    if len(ops) > 6:
        return f"{len(ops)} operations"
    return ", ".join(_op_link(op) for op in ops)


def _words(key: str) -> str:
    return key.replace("_", " ").replace("-", " ")


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(f"`{v}`" for v in value)
    return f"`{json.dumps(value) if isinstance(value, bool) else value}`"


def _settings_table(node: dict[str, Any]) -> Table:
    rows: list[tuple[str, ...]] = [
        (_words(str(k)), _value(v))
        for k, v in node.items()
        if not str(k).startswith("x-") and not isinstance(v, dict)
    ]
    return Table(("Setting", "Value"), rows)


def _first(api: Api, test: Callable[[Operation], bool]) -> Operation | None:
    return next((op for op in api.operations if test(op)), None)


def _plain_read(api: Api) -> Callable[[Operation], bool]:
    """A GET with the default security and no required parameter: a safe first call."""
    return lambda op: (
        op.method == "get"
        and bool(op.security)
        and op.security == api.default_security
        and not any(p.required for p in op.params)
    )


def _curl(api: Api, op: Operation, settings: DocsSettings) -> Code:
    command = curl_command(api, example_request(api, op), settings.origin, settings.env_prefix)
    return Code("sh", command, "curl", "curl", op.operation_id)


def _python(api: Api, op: Operation, views: dict[str, ClientOp], settings: DocsSettings) -> Code:
    code = python_example(api, example_request(api, op), views[op.operation_id], settings)
    return Code("python", code, "Python", "python", op.operation_id)


# -- authentication ----------------------------------------------------------------------------


def authentication(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    if not api.security_schemes:
        return None
    total = len(api.operations)
    blocks: list[Block] = []
    default = [name for option in api.default_security for name in option]
    if default:
        blocks.append(
            Text(
                "Unless an operation says otherwise, requests authenticate with "
                + " or ".join(f"`{name}`" for name in default)
                + "."
            )
        )
    table = settings.schemes(api)
    for name, scheme in api.security_schemes.items():
        users = [op for op in api.operations if any(name in option for option in op.security)]
        kind = " ".join(str(scheme.get(k)) for k in ("type", "scheme", "in") if scheme.get(k))
        view = table[name]
        rows: list[tuple[str, ...]] = [("Type", f"`{kind}`"), ("Sent as", view.how)]
        rows.append(("Client options", ", ".join(f"`{o}`" for o in view.options)))
        rows.append(("Environment", ", ".join(f"`${e}`" for e in view.envs)))
        if scheme.get("bearerFormat"):
            rows.append(("Format", str(scheme["bearerFormat"])))
        if scheme.get("name"):
            rows.append(("Name", f"`{scheme['name']}`"))
        rows.append(("Used by", _ops_text(users, total) if users else "no operation"))
        blocks.append(Heading(f"`{name}`"))
        about = " ".join(str(scheme.get("description") or "").split())
        if about:
            blocks.append(Text(about + (" *(provisional)*" if scheme.get("x-provisional") else "")))
        blocks.append(Table(("Property", "Value"), rows))
    anonymous = [op for op in api.operations if not op.security]
    if anonymous:
        blocks.append(
            Text("Operations without authentication: " + _ops_text(anonymous, total) + ".")
        )
    modes, default_mode = key_modes(api)
    key_format = api.extensions.get("x-api-key-format") or {}
    if modes:
        blocks.append(Heading("API key format"))
        rows = [(f"`{mode}`", f"`{prefix}`") for prefix, mode in modes.items()]
        blocks.append(Table(("Mode", "Key prefix"), rows))
        if default_mode:
            blocks.append(
                Text(
                    f"A key without a prefix counts as `{default_mode}`."
                    + (" *(provisional)*" if key_format.get("x-provisional") else "")
                )
            )
    headers: dict[str, tuple[str, list[Operation]]] = {}
    for op in api.operations:
        for p in op.params:
            if p.location == "header":
                entry = headers.setdefault(p.name, (" ".join(p.description.split()), []))
                entry[1].append(op)
    if headers:
        blocks.append(Heading("Request headers"))
        rows = [(f"`{h}`", about, _ops_text(ops, total)) for h, (about, ops) in headers.items()]
        blocks.append(Table(("Header", "Description", "Sent to"), rows))
    scopes = api.extensions.get("x-scopes") or {}
    tiers = list(dict.fromkeys(op.tier for op in api.operations if op.tier))
    if scopes or tiers:
        blocks.append(Heading("Tiers and scopes"))
        blocks.append(
            Text(
                "Each operation names the tier (`x-tier`) and, for many, the scope "
                "(`x-scope`) a key needs; a key without them is refused."
            )
        )
    if tiers:
        rows = [(f"`{tier}`", str(sum(op.tier == tier for op in api.operations))) for tier in tiers]
        blocks.append(Table(("Tier", "Operations"), rows))
    if scopes:
        rows = [
            (f"`{scope}`", str(about), str(sum(op.scope == scope for op in api.operations)))
            for scope, about in scopes.items()
        ]
        blocks.append(Table(("Scope", "Grants", "Operations"), rows))
    first = _first(api, _plain_read(api))
    if first is not None:
        blocks.append(Heading("Example"))
        envs = [e for s in op_credentials(api, first, settings.env_prefix) for e in s.envs]
        if envs:
            names = " and ".join(f"`${e}`" for e in envs)
            blocks.append(Text(f"The examples read the credentials from {names}:"))
        blocks.append(_curl(api, first, settings))
        blocks.append(_python(api, first, views, settings))
    return Guide(
        "authentication",
        "Authentication",
        "Security schemes, key format, headers, tiers and scopes.",
        blocks,
    )


# -- errors ------------------------------------------------------------------------------------


def errors(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    responses = [(op, r) for op in api.operations for r in op.responses]
    failures = [(op, r) for op, r in responses if not r.is_success]
    if not failures:
        return None
    blocks: list[Block] = [Heading("Error bodies")]
    models: dict[str, list[str]] = {}
    examples: dict[str, Any] = {}
    for _, r in failures:
        if r.model:
            models.setdefault(r.model, [])
            if r.status not in models[r.model]:
                models[r.model].append(r.status)
            if r.example is not MISSING and r.model not in examples:
                examples[r.model] = r.example
    for model, statuses in models.items():
        ref = {"$ref": f"#/components/schemas/{model}"}
        blocks.append(Text(f"Status {', '.join(sorted(statuses))}: `{model}`."))
        blocks += schema_blocks(api, ref, model)
        if model in examples:
            blocks.append(Code("json", json.dumps(examples[model], indent=2, ensure_ascii=False)))
    blocks.append(Heading("Status codes"))
    meanings = status_docs(api)
    counts: dict[str, list[Operation]] = {}
    for op, r in responses:
        counts.setdefault(r.status, [])
        if op not in counts[r.status]:
            counts[r.status].append(op)
    rows: list[tuple[str, ...]] = []
    for status in sorted(counts, key=lambda s: (len(s), s)):
        when = meanings.get(int(status), "") if status.isdigit() else ""
        if not when:
            found = {" ".join(r.description.split()) for _, r in responses if r.status == status}
            when = " ".join(sorted(found)) if len(found) <= 2 else "Success: see each operation."
        raises = client_error(api, status)
        rows.append(
            (
                f"`{status_text(status)}`",
                when,
                f"`{raises}`" if raises else "",
                _ops_text(counts[status], len(api.operations)),
            )
        )
    blocks.append(Table(("Status", "When", "Client raises", "Returned by"), rows))
    target = _first(
        api,
        lambda op: (
            op.method == "get"
            and bool(op.security)
            and any(r.status == "404" for r in op.responses)
            and op.path.endswith("}")
        ),
    )
    if target is not None and client_error(api, "404"):
        missing = {"integer": 999999, "number": 999999}
        arguments = [
            f"{p.py_name}=" + py_literal(missing.get(str(p.schema.get("type")), "does-not-exist"))
            for p in target.params
            if p.location == "path"
        ]
        name = client_error(api, "404")
        call = call_expression(views[target.operation_id], arguments)
        code = (
            python_client_setup(api, settings).replace("import Client", f"import Client, {name}")
            + "\ntry:\n    "
            + call
            + f"\nexcept {name} as error:\n"
            + "    print(error.status_code, error.detail, error.request_id)\n"
        )
        blocks.append(Heading("Handling errors in Python"))
        blocks.append(
            Text(
                "Every error status raises a subclass of `APIStatusError` carrying "
                "`status_code`, `detail` and `request_id`:"
            )
        )
        blocks.append(Code("python", code, "Python", "python", target.operation_id))
    return Guide(
        "errors",
        "Errors",
        "The error bodies, every status code and the client's exceptions.",
        blocks,
    )


# -- rate limits -------------------------------------------------------------------------------


WINDOWS = {"per_second": "second", "per_minute": "minute", "per_hour": "hour", "per_day": "day"}


def rate_limits(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    limits = api.extensions.get("x-rate-limit") or {}
    refused = [(op, r) for op in api.operations for r in op.responses if r.status == "429"]
    if not limits and not refused:
        return None
    blocks: list[Block] = []
    if limits:
        applies = f"`{limits['applies_to']}`" if limits.get("applies_to") else ""
        rows: list[tuple[str, ...]] = [
            (f"1 {WINDOWS[key]}", f"`{limits[key]}`", applies) for key in WINDOWS if key in limits
        ]
        blocks.append(Text("Every window is enforced at once; exceeding any of them is refused."))
        blocks.append(Table(("Window", "Requests", "Counted per"), rows))
    headers: dict[str, str] = {}
    example: Any = MISSING
    for _, r in refused:
        for h in r.headers:
            headers.setdefault(h.name, " ".join(h.description.split()))
        if example is MISSING and r.example is not MISSING:
            example = r.example
    if refused:
        blocks.append(Heading("When a request is refused"))
        text = "The answer is `429 Too Many Requests`"
        blocks.append(Text(text + (" with these headers:" if headers else ".")))
        if headers:
            blocks.append(Table(("Header", "Meaning"), [(f"`{k}`", v) for k, v in headers.items()]))
        if example is not MISSING:
            blocks.append(Code("json", json.dumps(example, indent=2, ensure_ascii=False), "429"))
    first = _first(api, _plain_read(api))
    if first is not None and limits:
        blocks.append(Heading("In the Python client"))
        blocks.append(
            Text(
                "The client retries a 429 after the time `Retry-After` names (`max_retries`), "
                "and with `pacing=True` spaces its own requests to stay under the limits:"
            )
        )
        setup = python_client_setup(api, settings).replace(
            'base_url="', 'pacing=True, max_retries=5, base_url="'
        )
        view = views[first.operation_id]
        arguments = [
            f"{p.py_name}={py_literal(v)}" for p, v in example_request(api, first).arguments
        ]
        blocks.append(
            Code(
                "python",
                setup + "\n" + python_call(first, view, arguments) + "\n",
                "Python",
                "python",
                first.operation_id,
            )
        )
    return Guide(
        "rate-limits",
        "Rate limits",
        "Request limits per key, the 429 answer and its headers.",
        blocks,
    )


# -- pagination --------------------------------------------------------------------------------


def _range(api: Api, node: Any) -> str:
    schema = resolve_schema(api, node)
    low, high = schema.get("minimum"), schema.get("maximum")
    parts = [
        f"{low} to {high}" if high is not None else f"at least {low}" if low is not None else ""
    ]
    if "default" in schema:
        parts.append(f"default {schema['default']}")
    return ", ".join(p for p in parts if p)


def pagination(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    paged = [op for op in api.operations if op.pagination in ("page", "offset")]
    if not paged:
        return None
    blocks: list[Block] = [
        Text(
            "List operations return their items in `data`, a page at a time. Each names its "
            "style in `x-pagination`: `page` (page numbers, with a `pagination` object in the "
            "answer) or `offset` (rows to skip)."
        )
    ]
    bounds = api.extensions.get("x-pagination-bounds") or {}
    if bounds:
        blocks.append(Heading("Bounds"))
        blocks.append(_settings_table(bounds))
    rows: list[tuple[str, ...]] = []
    for op in paged:
        params = [p for p in op.params if p.name in ("page", "limit", "offset")]
        about = ", ".join(f"`{p.name}` ({_range(api, p.schema)})" for p in params)
        rows.append((_op_link(op), f"`{op.pagination}`", about))
    blocks.append(Heading("Paginated operations"))
    blocks.append(Table(("Operation", "Style", "Parameters"), rows))
    page_op = next((op for op in paged if op.pagination == "page"), None)
    if page_op is not None and page_op.success.model:
        schema = resolve_schema(api, {"$ref": f"#/components/schemas/{page_op.success.model}"})
        pagination_schema = (schema.get("properties") or {}).get("pagination")
        if pagination_schema:
            name = str(pagination_schema.get("$ref", "pagination")).rsplit("/", 1)[-1]
            blocks.append(Heading("The pagination object"))
            blocks += schema_blocks(api, pagination_schema, name)
    simple = [
        op
        for op in paged
        if op.method == "get"
        and op.security == api.default_security
        and not any(p.required for p in op.params)
    ]
    for op in simple[:1] + [o for o in simple if o.pagination != simple[0].pagination][:1]:
        limit = 2
        query = {"limit": limit} if op.pagination == "page" else {"limit": limit, "offset": 0}
        if op.pagination == "page":
            query = {"page": 1, **query}
        example = example_request(api, op)
        extra = [(p, query[p.name]) for p in op.params if p.name in query]
        kept = [a for a in example.arguments if a[0].name not in query]
        example = ExampleRequest(op, kept + extra, example.body)
        blocks.append(Heading(f"Example: {op.pagination} style"))
        blocks.append(
            Code(
                "sh",
                curl_command(api, example, settings.origin, settings.env_prefix),
                "curl",
                "curl",
                op.operation_id,
            )
        )
        view = views[op.operation_id]
        if view.page:
            call = f"client.{view.call_path}(limit={limit})"
            code = (
                python_client_setup(api, settings)
                + f"\npage = {call}\n"
                + (
                    "print(page.pagination)\n"
                    if op.pagination == "page"
                    else "print(len(page.data))\n"
                )
                + "for item in page:  # walks every later page too, fetching lazily\n"
                + "    print(item)\n"
            )
            blocks.append(Code("python", code, "Python", "python", op.operation_id))
    return Guide(
        "pagination",
        "Pagination",
        "Page and offset styles, bounds, and iterating in the client.",
        blocks,
    )


# -- webhooks ----------------------------------------------------------------------------------


def webhooks(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    delivery = api.extensions.get("x-webhook-delivery") or {}
    if not api.webhooks and not delivery and webhook_signature(api) is None:
        return None
    blocks: list[Block] = []
    hook = api.webhooks[0] if api.webhooks else None
    if hook is not None and hook.description.strip():
        blocks.append(Text(hook.description.strip()))
    kinds_schema = delivery.get("event_kinds_schema")
    kinds = (api.schemas.get(str(kinds_schema)) or {}).get("enum") if kinds_schema else None
    if kinds:
        blocks.append(Heading("Events"))
        blocks.append(Text(f"The event kinds a webhook subscribes to (`{kinds_schema}`):"))
        groups: dict[str, list[str]] = {}
        for kind in kinds:
            groups.setdefault(str(kind).split(".")[0], []).append(f"`{kind}`")
        rows: list[tuple[str, ...]] = [
            (f"`{group}`", ", ".join(names)) for group, names in groups.items()
        ]
        blocks.append(Table(("Group", "Events"), rows))
    if delivery:
        blocks.append(Heading("Delivery"))
        blocks.append(_settings_table(delivery))
    attempts = delivery.get("max_attempts")
    delays = delivery.get("retry_delays_seconds")
    if isinstance(attempts, int) and isinstance(delays, list) and delays:
        rows = [("1", "when the event occurs")]
        for n in range(2, attempts + 1):
            wait = delays[min(n - 2, len(delays) - 1)]
            rows.append((str(n), f"{wait} s after attempt {n - 1} failed"))
        blocks.append(Heading("Retry schedule"))
        blocks.append(Text("A delivery succeeds on any 2xx answer; otherwise it is tried again:"))
        blocks.append(Table(("Attempt", "When"), rows))
    if hook is not None:
        blocks.append(Heading("The delivery request"))
        rows = [
            (f"`{p.name}`", "yes" if p.required else "no", " ".join(p.description.split()))
            for p in hook.headers
        ]
        if rows:
            blocks.append(Table(("Header", "Required", "Description"), rows))
        if hook.body is not None:
            about = " ".join(
                str(resolve_schema(api, hook.body.schema).get("description") or "").split()
            )
            blocks.append(
                Text(f"Body: `{hook.body.model}` (`{hook.body.content_type}`). {about}".strip())
            )
            blocks += schema_blocks(
                api, {"$ref": f"#/components/schemas/{hook.body.model}"}, hook.body.model
            )
    signature = webhook_signature(api)
    if hook is not None and hook.body is not None and signature is not None:
        header = signature["header"]
        package = settings.client_package
        payload = json.dumps(
            example_value(api, hook.body.schema, required_only=True), separators=(",", ":")
        )
        code = f'''from {package}.webhooks import WebhookSignatureError, construct_event, sign

SECRET = "whsec_example"  # the webhook's secret


def receive(raw_body: bytes, headers: dict[str, str]) -> int:
    """Handle one delivery: the body exactly as received (bytes, not re-encoded JSON)."""
    try:
        event = construct_event(raw_body, headers, SECRET)  # checks {header}
    except WebhookSignatureError:
        return 400  # forged or altered: drop it
    print("verified event:", event)
    return 204  # any 2xx acknowledges the delivery


# a delivery as the API sends it: the raw body signed with the secret
# ({signature["encoding"]} {signature["algorithm"].upper()} in {header})
body = {payload!r}.encode()
assert receive(body, {{"{header}": sign(body, SECRET)}}) == 204
assert receive(body, {{"{header}": sign(body, "another secret")}}) == 400
'''
        blocks.append(Heading("Verifying a delivery"))
        blocks.append(
            Text(
                f"Check `{header}` against the raw request body before trusting it; the "
                "client's `construct_event` does it in constant time and parses the payload:"
            )
        )
        blocks.append(Code("python", code, "Python", "python"))
    subscribe = _first(
        api, lambda op: op.method == "post" and op.path.rstrip("/").endswith("/webhooks")
    )
    if subscribe is not None:
        blocks.append(Text(f"Subscribe with {_op_link(subscribe)}."))
    return Guide(
        "webhooks", "Webhooks", "Event kinds, delivery and retries, verifying signatures.", blocks
    )


# -- environments ------------------------------------------------------------------------------


def environments_guide(
    api: Api, settings: DocsSettings, views: dict[str, ClientOp]
) -> Guide | None:
    blocks: list[Block] = [Heading("Servers")]
    rows: list[tuple[str, ...]] = []
    for server in api.servers:
        variables = "; ".join(
            f"`{name}` (default `{value}`)" for name, value in server.variables.items()
        )
        mark = " *(provisional)*" if server.extensions.get("x-provisional") else ""
        rows.append((server.description + mark, f"`{server.url}`", variables))
    blocks.append(Table(("Environment", "URL", "Variables"), rows))
    prefixes: dict[str, list[Operation]] = {}
    for op in api.operations:
        prefixes.setdefault(op.prefix, []).append(op)
    if len(prefixes) > 1:
        blocks.append(Heading("Path prefixes"))
        blocks.append(
            Text("Operations are served under more than one path prefix on the same host:")
        )
        rows = [
            (f"`{prefix or '/'}`", _ops_text(ops, len(api.operations)))
            for prefix, ops in prefixes.items()
        ]
        blocks.append(Table(("Prefix", "Operations"), rows))
    envs = environments(api)
    if envs:
        blocks.append(Heading("In the Python client"))
        rows = [(f'`Client(environment="{name}")`', f"`{url}`") for name, url in envs.items()]
        rows.append((f'`Client(base_url="{settings.base_url(api)}")`', "any other server"))
        blocks.append(Table(("Client", "Base URL"), rows))
    primary = settings.primary(api)
    reading = f", reading the credential from `${primary.envs[0]}`" if primary else ""
    blocks.append(
        Text(f"The examples in these docs call a local server at `{settings.origin}`{reading}.")
    )
    return Guide(
        "environments",
        "Environments",
        "Servers, path prefixes and the client's environments.",
        blocks,
    )


MAKERS: tuple[GuideMaker, ...] = (
    authentication,
    errors,
    rate_limits,
    pagination,
    webhooks,
    environments_guide,
)


def guides(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> list[Guide]:
    return [g for g in (make(api, settings, views) for make in MAKERS) if g is not None]
