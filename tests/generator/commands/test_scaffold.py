"""`spec-gen scaffold --write` and the generated app factory (issue 25): a service for any spec.

The scaffold is written once (never overwriting), its app serves every operation answering
501 in the spec's declared error shape, the team's document and reference page, errors of the
layer itself in that shape with the strict contract on, 401 naming the verifier to write, and
a typed declared error (`ErrorAnswer`) from a real handler. mypy over the scaffold runs in
tests/generator/commands/test_own_spec.py (the walkthrough), not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from spec_helpers import run_in, write

SPEC = """\
openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      tags: [pets]
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
        default: {$ref: '#/components/responses/Problem'}
    post:
      operationId: addPet
      tags: [pets]
      security: [{key: []}]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
      responses:
        '201':
          description: made
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
        4XX: {$ref: '#/components/responses/Problem'}
  /pets/{id}:
    get:
      operationId: getPet
      tags: [pets]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
        '404': {$ref: '#/components/responses/Problem'}
        default: {$ref: '#/components/responses/Problem'}
    put:
      operationId: renamePet
      tags: [pets]
      security: [{key: []}]
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
      responses:
        '204': {description: renamed}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
  responses:
    Problem:
      description: error
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Problem'}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: integer}
        name: {type: string}
    Problem:
      type: object
      required: [status, title, message]
      properties:
        status: {type: integer}
        title: {type: string}
        message: {type: string}
"""

EXTRA_TAG = """\
  /owners:
    get:
      operationId: listOwners
      tags: [owners]
      responses:
        '200': {description: ok}
components:
"""

PROBE = r"""
import json, sys
sys.path[:0] = ["generated/server", "."]
from fastapi.testclient import TestClient
from shop_service.app import app
client = TestClient(app, raise_server_exceptions=False)
out = []
for method, path, kw in json.loads(sys.argv[1]):
    r = client.request(method, path, **kw)
    out.append([r.status_code, r.headers.get("content-type", ""), r.text])
print(json.dumps(out))
"""


def probe(project: Path, *requests: tuple[str, str, dict[str, object]]) -> list[list[object]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(requests)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout.splitlines()[-1]))


def project(tmp_path: Path) -> Path:
    write(tmp_path / "openapi.yaml", SPEC)
    write(
        tmp_path / "pyproject.toml",
        '[tool.spec-gen]\nspec = "openapi.yaml"\nserver-package = "shop_api"\n'
        'client-package = "shop_client"\n',
    )
    code, out = run_in(tmp_path, "build")
    assert code == 0, out
    return tmp_path


def test_scaffold_writes_a_running_service_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out = run_in(root, "scaffold", "--write")
    assert code == 0, out
    package = root / "shop_service"
    assert sorted(p.name for p in package.iterdir()) == [
        "__init__.py",
        "app.py",
        "context.py",
        "pets.py",
    ]
    assert "uvicorn shop_service.app:app" in out
    answers = probe(
        root,
        ("GET", "/pets", {}),
        ("GET", "/pets/7", {}),
        ("GET", "/pets/abc", {}),  # the declared 4xx shape, strict contract on: no 500
        ("POST", "/pets", {"json": {"id": 1, "name": "Rex"}}),  # no credential: 401
        ("POST", "/pets", {"json": {"id": 1, "name": "Rex"}, "headers": {"X-Key": "k"}}),
        ("DELETE", "/pets", {}),
        ("GET", "/nowhere", {}),
        ("GET", "/openapi.json", {}),
        ("GET", "/docs", {}),
        # declares only 204: its 401 (secured) and 415 (has a body) are implied, not a 500
        ("PUT", "/pets/1", {"json": {"id": 1, "name": "Rex"}}),
        ("PUT", "/pets/1", {"content": "x", "headers": {"content-type": "text/plain"}}),
    )
    listed, one, malformed, anonymous, unverified, put, nowhere, document, docs = answers[:9]
    implied_401, implied_415 = answers[9:]
    assert implied_401[0] == 401 and implied_415[0] == 415, answers[9:]
    assert "application/json" in json.loads(str(implied_415[2]))["detail"]
    assert listed[0] == 501
    assert json.loads(str(listed[2])) == {
        "status": 501,
        "title": "Not Implemented",
        "message": "listPets is not implemented yet",
    }
    assert one[0] == 501 and json.loads(str(one[2]))["title"] == "Not Implemented"
    assert malformed[0] == 422
    problem = json.loads(str(malformed[2]))
    assert problem["status"] == 422 and problem["title"] == "Unprocessable Entity"
    assert "path.id" in problem["message"]
    assert anonymous[0] == 401 and json.loads(str(anonymous[2]))["status"] == 401
    assert unverified[0] == 401
    assert (
        "implement verify_key in shop_service.context" in json.loads(str(unverified[2]))["message"]
    )
    assert put[0] == 405 and json.loads(str(put[2]))["status"] == 405
    assert nowhere[0] == 404 and json.loads(str(nowhere[2]))["title"] == "Not Found"
    assert json.loads(str(document[2]))["info"]["title"] == "Shop"  # the team's, not FastAPI's
    assert docs[0] == 200 and docs[1].startswith("text/html")
    assert "generated by spec-gen" in str(docs[2]) and "cdn" not in str(docs[2]).lower()

    # written once: a second run keeps every file; after a new tag only its module is added
    (package / "pets.py").write_text("# mine\n")
    spec = root / "openapi.yaml"
    spec.write_text(spec.read_text().replace("components:\n", EXTRA_TAG, 1))
    assert run_in(root, "build")[0] == 0
    code, out = run_in(root, "scaffold", "--write")
    assert code == 0, out
    assert "wrote shop_service/owners.py" in out and "kept shop_service/pets.py" in out
    assert (package / "pets.py").read_text() == "# mine\n"
    assert "class OwnersService" in (package / "owners.py").read_text()


HANDLERS = """\
from shop_api import transport
from shop_api.errors import ErrorAnswer
from shop_api.models import Pet, Problem

