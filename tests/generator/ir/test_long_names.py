"""Very long schema and tag names (fully qualified generated names run to hundreds of
characters): the modules named after them are cut to a length a file system takes (the
client's model module was a file name of 270 characters: OSError, exit 2)."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import run_in, write

LONG_SCHEMA = "VeryLongGeneratedName" * 12
LONG_TAG = "a very long tag name " * 14


def _spec() -> str:
    return f"""\
openapi: 3.1.0
info: {{title: T, version: '1'}}
paths:
  /things:
    get:
      tags: ['{LONG_TAG}']
      operationId: list_things
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/{LONG_SCHEMA}'}}
  /others:
    get:
      tags: ['{LONG_TAG}, again']
      operationId: list_others
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/{LONG_SCHEMA}Again'}}
components:
  schemas:
    {LONG_SCHEMA}:
      type: object
      properties:
        x: {{type: string}}
    {LONG_SCHEMA}Again:
      type: object
      properties:
        y: {{type: string}}
"""


def test_modules_named_after_long_names_have_short_file_names(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", _spec())
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert max(len(p.name.encode()) for p in files) <= 100
    routers = sorted(p.stem for p in (tmp_path / "out/server/api_server/routers").glob("*.py"))
    assert len(routers) == 3  # __init__ and one per tag: the cut names stay distinct
    models = [p.stem for p in (tmp_path / "out/client/api_client/models").glob("_very*.py")]
    assert len(models) == 2 and len(set(models)) == 2
