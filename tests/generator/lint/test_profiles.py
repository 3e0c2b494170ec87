"""Rule profiles: the default profile needs no house extensions; the `house` profile and each
rule's severity are switched in `[tool.spec-gen.lint]`, as a Spectral ruleset would be."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import HEAD, line_of, run_in, write

PLAIN = (
    HEAD
    + """\
paths:
  /things/{thingId}:
    get:
      parameters:
        - {name: thingId, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: ok}
    post:
      operationId: makeThing
      tags: [a, b]
      parameters:
        - {name: thingId, in: path, required: true, schema: {type: string}}
      responses:
        '201': {description: made}
"""
)
HOUSE = """\
[tool.spec-gen]
spec = "openapi.yaml"

[tool.spec-gen.lint]
extends = ["house"]
operation-extensions = { x-tier = ["read", "write"] }
"""


def test_default_profile_accepts_a_spec_without_house_conventions(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PLAIN)
    code, out = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 0 and "valid (1 files, 2 operations)" in out, out
    assert "[operation-id]" not in out and "[one-tag]" not in out


def test_house_profile_is_opt_in_with_its_options(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PLAIN)
    write(tmp_path / "pyproject.toml", HOUSE)
    code, out = run_in(tmp_path, "validate")
    assert code == 1, out
    assert (
        f"openapi.yaml:{line_of(PLAIN, 'get:')}:5: error [operation-id] operation has no operationId"
        in out
    )
    assert f"openapi.yaml:{line_of(PLAIN, 'operationId: makeThing')}:7: error [operation-id]" in out
    assert (
        "error [one-tag]" in out and "error [x-tier] x-tier is missing (one of read, write)" in out
    )
    assert "[x-lifecycle]" not in out  # only the configured extensions are required


def test_rule_severities_can_be_lowered_or_switched_off(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PLAIN)
    write(
        tmp_path / "pyproject.toml",
        HOUSE + 'rules = { "operation-id" = "warn", "one-tag" = "off", "x-tier" = "off" }\n',
    )
    code, out = run_in(tmp_path, "validate")
    assert code == 0, out
    assert "warning [operation-id]" in out and "[one-tag]" not in out and "[x-tier]" not in out
    code, out = run_in(tmp_path, "validate", "--strict")
    assert code == 1 and "warning [operation-id]" in out, out


def test_a_default_rule_can_become_an_error(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PLAIN + "components: {schemas: {None: {type: string}}}\n")
    write(
        tmp_path / "pyproject.toml",
        '[tool.spec-gen]\nspec = "openapi.yaml"\n[tool.spec-gen.lint]\nrules = { "python-name" = "error" }\n',
    )
    code, out = run_in(tmp_path, "validate")
    assert code == 1 and "error [python-name]" in out, out


def test_unknown_rule_or_profile_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PLAIN)
    write(
        tmp_path / "pyproject.toml", HOUSE.replace('extends = ["house"]', 'extends = ["strictest"]')
    )
    code, out = run_in(tmp_path, "validate")
    assert code == 2 and "no profile 'strictest'" in out, out
    # an unknown rule id is a finding at its line now: test_lint_rule_ids.py
    write(tmp_path / "pyproject.toml", HOUSE + 'rules = { "one-tag" = "fatal" }\n')
    code, out = run_in(tmp_path, "validate")
    assert code == 2 and "'fatal' is not one of off, warn, error" in out, out


def test_the_repository_spec_passes_its_house_profile(repo_root: Path) -> None:
    code, out = run_in(repo_root, "validate")
    assert code == 0 and "warning" not in out, out
    # and the profile is really on: the house rules are configured in the repository
    text = (repo_root / "pyproject.toml").read_text()
    assert 'extends = ["house"]' in text and "x-pagination" in text
