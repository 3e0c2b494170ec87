"""`spec-gen validate`: third-party validation plus the project's rules, located by file:line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from spec_gen.cli import main

GOOD_OPERATION = """
      operationId: list_things
      tags: [things]
      x-tier: read
      x-lifecycle: active
      x-pagination: none
      responses:
        '200': {description: ok}
"""


def write_spec(tmp_path: Path, operation: str = GOOD_OPERATION, extra: str = "") -> Path:
    spec = tmp_path / "openapi.yaml"
    spec.write_text(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\n"
        + extra
        + "paths:\n  /things:\n    get:"
        + operation
    )
    return spec


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_valid_spec_passes(tmp_path: Path) -> None:
    code, out = run("validate", str(write_spec(tmp_path)))
    assert code == 0, out
    assert "valid (1 files, 1 operations)" in out


@pytest.mark.parametrize(
    ("change", "rule", "line"),
    [
        (("operationId: list_things", "operationId: listThings"), "operation-id", 6),
        (("tags: [things]", "tags: [things, more]"), "one-tag", 5),
        (("x-tier: read", "x-tier: admin"), "x-tier", 8),
        (("x-lifecycle: active", "x-lifecycle: preview"), "preview-flag", 5),
        (("x-pagination: none", "x-pagination: cursor"), "x-pagination", 10),
        (("x-pagination: none", "x-pagination: page"), "pagination", 5),
        (("      x-tier: read\n", ""), "x-tier", 5),
    ],
)
def test_each_rule_names_file_and_line(
    tmp_path: Path, change: tuple[str, str], rule: str, line: int
) -> None:
    operation = GOOD_OPERATION.replace(*change)
    spec = write_spec(tmp_path, operation)
    code, out = run("validate", str(spec))
    assert code == 1
    assert re.search(rf"openapi\.yaml:{line}:\d+: error \[{rule}\]", out), out


def test_scope_must_be_declared(tmp_path: Path) -> None:
    operation = GOOD_OPERATION.replace("x-tier: read", "x-tier: read\n      x-scope: things:burn")
    spec = write_spec(tmp_path, operation, extra="x-scopes: {things:read: Read things.}\n")
    code, out = run("validate", str(spec))
    assert code == 1 and "[x-scope] x-scope 'things:burn' is not declared" in out, out


def test_duplicate_operation_id(tmp_path: Path) -> None:
    spec = write_spec(tmp_path)
    spec.write_text(spec.read_text() + "    post:" + GOOD_OPERATION.replace("'200'", "'201'"))
    code, out = run("validate", str(spec))
    assert code == 1, out
    assert "'list_things'" in out and ("is also used" in out or "not unique" in out), out


def test_error_response_must_use_shared_schema(tmp_path: Path) -> None:
    operation = GOOD_OPERATION + (
        "        '404':\n          description: nope\n          content:\n"
        "            application/json:\n              schema: {type: object}\n"
    )
    code, out = run("validate", str(write_spec(tmp_path, operation)))
    assert code == 1 and "[error-schema]" in out and "openapi.yaml:13:" in out, out


def test_openapi_validator_errors_are_located(tmp_path: Path) -> None:
    operation = GOOD_OPERATION.replace("'200': {description: ok}", "'200': {description: 7}")
    code, out = run("validate", str(write_spec(tmp_path, operation)))
    assert code == 1 and "[openapi]" in out and "openapi.yaml:12:" in out, out


def test_broken_yaml_gives_line_and_column_not_a_traceback(tmp_path: Path) -> None:
    spec = tmp_path / "openapi.yaml"
    spec.write_text("openapi: 3.1.0\ninfo:\n  title: [unclosed\n  version: 1\n")
    code, out = run("validate", str(spec))
    assert code == 1
    assert "Traceback" not in out
    assert "openapi.yaml:5:1: invalid YAML" in out or "openapi.yaml:4:" in out, out


def test_finding_in_a_referenced_file_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "things.yaml").write_text(
        "Thing:\n  type: object\n  properties:\n    id: {type: bogus}\n"
    )
    spec = write_spec(
        tmp_path,
        extra="components:\n  schemas:\n    Thing: {$ref: 'schemas/things.yaml#/Thing'}\n",
    )
    code, out = run("validate", str(spec))
    assert code == 1
    assert "schemas/things.yaml:4:" in out, out


def test_missing_reference_target(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path, extra="components:\n  schemas:\n    Thing: {$ref: 'schemas/none.yaml#/Thing'}\n"
    )
    code, out = run("validate", str(spec))
    assert (
        code == 1
        and "openapi.yaml:5:13: error [ref] $ref 'schemas/none.yaml#/Thing': no such file" in out
    ), out


def test_bundle_prints_one_resolved_document(tmp_path: Path) -> None:
    import json

    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "things.yaml").write_text(
        "Thing:\n  type: object\n  properties:\n    other: {$ref: '../openapi.yaml#/components/schemas/Other'}\n"
    )
    spec = write_spec(
        tmp_path,
        extra=(
            "components:\n  schemas:\n    Thing: {$ref: 'schemas/things.yaml#/Thing'}\n"
            "    Other: {type: string}\n"
        ),
    )
    code, out = run("bundle", str(spec), "--format", "json")
    assert code == 0, out
    document = json.loads(out)
    thing = document["components"]["schemas"]["Thing"]
    assert thing["properties"]["other"] == {"$ref": "#/components/schemas/Other"}
    code, out = run("bundle", str(spec))
    assert code == 0 and "Thing:" in out and "$ref" in out
    assert out.startswith("openapi: 3.1.0\ninfo:"), out[:80]  # document order kept, not sorted
