"""A JSON media type without a schema (`application/json: {}`): any JSON value. A request
body of it is read as any JSON (it was `str`: an object was a 422), alone or beside text;
a response of it beside text answers the text (it was typed `None | str`: mypy refused)."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import run_in, run_json, write

SPEC = """\
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /a:
    post:
      operationId: post_a
      requestBody:
        required: true
        content:
          application/json: {}
      responses:
        '204': {description: done}
  /b:
    post:
      operationId: post_b
      requestBody:
        required: true
        content:
          application/json: {}
          text/plain: {}
      responses:
        '200':
          description: ok
          content:
            application/json: {}
            text/plain: {}
"""

SCRIPT = """
import json
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server

seen = []
class Impl:
    async def post_a(self, ctx, body):
        seen.append(body)
    async def post_b(self, ctx, body):
        seen.append(body)
        return "done"

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
c = TestClient(app)
answers = [
    c.post("/a", json={"x": [1, 2]}).status_code,
    c.post("/a", json=[True]).status_code,
    c.post("/b", json={"y": None}).text,
    c.post("/b", content="hi", headers={"content-type": "text/plain"}).text,
]
print(json.dumps({"answers": answers, "seen": seen}))
"""


def test_schemaless_json_bodies_take_any_json_and_type_check(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    interfaces = (tmp_path / "out/server/api_server/interfaces/default.py").read_text("utf-8")
    assert "body: Any," in interfaces
    assert "body: Any | str," in interfaces
    assert run_json(tmp_path / "out/server", SCRIPT) == {
        "answers": [204, 204, "done", "done"],
        "seen": [{"x": [1, 2]}, [True], {"y": None}, "hi"],
    }
