"""Shapes met in the test documents of peer tools (fifth round), each in a small hand-written
spec: the build exits 0 and the output says what the document meant.

- an object or array default on a property typed with a class (`metadata: {allOf: [$ref:
  ObjectMeta], default: {}}`, `plants: {items: {$ref: Plant}, default: [{...}]}`):
  datamodel-code-generator writes the JSON value as the field's default; mypy --strict
  refused the assignment (`dict[Never, Never]` is not `ObjectMeta`). The default is now
  `Field(default=..., validate_default=True)`: typed, and a model instance at run time.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_gen.targets.models import typed_string_defaults
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
