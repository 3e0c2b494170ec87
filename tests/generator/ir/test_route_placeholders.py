"""Path placeholders Starlette cannot read as written: `{user-id}`, `{item.id}` (the route
never matched: every request was a 404) and a placeholder the path repeats (Starlette
refused the route: the build stopped with exit 2). The route names them after the
parameter's Python name; the client still sends the path as the document writes it."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import run_in, run_json, write

SPEC = """\
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /users/{user-id}/items/{item.id}:
    get:
      operationId: get_item
      parameters:
        - {name: user-id, in: path, required: true, schema: {type: integer}}
        - {name: item.id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            text/plain: {schema: {type: string}}
  /colors/{color-list}:
    get:
      operationId: get_colors
      parameters:
        - name: color-list
          in: path
          required: true
          style: label
          schema: {type: array, items: {type: string}}
      responses:
        '200':
          description: ok
          content:
            text/plain: {schema: {type: string}}
  /anything/{id}/{action}/{id}:
    get:
      operationId: get_anything
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: action, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            text/plain: {schema: {type: string}}
"""

SCRIPT = """
import json
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server

class Impl:
    async def get_item(self, ctx, user_id, item_id):
        return f"{user_id!r} {item_id!r}"
    async def get_colors(self, ctx, color_list):
        return repr(color_list)
    async def get_anything(self, ctx, id_, action):
        return f"{id_} {action}"

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
c = TestClient(app)
out = {}
for url in ["/users/5/items/x", "/users/five/items/x", "/colors/.red,blue", "/anything/1/go/1"]:
    r = c.get(url)
    out[url] = [r.status_code, r.text if r.status_code == 200 else r.json()["detail"][0]["type"]]
print(json.dumps(out))
"""


def test_placeholders_starlette_cannot_read_are_routed(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    assert run_json(tmp_path / "out/server", SCRIPT) == {
        "/users/5/items/x": [200, "5 'x'"],
        "/users/five/items/x": [422, "int_parsing"],
        "/colors/.red,blue": [200, "['red', 'blue']"],
        "/anything/1/go/1": [200, "1 go"],
    }
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text("utf-8")
    assert 'f"/anything/{_wire.path_param(id_)}/{_wire.path_param(action)}/' in client
