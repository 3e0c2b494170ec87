"""A path parameter the path has no `{placeholder}` for (a catch-all route's parameter also
declared on `/`, as ASP.NET's generator writes it): ignored, a `parameter-repair` warning at
the parameter, instead of an error that refused the whole document."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from spec_gen.document.load import bundle
from spec_gen.ir import build_ir
from spec_helpers import line_of, run_in, write

SPEC = """\
openapi: 3.0.1
info: {title: T, version: '1'}
paths:
  /:
    get:
      operationId: get_root
      parameters:
        - name: path
          in: path
          required: true
          schema: {type: string}
        - {name: lang, in: query, schema: {type: string}}
      responses:
        '200': {description: ok}
  /{path}:
    get:
      operationId: get_page
      parameters:
        - name: path
          in: path
          required: true
          schema: {type: string}
      responses:
        '200': {description: ok}
  /items:
    parameters:
      - $ref: '#/components/parameters/ItemId'
    get:
      operationId: list_items
      responses:
        '200': {description: ok}
    post:
      operationId: create_item
      responses:
        '201': {description: made}
components:
  parameters:
    ItemId:
      name: item_id
      in: path
      required: true
      schema: {type: integer}
"""


def test_an_unplaced_path_parameter_is_ignored_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    repairs = [line for line in output.splitlines() if "[parameter-repair]" in line]
    root = line_of(SPEC, "- name: path")
    component = line_of(SPEC, "    ItemId:")  # the component, reported once for two uses
    assert len(repairs) == 2, output
    assert repairs[0].startswith(f"openapi.yaml:{root}:"), repairs
    assert "'path' is declared but not in the path: ignored" in repairs[0]
    assert repairs[1].startswith(f"openapi.yaml:{component}:"), repairs
    assert "'item_id' is declared but not in the path: ignored" in repairs[1]
    assert "[path-params]" not in output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    script = (
        "from fastapi import FastAPI\n"
        "from fastapi.testclient import TestClient\n"
        "import api_server\n"
        "class Impl:\n"
        "    async def get_root(self, ctx, lang=None): return None\n"
        "    async def get_page(self, ctx, path): return None\n"
        "    async def list_items(self, ctx): return None\n"
        "    async def create_item(self, ctx): return None\n"
        "async def ctx(): return None\n"
        "app = FastAPI()\n"
        "app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))\n"
        "c = TestClient(app)\n"
        "print(c.get('/').status_code, c.get('/p').status_code, c.get('/items').status_code)\n"
    )
    assert "path: Annotated" in router  # /{path} keeps its parameter
    ran = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path / "out/server",
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.stdout.split() == ["200", "200", "200"], ran.stderr


def test_the_ir_leaves_an_unplaced_path_parameter_out(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    api = build_ir(bundle(tmp_path / "openapi.yaml").document)
    params = {op.operation_id: [(p.name, p.location) for p in op.params] for op in api.operations}
    assert params == {
        "get_root": [("lang", "query")],
        "get_page": [("path", "path")],
        "list_items": [],
        "create_item": [],
    }


def test_strict_refuses_an_unplaced_path_parameter(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--strict"
    )
    assert code == 1, output
    assert "declared but not in the path" in output
