"""The models module made per class (build/models_cache.py): after an edit of the schemas,
datamodel-code-generator runs only on the classes whose closure changed, and the module is
what a cold `--no-cache` build writes, byte for byte; the classes it would name itself are
named first (targets/models/named.py), the pieces put in one order (pieces.py)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from spec_gen.build.models_cache import generated_per_class
from spec_gen.build.pipeline import build, render_tree
from spec_gen.build.tree import existing_files
from spec_gen.core.config import load_config
from spec_gen.core.timings import ENV
from spec_gen.targets.models.named import named
from spec_gen.targets.models.pieces import split

TEMPLATES = Path(__file__).parents[3] / "templates"
REF = "#/components/schemas/"


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _spec() -> dict[str, Any]:
    def op(op_id: str, schema: str) -> dict[str, Any]:
        return {
            "operationId": op_id,
            "responses": {"200": {"description": "OK.", **_body({"$ref": REF + schema})}},
        }

    return {
        "openapi": "3.1.0",
        "info": {"title": "Zoo", "version": "1"},
        "paths": {
            "/pets": {"get": op("list_pets", "Pet")},
            "/nodes": {"get": op("get_node", "Node")},
            "/events": {"get": op("get_event", "Event")},
        },
        "components": {
            "schemas": {
                "Owner": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string", "maxLength": 40}},
                },
                "Kind": {"type": "string", "enum": ["cat", "dog"]},
                "Pet": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string"},
                        "kind": {"$ref": REF + "Kind"},
                        "owner": {"$ref": REF + "Owner"},
                        # a constrained member: a class the tool would name itself
                        "born": {
                            "anyOf": [{"type": "string", "pattern": "^\\d+$"}, {"type": "null"}]
                        },
                        # a ref into another schema's inside
                        "nick": {"$ref": REF + "Owner/properties/name"},
                    },
                },
                "Node": {  # a cycle: the tool's own model_rebuild()
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": REF + "Node"}},
                        "pet": {"$ref": REF + "Pet"},
                    },
                },
                "Email": {"type": "object", "properties": {"to": {"type": "string"}}},
                "Sms": {"type": "object", "properties": {"number": {"type": "string"}}},
                "Event": {  # properties of its own beside a union of refs
                    "type": "object",
                    "properties": {"at": {"type": "string"}},
                    "oneOf": [{"$ref": REF + "Email"}, {"$ref": REF + "Sms"}],
                },
                "Unused": {"type": "object", "properties": {"note": {"type": "string"}}},
            }
        },
    }


def _add_operation(spec: dict[str, Any]) -> None:  # with an inline body schema
    body = {
        "type": "object",
        "properties": {"size": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]}},
    }
    spec["paths"]["/pets"]["post"] = {
        "operationId": "add_pet",
        "requestBody": _body(body),
        "responses": {"200": {"description": "OK.", **_body({"$ref": REF + "Pet"})}},
    }


def _add_field(spec: dict[str, Any]) -> None:
    spec["components"]["schemas"]["Owner"]["properties"]["age"] = {"type": "integer"}


def _rename_schema(spec: dict[str, Any]) -> None:
    text = json.dumps(spec).replace(REF + "Kind", REF + "Species")
    renamed = json.loads(text)
    schemas = renamed["components"]["schemas"]
    schemas["Species"] = schemas.pop("Kind")
    spec.clear()
    spec.update(renamed)


def _remove_schema(spec: dict[str, Any]) -> None:
    del spec["components"]["schemas"]["Unused"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("per-class")
    (where / "pyproject.toml").write_text(
        "[tool.spec-gen]\n"
        'spec = "openapi.json"\noutput = "generated"\n'
        f'templates = "{TEMPLATES.as_posix()}"\n'
        'server-package = "zoo_api"\nclient-package = "zoo_client"\n'
        'distribution-prefix = "zoo"\n',
        encoding="utf-8",
    )
    (where / "openapi.json").write_text(json.dumps(_spec(), indent=1), encoding="utf-8")
    build(load_config(where), echo=lambda _: None)
    return where


def _generated(stderr: str) -> tuple[int, int]:
    """`[timings] ... models: 3 of 12 classes generated (pid)` -> (3, 12)."""
    found = re.search(r"models: (\d+) of (\d+) classes generated", stderr)
    assert found, stderr
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize(
    "edit", [_add_operation, _add_field, _rename_schema, _remove_schema], ids=lambda f: f.__name__
)
def test_a_rebuild_generates_only_the_classes_an_edit_touches_and_writes_the_cold_build(
    project: Path, edit: Any, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The edits apply one after the other, each rebuilt from the previous build's cache."""
    spec_path = project / "openapi.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    edit(spec)
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    config = load_config(project)
    monkeypatch.setenv(ENV, "1")
    capfd.readouterr()
    assert build(config, echo=lambda _: None), "the edit changes the output"
    generated, classes = _generated(capfd.readouterr().err)
    monkeypatch.undo()
    cold = render_tree(config, None).files
    assert existing_files(config.output) == {n: t.encode("utf-8") for n, t in cold.items()}
    assert generated < classes, (generated, classes)
    if edit is not _remove_schema:  # a removed class leaves the others' pieces as they were
        assert generated > 0


