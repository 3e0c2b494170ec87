"""`spec-gen diff`: the changes between two OpenAPI documents, each judged breaking or not.

Compares two bundled documents operation by operation (method + full path, the server
prefix included), following `$ref`s into component schemas. Every change names a rule
of `RULES`; a rule's verdict follows oasdiff's published breaking-change checks
(https://github.com/oasdiff/oasdiff): its ERR checks are `breaking`, its WARN checks
`warning`, its INFO checks `non-breaking`. The project's operation extensions (`x-tier`,
`x-scope`, `x-lifecycle`, `x-feature-flag`) get rules of their own.

Schema rules are judged by direction: a request schema that accepts less (a narrower
type, a removed enum value, a lower maxLength) breaks clients that send what it used to
accept; a response schema that returns more (an added enum value, a higher maxLength,
a property that may now be missing) breaks clients that parse what it used to return.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from .diff_rules import CONSTRAINTS, LEVELS, RULES, Level
from .load import bundle, resolve_pointer

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
TIERS = ("read", "write", "billable")  # x-tier, lowest first
MAX_DEPTH = 64  # schema nesting followed before giving up (recursion is also cut by $ref)


# -- changes and reports ----------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    rule: str
    method: str  # upper case
    path: str  # full path, server prefix included
    message: str

    @property
    def level(self) -> Level:
        return RULES[self.rule].level

    @property
    def operation(self) -> str:
        return f"{self.method} {self.path}"

    def sort_key(self) -> tuple[int, str, int, str, str]:
        method = self.method.lower()
        order = HTTP_METHODS.index(method) if method in HTTP_METHODS else len(HTTP_METHODS)
        return (LEVELS.index(self.level), self.path, order, self.rule, self.message)

    def as_json(self) -> dict[str, str]:
        return {
            "level": self.level,
            "rule": self.rule,
            "operation": self.operation,
            "method": self.method,
            "path": self.path,
            "message": self.message,
        }


@dataclass
class Report:
    old: str  # how the two sides were named on the command line
    new: str
    changes: list[Change]

    def count(self, level: Level) -> int:
        return sum(1 for change in self.changes if change.level == level)

    def fails(self, fail_on: Level | None) -> bool:
        if fail_on is None:
            return False
        worst = LEVELS.index(fail_on)
        return any(LEVELS.index(change.level) <= worst for change in self.changes)


def diff_documents(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change from `old` to `new` (bundled documents), in report order."""
    differ = _Differ(_Doc(old), _Doc(new))
    differ.run()
    return sorted(set(differ.changes), key=Change.sort_key)


def diff_specs(old_root: Path, new_root: Path) -> list[Change]:
    """Bundle two root spec files (each may `$ref` others) and compare them."""
    return diff_documents(bundle(old_root).document, bundle(new_root).document)


def _cell(text: str) -> str:
    """Table-safe: GitHub reads `\\|` as a pipe even inside code spans."""
    return text.replace("|", "\\|").replace("\n", " ")


GROUPS: dict[Level, str] = {
    "breaking": "Breaking",
    "warning": "Warnings",
    "non-breaking": "Non-breaking",
}


