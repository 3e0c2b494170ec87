"""Builds the IR from a bundled, validated OpenAPI 3.1 document."""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import urlsplit

from ..errors import at
from ..load import resolve_pointer
from ..naming import pascal, snake
from . import media as media_mod
from . import params as params_mod
from .model import (
    MISSING,
    Api,
    Body,
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
from .names import OPERATION_RESERVED, identifier, module_identifier, unique
from .schemas import SCHEMA_REF, SchemaSet, escape, rewrite_refs, variant

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def extensions(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sorted(node.items()) if isinstance(k, str) and k.startswith("x-")}


def server(node: dict[str, Any]) -> Server:
    variables = {k: str(v.get("default", "")) for k, v in (node.get("variables") or {}).items()}
    url = str(node.get("url", "/"))
    concrete = url
    for name, value in variables.items():
        concrete = concrete.replace("{" + name + "}", value)
    prefix = urlsplit(concrete).path.rstrip("/")
    return Server(url, str(node.get("description", "")), variables, prefix, extensions(node))


def example(node: dict[str, Any]) -> Any:
    """A parameter's or media type's `example`, else the value of its first `examples` entry."""
    if "example" in node:
        return node["example"]
    examples = node.get("examples")
    if isinstance(examples, dict):
        for entry in examples.values():
            if isinstance(entry, dict) and "value" in entry:
                return entry["value"]
    return MISSING


def status_key(status: Any) -> tuple[int, str]:
    text = str(status)
    if text.isdigit():
        return (int(text), text)
    if text[:1].isdigit():
        return (int(text[0]) * 100 + 99, text)
    return (999, text)


def requirements(raw: Any) -> tuple[Requirement, ...]:
    if not raw:
        return ()
    return tuple(
        Requirement(
            tuple(sorted(req)), {k: tuple(str(s) for s in v or ()) for k, v in sorted(req.items())}
        )
        for req in raw
        if isinstance(req, dict)
    )


def security_scheme(name: str, node: dict[str, Any]) -> SecurityScheme:
    kind = str(node.get("type", ""))
    if kind == "apiKey":
        location, parameter, scheme = str(node.get("in", "header")), str(node.get("name", "")), ""
    elif kind == "http":
        location, parameter, scheme = "header", "Authorization", str(node.get("scheme", "")).lower()
    elif kind in ("oauth2", "openIdConnect"):
        location, parameter, scheme = "header", "Authorization", "bearer"
    else:
        location, parameter, scheme = "none", "", ""
    scopes = sorted(
        {
            str(s)
            for flow in (node.get("flows") or {}).values()
            for s in (flow or {}).get("scopes") or {}
        }
    )
    return SecurityScheme(
        name, kind, location, parameter, scheme, str(node.get("description", "")), tuple(scopes),
        extensions(node),
    )  # fmt: skip


class Builder:
    def __init__(self, document: dict[str, Any]) -> None:
        self.original = document
        components = dict(document.get("components") or {})
        raw_schemas = components.get("schemas") or {}
        self.set = SchemaSet(raw_schemas if isinstance(raw_schemas, dict) else {})
        # the document with schema refs renamed to class names: what the IR reads
        doc = rewrite_refs(
            {k: v for k, v in document.items() if k != "components"}, self.set.renames
        )
        renamed = {self.set.renames[k]: v for k, v in raw_schemas.items()}
        components = rewrite_refs(
            {k: v for k, v in components.items() if k != "schemas"}, self.set.renames
        )
        components["schemas"] = rewrite_refs(renamed, self.set.renames)
        doc["components"] = components
        self.doc = doc

    def deref(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            ref = node["$ref"]
            if not ref.startswith("#"):
                return {}
            node = resolve_pointer(self.doc, ref[1:])
            seen += 1
        return node if node is not None else {}

    # -- types -----------------------------------------------------------------

    def class_ref(self, schema: dict[str, Any]) -> str | None:
        ref = schema.get("$ref")
        if (
            isinstance(ref, str)
            and ref.startswith(SCHEMA_REF)
            and "/" not in ref[len(SCHEMA_REF) :]
        ):
            name = ref[len(SCHEMA_REF) :].replace("~1", "/").replace("~0", "~")
            return name if name in self.set.schemas else None
        return None

    def model_for(self, schema: dict[str, Any], name: str, pointer: str) -> str:
        cls = self.class_ref(schema)
        if cls is not None and len(schema) == 1:
            return cls
        if isinstance(schema.get("$ref"), str) and cls is None:
            schema = self.deref(schema)
        return self.set.add(name, copy.deepcopy(schema), pointer)

    def annotation(
        self, schema: dict[str, Any], hoist: str, pointer: str
    ) -> tuple[str, bool, bool]:
        """Python annotation of a parameter or header schema, nullable, and whether it is a
        scalar type FastAPI reads natively (a primitive or an enum)."""
        cls = self.class_ref(schema)
        if cls is not None or isinstance(schema.get("$ref"), str):
            target = self.deref(schema)
            if _is_primitive(target) or cls is None:
                return self.annotation(target, hoist, pointer)
            return cls, False, _is_enum(target)
        types = schema.get("type")
        type_list = types if isinstance(types, list) else [types] if types else []
        nullable = "null" in type_list
        concrete = [t for t in type_list if t != "null"]
        if "const" in schema and not concrete:
            concrete = [
                {str: "string", bool: "boolean", int: "integer", float: "number"}.get(
                    type(schema["const"]), ""
                )
            ]
        if (
            any(k in schema for k in ("enum", "oneOf", "anyOf", "allOf", "properties"))
            or len(concrete) > 1
        ):
            if _is_enum(schema) and nullable:
                schema = {**schema, "type": concrete[0] if concrete else "string",
                          "enum": [v for v in schema["enum"] if v is not None]}  # fmt: skip
            cls = self.set.add(hoist, copy.deepcopy(schema), pointer)
            return cls, nullable, _is_enum(schema)
        kind = concrete[0] if concrete else None
        if kind == "array":
            items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
            item, _, scalar = self.annotation(items, hoist + "Item", pointer + "/items")
            return f"list[{item}]", nullable, scalar
        if kind == "object":
            return "dict[str, Any]", nullable, False
        if media_mod.is_binary_schema(schema):
            return "str", nullable, True
        return (
            params_mod.SCALARS.get(kind or "", "str" if kind is None else "Any"),
            nullable,
            kind in params_mod.SCALARS or kind is None,
        )

    # -- parts of an operation ---------------------------------------------------

    def params(
        self, nodes: list[dict[str, Any]], op_name: str, pointer: str, path: str = ""
    ) -> list[Param]:
        """The parameters, each with a unique Python name. Path parameters choose first, and
        no other parameter may take a path placeholder's name (FastAPI would read it from the
        path); later collisions get the location as suffix (`id` and `id_query`)."""
        resolved = [self.deref(raw) for raw in nodes]
        placeholders = set(re.findall(r"{([^}]+)}", path))
        taken: set[str] = set()
        names: dict[int, str] = {}
        order = sorted(range(len(resolved)), key=lambda n: resolved[n].get("in") != "path")
        for n in order:
            node = resolved[n]
            location = str(node.get("in", "query"))
            wanted = identifier(str(node.get("name", "")), set())
            if wanted in taken or (location != "path" and wanted in placeholders):
                wanted = f"{wanted.rstrip('_')}_{location}"
            names[n] = unique(wanted, taken)
        return [
            self.param(node, op_name, names[n], f"{pointer}/parameters/{n}")
            for n, node in enumerate(resolved)
        ]

    def param(self, node: dict[str, Any], op_name: str, py_name: str, pointer: str) -> Param:
        name = str(node.get("name", ""))
        location = str(node.get("in", "query"))
        raw_schema = node.get("schema")
        if not isinstance(raw_schema, dict):
            content = node.get("content") or {}
            first: Any = next(iter(content.values()), {}) if isinstance(content, dict) else {}
            raw_schema = (first or {}).get("schema") or {"type": "string"}
        schema = self.deref(raw_schema)
        annotation, nullable, scalar = self.annotation(
            raw_schema, op_name + pascal(name), pointer + "/schema"
        )
        style = str(node.get("style") or params_mod.DEFAULT_STYLE.get(location, "form"))
        explode = bool(node.get("explode", style == "form"))
        kind = params_mod.shape(schema)
        if kind == "scalar" and annotation in self.set.schemas and not scalar:
            kind = "scalar"  # a union or class read from one string
        props = tuple(str(p) for p in (schema.get("properties") or {}))
        if kind == "object" and not props:
            props = tuple(
                str(p)
                for m in schema.get("allOf") or []
                for p in (self.deref(m).get("properties") or {})
            )
        return Param(
            name=name,
            py_name=py_name,
            location=location,
            required=bool(node.get("required", False)) or location == "path",
            annotation=annotation,
            nullable=nullable,
            default=params_mod.default_of(schema, location),
            description=str(node.get("description") or schema.get("description") or ""),
            constraints=params_mod.constraints(schema) if scalar and kind == "scalar" else {},
            schema=schema,
            in_context=bool(node.get("x-context", False)),
            extensions=extensions(node),
            example=example(node),
            style=style,
            explode=explode,
            shape=kind,
            properties=props,
            native=params_mod.is_native(location, style, explode, kind, scalar),
        )

    def headers(self, node: dict[str, Any], owner: str, pointer: str) -> tuple[Header, ...]:
        out = []
        for name, header in sorted((node or {}).items()):
            header = self.deref(header)
            annotation, _, _ = self.annotation(
                header.get("schema") or {}, owner + pascal(name), f"{pointer}/{escape(name)}/schema"
            )
            out.append(
                Header(
                    name,
                    str(header.get("description", "")),
                    annotation,
                    bool(header.get("required")),
                )
            )
        return tuple(out)

    def media(
        self, content: dict[str, Any], hoist: str, pointer: str, drop: str = ""
    ) -> tuple[Media, ...]:
        out = []
        models: dict[str, str] = {}
        for content_type in media_mod.media_order(content):
            entry = self.deref(content[content_type]) or {}
            kind = media_mod.media_kind(content_type)
            raw = entry.get("schema") if isinstance(entry.get("schema"), dict) else None
            where = f"{pointer}/{escape(content_type)}/schema"
            model = None
            fields: tuple[Any, ...] = ()
            if kind == "json" and raw is not None:
                model = models.get("json") or self.model_for(raw, hoist, where)
                model = variant(self.set, model, drop) if drop else model
                models["json"] = model
            elif kind in ("form", "multipart"):
                schema = self.deref(raw) if raw else {}
                if not schema.get("properties"):
                    kind = "binary" if kind == "multipart" else "text"
                else:
                    schema = variant_schema(schema, drop)
                    fields = media_mod.form_fields(schema, self.deref)
                    form = media_mod.file_schema(schema, fields)
                    model = models.get(kind) or self.set.add(
                        hoist + ("Form" if kind == "form" else "Multipart"), form, where
                    )
                    models[kind] = model
            out.append(
                Media(
                    content_type,
                    kind,
                    model,
                    self.deref(raw) if raw else {},
                    fields,
                    example(entry),
                )
            )
        return tuple(out)

    def body(self, node: Any, op_name: str, pointer: str) -> Body | None:
        if not node:
            return None
        node = self.deref(node)
        content = node.get("content") or {}
        media = self.media(content, op_name + "Request", pointer + "/content", "readOnly")
        if not media:
            return None
        first = media[0]
        return Body(
            model=first.annotation,
            required=bool(node.get("required", False)),
            content_type=first.content_type,
            description=str(node.get("description", "")),
            schema=first.schema,
            example=first.example,
            media=media,
        )

    def responses(self, node: dict[str, Any], op_name: str, pointer: str) -> list[Response]:
        out = []
        success_codes = [s for s in node if str(s).startswith("2")]
        for status in sorted(node, key=status_key):
            raw = node[status]
            component = None
            if isinstance(raw, dict) and isinstance(raw.get("$ref"), str):
                component = raw["$ref"].rsplit("/", 1)[-1]
            response = self.deref(raw)
            text = str(status).upper() if str(status).lower() != "default" else "default"
            suffix = "Response" if len(success_codes) <= 1 else f"Response{text}"
            hoist = (
                op_name + suffix
                if text.startswith("2") or (text == "default" and not success_codes)
                else f"{op_name}Error{text.capitalize()}"
            )
            where = f"{pointer}/{escape(str(status))}/content"
            media = self.media(response.get("content") or {}, hoist, where, "writeOnly")
            json_media = next((m for m in media if m.kind == "json"), None)
            out.append(
                Response(
                    status=text,
                    description=str(response.get("description", "")),
                    model=json_media.model if json_media else None,
                    content_type=media[0].content_type if media else None,
                    headers=self.headers(
                        response.get("headers") or {},
                        op_name + text,
                        f"{pointer}/{escape(str(status))}/headers",
                    ),
                    component=component,
                    extensions=extensions(response),
                    example=media[0].example if media else MISSING,
                    media=media,
                )
            )
        return out

    # -- the whole document --------------------------------------------------------

    def build(self) -> Api:
        doc = self.doc
        info = doc.get("info") or {}
        servers = [server(s) for s in doc.get("servers") or [{"url": "/"}]]
        default_reqs = requirements(doc.get("security"))
        tags: dict[str, Tag] = {}
        modules: set[str] = set()
        # a tag's Protocol is <Class>Api: never the name of a model class it imports
        classes: set[str] = {n[: -len("Api")] for n in self.set.schemas if n.endswith("Api")}

        def tag_for(name: str, description: str = "") -> Tag:
            if name not in tags:
                module = module_identifier(name, modules)
                cls = unique(pascal(name) or "Default", classes)
                tags[name] = Tag(name, description, module=module, class_name=cls)
            return tags[name]

        for t in doc.get("tags") or []:
            if isinstance(t, dict) and "name" in t:
                tag_for(str(t["name"]), str(t.get("description", "")))
        operations: list[Operation] = []
        op_ids: set[str] = set()
        py_names: set[str] = set()
        for path, item in (doc.get("paths") or {}).items():
            item = self.deref(item)
            item_pointer = "/paths/" + escape(str(path))
            item_prefix = (
                server(item["servers"][0]).prefix if item.get("servers") else servers[0].prefix
            )
            shared = [self.deref(p) for p in item.get("parameters") or []]
            for method in HTTP_METHODS:
                if not isinstance(item.get(method), dict):
                    continue
                with at(f"{item_pointer}/{method}"):
                    raw = item[method]
                    pointer = f"{item_pointer}/{method}"
                    prefix = server(raw["servers"][0]).prefix if raw.get("servers") else item_prefix
                    op_id = unique(str(raw.get("operationId") or snake(f"{method} {path}")), op_ids)
                    op_name = pascal(op_id)
                    own = [self.deref(p) for p in raw.get("parameters") or []]
                    own_keys = {(p.get("name"), p.get("in")) for p in own}
                    merged = [
                        p for p in shared if (p.get("name"), p.get("in")) not in own_keys
                    ] + own
                    tag = tag_for(str((raw.get("tags") or ["default"])[0]))
                    reqs = requirements(raw["security"]) if "security" in raw else default_reqs
                    op = Operation(
                        operation_id=op_id,
                        method=method,
                        path=str(path),
                        prefix=prefix,
                        tag=tag.name,
                        summary=str(raw.get("summary", "")),
                        description=str(raw.get("description", "")),
                        params=self.params(merged, op_name, pointer, str(path)),
                        body=self.body(raw.get("requestBody"), op_name, pointer + "/requestBody"),
                        responses=self.responses(
                            raw.get("responses") or {}, op_name, pointer + "/responses"
                        ),
                        security=tuple(r.schemes for r in reqs),
                        deprecated=bool(raw.get("deprecated", False)),
                        extensions=extensions(raw),
                        pointer=pointer,
                        requirements=reqs,
                        callbacks=self.callbacks(raw.get("callbacks") or {}, op_name, pointer),
                        python_name=identifier(op_id, py_names, OPERATION_RESERVED),
                    )
                operations.append(op)
                tag.operations.append(op)
        webhooks = [
            self.webhook(str(name), method, op, f"/webhooks/{escape(str(name))}/{method}")
            for name, item in (doc.get("webhooks") or {}).items()
            for method, op in (self.deref(item) or {}).items()
            if method in HTTP_METHODS and isinstance(op, dict)
        ]
        components = doc.get("components") or {}
        raw_schemes = components.get("securitySchemes") or {}
        return Api(
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=str(info.get("description", "")),
            servers=servers,
            tags=[t for t in tags.values() if t.operations],
            operations=operations,
            schemas=self.set.ordered(),
            security_schemes=dict(raw_schemes),
            default_security=tuple(r.schemes for r in default_reqs),
            extensions=extensions(self.original),
            webhooks=webhooks,
            document=self.original,
            schemes={
                str(k): security_scheme(str(k), self.deref(v)) for k, v in raw_schemes.items()
            },
            schema_pointers=dict(self.set.pointers),
            class_names=dict(self.set.renames),
        )

    def callbacks(self, node: dict[str, Any], op_name: str, pointer: str) -> list[WebhookOperation]:
        out = []
        for name, callback in node.items():
            callback = self.deref(callback)
            for expression, item in (callback or {}).items():
                item = self.deref(item)
                for method, raw in (item or {}).items():
                    if method in HTTP_METHODS and isinstance(raw, dict):
                        where = f"{pointer}/callbacks/{escape(str(name))}/{escape(str(expression))}/{method}"
                        hook = self.webhook(
                            str(name), method, raw, where, f"{op_name}{pascal(str(name))}"
                        )
                        hook.expression = str(expression)
                        out.append(hook)
        return out

    def webhook(
        self, name: str, method: str, raw: dict[str, Any], pointer: str, op_name: str = ""
    ) -> WebhookOperation:
        with at(pointer):
            return self._webhook(name, method, raw, pointer, op_name)

    def _webhook(
        self, name: str, method: str, raw: dict[str, Any], pointer: str, op_name: str
    ) -> WebhookOperation:
        op_name = pascal(str(raw.get("operationId") or op_name or f"webhook {name}"))
        params = self.params([self.deref(p) for p in raw.get("parameters") or []], op_name, pointer)
        return WebhookOperation(
            name=name,
            method=method,
            summary=str(raw.get("summary", "")),
            description=str(raw.get("description", "")),
            headers=[p for p in params if p.location == "header"],
            body=self.body(raw.get("requestBody"), op_name, pointer + "/requestBody"),
            responses=self.responses(raw.get("responses") or {}, op_name, pointer + "/responses"),
            pointer=pointer,
        )


def _is_enum(schema: dict[str, Any]) -> bool:
    return "enum" in schema and not any(
        k in schema for k in ("oneOf", "anyOf", "allOf", "properties")
    )


def _is_primitive(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return not any(
        k in schema for k in ("enum", "oneOf", "anyOf", "allOf", "properties", "const")
    ) and all(k in ("string", "integer", "number", "boolean", "null") for k in kinds)


def variant_schema(schema: dict[str, Any], flag: str) -> dict[str, Any]:
    """A form schema without its `flag` properties (forms are flat: no nested classes)."""
    if not flag:
        return schema
    props = {
        k: v
        for k, v in (schema.get("properties") or {}).items()
        if not (isinstance(v, dict) and v.get(flag) is True)
    }
    out = {**schema, "properties": props}
    if "required" in schema:
        out["required"] = [r for r in schema.get("required") or [] if r in props]
    return out
