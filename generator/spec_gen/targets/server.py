"""The server's API layer: models, constants, operation table, interfaces, routers."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.naming import constant_name, is_snake_identifier, unique
from ..ir import Api, Operation
from . import Target
from .render import names_in
from .units import Units, unit_key


@dataclass(frozen=True)
class Constant:
    name: str
    value: Any
    annotation: str
    doc: str


_TYPE_NAMES = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "NoneType": "None",
    "dict": "dict[str, Any]",
    "list": "list[Any]",
}


def constants(api: Api) -> list[Constant]:
    """Root x- extensions flattened: `x-rate-limit: {per_second: 10}` -> RATE_LIMIT_PER_SECOND."""
    out: list[Constant] = []
    taken: set[str] = {"Any", "Final"}

    def visit(prefix: list[str], value: Any) -> None:
        if isinstance(value, dict) and all(
            is_snake_identifier(str(k)) or str(k).startswith("x-") for k in value
        ):
            for key, item in value.items():
                if not str(key).startswith("x-"):
                    visit([*prefix, str(key)], item)
            return
        name = constant_name(*prefix) or "EXTENSION"
        name = "_" + name if name[0].isdigit() else name
        name = unique(name, taken, separator="_")
        if isinstance(value, list):
            value = tuple(value)
            kinds = {_TYPE_NAMES.get(type(v).__name__, "Any") for v in value}
            annotation = f"tuple[{kinds.pop()}, ...]" if len(kinds) == 1 else "tuple[Any, ...]"
        elif isinstance(value, dict):
            annotation = "dict[str, Any]"
        else:
            annotation = ""
        out.append(Constant(name, value, annotation, ""))

    for key, value in api.extensions.items():
        visit([key[2:]], value)
    return out


def used_models(ops: list[Operation], known: set[str]) -> list[str]:
    names: set[str] = set()
    for op in ops:
        for p in op.handler_params:
            names |= names_in(p.annotation, known)
        if op.body:
            names |= names_in(op.body.annotation, known)
        names |= names_in(op.success.annotation, known)
    return sorted(names & known)


def webhook_models(api: Api, known: set[str]) -> list[str]:
    hooks = [*api.webhooks, *(hook for op in api.operations for hook in op.callbacks)]
    return sorted({h.body.model for h in hooks if h.body and h.body.kind == "json"} & known)


def render_server(target: Target, api: Api, units: Units | None = None) -> dict[str, str]:
    """Every file of the API layer but models.py (datamodel-code-generator writes that); a
    tag's interface and router read back from `units` when their inputs did not change."""
    pkg = target.package
    units = units or Units(None)
    known = set(api.schemas)
    ctx = {
        **target.context(api),
        "handler_credentials": target.handler_credentials,
        # transport.pattern(): parameter patterns only Python's `re` compiles
        "python_patterns": any(p.python_pattern for op in api.operations for p in op.params),
    }
    files = {
        "pyproject.toml": target.render(
            "api/pyproject.toml.j2", **ctx, dependencies=target.dependencies
        ),
        f"{pkg}/py.typed": "",
        f"{pkg}/__init__.py": target.render("api/__init__.py.j2", **ctx),
        f"{pkg}/runtime.py": target.render("api/runtime.py.j2", **ctx),
        f"{pkg}/transport.py": target.render("api/transport.py.j2", **ctx),
        f"{pkg}/security.py": target.render("api/security.py.j2", **ctx),
        f"{pkg}/webhooks.py": target.render(
            "api/webhooks.py.j2", **ctx, models=webhook_models(api, known)
        ),
        f"{pkg}/constants.py": target.render(
            "api/constants.py.j2", **ctx, constants=constants(api)
        ),
        f"{pkg}/operations.py": target.render(
            "api/operations.py.j2", **ctx, operations=api.operations
        ),
        # strict contract mode (issue 12): declared statuses and error models per operation
        f"{pkg}/contract.py": target.render(
            "api/contract.py.j2",
            **ctx,
            operations=api.operations,
            enum_classes=api.enum_classes,
            enum_errors=any(
                r.model in api.enum_classes and not r.is_success
                for op in api.operations
                for r in op.responses
            ),
        ),
        f"{pkg}/interfaces/__init__.py": target.render(
            "api/interfaces/__init__.py.j2", **ctx, tags=api.tags
        ),
        # a running service for the spec (issue 25): app factory and declared error shapes
        f"{pkg}/app.py": target.render("api/app.py.j2", **ctx, tags=api.tags),
        f"{pkg}/errors.py": target.render("api/errors.py.j2", **ctx),
        f"{pkg}/routers/__init__.py": target.render(
            "api/routers/__init__.py.j2", **ctx, tags=api.tags
        ),
        f"{pkg}/openapi.json": units.document_json(api.document) + "\n",
    }
    scope = ""
    if units.enabled:  # the tag templates read `tag`, `models`, `header`, `handler_credentials`
        scope = units.scope_of("server", target.header, target.handler_credentials)
    for tag in api.tags:
        models = used_models(tag.operations, known)
        own = units.keys.digest(tag, models) if units.enabled else ""  # targets/unit_keys.py
        for kind, template in (
            ("interfaces", "api/interfaces/tag.py.j2"),
            ("routers", "api/routers/tag.py.j2"),
        ):
            files[f"{pkg}/{kind}/{tag.module}.py"] = units.text(
                f"server {kind}",
                unit_key(scope, kind, tag.module, own),
                partial(target.render, template, **ctx, tag=tag, models=models),
            )
    return files