def render_markdown(report: Report) -> str:
    counts = ", ".join(f"{report.count(level)} {GROUPS[level].lower()}" for level in LEVELS)
    lines = [f"## API changes: {counts}", "", f"Comparing `{report.old}` with `{report.new}`."]
    if not report.changes:
        lines += ["", "No changes to the API."]
    for level in LEVELS:
        group = [c for c in report.changes if c.level == level]
        if not group:
            continue
        lines += ["", f"### {GROUPS[level]} ({len(group)})", ""]
        lines += ["| Operation | Rule | Change |", "|---|---|---|"]
        lines += [f"| `{_cell(c.operation)}` | `{c.rule}` | {_cell(c.message)} |" for c in group]
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    payload = {
        "old": report.old,
        "new": report.new,
        "summary": {level: report.count(level) for level in LEVELS},
        "changes": [change.as_json() for change in report.changes],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


# -- reading a document -----------------------------------------------------------------


class _Doc:
    """A bundled document: local `$ref` resolution and its operations."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def deref(self, node: Any) -> tuple[Any, str | None]:
        """The node a (chain of) `$ref` points at, with sibling keywords applied, and the last ref."""
        ref = None
        for _ in range(MAX_DEPTH):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                break
            ref = node["$ref"]
            target = self._target(ref)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if siblings and isinstance(target, dict) else target
        return node, ref

    def node(self, value: Any) -> dict[str, Any]:
        resolved, _ = self.deref(value)
        return resolved if isinstance(resolved, dict) else {}

    def _target(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return {}  # a bundled document has only local references
        try:
            return resolve_pointer(self.raw, unquote(ref[1:]))
        except (KeyError, IndexError, ValueError, TypeError):
            return {}

    def operations(self) -> dict[tuple[str, str], _Operation]:
        root_prefix = _prefix(self.raw.get("servers"))
        found: dict[tuple[str, str], _Operation] = {}
        for path, raw_item in (self.raw.get("paths") or {}).items():
            item = self.node(raw_item)
            path_prefix = _prefix(item.get("servers"), root_prefix)
            shared = [self.node(p) for p in item.get("parameters") or []]
            for method in HTTP_METHODS:
                raw = item.get(method)
                if not isinstance(raw, dict):
                    continue
                op = _Operation(
                    method=method.upper(),
                    full_path=_prefix(raw.get("servers"), path_prefix) + str(path),
                    node=raw,
                    params=self._parameters(str(path), shared, raw),
                    security=raw["security"] if "security" in raw else self.raw.get("security"),
                )
                found[op.key] = op
        return found

    def _parameters(
        self, path: str, shared: list[dict[str, Any]], raw: dict[str, Any]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        own = [self.node(p) for p in raw.get("parameters") or []]
        names = re.findall(r"\{([^}]+)\}", path)
        params: dict[tuple[str, str], dict[str, Any]] = {}
        for param in [*shared, *own]:  # the operation's own override the path item's
            params[_param_key(param, names)] = param
        return params


def _prefix(servers: Any, default: str = "") -> str:
    """The path part of the first server URL (variables at their defaults), e.g. `/api/v1`."""
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return default
    server = servers[0]
    url = str(server.get("url", "/"))
    for name, variable in (server.get("variables") or {}).items():
        if isinstance(variable, dict):
            url = url.replace("{" + str(name) + "}", str(variable.get("default", "")))
    return urlsplit(url).path.rstrip("/")


def _param_key(param: dict[str, Any], path_names: list[str]) -> tuple[str, str]:
    """Path parameters are matched by position (renaming `{id}` changes nothing on the wire)."""
    location, name = str(param.get("in", "")), str(param.get("name", ""))
    if location == "path" and name in path_names:
        return (location, str(path_names.index(name)))
    if location == "header":
        return (location, name.lower())
    return (location, name)


@dataclass
class _Operation:
    method: str
    full_path: str
    node: dict[str, Any]
    params: dict[tuple[str, str], dict[str, Any]]
    security: Any

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


# -- where a schema sits ----------------------------------------------------------------


@dataclass(frozen=True)
class _Where:
    side: Literal["request", "response"]
    root_family: str  # rule id family at the top of the schema
    nested_family: str  # rule id family inside it
    root: str  # how the top is named in messages
    nested: str  # how a property is named; `@` stands for its dotted path

    def family(self, path: str) -> str:
        return self.nested_family if path else self.root_family

    def subject(self, path: str) -> str:
        return self.nested.replace("@", path) if path else self.root


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _value(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _types(schema: dict[str, Any]) -> tuple[frozenset[str], bool]:
    """The non-null types a schema names (inferred from properties/items when unnamed), and nullability."""
    declared = schema.get("type")
    names = (
        {str(t) for t in declared}
        if isinstance(declared, list)
        else ({str(declared)} if declared is not None else set())
    )
    nullable = "null" in names or schema.get("nullable") is True
    names.discard("null")
    if not names and "properties" in schema:
        names = {"object"}
    if not names and "items" in schema:
        names = {"array"}
    return frozenset(names), nullable


def _accepts(types: frozenset[str], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def _type_relation(
    old_types: frozenset[str], old_format: Any, new_types: frozenset[str], new_format: Any
) -> str:
    """`same`, `widened` (new accepts everything old did), `narrowed`, or `changed`."""
    widened = all(_accepts(new_types, t) for t in old_types)
    narrowed = all(_accepts(old_types, t) for t in new_types)
    if old_types == new_types:
        widened = narrowed = True
    if old_format != new_format and old_types & new_types:
        widened = widened and new_format is None  # dropping a format widens; anything else narrows
        narrowed = narrowed and old_format is None
    if widened and narrowed:
        return "same"
    return "widened" if widened else "narrowed" if narrowed else "changed"


def _type_text(types: frozenset[str], fmt: Any) -> str:
    text = "|".join(sorted(types)) or "any"
    return f"`{text}` (format `{fmt}`)" if fmt is not None else f"`{text}`"


def _tier_rank(tier: Any) -> int | None:
    """0 for read (or none: every key can read), None for a tier the project does not know."""
    if tier is None:
        return 0
    return TIERS.index(tier) if tier in TIERS else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# -- the comparison ---------------------------------------------------------------------


@dataclass
class _Differ:
    old: _Doc
    new: _Doc
    changes: list[Change] = field(default_factory=list)
    _method: str = ""
    _path: str = ""

    def emit(self, rule: str, message: str) -> None:
        if rule not in RULES:
            raise KeyError(f"no rule {rule!r}")
        self.changes.append(Change(rule, self._method, self._path, message))

    def at(self, op: _Operation) -> None:
        self._method, self._path = op.method, op.full_path

    # -- operations ---------------------------------------------------------------------

    def run(self) -> None:
        old_ops, new_ops = self.old.operations(), self.new.operations()
        removed = [op for key, op in old_ops.items() if key not in new_ops]
        added = [op for key, op in new_ops.items() if key not in old_ops]
        moved_to = self._moves(removed, added)
        new_paths = {key[1] for key in new_ops}
        for op in removed:
            self.at(op)
            target = moved_to.get(id(op))
            if target is not None:
                self.emit(
                    "api-operation-moved",
                    f"operation `{op.operation_id}` moved to {target.label}:"
                    f" calls to {op.label} no longer reach it",
                )
                self.operation(op, target)
            elif op.deprecated:
                self.emit("api-removed-with-deprecation", "deprecated operation removed")
            elif op.key[1] not in new_paths:
                self.emit(
                    "api-path-removed-without-deprecation", "path removed without deprecation"
                )
            else:
                self.emit(
                    "api-removed-without-deprecation", "operation removed without deprecation"
                )
        moved_ids = {id(target) for target in moved_to.values()}
        for op in added:
            if id(op) not in moved_ids:
                self.at(op)
                name = f" `{op.operation_id}`" if op.operation_id else ""
                self.emit("endpoint-added", f"new operation{name}")
        for key, old_op in old_ops.items():
            if key in new_ops:
                self.operation(old_op, new_ops[key])

    @staticmethod
    def _moves(removed: list[_Operation], added: list[_Operation]) -> dict[int, _Operation]:
        """A removed operation whose operationId reappears on an added one has moved."""
        by_id = {op.operation_id: op for op in added if op.operation_id}
        return {
            id(op): by_id[op.operation_id]
            for op in removed
            if op.operation_id and op.operation_id in by_id
        }

    def operation(self, old: _Operation, new: _Operation) -> None:
        self.at(new)
        self.metadata(old, new)
        self.extensions(old.node, new.node)
        self.security(old.security, new.security)
        self.parameters(old, new)
        self.request_body(old.node.get("requestBody"), new.node.get("requestBody"))
        self.responses(old.node.get("responses") or {}, new.node.get("responses") or {})

    def metadata(self, old: _Operation, new: _Operation) -> None:
        if old.operation_id != new.operation_id and old.key == new.key:
            self.emit(
                "api-operation-id-changed",
                f"operationId changed from `{old.operation_id}` to `{new.operation_id}`",
            )
        for key, rule in (
            ("summary", "api-summary-changed"),
            ("description", "api-description-changed"),
        ):
            if old.node.get(key) != new.node.get(key):
                self.emit(rule, f"{key} changed")
        if not old.deprecated and new.deprecated:
            self.emit("endpoint-deprecated", "operation deprecated")
        if old.deprecated and not new.deprecated:
            self.emit("endpoint-reactivated", "operation no longer deprecated")

    def extensions(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.tier(old.get("x-tier"), new.get("x-tier"))
        self.scope(old.get("x-scope"), new.get("x-scope"))
        self.lifecycle(old.get("x-lifecycle", "active"), new.get("x-lifecycle", "active"))
        self.feature_flag(old.get("x-feature-flag"), new.get("x-feature-flag"))

    def tier(self, old_tier: Any, new_tier: Any) -> None:
        old_rank, new_rank = _tier_rank(old_tier), _tier_rank(new_tier)
        text = f"`x-tier` changed from `{old_tier}` to `{new_tier}`"
        if old_tier == new_tier:
            pass
        elif old_rank is None or new_rank is None:
            self.emit("api-tier-changed", text)
        elif new_rank > old_rank:
            self.emit("api-tier-raised", f"{text}: keys below `{new_tier}` are refused (403)")
        elif new_rank < old_rank:
            self.emit("api-tier-lowered", text)

    def scope(self, old_scope: Any, new_scope: Any) -> None:
        if old_scope is None and new_scope is not None:
            self.emit("api-scope-added", f"`x-scope: {new_scope}` added: keys without it get 403")
        elif old_scope is not None and new_scope is None:
            self.emit("api-scope-removed", f"`x-scope: {old_scope}` removed")
        elif old_scope != new_scope:
            self.emit("api-scope-changed", f"`x-scope` changed from `{old_scope}` to `{new_scope}`")

    def lifecycle(self, old_life: Any, new_life: Any) -> None:
        if old_life != "preview" and new_life == "preview":
            self.emit("api-lifecycle-became-preview", "moved back to preview: 404 until enabled")
        elif old_life == "preview" and new_life != "preview":
            self.emit("api-lifecycle-became-active", f"`x-lifecycle` preview to `{new_life}`")

    def feature_flag(self, old_flag: Any, new_flag: Any) -> None:
        if old_flag is None and new_flag is not None:
            self.emit("api-feature-flag-added", f"gated by `{new_flag}`: 404 until enabled")
        elif old_flag is not None and new_flag is None:
            self.emit("api-feature-flag-removed", f"no longer gated by `{old_flag}`")
        elif old_flag != new_flag:
            self.emit(
                "api-feature-flag-changed",
                f"gate changed from `{old_flag}` to `{new_flag}`: organisations enabled"
                f" for `{old_flag}` get 404",
            )

    def security(self, old: Any, new: Any) -> None:
        old_alts, new_alts = _security_alternatives(old), _security_alternatives(new)
        old_open = not old_alts or frozenset() in old_alts
        new_open = not new_alts or frozenset() in new_alts
        if old_open and not new_open:
            names = " or ".join(sorted(" + ".join(sorted(a)) for a in new_alts))
            self.emit("api-security-became-required", f"now requires authentication ({names})")
            return
        if not old_open and new_open:
            self.emit("api-security-became-optional", "anonymous calls now allowed")
            return
        for alt, scopes in old_alts.items():
            if not alt:
                continue
            name = " + ".join(sorted(alt))
            if alt not in new_alts:
                self.emit("api-security-removed", f"security requirement `{name}` removed")
                continue
            for scheme in sorted(alt):
                for scope in sorted(new_alts[alt][scheme] - scopes[scheme]):
                    self.emit(
                        "api-security-scope-added", f"scope `{scope}` required for `{scheme}`"
                    )
                for scope in sorted(scopes[scheme] - new_alts[alt][scheme]):
                    self.emit("api-security-scope-removed", f"scope `{scope}` no longer required")
        for alt in new_alts:
            if alt and alt not in old_alts:
                self.emit(
                    "api-security-added", f"security requirement `{' + '.join(sorted(alt))}` added"
                )

    # -- parameters ---------------------------------------------------------------------

    def parameters(self, old: _Operation, new: _Operation) -> None:
        for key in [*old.params, *(k for k in new.params if k not in old.params)]:
            old_param, new_param = old.params.get(key), new.params.get(key)
            param = new_param or old_param or {}
            name = f"{param.get('in')} parameter `{param.get('name')}`"
            if new_param is None:
                assert old_param is not None
                if old_param.get("deprecated"):
                    self.emit(
                        "request-parameter-removed-with-deprecation", f"deprecated {name} removed"
                    )
                else:
                    self.emit("request-parameter-removed", f"removed the {name}")
                continue
            if old_param is None:
                if new_param.get("required"):
                    self.emit("new-required-request-parameter", f"added the required {name}")
                else:
                    self.emit("new-optional-request-parameter", f"added the optional {name}")
                continue
            if not old_param.get("required") and new_param.get("required"):
                self.emit("request-parameter-became-required", f"the {name} became required")
            if old_param.get("required") and not new_param.get("required"):
                self.emit("request-parameter-became-optional", f"the {name} became optional")
            if not old_param.get("deprecated") and new_param.get("deprecated"):
                self.emit("request-parameter-deprecated", f"the {name} is deprecated")
            where = _Where(
                "request",
                "request-parameter",
                "request-parameter",
                f"the {name}",
                f"`@` of the {name}",
            )
            self.schema(old_param.get("schema"), new_param.get("schema"), where)

    # -- request body -------------------------------------------------------------------

    def request_body(self, old_raw: Any, new_raw: Any) -> None:
        if old_raw is None and new_raw is None:
            return
        old, new = self.old.node(old_raw), self.new.node(new_raw)
        if old_raw is None:
            if new.get("required"):
                self.emit("added-required-request-body", "added a required request body")
            else:
                self.emit("added-optional-request-body", "added an optional request body")
            return
        if new_raw is None:
            self.emit("request-body-removed", "removed the request body")
            return
        if not old.get("required") and new.get("required"):
            self.emit("request-body-became-required", "the request body became required")
        if old.get("required") and not new.get("required"):
            self.emit("request-body-became-optional", "the request body became optional")
        old_content, new_content = old.get("content") or {}, new.get("content") or {}
        for media in old_content:
            if media not in new_content:
                self.emit(
                    "request-body-media-type-removed", f"request media type `{media}` removed"
                )
        for media in new_content:
            if media not in old_content:
                self.emit("request-body-media-type-added", f"request media type `{media}` added")
        common = [m for m in old_content if m in new_content]
        for media in common:
            suffix = f" ({media})" if len(common) > 1 else ""
            where = _Where(
                "request",
                "request-body",
                "request-property",
                f"the request body{suffix}",
                f"request property `@`{suffix}",
            )
            self.schema(
                self.old.node(old_content[media]).get("schema"),
                self.new.node(new_content[media]).get("schema"),
                where,
            )

    # -- responses ----------------------------------------------------------------------

    def responses(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for status in old:
            if status not in new:
                if str(status).startswith("2"):
                    self.emit("response-success-status-removed", f"removed the {status} response")
                else:
                    self.emit(
                        "response-non-success-status-removed", f"removed the {status} response"
                    )
        for status in new:
            if status not in old:
                if str(status).startswith("2"):
                    self.emit("response-success-status-added", f"added the {status} response")
                else:
                    self.emit("response-non-success-status-added", f"added the {status} response")
        for status, old_response in old.items():
            if status in new:
                self.response(str(status), self.old.node(old_response), self.new.node(new[status]))

    def response(self, status: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.headers(status, old.get("headers") or {}, new.get("headers") or {})
        if not status.startswith("2"):
            return  # error bodies are shared components; their changes are not per operation
        old_content, new_content = old.get("content") or {}, new.get("content") or {}
        for media in old_content:
            if media not in new_content:
                self.emit(
                    "response-media-type-removed", f"{status} response media type `{media}` removed"
                )
        for media in new_content:
            if media not in old_content:
                self.emit(
                    "response-media-type-added", f"{status} response media type `{media}` added"
                )
        common = [m for m in old_content if m in new_content]
        for media in common:
            suffix = f", {media}" if len(common) > 1 else ""
            where = _Where(
                "response",
                "response-body",
                "response-property",
                f"the {status} response body{suffix}",
                f"response property `@` ({status}{suffix})",
            )
            self.schema(
                self.old.node(old_content[media]).get("schema"),
                self.new.node(new_content[media]).get("schema"),
                where,
            )

    def headers(self, status: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        old_h = {str(k).lower(): (str(k), self.old.node(v)) for k, v in old.items()}
        new_h = {str(k).lower(): (str(k), self.new.node(v)) for k, v in new.items()}
        for key, (name, header) in old_h.items():
            if key not in new_h:
                rule = "required" if header.get("required") else "optional"
                self.emit(
                    f"{rule}-response-header-removed", f"{status} response header `{name}` removed"
                )
            elif header.get("required") and not new_h[key][1].get("required"):
                self.emit(
                    "response-header-became-optional",
                    f"{status} response header `{name}` became optional",
                )
        for key, (name, _) in new_h.items():
            if key not in old_h:
                self.emit("response-header-added", f"{status} response header `{name}` added")

    # -- schemas ------------------------------------------------------------------------

    def schema(
        self,
        old_raw: Any,
        new_raw: Any,
        where: _Where,
        path: str = "",
        seen: frozenset[tuple[str, str]] = frozenset(),
        depth: int = 0,
    ) -> None:
        old, old_ref = self.old.deref(old_raw)
        new, new_ref = self.new.deref(new_raw)
        if old_ref is not None and new_ref is not None:
            if (old_ref, new_ref) in seen:
                return  # a recursive schema, already being compared further up
            seen = seen | {(old_ref, new_ref)}
        if depth > MAX_DEPTH or not isinstance(old, dict) or not isinstance(new, dict):
            return
        old, new = _flatten(self.old, old), _flatten(self.new, new)
        if not self.types(old, new, where, path):
            return
        self.enum(old, new, where, path)
        self.pattern(old, new, where, path)
        self.constraints(old, new, where, path)
        self.properties(old, new, where, path, seen, depth)
        if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
            self.schema(old["items"], new["items"], where, f"{path}[]", seen, depth + 1)
        for keyword, part in (("oneOf", "one-of"), ("anyOf", "any-of")):
            if keyword in old or keyword in new:
                self.branches(keyword, part, old, new, where, path, seen, depth)

    def types(self, old: dict[str, Any], new: dict[str, Any], where: _Where, path: str) -> bool:
        """Report type and nullability changes; False when the types share nothing more to compare."""
        family, subject = where.family(path), where.subject(path)
        old_types, old_null = _types(old)
        new_types, new_null = _types(new)
        if old_types and new_types:
            relation = _type_relation(old_types, old.get("format"), new_types, new.get("format"))
            text = (
                f"{subject} changed type from {_type_text(old_types, old.get('format'))}"
                f" to {_type_text(new_types, new.get('format'))}"
            )
            benign = "widened" if where.side == "request" else "narrowed"
            if relation == benign:
                suffix = "generalized" if where.side == "request" else "specialized"
                self.emit(f"{family}-type-{suffix}", text)
            elif relation != "same":
                self.emit(f"{family}-type-changed", text)
            comparable = any(_accepts(new_types, t) for t in old_types) or any(
                _accepts(old_types, t) for t in new_types
            )
            if not comparable:
                return False  # e.g. object to string: nothing inside is worth comparing
        if old_null != new_null:
            became = "became-nullable" if new_null else "became-not-nullable"
            self.emit(
                f"{family}-{became}",
                f"{subject} {'is now' if new_null else 'is no longer'} nullable",
            )
        return True

    def enum(self, old: dict[str, Any], new: dict[str, Any], where: _Where, path: str) -> None:
        family, subject = where.family(path), where.subject(path)
        old_enum, new_enum = old.get("enum"), new.get("enum")
        if not isinstance(new_enum, list):
            return
        if not isinstance(old_enum, list):
            values = ", ".join(_value(v) for v in new_enum)
            self.emit(f"{family}-became-enum", f"{subject} restricted to {values}")
            return
        for value in old_enum:
            if value not in new_enum:
                self.emit(
                    f"{family}-enum-value-removed",
                    f"removed the enum value {_value(value)} of {subject}",
                )
        for value in new_enum:
            if value not in old_enum:
                self.emit(
                    f"{family}-enum-value-added",
                    f"added the enum value {_value(value)} to {subject}",
                )

    def pattern(self, old: dict[str, Any], new: dict[str, Any], where: _Where, path: str) -> None:
        family, subject = where.family(path), where.subject(path)
        old_p, new_p = old.get("pattern"), new.get("pattern")
        if old_p == new_p:
            return
        if old_p is None:
            self.emit(f"{family}-pattern-added", f"{subject} gained the pattern `{new_p}`")
        elif new_p is None:
            self.emit(f"{family}-pattern-removed", f"{subject} lost the pattern `{old_p}`")
        else:
            self.emit(
                f"{family}-pattern-changed",
                f"pattern of {subject} changed from `{old_p}` to `{new_p}`",
            )

    def constraints(
        self, old: dict[str, Any], new: dict[str, Any], where: _Where, path: str
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        for keyword, part, _ in CONSTRAINTS:
            old_v, new_v = old.get(keyword), new.get(keyword)
            old_v = old_v if _is_number(old_v) else None
            new_v = new_v if _is_number(new_v) else None
            if old_v == new_v:
                continue
            if old_v is None:
                self.emit(f"{family}-{part}-set", f"{subject} gained `{keyword}: {new_v}`")
            elif new_v is None:
                self.emit(f"{family}-{part}-removed", f"{subject} lost `{keyword}: {old_v}`")
            else:
                change = "increased" if new_v > old_v else "decreased"
                self.emit(
                    f"{family}-{part}-{change}",
                    f"`{keyword}` of {subject} {change} from {old_v} to {new_v}",
                )

    def properties(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        where: _Where,
        path: str,
        seen: frozenset[tuple[str, str]],
        depth: int,
    ) -> None:
        # a request never carries readOnly properties; a response never writeOnly ones
        hidden = "readOnly" if where.side == "request" else "writeOnly"
        old_props = {
            k: v
            for k, v in (old.get("properties") or {}).items()
            if not self.old.node(v).get(hidden)
        }
        new_props = {
            k: v
            for k, v in (new.get("properties") or {}).items()
            if not self.new.node(v).get(hidden)
        }
        old_req, new_req = set(old.get("required") or []), set(new.get("required") or [])
        request = where.side == "request"
        for name, old_prop in old_props.items():
            child = _child(path, name)
            subject = where.subject(child)
            if name not in new_props:
                if request:
                    self.emit("request-property-removed", f"removed {subject}")
                elif name in old_req:
                    self.emit(
                        "response-required-property-removed", f"removed the required {subject}"
                    )
                else:
                    self.emit(
                        "response-optional-property-removed", f"removed the optional {subject}"
                    )
                continue
            if name not in old_req and name in new_req:
                rule = (
                    "request-property-became-required"
                    if request
                    else "response-property-became-required"
                )
                self.emit(rule, f"{subject} became required")
            if name in old_req and name not in new_req:
                rule = (
                    "request-property-became-optional"
                    if request
                    else "response-property-became-optional"
                )
                self.emit(rule, f"{subject} became optional")
            self.schema(old_prop, new_props[name], where, child, seen, depth + 1)
        for name in new_props:
            if name in old_props:
                continue
            subject = where.subject(_child(path, name))
            required = name in new_req
            if request:
                rule = (
                    "new-required-request-property" if required else "new-optional-request-property"
                )
            else:
                rule = (
                    "response-required-property-added"
                    if required
                    else "response-optional-property-added"
                )
            self.emit(rule, f"added the {'required' if required else 'optional'} {subject}")

    def branches(
        self,
        keyword: str,
        part: str,
        old: dict[str, Any],
        new: dict[str, Any],
        where: _Where,
        path: str,
        seen: frozenset[tuple[str, str]],
        depth: int,
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        old_b, new_b = _branches(self.old, old.get(keyword)), _branches(self.new, new.get(keyword))
        for key, branch in old_b.items():
            if key not in new_b:
                self.emit(
                    f"{family}-{part}-removed",
                    f"removed the `{keyword}` branch `{key}` of {subject}",
                )
            else:
                self.schema(branch, new_b[key], where, path, seen, depth + 1)
        for key in new_b:
            if key not in old_b:
                self.emit(
                    f"{family}-{part}-added", f"added the `{keyword}` branch `{key}` to {subject}"
                )


def _branches(doc: _Doc, value: Any) -> dict[str, Any]:
    """`oneOf`/`anyOf` branches keyed by the schema they name (`$ref` name, `null`, or position)."""
    branches: dict[str, Any] = {}
    for index, branch in enumerate(value if isinstance(value, list) else []):
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            key = branch["$ref"].rsplit("/", 1)[-1]
        elif doc.node(branch).get("type") == "null":
            key = "null"
        else:
            key = f"#{index}"
        branches[key] = branch
    return branches


def _flatten(
    doc: _Doc, schema: dict[str, Any], refs: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Merge `allOf` parts into one schema: properties and required lists united."""
    if not isinstance(schema.get("allOf"), list):
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    properties = dict(merged.get("properties") or {})
    required = list(merged.get("required") or [])
    for part in schema["allOf"]:
        resolved, ref = doc.deref(part)
        if not isinstance(resolved, dict) or ref in refs:
            continue  # an allOf that includes itself adds nothing more
        resolved = _flatten(doc, resolved, refs | {ref} if ref else refs)
        for name, prop in (resolved.get("properties") or {}).items():
            properties.setdefault(name, prop)
        required += [r for r in resolved.get("required") or [] if r not in required]
        for key, value in resolved.items():
            if key not in ("properties", "required"):
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def _security_alternatives(requirements: Any) -> dict[frozenset[str], dict[str, set[str]]]:
    """Security requirement alternatives: scheme names -> scopes per scheme."""
    alternatives: dict[frozenset[str], dict[str, set[str]]] = {}
    for requirement in requirements if isinstance(requirements, list) else []:
        if not isinstance(requirement, dict):
            continue
        scopes = {str(k): {str(s) for s in v or []} for k, v in requirement.items()}
        alternatives[frozenset(scopes)] = scopes
    return alternatives
