"""A `$ref` into the inside of another schema (`#/components/schemas/Pet/properties/owner/
properties/address`) whose path runs through inline schemas that became classes of their
own: the field gets that class, not `Any` (datamodel-code-generator cannot walk into a ref)."""

from __future__ import annotations

from pathlib import Path

from spec_gen.ir.schemas import deep_refs_followed
from spec_helpers import run_in, run_json, write

SPEC = """openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /pets:
    post:
      operationId: addPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [address]
              properties:
                address: {$ref: '#/components/schemas/Pet/properties/owner/properties/address'}
                keeper: {$ref: '#/components/schemas/Pet/properties/keepers/items'}
                size: {$ref: '#/components/schemas/Pet/properties/size/$defs/inches'}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
components:
  schemas:
    Pet:
      type: object
      properties:
        owner:
          type: object
          nullable: true
          properties:
            address:
              type: object
              required: [city]
              properties:
                city: {type: string}
        keepers:
          type: array
          items:
            type: object
            properties: {name: {type: string}}
        size:
          type: object
          $defs:
            inches: {type: integer, minimum: 1}
          properties:
            value: {$ref: '#/components/schemas/Pet/properties/size/$defs/inches'}
"""


def test_refs_through_hoisted_classes_get_the_class(tmp_path: Path) -> None:
    write(tmp_path / "api.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out", "--typecheck")
    assert code == 0, output
    assert "DanglingRef" not in output and "Any" not in (
        tmp_path / "out/server/api_server/models.py"
    ).read_text(encoding="utf-8")
    checked = run_json(
        tmp_path / "out/server",
        """
import json
from pydantic import ValidationError
from api_server.models import AddPetRequest
body = AddPetRequest.model_validate(
    {"address": {"city": "Lyon"}, "keeper": {"name": "Ann"}, "size": 3}
)
out = {"address": type(body.address).__name__, "keeper": type(body.keeper).__name__,
       "size": body.size.root, "refused": []}
for bad in ({"address": {}}, {"address": {"city": "x"}, "size": 0}):
    try:
        AddPetRequest.model_validate(bad)
    except ValidationError as error:
        out["refused"].append(error.errors()[0]["loc"][0])
print(json.dumps(out))
""",
    )
    assert checked == {
        "address": "Address",
        "keeper": "Keeper",
        "size": 3,
        "refused": ["address", "size"],  # the class's own rules apply: city required, min 1
    }


def test_a_ref_the_hoisted_schemas_do_not_have_is_left_as_written() -> None:
    schemas = {
        "Pet": {"type": "object", "properties": {"owner": {"$ref": "#/components/schemas/Owner"}}},
        "Owner": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Use": {
            "type": "object",
            "properties": {
                "name": {"$ref": "#/components/schemas/Pet/properties/owner/properties/name"},
                "lost": {"$ref": "#/components/schemas/Pet/properties/nothing"},
                "x-kept": {"$ref": "#/components/schemas/Pet/properties/owner"},
            },
        },
    }
    out = deep_refs_followed(schemas)["Use"]["properties"]
    assert out["name"] == {"$ref": "#/components/schemas/Owner/properties/name"}
    assert out["lost"] == {"$ref": "#/components/schemas/Pet/properties/nothing"}
    assert out["x-kept"] == {"$ref": "#/components/schemas/Owner"}  # a property named x-kept
