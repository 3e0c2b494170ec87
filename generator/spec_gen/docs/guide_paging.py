"""The pagination guide."""

from __future__ import annotations

from typing import Any

from ..ir import Api, resolve_schema
from ..targets.client.examples import ExampleRequest, curl_command, example_request
from ..targets.client.resources import ClientOp
from .guide_common import (
    op_link,
    settings_table,
)
from .model import (
    Block,
    Code,
    DocsSettings,
    Guide,
    Heading,
    Table,
    Text,
)
from .operations import (
    schema_blocks,
)
from .snippets import (
    python_client_setup,
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
        blocks.append(settings_table(bounds))
    rows: list[tuple[str, ...]] = []
    for op in paged:
        params = [p for p in op.params if p.name in ("page", "limit", "offset")]
        about = ", ".join(f"`{p.name}` ({_range(api, p.schema)})" for p in params)
        rows.append((op_link(op), f"`{op.pagination}`", about))
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
