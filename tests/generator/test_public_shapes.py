"""Shapes met in large public documents, each in a small hand-written spec: the build exits 0
and the output says what the document meant.

- a named union or map that contains itself (`ErrorDetails = oneOf[map of ErrorDetails,
  InnerErrors]`, `Tree = anyOf[array of Tree, string]`): the docs spell it out once and name it
  where it recurs (it recursed until the stack ran out).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import run_in

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_recursive_unions_and_maps_are_documented_by_name(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "recursive_unions.yaml")
    assert code == 0, output
    reference = (tmp_path / "out/docs/default.md").read_text(encoding="utf-8")
    assert "| `tree` | array of `Tree` or string | no |" in reference
    errors = (tmp_path / "out/docs/guides/errors.md").read_text(encoding="utf-8")
    assert "| `errors` | map of string to `ErrorDetails` or `InnerErrors` | no |" in errors
    # the object the union leads to still gets its own table
    assert "`_errors`" in errors
