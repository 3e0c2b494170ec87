"""Shapes met in large public API documents (a finance platform's, an identity provider's, a
hosting platform's...), each in a small hand-written spec: the build exits 0 (or 1 with a
located finding) and the output says what the document meant.

- keywords of another type (`type: string` with `properties` describing its values in prose;
  `type: array` with `properties` and `required`; `type: string` or `type: object` with
  `items`): JSON Schema applies an object's keywords to objects only and an array's to arrays
  only, so they constrain nothing here. datamodel-code-generator read them anyway: the string
  became a class of `Any` fields (the model refused every string the document allows), the
  array `list[int] | Counts1`, the string with `items` `list[str]`, the object with `items`
  `list[int] | Meta`, all silently. They are now ignored, each with a `schema-repair`
  warning at its node, and the fields are `str`, `list[int]`, `dict[str, Any]`.
- an OAuth flow without its required `scopes` (an implicit flow that grants none): the build
  refused the whole document (exit 1, `"scopes" is a required property`) though the flow
  means plainly "no scopes". It is read as `scopes: {}` with a `document-repair` warning at
  the flow (`--strict` still refuses), and the served document carries the repaired flow.
- texts that end with a double quote (a tag description `... its keys."`, a summary or a
  parameter description ending in a quoted word) and a title with quotes and a backslash:
  a docstring (three quotes, the text, its own quote, three quotes) closed early, ruff could not parse the module and the build
  crashed (exit 2, "missing closing quote"); the title went into pyproject.toml's
  `description = "..."` unescaped, a TOML file pip cannot read (silently). A quote ending a
  docstring's text is now escaped, and the packages' pyproject strings are TOML-escaped.
  A tag named with a backslash (`Groups\\Users`, a video platform's document) went into
  the docstrings of its modules as written: `\\U` starts a unicode escape, the module did
  not parse (exit 2 again); tag names and titles in docstrings are escaped too.
- (met while checking the repairs above) `build --strict` right after a plain build of the
  same document with warnings: the no-op rebuild said "nothing changed" and exited 0, so a
  CI step running --strict after a local build passed a document it refuses. The build's
  record now says whether the document had warnings; --strict rebuilds (and refuses) then.
- a Swagger 2.0 document (an identity provider's older spec): refused as it should be, with
  the one finding that says so, but after hundreds of `parameter-repair` / `schema-repair`
  warnings (3.0 repairs of parameters typed the 2.0 way) that buried it. A Swagger 2
  document now gets only that finding.
- schema names that start with a separator (`_types.Id`, `_global.get.Response`: a search
  engine's 3.0 document names all its 1,040 schemas so) each got a `python-name` warning
  "does not start with an ASCII letter: its class gets another name", though the class is
  the ordinary PascalCase (`TypesId`), as for `types.Id`: 1,040 untrue warnings. Leading
  separators are now the ordinary conversion; a clash (`types.Id` after `_types.Id`) and a
  name starting with a digit still warn.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

from spec_helpers import line_of, run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_l"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_keywords_of_another_type_are_ignored_with_a_warning(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "keywords_of_another_type.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (FIXTURES / "keywords_of_another_type.yaml").read_text()
    lines = {
        "step/properties": line_of(text, "asked_code") - 1,
        "counts/properties": line_of(text, "total: {type: integer}") - 1,
        "counts/required": line_of(text, "required: [total]"),
        "tags/items": line_of(text, "items: {type: string}"),
        "meta/items": line_of(text, "items: {type: integer}", 2),
    }
    for where, line in lines.items():
        keyword = where.split("/")[1]
        assert f"openapi.yaml:{line}:11: warning [schema-repair] `{keyword}` applies only" in (
            output
        ), (where, output)
        assert f"(at /components/schemas/Exit/properties/{where})" in output, where
    assert "`type` 'string' or 'null' admits none: ignored" in output, output
    server = tmp_path / "out" / "server"
    models = (server / "api_server" / "models.py").read_text()
    assert "step: str | None = None" in models, models
    assert "counts: list[int] | None = None" in models, models
    assert "tags: str | None = None" in models, models
    assert "meta: dict[str, Any] | None = None" in models, models
    assert "Any | None" not in models, models
    # the values the document allows are accepted, the ones it refuses are refused
    got = run_json(
        server,
        "import json\n"
        "from pydantic import ValidationError\n"
        "from api_server.models import Exit\n"
        "ok = Exit.model_validate({'step': 'asked_code', 'counts': [1, 2], 'tags': 'a',"
        " 'meta': {'k': 1}})\n"
        "refused = []\n"
        "for bad in ({'counts': {'total': 1}}, {'tags': ['a']}, {'meta': [1]}):\n"
        "    try:\n"
        "        Exit.model_validate(bad)\n"
        "    except ValidationError:\n"
        "        refused.append(sorted(bad))\n"
        "print(json.dumps([ok.model_dump(mode='json'), refused]))",
    )
    assert got == [
        {"step": "asked_code", "counts": [1, 2], "tags": "a", "meta": {"k": 1}},
        [["counts"], ["tags"], ["meta"]],
    ]


def test_an_oauth_flow_without_scopes_has_none(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "oauth_flow_without_scopes.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (FIXTURES / "oauth_flow_without_scopes.yaml").read_text()
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
    code, output = _build(tmp_path, "oauth_flow_without_scopes.yaml", "--strict")
    assert code == 1, output


def test_texts_ending_in_a_quote_and_a_quoted_title(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "quotes_in_texts.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    out = tmp_path / "out"
    for side in ("server", "client"):
        project = tomllib.loads((out / side / "pyproject.toml").read_text())["project"]
        assert project["description"].startswith('The "Ledger" API \\ beta: '), project
        assert project["version"] == "2"
    got = run_json(
        out / "client",
        "import json, api_client, api_client.resources.fields as f\n"
        "print(json.dumps([api_client.__doc__.splitlines()[0], f.FieldsResource.__doc__,"
        " f.FieldsResource.list_fields.__doc__]))",
    )
    assert got[0] == 'The "Ledger" API \\ beta 2: Python client generated by spec-gen.', got
    assert got[1] == 'Fetch one record and read the names of its "keys"', got
    assert got[2].startswith('List the fields "as keys"'), got
    assert 'a place such as "C:\\"' in got[2], got
    doc = run_json(
        out / "server",
        "import json, api_server.routers.records_uploads as r\nprint(json.dumps(r.__doc__))",
    )
    assert doc.startswith("FastAPI routes of tag `Records\\Uploads`"), doc


def test_strict_after_a_build_with_warnings_refuses_again(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "oauth_flow_without_scopes.yaml")
    assert code == 0 and "[document-repair]" in output, output
    code, output = _build(tmp_path, "oauth_flow_without_scopes.yaml")
    assert (code, output.strip()) == (0, "nothing changed"), output
    code, output = _build(tmp_path, "oauth_flow_without_scopes.yaml", "--strict")
    assert code == 1, output
    assert "warning [document-repair] an OAuth flow without `scopes`" in output, output
    # a document without warnings: --strict still skips the unchanged rebuild
    clean = tmp_path / "clean"
    clean.mkdir()
    code, output = _build(clean, "quotes_in_texts.yaml")
    assert code == 0 and "warning" not in output, output
    code, output = _build(clean, "quotes_in_texts.yaml", "--strict")
    assert (code, output.strip()) == (0, "nothing changed"), output


def test_a_swagger_2_document_gets_one_finding(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "swagger2_with_leftovers.yaml")
    assert code == 1, output
    refusal = (
        "openapi.yaml:1:1: error [openapi] a Swagger 2.0 (OpenAPI 2) document: spec-gen reads "
        "OpenAPI 3.0, 3.1 and 3.2; convert it first (for instance `npx swagger2openapi IN -o "
        "OUT.yaml`) (at /swagger)"
    )
    assert output.splitlines() == [refusal, "1 error(s), 0 warning(s)"], output


def test_schema_names_with_leading_separators_are_ordinary(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "leading_separator_names.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = [line for line in output.splitlines() if "[python-name]" in line]
    text = (FIXTURES / "leading_separator_names.yaml").read_text()
    clash = (
        f"openapi.yaml:{line_of(text, '    types.Id:')}:5: warning [python-name] schema name "
        "'types.Id' gives the class name of schema '_types.Id': its class gets another name "
        "(at /components/schemas/types.Id)"
    )
    digit = (
        f"openapi.yaml:{line_of(text, '3d-model:')}:5: warning [python-name] schema name "
        "'3d-model' does not start with an ASCII letter: its class gets another name "
        "(at /components/schemas/3d-model)"
    )
    assert found == [clash, digit], output
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "class TypesId(RootModel[str]):" in models, models
    assert "class GlobalGetResponse(BaseModel):" in models, models
