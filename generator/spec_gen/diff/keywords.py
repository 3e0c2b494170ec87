"""Schema keywords compared value by value: enum, const, default, pattern, bounds, 2020-12."""

from __future__ import annotations

from typing import Any

from .base import Emitter
from .model import Where, child, value_text
from .rules import CONSTRAINTS

# keyword -> rule id part, for sub-schemas whose presence restricts what is valid
SUBSCHEMA_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("contains", "contains"),
    ("contentSchema", "content-schema"),
    ("if", "if"),
    ("then", "then"),
    ("else", "else"),
    ("propertyNames", "property-names"),
    ("unevaluatedItems", "unevaluated-items"),
    ("unevaluatedProperties", "unevaluated-properties"),
)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class KeywordDiffer(Emitter):
    def values(self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str) -> None:
        self.enum(old, new, where, path)
        self.extensible_enum(old, new, where, path)
        self.added_changed_removed("const", "const", old, new, where, path)
        self.added_changed_removed("default", "default-value", old, new, where, path)
        self.pattern(old, new, where, path)
        self.constraints(old, new, where, path)
        for keyword, part in (
            ("contentMediaType", "content-media-type"),
            ("contentEncoding", "content-encoding"),
        ):
            if keyword in old and keyword in new and old[keyword] != new[keyword]:
                self.emit(
                    f"{where.family(path)}-{part}-changed",
                    f"`{keyword}` of {where.subject(path)} changed from"
                    f" {value_text(old[keyword])} to {value_text(new[keyword])}",
                )
        self.dependent_required(old, new, where, path)

    def enum(self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str) -> None:
        family, subject = where.family(path), where.subject(path)
        old_enum, new_enum = old.get("enum"), new.get("enum")
        if not isinstance(new_enum, list):
            return
        if not isinstance(old_enum, list):
            values = ", ".join(value_text(v) for v in new_enum)
            self.emit(f"{family}-became-enum", f"{subject} restricted to {values}")
            return
        for value in old_enum:
            if value not in new_enum:
                self.emit(
                    f"{family}-enum-value-removed",
                    f"removed the enum value {value_text(value)} of {subject}",
                )
        for value in new_enum:
            if value not in old_enum:
                self.emit(
                    f"{family}-enum-value-added",
                    f"added the enum value {value_text(value)} to {subject}",
                )

    def extensible_enum(
        self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str
    ) -> None:
        old_values, new_values = old.get("x-extensible-enum"), new.get("x-extensible-enum")
        if not isinstance(old_values, list) or not isinstance(new_values, list):
            return
        for value in old_values:
            if value not in new_values:
                self.emit(
                    f"{where.family(path)}-x-extensible-enum-value-removed",
                    f"removed the `x-extensible-enum` value {value_text(value)}"
                    f" of {where.subject(path)}",
                )

    def added_changed_removed(
        self,
        keyword: str,
        part: str,
        old: dict[str, Any],
        new: dict[str, Any],
        where: Where,
        path: str,
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        if keyword not in old and keyword in new:
            self.emit(
                f"{family}-{part}-added", f"{subject} gained `{keyword}` {value_text(new[keyword])}"
            )
        elif keyword in old and keyword not in new:
            self.emit(
                f"{family}-{part}-removed", f"{subject} lost `{keyword}` {value_text(old[keyword])}"
            )
        elif keyword in old and old[keyword] != new[keyword]:
            self.emit(
                f"{family}-{part}-changed",
                f"`{keyword}` of {subject} changed from {value_text(old[keyword])}"
                f" to {value_text(new[keyword])}",
            )

    def pattern(self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str) -> None:
        family, subject = where.family(path), where.subject(path)
        old_p, new_p = old.get("pattern") or None, new.get("pattern") or None  # "" is no pattern
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
        self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        for keyword, part, _ in CONSTRAINTS:
            old_v, new_v = old.get(keyword), new.get(keyword)
            old_v = old_v if is_number(old_v) else None
            new_v = new_v if is_number(new_v) else None
            if old_v == new_v:
                continue
            if old_v is None:
                self.emit(f"{family}-{part}-set", f"{subject} gained `{keyword}: {new_v}`")
            elif new_v is None:
                self.emit(f"{family}-{part}-unset", f"{subject} lost `{keyword}: {old_v}`")
            else:
                change = "increased" if new_v > old_v else "decreased"
                self.emit(
                    f"{family}-{part}-{change}",
                    f"`{keyword}` of {subject} {change} from {old_v} to {new_v}",
                )

    def dependent_required(
        self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        old_d, new_d = old.get("dependentRequired"), new.get("dependentRequired")
        old_d = old_d if isinstance(old_d, dict) else {}
        new_d = new_d if isinstance(new_d, dict) else {}
        for name in sorted(set(old_d) | set(new_d), key=str):
            if name not in old_d:
                self.emit(
                    f"{family}-dependent-required-added",
                    f"{subject}: `{name}` now requires {value_text(new_d[name])}",
                )
            elif name not in new_d:
                self.emit(
                    f"{family}-dependent-required-removed",
                    f"{subject}: `{name}` no longer requires {value_text(old_d[name])}",
                )
            elif old_d[name] != new_d[name]:
                self.emit(
                    f"{family}-dependent-required-changed",
                    f"{subject}: what `{name}` requires changed from {value_text(old_d[name])}"
                    f" to {value_text(new_d[name])}",
                )

    def subschemas(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        where: Where,
        path: str,
        seen: frozenset[tuple[str, str]],
        depth: int,
    ) -> None:
        """Sub-schema keywords: presence compared, then the schemas inside followed."""
        family, subject = where.family(path), where.subject(path)
        for keyword, part in SUBSCHEMA_KEYWORDS:
            if keyword not in old and keyword in new:
                self.emit(f"{family}-{part}-added", f"{subject} gained `{keyword}`")
            elif keyword in old and keyword not in new:
                self.emit(f"{family}-{part}-removed", f"{subject} lost `{keyword}`")
            elif keyword in old:
                self.schema(
                    old[keyword], new[keyword], where, child(path, keyword), seen, depth + 1
                )
        for keyword, part in (
            ("patternProperties", "pattern-property"),
            ("dependentSchemas", "dependent-schema"),
        ):
            old_map, new_map = old.get(keyword), new.get(keyword)
            old_map = old_map if isinstance(old_map, dict) else {}
            new_map = new_map if isinstance(new_map, dict) else {}
            for name in sorted(set(old_map) | set(new_map), key=str):
                if name not in old_map:
                    self.emit(f"{family}-{part}-added", f"{subject} gained `{keyword}` `{name}`")
                elif name not in new_map:
                    self.emit(f"{family}-{part}-removed", f"{subject} lost `{keyword}` `{name}`")
                else:
                    self.schema(
                        old_map[name],
                        new_map[name],
                        where,
                        child(path, f"{keyword}/{name}"),
                        seen,
                        depth + 1,
                    )
        old_items, new_items = old.get("prefixItems"), new.get("prefixItems")
        old_items = old_items if isinstance(old_items, list) else []
        new_items = new_items if isinstance(new_items, list) else []
        for index in range(max(len(old_items), len(new_items))):
            if index >= len(old_items):
                self.emit(
                    f"{family}-prefix-items-added", f"{subject} gained `prefixItems[{index}]`"
                )
            elif index >= len(new_items):
                self.emit(
                    f"{family}-prefix-items-removed", f"{subject} lost `prefixItems[{index}]`"
                )
            else:
                self.schema(
                    old_items[index], new_items[index], where, f"{path}[{index}]", seen, depth + 1
                )
        for keyword in ("not", "additionalProperties"):
            if isinstance(old.get(keyword), dict) and isinstance(new.get(keyword), dict):
                self.schema(
                    old[keyword], new[keyword], where, child(path, keyword), seen, depth + 1
                )
