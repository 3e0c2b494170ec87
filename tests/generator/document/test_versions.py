"""Which document versions are read: 3.0.x, 3.1.x and 3.2.x; anything else is refused with one
finding that says so, at the version field, and nothing is generated. What 3.2 adds and the
generated code does not carry yet is a located `oas32` warning; the rest of 3.2 (media type
components, tag summaries and parents, `$self`, new security fields) builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_helpers import line_of, run_in, write

PATHS = """paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
"""


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (
            'swagger: "2.0"\ninfo: {title: T, version: "1"}\n',
            (
                "1:1: error [openapi] a Swagger 2.0 (OpenAPI 2) document: spec-gen reads "
                "OpenAPI 3.0, 3.1 and 3.2; convert it first"
            ),
        ),
        (
            'info: {title: T, version: "1"}\n',
            '1:1: error [openapi] "openapi" is a required property',
        ),
        (
            'info: {title: T, version: "1"}\nopenapi: 3.3.0\n',
            (
                '2:1: error [openapi] OpenAPI "3.3.0" is not a version spec-gen reads (3.0.x, '
                "3.1.x and 3.2.x)"
            ),
        ),
    ],
    ids=["swagger-2.0", "no-version", "3.3"],
)
def test_a_version_not_read_is_one_error_and_nothing_is_built(
    tmp_path: Path, head: str, expected: str
) -> None:
    write(tmp_path / "api.yaml", head + PATHS)
    code, output = run_in(tmp_path, "validate", "api.yaml")
    assert code == 1, output
    assert f"api.yaml:{expected}" in output, output
    assert "1 error(s)" in output, output
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 1, output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("version", ["3.0.0", "3.0.3", "3.1.0", "3.1.1", "3.2.0"])
def test_the_versions_read_build(tmp_path: Path, version: str) -> None:
    write(tmp_path / "api.yaml", f'openapi: {version}\ninfo: {{title: T, version: "1"}}\n{PATHS}')
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    assert "1 routes mounted" in output, output


OAS32 = Path(__file__).parents[1] / "fixtures" / "versions" / "oas32.yaml"


def test_a_32_document_builds_and_says_what_is_not_generated(tmp_path: Path) -> None:
    spec = OAS32.read_text(encoding="utf-8")
    write(tmp_path / "api.yaml", spec)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output, output
    warned = {
        "name: q, in: querystring": "a querystring parameter (OpenAPI 3.2) is not generated yet",
        "itemSchema:": "`itemSchema` (OpenAPI 3.2) is not generated yet: read as a body",
        "    query:": "the QUERY method (OpenAPI 3.2) is not generated yet: ignored",
        "LINK:": "the LINK method of `additionalOperations` (OpenAPI 3.2) is not generated yet",
    }
    for needle, message in warned.items():
        line = line_of(spec, needle)
        text = spec.splitlines()[line - 1]
        # a mapping's node starts at its first key, a flow mapping's at its `{`
        column = text.index("{") if needle.startswith("name:") else len(text) - len(text.lstrip())
        assert f"api.yaml:{line}:{column + 1}: warning [oas32] {message}" in output, output
    assert output.count("[oas32]") == 4, output
    # the rest is carried: a media type component, the operations of 3.1, oauth2 as a bearer
    out = tmp_path / "out"
    default = (out / "client/api_client/resources/default.py").read_text(encoding="utf-8")
    assert "def get_pet(" in default and "-> Pet:" in default
    cats = (out / "client/api_client/resources/cats.py").read_text(encoding="utf-8")
    assert "def list_pets(" in cats and "query_pets" not in cats and "link_pets" not in cats
    assert "querystring" not in cats and " q:" not in cats
