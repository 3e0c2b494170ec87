"""A `$ref` to another kind of Object than belongs where it stands (a parameter's `$ref` to a
schema, a schema's to `#/components/parameters/...`, an answer's to a schema): the document
validated and the build dropped the parameter or the answer, or typed the schema Any, without
a word. Each is now a located `ref-kind` warning (the build goes on; `--strict` stops it);
references to the right kind, wherever they point (a schema inside a parameter, an
operation's parameter by index, a property of a schema, a path item), are not.

The same walk tells a Callback Object's `x-` extensions from its expressions: the OpenAPI 3.1
schema refused them."""

from __future__ import annotations

from pathlib import Path

from spec_gen.lint.rules_core import ref_kinds
from spec_helpers import line_of, run_in, write

SPEC = """openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - $ref: "#/components/schemas/Thing"
        - $ref: "#/components/parameters/P"
        - {name: q, in: query, schema: {$ref: "#/components/parameters/P/schema"}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/parameters/P"}
        "404":
          $ref: "#/components/schemas/Thing"
  /b:
    $ref: "#/paths/~1c"
  /c:
    get:
      operationId: getC
      parameters:
        - $ref: "#/paths/~1a/get/parameters/2"
      responses:
        "200":
          $ref: "#/components/responses/R"
components:
  parameters:
    P: {name: p, in: query, schema: {type: string}}
  schemas:
    Thing:
      type: object
      properties:
        p: {$ref: "#/components/parameters/P"}
        r: {$ref: "#/components/responses/R"}
        s: {$ref: "#/components/schemas/Thing/properties/t"}
        t: {type: string, x-note: {$ref: "#/components/parameters/P"}}
  responses:
    R: {description: r}
"""


def test_refs_to_another_kind_are_located_warnings(tmp_path: Path) -> None:
    write(tmp_path / "api.yaml", SPEC)
    code, output = run_in(tmp_path, "validate", "--spec", "api.yaml")
    assert code == 0, output
    found = [line for line in output.splitlines() if "[ref-kind]" in line]
    wanted = [  # (the line's text, which occurrence, the ref, what it is, what belongs)
        ('- $ref: "#/components/schemas/Thing"', 1, "#/components/schemas/Thing", "Schema", "Parameter"),
        ('schema: {$ref: "#/components/parameters/P"}', 1, "#/components/parameters/P", "Parameter", "Schema"),
        ('$ref: "#/components/schemas/Thing"', 2, "#/components/schemas/Thing", "Schema", "Response"),
        ("p: {$ref:", 1, "#/components/parameters/P", "Parameter", "Schema"),
        ("r: {$ref:", 1, "#/components/responses/R", "Response", "Schema"),
    ]  # fmt: skip
    assert len(found) == len(wanted), output
    for text, occurrence, ref, kind, belongs in wanted:
        number = line_of(SPEC, text, occurrence)
        column = SPEC.splitlines()[number - 1].index("$ref") + 1
        line = (
            f"api.yaml:{number}:{column}: warning [ref-kind] $ref {ref!r} points at a {kind} "
            f"Object where a {belongs} Object belongs"
        )
        assert any(f.startswith(line) for f in found), (line, found)


def test_the_build_goes_on_and_strict_stops_it(tmp_path: Path) -> None:
    write(tmp_path / "api.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    assert output.count("[ref-kind]") == 5, output
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "s", "--strict")
    assert code == 1 and "[ref-kind]" in output, output
    assert not (tmp_path / "s").exists()


def test_right_kinds_anywhere_are_not_reported() -> None:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "webhooks": {"w": {"$ref": "#/components/pathItems/W"}},
        "paths": {
            "/x": {
                "parameters": [{"$ref": "#/components/parameters/P"}],
                "post": {
                    "requestBody": {"$ref": "#/components/requestBodies/B"},
                    "responses": {
                        "default": {
                            "description": "d",
                            "headers": {"H": {"$ref": "#/components/headers/H"}},
                            "links": {"L": {"$ref": "#/components/links/L"}},
                        }
                    },
                    "callbacks": {"c": {"$ref": "#/components/callbacks/C"}},
                },
            }
        },
        "components": {
            "pathItems": {"W": {}},
            "parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "string"}}},
            "requestBodies": {
                "B": {"content": {"a/b": {"schema": {"$ref": "#/components/headers/H/schema"}}}}
            },
            "headers": {"H": {"schema": {"type": "string"}}},
            "links": {"L": {}},
            "callbacks": {"C": {"{$url}": {"$ref": "#/components/pathItems/W"}}},
        },
    }
    assert ref_kinds(document) == []
    document["components"]["headers"]["H"] = {"$ref": "#/components/parameters/P"}
    assert [(f.pointer, f.rule) for f in ref_kinds(document)] == [
        ("/components/headers/H/$ref", "ref-kind")
    ]


CALLBACK_EXTENSIONS = """openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /subscribe:
    post:
      operationId: subscribe
      callbacks:
        onEvent:
          x-internal: true
          "{$request.body#/url}":
            x-note: {get: 3}
            post:
              responses:
                "200": {description: ok}
          bad: 3
      responses:
        "201": {description: ok}
"""


def test_a_callbacks_extensions_are_allowed(tmp_path: Path) -> None:
    # OpenAPI says a Callback Object MAY be extended; the 3.1 schema reads every key of one
    # as an expression with a path item: `x-internal: true` was refused ('true is not of
    # type "object"'). A non-extension key with a wrong value is still refused.
    write(tmp_path / "api.yaml", CALLBACK_EXTENSIONS)
    code, output = run_in(tmp_path, "validate", "--spec", "api.yaml")
    assert code == 1, output
    errors = [line for line in output.splitlines() if " error [" in line]
    assert len(errors) == 1, output
    assert errors[0].startswith(f"api.yaml:{line_of(CALLBACK_EXTENSIONS, 'bad: 3')}:"), output
    write(tmp_path / "api.yaml", CALLBACK_EXTENSIONS.replace("          bad: 3\n", ""))
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
