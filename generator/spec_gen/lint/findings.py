"""Findings: a problem in the spec, where it is (a JSON pointer, then file:line:column) and
how much it matters (error stops generation; warning is reported and the build goes on)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.lint_rules import RuleId, rule_id

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class RawFinding:
    pointer: str  # into the bundled document
    rule: RuleId  # a declared id: any other fails here, at once (UnknownRule)
    message: str
    severity: str = ERROR

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", rule_id(self.rule))


@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int
    column: int
    rule: str
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}:{self.column}: {self.severity} [{self.rule}] {self.message}"
        )

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR
