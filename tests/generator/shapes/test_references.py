"""`$ref`s of real public documents: a ref to a schema the document does not have, refs into
a schema's inside or outside `components/schemas`, a `type` beside a ref, a component response
or request body referred to by many operations.

Each document, under fixtures/shapes/references/, is small and hand-written and reproduces a
shape met in real public OpenAPI documents (large public APIs, the test documents of peer
tools), named below or in the test: the build exits 0 (or 1 with located findings) and the
output says what the document meant.

- a `$ref` to a schema the document does not have (Keycloak's admin API): one located
  finding, without datamodel-code-generator's own warning printed beside it.
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
- a component response or request body with an inline schema (Dub's nine error answers, each
  `{$ref: '#/components/responses/400'}` on every operation; PagerDuty's once its refs were
  followed): one class per operation and status (`GetLinksError400`, `CreateLinkError400`,
  ... 1,853 model classes for 54 operations, 12.9 s). The component's schema is now one
  class named after it (`Response400`, `NotFoundResponse`, `PetRequest`): 422 classes, 8.9 s.
- a `$ref` with the `type` its target has beside it (`items: {type: object, $ref: File}`,
  3.1 applies both): datamodel-code-generator made a copy of the referenced class for it
  (`Datum1`, the fields of `File`), while the client's unwrapped answer (`.data`) was
  typed `list[File]`, and mypy --strict refused the client. The redundant `type` is now
  left out of what the models are made from: the field is `list[File]`; a `type` the
  target does not have (a contradiction) is kept.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from spec_helpers import SHAPES, build_shape, line_of, run_json


def test_a_dangling_ref_is_one_located_finding_and_nothing_else(tmp_path: Path) -> None:
    """Keycloak's admin API as published: a property `$ref`s a schema the document does not
    have. It is refused with one finding at the `$ref`; the models worker (forked, its
    stderr the terminal's) printed datamodel-code-generator's DanglingRefWarning as well."""
    shutil.copy(SHAPES / "references/dangling_ref.yaml", tmp_path / "openapi.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "spec_gen", "build", "--spec", "openapi.yaml", "--output", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    text = (SHAPES / "references/dangling_ref.yaml").read_text(encoding="utf-8")
    line = line_of(text, "not_mapped_here")
    found = done.stdout + done.stderr
    assert f"openapi.yaml:{line}:" in found and "error [ref]" in found, found
    assert "Traceback" not in found
    assert "Warning" not in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


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
    code, output = build_shape(tmp_path, "references/local_schema_refs.yaml", "--typecheck")
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


def test_a_type_beside_a_ref_that_says_the_same_makes_no_copy(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "references/typed_ref.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "data: list[Document]" in models, models
    assert "latest: Document | None = None" in models, models
    assert models.count("name: str") == 1, models  # no copy of Document
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text()
    assert "-> builtins.list[Document]:" in client, client


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
    code, output = build_shape(tmp_path, "references/shared_inline_components.yaml", "--typecheck")
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
