"""Shapes met in large public documents (second round), each in a small hand-written spec:
the build exits 0 and the output says what the document meant.

- an object schema whose oneOf members narrow one of its own properties (`properties:
  {niCategory: {$ref: Letter}}, oneOf: [{properties: {niCategory: {enum: [...]}}}, ...]`, as
  in Xero's UK payroll): datamodel-code-generator writes the schema's properties as a
  subclass of each member redeclaring the field with the wider type; mypy --strict refused
  the assignment, and the wider field replaced the narrow one (any letter in any branch).
  The property now moves into the members (narrowed there); where that cannot be done
  (a member named elsewhere too) the module keeps the assignment note.
- a `$ref` to a schema the document does not have (Keycloak's admin API): one located
  finding, without datamodel-code-generator's own warning printed beside it.
- a union of subclasses that each extend it (`Key: oneOf [KeyEC, KeyRsa]`, `KeyEC: allOf
  [Key]`, Okta's OAuth API): the docs' example no longer goes round the cycle.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from spec_gen.targets.models.generate import narrowed_in_members, union_member_overrides
from spec_helpers import line_of, run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_d"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


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
    code, output = _build(tmp_path, "union_member_narrows_field.yaml", "--typecheck")
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


def test_a_dangling_ref_is_one_located_finding_and_nothing_else(tmp_path: Path) -> None:
    """Keycloak's admin API as published: a property `$ref`s a schema the document does not
    have. It is refused with one finding at the `$ref`; the models worker (forked, its
    stderr the terminal's) printed datamodel-code-generator's DanglingRefWarning as well."""
    shutil.copy(FIXTURES / "dangling_ref.yaml", tmp_path / "openapi.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "spec_gen", "build", "--spec", "openapi.yaml", "--output", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    text = (FIXTURES / "dangling_ref.yaml").read_text(encoding="utf-8")
    line = line_of(text, "not_mapped_here")
    found = done.stdout + done.stderr
    assert f"openapi.yaml:{line}:" in found and "error [ref]" in found, found
    assert "Traceback" not in found
    assert "Warning" not in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_union_of_subclasses_that_extend_it_gets_an_example(tmp_path: Path) -> None:
    """Okta's OAuth API: `SigningKey: oneOf [EcKey, RsaKey]` where each member is `allOf:
    [SigningKey]` plus its own properties. The docs' example went round the cycle until the
    stack ran out (exit 2, RecursionError); it now passes over the member leading back."""
    code, output = _build(tmp_path, "union_of_subclasses.yaml", "--typecheck")
    assert code == 0, output
    reference = (tmp_path / "out/docs/default.md").read_text(encoding="utf-8")
    assert '"crv": "P-256"' in reference


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
