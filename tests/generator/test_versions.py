"""Which document versions are read: 3.0.x and 3.1.x; anything else is refused with one
finding that says so, at the version field, and nothing is generated."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_helpers import run_in, write

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
                "OpenAPI 3.0 and 3.1; convert it first"
            ),
        ),
        (
            'info: {title: T, version: "1"}\n',
            '1:1: error [openapi] "openapi" is a required property',
        ),
        (
            'info: {title: T, version: "1"}\nopenapi: 3.2.0\n',
            '2:1: error [openapi] OpenAPI "3.2.0" is not a version spec-gen reads (3.0.x and 3.1.x)',
        ),
    ],
    ids=["swagger-2.0", "no-version", "3.2"],
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


@pytest.mark.parametrize("version", ["3.0.0", "3.0.3", "3.1.0", "3.1.1"])
def test_the_versions_read_build(tmp_path: Path, version: str) -> None:
    write(tmp_path / "api.yaml", f'openapi: {version}\ninfo: {{title: T, version: "1"}}\n{PATHS}')
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    assert "1 routes mounted" in output, output
