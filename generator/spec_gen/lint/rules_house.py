"""The `house` rule profile: conventions a team can opt into, beyond what generation needs.

Switched on in `[tool.spec-gen.lint]` (`extends = ["house"]`); each rule id can then be set
to off / warn / error. The operation extensions the `x-tier`-style rules require, and the
values each may take, are options (`operation-extensions`), defaulted below.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.lint_rules import ExtensionRule, Rule
from ..core.naming import is_pascal_identifier, is_snake_identifier
from ..core.where import at
from ..document.openapi import METHODS, SCHEMA_REF
from ..document.pointer import join_pointer
from ..document.refs import deref
from .findings import RawFinding

# extension -> allowed values; every operation must carry each one (set by the project, e.g.
# operation-extensions = { x-tier = ["read", "write"], x-pagination = ["page", "none"] })
DEFAULT_EXTENSIONS: dict[str, tuple[str, ...]] = {}
DEFAULT_BOUNDS = {
    "page_minimum": 1,
    "page_default": 1,
    "limit_minimum": 1,
    "limit_maximum": 200,
    "limit_default": 50,
    "offset_minimum": 0,
    "offset_default": 0,
}


class HouseRules:
    def __init__(self, document: dict[str, Any], options: dict[str, Any]) -> None:
        self.doc = document
        self.out: list[RawFinding] = []
        extensions = options.get("operation-extensions")
        self.extensions: dict[str, tuple[str, ...]] = {
            str(k): tuple(str(x) for x in v)
            for k, v in (DEFAULT_EXTENSIONS if extensions is None else extensions).items()
        }
        self.bounds = {**DEFAULT_BOUNDS, **(document.get("x-pagination-bounds") or {})}
        scopes = document.get("x-scopes")
        self.scopes = set(scopes) if isinstance(scopes, (dict, list)) else None

    def add(self, pointer: str, rule: Rule | ExtensionRule, message: str) -> None:
        self.out.append(RawFinding(pointer, rule, message))

    def deref(self, node: Any) -> Any:
        return deref(self.doc, node)

    def run(self) -> list[RawFinding]:
        self.schema_names()
        ids: dict[str, str] = {}
        client_names: dict[tuple[str, str], str] = {}
        declared_tags = {t.get("name") for t in self.doc.get("tags") or []}
        for path, item in (self.doc.get("paths") or {}).items():
            item = self.deref(item)
            if str(path).startswith("x-") or not isinstance(item, dict):
                continue
            for method in METHODS:
                if method in item:
                    here = join_pointer("", "paths", path, method)
                    with at(here):
                        self.operation(
                            here, path, item, item[method], ids, declared_tags, client_names
                        )
        return self.out

    def schema_names(self) -> None:
        for name in (self.doc.get("components") or {}).get("schemas") or {}:
            if not is_pascal_identifier(name):
                self.add(
                    join_pointer("/components/schemas", name),
                    Rule.SCHEMA_NAME,
                    f"schema name {name!r} must be a PascalCase identifier that shadows no builtin",
                )

    def operation(
        self,
        here: str,
        path: str,
        item: dict[str, Any],
        op: dict[str, Any],
        ids: dict[str, str],
        declared_tags: set[Any],
        client_names: dict[tuple[str, str], str],
    ) -> None:
        op_id = op.get("operationId")
        if not isinstance(op_id, str):
            self.add(here, Rule.OPERATION_ID, "operation has no operationId")
        elif not is_snake_identifier(op_id):
            self.add(
                join_pointer(here, "operationId"),
                Rule.OPERATION_ID,
                f"operationId {op_id!r} is not snake_case",
            )
        else:
            ids[op_id] = here  # duplicates: the default profile's operation-id-unique
        tags = op.get("tags") or []
        if len(tags) != 1:
            self.add(here, Rule.ONE_TAG, f"an operation carries exactly one tag, found {len(tags)}")
        elif declared_tags and tags[0] not in declared_tags:
            self.add(
                join_pointer(here, "tags", 0),
                Rule.ONE_TAG,
                f"tag {tags[0]!r} is not declared in the root tags",
            )
        for key, allowed in self.extensions.items():
            self.enum_extension(here, op, key, allowed, required=True)
        scope = op.get("x-scope")
        if scope is not None:
            if self.scopes is not None and scope not in self.scopes:
                self.add(
                    join_pointer(here, "x-scope"),
                    Rule.X_SCOPE,
                    f"x-scope {scope!r} is not declared in the root x-scopes",
                )
            elif not re.fullmatch(r"[a-z][a-z_]*:[a-z][a-z_]*", str(scope)):
                self.add(
                    join_pointer(here, "x-scope"),
                    Rule.X_SCOPE,
                    f"x-scope {scope!r} is not of the form area:action",
                )
        if op.get("x-lifecycle") == "preview" and not op.get("x-feature-flag"):
            self.add(
                here, Rule.PREVIEW_FLAG, "a preview operation names its gate in x-feature-flag"
            )
        if op.get("x-feature-flag") and op.get("x-lifecycle") != "preview":
            self.add(
                join_pointer(here, "x-feature-flag"),
                Rule.PREVIEW_FLAG,
                "x-feature-flag is only for preview operations",
            )
        for key, value in op.items():
            if key == "x-provisional" and not isinstance(value, bool):
                self.add(
                    join_pointer(here, key), Rule.X_PROVISIONAL, "x-provisional is true or false"
                )
        namespace = str(op.get("x-client-namespace") or (tags[0] if tags else ""))
        method = str(op.get("x-client-method") or op_id)
        if (namespace, method) in client_names:
            self.add(
                here,
                Rule.CLIENT_NAME,
                f"client method {namespace}.{method} is also used at {client_names[(namespace, method)]}",
            )
        client_names[(namespace, method)] = here
        params = self.params(here, item, op)
        self.pagination(here, op, params)
        self.error_responses(here, op)

    def enum_extension(
        self, here: str, op: dict[str, Any], key: str, allowed: tuple[str, ...], required: bool
    ) -> None:
        if key not in op:
            if required:
                self.add(
                    here, ExtensionRule(key), f"{key} is missing (one of {', '.join(allowed)})"
                )
        elif op[key] not in allowed:
            self.add(
                join_pointer(here, key),
                ExtensionRule(key),
                f"{key} is {op[key]!r}, not one of {', '.join(allowed)}",
            )

    def params(
        self, here: str, item: dict[str, Any], op: dict[str, Any]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for param in list(item.get("parameters") or []) + list(op.get("parameters") or []):
            param = self.deref(param)
            if isinstance(param, dict) and "name" in param:
                found[(str(param["name"]), str(param.get("in")))] = param
        return found

    def pagination(
        self, here: str, op: dict[str, Any], params: dict[tuple[str, str], dict[str, Any]]
    ) -> None:
        kind = op.get("x-pagination")
        b = self.bounds
        if kind == "page":
            self.bounded(here, params, "page", b["page_minimum"], None, b["page_default"])
            self.bounded(
                here, params, "limit", b["limit_minimum"], b["limit_maximum"], b["limit_default"]
            )
            if not self.success_has_pagination(op):
                self.add(
                    here,
                    Rule.PAGINATION,
                    "a page-paginated operation's response carries a `pagination` object",
                )
        elif kind == "offset":
            self.bounded(here, params, "offset", b["offset_minimum"], None, b["offset_default"])
            self.bounded(here, params, "limit", b["limit_minimum"], None, None)

    def bounded(
        self,
        here: str,
        params: dict[tuple[str, str], dict[str, Any]],
        name: str,
        minimum: int | None,
        maximum: int | None,
        default: int | None,
    ) -> None:
        param = params.get((name, "query"))
        if param is None:
            self.add(
                here, Rule.PAGINATION, f"paginated operation lacks the query parameter {name!r}"
            )
            return
        schema = self.deref(param.get("schema") or {})
        expected = {"minimum": minimum, "default": default, "maximum": maximum}
        if schema.get("type") != "integer":
            self.add(here, Rule.PAGINATION, f"query parameter {name!r} must be an integer")
        for key, value in expected.items():
            if value is None:
                continue
            if key == "maximum" and "maximum" in schema and schema["maximum"] <= value:
                continue
            if schema.get(key) != value:
                self.add(
                    here,
                    Rule.PAGINATION,
                    f"query parameter {name!r} must have {key} {value} (has {schema.get(key)!r})",
                )

    def success_has_pagination(self, op: dict[str, Any]) -> bool:
        for status, response in (op.get("responses") or {}).items():
            if str(status).startswith("2"):
                media = (self.deref(response).get("content") or {}).get("application/json") or {}
                schema = self.deref(media.get("schema") or {})
                if "pagination" in (schema.get("properties") or {}):
                    return True
        return False

    def error_responses(self, here: str, op: dict[str, Any]) -> None:
        for status, response in (op.get("responses") or {}).items():
            if str(status)[:1] not in ("4", "5"):
                continue
            at = join_pointer(here, "responses", str(status))
            for media in (self.deref(response).get("content") or {}).values():
                schema = media.get("schema") or {}
                ref = schema.get("$ref", "")
                if not str(ref).startswith(SCHEMA_REF):
                    self.add(
                        at,
                        Rule.ERROR_SCHEMA,
                        f"the {status} response must use a shared error schema ($ref to components/schemas)",
                    )
                    continue
                detail = (self.deref(schema).get("properties") or {}).get("detail") or {}
                is_array = self.deref(detail).get("type") == "array"
                if (str(status) == "422") != is_array:
                    want = (
                        "a `detail` array (loc, msg, type)"
                        if str(status) == "422"
                        else "a `detail` message string"
                    )
                    self.add(
                        at, Rule.ERROR_SCHEMA, f"the {status} response's schema must carry {want}"
                    )


def house_findings(document: dict[str, Any], options: dict[str, Any]) -> list[RawFinding]:
    return HouseRules(document, options).run()
