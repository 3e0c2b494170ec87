"""Documents built to hurt the tool: a YAML alias bomb, a cycle of aliases, nesting deep
enough to exhaust the stack. Each is refused in well under a second with one located
error (no traceback, no minutes of work, no gigabytes), and a document that uses aliases
the ordinary way still builds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from spec_gen.document.read import MAX_ALIASED, MAX_DEPTH
from spec_helpers import HEAD, run_in, write


def _bomb(levels: int) -> str:
    lines = [HEAD.rstrip("\n"), "paths: {}", 'x-l0: &l0 ["lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        lines.append(f"x-l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    lines.append(
        f"components:\n  schemas:\n    Bomb:\n      type: array\n      default: *l{levels - 1}"
    )
    return "\n".join(lines) + "\n"


CASES = {
    # 9**9 times five strings: billions of values once expanded
    "alias-bomb": (_bomb(10), f"its YAML aliases expand it by more than {MAX_ALIASED:,} values"),
    "alias-cycle": (
        HEAD + "paths: {}\nx-loop: &loop\n  again: *loop\n",
        "a YAML alias refers to a mapping or list that contains it (a cycle)",
    ),
    "deep-yaml": (
        HEAD + "paths: {}\nx-deep: " + "[" * 3000 + "]" * 3000 + "\n",
        f"nested more than {MAX_DEPTH} levels deep",
    ),
    "deep-json": (
        '{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {}, "x-d": '
        + "[" * (MAX_DEPTH + 50)
        + "]" * (MAX_DEPTH + 50)
        + "}",
        f"nested more than {MAX_DEPTH} levels deep",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_document_is_refused_quickly_with_one_error(tmp_path: Path, case: str) -> None:
    text, reason = CASES[case]
    write(tmp_path / "api.yaml", text)
    started = time.monotonic()
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert time.monotonic() - started < 10
    assert code == 1, output
    assert f"api.yaml:1:1: error refused: {reason}" in output, output
    assert "Traceback" not in output and not (tmp_path / "out").exists()


def test_aliases_used_the_ordinary_way_build(tmp_path: Path) -> None:
    write(
        tmp_path / "api.yaml",
        HEAD
        + """x-limits: &limits {type: integer, minimum: 1, maximum: 100}
paths:
  /items:
    get:
      operationId: listItems
      parameters:
        - {name: limit, in: query, schema: *limits}
        - {name: page, in: query, schema: *limits}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: array, items: *limits}
""",
    )
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    routes = (tmp_path / "out/server/api_server/routers/default.py").read_text()
    for name in ("limit", "page"):  # one anchored schema, both parameters constrained by it
        assert f"{name}: Annotated[int | None, Query(ge=1, le=100)] = None" in routes
