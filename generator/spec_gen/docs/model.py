"""The docs model: blocks (paragraphs, tables, code), pages and settings, shared by the Markdown
and HTML outputs. What fills them is made in `operations`, `snippets` and the guide modules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import ClassVar

from ..ir import Api, Operation
from ..targets.client.auth import Scheme, primary_scheme, schemes
from ..targets.client.facts import status_errors
from ..targets.client.resources import ClientOp

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
    anchor: str = ""  # its id in the pages (markup.op_anchors); the operationId when empty

    def __post_init__(self) -> None:
        self.anchor = self.anchor or self.op.operation_id

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
    env_prefix: str  # the client's credential variables are <env_prefix><OPTION> (ACME_API_KEY)
    origin: str = "http://127.0.0.1:8000"  # where the examples send their requests
    # the TypeScript client's package name when the `typescript` target is on ("" = off)
    typescript_package: str = ""

    def schemes(self, api: Api) -> dict[str, Scheme]:
        return schemes(api, self.env_prefix)

    def primary(self, api: Api) -> Scheme | None:
        """The scheme of the spec's default security: the credential most examples read."""
        return primary_scheme(api, self.schemes(api))

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
