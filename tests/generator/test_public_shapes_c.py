"""Shapes met in large public documents (third round), each in a small hand-written spec: the
build exits 0 and the output says what the document meant.

- a nullable map (`type: [object, 'null']` with an `additionalProperties` schema, or 3.0's
  `nullable: true` on a map): its values keep their type (datamodel-code-generator wrote
  `dict[str, Any]` for the type list).
- `default: null` beside 3.0's `nullable: true` in a 3.1 document: kept, no warning.
- a default on a string `format` the models hold as another type (duration, date, uuid...):
  type-checks and is that type at run time; one the format refuses is dropped with a warning.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_c"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_a_nullable_map_keeps_the_type_of_its_values(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "nullable_maps.yaml", "--typecheck")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "dict[str, Any]" not in models
    assert "class Tally(RootModel[dict[str, float] | None]):" in models
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


def test_a_null_default_beside_3_0_nullable_in_a_3_1_document_is_kept(tmp_path: Path) -> None:
    """`default: null` with 3.0's `nullable: true` in a 3.1 document: the default fits once
    `nullable` is read (it was dropped as not fitting, a warning that `--strict` refuses)."""
    code, output = _build(tmp_path, "null_default_nullable_31.yaml")
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
    code, output = _build(tmp_path, "format_defaults.yaml", "--typecheck")
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
