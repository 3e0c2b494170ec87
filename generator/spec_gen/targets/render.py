"""The Jinja2 environment every target renders with, and the filters the targets share (the
server's own filters: server_filters.py)."""

from __future__ import annotations

import json
import re
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.config import PACKAGED_TEMPLATES
from ..core.naming import module_name
from ..ir import MISSING, Operation, Param
from .literals import pyrepr
from .server_filters import (
    fastapi_body,
    fastapi_param,
    pytuple,
    read_body,
    requirement_table,
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