def test_an_edit_undone_finds_every_class_in_the_cache(project: Path) -> None:
    document = named(_models_document(_spec()))
    cache = project / "undo-cache"
    first = generated_per_class(document, "# h", cache)
    edited = json.loads(json.dumps(document))
    edited["components"]["schemas"]["Owner"]["properties"]["age"] = {"type": "integer"}
    generated_per_class(edited, "# h", cache)
    kept = json.loads((cache / "classes.json").read_text(encoding="utf-8"))
    assert len(kept["builds"]) == 2
    # the first document again: every piece kept from the build before the last
    assert generated_per_class(document, "# h", cache) == first


def _models_document(spec: dict[str, Any]) -> dict[str, Any]:
    from spec_gen.ir import build_ir
    from spec_gen.targets.models.prepare import models_document

    return models_document(build_ir(spec))


def test_every_class_is_named_before_the_tool_runs() -> None:
    document = _models_document(_spec())
    schemas = document["components"]["schemas"]
    assert "PetBorn" in schemas and "OwnerName" in schemas and "EventOneOf0" in schemas
    assert json.dumps(schemas).count(REF + "Owner/") == 0
    source, _, _ = generated_per_class(document, "# h", None)
    defined = {s.name for s in ast.parse(source).body if isinstance(s, ast.ClassDef)}
    assert defined == set(schemas)


def test_a_module_with_a_class_the_tool_named_itself_is_not_split() -> None:
    source = "from pydantic import BaseModel\n\n\nclass A(BaseModel):\n    b: B1\n\n\nclass B1(BaseModel):\n    x: int\n"
    assert split(source, ["A"], []) is None
    pieces = split(source, ["A", "B1"], [])
    assert pieces is not None
    assert pieces["A"]["imports"] == [["pydantic", "BaseModel", None]]


def test_a_class_comes_after_the_classes_it_names_outside_a_cycle() -> None:
    document = _models_document(_spec())
    source, _, _ = generated_per_class(document, "# h", None)
    order = [s.name for s in ast.parse(source).body if isinstance(s, ast.ClassDef)]
    assert order.index("Kind") < order.index("Pet") < order.index("Node")
    assert order.index("OwnerName") < order.index("Pet")
    assert order.index("Email") < order.index("EventOneOf0") < order.index("Event")
    # every other statement calls on a class defined before it (`Node.model_rebuild()`)
    defined: set[str] = set()
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.ClassDef):
            defined.add(stmt.name)
        elif isinstance(stmt, ast.Expr):
            called = stmt.value.func.value  # type: ignore[attr-defined]
            assert called.id in defined, ast.unparse(stmt)


def test_a_document_whose_run_does_not_split_is_generated_whole(tmp_path: Path) -> None:
    """A map of constrained strings: the tool names an alias of its own for the values
    (`MAdditionalProperty = TypeAliasType(...)`), which no schema is; the module is the
    tool's, as written, and nothing is kept per class."""
    from spec_gen.targets.models.run import run_datamodel_codegen

    values = {"type": "string", "maxLength": 3}
    schemas = {
        "A": {
            "type": "object",
            "properties": {"m": {"type": "object", "additionalProperties": values}},
        }
    }
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "0"}, "paths": {}}
    document["components"] = {"schemas": schemas}
    whole = run_datamodel_codegen(document, "# h")
    assert "TypeAliasType" in whole[0]
    assert generated_per_class(document, "# h", tmp_path) == whole
    assert not (tmp_path / "classes.json").exists()
