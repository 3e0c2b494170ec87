"""Shapes met in large public documents, each in a small hand-written spec: the build exits 0
and the output says what the document meant.

- a named union or map that contains itself (`ErrorDetails = oneOf[map of ErrorDetails,
  InnerErrors]`, `Tree = anyOf[array of Tree, string]`): the docs spell it out once and name it
  where it recurs (it recursed until the stack ran out).
- `allOf: [Base, {anyOf: [...], properties}]` narrowing a field of Base: datamodel-code-generator
  writes a class with two bases that type the field apart; pydantic takes the first (the narrow
  one), mypy --strict wanted them equal.
- a response or request body schema that is only an `enum` (AvaTax's filing status): an enum
  class, which the client read with `.model_validate_json` and validated bodies into.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from spec_gen.targets.models.fix import base_conflicts_ignored
from spec_helpers import line_of, run_in

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_recursive_unions_and_maps_are_documented_by_name(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "recursive_unions.yaml")
    assert code == 0, output
    reference = (tmp_path / "out/docs/default.md").read_text(encoding="utf-8")
    assert "| `tree` | array of `Tree` or string | no |" in reference
    errors = (tmp_path / "out/docs/guides/errors.md").read_text(encoding="utf-8")
    assert "| `errors` | map of string to `ErrorDetails` or `InnerErrors` | no |" in errors
    # the object the union leads to still gets its own table
    assert "`_errors`" in errors


def test_a_field_narrowed_beside_an_any_of_type_checks(tmp_path: Path) -> None:
    """`allOf: [Resource, {anyOf: [required name | required company], properties: {object:
    enum}}]` becomes `class Address4(Address1, Address3)` whose bases type `object` apart."""
    code, output = _build(tmp_path, "narrowed_in_any_of_branch.yaml", "--typecheck")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "class Address4(  # type: ignore[misc, unused-ignore]\n    Address1, Address3\n):" in (
        models
    )
    assert "class Address3(Resource):" in models  # a single base is left as it is


def test_only_bases_that_type_a_field_apart_are_marked() -> None:
    source = dedent(
        """\
        class Base(BaseModel):
            kind: str
            size: Annotated[int | None, Field(ge=0)] = None
        class Narrow(BaseModel):
            kind: Kind = Kind.A
        class Same(BaseModel):
            size: None | int = None
        class Mid(Base):
            pass
        class Apart(Narrow, Mid):
            pass
        class Alike(Same, Mid):
            pass
        class Redeclared(Narrow, Mid):
            kind: Kind
        class Chain(Mid, Base):
            pass
        """
    )
    marked = base_conflicts_ignored(source)
    assert "class Apart(  # type: ignore[misc, unused-ignore]\n    Narrow, Mid\n):" in marked
    assert marked.count("type: ignore") == 1  # equal types, own field, ancestor: unmarked


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
    code, output = _build(tmp_path, "enum_answers.yaml", "--typecheck")
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


def test_tags_named_like_builtins_get_modules_that_do_not_shadow_them(tmp_path: Path) -> None:
    """Trello's `list` and `type` tags: `from .list import ListApi` in the interfaces
    package bound `list` there, and its `__all__: list[str]` failed on import."""
    code, output = _build(tmp_path, "builtin_tags.yaml", "--typecheck")
    assert code == 0, output
    server = tmp_path / "out/server/api_server"
    for kind in ("interfaces", "routers"):
        assert sorted(p.name for p in (server / kind).glob("*.py")) == [
            "__init__.py",
            "list_.py",
            "type_.py",
        ]


def test_patterns_rust_regex_cannot_run_are_kept_and_checked_by_python(tmp_path: Path) -> None:
    """Alfresco's node names: a look-ahead `pattern` (ECMA-262 has it, the Rust `regex` of
    pydantic's default engine does not) made the generated module fail on import. It builds,
    with no warning (Python's `re` compiles these), and every pattern is still there to be
    enforced: the models' classes by Python's engine, the parameter by `transport.pattern`."""
    code, output = _build(tmp_path, "patterns.yaml")
    assert code == 0, output
    assert "pattern" not in output.replace("patterns.yaml", "")  # no pattern finding
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "(?!(.*" in models and "(a+)-" in models and 'pattern="^[a-z0-9-]+$"' in models
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'transport.pattern("^(?!.*[*?]).+$")' in router and "^[A-Z]{3}$" in router


def test_an_allof_cycle_is_refused_with_a_finding_at_its_ref(tmp_path: Path) -> None:
    """A schema that extends itself (through other schemas, an alias, an inline allOf) has
    no class: the build stopped on a RecursionError (exit 2). Recursion through properties
    (`Tree`) is fine and not reported."""
    code, output = _build(tmp_path, "allof_cycle.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (FIXTURES / "allof_cycle.yaml").read_text(encoding="utf-8")
    cycles = [line for line in output.splitlines() if "[schema-cycle]" in line]
    assert len(cycles) == 2, output
    pet_line = line_of(text, "$ref: '#/components/schemas/Pet'", 2)
    pet = f"openapi.yaml:{pet_line}:"
    assert cycles[0].startswith(pet), cycles
    assert "allOf cycle Pet -> Creature -> Pet" in cycles[0]
    assert cycles[0].endswith("(at /components/schemas/Creature/allOf/1/allOf/0/$ref)")
    assert cycles[1].startswith(f"openapi.yaml:{line_of(text, 'schemas/Node')}:")
    assert "allOf cycle Node -> Node" in cycles[1]
    assert not (tmp_path / "out").exists()


def test_a_union_that_is_its_own_member_is_refused_with_a_finding_at_its_ref(
    tmp_path: Path,
) -> None:
    """ogen's negative documents: `Test: oneOf [Test]` ended in an internal error (exit 2,
    datamodel-code-generator's "Models not found"); `Left: anyOf [Right]`, `Right: anyOf
    [string, Left]` (through an alias) built models that refuse every value (pydantic's
    `recursion_loop`). Checking a value against such a union goes round for ever: each is an
    error at the `$ref` closing the cycle. The usual polymorphism (a union of several
    subclasses that extend it with allOf) and recursion through items or additionalProperties
    are not."""
    code, output = _build(tmp_path, "union_cycle.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (FIXTURES / "union_cycle.yaml").read_text(encoding="utf-8")
    cycles = [line for line in output.splitlines() if "[schema-cycle]" in line]
    assert len(cycles) == 2, output
    test_line = line_of(text, "- $ref: '#/components/schemas/Test'")
    assert cycles[0].startswith(f"openapi.yaml:{test_line}:")
    assert (
        "oneOf cycle Test -> Test: a schema cannot extend itself (oneOf with one member"
        in (cycles[0])
    )
    assert cycles[0].endswith("(at /components/schemas/Test/oneOf/0/$ref)")
    assert "oneOf/anyOf cycle Left -> Right -> Left" in cycles[1]
    assert cycles[1].endswith("(at /components/schemas/Right/anyOf/1/$ref)")
    assert "Pet" not in output and "Json" not in output
    assert not (tmp_path / "out").exists()


def test_a_callback_under_a_templated_path_needs_no_path_parameters(tmp_path: Path) -> None:
    """Meraki's live tools: a callback under `/devices/{serial}/...` was checked as if its
    runtime expression were that path, and refused for not declaring `serial`."""
    code, output = _build(tmp_path, "callback_under_template.yaml", "--typecheck")
    assert code == 0, output
    assert "path-params" not in output and "parameter-repair" not in output
    webhooks = (tmp_path / "out/server/api_server/webhooks.py").read_text(encoding="utf-8")
    assert '("pingDevice", "pingDone"): PingDevicePingDoneRequest' in webhooks


_DEFAULTS = """
from api_server.models import Job

job = Job()
assert job.batch_size.root.value == "auto", job
assert job.n_epochs.root == 3, job
assert job.stop == [], job
print("ok")
"""


def test_defaults_of_unions_type_check_and_apply(tmp_path: Path) -> None:
    """OpenAI's fine-tuning hyperparameters: `oneOf: [enum auto, integer]` with `default:
    auto`. datamodel-code-generator types the field with the union's class and a raw default
    (and copies it onto the integer member): mypy --strict refused each assignment."""
    code, output = _build(tmp_path, "union_defaults.yaml", "--typecheck")
    assert code == 0, output
    done = subprocess.run(
        [sys.executable, "-c", _DEFAULTS],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "out" / "server")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_style_its_location_does_not_allow_is_read_as_the_default(tmp_path: Path) -> None:
    """Stripe as Ballerina publishes it: `style: simple` on a query parameter. The document
    was refused ([openapi] error); the style is dropped (the location's default applies) with
    a warning at it, once for a shared component."""
    code, output = _build(tmp_path, "parameter_styles.yaml", "--typecheck")
    assert code == 0, output
    text = (FIXTURES / "parameter_styles.yaml").read_text(encoding="utf-8")
    styles = [line for line in output.splitlines() if "[parameter-repair] style" in line]
    expected = {
        "{name: id, in: path": ("'form'", "a path", "'simple'", "delete/parameters/0/style"),
        "{name: expand, in: query": ("'simple'", "a query", "'form'", "delete/parameters/1/style"),
        "Trace: {name: X-Trace": ("'form'", "a header", "'simple'", "components"),
    }
    assert len(styles) == len(expected), styles
    for needle, (style, where, default, pointer) in expected.items():
        hits = [s for s in styles if s.startswith(f"openapi.yaml:{line_of(text, needle)}:")]
        assert len(hits) == 1, (needle, styles)
        assert f"style {style} is not one {where} parameter may have" in hits[0]
        assert f"read as the default, {default}" in hits[0] and pointer in hits[0]
    assert "/get/parameters/0/style" not in output  # an allowed style is left alone


def test_a_repeated_operation_id_is_numbered_with_a_warning(tmp_path: Path) -> None:
    """Temporal's grpc-gateway document repeats an operationId for each extra HTTP binding
    (121 of them): refused outright before. The default profile warns and numbers the repeat;
    the house profile still refuses it (tests/generator/test_validate.py)."""
    code, output = _build(tmp_path, "repeated_operation_ids.yaml", "--typecheck")
    assert code == 0, output
    text = (FIXTURES / "repeated_operation_ids.yaml").read_text(encoding="utf-8")
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
    code, output = _build(tmp_path, "names_like_keywords.yaml", "--typecheck")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "mapping: IndicesTypesMappingLimits | None = None" in models
    assert 'x_total: Annotated[IndicesTypesMappingLimits | None, Field(alias="x-total")]' in models
    assert "properties: dict[str, TypesMappingProperty]" in models


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


def test_a_parameter_schema_that_annotates_a_ref_is_that_type(tmp_path: Path) -> None:
    """Elasticsearch's parameters: `schema: {default: or, allOf: [$ref: Operator]}` (3.0's way
    to put a default beside a $ref) was hoisted as a class of its own, which
    datamodel-code-generator does not write (an alias): the build stopped (exit 2)."""
    code, output = _build(tmp_path, "annotated_ref_parameters.yaml", "--typecheck")
    assert code == 0, output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'default_operator: Annotated[Operator, Query()] = Operator("or"),' in router
    assert "size: Annotated[int | None, Query()] = None," in router


def test_json_without_a_schema_beside_text_is_answered_as_text(tmp_path: Path) -> None:
    """EarthRef's data export: `text/plain: {}` and `application/json: {}`. The handler was
    typed `None | str | AsyncIterable[str]` and the route passed that None-able value to
    `mixed_response` (mypy --strict); with no JSON model it returns text (or bytes)."""
    code, output = _build(tmp_path, "schemaless_json_beside_text.yaml", "--typecheck")
    assert code == 0, output
    api = (tmp_path / "out/server/api_server/interfaces/default.py").read_text(encoding="utf-8")
    assert ") -> str | AsyncIterable[str]:" in api
    assert ") -> bytes | AsyncIterable[bytes]:" in api
    assert "None |" not in api


def test_a_default_its_referenced_schema_refuses_is_dropped(tmp_path: Path) -> None:
    """Elasticsearch's `_cat` columns: `default: "create_time,id,state"` beside `allOf:
    [$ref: Columns]` (an enum or an array of it). The router validated it into the type on
    mount and failed (exit 2); it is dropped with a warning, a default that fits stays."""
    code, output = _build(tmp_path, "defaults_through_refs.yaml", "--typecheck")
    assert code == 0, output
    text = (FIXTURES / "defaults_through_refs.yaml").read_text(encoding="utf-8")
    dropped = [line for line in output.splitlines() if "warning [default]" in line]
    assert len(dropped) == 2, output
    assert dropped[0].startswith(f"openapi.yaml:{line_of(text, 'default: create_time')}:")
    assert dropped[1].startswith(f"openapi.yaml:{line_of(text, 'default: everything')}:")
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'level: Annotated[Level, Query()] = Level("low"),' in router
    assert '"id"' in router.split(" s: ")[1].split(" level: ")[0]  # [id] fits: kept
