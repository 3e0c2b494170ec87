"""Required fields left out of hand-written documents where one reading is plain: each
refused the whole document (or, for a path without its leading `/`, left its operations out
as a stray key). Each is now read as meant, a `document-repair` warning at its node (in the
source's lines, the renamed path's too), and `--strict` still refuses them."""

from __future__ import annotations

import json
from pathlib import Path

from spec_helpers import line_of, run_in, write

SPEC = """\
openapi: 3.0.3
info:
  title: T
  version: '1'
  license: {url: 'https://example.com/license'}
servers:
  - url: 'https://{region}.example.com'
    variables:
      region: {enum: [eu, us]}
tags:
  - {description: a tag without a name}
  - {name: users}
externalDocs: {description: no url}
paths:
  users/{id}:
    get:
      operationId: getUser
      tags: users
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: ok
          content:
            application/json: {schema: {type: object, properties: {id: {type: integer}}}}
        4xx:
          description: a range in lower case
          content:
            application/json: {schema: {type: object, properties: {code: {type: integer}}}}
        Default: {description: capitalised}
  /notes:
    post:
      operationId: 42
      requestBody:
        description: no content
      responses:
        '204': {description: done}
"""


def test_required_fields_left_out_are_read_as_meant(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    repairs = {
        line.split(": warning [document-repair] ")[1].split(" (at ")[0]: line.split(":")[1]
        for line in output.splitlines()
        if "[document-repair]" in line
    }
    assert repairs == {
        "a license without `name` (required): read as absent": str(line_of(SPEC, "license:")),
        "a server variable without `default` (required): read as 'eu'": str(
            line_of(SPEC, "region: {enum")
        ),
        "a tag without `name` (required): read as absent": str(line_of(SPEC, "a tag without")),
        "an external document without `url` (required): read as absent": str(
            line_of(SPEC, "externalDocs:")
        ),
        "path 'users/{id}' does not start with `/`: read as '/users/{id}'": str(
            line_of(SPEC, "users/{id}:")
        ),
        "`tags` is one name: read as a list of it": str(line_of(SPEC, "tags: users")),
        "operationId 42 is a number: read as the string '42'": str(
            line_of(SPEC, "operationId: 42")
        ),
        "a request body without `content` (required): read as having none": str(
            line_of(SPEC, "requestBody:")
        ),
        "response key '4xx' is not OpenAPI's spelling: read as '4XX'": str(line_of(SPEC, "4xx:")),
        "response key 'Default' is not OpenAPI's spelling: read as 'default'": str(
            line_of(SPEC, "Default:")
        ),
    }, output
    served = json.loads((tmp_path / "out/server/api_server/openapi.json").read_text("utf-8"))
    assert served["servers"][0]["variables"]["region"]["default"] == "eu"
    assert served["paths"]["/users/{id}"]["get"]["tags"] == ["users"]
    assert served["tags"] == [{"name": "users"}]
    router = (tmp_path / "out/server/api_server/routers/users.py").read_text("utf-8")
    assert '"/users/{id}"' in router
    assert set(served["paths"]["/users/{id}"]["get"]["responses"]) == {"200", "4XX", "default"}
    contract = (tmp_path / "out/server/api_server/contract.py").read_text("utf-8")
    assert '"4XX":' in contract and '"default":' in contract, contract
    strict, _ = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "o2", "--strict")
    assert strict == 1


def test_responses_with_no_status_key_say_so(tmp_path: Path) -> None:
    """jsonschema's `"default" is a required property` said nothing of the real problem."""
    text = (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      responses:\n        success: {description: ok}\n"
    )
    write(tmp_path / "openapi.yaml", text)
    code, output = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 1, output
    assert f"openapi.yaml:{line_of(text, 'responses:')}:7: error [openapi] no answer: none of " in (
        output
    )
    assert (
        f"openapi.yaml:{line_of(text, 'success:')}:9: warning [stray-keyword] 'success' is not "
        "a status code (`200`), a range (`2XX`) or `default`: this answer is ignored"
    ) in output
    assert '"default" is a required property' not in output
