"""What the guide pages share: links to operations, settings tables, a first example call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..ir import Api, Operation
from ..targets.client.examples import curl_command, example_request
from ..targets.client.resources import ClientOp
from .markup import op_ref
from .model import (
    Code,
    DocsSettings,
    Guide,
    Table,
)
from .snippets import (
    python_example,
)

GuideMaker = Callable[[Api, DocsSettings, dict[str, ClientOp]], Guide | None]


def op_link(op: Operation) -> str:
    return f"[`{op.method.upper()} {op.full_path}`]({op_ref(op.operation_id)})"


def ops_text(ops: list[Operation], total: int) -> str:
    if len(ops) == total:
        return "every operation"
    if len(ops) > 6:
        return f"{len(ops)} operations"
    return ", ".join(op_link(op) for op in ops)


def key_words(key: str) -> str:
    return key.replace("_", " ").replace("-", " ")


def value_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(f"`{v}`" for v in value)
    return f"`{json.dumps(value) if isinstance(value, bool) else value}`"


def settings_table(node: dict[str, Any]) -> Table:
    rows: list[tuple[str, ...]] = [
        (key_words(str(k)), value_text(v))
        for k, v in node.items()
        if not str(k).startswith("x-") and not isinstance(v, dict)
    ]
    return Table(("Setting", "Value"), rows)


def first_operation(api: Api, test: Callable[[Operation], bool]) -> Operation | None:
    return next((op for op in api.operations if test(op)), None)


def plain_read(api: Api) -> Callable[[Operation], bool]:
    """A GET with the default security and no required parameter: a safe first call."""
    return lambda op: (
        op.method == "get"
        and bool(op.security)
        and op.security == api.default_security
        and not any(p.required for p in op.params)
    )


def curl_code(api: Api, op: Operation, settings: DocsSettings) -> Code:
    command = curl_command(api, example_request(api, op), settings.origin, settings.env_prefix)
    return Code("sh", command, "curl", "curl", op.operation_id)


def python_code(
    api: Api, op: Operation, views: dict[str, ClientOp], settings: DocsSettings
) -> Code:
    code = python_example(api, example_request(api, op), views[op.operation_id], settings)
    return Code("python", code, "Python", "python", op.operation_id)
