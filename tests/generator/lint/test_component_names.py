"""Component names OpenAPI does not allow (`^[a-zA-Z0-9._-]+$`): `Page«User»` (springfox's
generics), `Error Body`, a parameter `page size`. Their `$ref`s resolve (as written or
percent-encoded), so each is a `component-name` warning at its key, not an error refusing
the document; the classes get Python names."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import line_of, run_in, write

SPEC = """\
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /users:
    get:
      operationId: list_users
      parameters:
        - $ref: '#/components/parameters/page size'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Page«User»'}
        '400':
          description: bad
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Error%20Body'}
components:
  parameters:
    page size: {name: size, in: query, schema: {type: integer}}
  schemas:
    User:
      type: object
      properties:
        kind: {$ref: '#/components/schemas/Mixed Enum'}
    Page«User»:
      type: object
      properties:
        items: {type: array, items: {$ref: '#/components/schemas/User'}}
    Error Body:
      type: object
      properties:
        message: {type: string}
    Mixed Enum:
      type: string
      enum: [a, b]
"""


def test_component_names_outside_the_pattern_build_with_warnings(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    warned = [line for line in output.splitlines() if "[component-name]" in line]
    keys = ["    page size:", "    Page«User»:", "    Error Body:", "    Mixed Enum:"]
    assert [w.split(":")[1] for w in warned] == [str(line_of(SPEC, k)) for k in keys], output
    assert all(" warning " in w for w in warned)
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    for line in [
        "class PageUser(BaseModel):",
        "    items: list[User] | None = None",
        "class ErrorBody(BaseModel):",
        "    kind: MixedEnum | None = None",
    ]:
        assert line in models, models
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert "size: Annotated[int | None, Query()] = None" in router
    assert ") -> PageUser:" in router


def test_strict_refuses_component_names_outside_the_pattern(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--strict"
    )
    assert code == 1, output
    assert "[component-name]" in output
    assert not (tmp_path / "out").exists()
