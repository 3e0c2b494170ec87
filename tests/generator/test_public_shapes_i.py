"""Shapes met in large public documents (ninth round: Datadog, Figma, PagerDuty, Sonarr,
Radarr, Ory Kratos, Klaviyo, ...), each in a small hand-written spec: the build exits 0 and
the output says what the document meant.

- a schema's `$ref` to a schema outside `components/schemas` (PagerDuty: a property
  `{$ref: '#/components/parameters/audit_method_type/schema'}`, error answers
  `{$ref: '#/components/responses/Conflict/content/application~1json/schema'}`, a member
  `.../schema/oneOf/0`): datamodel-code-generator sees only the component schemas, so the
  field was `Any` (a `models` warning, "Generated a fallback Any model"). Such a schema is
  hoisted under `components/schemas` as an external one is, and its place refers to it; a
  ref to a parameter's schema that is itself a `$ref` reaches that ref's component.
- a `$ref` into a component's `allOf` member (`#/components/schemas/Tag/allOf/0`) from a
  schema that has a readOnly variant: the variant's ref was escaped as one name
  (`Tag~1allOf~10`), pointing at nothing: the request model's field was `Any`.
- a `$ref` into a schema's inside whose last token is also a component's name
  (`.../Tag/allOf/1/properties/Size` beside a component `Size`): that component was
  inlined in its place (a string of 3 characters instead of an integer).
- a schema's `examples` written as a media type's map of Example Objects (SendGrid's 3.1
  documents: `examples: {singleCategory: {value: [category1]}}`): JSON Schema's `examples`
  is an array, so the whole document was refused ([schema] "... is not of type 'array'",
  exit 1). It is read as the list of the values, a `schema-repair` warning; a map of other
  things is dropped as any keyword of the wrong type is.
- a schema that is only itself through an anyOf or oneOf of one member (ogen's negative
  documents cyclic/anyOf_single, oneOf_single: `Test: {anyOf: [{$ref: Test}]}`): an
  internal error, exit 2 ("Models not found in the input data"), and through two such
  schemas (anyOf_double) a pair of classes each only the other, exit 0. Both are now the
  `schema-cycle` error allOf cycles were already: exit 1, at the `$ref` closing the cycle.
- a YAML document libyaml's scanner refuses and YAML 1.2 reads (Typesense's `enum: [right_to_left,
  left_to_right, both_sides:3]`): it was read (the pure parser decides) but every finding in it
  was placed at 1:1, the positions' composer trying libyaml only. It falls back as the loader
  does.
- a component response or request body with an inline schema (Dub's nine error answers, each
  `{$ref: '#/components/responses/400'}` on every operation; PagerDuty's once its refs were
  followed): one class per operation and status (`GetLinksError400`, `CreateLinkError400`,
  ... 1,853 model classes for 54 operations, 12.9 s). The component's schema is now one
  class named after it (`Response400`, `NotFoundResponse`, `PetRequest`): 422 classes, 8.9 s.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from spec_helpers import line_of, run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_i"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


_LOCAL = """
import json, sys
sys.path[:0] = ["client", "server"]
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server
from api_server import models
from api_client import Client

seen = {}

def fields(model):  # the names of a model class's fields (its class is named by the generator)
    return sorted(type(model).model_fields)

class Impl:
    async def list_tags(self, ctx, kind):
        seen["kind"] = type(kind).__name__
        return {"kind": kind, "first": {"count": 2}, "shade": "dark"}
    async def add_holder(self, ctx, body):
        seen.setdefault("bodies", []).append(
            [type(body).__name__, fields(body.base), body.model_dump(exclude_none=True)]
        )
        return {"id": "h1", **body.model_dump(exclude_none=True)}

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
http = TestClient(app, raise_server_exceptions=False)
client = Client(base_url="http://testserver", http_client=http)

def attempt(call):
    try:
        return call()
    except Exception as exc:  # one shape's failure leaves the others to check
        return f"{type(exc).__name__}: {exc}"

def tags():
    got = client.default.list_tags(kind="red")
    return [
        type(got.kind).__name__, got.kind.value,
        type(got.first).__name__, got.first.count,
        type(got.shade).__name__, got.shade.value,
    ]

def holder(**size):
    got = client.default.add_holder(base={"name": "n"}, **size)
    return [fields(got.base), got.model_dump(mode="json", exclude_none=True)]

