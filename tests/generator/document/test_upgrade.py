"""OpenAPI 3.0 read as 3.1: the upgrade of each 3.0 construct, and `spec-gen upgrade`."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from spec_gen.document.load import bundle, read_yaml
from spec_gen.document.upgrade import upgrade
from spec_helpers import line_of, run_in, write

SPEC30 = """\
openapi: 3.0.3
# a comment that must survive
info: {title: Pets, version: '1'}
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - name: id
          in: path
          required: true
          example: 7
          schema: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
      responses:
        '200':
          description: ok
          content:
            application/json:
              example: {id: 1}
              schema: {$ref: '#/components/schemas/Pet'}
  /pets/{id}/photo:
    put:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                file: {type: string, format: binary}
                note: {type: string, format: byte}
          image/png:
            schema: {type: string, format: binary}
      responses:
        '204': {description: done}
components:
  schemas:
    Pet:
      type: object
      properties:
        id: {type: integer, example: 3}
        name: {type: string, nullable: true}
        kind: {type: string, enum: [cat, dog], nullable: true}
        legacy: {type: string, x-nullable: true}
        owner:
          nullable: true
          allOf: [{$ref: '#/components/schemas/Owner'}]
        nullable: {type: boolean}
    Owner:
      type: object
      properties:
        name: {type: string}
"""


def upgraded(text: str) -> dict[str, Any]:
    import io

    from ruamel.yaml import YAML

    document = YAML(typ="safe", pure=True).load(io.StringIO(text))
    upgrade(document)
    assert isinstance(document, dict)
    return document


def test_each_30_construct_becomes_its_31_form() -> None:
    doc = upgraded(SPEC30)
    assert doc["openapi"] == "3.1.0"
    param = doc["paths"]["/pets/{id}"]["get"]["parameters"][0]
    assert param["example"] == 7  # parameters and media types keep `example`
    assert param["schema"] == {"type": "integer", "exclusiveMinimum": 0, "maximum": 9}
    media = doc["paths"]["/pets/{id}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert media["example"] == {"id": 1}
    pet = doc["components"]["schemas"]["Pet"]["properties"]
    assert pet["id"] == {"type": "integer", "examples": [3]}
    assert pet["name"] == {"type": ["string", "null"]}
    assert pet["kind"] == {"type": ["string", "null"], "enum": ["cat", "dog", None]}
    assert pet["legacy"] == {"type": ["string", "null"]}
    assert pet["owner"] == {
        "anyOf": [{"allOf": [{"$ref": "#/components/schemas/Owner"}]}, {"type": "null"}]
    }
    assert pet["nullable"] == {"type": "boolean"}  # a property called nullable is a property
    body = doc["paths"]["/pets/{id}/photo"]["put"]["requestBody"]["content"]
    form = body["multipart/form-data"]["schema"]["properties"]
    assert form["file"] == {"type": "string", "contentMediaType": "application/octet-stream"}
    assert form["note"] == {"type": "string", "contentEncoding": "base64"}
    assert body["image/png"]["schema"] == {"type": "string", "contentMediaType": "image/png"}


def test_a_31_document_is_left_alone() -> None:
    text = SPEC30.replace("openapi: 3.0.3", "openapi: 3.1.0")
    import io

    from ruamel.yaml import YAML

    document = YAML(typ="safe", pure=True).load(io.StringIO(text))
    before = copy.deepcopy(document)
    assert upgrade(document) == {}
    assert document == before


def test_upgraded_30_spec_validates_and_builds(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", SPEC30)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0 and "read as 3.1 from 3.0.3" in out, out
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "name: str | None" in models


def test_finding_inside_a_wrapped_schema_points_at_the_source_line(tmp_path: Path) -> None:
    text = SPEC30.replace(
        "          allOf: [{$ref: '#/components/schemas/Owner'}]",
        "          allOf: [{$ref: '#/components/schemas/Nobody'}]",
    )
    spec = write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1
    assert f"openapi.yaml:{line_of(text, 'Nobody')}:" in out and "[ref]" in out, out


def test_upgrade_command_keeps_order_and_comments(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", SPEC30)
    code, out = run_in(tmp_path, "upgrade", "--spec", str(spec), "-o", "v31.yaml")
    assert code == 0, out
    text = (tmp_path / "v31.yaml").read_text()
    assert text.startswith("openapi: 3.1.0\n# a comment that must survive\ninfo:")
    assert "nullable" not in text.replace("nullable: {type: boolean}", "")
    assert "        - name: id\n" in text  # the sequence indentation of the source
    assert read_yaml(tmp_path / "v31.yaml") == bundle(spec).document
    code, out = run_in(tmp_path, "validate", str(tmp_path / "v31.yaml"))
    assert code == 0 and "read as 3.1" not in out, out


def test_upgrade_to_stdout(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", SPEC30)
    code, out = run_in(tmp_path, "upgrade", "--spec", str(spec))
    assert code == 0 and "openapi: 3.1.0" in out and "examples: [3]" in out, out
