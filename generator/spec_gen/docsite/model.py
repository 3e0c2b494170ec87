"""The docs model: pages of blocks built from the IR, shared by the Markdown and HTML outputs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, ClassVar

from ..examples import (
    ExampleRequest,
    credential_env,
    curl_command,
    example_request,
    literal,
    response_example,
    token_env,
)
from ..ir import MISSING, Api, Operation, resolve_schema
from ..naming import module_name
from ..targets.client import ClientOp, status_errors
from .schemas import field_notes, field_tables, type_text

SERVER_ERROR_CLASS = "InternalServerError"  # the client's class for every 5xx (client/errors.py.j2)


# -- blocks ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """Paragraphs of inline Markdown (see markup.py)."""

    text: str
    kind: ClassVar[str] = "text"


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a page, an operation or a guide."""

    text: str
    anchor: str = ""
    kind: ClassVar[str] = "heading"


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]  # cells in inline Markdown
    caption: str = ""
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class Code:
    """A code block. `run` marks an example the docs tests execute: "curl" or "python"."""

    language: str
    code: str
    label: str = ""
    run: str = ""
    operation_id: str = ""  # the operation it calls, when it calls one
    kind: ClassVar[str] = "code"


Block = Text | Heading | Table | Code


@dataclass(frozen=True)
class Badge:
    text: str  # inline Markdown
    style: str  # a CSS class suffix: tier, scope, lifecycle, preview, flag, provisional, ...


@dataclass
class OperationDoc:
    op: Operation
    tag_module: str
    badges: list[Badge]
    blocks: list[Block]

    @property
    def anchor(self) -> str:
        return self.op.operation_id

    @property
    def search(self) -> str:
        """What the HTML page's search box matches: path, summary and operationId."""
        op = self.op
        return f"{op.method} {op.full_path} {op.summary} {op.operation_id}".lower()

    @property
    def examples(self) -> list[Code]:
        return [b for b in self.blocks if isinstance(b, Code) and b.run]


@dataclass
class TagDoc:
    name: str
    module: str
    description: str
    operations: list[OperationDoc]

    @property
    def anchor(self) -> str:
        return f"tag-{self.module}"


@dataclass
class Guide:
    slug: str
    title: str
    summary: str  # one line, for the index
    blocks: list[Block]

    @property
    def anchor(self) -> str:
        return f"guide-{self.slug}"


@dataclass(frozen=True)
class DocsSettings:
    """What the examples need beyond the spec."""

    client_package: str  # the generated client's import name
    api_key_env: str  # the environment variable examples read the API key from
    origin: str = "http://127.0.0.1:8000"  # where the examples send their requests

    def base_url(self, api: Api) -> str:
        return self.origin.rstrip("/") + api.default_prefix


@dataclass
class Site:
    title: str
    version: str
    description: str
    overview: list[Block]
    guides: list[Guide]
    tags: list[TagDoc]
    settings: DocsSettings
    api: Api = field(repr=False)
    views: dict[str, ClientOp] = field(repr=False, default_factory=dict)

    @property
    def operations(self) -> list[OperationDoc]:
        return [op for tag in self.tags for op in tag.operations]

    def examples(self) -> list[Code]:
        """Every executable example, in page order: guides first, then tags."""
        out = [b for g in self.guides for b in g.blocks if isinstance(b, Code) and b.run]
        return out + [c for op in self.operations for c in op.examples]


# -- operations --------------------------------------------------------------------------------


def status_text(status: str) -> str:
    try:
        return f"{status} {HTTPStatus(int(status)).phrase}"
    except ValueError:
        return status


def client_error(api: Api, status: str) -> str:
    """The client's exception for an error status ('' for successes)."""
    if not status.isdigit() or int(status) < 400:
        return ""
    if int(status) >= 500:
        return SERVER_ERROR_CLASS
    return dict(status_errors(api)).get(int(status), "")


def badges(op: Operation) -> list[Badge]:
    out = []
    if op.tier:
        out.append(Badge(f"tier: {op.tier}", f"tier-{op.tier}"))
    if op.scope:
        out.append(Badge(f"scope: {op.scope}", "scope"))
    out.append(Badge(f"lifecycle: {op.lifecycle}", f"lifecycle-{op.lifecycle}"))
    if op.feature_flag:
        out.append(Badge(f"feature flag: {op.feature_flag}", "flag"))
    if op.provisional:
        out.append(Badge("provisional", "provisional"))
    if op.deprecated:
        out.append(Badge("deprecated", "deprecated"))
    if not op.security:
        out.append(Badge("no authentication", "noauth"))
    return out


