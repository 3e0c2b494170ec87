"""The parts of an operation as IR: parameter and header types, parameters with unique
Python names, request bodies and responses with their media types. Inline schemas that need a
class are hoisted into the schema set, bound to their spec node by pointer."""

from __future__ import annotations

import re
from typing import Any

from ..core.naming import identifier, pascal, unique
from ..document.openapi import SCHEMA_REF
from ..document.pointer import escape_pointer_token as escape
from ..document.refs import copied, deref
from . import media as media_mod
from . import params as params_mod
from .model import MISSING, Body, Header, Media, Param, Response
from .nodes import NO_BODY, example, extensions, is_enum, is_primitive, status_key, variant_schema
from .schemas import SchemaSet, rewrite_refs, variant

# keywords that give a schema a shape of its own beside its allOf
STRUCTURAL = ("type", "properties", "items", "enum", "const", "oneOf", "anyOf", "not")
# the JSON Schema type of a scalar value as Python reads it
_JSON_KINDS = {str: "string", bool: "boolean", int: "integer", float: "number"}


class Parts:
    """The parts of an operation (types, parameters, headers, bodies, responses) as IR."""

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
        components["schemas"] = rewrite_refs(renamed, self.set.renames, names=True)
        doc["components"] = components
        self.doc = doc
        # the class of each inline schema already hoisted, by its pointer: a component
        # response or request body's schema is one class, whichever operation refers to it
        self.hoisted: dict[str, str] = {}

    def deref(self, node: Any) -> Any:
        """The node `node`'s `$ref`s lead to (keys beside a ref ignored); `{}` for nothing or
        a `$ref` to a boolean schema (no keywords to read). A dangling ref raises: the IR is
        built only from documents the `ref` rule passed."""
        found = deref(self.doc, node, missing="raise")
        if found is None or (isinstance(found, bool) and found is not node):
            return {}
        return found

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
        return self.set.add(name, copied(schema), pointer)

    def annotation(
        self, schema: dict[str, Any], hoist: str, pointer: str
    ) -> tuple[str, bool, bool]:
        """Python annotation of a parameter or header schema, nullable, and whether it is a
        scalar type FastAPI reads natively (a primitive or an enum)."""
        members = schema.get("allOf")
        if (
            isinstance(members, list)
            and len(members) == 1
            and isinstance(members[0], dict)
            and "$ref" in members[0]
            and not any(k in schema for k in STRUCTURAL)
        ):
            # `allOf: [$ref]` beside a default or description (3.0's way to annotate a $ref):
            # the referenced type itself (hoisted, it would be a class that is only an alias,
            # which datamodel-code-generator does not write)
            return self.annotation(members[0], hoist, pointer + "/allOf/0")
        cls = self.class_ref(schema)
        if cls is not None or isinstance(schema.get("$ref"), str):
            target = self.deref(schema)
            if is_primitive(target) or cls is None:
                return self.annotation(target, hoist, pointer)
            return cls, False, is_enum(target)
        types = schema.get("type")
        type_list = types if isinstance(types, list) else [types] if types else []
        nullable = "null" in type_list
        concrete = [t for t in type_list if t != "null"]
        if "const" in schema and not concrete:
            concrete = [_JSON_KINDS.get(type(schema["const"]), "")]
        elif not concrete and params_mod.list_by_default(schema):
            concrete = ["array"]
        elif not concrete and type(schema.get("default")) in _JSON_KINDS:
            # no type but a scalar default (`{default: 1, minimum: 1}`): the default's type
            # (read as a str, `page: str = 1` failed mypy --strict and dropped the bounds)
            concrete = [_JSON_KINDS[type(schema["default"])]]
        if (
            any(k in schema for k in ("enum", "oneOf", "anyOf", "allOf", "properties"))
            or len(concrete) > 1
        ):
            if is_enum(schema) and nullable:
                schema = {**schema, "type": concrete[0] if concrete else "string",
                          "enum": [v for v in schema["enum"] if v is not None]}  # fmt: skip
            cls = self.set.add(hoist, copied(schema), pointer)
            return cls, nullable, is_enum(schema)
        kind = concrete[0] if concrete else None
        if kind == "array":
            items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
            if params_mod.shape(self.deref(items)) == "array":  # no way to write it: strings
                return "list[str]", nullable, True  # (the `parameter-repair` rule warns)
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
            constraints=(
                params_mod.constraints(schema, annotation) if scalar and kind == "scalar" else {}
            ),
            python_pattern=(
                params_mod.python_pattern(schema, annotation)
                if scalar and kind == "scalar"
                else None
            ),
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
        has_json = any(media_mod.media_kind(str(k)) == "json" for k in content)
        for written in media_mod.media_order(content):
            entry = self.deref(content[written]) or {}
            content_type, kind = written, media_mod.media_kind(written)
            raw = entry.get("schema") if isinstance(entry.get("schema"), dict) else None
            where = f"{pointer}/{escape(written)}/schema"
            if not has_json and raw is not None and media_mod.json_range(written, self.deref(raw)):
                # `*/*` with an object schema (Kubernetes' every body): sent and read as JSON
                content_type, kind, has_json = "application/json", "json", True
            model = None
            fields: tuple[Any, ...] = ()
            if kind == "json" and raw is not None:
                model = models.get("json") or self.hoisted.get(where)
                if model is None:
                    model = self.model_for(raw, hoist, where)
                    if where.startswith("/components/"):
                        self.hoisted[where] = model
                model = variant(self.set, model, drop) if drop else model
                models["json"] = model
            elif kind in ("form", "multipart"):
                schema = self.deref(raw) if raw else {}
                if not schema.get("properties"):
                    kind = "binary" if kind == "multipart" else "text"
                else:
                    schema = variant_schema(schema, drop)
                    fields = media_mod.form_fields(
                        schema, self.deref, entry.get("encoding"), kind == "multipart"
                    )
                    form = media_mod.file_schema(schema, fields)
                    model = models.get(kind) or self.hoisted.get(f"{where}#{drop}")
                    if model is None:
                        model = self.set.add(
                            hoist + ("Form" if kind == "form" else "Multipart"), form, where
                        )
                        if where.startswith("/components/"):
                            self.hoisted[f"{where}#{drop}"] = model
                    models[kind] = model
            item = media_mod.item_schema(content_type, entry, self.deref)
            item_model = None
            if item is not None:
                item_where = f"{pointer}/{escape(written)}/{item[1]}"
                item_model = self.hoisted.get(item_where) or self.model_for(
                    item[0], hoist + "Item", item_where
                )
                self.hoisted[item_where] = item_model
            out.append(
                Media(
                    content_type,
                    kind,
                    model,
                    self.deref(raw) if raw else {},
                    fields,
                    example(entry),
                    item_model,
                )
            )
        return tuple(out)

    def body(self, node: Any, op_name: str, pointer: str) -> Body | None:
        if not node:
            return None
        shared = _component(node, "requestBodies")
        hoist, where = op_name + "Request", pointer + "/content"
        if shared is not None:  # one class for the component, whichever operation uses it
            hoist, where = _shared_name(shared[0], "Request"), shared[1] + "/content"
        node = self.deref(node)
        content = node.get("content") or {}
        media = self.media(content, hoist, where, "readOnly")
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
        # a specification extension of the Responses Object (`x-...: value`) is no answer
        node = {k: v for k, v in node.items() if not str(k).startswith("x-")}
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
            shared = _component(raw, "responses")
            if shared is not None:  # one class for the component, whichever operation uses it
                hoist, where = _shared_name(shared[0], "Response"), shared[1] + "/content"
            content = {} if text in NO_BODY or text.startswith("1") else response.get("content")
            media = self.media(content or {}, hoist, where, "writeOnly")
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


def _component(node: Any, section: str) -> tuple[str, str] | None:
    """(name, pointer) of the `components/<section>` entry `node` refers to, if it does."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    prefix = f"#/components/{section}/"
    if not isinstance(ref, str) or not ref.startswith(prefix) or "/" in ref[len(prefix) :]:
        return None
    token = ref[len(prefix) :]
    return token.replace("~1", "/").replace("~0", "~"), ref[1:]


def _shared_name(component: str, suffix: str) -> str:
    """The class name of a shared response's (request body's) inline schema: the component's
    name in PascalCase, ending in `suffix` (`NotFound` -> NotFoundResponse, `400` ->
    Response400)."""
    base = pascal(component)
    if not base[:1].isalpha():
        return suffix + base
    return base if base.endswith(suffix) else base + suffix
