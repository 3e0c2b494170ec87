"""How a client method puts its arguments on the wire and reads the answer, as code text for
client/resource.py.j2: parameter styles, body media types, non-JSON responses.

The generated resource modules import the runtime as `_wire` (never shadowed: argument names
are snake_case words, which never start with an underscore).
"""

from __future__ import annotations

from typing import Any

from ...core.naming import snake, unique
from ...ir import Operation, Param
from ...ir.media import stream_kind
from ...ir.model import Body, Media, Response

DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


def _style(p: Param) -> tuple[str, bool]:
    style = str(getattr(p, "style", "") or DEFAULT_STYLE.get(p.location, "form"))
    explode = bool(getattr(p, "explode", style == "form"))
    return style, explode


def path_expression(op: Operation) -> str:
    """The request path as a Python expression: an f-string filling each path parameter."""
    path = op.full_path
    for p in op.params:
        if p.location != "path":
            continue
        style, explode = _style(p)
        args = [p.py_name]
        if style != "simple" or explode:
            args += [repr(style), repr(explode), repr(p.name)]
        path = path.replace("{" + p.name + "}", "{_wire.path_param(" + ", ".join(args) + ")}")
    return ('f"' if "{" in path else '"') + path.replace('"', '\\"') + '"'


def query_styles(op: Operation) -> dict[str, tuple[str, bool]]:
    """Query parameters not sent as `form` exploded (httpx's default for lists)."""
    out = {}
    for p in op.params:
        if p.location == "query":
            style, explode = _style(p)
            if (style, explode) != ("form", True) or getattr(p, "shape", "scalar") == "object":
                out[p.name] = (style, explode)
    return out


def cookies_expression(op: Operation) -> str:
    """`((name, value, explode), ...)` for the cookie parameters, or "" when there are none."""
    items = [
        f"({p.name!r}, {p.py_name}, {_style(p)[1]!r})" for p in op.params if p.location == "cookie"
    ]
    return "(" + ", ".join(items) + ",)" if items else ""


def body_media(body: Body | None) -> list[Media]:
    if body is None:
        return []
    media = list(getattr(body, "media", ()) or ())
    if media:
        return media
    return [Media(body.content_type, "json", body.model, body.schema)]


def media_expression(body: Body | None, enums: frozenset[str] = frozenset()) -> str:
    """`(_wire.MediaType(...), ...)`: what the runtime needs to encode each media type.

    `enums`: body models that are enum classes, not pydantic models: sent as given (an enum
    member is its JSON value), never validated into them."""
    parts = []
    for m in body_media(body):
        args = [repr(m.content_type), repr(m.kind)]
        if m.model is not None and m.kind in ("json", "form", "multipart") and m.model not in enums:
            args.append(f"model={m.model}")
        files = tuple(f.name for f in m.fields if f.is_file)
        json_fields = tuple(f.name for f in m.fields if f.is_json)
        deep_fields = tuple(f.name for f in m.fields if f.is_deep)
        if files:
            args.append(f"files={files!r}")
        types = {f.name: f.content_type for f in m.fields if f.is_file and f.content_type}
        if types:
            args.append(f"file_types={types!r}")
        if json_fields:
            args.append(f"json_fields={json_fields!r}")
        if deep_fields:
            args.append(f"deep_fields={deep_fields!r}")
        parts.append(f"_wire.MediaType({', '.join(args)})")
    return "(" + ", ".join(parts) + ",)"


def body_annotation(body: Body | None) -> str:
    """What `body=` accepts: each media type's model (or plain data), bytes, or text."""
    if body is None:
        return "None"
    seen: list[str] = []
    for m in body_media(body):
        if m.kind == "binary":
            options = ["bytes"]
        elif m.kind == "text":
            options = ["str"]
        else:
            is_array = (m.schema or {}).get("type") == "array"
            plain = "Sequence[Any]" if is_array else "Mapping[str, Any]"
            options = [m.model, plain] if m.model else [plain]
        for option in options:
            if option not in seen:
                seen.append(option)
    optional = "" if body.required else " | None"
    return " | ".join(seen) + optional


def body_models(body: Body | None) -> set[str]:
    return {m.model for m in body_media(body) if m.model and m.kind != "binary"}


