"""JSON Schema assertions the generated models do not make (`minProperties`, `uniqueItems`,
`not`, `if`/`then`/`else`, `contains`, `dependentRequired`, ...) were dropped without a word:
a request the spec forbids reached the handler. Each is now an `unchecked-keyword` warning
at its keyword (`--strict` refuses the build), once: nothing inside a subschema that is not
applied is reported again. `prefixItems` is carried as far as a list type goes: each item is
one of the positions' types (or of `items`), as openapi-python-client reads it."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import line_of, run_in, run_json, write

SPEC = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /things:
    post:
      operationId: create_thing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '204': {description: done}
components:
  schemas:
    Thing:
      type: object
      minProperties: 1
      properties:
        tags: {type: array, items: {type: string}, uniqueItems: true}
        plain: {type: array, items: {type: string}, uniqueItems: false}
        pair: {type: array, prefixItems: [{type: string}, {type: integer}], maxItems: 2}
        open: {type: array, prefixItems: [{type: string}]}
        rest: {type: array, prefixItems: [{const: head}], items: {type: boolean}}
        never: {not: {}}
        cond:
          type: object
          if: {properties: {a: {const: 1}}}
          then: {required: [b], maxProperties: 2}
        lone_if: {type: object, if: {required: [a]}}
        has: {type: array, contains: {type: integer, uniqueItems: true}}
        dep: {type: object, dependentRequired: {a: [b]}}
        not:
          type: object
          maxProperties: 3
"""


def warnings_of(output: str) -> list[str]:
    return [line for line in output.splitlines() if "[unchecked-keyword]" in line]


def test_each_unchecked_keyword_is_one_warning_at_its_line(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 0, output
    found = warnings_of(output)
    expected = [
        ("minProperties", line_of(SPEC, "minProperties: 1"), "fewer members"),
        ("uniqueItems", line_of(SPEC, "uniqueItems: true"), "duplicates"),
        ("prefixItems", line_of(SPEC, "pair:"), "every position's type"),
        ("prefixItems", line_of(SPEC, "open:"), "read as any values"),
        ("prefixItems", line_of(SPEC, "rest:"), "every position's type"),
        ("not", line_of(SPEC, "never:"), "a value it forbids passes"),
        ("if", line_of(SPEC, "if: {properties"), "`then` / `else`"),
        ("contains", line_of(SPEC, "has:"), "without a matching item"),
        ("dependentRequired", line_of(SPEC, "dep:"), "without the members it requires"),
        ("maxProperties", line_of(SPEC, "maxProperties: 3"), "more members"),
    ]
    assert len(found) == len(expected), output
    for line, (keyword, number, consequence) in zip(found, expected, strict=True):
        assert line.startswith(f"openapi.yaml:{number}:"), (keyword, line)
        assert f"`{keyword}` is not checked" in line and consequence in line, line
    # `uniqueItems: false`, a lone `if`, what `then` and `contains` hold: nothing to report;
    # a property named `not` is a property, and its schema is checked like any other
    for quiet in ("lone_if:", "then:"):
        assert not any(line.startswith(f"openapi.yaml:{line_of(SPEC, quiet)}:") for line in found)

    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--strict"
    )
    assert code == 1 and len(warnings_of(output)) == len(expected), output
    assert not (tmp_path / "out").exists()


SCRIPT = r"""
import json
from api_server.models import Thing

def valid(**kw):
    try:
        Thing(**kw)
        return True
    except Exception:
        return False

print(json.dumps({
    "pair": [valid(pair=["a", 1]), valid(pair=[1, "a"]), valid(pair=["a", 1, 2]),
             valid(pair=[{"x": 1}])],
    "open": [valid(open=["a", {"x": 1}])],
    "rest": [valid(rest=["head", True, False]), valid(rest=["tail"]), valid(rest=[[1]])],
}))
"""


def test_prefix_items_type_each_item_as_one_of_the_positions(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "pair: Annotated[list[str | int] | None, Field(max_length=2)] = None" in models
    assert 'rest: list[Literal["head"] | bool] | None = None' in models
    assert "open: list[Any] | None = None" in models  # anything may follow: nothing to type
    assert run_json(tmp_path / "out/server", SCRIPT) == {
        # positions are not checked (the warning says so); types and the length are
        "pair": [True, True, False, False],
        "open": [True],
        "rest": [True, False, False],
    }
