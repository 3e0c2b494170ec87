"""Large real-world documents as they are: a 3.1 document with 3.0 / 2019-09 leftovers builds
(each repair a warning at its node; `--strict` refuses), and a schema named like the client's
resource class (`TagsResource`) does not collide with it: the output passes mypy --strict."""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import line_of, run_in

FIXTURE = Path(__file__).parents[1] / "fixtures" / "leftovers" / "openapi.yaml"


def _copy(tmp_path: Path) -> Path:
    spec = tmp_path / "openapi.yaml"
    shutil.copy(FIXTURE, spec)
    return spec


def test_leftovers_are_repaired_with_a_warning_at_each_node(tmp_path: Path) -> None:
    spec = _copy(tmp_path)
    text = spec.read_text(encoding="utf-8")
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    repairs = [line for line in output.splitlines() if "[schema-repair]" in line]
    expected = {
        "exclusiveMinimum: true": "TagsResource/properties/count/exclusiveMinimum",
        "exclusiveMaximum: false": "TagsResource/properties/ratio/exclusiveMaximum",
        "nullable: true": "TagsResource/properties/note/nullable",
        "required: [name, count, name]": "TagsResource/required",
        "description: 42": "TagsResource/properties/name/description",
        "$recursiveAnchor": "CompoundFilter/$recursiveAnchor",
        "code: {type: string, required: true": "TagsResource/properties/code/required",
        "minLength: '3'": "TagsResource/properties/code/minLength",
        "pair: {type: array": "TagsResource/properties/pair/items",
        "upload: {type: file}": "TagsResource/properties/upload/type",
        "alias: {type: [string, null]}": "TagsResource/properties/alias/type",
        "$recursiveRef": "CompoundFilter/properties/filters/items/anyOf/1/$recursiveRef",
    }
    for needle, pointer in expected.items():
        hits = [r for r in repairs if r.endswith(f"(at /components/schemas/{pointer})")]
        assert len(hits) == 1, (pointer, repairs)
        assert hits[0].startswith(f"openapi.yaml:{line_of(text, needle)}:"), hits[0]
        assert " warning " in hits[0]
    assert len(repairs) == len(expected)
    defaults = [line for line in output.splitlines() if "warning [default]" in line]
    assert any("default 'false' does not fit its schema: read as False" in d for d in defaults)
    assert any("default 'high' does not fit its schema: dropped" in d for d in defaults)
    params = [line for line in output.splitlines() if "[parameter-repair]" in line]
    assert len(params) == 2, output
    assert any("'group' is in the path but not declared" in p for p in params)
    assert any(f":{line_of(text, '{name: name, in: path, schema')}:" in p for p in params)
    assert "[ref]" not in output  # a $ref inside an example's value is data
    no_body = [line for line in output.splitlines() if "[no-body-status]" in line]
    assert len(no_body) == 1 and " warning " in no_body[0], output  # 204 with content: built
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "note: str | None" in models  # nullable read as 3.0 meant it
    assert "list[str | CompoundFilter]" in models  # $recursiveRef: the schema itself
    assert "code: str | None" in models  # `required: true` on a property dropped, not fatal
    assert "archived: bool = False" in models
    assert "level: int | None = None" in models
    assert "pair: list[Any] | None" in models
    assert "alias: str | None = None" in models  # an unquoted null in a type list: 'null'


def test_strict_refuses_a_repaired_document(tmp_path: Path) -> None:
    _copy(tmp_path)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--strict"
    )
    assert code != 0
    assert "[schema-repair]" in output
    assert not (tmp_path / "out").exists()


def test_a_schema_named_like_a_resource_class_type_checks(tmp_path: Path) -> None:
    _copy(tmp_path)
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    resource = (tmp_path / "out/client/api_client/resources/tags.py").read_text(encoding="utf-8")
    assert "class TagsResource2:" in resource
    # models named like what resource modules import get another name
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "class SyncPageModel(" in models and "class SequenceModel(" in models
    assert "TagsResource," in resource or "TagsResource\n" in resource  # the model, imported
