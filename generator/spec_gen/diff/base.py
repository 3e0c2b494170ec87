"""What every part of the comparison shares: the two documents and the changes found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .document import Doc, Operation
from .model import Change, Where
from .rules import RULES


class UnknownRule(Exception):
    """A change named a rule that `diff.rules` does not define (a bug in spec-gen)."""


@dataclass
class Emitter:
    old: Doc
    new: Doc
    changes: list[Change] = field(default_factory=list)
    method: str = ""
    path: str = ""

    def emit(self, rule: str, message: str) -> None:
        if rule not in RULES:
            raise UnknownRule(f"no rule {rule!r}")
        self.changes.append(Change(rule, self.method, self.path, message))

    def at(self, op: Operation) -> None:
        self.method, self.path = op.method, op.full_path

    def schema(
        self,
        old_raw: Any,
        new_raw: Any,
        where: Where,
        path: str = "",
        seen: frozenset[tuple[str, str]] = frozenset(),
        depth: int = 0,
    ) -> None:
        raise NotImplementedError  # the schema walk (schemas.SchemaDiffer)