def auth_sentence(api: Api, op: Operation) -> str:
    if not op.security:
        return "Authentication: none."
    alternatives = [" + ".join(f"`{name}`" for name in option) for option in op.security]
    default = op.security == api.default_security
    note = "the API key" if default else "this operation's own credential"
    return (
        f"Authentication: {' or '.join(alternatives)} ({note}; see "
        "[Authentication](guide:authentication))."
    )


def _provisional(node: dict[str, Any]) -> str:
    return " *(provisional)*" if node.get("x-provisional") else ""


def parameter_blocks(api: Api, op: Operation) -> list[Block]:
    if not op.params:
        return []
    rows = []
    for p in op.params:
        text = " ".join(filter(None, [" ".join(p.description.split()), field_notes(api, p.schema)]))
        rows.append(
            (
                f"`{p.name}`",
                p.location,
                type_text(api, p.schema),
                "yes" if p.required else "no",
                text + _provisional({**p.schema, **p.extensions}),
            )
        )
    return [Heading("Parameters"), Table(("Name", "In", "Type", "Required", "Description"), rows)]


def schema_blocks(api: Api, schema: Any, model: str) -> list[Block]:
    out: list[Block] = []
    for table in field_tables(api, schema, model):
        if table.description:
            out.append(Text(f"**`{table.title}`**: {table.description}"))
        caption = "" if table.description else f"`{table.title}`"
        out.append(Table(("Field", "Type", "Required", "Description"), table.rows, caption))
        if table.open_keys:
            out.append(Text(f"`{table.title}` also takes other keys (values: {table.open_keys})."))
    return out


def body_blocks(api: Api, op: Operation) -> list[Block]:
    body = op.body
    if body is None:
        return []
    ref = {"$ref": f"#/components/schemas/{body.model}"}
    schema = resolve_schema(api, ref)
    what = type_text(api, ref)
    if what != f"`{body.model}`":
        what = f"`{body.model}`, {what}"
    text = f"`{body.content_type}`, {'required' if body.required else 'optional'}: {what}."
    tables = schema_blocks(api, ref, body.model)
    about = " ".join((body.description or str(schema.get("description") or "")).split())
    if about and (body.description or not tables):  # else the first table says it
        text += f" {about}{_provisional(schema)}"
    return [Heading("Request body"), Text(text), *tables]


def response_blocks(api: Api, op: Operation) -> list[Block]:
    rows = []
    for r in op.responses:
        meaning = " ".join(r.description.split())
        if r.component:  # a shared response: its first sentence here, the rest in the guide
            meaning = meaning.split(". ")[0].rstrip(".") + "."
        meaning += _provisional(r.extensions)
        if r.headers:
            meaning += " Headers: " + ", ".join(f"`{h.name}`" for h in r.headers) + "."
        raises = client_error(api, r.status)
        rows.append(
            (
                f"`{status_text(r.status)}`",
                meaning,
                f"`{r.model}`" if r.model else "",
                f"`{raises}`" if raises else "",
            )
        )
    out: list[Block] = [
        Heading("Responses"),
        Table(("Status", "Meaning", "Body", "Client raises"), rows),
    ]
    if any(not r.is_success for r in op.responses):
        out.append(Text("Error bodies and the client's exceptions: [Errors](guide:errors)."))
    success = op.success
    if success.model:
        ref = {"$ref": f"#/components/schemas/{success.model}"}
        out.append(Heading(f"Response body ({status_text(success.status)})"))
        what = type_text(api, ref)
        if what != f"`{success.model}`":
            out.append(Text(f"`{success.content_type}`: {what}."))
        out.extend(schema_blocks(api, ref, success.model))
    return out


def call_expression(op: Operation, arguments: list[str]) -> str:
    """`client.<namespace>.<method>(arguments)`, one argument a line when long."""
    call = f"client.{'.'.join(op.client_namespace)}.{op.client_method}"
    one_line = f"{call}({', '.join(arguments)})"
    if arguments and (len(one_line) > 80 or "\n" in one_line):
        return call + "(\n" + "".join(f"    {a},\n" for a in arguments) + ")"
    return one_line


