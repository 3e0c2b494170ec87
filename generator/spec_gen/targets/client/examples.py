"""Example values generated from schemas, for the docs and the client's README.

An explicit `example` / `examples` / `default` / `const` / first `enum` value wins; otherwise a
value of the right type and format is made up (deterministically, so output stays stable).
Only required properties are filled in request examples, all properties in response ones.
A parameter's or media type's own `example` (OpenAPI's, next to `schema`) wins over its schema.

`example_request` picks what an example call of an operation sends: every required
parameter, and the optional ones whose example the spec gives explicitly (a made-up value
for an optional filter would only narrow the answer). `curl_command` spells it for a shell.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ...ir import MISSING, Api, Operation, Param, resolve_schema, schema_ref_name
from . import wire as client_wire
from .auth import Scheme, operation_schemes, schemes

FORMATS: dict[str, Any] = {
    "email": "ada@example.com",
    "uri": "https://example.com/hooks/receiver",
    "url": "https://example.com/hooks/receiver",
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "uuid": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
}


def example_value(
    api: Api,
    schema: Any,
    *,
    required_only: bool,
    depth: int = 0,
    within: frozenset[str] = frozenset(),
) -> Any:
    """`within`: the component schemas this value is already being made from through
    oneOf/anyOf/allOf (a union of subclasses whose members extend it with allOf, as in
    `Key: oneOf [KeyEC, KeyRsa]`, `KeyEC: allOf [Key]`); a member leading back to one of
    them is passed over, as properties and items are cut off by `depth`."""
    name = schema_ref_name(schema)
    schema = resolve_schema(api, schema)
    if not isinstance(schema, dict):
        return None
    for key in ("example", "const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if schema.get("enum"):
        return schema["enum"][0]
    inner = within | {name} if name else within
    for combinator in ("oneOf", "anyOf", "allOf"):
        options = [
            o
            for o in schema.get(combinator) or []
            if resolve_schema(api, o).get("type") != "null" and schema_ref_name(o) not in inner
        ]
        if options:
            if combinator == "allOf":
                merged: dict[str, Any] = {}
                for option in options:
                    value = example_value(
                        api, option, required_only=required_only, depth=depth, within=inner
                    )
                    if isinstance(value, dict):
                        merged.update(value)
                return merged
            return example_value(
                api, options[0], required_only=required_only, depth=depth, within=inner
            )
    types = schema.get("type")
    kind = next((t for t in (types if isinstance(types, list) else [types]) if t != "null"), None)
    if kind is None and "properties" in schema:
        kind = "object"
    if kind == "object":
        if depth > 4:
            return {}
        required = set(schema.get("required") or [])
        return {
            name: example_value(api, prop, required_only=required_only, depth=depth + 1)
            for name, prop in (schema.get("properties") or {}).items()
            if name in required or not required_only
        }
    if kind == "array":
        if depth > 4:
            return []
        return [
            example_value(
                api, schema.get("items") or {}, required_only=required_only, depth=depth + 1
            )
        ]
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    if kind == "string":
        return FORMATS.get(str(schema.get("format")), "string")
    return None


def param_example(api: Api, p: Param) -> Any:
    if p.example is not MISSING:
        return p.example
    return example_value(api, p.schema, required_only=True)


def request_example(api: Api, op: Operation) -> Any:
    if op.body is None:
        return None
    if op.body.example is not MISSING:
        return op.body.example
    return example_value(api, op.body.schema, required_only=True)


def response_example(api: Api, op: Operation) -> Any:
    success = op.success
    if success.example is not MISSING:
        return success.example
    if success.model is None:
        return None
    return example_value(
        api, {"$ref": f"#/components/schemas/{success.model}"}, required_only=False
    )


def has_explicit_example(api: Api, p: Param) -> bool:
    """The spec gives this parameter's example itself (not a default or a made-up value)."""
    schema = resolve_schema(api, p.schema)
    return p.example is not MISSING or (
        isinstance(schema, dict) and ("example" in schema or bool(schema.get("examples")))
    )


@dataclass(frozen=True)
class ExampleRequest:
    """What an example call of one operation sends."""

    op: Operation
    arguments: list[tuple[Param, Any]]  # path, query and header parameters, in spec order
    body: Any  # MISSING when no body is sent

    @property
    def path(self) -> str:
        """The full path with the path parameters filled in (percent-encoded)."""
        path = self.op.full_path
        for p, value in self.arguments:
            if p.location == "path":
                path = path.replace("{" + p.name + "}", quote(_wire(value), safe=""))
        return path

    @property
    def query(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for p, value in self.arguments:
            if p.location == "query":
                values = value if isinstance(value, list) else [value]
                out.extend((p.name, _wire(v)) for v in values)
        return out

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [(p.name, _wire(v)) for p, v in self.arguments if p.location == "header"]

    def url(self, origin: str) -> str:
        query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in self.query)
        return origin.rstrip("/") + self.path + (f"?{query}" if query else "")


