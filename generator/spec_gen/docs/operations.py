"""The reference page of each operation (badges, security, parameters, bodies, responses,
examples) and the site's overview."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.naming import module_name
from ..ir import Api, Operation, resolve_schema
from ..targets.client.auth import Scheme
from ..targets.client.resources import ClientOp
from ..targets.client.wire import body_media
from .markup import op_ref
from .model import (
    Badge,
    Block,
    DocsSettings,
    Guide,
    Heading,
    OperationDoc,
    Table,
    TagDoc,
    Text,
    client_error,
    status_text,
)
from .schemas import field_notes, field_tables, type_text
from .snippets import (
    example_blocks,
)


def uses_lifecycle(api: Api) -> bool:
    """The spec speaks of lifecycles (`x-lifecycle`, `x-feature-flag` on an operation): only
    then do the docs show each operation's, `active` where it says none. Asked once per
    operation: the last Api's answer is kept."""
    if _LIFECYCLE and _LIFECYCLE[0][0] is api:
        return _LIFECYCLE[0][1]
    found = any(
        "x-lifecycle" in op.extensions or "x-feature-flag" in op.extensions for op in api.operations
    )
    _LIFECYCLE[:] = [(api, found)]
    return found


_LIFECYCLE: list[tuple[Api, bool]] = []


def badges(api: Api, op: Operation) -> list[Badge]:
    out = []
    if op.tier:
        out.append(Badge(f"tier: {op.tier}", f"tier-{op.tier}"))
    if op.scope:
        out.append(Badge(f"scope: {op.scope}", "scope"))
    if uses_lifecycle(api):
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


def scheme_text(scheme: Scheme) -> str:
    """`ApiKey` (`Authorization: Bearer <token>`; client option `api_key`, `$ACME_API_KEY`)."""
    options = ", ".join(f"`{o}`" for o in scheme.options)
    envs = ", ".join(f"`${e}`" for e in scheme.envs)
    return f"`{scheme.name}` ({scheme.how}; client option{'s' if len(scheme.options) > 1 else ''} {options}, {envs})"


def auth_sentence(api: Api, op: Operation, settings: DocsSettings) -> str:
    """The operation's security as the client applies it: the first complete alternative."""
    if not op.security:
        return "Authentication: none."
    table = settings.schemes(api)
    alternatives = [
        " + ".join(scheme_text(table[name]) for name in option if name in table) or "none"
        for option in op.security
    ]
    return (
        f"Authentication: {' or '.join(alternatives)}. See [Authentication](guide:authentication)."
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


KIND_WORDS = {
    "json": "JSON",
    "form": "form fields (url-encoded)",
    "multipart": "multipart parts",
    "binary": "bytes",
    "text": "text",
}


def media_text(media: Sequence[Any]) -> str:
    """`application/json` (JSON) or `application/pdf` (bytes); file parts named."""
    parts = []
    for m in media:
        words = KIND_WORDS.get(m.kind, m.kind)
        files = [f.name for f in getattr(m, "fields", ()) if f.is_file]
        if files:
            words += "; files: " + ", ".join(f"`{name}`" for name in files)
        parts.append(f"`{m.content_type}` ({words})")
    return " or ".join(parts)


def body_blocks(api: Api, op: Operation) -> list[Block]:
    body = op.body
    if body is None:
        return []
    media = body_media(body)
    required = "required" if body.required else "optional"
    model = next((m.model for m in media if m.model), None)
    if model is None:
        about = " ".join((body.description or "").split())
        text = f"{media_text(media)}, {required}." + (f" {about}" if about else "")
        return [Heading("Request body"), Text(text)]
    ref = {"$ref": f"#/components/schemas/{model}"}
    schema = resolve_schema(api, ref)
    what = type_text(api, ref)
    if what != f"`{model}`":
        what = f"`{model}`, {what}"
    text = f"{media_text(media)}, {required}: {what}."
    tables = schema_blocks(api, ref, model)
    about = " ".join((body.description or str(schema.get("description") or "")).split())
    if about and (body.description or not tables):  # else the first table says it
        text += f" {about}{_provisional(schema)}"
    return [Heading("Request body"), Text(text), *tables]


def _response_body(r: Any) -> str:
    raw = [m for m in getattr(r, "media", ()) if m.kind != "json"]
    if r.model and not raw:
        return f"`{r.model}`"
    parts = [f"`{r.model}`"] if r.model else []
    return " or ".join(parts + [media_text([m]) for m in raw])


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
                _response_body(r),
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


def operation_doc(
    api: Api, op: Operation, view: ClientOp, settings: DocsSettings, anchor: str = ""
) -> OperationDoc:
    blocks: list[Block] = []
    if op.description.strip():
        blocks.append(Text(op.description.strip()))
    blocks.append(Text(auth_sentence(api, op, settings)))
    blocks += parameter_blocks(api, op)
    blocks += body_blocks(api, op)
    blocks += response_blocks(api, op)
    blocks += example_blocks(api, op, view, settings)
    return OperationDoc(op, module_name(op.tag), badges(api, op), blocks, anchor)


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
    # the columns of extensions the spec carries: tier, scope, lifecycle
    ops = [doc.op for tag in tags for doc in tag.operations]
    tiers, scopes, lifecycle = (
        any(o.tier for o in ops),
        any(o.scope for o in ops),
        uses_lifecycle(api),
    )
    columns: tuple[str, ...] = ("Method", "Path", "Operation")
    columns += ("Tier",) * tiers + ("Scope",) * scopes + ("Lifecycle",) * lifecycle
    rows = []
    for op in ops:
        marks = " *(provisional)*" if op.provisional else ""
        row: tuple[str, ...] = (
            op.method.upper(),
            f"`{op.full_path}`",
            f"[{op.summary or op.operation_id}]({op_ref(op.operation_id)}){marks}",
        )
        row += (op.tier or "",) * tiers + (op.scope or "",) * scopes
        if lifecycle:
            row += (op.lifecycle + (f" (`{op.feature_flag}`)" if op.feature_flag else ""),)
        rows.append(row)
    blocks.append(Table(columns, rows))
    return blocks
