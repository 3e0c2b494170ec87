"""Guides on reaching the API: authentication and environments."""

from __future__ import annotations

from ..ir import Api, Operation
from ..targets.client.examples import op_credentials
from ..targets.client.facts import environments, key_modes
from ..targets.client.resources import ClientOp
from .guide_common import (
    curl_code,
    first_operation,
    ops_text,
    plain_read,
    python_code,
)
from .model import (
    Block,
    DocsSettings,
    Guide,
    Heading,
    Table,
    Text,
)

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
        rows.append(("Used by", ops_text(users, total) if users else "no operation"))
        blocks.append(Heading(f"`{name}`"))
        about = " ".join(str(scheme.get("description") or "").split())
        if about:
            blocks.append(Text(about + (" *(provisional)*" if scheme.get("x-provisional") else "")))
        blocks.append(Table(("Property", "Value"), rows))
    anonymous = [op for op in api.operations if not op.security]
    if anonymous:
        blocks.append(
            Text("Operations without authentication: " + ops_text(anonymous, total) + ".")
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
        rows = [(f"`{h}`", about, ops_text(ops, total)) for h, (about, ops) in headers.items()]
        blocks.append(Table(("Header", "Description", "Sent to"), rows))
    scopes = api.extensions.get("x-scopes") or {}
    tiers = list(dict.fromkeys(op.tier for op in api.operations if op.tier))
    if scopes and tiers:
        blocks.append(Heading("Tiers and scopes"))
        blocks.append(
            Text(
                "Each operation names the tier (`x-tier`) and, for many, the scope "
                "(`x-scope`) a key needs; a key without them is refused."
            )
        )
    elif tiers:
        blocks.append(Heading("Tiers"))
        blocks.append(Text("Operations name the tier (`x-tier`) a key needs."))
    elif scopes:
        blocks.append(Heading("Scopes"))
        blocks.append(Text("Operations name the scope (`x-scope`) a key needs."))
    if tiers:
        rows = [(f"`{tier}`", str(sum(op.tier == tier for op in api.operations))) for tier in tiers]
        blocks.append(Table(("Tier", "Operations"), rows))
    if scopes:
        rows = [
            (f"`{scope}`", str(about), str(sum(op.scope == scope for op in api.operations)))
            for scope, about in scopes.items()
        ]
        blocks.append(Table(("Scope", "Grants", "Operations"), rows))
    first = first_operation(api, plain_read(api))
    if first is not None:
        blocks.append(Heading("Example"))
        envs = [e for s in op_credentials(api, first, settings.env_prefix) for e in s.envs]
        if envs:
            names = " and ".join(f"`${e}`" for e in envs)
            blocks.append(Text(f"The examples read the credentials from {names}:"))
        blocks.append(curl_code(api, first, settings))
        blocks.append(python_code(api, first, views, settings))
    # the summary names only what the guide holds
    parts = ["key format"] * bool(modes) + ["headers"] * bool(headers)
    parts += ["tiers"] * bool(tiers) + ["scopes"] * bool(scopes)
    summary = "Security schemes" + "".join(f", {p}" for p in parts[:-1])
    summary += f" and {parts[-1]}." if parts else "."
    return Guide("authentication", "Authentication", summary, blocks)


# -- environments ------------------------------------------------------------------------------


def environments_guide(
    api: Api, settings: DocsSettings, views: dict[str, ClientOp]
) -> Guide | None:
    blocks: list[Block] = [Heading("Servers")]
    rows: list[tuple[str, ...]] = []
    names = list(environments(api))  # one per server, in order
    for server, env_name in zip(api.servers, names, strict=True):
        variables = "; ".join(
            f"`{name}` (default `{value}`)" for name, value in server.variables.items()
        )
        mark = " *(provisional)*" if server.extensions.get("x-provisional") else ""
        about = " ".join(server.description.split()) or f"`{env_name}`"
        rows.append((about + mark, f"`{server.url}`", variables))
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
            (f"`{prefix or '/'}`", ops_text(ops, len(api.operations)))
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