def example_request(api: Api, op: Operation) -> ExampleRequest:
    arguments = [
        (p, param_example(api, p))
        for p in op.params
        if not p.in_context
        and p.location in ("path", "query", "header")
        and (p.required or has_explicit_example(api, p))
    ]
    body: Any = MISSING
    if op.body is not None and (op.body.required or op.body.example is not MISSING):
        body = request_example(api, op)
    return ExampleRequest(op, arguments, body)


def literal(value: Any, *, python: bool = False, indent: int = 0, width: int = 76) -> str:
    """A JSON value as JSON (or as a Python literal), broken over lines when too long.

    Continuation lines are indented for a literal that starts `indent` columns in.
    """
    flat = _flat(value, python)
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) <= width:
        return flat
    inner = indent + (4 if python else 2)
    if isinstance(value, dict):
        items = [
            f"{_flat(str(k), python)}: {literal(v, python=python, indent=inner, width=width)}"
            for k, v in value.items()
        ]
        opening, closing = "{", "}"
    else:
        items = [literal(v, python=python, indent=inner, width=width) for v in value]
        opening, closing = "[", "]"
    lines = ",\n".join(" " * inner + item for item in items)
    return f"{opening}\n{lines}{',' if python else ''}\n{' ' * indent}{closing}"


def _flat(value: Any, python: bool) -> str:
    if not python:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        inner = ", ".join(f"{_flat(str(k), True)}: {_flat(v, True)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v, True) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # double quotes, as ruff formats them
    return repr(value)


def _wire(value: Any) -> str:
    """A parameter value as sent: booleans lowercase, objects as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def op_credentials(api: Api, op: Operation, env_prefix: str) -> list[Scheme]:
    """The schemes an example of the operation authenticates with: the first non-empty
    alternative of its security, as the client picks it when every credential is set."""
    table = schemes(api, env_prefix)
    for alternative in operation_schemes(op, table):
        if alternative:
            return alternative
    return []


def curl_auth(scheme: Scheme) -> str:
    """The curl option sending one scheme's credential, its value naming environment variables."""
    envs = [f"${env}" for env in scheme.envs]
    if scheme.kind == "basic":
        return f'-u "{envs[0]}:{envs[1]}"'
    if scheme.kind == "bearer":
        return f'-H "Authorization: Bearer {envs[0]}"'
    if scheme.kind == "query":
        return f'--url-query "{scheme.wire_name}={envs[0]}"'
    if scheme.kind == "cookie":
        return f'--cookie "{scheme.wire_name}={envs[0]}"'
    return f'-H "{scheme.wire_name}: {envs[0]}"'


def curl_command(api: Api, example: ExampleRequest, origin: str, env_prefix: str) -> str:
    """A curl command sending the example request (credentials from environment variables)."""
    op = example.op
    first = ["curl", "-s"]
    if op.method != "get":
        first += ["-X", op.method.upper()]
    lines = [" ".join(first + [shlex.quote(example.url(origin))])]
    for scheme in op_credentials(api, op, env_prefix):
        lines.append(curl_auth(scheme))
    for name, value in example.headers:
        lines.append("-H " + shlex.quote(f"{name}: {value}"))
    if example.body is not MISSING and op.body is not None:
        lines += curl_body(op, example.body)
    if client_wire.raw_result(op.success) is not None and client_wire.response_kind(op.success) in (
        "binary",
        "mixed",
    ):
        lines.append("-o answer.bin")
    return " \\\n  ".join(lines)


def curl_body(op: Operation, value: Any) -> list[str]:
    """The curl options sending a body in its (first) media type."""
    media = client_wire.body_media(op.body)[0]
    if media.kind == "multipart":
        files = {f.name for f in media.fields if f.is_file}
        fields = value.items() if isinstance(value, dict) else []
        return [
            "-F " + shlex.quote(f"{k}=@{k}.bin" if k in files else f"{k}={_wire(v)}")
            for k, v in fields
        ]
    if media.kind == "form":
        fields = value.items() if isinstance(value, dict) else []
        return ["--data-urlencode " + shlex.quote(f"{k}={_wire(v)}") for k, v in fields]
    out = ["-H " + shlex.quote(f"Content-Type: {media.content_type}")]
    if media.kind == "binary":
        return out + ["--data-binary @body.bin"]
    if media.kind == "text":
        return out + ["--data-binary " + shlex.quote(_wire(value))]
    return out + ["-d " + shlex.quote(literal(value, indent=2))]


def python_body(op: Operation, value: Any) -> str | None:
    """The `body=` value of a Python example when it is not the JSON literal (None): files
    read as bytes for binary media."""
    media = client_wire.body_media(op.body)[0] if op.body else None
    if media is not None and media.kind == "binary":
        return 'open("body.bin", "rb").read()'
    if media is not None and media.kind == "text":
        return json.dumps(_wire(value), ensure_ascii=False)
    files = {f.name for f in media.fields if f.is_file} if media is not None else set()
    if files and isinstance(value, dict):
        items = [
            f'"{k}": open("{k}.bin", "rb").read()'
            if k in files
            else f'"{k}": {literal(v, python=True)}'
            for k, v in value.items()
        ]
        return "{" + ", ".join(items) + "}"
    return None
