"""Shapes met in the test documents of peer tools (fifth round), each in a small hand-written
spec: the build exits 0 and the output says what the document meant.

- an object or array default on a property typed with a class (`metadata: {allOf: [$ref:
  ObjectMeta], default: {}}`, `plants: {items: {$ref: Plant}, default: [{...}]}`):
  datamodel-code-generator writes the JSON value as the field's default; mypy --strict
  refused the assignment (`dict[Never, Never]` is not `ObjectMeta`). The default is now
  `Field(default=..., validate_default=True)`: typed, and a model instance at run time.
- `false` inside a schema's allOf (`allOf: [false, {minLength: 2}]`, datamodel-code-
  generator's own test documents): its SchemaParseError ("unsatisfiable") came back from
  the models worker as `TypeError: SchemaParseError.__init__() missing ... 'message'`
  (the exception does not load from its pickle), an internal error (exit 2). The schema is
  now read as `not: {}` (`Any`, as a `false` property is), `false` members of a union are
  dropped; any other schema datamodel-code-generator refuses is a located `schema` error,
  and an exception that does not load again comes back from the worker as its text.
- properties named like schema keywords (`discriminator`, `const`, `pattern`; a schema
  named `const`): the models' preparation read the name maps as schemas, so a property
  `discriminator` was deleted and one named `const` replaced by `type: object`; data
  (`default`, `enum`, `example`) that looks like a schema was rewritten too. A float
  `const` became `x: float = None` (mypy --strict refused it; required, it was dropped);
  it is now its only value's range. datamodel-code-generator's directives to itself
  (`customTypePath`, `customBasePath`, `x-python-type`, `x-python-import`,
  `x-is-classvar`, in its own test documents) made the models import the module they name
  (a build ending in an internal error, or any installed module imported): dropped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spec_gen.build.worker import ForkedWorker
from spec_gen.targets.models.fix import typed_string_defaults
from spec_gen.targets.models.prepare import model_ready
from spec_gen.targets.models.refused import ModelsRefused
from spec_gen.targets.models.run import _refusal, refusal_pointer
from spec_helpers import run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_e"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


_BED = """\
import json
from api_server.models import Bed, Label, Plant

bed, other = Bed(), Bed()
print(json.dumps({
    "label": [type(bed.label).__name__, bed.label.colour],
    "sign": bed.sign.text,
    "plants": [type(p).__name__ + ":" + p.species for p in bed.plants],
    "weeds": bed.weeds,
    "own copy": bed.label is not other.label,
}))
"""


def test_object_defaults_on_class_typed_fields_type_check(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "object_defaults_on_classes.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    assert run_json(tmp_path / "out" / "server", _BED) == {
        "label": ["Label", "green"],
        "sign": "keep off",
        "plants": ["Plant:basil", "Plant:thyme"],
        "weeds": [],
        "own copy": True,
    }


def test_only_json_defaults_on_the_module_classes_are_rewritten() -> None:
    source = (
        "from __future__ import annotations\n"
        "from pydantic import BaseModel\n"
        "class Tag(BaseModel):\n"
        "    name: str\n"
        "class Post(BaseModel):\n"
        "    tag: Tag = {\n"
        '        "name": "news"\n'
        "    }\n"
        "    tags: list[Tag] = []\n"
        '    words: list[str] = ["a"]\n'
        '    extra: dict[str, str] = {"a": "b"}\n'
    )
    out = typed_string_defaults(source)
    assert "from pydantic import Field\n" in out
    assert "tag: Tag = Field(default={'name': 'news'}, validate_default=True)\n" in out
    # an empty list, and defaults of fields that name no class of the module: as they were
    assert "tags: list[Tag] = []\n" in out
    assert 'words: list[str] = ["a"]\n' in out
    assert 'extra: dict[str, str] = {"a": "b"}\n' in out


_LOCKER = """\
import json
from api_server.models import Locker

locker = Locker.model_validate({"code": "A1", "size": "m"})
print(json.dumps({"code": locker.code, "size": locker.size.root.value}))
"""


def test_false_members_of_allof_and_unions_build(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "false_members.yaml")
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
    code, output = _build(tmp_path, "keyword_names.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out" / "server", _GAUGE)
    assert found["fields"] == sorted(
        ["discriminator", "const", "pattern", "customTypePath", "scale", "ratio", "unit",
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
