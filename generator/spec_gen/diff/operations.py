"""Operations and webhooks: added, removed (deprecation, `x-sunset`, `x-stability-level`),
moved, and everything compared inside them; the project's `x-*` operation extensions."""

from __future__ import annotations

import datetime
from typing import Any

from .document import Operation, parse_sunset
from .messages import MessageDiffer

TIERS = ("read", "write", "billable")  # x-tier, lowest first
STABILITY = ("draft", "alpha", "beta", "stable")  # x-stability-level, lowest first


def _tier_rank(tier: Any) -> int | None:
    """0 for read (or none: every key can read), None for a tier the project does not know."""
    if tier is None:
        return 0
    return TIERS.index(tier) if tier in TIERS else None


def stability(op: Operation) -> str | None:
    """The operation's `x-stability-level` (stable when absent), None when not a known level."""
    level = op.node.get("x-stability-level", "stable")
    return level if level in STABILITY else None


def sunset(op: Operation) -> datetime.date | None | str:
    """The operation's `x-sunset` date; None when absent; the raw text when not a date."""
    return parse_sunset(op.node.get("x-sunset"))


def _security_alternatives(requirements: Any) -> dict[frozenset[str], dict[str, set[str]]]:
    """Security requirement alternatives: scheme names -> scopes per scheme."""
    alternatives: dict[frozenset[str], dict[str, set[str]]] = {}
    for requirement in requirements if isinstance(requirements, list) else []:
        if not isinstance(requirement, dict):
            continue
        scopes = {str(k): {str(s) for s in v or []} for k, v in requirement.items()}
        alternatives[frozenset(scopes)] = scopes
    return alternatives


