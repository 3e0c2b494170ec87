"""Which list operations the client pages, and how: the `PageStyle` a paging method hands
the runtime (templates/client/pagination.py.j2).

Recognised, in this order (the first that applies wins):

1. `x-pagination` on the operation: `none` (never paged), `page` or `offset` (this
   repository's own envelope `{data, pagination: {page, has_next}}`, or any answer the shape
   rules below read), or a mapping declaring everything (`docs/client.md`, "Pagination").
2. `x-speakeasy-pagination` (`type: offsetLimit | cursor | url`, `inputs`, `outputs`).
3. `x-fern-pagination` (`cursor`/`next_cursor`, `offset`/`step`/`has-next-page`, `next_uri`).
4. Unambiguous shapes: a declared `Link` answer header (RFC 8288); a cursor query parameter
   and a next-cursor field of the answer or a next-cursor answer header; `offset`/`limit`
   (or `page`) query parameters with a total or has-more field in the answer.

Every path is a tuple of wire names from the answer's top; `()` is the answer itself.
"""

from __future__ import annotations

from typing import Any

from ...ir import Api, Operation, resolve_schema, schema_ref_name

PRIMITIVES = {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}
ITEM_KEYS = ("data", "items", "results", "records", "entries", "values", "elements", "list")
CURSOR_PARAMS = (
    "cursor",
    "after",
    "starting_after",
    "page_token",
    "pageToken",
    "next_token",
    "nextToken",
    "continuation_token",
    "continuationToken",
    "marker",
    "start_cursor",
    "page_cursor",
    "next_cursor",
)
NEXT_FIELDS = (
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "end_cursor",
    "endCursor",
    "next_marker",
    "nextMarker",
    "continuation_token",
    "continuationToken",
    "last_id",
    "cursor",
    "next",
)
NEXT_URLS = ("next_url", "nextUrl", "nextLink", "next_link", "next_page_url", "nextPageUrl", "next")
NEXT_HEADERS = ("x-next-cursor", "next-cursor", "x-next-page-token", "x-continuation-token")
HAS_MORE = ("has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage", "more")
TOTALS = ("total", "total_count", "totalCount", "total_items", "totalItems", "count")
TOTAL_PAGES = ("total_pages", "totalPages", "page_count", "pageCount", "num_pages", "last_page")
PAGE_NUMBERS = ("page", "current_page", "currentPage", "page_number", "pageNumber")
META_KEYS = ("pagination", "meta", "page_info", "pageInfo", "paging", "links", "cursor", "page")
# PageStyle's defaults (templates/client/pagination.py.j2), left out of the generated call
DEFAULTS: dict[str, Any] = {
    "items": ("data",),
    "page_param": "page",
    "offset_param": "offset",
    "cursor_param": "cursor",
    "limit_param": "limit",
}
LIMIT_PARAMS = ("limit", "per_page", "page_size", "pageSize", "perPage", "size", "count")


def _answer(api: Api, op: Operation) -> dict[str, Any]:
    model = op.success.model
    return resolve_schema(api, api.schemas.get(model) or {}) if model else {}


