"""The Jinja filters only the server's templates (templates/api) use: FastAPI parameters and
bodies, how a body is read per media type, the security requirements table, typed default
literals."""

from __future__ import annotations

import re
from typing import Any

from ..ir import MISSING, Body, Media, Operation, Param
from .literals import pyrepr


def pytuple(value: Any) -> str:
    return pyrepr(tuple(value))


def fastapi_param(p: Param) -> str:
    if not p.native:
        return decoded_param(p)
    kind = {"path": "Path", "query": "Query", "header": "Header", "cookie": "Cookie"}[p.location]
    args = []
    if p.location in ("header", "cookie") or p.py_name != p.route_key:
        args.append(f"alias={p.route_key!r}")
    args.extend(f"{k}={pyrepr(v)}" for k, v in p.constraints.items())
    checks = f", transport.pattern({pyrepr(p.python_pattern)})" if p.python_pattern else ""
    annotated = f"Annotated[{p.full_annotation}, {kind}({', '.join(args)}){checks}]"
    if p.location == "path" or (p.required and p.default is MISSING):
        return annotated
    return f"{annotated} = {default_literal(p)}"


def decoded_param(p: Param) -> str:
    """A parameter the generated `transport` module reads (styles FastAPI does not know)."""
    args = [
        repr(p.route_key),
        repr(p.location),
        f"TypeAdapter({p.annotation})",
        f"style={p.style!r}",
        f"explode={p.explode!r}",
        f"shape={p.shape!r}",
    ]
    if p.properties:
        args.append(f"properties={pytuple(p.properties)}")
    if p.required and p.default is MISSING:
        args.append("required=True")
    elif p.default is not MISSING and p.default is not None:
        args.append(f"default=TypeAdapter({p.annotation}).validate_python({pyrepr(p.default)})")
    return f"Annotated[{p.full_annotation}, Depends(transport.parameter({', '.join(args)}))]"


def requirement_table(op: Operation) -> str:
    """An operation's security alternatives as ((scheme, scopes), ...) tuples."""
    return pyrepr(
        tuple(
            tuple((name, tuple(r.scopes.get(name, ()))) for name in r.schemes)
            for r in op.requirements
        )
    )


def read_body(body: Body, indent: int) -> str:
    """Statements reading a body that is not one JSON document into `body`."""
    pad = " " * indent
    lines = [f"{pad}body: {body.annotation}{'' if body.required else ' | None'}"]
    readers = [(m, _reader(m)) for m in body.media]
    if len(readers) > 1:
        lines.append(f"{pad}content_type = transport.media_type(request)")
    if not body.required:
        lines += [f"{pad}if not await transport.has_body(request):", f"{pad}    body = None"]
        first = "elif"
    else:
        first = "if"
    if len(readers) == 1:
        media = body.media[0].content_type if body.media else "*/*"
        if media.split(";")[0].strip().lower() not in ("*/*", "application/octet-stream"):
            # a body sent as another media type (a form as text/plain) is 415, not read
            check = [
                f"{pad}if transport.media_type(request) and not transport.matches(",
                f"{pad}    transport.media_type(request), {media!r}",
                f"{pad}):",
                f"{pad}    raise transport.unsupported(transport.media_type(request), {(media,)!r})",
            ]
            lines = [lines[0], *check, *lines[1:]]
        if body.required:
            return "\n".join([*lines[1:], f"{pad}body = {readers[0][1]}"])
        lines += [f"{pad}else:", f"{pad}    body = {readers[0][1]}"]
        return "\n".join(lines)
    for n, (m, reader) in enumerate(readers):
        keyword = first if n == 0 else "elif"
        lines += [
            f"{pad}{keyword} transport.matches(content_type, {m.content_type!r}):",
            f"{pad}    body = {reader}",
        ]
    accepted = pytuple(m.content_type for m in body.media)
    lines += [f"{pad}else:", f"{pad}    raise transport.unsupported(content_type, {accepted})"]
    return "\n".join(lines)


def _reader(m: Media) -> str:
    if m.kind == "json":
        return f"await transport.read_json(request, TypeAdapter({m.annotation}))"
    if m.kind in ("form", "multipart"):
        lists = pytuple(f.name for f in m.fields if f.is_list)
        json_fields = pytuple(f.name for f in m.fields if f.is_json)
        deep = [f.name for f in m.fields if f.is_deep]
        deep_fields = f", deep_fields={pytuple(deep)}" if deep else ""
        return (
            f"await transport.read_form(request, {m.model}, lists={lists}, "
            f"json_fields={json_fields}{deep_fields})"
        )
    return (
        "await transport.read_bytes(request)"
        if m.kind == "binary"
        else "await transport.read_text(request)"
    )


def default_literal(p: Param) -> str:
    if p.default is MISSING or p.default is None:
        return "None"
    return typed_literal(p.annotation, p.default)


def typed_literal(annotation: str, value: Any) -> str:
    """A literal of `annotation`: enum members built from their value, lists item by item."""
    inner = re.fullmatch(r"list\[(.+)\]", annotation)
    if inner and isinstance(value, list):
        return "[" + ", ".join(typed_literal(inner.group(1), v) for v in value) + "]"
    if annotation[:1].isupper() and not isinstance(value, (list, dict)):
        return f"{annotation}({pyrepr(value)})"
    return pyrepr(value)


def fastapi_body(body: Any) -> str:
    if body.required:
        return f"Annotated[{body.model}, Body()]"
    return f"Annotated[{body.model} | None, Body()] = None"