from shop_service.context import RequestContext

PETS = {1: Pet(id=1, name="Rex")}


class PetsService:
    async def list_pets(self, ctx: RequestContext, *, limit: int | None) -> list[Pet]:
        return list(PETS.values())[:limit]

    async def add_pet(
        self, ctx: RequestContext, *, credentials: transport.Credentials, body: Pet
    ) -> Pet:
        raise ErrorAnswer(418, Problem(status=418, title="teapot", message="undeclared"))

    async def rename_pet(
        self, ctx: RequestContext, *, id_: int, credentials: transport.Credentials, body: Pet
    ) -> None:
        raise RuntimeError("SELECT secret FROM pets -- an internal detail")

    async def get_pet(self, ctx: RequestContext, *, id_: int) -> Pet:
        if id_ not in PETS:
            raise ErrorAnswer(404, Problem(status=404, title="Not Found", message=f"no pet {id_}"))
        return PETS[id_]
"""

VERIFIER = """
async def verify_key(credential: Credential) -> str | None:
    return "tester" if hmac.compare_digest(credential.value, "k") else None


VERIFIERS["key"] = verify_key
"""


def test_handlers_answer_declared_errors_as_typed_values(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert run_in(root, "scaffold", "--write")[0] == 0
    (root / "shop_service" / "pets.py").write_text(HANDLERS)
    context = root / "shop_service" / "context.py"
    context.write_text("import hmac\n" + context.read_text() + VERIFIER)
    found, missing, undeclared, listed, broken = probe(
        root,
        ("GET", "/pets/1", {}),
        ("GET", "/pets/2", {}),
        ("POST", "/pets", {"json": {"id": 2, "name": "Tom"}, "headers": {"X-Key": "k"}}),
        ("GET", "/pets", {"params": {"limit": "1"}}),
        ("PUT", "/pets/1", {"json": {"id": 1, "name": "Tom"}, "headers": {"X-Key": "k"}}),
    )
    assert found[0] == 200 and json.loads(str(found[2])) == {"id": 1, "name": "Rex"}
    assert missing[0] == 404
    assert json.loads(str(missing[2])) == {
        "status": 404,
        "title": "Not Found",
        "message": "no pet 2",
    }
    # 418 is covered by addPet's 4XX: declared; the strict contract lets it through
    assert undeclared[0] == 418
    assert listed[0] == 200 and len(json.loads(str(listed[2]))) == 1
    # an unexpected exception: a 500 that says nothing of its cause
    assert broken[0] == 500 and "Internal server error" in str(broken[2])
    assert "secret" not in str(broken[2]) and "SELECT" not in str(broken[2])


def test_scaffold_tag_prints_a_module_that_imports_only_what_exists(tmp_path: Path) -> None:
    """It used to import `..context` and `..errors`, modules of this repository's service."""
    root = project(tmp_path)
    code, out = run_in(root, "scaffold", "pets")
    assert code == 0, out
    assert "from .." not in out
    assert "from shop_service.context import RequestContext" in out
    assert "from shop_api.errors import not_implemented" in out
    assert "class PetsService" in out
    assert 'raise not_implemented("listPets")' in out
    assert not (root / "shop_service").exists()  # printed, nothing written
