"""Guides on refusals: errors and rate limits."""

from __future__ import annotations

import json
from typing import Any

from ..ir import MISSING, Api, Operation
from ..targets.client.examples import example_request
from ..targets.client.facts import status_docs
from ..targets.client.resources import ClientOp
from .guide_common import (
    first_operation,
    ops_text,
    plain_read,
)
from .model import (
    Block,
    Code,
    DocsSettings,
    Guide,
    Heading,
    Table,
    Text,
    client_error,
    status_text,
)
from .operations import (
    schema_blocks,
)
from .snippets import (
    call_expression,
    py_literal,
    python_call,
    python_client_setup,
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
    counted: set[tuple[str, int]] = set()  # (status, id(operation)): no `==` over dataclasses
    for op, r in responses:
        counts.setdefault(r.status, [])
        if (r.status, id(op)) not in counted:
            counted.add((r.status, id(op)))
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
                ops_text(counts[status], len(api.operations)),
            )
        )
    blocks.append(Table(("Status", "When", "Client raises", "Returned by"), rows))
    target = first_operation(
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
    first = first_operation(api, plain_read(api))
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
