"""Lint rule ids are declared once (`core/lint_rules.Rule`): the code emits only declared ids,
every declared id is emitted somewhere, an unknown id fails at once, and a
`[tool.spec-gen.lint] rules` key naming no rule is a located finding."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest
from spec_gen.core.lint_rules import CORE_RULES, HOUSE_RULES, ExtensionRule, Rule, UnknownRule
from spec_gen.lint.findings import RawFinding
from spec_gen.lint.profiles import SEVERITIES, ruleset
from spec_helpers import HEAD, line_of, run_in, write

GENERATOR = Path(__file__).resolve().parents[3] / "generator" / "spec_gen"
REPO = GENERATOR.parents[1]


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(GENERATOR.rglob("*.py"))]


def test_every_rule_is_declared_with_a_severity_a_profile_and_what_it_checks() -> None:
    assert len(Rule) == len({r.value for r in Rule})
    for rule in Rule:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.value), rule
        assert rule.severity in SEVERITIES and rule.profile in ("default", "house"), rule
        assert rule.checks.strip(), rule
    assert set(CORE_RULES) | set(HOUSE_RULES) == set(Rule)
    # the ids users configure stay as they were
    assert Rule.REF == "ref" and f"[{Rule.SCHEMA_REPAIR}]" == "[schema-repair]"


def test_the_code_emits_only_rule_members_and_every_rule_is_emitted() -> None:
    """Every `Rule.X` in the generator names a member; every member is used outside its
    declaration; no finding is built with its rule id typed as a string."""
    used: set[str] = set()
    typed_as_strings: list[str] = []
    builders = {"RawFinding": 1, "Finding": 3, "add": 1}  # the rule's argument position
    for path, tree in _sources():
        if path.name == "lint_rules.py":
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "Rule"
            ):
                used.add(node.attr)
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                position = builders.get(str(name))
                if position is not None and len(node.args) > position:
                    argument = node.args[position]
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                        typed_as_strings.append(f"{path.name}:{node.lineno}: {argument.value!r}")
            if (
                isinstance(node, ast.Tuple) and len(node.elts) == 3
            ):  # a repair (pointer, rule, text)
                rule = node.elts[1]
                if (
                    isinstance(rule, ast.Constant)
                    and isinstance(rule.value, str)
                    and rule.value in {r.value for r in Rule}
                    and path.parent.name == "document"
                ):
                    typed_as_strings.append(f"{path.name}:{node.lineno}: {rule.value!r}")
    members = {r.name for r in Rule}
    assert used - members == set(), "Rule.<name> that is not declared"
    assert members - used == set(), "declared rules the code never emits"
    assert typed_as_strings == []


def test_a_finding_under_an_undeclared_id_fails_at_once() -> None:
    with pytest.raises(UnknownRule, match="'no-such-rule'"):
        RawFinding("/paths", "no-such-rule", "typo")
    assert RawFinding("/paths", "ref", "a string id is read as its member").rule is Rule.REF
    tier = RawFinding("/paths", ExtensionRule("x-tier"), "configured extension")
    # findings cross the forked workers: they survive pickling with their rule typed
    again = pickle.loads(pickle.dumps([RawFinding("/a", Rule.MODELS, "m"), tier]))
    assert again[0].rule is Rule.MODELS and isinstance(again[1].rule, ExtensionRule)


def test_a_profile_answers_declared_ids_and_refuses_unknown_ones() -> None:
    rules = ruleset(None)
    assert rules.severity("python-name") == "warn" and rules.severity(Rule.REF) == "error"
    # a house rule run because another house rule was switched on: its house severity
    assert rules.severity(Rule.ONE_TAG) == "error"
    with pytest.raises(UnknownRule):
        rules.severity("python-nmae")  # was "error": a typo stopped every build meeting it
    house = ruleset({"extends": ["house"], "operation-extensions": {"x-tier": ["read"]}})
    assert house.severity("x-tier") == "error" and house.severity("operation-id-unique") == "error"


def test_the_rules_page_lists_every_declared_rule() -> None:
    page = (REPO / "docs" / "lint-rules.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert rows == [f"| `{r.value}` | {r.profile} | {r.severity} | {r.checks} |" for r in Rule]


SPEC = (
    HEAD
    + """\
paths:
  /things:
    get:
      operationId: list_things
      responses:
        '200': {description: ok}
"""
)


def test_an_unknown_rule_in_pyproject_is_a_located_finding(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    pyproject = (
        '[tool.spec-gen]\nspec = "openapi.yaml"\n\n[tool.spec-gen.lint]\nextends = ["house"]\n'
        'rules = { "one-tag" = "off", "x-scop" = "warn" }\n'
    )
    write(tmp_path / "pyproject.toml", pyproject)
    line = line_of(pyproject, '"x-scop"')
    column = pyproject.splitlines()[line - 1].index('"x-scop"') + 1
    for command in ("validate", "build"):
        code, out = run_in(tmp_path, command)
        assert code == 1, out
        assert (
            f"pyproject.toml:{line}:{column}: error [lint-config] [tool.spec-gen.lint] rules: "
            "no rule 'x-scop' (did you mean 'x-scope'?)"
        ) in out, out
        assert "operation-id, operation-id-name, operation-id-unique" in out  # the known ids listed
    assert not (tmp_path / "generated").exists()  # the build stopped
    # the setting the user meant is taken; a rule far from any id gets no suggestion
    write(tmp_path / "pyproject.toml", pyproject.replace('"x-scop"', '"x-scope"'))
    code, out = run_in(tmp_path, "validate")
    assert "lint-config" not in out, out
    write(tmp_path / "pyproject.toml", pyproject.replace('"x-scop"', "zzzzzz"))
    code, out = run_in(tmp_path, "validate")
    assert code == 1 and "no rule 'zzzzzz'; the rules are" in out, out
    # and it is a rule like any other: lowered to a warning, the check passes
    write(
        tmp_path / "pyproject.toml",
        pyproject.replace('"one-tag" = "off",', '"one-tag" = "off", "lint-config" = "warn",'),
    )
    code, out = run_in(tmp_path, "validate")
    assert code == 0 and "warning [lint-config]" in out, out