print(json.dumps({
    "tags": attempt(tags),
    "holder": attempt(holder),
    "sized": attempt(lambda: holder(size=4)),
    "seen": seen,
    "bad_kind": http.get("/tags", params={"kind": "green"}).status_code,
    "bad_size": http.post("/holders", json={"base": {}, "size": "big"}).status_code,
    "conflict": sorted(models.Conflict.model_fields) if hasattr(models, "Conflict") else None,
}))
"""


@pytest.fixture(scope="module")
def local_refs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("local_refs")
    code, output = _build(tmp_path, "local_schema_refs.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    return output, run_json(tmp_path / "out", _LOCAL)


def test_a_ref_into_a_schema_is_not_the_component_of_its_last_name(
    local_refs: tuple[str, dict[str, Any]],
) -> None:
    _, found = local_refs
    # an integer, not the component Size's string of 3 characters
    assert found["sized"] == [["id", "name"], {"id": "h1", "base": {"name": "n"}, "size": 4}]
    assert found["bad_size"] == 422


def test_a_ref_into_an_allof_member_follows_the_readonly_variant(
    local_refs: tuple[str, dict[str, Any]],
) -> None:
    output, found = local_refs
    assert "Tag~1allOf~10" not in output
    # the request's variant drops the readOnly id, and follows the ref into TagInput
    assert found["seen"]["bodies"][0] == ["HolderInput", ["name"], {"base": {"name": "n"}}]
    assert found["holder"] == [["id", "name"], {"id": "h1", "base": {"name": "n"}}]


def test_schemas_referred_to_outside_components_get_their_classes(
    local_refs: tuple[str, dict[str, Any]],
) -> None:
    output, found = local_refs
    assert "[models]" not in output  # no fallback Any model
    assert found["tags"] == ["Kind", "red", "PageOneOf0", 2, "Shade", "dark"]
    assert found["seen"]["kind"] == "Kind"  # the parameter's class is the component's
    assert found["bad_kind"] == 422
    assert found["conflict"] == ["message"]


def test_a_schema_examples_map_is_read_as_a_list(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "schema_example_maps.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (FIXTURES / "schema_example_maps.yaml").read_text()
    assert (
        f"openapi.yaml:{line_of(text, 'examples:')}:11: warning [schema-repair] `examples` is"
        " a map of Example Objects: read as the list of their values" in output
    )
    assert (
        f"openapi.yaml:{line_of(text, 'examples:', 2)}:11: warning [schema-repair] `examples`"
        " has a value of the wrong type: dropped" in output
    )
    bundled = run_in(tmp_path, "bundle", "openapi.yaml", "--format", "json")[1]
    message = json.loads(bundled[bundled.index("{") :])["components"]["schemas"]["Message"]
    assert message["properties"]["categories"]["examples"] == [["news"], ["news", "sales"]]
    assert "examples" not in message["properties"]["subject"]
    # the schema still says what an answer may be: three categories are refused
    script = (
        "import json\n"
        "from api_server.models import Message\n"
        "ok = Message.model_validate({'categories': ['news', 'sales']})\n"
        "try:\n"
        "    Message.model_validate({'categories': ['a', 'b', 'c']})\n"
        "    refused = False\n"
        "except ValueError:\n"
        "    refused = True\n"
        "print(json.dumps([ok.categories, refused]))\n"
    )
    assert run_json(tmp_path / "out" / "server", script) == [["news", "sales"], True]


def test_a_schema_that_is_only_itself_through_one_member_is_refused(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "one_member_cycles.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (FIXTURES / "one_member_cycles.yaml").read_text()
    findings = [line for line in output.splitlines() if "error [" in line]
    self_ref = line_of(text, "- $ref: '#/components/schemas/Self'")
    ping_ref = line_of(text, "- $ref: '#/components/schemas/Ping'")
    assert findings == [
        (
            f"openapi.yaml:{self_ref}:11: error [schema-cycle] anyOf cycle Self -> Self: a"
            " schema cannot extend itself (anyOf with one member is that member)"
            " (at /components/schemas/Self/anyOf/0/$ref)"
        ),
        (
            f"openapi.yaml:{ping_ref}:15: error [schema-cycle] allOf cycle Ping -> Pong -> Ping:"
            " a schema cannot extend itself (at /components/schemas/Pong/oneOf/0/allOf/0/$ref)"
        ),
    ]  # Tree, recursive through a property and a two-member anyOf, is no cycle
    assert not (tmp_path / "out").exists()


def test_findings_keep_their_place_in_a_yaml_file_libyaml_refuses(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "flow_scalar_with_colon.yaml")
    assert code == 0, output
    text = (FIXTURES / "flow_scalar_with_colon.yaml").read_text()
    assert (
        f"openapi.yaml:{line_of(text, '    Field:')}:5: warning [python-name] schema name"
        " 'Field' is a name the generated modules already use" in output
    )
    assert "openapi.yaml:1:1:" not in output
    script = (
        "import json\n"
        "from api_server.models import DropMode\n"
        "print(json.dumps([m.value for m in DropMode]))\n"
    )
    assert run_json(tmp_path / "out" / "server", script) == ["left", "both_sides:3"]


_SHARED = """
import json, sys
sys.path[:0] = ["client", "server"]
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server
from api_server import models
from api_client import Client

seen = []

class Impl:
    async def add_pet(self, ctx, body):
        seen.append(type(body).__name__)
        return {"id": 1, "name": body.name}
    async def replace_pet(self, ctx, id_, body):
        seen.append(type(body).__name__)
        return {"id": id_, "name": body.name}

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
client = Client(base_url="http://testserver", http_client=TestClient(app))
made = client.default.add_pet(name="Rex")
replaced = client.default.replace_pet(2, name="Max")
classes = {
    name: sorted(cls.model_fields)
    for name, cls in vars(models).items()
    if isinstance(cls, type) and issubclass(cls, models.BaseModel) and cls.__module__ == models.__name__
}
print(json.dumps({
    "seen": seen,
    "answers": [type(made).__name__, made.name, type(replaced).__name__, replaced.id],
    "classes": classes,
    "not_found": models.NotFoundResponse.model_validate(
        {"error": {"code": "not_found"}}
    ).error.code.value,
}))
"""


def test_a_shared_component_schema_is_one_class(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "shared_inline_components.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out", _SHARED)
    assert found["seen"] == ["PetRequestInput", "PetRequestInput"]
    assert found["answers"] == ["SavedResponse", "Rex", "SavedResponse", 2]
    assert found["classes"] == {
        "PetRequest": ["id", "name"],
        "PetRequestInput": ["name"],
        "SavedResponse": ["id", "name"],
        "Error": ["code"],
        "NotFoundResponse": ["error"],
        "Response429": ["retry_after"],
    }
    assert found["not_found"] == "not_found"
    contract = (tmp_path / "out" / "server" / "api_server" / "contract.py").read_text()
    assert contract.count('"404": _models.NotFoundResponse,') == 2
    assert contract.count('"429": _models.Response429,') == 2