def _properties(api: Api, schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An object schema's properties, `$ref`s and `allOf` members followed."""
    schema = resolve_schema(api, schema)
    out = {k: resolve_schema(api, v) for k, v in (schema.get("properties") or {}).items()}
    for member in schema.get("allOf") or ():
        out.update(_properties(api, member))
    return out


def _is_array(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _at(api: Api, schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    for key in path:
        props = _properties(api, schema)
        if key not in props:
            return None
        schema = props[key]
    return resolve_schema(api, schema)


def _find(api: Api, schema: dict[str, Any], names: tuple[str, ...]) -> tuple[str, ...] | None:
    """The first of `names` at the answer's top, or one level down under a meta key."""
    props = _properties(api, schema)
    for name in names:
        if name in props and not _is_array(props[name]):
            return (name,)
    for meta in META_KEYS:
        if meta in props:
            inner = _properties(api, props[meta])
            for name in names:
                if name in inner and not _is_array(inner[name]):
                    return (meta, name)
    return None


def _next_url(api: Api, schema: dict[str, Any]) -> tuple[str, ...] | None:
    """A string field naming the next page's URL (`next` only when it is a `uri`), at the top,
    under a meta key, or one more level down (`links.pages.next`)."""

    def url_like(name: str, node: dict[str, Any]) -> bool:
        text = node.get("type") == "string" or "string" in (node.get("type") or ())
        return text and (name != "next" or node.get("format") in ("uri", "url", "uri-reference"))

    def search(node: dict[str, Any], path: tuple[str, ...], depth: int) -> tuple[str, ...] | None:
        props = _properties(api, node)
        for name in NEXT_URLS:
            if name in props and url_like(name, props[name]):
                return (*path, name)
        if depth:
            for meta in (*META_KEYS, "pages"):
                if meta in props and not _is_array(props[meta]):
                    found = search(props[meta], (*path, meta), depth - 1)
                    if found:
                        return found
        return None

    return search(schema, (), 2)


def items_path(api: Api, schema: dict[str, Any]) -> tuple[str, ...] | None:
    """Where the answer's list is: the answer itself, or its one array property (or the
    array property named like a list when there are several)."""
    if _is_array(schema):
        return ()
    props = _properties(api, schema)
    arrays = [k for k, v in props.items() if _is_array(v)]
    if len(arrays) == 1:
        return (arrays[0],)
    named = [k for k in arrays if k in ITEM_KEYS]
    return (named[0],) if len(named) == 1 else None


def schema_at(api: Api, op: Operation, path: tuple[str, ...]) -> dict[str, Any] | None:
    """The schema at `path` (wire names) of the operation's JSON answer."""
    return _at(api, _answer(api, op), path)


def item_annotation(api: Api, schema: dict[str, Any], known: set[str]) -> str:
    items = schema.get("items") or {}
    name = schema_ref_name(items)
    if name:
        return name if name in known else "Any"
    return PRIMITIVES.get(str(items.get("type")), "Any")


def _json_path(value: Any) -> tuple[str, ...] | None:
    """`$.data.items`, `$response.data`, `data.items` -> ("data", "items")."""
    if not isinstance(value, str) or not value:
        return None
    for prefix in ("$response.body#/", "$response.", "$.", "$"):
        if value.startswith(prefix):
            value = value[len(prefix) :]
            break
    sep = "/" if "/" in value and "." not in value else "."
    parts = tuple(p for p in value.split(sep) if p)
    return parts if all(p.replace("_", "").replace("-", "").isalnum() for p in parts) else None


def _request_param(value: Any) -> str | None:
    """`$request.cursor` / `$request.query.cursor` -> "cursor"."""
    if isinstance(value, str) and value.startswith("$request."):
        return value.rsplit(".", 1)[-1]
    return None


def _query(op: Operation) -> dict[str, Any]:
    return {p.name: p for p in op.params if p.location == "query"}


def _header(op: Operation, names: tuple[str, ...]) -> str | None:
    for h in op.success.headers:
        if h.name.lower() in names:
            return h.name
    return None


def _limit(op: Operation, name: str | None) -> dict[str, Any]:
    param = _query(op).get(name or "")
    out: dict[str, Any] = {}
    if name and param is not None:
        out["limit_param"] = name
        if isinstance(param.default, int) and not isinstance(param.default, bool):
            out["default_limit"] = param.default
    return out


def _house(api: Api, op: Operation, answer: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """`x-pagination: page | offset`: this repository's envelope, or what the shape shows."""
    query = _query(op)
    style: dict[str, Any] = {"kind": kind}
    if kind == "page":
        style["page_param"] = next((p for p in ("page", "page_number") if p in query), "page")
        style["page_number"] = _find(api, answer, PAGE_NUMBERS[:1])
        style["has_more"] = _find(api, answer, HAS_MORE)
        style["total_pages"] = _find(api, answer, TOTAL_PAGES)
        style.update(_limit(op, next((p for p in LIMIT_PARAMS if p in query), None)))
    else:
        style["offset_param"] = next(
            (p for p in ("offset", "skip", "start") if p in query), "offset"
        )
        style["has_more"] = _find(api, answer, HAS_MORE)
        style["total"] = _find(api, answer, TOTALS)
        style.update(_limit(op, next((p for p in LIMIT_PARAMS if p in query), None)))
    return style


def _declared(api: Api, op: Operation, spec: dict[str, Any]) -> dict[str, Any] | None:
    """`x-pagination` as a mapping: kind, items, and the parameters and fields it names."""
    kind = spec.get("kind")
    if kind not in ("page", "offset", "cursor", "link", "url"):
        return None
    style: dict[str, Any] = {"kind": kind}
    if "items" in spec:
        style["items"] = _json_path(spec["items"]) or ()
    for key in ("page_param", "offset_param", "cursor_param", "limit_param", "cursor_header"):
        if isinstance(spec.get(key), str):
            style[key] = spec[key]
    for key in ("next_cursor", "next_url", "has_more", "total", "total_pages", "page_number"):
        if key in spec:
            style[key] = _json_path(spec[key])
    if isinstance(spec.get("cursor_from_last"), str):
        style["cursor_from_last"] = spec["cursor_from_last"]
    style.update({k: v for k, v in _limit(op, style.get("limit_param")).items() if k not in style})
    return style


def _speakeasy(op: Operation, spec: dict[str, Any]) -> dict[str, Any] | None:
    kind = spec.get("type")
    inputs = {
        str(i.get("type")): str(i.get("name"))
        for i in spec.get("inputs") or ()
        if isinstance(i, dict) and i.get("in", "parameters") == "parameters"
    }
    outputs = spec.get("outputs") or {}
    style: dict[str, Any] = {}
    if "results" in outputs:
        style["items"] = _json_path(outputs["results"]) or ()
    if kind == "offsetLimit":
        if "page" in inputs:
            style.update(kind="page", page_param=inputs["page"])
            if "numPages" in outputs:
                style["total_pages"] = _json_path(outputs["numPages"])
        elif "offset" in inputs:
            style.update(kind="offset", offset_param=inputs["offset"])
        else:
            return None
    elif kind == "cursor" and "cursor" in inputs and "nextCursor" in outputs:
        style.update(kind="cursor", cursor_param=inputs["cursor"])
        style["next_cursor"] = _json_path(outputs["nextCursor"])
    elif kind == "url" and "nextUrl" in outputs:
        style.update(kind="url", next_url=_json_path(outputs["nextUrl"]))
    else:
        return None
    style.update(_limit(op, inputs.get("limit")))
    return style


def _fern(op: Operation, spec: dict[str, Any]) -> dict[str, Any] | None:
    style: dict[str, Any] = {}
    if "results" in spec:
        style["items"] = _json_path(spec["results"]) or ()
    if _request_param(spec.get("cursor")) and spec.get("next_cursor"):
        style.update(kind="cursor", cursor_param=_request_param(spec["cursor"]))
        style["next_cursor"] = _json_path(spec["next_cursor"])
    elif _request_param(spec.get("offset")):
        param = _request_param(spec["offset"])
        page_like = param in ("page", "page_number", "pageNumber")
        style.update(kind="page" if page_like else "offset")
        style["page_param" if page_like else "offset_param"] = param
        style.update(_limit(op, _request_param(spec.get("step"))))
    elif spec.get("next_uri") or spec.get("next_url"):
        style.update(kind="url", next_url=_json_path(spec.get("next_uri") or spec.get("next_url")))
    else:
        return None
    if spec.get("has-next-page") or spec.get("has_next_page"):
        style["has_more"] = _json_path(spec.get("has-next-page") or spec.get("has_next_page"))
    return style


def _shape(api: Api, op: Operation, answer: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """An unambiguous shape, or (None, why not)."""
    query = _query(op)
    limit = next((p for p in LIMIT_PARAMS if p in query), None)
    if _header(op, ("link",)):
        return {"kind": "link", **_limit(op, limit)}, ""
    next_url = _next_url(api, answer)
    if next_url:
        return {"kind": "url", "next_url": next_url, **_limit(op, limit)}, ""
    cursor = next((p for p in CURSOR_PARAMS if p in query), None)
    if cursor:
        header = _header(op, NEXT_HEADERS)
        if header:
            return {"kind": "cursor", "cursor_param": cursor, "cursor_header": header}, ""
        next_field = _find(api, answer, NEXT_FIELDS)
        more = _find(api, answer, HAS_MORE)
        if next_field:
            return {"kind": "cursor", "cursor_param": cursor, "next_cursor": next_field,
                    "has_more": more, **_limit(op, limit)}, ""  # fmt: skip
        if cursor == "starting_after" and more:
            return {"kind": "cursor", "cursor_param": cursor, "cursor_from_last": "id",
                    "has_more": more, **_limit(op, limit)}, ""  # fmt: skip
        return None, f"cursor parameter `{cursor}` but no next-cursor field or header"
    more = _find(api, answer, HAS_MORE)
    offset = next((p for p in ("offset", "skip", "start") if p in query), None)
    if offset:
        total = _find(api, answer, TOTALS)
        if more or total:
            return {"kind": "offset", "offset_param": offset, "has_more": more, "total": total,
                    **_limit(op, limit)}, ""  # fmt: skip
        return None, f"`{offset}` parameter but no total or has-more field"
    page = next((p for p in ("page", "page_number", "pageNumber") if p in query), None)
    if page:
        pages = _find(api, answer, TOTAL_PAGES)
        total = _find(api, answer, TOTALS)
        if more or pages or (total and limit):
            return {"kind": "page", "page_param": page, "has_more": more, "total_pages": pages,
                    "total": total if not (more or pages) else None,
                    "page_number": _find(api, answer, PAGE_NUMBERS[:1]),
                    **_limit(op, limit)}, ""  # fmt: skip
        return None, f"`{page}` parameter but no has-more, page-count or total-and-limit field"
    return None, "no paging parameter, Link header or extension"


def page_style(api: Api, op: Operation, known: set[str]) -> tuple[dict[str, Any] | None, str]:
    """(PageStyle arguments plus `items` and `item`, or None and why the list is not paged)."""
    answer = _answer(api, op)
    declared = op.extensions.get("x-pagination")
    style: dict[str, Any] | None
    if declared == "none" or declared is False:
        return None, "x-pagination: none"
    if declared in ("page", "offset"):
        style, why = _house(api, op, answer, declared), ""
    elif isinstance(declared, dict):
        style, why = _declared(api, op, declared), "x-pagination mapping not understood"
    elif isinstance(op.extensions.get("x-speakeasy-pagination"), dict):
        style = _speakeasy(op, op.extensions["x-speakeasy-pagination"])
        why = "x-speakeasy-pagination of a kind not understood"
    elif isinstance(op.extensions.get("x-fern-pagination"), dict):
        style, why = (
            _fern(op, op.extensions["x-fern-pagination"]),
            "x-fern-pagination not understood",
        )
    elif op.method == "get":
        style, why = _shape(api, op, answer)
    else:
        return None, "not a GET (declare it with x-pagination)"
    if style is None:
        return None, why
    if "items" not in style:
        found = items_path(api, answer)
        if found is None:
            return None, "no single list in the answer"
        style["items"] = found
    array = _at(api, answer, style["items"])
    if array is None or not _is_array(array):
        return None, "the declared items are not a list of the answer"
    style["item"] = item_annotation(api, array, known)
    return {k: v for k, v in style.items() if v is not None and DEFAULTS.get(k) != v}, ""


def is_list_operation(api: Api, op: Operation) -> bool:
    """A GET whose JSON answer is a list or holds one (what the corpus report counts)."""
    if op.method != "get" or not op.success.model:
        return False
    return items_path(api, _answer(api, op)) is not None
