"""Schema keywords and types of real public documents: patterns Python's engine runs, nullable
maps, `format: email` with and without a type, free-form objects, `examples` written as a map,
keywords of another type, and enums (enum-only bodies, enums through allOf, enums of objects,
empty containers as enum members).

Each document, under fixtures/shapes/schemas/, is small and hand-written and reproduces a shape
met in real public OpenAPI documents (large public APIs, the test documents of peer tools),
named below or in the test: the build exits 0 (or 1 with located findings) and the output says
what the document meant.

- a response or request body schema that is only an `enum` (AvaTax's filing status): an enum
  class, which the client read with `.model_validate_json` and validated bodies into.
- a nullable map (`type: [object, 'null']` with an `additionalProperties` schema, or 3.0's
  `nullable: true` on a map): its values keep their type (datamodel-code-generator wrote
  `dict[str, Any]` for the type list).
- `format: email` on a schema without `type: string` (`email: {format: email}`, as in
  kin-openapi's callback documents), or inside an example's data: the dependency lists were
  chosen from the schemas' text (`pydantic[email]`), datamodel-code-generator wrote no
  EmailStr (the value may be any JSON value), and the build stopped with an internal error
  ("email fields: the models and the dependency list disagree", exit 2). The packages'
  pydantic requirement now follows the models.
- an object schema with an `enum` of objects (`type: object, enum: [{status: active}, ...]`,
  kin-openapi's any_fields document): datamodel-code-generator writes a model class, the
  client read it as an enum class (`Preset(response.json())`) and failed mypy --strict
  ("Too many arguments"). Such a schema is no enum class to the IR any more.
- a named free-form object (`Meta: {type: object}`): a class without fields, so every
  member of a body or answer of it was dropped (pydantic ignores extra keys); its class now
  allows them.
- an answer whose schema is an allOf of a class without fields of its own and an enum
  (`allOf: [{$ref: Envelope}, {$ref: Level}]`, Cloudflare's origin post-quantum setting):
  datamodel-code-generator writes it as an enum class, the IR took it for a model, so the
  client called `model_validate_json` on it and the strict contract listed it as a
  `type[BaseModel]` (mypy --strict failed; at run time an AttributeError). Any error answer
  that is an enum class did the same in the contract. The enum classes are now the ones
  the models module declares, and the contract validates an enum error body through a
  `RootModel` of its class.
- an enum member that is or holds an empty array or object (`errors: {enum: [[]]}`,
  Cloudflare's rulesets answers): written `LIST___ = []`, which mypy --strict refuses
  ("Need type annotation"); such an enum is now read as its members' type, with a `models`
  warning (targets/models.py model_ready, test_models_warnings), and its values still pass.
- a schema's `examples` written as a media type's map of Example Objects (SendGrid's 3.1
  documents: `examples: {singleCategory: {value: [category1]}}`): JSON Schema's `examples`
  is an array, so the whole document was refused ([schema] "... is not of type 'array'",
  exit 1). It is read as the list of the values, a `schema-repair` warning; a map of other
  things is dropped as any keyword of the wrong type is.
- keywords of another type (`type: string` with `properties` describing its values in prose;
  `type: array` with `properties` and `required`; `type: string` or `type: object` with
  `items`): JSON Schema applies an object's keywords to objects only and an array's to arrays
  only, so they constrain nothing here. datamodel-code-generator read them anyway: the string
  became a class of `Any` fields (the model refused every string the document allows), the
  array `list[int] | Counts1`, the string with `items` `list[str]`, the object with `items`
  `list[int] | Meta`, all silently. They are now ignored, each with a `schema-repair`
  warning at its node, and the fields are `str`, `list[int]`, `dict[str, Any]`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spec_helpers import SHAPES, build_shape, line_of, run_in, run_json


def test_patterns_rust_regex_cannot_run_are_kept_and_checked_by_python(tmp_path: Path) -> None:
    """Alfresco's node names: a look-ahead `pattern` (ECMA-262 has it, the Rust `regex` of
    pydantic's default engine does not) made the generated module fail on import. It builds,
    with no warning (Python's `re` compiles these), and every pattern is still there to be
    enforced: the models' classes by Python's engine, the parameter by `transport.pattern`."""
    code, output = build_shape(tmp_path, "schemas/patterns.yaml")
    assert code == 0, output
    assert "pattern" not in output.replace("patterns.yaml", "")  # no pattern finding
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "(?!(.*" in models and "(a+)-" in models and 'pattern="^[a-z0-9-]+$"' in models
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'transport.pattern("^(?!.*[*?]).+$")' in router and "^[A-Z]{3}$" in router


def test_a_nullable_map_keeps_the_type_of_its_values(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/nullable_maps.yaml", "--typecheck")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "dict[str, Any]" not in models
    # a number keeps its type: 50 stays an int (docs/models.md)
    assert "class Tally(RootModel[dict[str, int | float] | None]):" in models
    checked = run_json(
        tmp_path / "out/server",
        """if True:
        import json
        from pydantic import ValidationError
        from api_server.models import Scores, Tally
        def refused(make):
            try:
                make()
            except ValidationError:
                return True
            return False
        ok = Scores.model_validate({"weights": {"a": 1}, "owners": {"x": {"name": "n"}}})
        print(json.dumps({
            "owner": type(ok.owners["x"]).__name__ if ok.owners else None,
            "null": Scores.model_validate({"weights": None, "owners": None}).weights,
            "text_weight": refused(lambda: Scores.model_validate({"weights": {"a": "x"}})),
            "bad_owner": refused(lambda: Scores.model_validate({"owners": {"x": {}}})),
            "tally": Tally.model_validate({"a": 1.5}).root,
            "tally_null": Tally.model_validate(None).root,
        }))
        """,
    )
    assert checked == {
        "owner": "Owner",
        "null": None,
        "text_weight": True,
        "bad_owner": True,
        "tally": {"a": 1.5},
        "tally_null": None,
    }


def _requirements(tmp_path: Path) -> list[str]:
    out = tmp_path / "out"
    return [
        line
        for part in ("server", "client")
        for line in (out / part / "pyproject.toml").read_text().splitlines()
        if line.startswith("dependencies")
    ]


def test_an_untyped_email_format_needs_no_email_extra(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/untyped_email_format.yaml")
    assert code == 0, output
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "contact: Any | None = None" in models
    assert "EmailStr" not in models
    requirements = _requirements(tmp_path)
    assert len(requirements) == 2
    assert all('"pydantic>=2.7,<3"' in line for line in requirements), requirements


def test_a_string_email_format_is_checked_text_without_the_email_extra(tmp_path: Path) -> None:
    """An email address is kept as written (EmailStr normalised it): formats.EmailText checks
    its shape, and the packages need no email-validator (docs/models.md)."""
    code, output = build_shape(tmp_path, "schemas/typed_email_format.yaml")
    assert code == 0, output
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "contact: EmailText | None = None" in models
    requirements = _requirements(tmp_path)
    assert len(requirements) == 2
    assert all('"pydantic>=2.7,<3"' in line for line in requirements), requirements


_FREE_FORM = """\
import json
from api_server.models import Holder, Meta

meta = Meta.model_validate({"a": 1, "b": {"c": [True]}})
holder = Holder.model_validate({"named": {"x": "y"}, "meta": {"z": 2}})
print(json.dumps({"meta": meta.model_dump(), "holder": holder.model_dump(exclude_none=True)}))
"""


def test_a_named_free_form_object_keeps_its_members(tmp_path: Path) -> None:
    """A component `type: object` with nothing saying what its members are (any are valid)
    was a class without fields: pydantic ignores extra keys, so a body of it reached the
    handler empty and an answer of it came back `{}`. It now keeps every member."""
    code, output = build_shape(tmp_path, "schemas/free_form_object.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out" / "server", _FREE_FORM)
    assert found == {
        "meta": {"a": 1, "b": {"c": [True]}},
        "holder": {"meta": {"z": 2}, "named": {"x": "y"}},
    }, found


def test_a_schema_examples_map_is_read_as_a_list(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/schema_example_maps.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (SHAPES / "schemas/schema_example_maps.yaml").read_text()
    assert (
        f"openapi.yaml:{line_of(text, 'examples:')}:11: warning [schema-repair] `examples` is"
        " a map of Example Objects: read as the list of their values" in output
    )
    assert (
        f"openapi.yaml:{line_of(text, 'examples:', 2)}:11: warning [schema-repair] `examples`"
        " has a value of the wrong type: dropped" in output
    )
    bundled = run_in(tmp_path, "bundle", "openapi.yaml", "--format", "json")[1]
    message = json.loads(bundled[bundled.index("{") :])["components"]["schemas"]["Message"]
    assert message["properties"]["categories"]["examples"] == [["news"], ["news", "sales"]]
    assert "examples" not in message["properties"]["subject"]
    # the schema still says what an answer may be: three categories are refused
    script = (
        "import json\n"
        "from api_server.models import Message\n"
        "ok = Message.model_validate({'categories': ['news', 'sales']})\n"
        "try:\n"
        "    Message.model_validate({'categories': ['a', 'b', 'c']})\n"
        "    refused = False\n"
        "except ValueError:\n"
        "    refused = True\n"
        "print(json.dumps([ok.categories, refused]))\n"
    )
    assert run_json(tmp_path / "out" / "server", script) == [["news", "sales"], True]


def test_keywords_of_another_type_are_ignored_with_a_warning(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/keywords_of_another_type.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (SHAPES / "schemas/keywords_of_another_type.yaml").read_text()
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


_ROUND_TRIP = """
import json

import httpx
from api_client import Client
from api_client.models import GetLevelResponse, GetModeResponse, Status

answers = {"/filing-status": "Active", "/status": "down", "/level": 2, "/mode": None}
sent = []


def answer(request):
    sent.append(request.content)
    body = json.dumps(answers[request.url.path]).encode()
    return httpx.Response(200, content=body, headers={"content-type": "application/json"})


http = httpx.Client(transport=httpx.MockTransport(answer), base_url="http://api.test")
client = Client(base_url="http://api.test", http_client=http)
assert client.default.get_filing_status().value == "Active"
assert client.default.set_status(body=Status.UP) is Status.DOWN
assert sent[-1] == b'"up"', sent
assert client.default.get_level() is GetLevelResponse(2)
assert client.default.get_mode() is GetModeResponse(None)
print("ok")
"""


def test_enum_answers_and_bodies_are_read_and_sent_by_the_client(tmp_path: Path) -> None:
    """A response (or request body) schema that is only an enum is an enum class, not a
    pydantic model: the client called `.model_validate_json` on it (mypy: no such attribute)."""
    code, output = build_shape(tmp_path, "schemas/enum_answers.yaml", "--typecheck")
    assert code == 0, output
    done = subprocess.run(
        [sys.executable, "-c", _ROUND_TRIP],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "out" / "client")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


_CONTRACT = """\
import json
from api_server.contract import contract_violation

print(json.dumps({
    "404 low": contract_violation("getLevel", 404, b'"low"'),
    "404 mid": contract_violation("getLevel", 404, b'"mid"'),
    "400 high": contract_violation("getLevel", 400, b'"high"'),
}))
"""


def test_enum_classes_follow_the_models(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/enum_through_allof_answers.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    out = tmp_path / "out"
    models = (out / "server" / "api_server" / "models.py").read_text()
    assert "class GetLevelResponse(StrEnum):" in models
    resources = (out / "client" / "api_client" / "resources" / "default.py").read_text()
    assert "GetLevelResponse(response.json())" in resources
    assert "GetLevelResponse.model_validate_json" not in resources
    contract = (out / "server" / "api_server" / "contract.py").read_text()
    assert '"404": RootModel[_models.Level],' in contract
    found = run_json(out / "server", _CONTRACT)
    assert found["404 low"] is None
    assert found["400 high"] is None
    assert found["404 mid"].startswith("error body does not match RootModel[Level]"), found


def test_object_enums_are_models_to_the_client(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/object_enums.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    text = resources.read_text()
    assert "Preset.model_validate_json(response.content)" in text
    assert "Preset(response.json())" not in text


_EMPTY = """\
import json
from api_server.models import GetStatusResponse

answer = GetStatusResponse.model_validate({"errors": [], "nested": {}, "mixed": {"a": []}})
print(answer.model_dump_json())
"""


def test_empty_containers_in_enums_type_check(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "schemas/empty_enum_values.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    assert output.count("an `enum` with object or array members") == 3, output
    found = run_json(tmp_path / "out" / "server", _EMPTY)
    assert found == {"errors": [], "nested": {}, "mixed": {"a": []}}
