"""Rule profiles, the way Spectral rulesets work: `extends` names profiles, `rules` sets a
severity (off / warn / error) per rule id, and rule options sit beside them.

    [tool.spec-gen.lint]
    extends = ["house"]                      # default: ["default"]
    rules = { "x-scope" = "warn", "python-name" = "off" }
    operation-extensions = { x-tier = ["read", "write"] }   # an option of the house rules

`default` holds the checks generation needs; `house` adds a team's conventions on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rules_core import CORE_RULES
from .rules_house import house_rule_ids

SEVERITIES = ("off", "warn", "error")
# default rules the house profile raises to errors
HOUSE_STRICTER = {"operation-id-unique": "error"}
PROFILES = ("default", "house")


class ProfileError(ValueError):
    """A `[tool.spec-gen.lint]` setting that names no profile, rule or severity."""


@dataclass(frozen=True)
class Ruleset:
    severities: dict[str, str]  # rule id -> off | warn | error
    options: dict[str, Any] = field(default_factory=dict)
    house: bool = False

    def severity(self, rule: str) -> str:
        return self.severities.get(rule, "error")


def ruleset(settings: dict[str, Any] | None) -> Ruleset:
    settings = dict(settings or {})
    extends = settings.pop("extends", ["default"])
    extends = [extends] if isinstance(extends, str) else list(extends)
    rules = settings.pop("rules", {}) or {}
    unknown = [p for p in extends if p not in PROFILES]
    if unknown:
        raise ProfileError(
            f"[tool.spec-gen.lint] extends: no profile {unknown[0]!r} (profiles: {', '.join(PROFILES)})"
        )
    severities = dict(CORE_RULES)
    house = "house" in extends
    if house:
        severities.update({rule: "error" for rule in house_rule_ids(settings)})
        severities.update(HOUSE_STRICTER)
    for rule, severity in dict(rules).items():
        if severity not in SEVERITIES:
            raise ProfileError(
                f"[tool.spec-gen.lint] rules.{rule}: {severity!r} is not one of {', '.join(SEVERITIES)}"
            )
        known = set(CORE_RULES) | set(house_rule_ids(settings))
        if rule not in known:
            raise ProfileError(
                f"[tool.spec-gen.lint] rules: no rule {rule!r} (rules: {', '.join(sorted(known))})"
            )
        severities[rule] = severity
    house_ids = set(house_rule_ids(settings))
    house = house or any(rule in house_ids and sev != "off" for rule, sev in dict(rules).items())
    return Ruleset(severities, settings, house)
