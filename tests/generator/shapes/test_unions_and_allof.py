"""Compositions of real public documents (`allOf`, `anyOf`, `oneOf`): fields narrowed by a
member or a second base, unions of subclasses, `false` members, empty lists of members, and
what happens when datamodel-code-generator refuses a schema.

Each document, under fixtures/shapes/unions_and_allof/, is small and hand-written and reproduces
a shape met in real public OpenAPI documents (large public APIs, the test documents of peer
tools), named below or in the test: the build exits 0 (or 1 with located findings) and the
output says what the document meant.

- `allOf: [Base, {anyOf: [...], properties}]` narrowing a field of Base: datamodel-code-generator
  writes a class with two bases that type the field apart; pydantic takes the first (the narrow
  one), mypy --strict wanted them equal.
- an object schema whose oneOf members narrow one of its own properties (`properties:
  {niCategory: {$ref: Letter}}, oneOf: [{properties: {niCategory: {enum: [...]}}}, ...]`, as
  in Xero's UK payroll): datamodel-code-generator writes the schema's properties as a
  subclass of each member redeclaring the field with the wider type; mypy --strict refused
  the assignment, and the wider field replaced the narrow one (any letter in any branch).
  The property now moves into the members (narrowed there); where that cannot be done
  (a member named elsewhere too) the module keeps the assignment note.
- a union of subclasses that each extend it (`Key: oneOf [KeyEC, KeyRsa]`, `KeyEC: allOf
  [Key]`, Okta's OAuth API): the docs' example no longer goes round the cycle.
- `false` inside a schema's allOf (`allOf: [false, {minLength: 2}]`, datamodel-code-
  generator's own test documents): its SchemaParseError ("unsatisfiable") came back from
  the models worker as `TypeError: SchemaParseError.__init__() missing ... 'message'`
  (the exception does not load from its pickle), an internal error (exit 2). The schema is
  now read as `not: {}` (`Any`, as a `false` property is), `false` members of a union are
  dropped; any other schema datamodel-code-generator refuses is a located `schema` error,
  and an exception that does not load again comes back from the worker as its text.
- a composition listing no schema (`paginate: {anyOf: []}`, as a generator writes a union
  it knows no member of): the meta-schema wants at least one branch, and the whole document
  was refused by one `schema` error. The empty `allOf`/`anyOf`/`oneOf` is now dropped, a
  `schema-repair` warning at it (`--strict` refuses): the property accepts any value, the
  siblings of the empty list still apply.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from spec_gen.build.worker import ForkedWorker
from spec_gen.targets.models.fix import base_conflicts_ignored
from spec_gen.targets.models.keywords import union_member_overrides
from spec_gen.targets.models.prepare import model_ready, narrowed_in_members
from spec_gen.targets.models.refused import ModelsRefused
from spec_gen.targets.models.run import _refusal, refusal_pointer
from spec_helpers import SHAPES, build_shape, line_of, lines_warned, run_json


def test_a_field_narrowed_beside_an_any_of_type_checks(tmp_path: Path) -> None:
    """`allOf: [Resource, {anyOf: [required name | required company], properties: {object:
    enum}}]` becomes `class Address4(Address1, Address3)` whose bases type `object` apart."""
    code, output = build_shape(
        tmp_path, "unions_and_allof/narrowed_in_any_of_branch.yaml", "--typecheck"
    )
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


_SEATS = """\
import json
from api_server.models import Seat
from pydantic import ValidationError

found = {}
seat = Seat.model_validate({"seatClass": "business", "row": 3})
found["row"] = seat.root.row
found["class"] = seat.root.seat_class.value
try:
    Seat.model_validate({"seatClass": "business"})
except ValidationError:
    found["refused"] = True
# `first` is the second member's: it needs a lounge, whatever the wider enum allows
try:
    Seat.model_validate({"seatClass": "first", "row": 3})
except ValidationError:
    found["narrowed"] = True
found["first"] = Seat.model_validate({"seatClass": "first", "row": 1, "lounge": "L"}).root.lounge
print(json.dumps(found))
"""


def test_union_members_narrowing_an_own_field_type_check(tmp_path: Path) -> None:
    code, output = build_shape(
        tmp_path, "unions_and_allof/union_member_narrows_field.yaml", "--typecheck"
    )
    assert code == 0, output
    assert "Success: no issues found" in output
    server = tmp_path / "out" / "server"
    assert run_json(server, _SEATS) == {
        "row": 3,
        "class": "business",
        "refused": True,
        "narrowed": True,
        "first": "L",
    }


def test_union_member_overrides_needs_a_shared_property() -> None:
    narrowing = {
        "Kind": {"type": "string", "enum": ["a", "b"]},
        "Thing": {
            "type": "object",
            "properties": {"kind": {"$ref": "#/components/schemas/Kind"}},
            "oneOf": [{"properties": {"kind": {"enum": ["a"]}}}, {"required": ["kind"]}],
        },
    }
    assert union_member_overrides(narrowing)
    # through a $ref'd member, and nested in a property
    by_ref = {
        "Narrow": {"properties": {"kind": {"type": "string", "enum": ["a"]}}},
        "Outer": {
            "type": "object",
            "properties": {
                "inner": {
                    "type": "object",
                    "properties": {"kind": {"type": "string"}},
                    "anyOf": [{"$ref": "#/components/schemas/Narrow"}],
                }
            },
        },
    }
    assert union_member_overrides(by_ref)
    apart = {
        "Thing": {
            "type": "object",
            "properties": {"kind": {"type": "string"}},
            "oneOf": [{"properties": {"other": {"type": "string"}}}, {"required": ["kind"]}],
        }
    }
    assert not union_member_overrides(apart)


def test_members_named_elsewhere_are_left_as_they_are() -> None:
    """The property moves only into members the IR hoisted (and nothing else names): a
    document's own component stays as the document wrote it."""
    narrow = {"properties": {"kind": {"enum": ["a"]}}}
    schemas = {
        "Kind": {"type": "string", "enum": ["a", "b"]},
        "OnlyA": narrow,
        "Thing": {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"$ref": "#/components/schemas/Kind"}},
            "oneOf": [{"$ref": "#/components/schemas/OnlyA"}],
        },
    }
    assert narrowed_in_members(schemas, schemas, frozenset()) == schemas
    moved = narrowed_in_members(schemas, schemas, frozenset({"OnlyA"}))
    assert moved["OnlyA"] == {
        "properties": {"kind": {"type": "string", "enum": ["a"]}},
        "required": ["kind"],
    }
    assert moved["Thing"]["properties"] == {} and "required" not in moved["Thing"]
    # inline members are narrowed in place
    inline = {**schemas["Thing"], "oneOf": [narrow]}
    done = narrowed_in_members({"Kind": schemas["Kind"], "Thing": inline}, schemas, frozenset())
    assert done["Thing"]["oneOf"][0]["properties"]["kind"] == {"type": "string", "enum": ["a"]}


