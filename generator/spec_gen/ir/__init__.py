"""The typed intermediate representation every renderer reads.

Built from a bundled, validated OpenAPI 3.1 document. Nothing here knows about a
particular API: names come from the document, conventions from its x- extensions.

Inline request, response and parameter schemas that need a class (objects, enums,
unions, forms) are hoisted into named schemas (`<OperationId>Request`,
`<OperationId>Response`, `<OperationId><Param>`), so that every type a router,
interface or client method names is a model class, bound to its spec node by JSON
pointer (`Api.schema_pointers`).
"""

from __future__ import annotations

import re
from typing import Any

from ..document.openapi import SCHEMA_REF
from ..document.refs import deref
from .builder import HTTP_METHODS, Builder
from .model import (
    MISSING,
    Api,
    Body,
    FormField,
    Header,
    Media,
    Operation,
    Param,
    Requirement,
    Response,
    SecurityScheme,
    Server,
    Tag,
    WebhookOperation,
)

__all__ = [
    "HTTP_METHODS", "MISSING", "SCHEMA_REF", "Api", "Body", "FormField", "Header", "Media",
    "Operation", "Param", "Requirement", "Response", "SecurityScheme", "Server", "Tag",
    "WebhookOperation", "build_ir", "resolve_schema", "schema_ref_name",
]  # fmt: skip


_SPECIAL = re.compile(r"[~%/]")  # a name the pointer reading would change (or a deeper pointer)


def schema_ref_name(node: Any) -> str | None:
    """The class name a `{"$ref": "#/components/schemas/Name"}` node points at."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith(SCHEMA_REF):
        return ref[len(SCHEMA_REF) :].replace("~1", "/").replace("~0", "~")
    return None


def resolve_schema(api: Api, node: Any) -> dict[str, Any]:
    """A schema with its `$ref`s to component schemas followed; keys beside a `$ref` win."""
    # the docs ask this ~100,000 times on a large document: no ref, or a plain ref to a
    # class that is no ref itself, answered here (what `deref` answers)
    if isinstance(node, dict):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        name = ref[len(SCHEMA_REF) :]
        if len(node) == 1 and ref.startswith(SCHEMA_REF) and not _SPECIAL.search(name):
            found = api.schemas.get(name, {})
            if not (isinstance(found, dict) and isinstance(found.get("$ref"), str)):
                return found if isinstance(found, dict) else {}
    found = deref({"components": {"schemas": api.schemas}}, node, siblings="merge")
    return found if isinstance(found, dict) else {}


def build_ir(document: dict[str, Any]) -> Api:
    """The IR of a bundled OpenAPI 3.1 document."""
    return Builder(document).build()