def response_kind(response: Response) -> str:
    kind = getattr(response, "kind", None)
    if isinstance(kind, str):
        return kind
    return "json" if response.model else "none"


def parse_json(model: str, enum: bool = False) -> str:
    """The expression reading a JSON answer into `model`: an enum class (a response schema
    that is only an `enum`) has no `model_validate_json`; it is called with the JSON value."""
    if enum:
        return f"{model}(response.json())"
    return f"{model}.model_validate_json(response.content)"


def raw_result(response: Response, enum: bool = False) -> tuple[str, str] | None:
    """(annotation, parse expression) for a success answer that is not (only) JSON; `enum`:
    its model is an enum class."""
    kind = response_kind(response)
    raw = getattr(response, "raw_media", None)
    plain = "str" if raw is not None and raw.kind == "text" else "bytes"
    read = "response.text" if plain == "str" else "response.content"
    if kind in ("binary", "text"):
        return plain, read
    if kind == "mixed" and response.model:
        model = response.model
        return (
            f"{model} | {plain}",
            f"{parse_json(model, enum)} if _wire.is_json(response) else {read}",
        )
    return None


def event_stream(response: Response, known: set[str]) -> tuple[str, str] | None:
    """(one item's annotation, the decoder expression) of a streamed answer (server-sent
    events, JSON Lines, NDJSON, JSON text sequences) that has no JSON alternative."""
    raw = getattr(response, "raw_media", None)
    if raw is None or response_kind(response) not in ("binary", "text"):
        return None
    kind = stream_kind(raw.content_type)
    if kind is None:
        return None
    model = raw.item_model if raw.item_model in known else None
    decoder = f"_streaming.{kind}({model or ''})"
    if kind == "events":
        return f"ServerSentEvent[{model or 'str'}]", decoder
    return model or "Any", decoder


def accepts(response: Response) -> tuple[str, ...]:
    """The media types of a success answer, when it has several (the client's `Accept`)."""
    media = tuple(dict.fromkeys(m.content_type for m in getattr(response, "media", ())))
    return media if len(media) > 1 else ()


def streams(response: Response) -> bool:
    """A success answer of bytes or text (possibly large, possibly streamed by the server):
    the client also offers `<method>_stream()`, read incrementally."""
    return getattr(response, "raw_media", None) is not None


def body_doc(body: Body | None) -> str:
    """`Model, or plain data validated into it` (JSON only), else what each media type takes."""
    media = body_media(body)
    if len(media) == 1 and media[0].kind == "json" and media[0].model:
        return f"{media[0].model}, or plain data validated into it"
    parts = []
    for m in media:
        if m.kind == "binary":
            parts.append(f"bytes, sent as {m.content_type}")
        elif m.kind == "text":
            parts.append(f"str, sent as {m.content_type}")
        else:
            parts.append(f"{m.model or 'a mapping'} (or plain data), sent as {m.content_type}")
    return "; or ".join(parts)


def media_names(body: Body | None) -> list[str]:
    return [m.content_type for m in body_media(body)]


def content_type_argument(op: Operation) -> str | None:
    """The keyword choosing the body's media type, when it has several (unique among args)."""
    if len(body_media(op.body)) < 2:
        return None
    taken = {p.py_name for p in op.params}
    return unique("content_type", taken, prefix="body_")


def describe(body: Body | None) -> dict[str, Any]:
    """For the docs: each media type of a body, and its kind."""
    return {m.content_type: m.kind for m in body_media(body)}


def id_annotation(p: Param) -> str:
    """`int | str` for an integer path or header parameter (callers often hold ids as text),
    `str | int` for a string header named like an id or a string of digits; sent as text."""
    if p.location not in ("path", "header"):
        return p.annotation
    if p.annotation == "int":
        return "int | str"
    schema = p.schema or {}
    digits = schema.get("format") in ("int32", "int64") or str(schema.get("pattern", "")) in (
        "^[0-9]+$",
        r"^\d+$",
        "^[1-9][0-9]*$",
    )
    named_id = p.location == "header" and snake(p.name).rstrip("_").split("_")[-1] == "id"
    if p.annotation == "str" and (digits or named_id):
        return "str | int"
    return p.annotation