def test_a_union_of_subclasses_that_extend_it_gets_an_example(tmp_path: Path) -> None:
    """Okta's OAuth API: `SigningKey: oneOf [EcKey, RsaKey]` where each member is `allOf:
    [SigningKey]` plus its own properties. The docs' example went round the cycle until the
    stack ran out (exit 2, RecursionError); it now passes over the member leading back."""
    code, output = build_shape(tmp_path, "unions_and_allof/union_of_subclasses.yaml", "--typecheck")
    assert code == 0, output
    reference = (tmp_path / "out/docs/default.md").read_text(encoding="utf-8")
    assert '"crv": "P-256"' in reference


_LOCKER = """\
import json
from api_server.models import Locker

locker = Locker.model_validate({"code": "A1", "size": "m"})
print(json.dumps({"code": locker.code, "size": locker.size.root.value}))
"""


def test_false_members_of_allof_and_unions_build(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "unions_and_allof/false_members.yaml")
    assert code == 0, output
    assert "internal error" not in output
    assert run_json(tmp_path / "out" / "server", _LOCKER) == {"code": "A1", "size": "m"}


def test_model_ready_reads_false_members() -> None:
    never = frozenset({"Never"})
    ref = {"$ref": "#/components/schemas/Never"}
    found = model_ready(
        {
            "A": {"allOf": [False, {"minLength": 2}], "description": "gone"},
            "B": {"allOf": [ref, {"type": "string"}]},
            "C": {"anyOf": [False, {"type": "string"}]},
            "D": {"oneOf": [ref, False], "title": "none"},
            "E": {"allOf": [{"$ref": "#/components/schemas/Other"}]},
        },
        never,
    )
    assert found == {
        "A": {"description": "gone", "not": {}},
        "B": {"not": {}},
        "C": {"anyOf": [{"type": "string"}]},
        "D": {"title": "none", "not": {}},
        "E": {"allOf": [{"$ref": "#/components/schemas/Other"}]},
    }


class SchemaParseError(Exception):
    """Shaped as datamodel-code-generator's: its __init__ wants more than its args hold."""

    def __init__(self, message: str, path: list[str] | None = None) -> None:
        self.path = path or []
        super().__init__(f"Error at schema path '{self.path[0]}': {message}")


def test_a_refused_schema_is_located_at_its_class() -> None:
    refused = _refusal(
        SchemaParseError("no type for it", ["#/components/schemas/Item/properties/size"])
    )
    assert isinstance(refused, ModelsRefused)
    assert (refused.path, refused.reason) == (
        "/components/schemas/Item/properties/size",
        "no type for it",
    )
    # the IR's class `Item` is an inline schema of an operation
    pointers = {"Item": "/paths/~1items/get/responses/200/content/application~1json/schema"}
    assert refusal_pointer(refused.path, pointers) == (
        "/paths/~1items/get/responses/200/content/application~1json/schema/properties/size"
    )
    assert _refusal(ValueError("other")) is None


def _raise_unloadable() -> None:
    raise SchemaParseError("boom", ["#/components/schemas/X"])


def test_an_exception_that_does_not_unpickle_comes_back_as_its_text() -> None:
    worker = ForkedWorker()
    try:
        with pytest.raises(RuntimeError, match="SchemaParseError: Error at schema path"):
            worker.submit(_raise_unloadable).result()
    finally:
        worker.close()


def test_an_empty_any_of_is_dropped_with_a_warning(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "unions_and_allof/empty_any_of.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (SHAPES / "unions_and_allof/empty_any_of.yaml").read_text()
    warned = lines_warned(output, "schema-repair")
    assert warned == [line_of(text, "anyOf: []"), line_of(text, "allOf: []")], output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "paginate: Any | None = None" in models, models
    assert "after: int | None = None" in models, models
    (tmp_path / "strict").mkdir()
    strict, output = build_shape(
        tmp_path / "strict", "unions_and_allof/empty_any_of.yaml", "--strict"
    )
    assert strict == 1 and "[schema-repair]" in output, output
