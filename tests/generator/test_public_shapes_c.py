"""Shapes met in large public documents (third round), each in a small hand-written spec: the
build exits 0 and the output says what the document meant.

- a nullable map (`type: [object, 'null']` with an `additionalProperties` schema, or 3.0's
  `nullable: true` on a map): its values keep their type (datamodel-code-generator wrote
  `dict[str, Any]` for the type list).
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
