"""Rule profiles, the way Spectral rulesets work: `extends` names profiles, `rules` sets a
severity (off / warn / error) per rule id, and rule options sit beside them.

    [tool.spec-gen.lint]
    extends = ["house"]                      # default: ["default"]
    rules = { "x-scope" = "warn", "python-name" = "off" }
    operation-extensions = { x-tier = ["read", "write"] }   # an option of the house rules

`default` holds the checks generation needs; `house` adds a team's conventions on top.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.lint_rules import CORE_RULES, HOUSE_RULES, ExtensionRule, Rule, UnknownRule, rule_id
from .findings import ERROR, WARNING, Finding
from .rules_house import DEFAULT_EXTENSIONS

SEVERITIES = ("off", "warn", "error")
# default rules the house profile raises to errors
HOUSE_STRICTER = {Rule.OPERATION_ID_UNIQUE: "error"}
PROFILES = ("default", "house")


class ProfileError(ValueError):
    """A `[tool.spec-gen.lint]` setting that names no profile or severity."""


@dataclass(frozen=True)
class UnknownRuleSetting:
    """`rules` naming an id no rule has: reported as a `lint-config` finding at its line."""

    rule: str
    suggestion: str | None  # the closest known id, if one is close
    known: tuple[str, ...]

    @property
    def message(self) -> str:
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        return (
            f"[tool.spec-gen.lint] rules: no rule {self.rule!r}{hint}; the rules are "
            + ", ".join(self.known)
        )


@dataclass(frozen=True)
class Ruleset:
    severities: dict[str, str]  # rule id -> off | warn | error
    options: dict[str, Any] = field(default_factory=dict)
    house: bool = False
    unknown: tuple[UnknownRuleSetting, ...] = ()  # `rules` keys naming no rule (ignored)

    def severity(self, rule: str) -> str:
        """The profile's severity for a declared rule; `UnknownRule` for any other id."""
        found = self.severities.get(rule)
        if found is not None:
            return found
        declared = rule_id(rule)  # raises UnknownRule
        # a house rule run because another one was switched on in `rules`
        return declared.severity if isinstance(declared, Rule) else "error"


def extension_rules(options: dict[str, Any]) -> tuple[ExtensionRule, ...]:
    """The house rules named after the configured operation extensions (`x-tier`)."""
    extensions = options.get("operation-extensions")
    return tuple(
        ExtensionRule(str(key))
        for key in (DEFAULT_EXTENSIONS if extensions is None else extensions)
    )


def ruleset(settings: dict[str, Any] | None) -> Ruleset:
    settings = dict(settings or {})
    extends = settings.pop("extends", ["default"])
    extends = [extends] if isinstance(extends, str) else list(extends)
    rules = settings.pop("rules", {}) or {}
    unknown_profiles = [p for p in extends if p not in PROFILES]
    if unknown_profiles:
        raise ProfileError(
            f"[tool.spec-gen.lint] extends: no profile {unknown_profiles[0]!r} "
            f"(profiles: {', '.join(PROFILES)})"
        )
    house_ids: tuple[str, ...] = HOUSE_RULES + extension_rules(settings)
    severities: dict[str, str] = {str(rule): level for rule, level in CORE_RULES.items()}
    house = "house" in extends
    if house:
        severities.update({rule: "error" for rule in house_ids})
        severities.update({str(rule): level for rule, level in HOUSE_STRICTER.items()})
    known = sorted({str(rule) for rule in (*CORE_RULES, *house_ids)})
    unknown: list[UnknownRuleSetting] = []
    for rule, severity in dict(rules).items():
        if severity not in SEVERITIES:
            raise ProfileError(
                f"[tool.spec-gen.lint] rules.{rule}: {severity!r} is not one of {', '.join(SEVERITIES)}"
            )
        if rule not in known:
            close = difflib.get_close_matches(str(rule), known, n=1)
            unknown.append(UnknownRuleSetting(str(rule), close[0] if close else None, tuple(known)))
            continue
        severities[rule] = severity
    house = house or any(rule in house_ids and sev != "off" for rule, sev in dict(rules).items())
    return Ruleset(severities, settings, house, tuple(unknown))


__all__ = [
    "ProfileError",
    "Ruleset",
    "UnknownRule",
    "UnknownRuleSetting",
    "config_findings",
    "ruleset",
]


def config_findings(rules: Ruleset, pyproject: Path, relative_to: Path) -> list[Finding]:
    """Each `rules` key that names no rule, as a `lint-config` finding at its line in
    `pyproject.toml` (the closest known id suggested); none when that rule is off."""
    severity = rules.severity(Rule.LINT_CONFIG)
    if not rules.unknown or severity == "off":
        return []
    try:
        lines = pyproject.read_text(encoding="utf-8").splitlines()
        name = str(pyproject.relative_to(relative_to))
    except OSError:
        lines, name = [], str(pyproject)
    except ValueError:
        name = str(pyproject)
    level = WARNING if severity == "warn" else ERROR
    out = []
    for setting in rules.unknown:
        line, column = _locate_key(lines, setting.rule)
        out.append(Finding(name, line, column, Rule.LINT_CONFIG, setting.message, level))
    return out


def _locate_key(lines: list[str], key: str) -> tuple[int, int]:
    """(line, column) of `key =` (bare or quoted) in the `[tool.spec-gen.lint]` table, else
    anywhere in the file, else that table's header, else 1:1."""
    pattern = re.compile(rf"(?<![\w-])([\"']?){re.escape(key)}\1\s*=")
    header = next(
        (i for i, text in enumerate(lines) if re.match(r"\s*\[tool\.spec-gen\.lint\]", text)), None
    )
    ordered = list(range(header or 0, len(lines))) + list(range(header or 0))
    for index in ordered:
        found = pattern.search(lines[index])
        if found:
            return index + 1, found.start() + 1
    return (header + 1, 1) if header is not None else (1, 1)
