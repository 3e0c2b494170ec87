"""Reading one bundled document: local `$ref`s, its operations and its webhooks."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..document.openapi import METHODS as HTTP_METHODS
from ..document.refs import follow

MAX_DEPTH = 64  # schema nesting followed before giving up (recursion is also cut by $ref)


@dataclass
class Operation:
    method: str
    full_path: str  # the path with its server prefix, or `webhook NAME`
    node: dict[str, Any]
    params: dict[tuple[str, str], dict[str, Any]]
    security: Any
    shared: frozenset[tuple[str, str]] = frozenset()  # parameters only the path item declares

    @property
    def key(self) -> tuple[str, str]:
        """Method and full path, path parameter names left out: `/a/{id}` is `/a/{x}`."""
        return (self.method, re.sub(r"\{[^}]*\}", "{}", self.full_path))

    @property
    def label(self) -> str:
        return f"`{self.method} {self.full_path}`"

    @property
    def operation_id(self) -> str | None:
        value = self.node.get("operationId")
        return str(value) if value is not None else None

    @property
    def deprecated(self) -> bool:
        return bool(self.node.get("deprecated", False))


class Doc:
    """A bundled document: local `$ref` resolution, operations and webhooks."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def deref(self, node: Any) -> tuple[Any, str | None]:
        """The node a (chain of) `$ref` points at, with sibling keywords applied, and the last ref."""
        return follow(self.raw, node, siblings="merge")

    def node(self, value: Any) -> dict[str, Any]:
        resolved, _ = self.deref(value)
        return resolved if isinstance(resolved, dict) else {}

    def operations(self) -> dict[tuple[str, str], Operation]:
        root_prefix = server_prefix(self.raw.get("servers"))
        found: dict[tuple[str, str], Operation] = {}
        paths = self.raw.get("paths")
        for path, raw_item in (paths if isinstance(paths, dict) else {}).items():
            item = self.node(raw_item)
            path_prefix = server_prefix(item.get("servers"), root_prefix)
            for op in self._item_operations(str(path), item, path_prefix):
                found[op.key] = op
        return found

    def webhooks(self) -> dict[str, dict[tuple[str, str], Operation]]:
        """Each webhook's operations, keyed like paths (`webhook NAME`)."""
        hooks = self.raw.get("webhooks")
        found: dict[str, dict[tuple[str, str], Operation]] = {}
        for name, raw_item in (hooks if isinstance(hooks, dict) else {}).items():
            ops = self._item_operations(f"webhook {name}", self.node(raw_item), "")
            found[str(name)] = {op.key: op for op in ops}
        return found

    def _item_operations(self, path: str, item: dict[str, Any], prefix: str) -> list[Operation]:
        shared = [self.node(p) for p in item.get("parameters") or [] if p is not None]
        ops = []
        for method in HTTP_METHODS:
            raw = item.get(method)
            if not isinstance(raw, dict):
                continue
            ops.append(
                Operation(
                    method=method.upper(),
                    full_path=prefix + path,
                    node=raw,
                    params=self._parameters(path, shared, raw),
                    security=raw["security"] if "security" in raw else self.raw.get("security"),
                    shared=self._shared_only(path, shared, raw),
                )
            )
        return ops

    def _shared_only(
        self, path: str, shared: list[dict[str, Any]], raw: dict[str, Any]
    ) -> frozenset[tuple[str, str]]:
        names = re.findall(r"\{([^}]+)\}", path)
        own = {param_key(self.node(p), names) for p in raw.get("parameters") or [] if p is not None}
        return frozenset(param_key(p, names) for p in shared) - own

    def _parameters(
        self, path: str, shared: list[dict[str, Any]], raw: dict[str, Any]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        own = [self.node(p) for p in raw.get("parameters") or [] if p is not None]
        names = re.findall(r"\{([^}]+)\}", path)
        params: dict[tuple[str, str], dict[str, Any]] = {}
        for param in [*shared, *own]:  # the operation's own override the path item's
            params[param_key(param, names)] = param
        return params


def server_prefix(servers: Any, default: str = "") -> str:
    """The path part of the first server URL (variables at their defaults), e.g. `/api/v1`.

    A URL without a scheme that does not start with `/` (`tufin.com`, `api.example.com/v2`)
    starts with a host, not a path.
    """
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return default
    server = servers[0]
    url = str(server.get("url", "/"))
    for name, variable in (server.get("variables") or {}).items():
        if isinstance(variable, dict):
            url = url.replace("{" + str(name) + "}", str(variable.get("default", "")))
    if "://" not in url and not url.startswith("/"):
        url = "//" + url
    try:
        return urlsplit(url).path.rstrip("/")
    except ValueError:
        return default


def param_key(param: dict[str, Any], path_names: list[str]) -> tuple[str, str]:
    """Path parameters are matched by position (renaming `{id}` changes nothing on the wire)."""
    location, name = str(param.get("in", "")), str(param.get("name", ""))
    if location == "path" and name in path_names:
        return (location, str(path_names.index(name)))
    if location == "header":
        return (location, name.lower())
    return (location, name)


def parse_sunset(value: Any) -> datetime.date | str | None:
    """An `x-sunset` as a date; None when absent; the raw text when it is not a date."""
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value)[:10])
    except ValueError:
        return str(value)
