"""Whole documents as real public ones are written: `info` missing or numeric, a response
without its description, an OAuth flow without scopes, maps of data left empty, extension keys
in the Paths and Responses Objects, YAML that libyaml refuses, Swagger 2.0, and `--strict`
rebuilding a document that had warnings.

Each document, under fixtures/shapes/documents/, is small and hand-written and reproduces a
shape met in real public OpenAPI documents (large public APIs, the test documents of peer
tools), named below or in the test: the build exits 0 (or 1 with located findings) and the
output says what the document meant.

- specification extensions (`x-...`) in the Paths Object or a Responses Object (also skipped
  in a Callback Object; swagger-parser's extensions documents): read as a path or a status,
  an internal error (`'str' object has no attribute 'get'`, exit 2). They are skipped.
- a YAML document libyaml's scanner refuses and YAML 1.2 reads (Typesense's `enum: [right_to_left,
  left_to_right, both_sides:3]`): it was read (the pure parser decides) but every finding in it
  was placed at 1:1, the positions' composer trying libyaml only. It falls back as the loader
  does.
- maps of data left empty (`components:` with `schemas:` and nothing under it, a media
  type's `examples:` with no example): YAML reads each as null, and the document was refused
  (`openapi` error, null is not of type "object") while every other OpenAPI field set to
  null is read as absent. A map of schemas, examples or links set to null is now read as
  absent too, a `null-field` warning at it; a null example, default or value stays data.
- an OAuth flow without its required `scopes` (an implicit flow that grants none): the build
  refused the whole document (exit 1, `"scopes" is a required property`) though the flow
  means plainly "no scopes". It is read as `scopes: {}` with a `document-repair` warning at
  the flow (`--strict` still refuses), and the served document carries the repaired flow.
- (met while checking the repairs above) `build --strict` right after a plain build of the
  same document with warnings: the no-op rebuild said "nothing changed" and exited 0, so a
  CI step running --strict after a local build passed a document it refuses. The build's
  record now says whether the document had warnings; --strict rebuilds (and refuses) then.
- a Swagger 2.0 document (an identity provider's older spec): refused as it should be, with
  the one finding that says so, but after hundreds of `parameter-repair` / `schema-repair`
  warnings (3.0 repairs of parameters typed the 2.0 way) that buried it. A Swagger 2
  document now gets only that finding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spec_helpers import SHAPES, build_shape, line_of, run_in, run_json


def test_a_numeric_info_version_is_read_as_a_string(tmp_path: Path) -> None:
    """Formstack (as Ballerina publishes it): `version: 2.0`, a YAML number, made the
    document fail the OpenAPI schema ([openapi] error); it is read as "2.0" with a warning."""
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.0.3\ninfo:\n  title: T\n  version: 2.0\npaths:\n  /a:\n    get:\n"
        "      operationId: getA\n      responses:\n        '200': {description: ok}\n",
        encoding="utf-8",
    )
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    assert (
        "openapi.yaml:4:3: warning [document-repair] info.version 2.0 is a number: read as the "
        "string '2.0' (at /info/version)" in output
    ), output
    served = json.loads((tmp_path / "out/server/api_server/openapi.json").read_text("utf-8"))
    assert served["info"]["version"] == "2.0"


@pytest.mark.parametrize(
    ("info", "repairs", "title", "version"),
    [
        (
            "",
            ["a document without `info` (required): read as title 'API', version '0'"],
            "API",
            "0",
        ),
        (
            "info: {version: '3'}\n",
            ["`info` without `title` (required): read as 'API'"],
            "API",
            "3",
        ),
        (
            "info: {title: Shop}\n",
            ["`info` without `version` (required): read as '0'"],
            "Shop",
            "0",
        ),
    ],
)
def test_a_document_without_info_fields_is_read_with_defaults(
    tmp_path: Path, info: str, repairs: list[str], title: str, version: str
) -> None:
    """ogen's `client_options.json` has no `info` (title and version are required): the
    document was refused ([openapi] '"info" is a required property'); it is read as titled
    'API', version '0', with a warning for each field supplied (`--strict` refuses it)."""
    spec = (
        f"openapi: 3.0.3\n{info}paths:\n  /a:\n    get:\n      operationId: getA\n"
        "      responses:\n        '200': {description: ok}\n"
    )
    (tmp_path / "openapi.yaml").write_text(spec, encoding="utf-8")
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    for repair in repairs:
        assert f"warning [document-repair] {repair}" in output, output
    assert output.count("[document-repair]") == len(repairs), output
    served = json.loads((tmp_path / "out/server/api_server/openapi.json").read_text("utf-8"))
    assert served["info"] == {"title": title, "version": version}
    strict, _ = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "o2", "--strict")
    assert strict == 1


def test_a_response_without_description_is_read_as_an_empty_one(tmp_path: Path) -> None:
    """Hand-written documents (ogen's redoc examples) leave out a response's required
    `description`: the document was refused ([openapi] '"description" is a required
    property'); it is read as an empty one with a warning, a `$ref`'d response too."""
    spec = (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      operationId: getA\n      responses:\n        '200':\n          content:\n"
        "            application/json: {schema: {type: string}}\n"
        "        '404': {$ref: '#/components/responses/Gone'}\n"
        "components:\n  responses:\n    Gone: {}\n"
    )
    (tmp_path / "openapi.yaml").write_text(spec, encoding="utf-8")
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    message = "warning [document-repair] a response without `description` (required): read as"
    for needle in ("'200':", "Gone: {}"):
        line = spec.splitlines()[line_of(spec, needle) - 1]
        column = len(line) - len(line.lstrip()) + 1
        assert f"openapi.yaml:{line_of(spec, needle)}:{column}: {message}" in output, output
    assert output.count("[document-repair]") == 2, output
    served = json.loads((tmp_path / "out/server/api_server/openapi.json").read_text("utf-8"))
    assert served["paths"]["/a"]["get"]["responses"]["200"]["description"] == ""


def test_an_oauth_flow_without_scopes_has_none(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/oauth_flow_without_scopes.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (SHAPES / "documents/oauth_flow_without_scopes.yaml").read_text()
    line = line_of(text, "implicit:")
    assert (
        f"openapi.yaml:{line}:9: warning [document-repair] an OAuth flow without `scopes`"
        " (required): read as having none (at /components/securitySchemes/portal/flows/implicit)"
    ) in output, output
    assert output.count("[document-repair]") == 1, output
    served = json.loads((tmp_path / "out" / "server" / "api_server" / "openapi.json").read_text())
    flows = served["components"]["securitySchemes"]["portal"]["flows"]
    assert flows["implicit"]["scopes"] == {}
    assert flows["clientCredentials"]["scopes"] == {"volumes:read": "read volumes"}
    code, output = build_shape(tmp_path, "documents/oauth_flow_without_scopes.yaml", "--strict")
    assert code == 1, output


def test_strict_after_a_build_with_warnings_refuses_again(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/oauth_flow_without_scopes.yaml")
    assert code == 0 and "[document-repair]" in output, output
    code, output = build_shape(tmp_path, "documents/oauth_flow_without_scopes.yaml")
    assert (code, output.strip()) == (0, "nothing changed"), output
    code, output = build_shape(tmp_path, "documents/oauth_flow_without_scopes.yaml", "--strict")
    assert code == 1, output
    assert "warning [document-repair] an OAuth flow without `scopes`" in output, output
    # a document without warnings: --strict still skips the unchanged rebuild
    clean = tmp_path / "clean"
    clean.mkdir()
    code, output = build_shape(clean, "names/quotes_in_texts.yaml")
    assert code == 0 and "warning" not in output, output
    code, output = build_shape(clean, "names/quotes_in_texts.yaml", "--strict")
    assert (code, output.strip()) == (0, "nothing changed"), output


def test_an_empty_map_of_schemas_or_examples_is_read_as_absent(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/empty_component_maps.yaml")
    assert code == 0, output
    assert "[openapi]" not in output, output
    text = (SHAPES / "documents/empty_component_maps.yaml").read_text()
    warned = sorted(
        int(line.split(":")[1]) for line in output.splitlines() if "[null-field]" in line
    )
    needles = ["examples:", "  schemas:", "  links:"]
    assert warned == sorted(line_of(text, n) for n in needles), output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "total: int | None = None" in models, models


def test_extension_keys_of_paths_responses_and_callbacks_are_no_entries(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/extension_keys.yaml")
    assert code == 0, output
    assert "1 routes mounted" in output
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    text = resources.read_text()
    assert "def place_order(" in text
    assert "PlaceOrderResponse.model_validate_json(response.content)" in text
    webhooks = (tmp_path / "out" / "server" / "api_server" / "webhooks.py").read_text()
    assert "shipped" in webhooks.lower()


def test_findings_keep_their_place_in_a_yaml_file_libyaml_refuses(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/flow_scalar_with_colon.yaml")
    assert code == 0, output
    text = (SHAPES / "documents/flow_scalar_with_colon.yaml").read_text()
    assert (
        f"openapi.yaml:{line_of(text, '    Field:')}:5: warning [python-name] schema name"
        " 'Field' is a name the generated modules already use" in output
    )
    assert "openapi.yaml:1:1:" not in output
    script = (
        "import json\n"
        "from api_server.models import DropMode\n"
        "print(json.dumps([m.value for m in DropMode]))\n"
    )
    assert run_json(tmp_path / "out" / "server", script) == ["left", "both_sides:3"]


def test_a_swagger_2_document_gets_one_finding(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "documents/swagger2_with_leftovers.yaml")
    assert code == 1, output
    refusal = (
        "openapi.yaml:1:1: error [openapi] a Swagger 2.0 (OpenAPI 2) document: spec-gen reads "
        "OpenAPI 3.0, 3.1 and 3.2; convert it first (for instance `npx swagger2openapi IN -o "
        "OUT.yaml`) (at /swagger)"
    )
    assert output.splitlines() == [refusal, "1 error(s), 0 warning(s)"], output
