"""Shapes a mutation fuzzer found (valid documents made by editing this repository's
fixtures and the corpus at random, each built with `spec-gen build`; an exit code other
than 0 or 1 is a bug). Each was an internal error (exit 2):

- an answer (or body) whose schema is `allOf: [{$ref: <an enum>}]` and nothing else:
  datamodel-code-generator wrote no class for it ("produced no class for:
  GetLevelResponse"); it is now written as the `$ref`, a RootModel of the enum;
- a parameter that is an array of arrays (`?pairs=...`, a header): FastAPI refused the
  route ("Query parameter must be one of the supported types"); OpenAPI gives no way to
  write one, so each item is read as a string, with a `parameter-repair` warning;
- a default eight or more steps inside `$ref`s, `allOf` wrappers and unions (`[id]` for a
  list of a discriminated union of objects) was taken as fitting: the generated server
  refused it at import. The check now follows 32 steps (within a budget of 2,000 schemas);
- an enum extended through `allOf` with properties of its own: a subclass of the Enum with
  fields, which Python refuses; read as the enum (the properties apply to no enum value);
- (mypy refused) an untyped parameter whose default is a list: now an array of strings;
- a property named `Field` beside one that needs an alias: datamodel-code-generator
  imported `Field as Field_aliased` and still called `Field(...)` in another class;
- any schema datamodel-code-generator writes no class for (the build stopped with an
  internal error): now `RootModel[Any]`, with a `models` warning at the schema.

And one the type checker refused (exit 1 under `--typecheck`): a type list with constraints
of one of its types (`type: [integer, string], pattern: ...`) became `int | constr(...)`;
it is now an `anyOf` of one member per type, each with its own type's keywords.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from spec_helpers import line_of, run_in, run_json, write


def served(impl: str, calls: str) -> str:
    """A script that mounts the generated routers on `impl` (the source of a class `Impl`,
    after what it imports) and runs `calls` (which print their JSON)."""
    return (
        "import json\nfrom fastapi import FastAPI\nfrom fastapi.testclient import TestClient\n"
        f"import api_server\n{impl}async def ctx(): return None\napp = FastAPI()\n"
        "app.include_router(api_server.create_api_router(context=lambda op: ctx, "
        f"default=Impl()))\n{calls}"
    )


ENUM_ALLOF = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /level:
    get:
      operationId: get_level
      responses:
        '200':
          description: the enum, through a one-member allOf
          content:
            application/json:
              schema:
                allOf:
                  - $ref: '#/components/schemas/Level'
        '400':
          description: a named alias no other schema uses
          content:
            application/json:
              schema: {$ref: '#/components/schemas/LevelAlias'}
components:
  schemas:
    Level: {type: string, enum: [low, high]}
    LevelAlias:
      description: an enum under another name
      allOf:
        - $ref: '#/components/schemas/Level'
"""

ENUM_SCRIPT = served(
    r"""from api_server.models import GetLevelResponse, Level, LevelAlias

class Impl:
    async def get_level(self, ctx):
        return GetLevelResponse(Level("high"))

""",
    r"""answer = TestClient(app).get("/level")
def refused(value):
    try:
        LevelAlias.model_validate(value)
        return False
    except Exception:
        return True
print(json.dumps([answer.status_code, answer.json(), refused("medium"), refused("low")]))
""",
)


