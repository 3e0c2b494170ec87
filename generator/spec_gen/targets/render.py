"""The Jinja2 environment every target renders with, and its filters."""

from __future__ import annotations

import json
import re
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.config import PACKAGED_TEMPLATES
from ..core.naming import module_name
from ..ir import MISSING, Body, Media, Operation, Param

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def pyrepr(value: Any) -> str:
    """A Python literal for a JSON-like value; dict order is kept, so output is stable."""
    if isinstance(value, tuple):
        return "(" + "".join(pyrepr(v) + ", " for v in value).rstrip(" ") + ")" if value else "()"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def pytuple(value: Any) -> str:
    return pyrepr(tuple(value))


def docline(text: str) -> str:
    return _doc_escape(" ".join(str(text).split())) or "No description."


def _doc_escape(text: str) -> str:
    """Text inside a docstring: backslashes and triple quotes escaped, and a quote that ends
    it (the docstring's closing quotes may follow: `keys.\"` + `\"\"\"` would close it early)."""
    body = text.rstrip('"')
    quotes = len(text) - len(body)
    return body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\\"' * quotes


def op_badges(op: Operation) -> str:
    parts = [f"Tier: {op.tier}" if op.tier else "", f"Scope: {op.scope}" if op.scope else ""]
    if "x-lifecycle" in op.extensions:
        parts.append(f"Lifecycle: {op.lifecycle}")
    if op.feature_flag:
        parts.append(f"Feature flag: {op.feature_flag}")
    if op.provisional:
        parts.append("Provisional")
    return " · ".join(p for p in parts if p)


def op_docstring(op: Operation, indent: int) -> str:
    """Summary, description and the operation's badges, as a docstring body."""
    pad = " " * indent
    lines = [docline(op.summary or op.operation_id), ""]
    lines.append(f"{op.method.upper()} {op.full_path}")
    if op_badges(op):
        lines.append(op_badges(op))
    if op.description.strip():
        lines.append("")
        for paragraph in op.description.strip().split("\n\n"):
            lines.extend(textwrap.wrap(_doc_escape(" ".join(paragraph.split())), 88) + [""])
        lines.pop()
    return ("\n" + pad).join(lines).rstrip() + "\n" + pad


def names_in(annotation: str, known: set[str]) -> set[str]:
    return {name for name in _IDENT.findall(annotation) if name in known}


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


def client_path(op: Operation) -> str:
    path = op.full_path
    for p in op.params:
        if p.location == "path":
            path = path.replace("{" + p.name + "}", "{path_param(" + p.py_name + ")}")
    return ('f"' if "{" in path else '"') + path + '"'


def tomlstr(text: Any) -> str:
    """A TOML basic string: JSON's escapes are TOML's (a title with quotes or backslashes
    would end the string early, and pip could not read the package's pyproject.toml)."""
    return json.dumps(str(text), ensure_ascii=False)


# PEP 440's public version, as `packaging` spells it (canonical and the usual alternatives)
_PEP440 = re.compile(
    r"v?(\d+!)?\d+(\.\d+)*((a|b|rc|alpha|beta|c|pre|preview)[-_.]?\d*)?"
    r"([-_.]?(post|rev|r)[-_.]?\d*|-\d+)?([-_.]?dev[-_.]?\d*)?(\+[a-z0-9]+([-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)


def pep440(version: Any) -> str:
    """A distribution version pip accepts from the API's `info.version`: kept when it is one,
    else its leading release numbers with the rest as a local label (`1.0.27-SNAPSHOT` ->
    `1.0.27+snapshot`, `beta` -> `0+beta`)."""
    text = str(version).strip()
    if _PEP440.fullmatch(text):
        return text
    found = re.match(r"v?(\d+(?:\.\d+)*)(.*)", text, re.IGNORECASE)
    release, rest = (found.group(1), found.group(2)) if found else ("0", text)
    label = ".".join(re.findall(r"[a-z0-9]+", rest.lower()))
    return f"{release}+{label}" if label else release


def docline_safe(text: str) -> str:
    """Text inside a docstring: backslashes and triple quotes escaped."""
    return _doc_escape(str(text))


def builtin_types(annotation: str) -> str:
    """Builtin generics spelled through `builtins`: a method named `list` must not shadow them."""
    return re.sub(r"\b(list|dict|set)\[", r"builtins.\1[", annotation)


def default_text(p: Param) -> str:
    return "" if p.default is MISSING else f"`{p.default!r}`"


def md(text: Any) -> str:
    """Text for a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _bytecode_cache() -> Any:
    """Compiled templates kept per user, as Python keeps .pyc files (checked against each
    template's source, so an edited template is recompiled): compiling is most of a small
    build's rendering time. None (no cache) where the directory cannot be made."""
    import os

    from jinja2 import FileSystemBytecodeCache

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = base / "spec-gen" / "jinja"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return FileSystemBytecodeCache(str(directory))


@lru_cache(maxsize=8)
def environment(templates: Path) -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(
        # the project's own directory first, file by file, then the templates spec-gen ships
        loader=FileSystemLoader(list(dict.fromkeys([str(templates), str(PACKAGED_TEMPLATES)]))),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # HTML templates escape every value (markupsafe.Markup passes through); the rest are code
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        bytecode_cache=_bytecode_cache(),
    )
    env.filters.update(
        pyrepr=pyrepr,
        pytuple=pytuple,
        docline=docline,
        op_docstring=op_docstring,
        op_badges=op_badges,
        fastapi_param=fastapi_param,
        fastapi_body=fastapi_body,
        requirement_table=requirement_table,
        read_body=read_body,
        md=md,
        default_text=default_text,
        module=module_name,
        client_path=client_path,
        builtin_types=builtin_types,
        docline_safe=docline_safe,
        pep440=pep440,
        tomlstr=tomlstr,
    )
    return env


def render(templates: Path, name: str, **context: Any) -> str:
    return str(environment(templates).get_template(name).render(**context))
