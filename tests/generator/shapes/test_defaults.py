"""Defaults of real public documents: defaults of unions, of referenced schemas, of string
formats held as other types, `null` beside 3.0's `nullable`, object and array defaults on
fields typed with a class.

Each document, under fixtures/shapes/defaults/, is small and hand-written and reproduces a shape
met in real public OpenAPI documents (large public APIs, the test documents of peer tools),
named below or in the test: the build exits 0 (or 1 with located findings) and the output says
what the document meant.

- `default: null` beside 3.0's `nullable: true` in a 3.1 document: kept, no warning.
- a default on a string `format` the models hold as another type (duration, date, uuid...):
  type-checks and is that type at run time; one the format refuses is dropped with a warning.
- an object or array default on a property typed with a class (`metadata: {allOf: [$ref:
  ObjectMeta], default: {}}`, `plants: {items: {$ref: Plant}, default: [{...}]}`):
  datamodel-code-generator writes the JSON value as the field's default; mypy --strict
  refused the assignment (`dict[Never, Never]` is not `ObjectMeta`). The default is now
  `Field(default=..., validate_default=True)`: typed, and a model instance at run time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from spec_gen.targets.models.fix import typed_string_defaults
from spec_helpers import SHAPES, build_shape, line_of, run_json

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
    code, output = build_shape(tmp_path, "defaults/union_defaults.yaml", "--typecheck")
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


def test_a_default_its_referenced_schema_refuses_is_dropped(tmp_path: Path) -> None:
    """Elasticsearch's `_cat` columns: `default: "create_time,id,state"` beside `allOf:
    [$ref: Columns]` (an enum or an array of it). The router validated it into the type on
    mount and failed (exit 2); it is dropped with a warning, a default that fits stays."""
    code, output = build_shape(tmp_path, "defaults/defaults_through_refs.yaml", "--typecheck")
    assert code == 0, output
    text = (SHAPES / "defaults/defaults_through_refs.yaml").read_text(encoding="utf-8")
    dropped = [line for line in output.splitlines() if "warning [default]" in line]
    assert len(dropped) == 2, output
    assert dropped[0].startswith(f"openapi.yaml:{line_of(text, 'default: create_time')}:")
    assert dropped[1].startswith(f"openapi.yaml:{line_of(text, 'default: everything')}:")
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'level: Annotated[Level, Query()] = Level("low"),' in router
    assert '"id"' in router.split(" s: ")[1].split(" level: ")[0]  # [id] fits: kept


def test_a_null_default_beside_3_0_nullable_in_a_3_1_document_is_kept(tmp_path: Path) -> None:
    """`default: null` with 3.0's `nullable: true` in a 3.1 document: the default fits once
    `nullable` is read (it was dropped as not fitting, a warning that `--strict` refuses)."""
    code, output = build_shape(tmp_path, "defaults/null_default_nullable_31.yaml")
    assert code == 0, output
    defaults = [line for line in output.splitlines() if "warning [default]" in line]
    # only `stop`, which does not allow null, has a default that does not fit
    assert len(defaults) == 1, output
    assert "/properties/stop/default" in defaults[0]
    assert output.count("warning [schema-repair] 3.0's `") == 3, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "bias: dict[str, int] | None = None" in models
    checked = run_json(
        tmp_path / "out/server",
        """if True:
        import json
        from api_server.models import CompletionRequest
        made = CompletionRequest.model_validate({"prompt": "p", "samples": None, "suffix": None})
        print(json.dumps(made.model_dump(exclude_unset=False)))
        """,
    )
    assert checked == {"prompt": "p", "bias": None, "samples": None, "suffix": None, "stop": None}


def test_string_format_defaults_type_check_and_hold_their_type(tmp_path: Path) -> None:
    """A default on a string with a `format` (duration, date, uuid, uri, decimal): written
    `Field(default=..., validate_default=True)`, checked by the format's text type and kept as
    written (docs/models.md); one the format refuses (`24h`, `3600` read from a number) is
    dropped with a located warning, so the class can still be built."""
    code, output = build_shape(tmp_path, "defaults/format_defaults.yaml", "--typecheck")
    assert code == 0, output
    dropped = sorted(line for line in output.splitlines() if "is not a valid `duration`" in line)
    assert len(dropped) == 2, output
    assert "openapi.yaml:29:11:" in dropped[0] and "/properties/grace/default" in dropped[0]
    assert "openapi.yaml:33:11:" in dropped[1] and "/properties/lease/default" in dropped[1]
    # nullable (a 3.0 `nullable: true`, read as type [string, null]) is checked the same way
    assert "default 'tomorrow' is not a valid `date-time`: dropped" in output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert 'rotation: DurationText = Field(default="PT1H", validate_default=True)' in models
    assert 'label: str = "plain"' in models
    checked = run_json(
        tmp_path / "out/server",
        """if True:
        import json
        from api_server.models import KeyRequest
        made = KeyRequest()
        print(json.dumps({
            name: [type(value).__name__, str(value)]
            for name, value in made.__dict__.items()
        }))
        """,
    )
    assert checked == {
        "rotation": ["str", "PT1H"],
        "grace": ["NoneType", "None"],
        "lease": ["NoneType", "None"],
        "starts": ["str", "2024-01-01"],
        "owner": ["str", "6f1c1c53-7d5b-4e6a-9a55-1b2a3c4d5e6f"],
        "home": ["str", "https://example.test/"],
        "price": ["str", "1.50"],
        "expires": ["NoneType", "None"],
        "label": ["str", "plain"],
    }


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
    code, output = build_shape(tmp_path, "defaults/object_defaults_on_classes.yaml", "--typecheck")
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
