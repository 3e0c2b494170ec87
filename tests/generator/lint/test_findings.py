"""Findings, never tracebacks: each problem at the file:line:column of its own node, warnings
that let the build go on (errors with --strict), and exit 2 with one line on an internal error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from spec_gen.core.where import at
from spec_helpers import HEAD, column_of, line_of, run_in, write

OP = """
    get:
      responses:
        '200':
          description: ok
"""


def finding(out: str, rule: str) -> list[str]:
    return [line for line in out.splitlines() if f"[{rule}]" in line]


def test_document_without_paths_is_valid_with_a_warning(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", HEAD + "components: {schemas: {A: {type: string}}}\n")
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    assert finding(out, "no-operations") and "warning" in finding(out, "no-operations")[0], out
    code, out = run_in(tmp_path, "validate", "--strict", str(spec))
    assert code == 1 and "1 error(s)" not in out and "warning [no-operations]" in out, out


def test_no_schemas_at_all_validates_and_builds(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", HEAD + "paths:\n  /ping:" + OP)
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "class " not in models


def test_unquoted_date_is_a_string_not_a_crash(tmp_path: Path) -> None:
    text = HEAD + (
        "paths:\n  /ping:" + OP + "components:\n  schemas:\n    Day:\n"
        "      type: string\n      format: date\n      default: 2024-01-31\n"
        "      examples: [2024-02-01]\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0 and "Traceback" not in out, out
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    assert "2024-01-31" in (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()


def test_webhook_payload_that_is_not_json_is_a_located_warning(tmp_path: Path) -> None:
    text = HEAD + (
        "webhooks:\n  ping:\n    post:\n      requestBody:\n        content:\n"
        "          text/plain:\n            schema: {type: string}\n"
        "      responses:\n        '200': {description: ok}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    [line] = finding(out, "webhook-payload")
    assert (
        f"openapi.yaml:{line_of(text, 'content:')}:{column_of(text, 'content:')}: warning" in line
    )


@pytest.mark.parametrize("name", ["None", "UUID", "Response", "list", "3d-model", "用户"])
def test_awkward_schema_names_are_warnings_at_their_key(tmp_path: Path, name: str) -> None:
    text = (
        HEAD
        + "paths:\n  /ping:"
        + OP
        + f"components:\n  schemas:\n    {name}:\n      type: string\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    [line] = finding(out, "python-name")
    assert f"openapi.yaml:{line_of(text, name + ':')}:5: warning [python-name]" in line, out


def test_names_that_only_change_case_are_no_finding_but_a_clash_is(tmp_path: Path) -> None:
    """Kebab-case, snake_case and dotted names (GitHub names every schema `like-this`) are
    the ordinary conversion to PascalCase; a name whose class another schema already has is
    a warning at the second one."""
    names = ["repository-subscription", "scim_user", "model.with.dots", "class", "ScimUser"]
    text = HEAD + "paths:\n  /ping:" + OP + "components:\n  schemas:\n"
    text += "".join(f"    {name}:\n      type: string\n" for name in names)
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    [line] = finding(out, "python-name")
    assert f"openapi.yaml:{line_of(text, 'ScimUser:')}:5: warning [python-name]" in line, out
    assert "gives the class name of schema 'scim_user'" in line, out


def test_dangling_ref_in_root_webhooks_is_an_error_at_the_ref(tmp_path: Path) -> None:
    text = HEAD + (
        "paths:\n  /ping:" + OP + "webhooks:\n  ping:\n    post:\n      requestBody:\n"
        "        content:\n          application/json:\n"
        "            schema: {$ref: '#/components/schemas/Missing'}\n"
        "      responses:\n        '200': {description: ok}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1, out
    [line] = finding(out, "ref")
    where = f"openapi.yaml:{line_of(text, '$ref')}:{column_of(text, '$ref')}: error [ref]"
    assert where in line and "points at nothing" in line, out
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 1 and "Traceback" not in out and not (tmp_path / "out").exists(), out


def test_dangling_refs_in_callbacks_and_components(tmp_path: Path) -> None:
    text = HEAD + (
        "paths:\n  /subscribe:\n    post:\n      callbacks:\n        onEvent:\n"
        "          '{$request.body#/url}':\n            post:\n"
        "              responses:\n                '200': {$ref: '#/components/responses/Gone'}\n"
        "      responses:\n        '200': {description: ok}\n"
        "components:\n  schemas:\n    A:\n      properties:\n"
        "        b: {$ref: '#/components/schemas/B'}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1
    lines = finding(out, "ref")
    assert len(lines) == 2, out
    # sorted by position: the callback's response comes first in the file
    assert f"openapi.yaml:{line_of(text, 'Gone')}:" in lines[0]
    assert f"openapi.yaml:{line_of(text, 'schemas/B')}:" in lines[1]


def test_validator_finding_is_placed_at_its_own_node_not_an_equal_value(tmp_path: Path) -> None:
    # `true` appears earlier (and True == 1): the finding must still point at `deprecated`
    text = HEAD + (
        "paths:\n  /a:\n    get:\n      parameters:\n"
        "        - {name: q, in: query, required: true, schema: {type: string}}\n"
        "      responses:\n        '200': {description: ok}\n"
        "  /b:\n    get:\n      deprecated: 1\n"
        "      responses:\n        '200': {description: ok}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1
    [line] = finding(out, "openapi")
    assert f"openapi.yaml:{line_of(text, 'deprecated')}:7: error [openapi]" in line, out


def test_findings_are_sorted_by_position_with_validator_findings_merged(tmp_path: Path) -> None:
    text = HEAD + (
        "paths:\n  /a:\n    get:\n      operationId: same\n"
        "      responses:\n        '200': {description: ok}\n"
        "    post:\n      operationId: same\n"
        "      responses:\n        '200': {description: ok}\n"
        "  /b:\n    get:\n      responses:\n        '200': {description: 5}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1
    # a repeated operationId is a warning of the default profile, the validator's an error
    rules = re.findall(r"openapi\.yaml:(\d+):\d+: (?:error|warning) \[([\w-]+)\]", out)
    assert [rule for _, rule in rules] == ["operation-id-unique", "openapi"], out
    assert [int(n) for n, _ in rules] == sorted(int(n) for n, _ in rules)


def test_warnings_do_not_stop_the_build_unless_strict(tmp_path: Path) -> None:
    text = HEAD + (
        "paths:\n  /a:\n    get:\n      parameters:\n"
        "        - name: n\n          in: query\n          schema: {type: integer, default: many}\n"
        "      responses:\n        '200': {description: ok}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    assert f"openapi.yaml:{line_of(text, 'default: many')}:" in out and "warning [default]" in out
    assert (tmp_path / "out" / "server").is_dir()
    code, out = run_in(
        tmp_path, "build", "--strict", "--no-cache", "--spec", str(spec), "--output", "o2"
    )
    assert code == 1 and "warning [default]" in out and not (tmp_path / "o2").exists(), out


def test_stray_keyword_is_a_warning(tmp_path: Path) -> None:
    text = (
        HEAD
        + "paths:\n  /a:\n    get:\n      title: stray\n      responses:\n        '200': {description: ok}\n"
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    assert f"openapi.yaml:{line_of(text, 'title: stray')}:7: warning [stray-keyword]" in out, out


def test_an_internal_error_exits_2_with_one_line_naming_the_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = HEAD + "paths:\n  /things:" + OP
    spec = write(tmp_path / "openapi.yaml", text)

    def broken_rule(document: dict[str, object]) -> list[object]:
        with at("/paths/~1things/get"):
            raise KeyError("surprise")

    monkeypatch.setattr("spec_gen.lint.validate.CORE_CHECKS", (broken_rule,))
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 2
    assert out.count("\n") == 1 and "Traceback" not in out, out
    assert f"openapi.yaml:{line_of(text, 'get:')}:5 (/paths/~1things/get)" in out
    assert "KeyError" in out and "surprise" in out
