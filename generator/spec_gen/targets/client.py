"""The Python client: one namespace per tag (deeper with x-client-namespace), one method per operation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir import Api, Operation
from ..naming import pascal, snake
from ..render import names_in
from . import Target

ERROR_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}


@dataclass
class Namespace:
    path: tuple[str, ...]
    doc: str = ""
    operations: list[Operation] = field(default_factory=list)
    children: list[Namespace] = field(default_factory=list)

    @property
    def class_name(self) -> str:
        return "".join(pascal(p) for p in self.path) + "Resource"

    @property
    def attribute(self) -> str:
        return self.path[-1]


def namespaces(api: Api) -> tuple[list[Namespace], list[Namespace]]:
    """Every namespace (children before parents, so classes are defined in order) and the roots."""
    docs = {snake(tag.name).rstrip("_"): tag.description for tag in api.tags}
    table: dict[tuple[str, ...], Namespace] = {}

    def get(path: tuple[str, ...]) -> Namespace:
        if path not in table:
            table[path] = Namespace(path, docs.get(path[-1], f"Operations under {'.'.join(path)}."))
            if len(path) > 1:
                get(path[:-1]).children.append(table[path])
        return table[path]

    for op in api.operations:
        get(op.client_namespace).operations.append(op)
    ordered = sorted(table.values(), key=lambda ns: (-len(ns.path), list(table).index(ns.path)))
    roots = [ns for ns in table.values() if len(ns.path) == 1]
    return ordered, roots


def status_errors(api: Api) -> list[tuple[int, str]]:
    codes = sorted(
        {
            int(r.status)
            for op in api.operations
            for r in op.responses
            if r.status.isdigit() and 400 <= int(r.status) < 500
        }
        | set(ERROR_NAMES)
    )
    return [(code, ERROR_NAMES.get(code, f"Status{code}Error")) for code in codes]


def environments(api: Api) -> dict[str, str]:
    out = {}
    for index, server in enumerate(api.servers):
        name = (
            server.extensions.get("x-environment")
            or snake(server.description).rstrip("_")
            or f"server{index}"
        )
        concrete = server.url
        for var, value in server.variables.items():
            concrete = concrete.replace("{" + var + "}", value)
        origin = (
            concrete[: len(concrete) - len(server.prefix)]
            if server.prefix and concrete.endswith(server.prefix)
            else concrete
        )
        out[str(name)] = origin.rstrip("/")
    return out


def render_client(
    target: Target, api: Api, known: set[str], api_key_env: str, testing: dict[str, Any]
) -> dict[str, str]:
    """Every file of the client but models.py (the API layer's models, shared)."""
    pkg = target.package
    ordered, roots = namespaces(api)
    envs = environments(api)
    used: set[str] = set()
    for op in api.operations:
        for p in op.params:
            used |= names_in(p.annotation, known)
        if op.body:
            used.add(op.body.model)
        if op.success.model:
            used.add(op.success.model)
    ctx: dict[str, Any] = {
        **target.context(api),
        "status_errors": status_errors(api),
        "environments": envs,
        "default_environment": next(iter(envs), "default"),
        "api_key_env": api_key_env,
        "testing": testing,
    }
    return {
        "pyproject.toml": target.render(
            "client/pyproject.toml.j2", **ctx, dependencies=target.dependencies
        ),
        f"{pkg}/py.typed": "",
        f"{pkg}/__init__.py": target.render("client/__init__.py.j2", **ctx),
        f"{pkg}/errors.py": target.render("client/errors.py.j2", **ctx),
        f"{pkg}/base.py": target.render("client/base.py.j2", **ctx),
        f"{pkg}/client.py": target.render(
            "client/client.py.j2",
            **ctx,
            namespaces=ordered,
            root_children=roots,
            models=sorted(used & known),
        ),
        f"{pkg}/testing.py": target.render("client/testing.py.j2", **ctx),
    }