class Differ(MessageDiffer):
    today: datetime.date = datetime.date.today()

    def run(self) -> None:
        self.operations(self.old.operations(), self.new.operations())
        old_hooks, new_hooks = self.old.webhooks(), self.new.webhooks()
        for name in sorted(set(old_hooks) | set(new_hooks)):
            self.method, self.path = "", f"webhook {name}"
            if name not in new_hooks:
                self.emit("webhook-removed", f"webhook `{name}` removed")
            elif name not in old_hooks:
                self.emit("webhook-added", f"webhook `{name}` added")
            else:
                self.operations(old_hooks[name], new_hooks[name], webhook=True)

    def operations(
        self,
        old_ops: dict[tuple[str, str], Operation],
        new_ops: dict[tuple[str, str], Operation],
        webhook: bool = False,
    ) -> None:
        removed = [op for key, op in old_ops.items() if key not in new_ops]
        added = [op for key, op in new_ops.items() if key not in old_ops]
        moved_to = {} if webhook else self._moves(removed, added)
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
            else:
                self.removal(op, whole_path=op.key[1] not in new_paths)
        moved_ids = {id(target) for target in moved_to.values()}
        for op in added:
            if id(op) not in moved_ids:
                self.at(op)
                name = f" `{op.operation_id}`" if op.operation_id else ""
                self.emit("endpoint-added", f"new operation{name}")
        for key, old_op in old_ops.items():
            if key in new_ops:
                self.operation(old_op, new_ops[key])

    def removal(self, op: Operation, whole_path: bool) -> None:
        if stability(op) in ("draft", "alpha"):
            return  # oasdiff: draft and alpha operations may go without notice
        scope = "api-path" if whole_path else "api"
        what = "path" if whole_path else "operation"
        if not op.deprecated:
            self.emit(f"{scope}-removed-without-deprecation", f"{what} removed without deprecation")
            return
        date = sunset(op)
        if isinstance(date, str):
            self.emit("api-path-sunset-parse", f"`x-sunset: {date}` is not a date")
        elif date is not None and self.today < date:
            self.emit(
                f"{scope}-removed-before-sunset",
                f"deprecated {what} removed before its sunset {date}",
            )
        else:
            self.emit(f"{scope}-removed-with-deprecation", f"deprecated {what} removed")

    @staticmethod
    def _moves(removed: list[Operation], added: list[Operation]) -> dict[int, Operation]:
        """A removed operation whose operationId reappears on an added one has moved."""
        by_id = {op.operation_id: op for op in added if op.operation_id}
        return {
            id(op): by_id[op.operation_id]
            for op in removed
            if op.operation_id and op.operation_id in by_id
        }

    def operation(self, old: Operation, new: Operation) -> None:
        self.at(new)
        self.metadata(old, new)
        self.deprecation(old, new)
        self.stability(old, new)
        self.extensions(old.node, new.node)
        self.security(old.security, new.security)
        self.parameters(old, new)
        self.request_body(old.node.get("requestBody"), new.node.get("requestBody"))
        old_responses, new_responses = old.node.get("responses"), new.node.get("responses")
        self.responses(
            old_responses if isinstance(old_responses, dict) else {},
            new_responses if isinstance(new_responses, dict) else {},
        )

    def metadata(self, old: Operation, new: Operation) -> None:
        if old.operation_id != new.operation_id and old.key == new.key:
            if old.operation_id is None:
                self.emit("api-operation-id-added", f"operationId `{new.operation_id}` added")
            elif new.operation_id is None:
                self.emit("api-operation-id-removed", f"operationId `{old.operation_id}` removed")
            else:
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
        old_tags = {str(t) for t in old.node.get("tags") or []}
        new_tags = {str(t) for t in new.node.get("tags") or []}
        for tag in sorted(new_tags - old_tags):
            self.emit("api-tag-added", f"tag `{tag}` added")
        for tag in sorted(old_tags - new_tags):
            self.emit("api-tag-removed", f"tag `{tag}` removed")

    def deprecation(self, old: Operation, new: Operation) -> None:
        date = sunset(new)
        if old.deprecated and not new.deprecated:
            self.emit("endpoint-reactivated", "operation no longer deprecated")
        elif not old.deprecated and new.deprecated:
            if isinstance(date, str):
                self.emit("api-deprecated-sunset-parse", f"`x-sunset: {date}` is not a date")
            elif date is None:
                self.emit("endpoint-deprecated", "operation deprecated")
            elif date < self.today:
                self.emit(
                    "api-sunset-date-too-small", f"deprecated with a sunset already past ({date})"
                )
            else:
                self.emit("endpoint-deprecated-with-sunset", f"operation deprecated, sunset {date}")
        elif old.deprecated and new.deprecated:
            old_date = sunset(old)
            if old_date != date and (isinstance(old_date, str) or isinstance(date, str)):
                shown = date if isinstance(date, str) else old_date
                self.emit("api-path-sunset-parse", f"`x-sunset: {shown}` is not a date")
            elif old_date is not None and date is None:
                self.emit("sunset-deleted", "`x-sunset` removed from a deprecated operation")
            elif (
                isinstance(old_date, datetime.date)
                and isinstance(date, datetime.date)
                and date < old_date
                and date < self.today
            ):
                self.emit(
                    "api-sunset-date-changed-too-small",
                    f"sunset moved from {old_date} to {date}, already past",
                )

    def stability(self, old: Operation, new: Operation) -> None:
        old_level, new_level = stability(old), stability(new)
        for op, level in ((old, old_level), (new, new_level)):
            if level is None:
                value = op.node.get("x-stability-level")
                self.emit("api-invalid-stability-level", f"`x-stability-level: {value}` is unknown")
        if old_level is None or new_level is None or old_level == new_level:
            return
        change = (
            "decreased" if STABILITY.index(new_level) < STABILITY.index(old_level) else "increased"
        )
        self.emit(f"api-stability-{change}", f"stability {change} from {old_level} to {new_level}")

    def extensions(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.tier(old.get("x-tier"), new.get("x-tier"))
        self.scope(old.get("x-scope"), new.get("x-scope"))
        old_life, new_life = old.get("x-lifecycle", "active"), new.get("x-lifecycle", "active")
        if old_life != "preview" and new_life == "preview":
            self.emit("api-lifecycle-became-preview", "moved back to preview: 404 until enabled")
        elif old_life == "preview" and new_life != "preview":
            self.emit("api-lifecycle-became-active", f"`x-lifecycle` preview to `{new_life}`")
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
        for alt, scopes in old_alts.items():
            name = " + ".join(sorted(alt)) or "anonymous"
            if alt not in new_alts:
                self.emit("api-security-removed", f"security requirement `{name}` removed")
                continue
            for scheme in sorted(alt):
                for scope in sorted(new_alts[alt][scheme] - scopes[scheme]):
                    self.emit(
                        "api-security-scope-added", f"scope `{scope}` required for `{scheme}`"
                    )
                for scope in sorted(scopes[scheme] - new_alts[alt][scheme]):
                    self.emit(
                        "api-security-scope-removed",
                        f"scope `{scope}` no longer required for `{scheme}`",
                    )
        for alt in new_alts:
            if alt not in old_alts:
                name = " + ".join(sorted(alt)) or "anonymous"
                self.emit("api-security-added", f"security requirement `{name}` added")
