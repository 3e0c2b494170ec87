"""Shapes met in openapi-generator's own test documents (modules/openapi-generator/src/test/
resources/3_0 and 3_1), each in a small hand-written spec: the build exits 0 and the output
says what the document meant.

- a query array without `items` and a default mixing strings and numbers (`type: array,
  default: [test1, test2, 1]`): the parameter is `list[str]` (each value arrives as a
  string) but the default was written as is, `= ["test1", "test2", 1]`, and mypy --strict
  refused the router (list-item). A default is now checked against the item type the
  annotation reads (strings for untyped items) and left out when it does not fit, as any
  other default that does not fit; a default of strings stays.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import run_in

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_j"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_an_untyped_array_parameter_keeps_only_a_default_of_strings(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "untyped_array_param_default.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    router = (tmp_path / "out" / "server" / "api_server" / "routers" / "search.py").read_text()
    assert "words: Annotated[list[str] | None, Query()] = None" in router, router
    assert 'labels: Annotated[list[str], Query()] = ["red", "blue"]' in router, router
    assert "sizes: Annotated[list[int], Query()] = [1, 2]" in router, router