def test_an_answer_that_is_an_allof_of_one_enum_builds(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", ENUM_ALLOF)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "class GetLevelResponse(RootModel[Level]):" in models
    assert "class LevelAlias(RootModel[Level]):" in models
    assert run_json(tmp_path / "out/server", ENUM_SCRIPT) == [200, "high", True, False]


NESTED = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /pairs:
    get:
      operationId: list_pairs
      parameters:
        - name: pairs
          in: query
          schema: {type: array, items: {type: array, items: {type: integer}}}
        - name: X-Grid
          in: header
          schema: {type: array, items: {$ref: '#/components/schemas/Row'}}
      responses:
        '200':
          description: what was read
          content:
            application/json:
              schema: {type: array, items: {type: string}}
components:
  schemas:
    Row: {type: array, items: {type: number}}
"""

NESTED_SCRIPT = served(
    r"""
class Impl:
    async def list_pairs(self, ctx, pairs=None, x_grid=None):
        return [*(pairs or []), "|", *(x_grid or [])]

""",
    r"""answer = TestClient(app).get("/pairs?pairs=1,2&pairs=3,4", headers={"X-Grid": "5,6"})
print(json.dumps([answer.status_code, answer.json()]))
""",
)


def test_a_parameter_array_of_arrays_is_read_as_strings(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", NESTED)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    repairs = [line for line in output.splitlines() if "[parameter-repair]" in line]
    assert [line.split(":")[1] for line in repairs] == [
        str(line_of(NESTED, "name: pairs")),
        str(line_of(NESTED, "name: X-Grid")),
    ], output
    assert "parameter 'pairs' is an array of arrays" in repairs[0]
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text("utf-8")
    assert "pairs: builtins.list[str] | None = None" in client
    # exploded query values each one string; a header's simple style splits on commas
    assert run_json(tmp_path / "out/server", NESTED_SCRIPT) == [
        200,
        ["1,2", "3,4", "|", "5", "6"],
    ]


TYPE_LIST = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /nodes:
    get:
      operationId: find_nodes
      parameters:
        - name: code
          in: query
          schema: {type: [integer, string], pattern: '^[A-Z]{3}$', minimum: 1}
      responses:
        '200':
          description: the node
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
components:
  schemas:
    Node:
      type: object
      properties:
        label: {type: [integer, string, 'null'], maxLength: 3, format: int64}
"""

TYPE_LIST_SCRIPT = served(
    r"""from api_server.models import Node

class Impl:
    async def find_nodes(self, ctx, code=None):
        while hasattr(code, "root"):  # the union's class, then its member's
            code = code.root
        return Node(label=code)

""",
    r"""c = TestClient(app)
def valid(label):
    try:
        Node(label=label)
        return True
    except Exception:
        return False
out = [[r.status_code, r.json().get("label") if r.status_code == 200 else None]
       for r in (c.get("/nodes?code=7"), c.get("/nodes?code=ABC"), c.get("/nodes?code=ab"),
                 c.get("/nodes?code=0"))]
print(json.dumps([out, [valid(12345), valid("abc"), valid("abcd"), valid(None)]]))
""",
)


def test_a_type_list_with_constraints_of_one_type_type_checks(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", TYPE_LIST)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output  # was `int | constr(pattern=...)`: mypy refused the annotation
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "constr(" not in models and "conint(" not in models
    # each keyword checks the values of its own type only, as JSON Schema says
    assert run_json(tmp_path / "out/server", TYPE_LIST_SCRIPT) == [
        [[200, 7], [200, "ABC"], [422, None], [422, None]],
        [True, True, False, True],
    ]


DEEP_DEFAULT = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /cat:
    get:
      operationId: cat
      parameters:
        - name: columns
          in: query
          schema:
            default: [id]
            allOf: [{$ref: '#/components/schemas/Columns'}]
      responses:
        '204': {description: done}
components:
  schemas:
    Columns:
      oneOf:
        - $ref: '#/components/schemas/Column'
        - {type: array, items: {$ref: '#/components/schemas/Column'}}
    Column:
      allOf:
        - anyOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/B'}]
          discriminator: {propertyName: kind}
    A: {type: object, required: [kind], properties: {kind: {const: a}}}
    B: {type: object, required: [kind], properties: {kind: {const: b}}}
"""


def test_a_default_deep_inside_unions_is_checked(tmp_path: Path) -> None:
    """`[id]` for a list of a discriminated union of objects, eight steps down: taken as
    fitting, and the generated server refused it at import (internal error, exit 2)."""
    write(tmp_path / "openapi.yaml", DEEP_DEFAULT)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    (warning,) = [line for line in output.splitlines() if "[default]" in line]
    assert warning.startswith(f"openapi.yaml:{line_of(DEEP_DEFAULT, 'default: [id]')}:")
    assert "default ['id'] does not fit its schema: dropped" in warning


ENUM_EXTENDED = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /search:
    get:
      operationId: search
      parameters:
        - name: op
          in: query
          schema:
            allOf: [{$ref: '#/components/schemas/Operator'}]
            properties: {extra: {type: integer}}
      responses:
        '200':
          description: the operator
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Extended'}
components:
  schemas:
    Operator: {type: string, enum: [and, or]}
    Extended:
      allOf:
        - $ref: '#/components/schemas/Operator'
        - {type: object, properties: {weight: {type: number}}}
      properties: {note: {type: string}}
"""

ENUM_EXTENDED_SCRIPT = served(
    r"""from api_server.models import Extended

class Impl:
    async def search(self, ctx, op=None):
        return Extended.model_validate("or")

""",
    r"""def valid(value):
    try:
        Extended.model_validate(value)
        return True
    except Exception:
        return False
answer = TestClient(app).get("/search")
print(json.dumps([answer.status_code, answer.json(), valid("and"), valid("xor"), valid({})]))
""",
)


def test_an_enum_extended_with_properties_is_the_enum(tmp_path: Path) -> None:
    """`allOf: [{$ref: <enum>}]` with properties of its own: datamodel-code-generator wrote
    a subclass of the Enum with fields, which Python refuses (the server did not import)."""
    write(tmp_path / "openapi.yaml", ENUM_EXTENDED)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "class Extended(RootModel[Operator]):" in models
    assert run_json(tmp_path / "out/server", ENUM_EXTENDED_SCRIPT) == [
        200,
        "or",
        True,
        False,
        False,
    ]


LIST_DEFAULT = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /search:
    get:
      operationId: search
      parameters:
        - {name: labels, in: query, schema: {default: [red, blue]}}
        - {name: sizes, in: query, schema: {default: [1, 2]}}
      responses:
        '200':
          description: what was read
          content:
            application/json:
              schema: {type: array, items: {type: string}}
"""

LIST_DEFAULT_SCRIPT = served(
    r"""
class Impl:
    async def search(self, ctx, labels=None, sizes=None):
        return [*labels, "|", *(sizes or [])]

""",
    r"""c = TestClient(app)
print(json.dumps([c.get("/search").json(), c.get("/search?labels=a&labels=b&sizes=3").json()]))
""",
)


def test_an_untyped_parameter_with_a_list_default_is_an_array(tmp_path: Path) -> None:
    """`{default: [red, blue]}` and no type: read as a string, `labels: str = ["red",
    "blue"]`, which mypy --strict refused. An array of strings now (each value arrives as a
    string; a default of numbers does not fit it and is left out)."""
    write(tmp_path / "openapi.yaml", LIST_DEFAULT)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    assert run_json(tmp_path / "out/server", LIST_DEFAULT_SCRIPT) == [
        ["red", "blue", "|"],
        ["a", "b", "|", "3"],
    ]


FIELD_PROPERTY = """openapi: 3.1.0
info: {title: T, version: '1'}
paths: {}
components:
  schemas:
    Count: {type: integer, minimum: 0}
    State:
      type: object
      properties:
        x-total: {type: integer}
        Field: {type: string}
"""

FIELD_SCRIPT = r"""
import json
from api_server.models import Count, State

def valid(model, value):
    try:
        model.model_validate(value)
        return True
    except Exception:
        return False

state = State.model_validate({"x-total": 3, "Field": "f"})
print(json.dumps([valid(Count, 1), valid(Count, -1), state.x_total, state.field]))
"""


def test_a_property_named_field_leaves_constraints_elsewhere_defined(tmp_path: Path) -> None:
    """A property named `Field` (with one that needs an alias): datamodel-code-generator
    imported `Field as Field_aliased` but wrote `Field(ge=0)` in another class, which was
    never complete (NameError when first used)."""
    write(tmp_path / "openapi.yaml", FIELD_PROPERTY)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    assert run_json(tmp_path / "out/server", FIELD_SCRIPT) == [True, False, 3, "f"]


NO_CLASS = """openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /keys/{kid}:
    get:
      parameters:
        - {name: kid, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: the key
          content:
            application/json:
              schema: {$ref: '#/components/schemas/SigningKey', enum: []}
components:
  schemas:
    SigningKey:
      oneOf:
        - {}
        - $ref: '#/components/schemas/RsaKey'
    RsaKey:
      allOf:
        - $ref: '#/components/schemas/SigningKey'
"""


def test_a_schema_the_models_tool_writes_no_class_for_is_any_value(tmp_path: Path) -> None:
    """datamodel-code-generator wrote no class for an answer's schema (a `$ref` to a
    recursive union with an empty `enum` beside it): the build stopped with an internal
    error. Any schema it writes nothing for is now `RootModel[Any]` with a `models` warning
    at the schema, and the build goes on."""
    write(tmp_path / "openapi.yaml", NO_CLASS)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    (warning,) = [line for line in output.splitlines() if "wrote no class" in line]
    assert warning.startswith(f"openapi.yaml:{line_of(NO_CLASS, 'enum: []')}:"), warning
    assert "warning [models]" in warning and "any value" in warning
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "(RootModel[Any]):\n    root: Any\n" in models


FALSE_REFS = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /a/{id}:
    post:
      operationId: post_a
      parameters:
        - {name: id, in: path, required: true, schema: {$ref: '#/components/schemas/Nothing'}}
        - {name: q, in: query, schema: {type: array, items: {$ref: '#/components/schemas/Nothing'}}}
      requestBody:
        content:
          multipart/form-data:
            schema: {$ref: '#/components/schemas/Nothing'}
      responses:
        '200':
          description: ok
          content:
            application/json: {schema: {$ref: '#/components/schemas/Nothing'}}
webhooks:
  ping:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {$ref: '#/components/schemas/Nothing'}
      responses:
        '200': {description: ok}
  level:
    post:
      requestBody:
        content:
          application/json:
            schema: {enum: [first, second]}
      responses:
        '200': {description: ok}
components:
  schemas:
    Nothing: false
"""


def test_refs_to_a_false_schema_and_an_enum_webhook_payload(tmp_path: Path) -> None:
    """A form body `$ref` to a `false` schema: `'bool' object has no attribute 'get'`
    (internal error); every `$ref` to a boolean schema now reads as a schema with no
    keywords. A webhook whose payload is an enum: the client's `construct_event` called
    `model_validate_json` on the enum (mypy refused); it parses with a TypeAdapter. With a
    text or form payload first, it imported `str` from the models (an ImportError at the
    first delivery, which mypy and the import probe did not see)."""
    write(tmp_path / "openapi.yaml", FALSE_REFS)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    script = (
        "import json\nfrom api_client.webhooks import construct_event\n"
        "print(json.dumps(construct_event(b'\"second\"').value))\n"
    )
    assert run_json(tmp_path / "out/client", script) == "second"


def test_the_type_checker_refuses_a_model_name_the_client_does_not_have(tmp_path: Path) -> None:
    """The client's `models` package (and the package itself) answers names lazily (PEP 562
    `__getattr__`), which mypy read as "any name exists": `from .models import str` passed
    --strict and failed at the first webhook delivery. The type checker now sees only the
    real names."""
    write(tmp_path / "openapi.yaml", ENUM_ALLOF)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    package = tmp_path / "out/client/api_client"
    (package / "uses_models.py").write_text(
        "from . import Client, NoSuchName\nfrom .models import Level, NoSuchModel\n\n"
        "x: Level | NoSuchModel | None = None\ny: Client | NoSuchName | None = None\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(package)],
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, checked.stdout
    assert 'has no attribute "NoSuchName"' in errors[0], checked.stdout
    assert 'has no attribute "NoSuchModel"' in errors[1], checked.stdout
