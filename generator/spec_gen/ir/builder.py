"""Builds the IR from a bundled, validated OpenAPI 3.1 document: the whole document
(operations, tags, webhooks, callbacks, security); each operation's parts come from `Parts`."""

from __future__ import annotations

import re
from typing import Any

from ..core.naming import (
    OPERATION_RESERVED,
    identifier,
    module_identifier,
    pascal,
    snake,
    unique,
    words,
)
from ..core.where import at
from ..document.openapi import METHODS as HTTP_METHODS
from ..document.pointer import escape_pointer_token as escape
from ..document.walk import not_carried
from .model import Api, Operation, Tag, WebhookOperation
from .nodes import extensions, is_enum, requirements, security_scheme, server
from .parts import Parts

__all__ = ["HTTP_METHODS", "Builder"]


def placed(param: dict[str, Any], path: str) -> bool:
    """Whether the path template has a `{placeholder}` for the path parameter `param`."""
    return str(param.get("name")) in re.findall(r"{([^}]+)}", path)


class Builder(Parts):
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
            if str(path).startswith("x-") or not isinstance(item, dict):
                continue  # a specification extension of the Paths Object, no path
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
                    # an operationId without a Latin letter or digit (`获取用户`) names
                    # its handler and classes after its method and path, not `value`
                    spoken = op_id if words(op_id) else f"{method} {path}"
                    op_name = pascal(spoken)
                    own = [self.deref(p) for p in raw.get("parameters") or []]
                    own_keys = {(p.get("name"), p.get("in")) for p in own}
                    merged = [
                        p for p in shared if (p.get("name"), p.get("in")) not in own_keys
                    ] + own
                    # a path parameter without a placeholder in the path: no request carries
                    # it (a `parameter-repair` warning)
                    merged = [p for p in merged if p.get("in") != "path" or placed(p, path)]
                    # Accept, Content-Type, Authorization headers: ignored, as OpenAPI says
                    # (an `ignored-header` warning); 3.2's querystring ones (an `oas32` one)
                    merged = [p for p in merged if not not_carried(p)]
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
                        python_name=identifier(spoken, py_names, OPERATION_RESERVED),
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
        schemas = self.set.ordered()
        return Api(
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=str(info.get("description", "")),
            servers=servers,
            tags=[t for t in tags.values() if t.operations],
            operations=operations,
            schemas=schemas,
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
            enum_classes=frozenset(name for name, schema in schemas.items() if is_enum(schema)),
        )

    def callbacks(self, node: dict[str, Any], op_name: str, pointer: str) -> list[WebhookOperation]:
        out = []
        for name, callback in node.items():
            callback = self.deref(callback)
            if not isinstance(callback, dict):
                continue
            for expression, item in callback.items():
                item = self.deref(item)
                if str(expression).startswith("x-") or not isinstance(item, dict):
                    continue  # an extension of the Callback Object, no expression
                for method, raw in item.items():
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
        listed = [self.deref(p) for p in raw.get("parameters") or []]
        params = self.params([p for p in listed if not not_carried(p)], op_name, pointer)
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