def py_literal(value: Any, indent: int = 0) -> str:
    """A Python literal for a JSON value, strings in double quotes (as ruff would format them)."""
    return literal(value, python=True, indent=indent)


def python_call(op: Operation, view: ClientOp, arguments: list[str]) -> str:
    """The statements calling the operation and printing what it answers."""
    one_line = call_expression(op, arguments)
    if view.page:
        return f"for item in {one_line}:\n    print(item)"
    if view.returns == "None":
        return one_line
    return f"result = {one_line}\nprint(result)"


def python_client_setup(api: Api, settings: DocsSettings) -> str:
    return (
        "import os\n\n"
        f"from {settings.client_package} import Client\n\n"
        f'client = Client(api_key=os.environ["{settings.api_key_env}"], '
        f'base_url="{settings.base_url(api)}")\n'
    )


def python_example(
    api: Api, example: ExampleRequest, view: ClientOp, settings: DocsSettings
) -> str:
    op = example.op
    arguments = [f"{p.py_name}={py_literal(value, 4)}" for p, value in example.arguments]
    if view.token_param and op.security:
        arguments.append(f'{view.token_param}=os.environ["{token_env(op.security[0][0])}"]')
    if example.body is not MISSING:
        arguments.append(f"body={py_literal(example.body, 4)}")
    return python_client_setup(api, settings) + "\n" + python_call(op, view, arguments) + "\n"


def example_blocks(api: Api, op: Operation, view: ClientOp, settings: DocsSettings) -> list[Block]:
    example = example_request(api, op)
    out: list[Block] = [Heading("Example request")]
    env = credential_env(api, op, settings.api_key_env)
    if env is not None and env != settings.api_key_env:
        out.append(Text(f"The examples read this operation's credential from `${env}`."))
    out.append(
        Code(
            "sh",
            curl_command(api, example, settings.origin, settings.api_key_env),
            "curl",
            "curl",
            op.operation_id,
        )
    )
    out.append(
        Code(
            "python",
            python_example(api, example, view, settings),
            "Python",
            "python",
            op.operation_id,
        )
    )
    success = op.success
    value = response_example(api, op)
    out.append(Heading("Example response"))
    if value is None:
        out.append(Text(f"`{status_text(success.status)}`, no body."))
    else:
        body = json.dumps(value, indent=2, ensure_ascii=False)
        out.append(Code("json", body, status_text(success.status)))
    return out


def operation_doc(api: Api, op: Operation, view: ClientOp, settings: DocsSettings) -> OperationDoc:
    blocks: list[Block] = []
    if op.description.strip():
        blocks.append(Text(op.description.strip()))
    blocks.append(Text(auth_sentence(api, op)))
    blocks += parameter_blocks(api, op)
    blocks += body_blocks(api, op)
    blocks += response_blocks(api, op)
    blocks += example_blocks(api, op, view, settings)
    return OperationDoc(op, module_name(op.tag), badges(op), blocks)


# -- the site ----------------------------------------------------------------------------------


def overview(api: Api, guides: list[Guide], tags: list[TagDoc]) -> list[Block]:
    blocks: list[Block] = [Heading("Guides", "guides")]
    blocks.append(
        Table(
            ("Guide", "What it covers"),
            [(f"[{g.title}](guide:{g.slug})", g.summary) for g in guides],
        )
    )
    blocks.append(Heading("Operations by tag", "tags"))
    blocks.append(
        Table(
            ("Tag", "Operations", "Description"),
            [(f"[{t.name}](tag:{t.module})", str(len(t.operations)), t.description) for t in tags],
        )
    )
    blocks.append(Heading("All operations", "operations"))
    rows = []
    for tag in tags:
        for doc in tag.operations:
            op = doc.op
            marks = " *(provisional)*" if op.provisional else ""
            rows.append(
                (
                    op.method.upper(),
                    f"`{op.full_path}`",
                    f"[{op.summary or op.operation_id}](op:{op.operation_id}){marks}",
                    op.tier or "",
                    op.scope or "",
                    op.lifecycle + (f" (`{op.feature_flag}`)" if op.feature_flag else ""),
                )
            )
    blocks.append(Table(("Method", "Path", "Operation", "Tier", "Scope", "Lifecycle"), rows))
    return blocks
