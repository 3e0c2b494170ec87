"""Header parameters named Accept, Content-Type or Authorization: OpenAPI says their
definitions SHALL be ignored (the media types and the security schemes carry those
headers). Many public documents declare them anyway; the client took an `authorization`
argument beside its own bearer auth and sent whichever came last. They are now left out of
the server, client and docs, each with an `ignored-header` warning where it is listed."""

from __future__ import annotations

from pathlib import Path

from spec_helpers import line_of, run_in, write

SPEC = """openapi: 3.0.3
info: {title: T, version: '1'}
security: [{bearer: []}]
paths:
  /things/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      - {name: accept, in: header, schema: {type: string}}
    get:
      operationId: getThing
      parameters:
        - $ref: '#/components/parameters/Auth'
        - {name: X-Request-Id, in: header, schema: {type: string}}
        - {name: CONTENT-TYPE, in: header, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
components:
  parameters:
    Auth: {name: Authorization, in: header, required: true, schema: {type: string}}
  securitySchemes:
    bearer: {type: http, scheme: bearer}
"""


def test_accept_content_type_and_authorization_headers_are_ignored(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    warned = sorted(
        int(line.split(":")[1]) for line in output.splitlines() if "[ignored-header]" in line
    )
    assert warned == sorted(
        [
            line_of(SPEC, "{name: accept"),
            line_of(SPEC, "- $ref: '#/components/parameters/Auth'"),
            line_of(SPEC, "{name: CONTENT-TYPE"),
        ]
    ), output
    assert "the security schemes carry it" in output
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text()
    server = (tmp_path / "out/server/api_server/routers/default.py").read_text()
    for module in (client, server):
        assert "x_request_id" in module
        for ignored in ("authorization", "accept", "content_type"):
            assert f"{ignored}:" not in module, ignored
    assert '"X-Request-Id": x_request_id' in client
