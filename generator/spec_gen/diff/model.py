"""A change between two documents, a report of them, and where a schema sits."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..document.openapi import METHODS as HTTP_METHODS
from .rules import LEVELS, RULES, Level


@dataclass(frozen=True)
class Change:
    rule: str
    method: str  # upper case
    path: str  # full path, server prefix included (`webhook NAME` for a webhook)
    message: str

    @property
    def level(self) -> Level:
        return RULES[self.rule].level

    @property
    def operation(self) -> str:
        return f"{self.method} {self.path}".strip()

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


class GeneratedReport(Protocol):
    """What a report shows of the generated code (`generated.GeneratedView`, with --generated).

    A protocol, so that this module (below `generated`) does not import it."""

    def markdown_for(self, change: Change) -> list[str]: ...

    def json_for(self, change: Change) -> dict[str, Any]: ...

    def markdown_summary(self) -> list[str]: ...

    def json_summary(self) -> dict[str, Any]: ...


@dataclass
class Report:
    old: str  # how the two sides were named on the command line
    new: str
    changes: list[Change]
    generated: GeneratedReport | None = field(default=None)  # with --generated

    def count(self, level: Level) -> int:
        return sum(1 for change in self.changes if change.level == level)

    def fails(self, fail_on: Level | None) -> bool:
        if fail_on is None:
            return False
        worst = LEVELS.index(fail_on)
        return any(LEVELS.index(change.level) <= worst for change in self.changes)


@dataclass(frozen=True)
class Where:
    """Where a schema sits: its side, the rule families, and how messages name it."""

    side: Literal["request", "response"]
    root_family: str  # rule id family at the top of the schema
    nested_family: str  # rule id family inside it
    root: str  # how the top is named in messages
    nested: str  # how a property is named; `@` stands for its dotted path
    items_are_root: bool = False  # a parameter's array items belong to the parameter itself
    loose: bool = False  # a media type that is not JSON (e.g. XML): any value travels as text

    def family(self, path: str) -> str:
        if self.items_are_root and not path.replace("[]", ""):
            return self.root_family
        return self.nested_family if path else self.root_family

    def subject(self, path: str) -> str:
        return self.nested.replace("@", path) if path else self.root


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def value_text(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False, sort_keys=True)}`"
