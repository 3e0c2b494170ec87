"""Names and texts of real public documents in the generated code: tags named like Python
builtins, repeated operation ids, properties named like schema keywords or name-map keys, schema
names starting with a separator, texts and titles with quotes and backslashes that go into
docstrings and pyproject.toml.

Each document, under fixtures/shapes/names/, is small and hand-written and reproduces a shape
met in real public OpenAPI documents (large public APIs, the test documents of peer tools),
named below or in the test: the build exits 0 (or 1 with located findings) and the output says
what the document meant.

- properties named like schema keywords (`discriminator`, `const`, `pattern`; a schema
  named `const`): the models' preparation read the name maps as schemas, so a property
  `discriminator` was deleted and one named `const` replaced by `type: object`; data
  (`default`, `enum`, `example`) that looks like a schema was rewritten too. A float
  `const` became `x: float = None` (mypy --strict refused it; required, it was dropped);
  it is now its only value's range. datamodel-code-generator's directives to itself
  (`customTypePath`, `customBasePath`, `x-python-type`, `x-python-import`,
  `x-is-classvar`, in its own test documents) made the models import the module they name
  (a build ending in an internal error, or any installed module imported): dropped.
- texts that end with a double quote (a tag description `... its keys."`, a summary or a
  parameter description ending in a quoted word) and a title with quotes and a backslash:
  a docstring (three quotes, the text, its own quote, three quotes) closed early, ruff could
  not parse the module and the build crashed (exit 2, "missing closing quote"); the title went
  into pyproject.toml's `description = "..."` unescaped, a TOML file pip cannot read
  (silently). A quote ending a docstring's text is now escaped, and the packages' pyproject
  strings are TOML-escaped.
  A tag named with a backslash (`Groups\\Users`, a video platform's document) went into
  the docstrings of its modules as written: `\\U` starts a unicode escape, the module did
  not parse (exit 2 again); tag names and titles in docstrings are escaped too.
- schema names that start with a separator (`_types.Id`, `_global.get.Response`: a search
  engine's 3.0 document names all its 1,040 schemas so) each got a `python-name` warning
  "does not start with an ASCII letter: its class gets another name", though the class is
  the ordinary PascalCase (`TypesId`), as for `types.Id`: 1,040 untrue warnings. Leading
  separators are now the ordinary conversion; a clash (`types.Id` after `_types.Id`) and a
  name starting with a digit still warn.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from spec_helpers import SHAPES, build_shape, line_of, run_json


def test_tags_named_like_builtins_get_modules_that_do_not_shadow_them(tmp_path: Path) -> None:
    """Trello's `list` and `type` tags: `from .list import ListApi` in the interfaces
    package bound `list` there, and its `__all__: list[str]` failed on import."""
    code, output = build_shape(tmp_path, "names/builtin_tags.yaml", "--typecheck")
    assert code == 0, output
    server = tmp_path / "out/server/api_server"
    for kind in ("interfaces", "routers"):
        assert sorted(p.name for p in (server / kind).glob("*.py")) == [
            "__init__.py",
            "list_.py",
            "type_.py",
        ]


def test_a_repeated_operation_id_is_numbered_with_a_warning(tmp_path: Path) -> None:
    """Temporal's grpc-gateway document repeats an operationId for each extra HTTP binding
    (121 of them): refused outright before. The default profile warns and numbers the repeat;
    the house profile still refuses it (tests/generator/lint/test_validate.py)."""
    code, output = build_shape(tmp_path, "names/repeated_operation_ids.yaml", "--typecheck")
    assert code == 0, output
    text = (SHAPES / "names/repeated_operation_ids.yaml").read_text(encoding="utf-8")
    repeats = [line for line in output.splitlines() if "[operation-id-unique]" in line]
    assert len(repeats) == 1 and " warning " in repeats[0], output
    assert repeats[0].startswith(f"openapi.yaml:{line_of(text, 'operationId', 2)}:")
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text(encoding="utf-8")
    assert "def complete_activity(" in client and "def complete_activity2(" in client
    assert "/workflows/" in client.split("def complete_activity2(")[1].split("def ")[0]


def test_properties_named_like_keywords_keep_their_refs(tmp_path: Path) -> None:
    """Elasticsearch: a property called `mapping` was read as a discriminator's mapping, so
    the `$ref` inside it kept the schema's dotted name; datamodel-code-generator then wrote a
    package of modules instead of one (AssertionError, exit 2). A property or header called
    `x-...` is a schema too, not an extension."""
    code, output = build_shape(tmp_path, "names/mapping_and_x_properties.yaml", "--typecheck")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "mapping: IndicesTypesMappingLimits | None = None" in models
    assert 'x_total: Annotated[IndicesTypesMappingLimits | None, Field(alias="x-total")]' in models
    assert "properties: dict[str, TypesMappingProperty]" in models


_GAUGE = """\
import json, typing
from api_server import models
from api_server.models import Const, Gauge
from pydantic import ValidationError

gauge = Gauge.model_validate(
    {"scale": 1.5, "discriminator": "d", "const": {"a": 1}, "customTypePath": 2, "unit": "m"}
)
found = {
    "fields": sorted(Gauge.model_fields),
    "dumped": gauge.model_dump(by_alias=True, exclude_none=True),
    "const class": sorted(Const.model_fields),
    "imports": sorted(name for name in ("json", "os", "decimal") if hasattr(models, name)),
    "bases": [base.__name__ for base in Gauge.__mro__[1:3]],
}
for bad in ({"scale": 1.6, "discriminator": "d"}, {"scale": 1.5, "discriminator": "d", "ratio": 1}):
    try:
        Gauge.model_validate(bad)
        found.setdefault("accepted", []).append(bad)
    except ValidationError:
        pass
print(json.dumps(found))
"""


def test_keyword_named_properties_float_consts_and_tool_directives(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "names/schema_keyword_properties.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out" / "server", _GAUGE)
    assert found["fields"] == sorted(
        ["discriminator", "const", "pattern", "custom_type_path", "scale", "ratio", "unit",
         "tally", "settings"]
    ), found  # fmt: skip
    assert found["dumped"] == {
        "discriminator": "d",
        "const": {"a": 1},
        "pattern": "x",
        "customTypePath": 2,
        "scale": 1.5,
        "unit": "m",
        "tally": 3,
        "settings": {"pattern": "[[", "const": {"a": 1}, "discriminator": "x"},
    }, found
    assert found["const class"] == ["discriminator"], found
    # no import of the modules the directives name, no custom base class
    assert found["imports"] == [] and found["bases"][0] == "BaseModel", found
    assert "accepted" not in found, found


def test_schema_names_with_leading_separators_are_ordinary(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "names/leading_separator_names.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = [line for line in output.splitlines() if "[python-name]" in line]
    text = (SHAPES / "names/leading_separator_names.yaml").read_text()
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


def test_texts_ending_in_a_quote_and_a_quoted_title(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "names/quotes_in_texts.yaml", "--typecheck")
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
