"""The Schema Objects of a document, reached through their containers: components, paths,
webhooks, callbacks, parameters, headers, bodies and encodings. `SchemaWalk.walk()` hands
each to `schema(schema, pointer, media_type)`, which a subclass defines (the 3.0 -> 3.1
upgrade, the 3.1 repairs) and which walks the sub-schemas it cares about itself. `put`
replaces a key in place, on plain dicts and on ruamel's round-trip maps alike."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from .openapi import METHODS as OPERATION_KEYS
from .pointer import join_pointer


def put(mapping: MutableMapping[str, Any], old: str | None, key: str, value: Any) -> None:
    """Set `key` (in `old`'s place when `old` is given and present), keeping key order."""
    if old == key or old is None:
        mapping[key] = value
        return
    insert = getattr(mapping, "insert", None)
    if old is not None and old in mapping and insert is not None and key not in mapping:
        position = list(mapping).index(old)
        del mapping[old]
        insert(position, key, value)
        return
    if old is not None and old in mapping:
        if key in mapping:
            del mapping[old]
            mapping[key] = value
            return
        items = [(key if k == old else k, value if k == old else v) for k, v in mapping.items()]
        mapping.clear()
        mapping.update(items)
        return
    mapping[key] = value


class SchemaWalk:
    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document

    def schema(self, schema: Any, here: str, media_type: str | None = None) -> None:
        raise NotImplementedError

    def walk(self) -> None:
        """Hand every schema the containers reach to `schema()`."""
        doc = self.doc
        components = doc.get("components")
        if isinstance(components, dict):
            for name, schema in items_of(components.get("schemas")):
                self.schema(schema, join_pointer("/components/schemas", name))
            for name, param in items_of(components.get("parameters")):
                self.parameter(param, join_pointer("/components/parameters", name))
            for name, header in items_of(components.get("headers")):
                self.parameter(header, join_pointer("/components/headers", name))
            for name, body in items_of(components.get("requestBodies")):
                self.content(body, join_pointer("/components/requestBodies", name))
            for name, response in items_of(components.get("responses")):
                self.response(response, join_pointer("/components/responses", name))
            for name, item in items_of(components.get("callbacks")):
                self.callback(item, join_pointer("/components/callbacks", name))
            for name, item in items_of(components.get("pathItems")):
                self.path_item(item, join_pointer("/components/pathItems", name))
        for key in ("paths", "webhooks"):
            for path, item in items_of(doc.get(key)):
                self.path_item(item, join_pointer("", key, path))

    # -- containers of schemas ---------------------------------------------------------

    def path_item(self, item: Any, here: str) -> None:
        if not isinstance(item, dict):
            return
        for index, param in enumerate(list_of(item.get("parameters"))):
            self.parameter(param, join_pointer(here, "parameters", index))
        for method in OPERATION_KEYS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            at = join_pointer(here, method)
            for index, param in enumerate(list_of(op.get("parameters"))):
                self.parameter(param, join_pointer(at, "parameters", index))
            self.content(op.get("requestBody"), join_pointer(at, "requestBody"))
            for status, response in items_of(op.get("responses")):
                self.response(response, join_pointer(at, "responses", status))
            for name, callback in items_of(op.get("callbacks")):
                self.callback(callback, join_pointer(at, "callbacks", name))

    def callback(self, callback: Any, here: str) -> None:
        for expression, item in items_of(callback):
            self.path_item(item, join_pointer(here, expression))

    def parameter(self, param: Any, here: str) -> None:
        if not isinstance(param, dict) or "$ref" in param:
            return
        if isinstance(param.get("schema"), dict):
            self.schema(param["schema"], join_pointer(here, "schema"))
        self.content(param, here)

    def response(self, response: Any, here: str) -> None:
        if not isinstance(response, dict) or "$ref" in response:
            return
        for name, header in items_of(response.get("headers")):
            self.parameter(header, join_pointer(here, "headers", name))
        self.content(response, here)

    def content(self, holder: Any, here: str) -> None:
        if not isinstance(holder, dict) or "$ref" in holder:
            return
        for media_type, media in items_of(holder.get("content")):
            if not isinstance(media, dict):
                continue  # no Media Type Object (`content: {description: ok}`): validation's
            if isinstance(media.get("schema"), dict):
                at = join_pointer(here, "content", media_type, "schema")
                self.schema(media["schema"], at, media_type=str(media_type))
            for name, encoding in items_of(media.get("encoding")):
                if not isinstance(encoding, dict):
                    continue
                for header_name, header in items_of(encoding.get("headers")):
                    at = join_pointer(here, "content", media_type, "encoding", name, "headers")
                    self.parameter(header, join_pointer(at, header_name))


def items_of(node: Any) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in node.items()] if isinstance(node, dict) else []


def list_of(node: Any) -> list[Any]:
    return list(node) if isinstance(node, list) else []
