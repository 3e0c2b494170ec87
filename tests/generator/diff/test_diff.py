"""`spec-gen diff`: rule coverage, ordering, the rule table and docs/diff.md's copy of it.

The cases themselves live in one module per family (test_diff_*.py); this module checks
that together they exercise every rule.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from diff_support import (
    LIST,
    OP_CREATE,
    OP_GET,
    OP_LIST,
    ROOT,
    SCHEMAS,
    THING_READERS,
    WIDGETS,
    Case,
    Q,
    both,
    changes_of,
    push,
    set_,
)
from spec_gen.diff import diff_specs
from spec_gen.diff.readme import BEGIN, END, readme_section, rules_markdown
from spec_gen.diff.rules import (
    CONSTRAINT_CHECKS,
    DEPARTURES,
    LEVELS,
    OASDIFF_LEVEL,
    OPERATION_RULES,
    RULES,
    SCHEMA_CHECKS,
)
from test_diff_breaking import CASES as BREAKING
from test_diff_families import CASES as FAMILIES
from test_diff_keywords import CASES as KEYWORDS
from test_diff_levels import CASES as LEVEL_CASES
from test_diff_responses import CASES as RESPONSES

ALL_CASES: list[Case] = [*BREAKING, *LEVEL_CASES, *FAMILIES, *KEYWORDS, *RESPONSES]


def test_every_rule_has_a_case(tmp_path: Path) -> None:
    """Each operation rule and each schema check is exercised by at least one case above."""
    exercised = {
        change.rule
        for index, (_, before, mutation, _, _) in enumerate(ALL_CASES)
        for change in changes_of(tmp_path / str(index), mutation, before)
    }
    assert [r.id for r in OPERATION_RULES if r.id not in exercised] == []
    checks = [*SCHEMA_CHECKS, CONSTRAINT_CHECKS[0], CONSTRAINT_CHECKS[1]]
    assert [c.suffix for c in checks if not any(r.endswith(c.suffix) for r in exercised)] == []


def test_enum_direction_verdicts(tmp_path: Path) -> None:
    """One shared enum: a removed value breaks the request, an added value the responses."""
    removed = changes_of(tmp_path, set_((*SCHEMAS, "Status", "enum"), ["open"]))
    assert {(c.operation, c.level) for c in removed} == {(OP_CREATE, "breaking")} | {
        (op, "non-breaking") for op in THING_READERS
    }
    added = changes_of(tmp_path, push((*SCHEMAS, "Status", "enum"), "archived"))
    assert {(c.operation, c.level) for c in added} == {(OP_CREATE, "non-breaking")} | {
        (op, "breaking") for op in THING_READERS
    }


def test_nested_property_names_and_recursion(tmp_path: Path) -> None:
    """Nested objects and array items are named by path; the recursive `parent` is not re-entered."""
    changes = changes_of(tmp_path, push((*SCHEMAS, "Owner", "required"), "name"))
    assert {(c.operation, c.message) for c in changes} == {
        (OP_LIST, "response property `data[].owner.name` (200) became required"),
        (OP_CREATE, "request property `owner.name` became required"),
        (OP_CREATE, "response property `owner.name` (201) became required"),
        (OP_GET, "response property `owner.name` (200) became required"),
    }


def test_identical_documents_have_no_changes(tmp_path: Path) -> None:
    assert changes_of(tmp_path, lambda d: None) == []


def test_project_spec_against_itself_has_no_changes() -> None:
    spec = ROOT / "spec" / "openapi.yaml"
    assert diff_specs(spec, spec) == []


def test_report_order_is_breaking_first_and_stable(tmp_path: Path) -> None:
    before = set_((*Q, "schema", "pattern"), "^[a-z]+$")
    mutation = both(
        set_(("paths", "/widgets"), WIDGETS),
        set_((*Q, "schema", "pattern"), "^[a-z0-9]+$"),
        set_((*LIST, "x-tier"), "write"),
    )
    first = changes_of(tmp_path, mutation, before)
    second = changes_of(tmp_path, mutation, before)
    assert first == second
    levels = [c.level for c in first]
    assert levels == sorted(levels, key=LEVELS.index)
    assert levels[0] == "breaking" and levels[-1] == "non-breaking" and "warning" in levels


def test_rule_ids_are_kebab_case_with_known_verdicts() -> None:
    for rule in RULES.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id), rule.id
        assert rule.level in LEVELS
    assert RULES["request-parameter-removed"].level == "breaking"
    assert RULES["response-property-enum-value-added"].level == "breaking"
    assert RULES["request-property-enum-value-added"].level == "non-breaking"
    assert RULES["response-non-success-status-removed"].level == "non-breaking"


def test_docs_rules_section_is_exactly_the_generated_tables() -> None:
    readme = (ROOT / "docs" / "diff.md").read_text()
    assert readme.count(BEGIN) == 1 and readme.count(END) == 1
    assert readme_section(readme) == rules_markdown(), (
        "run: python -m spec_gen.diff.readme docs/diff.md"
    )


def test_every_departure_names_a_rule_at_another_level_than_oasdiff() -> None:
    for departure in DEPARTURES:
        assert departure.rule in RULES
        assert OASDIFF_LEVEL[RULES[departure.rule].level] != departure.oasdiff
        assert departure.reason


# -- the command --------------------------------------------------------------------------


CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
def test_public_specs_against_themselves_and_each_other() -> None:
    """Each corpus spec has no changes against itself; any two compare without raising."""
    specs = sorted(CORPUS.glob("*.yaml"))
    assert specs
    for spec in specs:
        assert diff_specs(spec, spec) == [], spec.name
    for old, new in itertools.permutations(specs, 2):
        for change in diff_specs(old, new):
            assert change.rule in RULES and change.message
