"""Parameters typed the Swagger 2.0 way inside an OpenAPI 3 document (`type: integer` on the
parameter itself, `collectionFormat: csv`), and parameters and headers with no type at all,
each refused the whole document ([openapi] '... is not valid under any of the schemas listed
in the oneOf keyword'). They are read as meant, a warning each, and the
server checks the parameters with the schema they were read as."""

from __future__ import annotations

from pathlib import Path

from spec_gen.document.load import bundle
from spec_gen.ir import build_ir
from spec_helpers import column_of, line_of, run_in, run_json, write

SPEC = """\
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /items:
    get:
      operationId: list_items
      parameters:
        - {name: limit, in: query, type: integer, minimum: 1, maximum: 50, default: 10}
        - name: ids
          in: query
          type: array
          items: {type: integer}
          collectionFormat: csv
        - {name: after, in: query, type: integer, minimum: 0, exclusiveMinimum: true}
        - {name: q, in: query}
        - {name: X-Trace, in: header}
      responses:
        '200':
          description: ok
          headers:
            X-Total: {description: how many}
          content:
            application/json: {schema: {type: array, items: {type: integer}}}
    delete:
      operationId: drop_items
      responses:
        '204': {description: dropped}
"""


def test_untyped_and_swagger2_parameters_are_read_as_meant(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    repairs = [line for line in output.splitlines() if "[parameter-repair]" in line]
    assert len(repairs) == 6, output
    limit = line_of(SPEC, "name: limit")
    assert repairs[0].startswith(f"openapi.yaml:{limit}:"), repairs
    assert (
        "a parameter without `schema` or `content`: its `type`, `minimum`, `maximum`, "
        "`default` read as its schema" in repairs[0]
    )
    assert "`type`, `items` read as its schema" in repairs[1]
    assert "a parameter without `schema` or `content`: read as a string" in repairs[3]
    assert "a header without `schema` or `content`: read as a string" in repairs[5]
    api = build_ir(bundle(tmp_path / "openapi.yaml").document)
    (listing,) = [op for op in api.operations if op.operation_id == "list_items"]
    params = {p.name: p for p in listing.params}
    assert params["limit"].schema == {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
    assert params["after"].schema == {"type": "integer", "exclusiveMinimum": 0}
    assert (params["ids"].style, params["ids"].explode) == ("form", False)
    script = (
        "from fastapi import FastAPI\n"
        "from fastapi.testclient import TestClient\n"
        "import api_server\n"
        "class Impl:\n"
        "    async def list_items(self, ctx, limit=10, ids=None, after=None, q=None, x_trace=None):\n"
        "        return [limit, *(ids or []), after if after is not None else -1]\n"
        "    async def drop_items(self, ctx): return None\n"
        "async def ctx(): return None\n"
        "app = FastAPI()\n"
        "app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))\n"
        "c = TestClient(app)\n"
        "import json\n"
        "print(json.dumps([c.get('/items').json(), c.get('/items?limit=5&ids=7,8&after=1').json(),\n"
        "      c.get('/items?limit=0').status_code, c.get('/items?after=0').status_code,\n"
        "      c.get('/items?limit=x').status_code, c.delete('/items').status_code]))\n"
    )
    assert run_json(tmp_path / "out/server", script) == [[10, -1], [5, 7, 8, 1], 422, 422, 422, 204]


def test_strict_refuses_an_untyped_parameter(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "o", "--strict")
    assert code == 1, output
    assert "[parameter-repair]" in output


def test_body_and_form_data_parameters_say_where_openapi_3_writes_them(tmp_path: Path) -> None:
    """Swagger 2.0's `in: body` / `in: formData` were refused with jsonschema's '"body" is not
    one of "query", "header" or 2 other candidates'; the finding now says what to write."""
    text = (
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /pets:\n    post:\n"
        "      parameters:\n        - {name: pet, in: body, schema: {type: object}}\n"
        "        - {name: photo, in: formData, type: file}\n"
        "      responses:\n        '204': {description: done}\n"
    )
    write(tmp_path / "openapi.yaml", text)
    code, output = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 1, output
    body = line_of(text, "in: body")
    form = line_of(text, "in: formData")
    assert (
        f"openapi.yaml:{body}:{column_of(text, 'in: body')}: error [openapi] `in: body` is Swagger 2.0's: OpenAPI 3 writes "
        "this parameter in the operation's `requestBody` (at " in output
    ), output
    assert (
        f"openapi.yaml:{form}:{column_of(text, 'in: formData')}: error [openapi] `in: formData` is Swagger 2.0's: OpenAPI 3 "
        "writes this parameter in the operation's `requestBody` (`multipart/form-data` or "
        "`application/x-www-form-urlencoded`)" in output
    ), output
