"""Fields of OpenAPI objects set to null (`description: null` on every operation, as
Exoscale's generator writes unset fields): read as absent, a `null-field` warning at each;
they were 74 `openapi` errors refusing the document. Nulls that are data stay."""

from __future__ import annotations

from pathlib import Path

from spec_gen.document.load import bundle
from spec_helpers import line_of, run_in, write

SPEC = """\
openapi: 3.0.0
info: {title: T, version: '1', description: null}
tags:
  - {name: things, description: null}
paths:
  /things/{id}:
    summary: null
    get:
      tags: [things]
      operationId: get_thing
      description: null
      x-note: null
      parameters:
        - {name: id, in: path, required: true, description: null, schema: {type: string}}
        - {name: q, in: query, example: null, schema: {type: string, nullable: true, default: null}}
      responses:
        '200':
          description: ok
          headers: null
          content:
            application/json:
              schema: {type: object, properties: {a: {type: string, nullable: true}}}
              example: {a: null}
        default:
          description: error
          headers: null
"""


def test_null_fields_are_read_as_absent_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    warned = [line for line in output.splitlines() if "[null-field]" in line]
    needles = [
        "info: {title",
        "- {name: things",
        "summary: null",
        "      description: null",
        "- {name: id",
        "headers: null",
    ]
    expected = [line_of(SPEC, n) for n in needles] + [line_of(SPEC, "headers: null", 2)]
    assert sorted(int(w.split(":")[1]) for w in warned) == sorted(expected), output
    assert "[openapi]" not in output
    docs = (tmp_path / "out/docs/things.md").read_text(encoding="utf-8")
    rows = [line for line in docs.splitlines() if line.startswith("| `id`")]
    assert rows and all("None" not in row for row in rows), docs


def test_nulls_that_are_data_stay(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    document = bundle(tmp_path / "openapi.yaml").document
    op = document["paths"]["/things/{id}"]["get"]
    assert "description" not in op and op["x-note"] is None
    assert op["parameters"][1]["example"] is None
    assert op["parameters"][1]["schema"]["default"] is None
    media = op["responses"]["200"]["content"]["application/json"]
    assert media["example"] == {"a": None}
