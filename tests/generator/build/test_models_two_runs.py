"""A cold models step in two processes at once (build/models_parts.py): the module is the
one-run module byte for byte, each part made by its own process; a document whose module
would not split (the tool names a class itself: named.tool_names_some) is made in one run,
and a wrong guess still falls back to it."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from spec_gen.build import models_parts
from spec_gen.build.models_cache import closure, dependencies, generated_per_class
from spec_gen.build.models_parts import two_parts
from spec_gen.build.pipeline import render_tree
from spec_gen.build.worker import ForkedWorker
from spec_gen.core.config import load_config
from spec_gen.core.timings import ENV
from spec_gen.targets.models import named as named_module
from spec_gen.targets.models.named import tool_names_some
from spec_gen.targets.models.pieces import split
from spec_gen.targets.models.run import run_datamodel_codegen

TEMPLATES = Path(__file__).parents[3] / "templates"
REF = "#/components/schemas/"
TWO_RUNS = "SPEC_GEN_MODELS_TWO_RUNS"


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": sorted(properties)[:1], "properties": properties}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": REF + name}


def _groups() -> dict[str, Any]:
    """Schemas in four groups naming nothing of each other."""
    return {
        # a class naming two others
        "Kind": {"type": "string", "enum": ["cat", "dog"]},
        "Owner": _object(name={"type": "string", "maxLength": 40}),
        "Pet": _object(name={"type": "string"}, kind=_ref("Kind"), owner=_ref("Owner")),
        # a cycle: the tool's own model_rebuild()
        "Node": _object(children={"type": "array", "items": _ref("Node")}, leaf=_ref("Leaf")),
        "Leaf": _object(size={"type": "integer", "minimum": 0}),
        # a union with a discriminator, members with a tag
        "Email": _object(kind={"const": "email"}, to={"type": "string"}),
        "Sms": _object(kind={"const": "sms"}, number={"type": "string"}),
        "Message": {
            "oneOf": [_ref("Email"), _ref("Sms")],
            "discriminator": {"propertyName": "kind"},
        },
        # a chain, one member constrained
        "Money": {"type": "string", "pattern": "^[0-9]+$"},
        "Line": _object(
            price=_ref("Money"), note={"anyOf": [{"type": "string"}, {"type": "null"}]}
        ),
        "Order": _object(lines={"type": "array", "items": _ref("Line")}, at={"type": "string"}),
    }


def _spec(schemas: dict[str, Any]) -> dict[str, Any]:
    def op(op_id: str, schema: str) -> dict[str, Any]:
        body = {"content": {"application/json": {"schema": _ref(schema)}}}
        return {"operationId": op_id, "responses": {"200": {"description": "OK.", **body}}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "Groups", "version": "1"},
        "paths": {f"/{n.lower()}": {"get": op(f"get_{n.lower()}", n)} for n in schemas},
        "components": {"schemas": schemas},
    }


def _models_document(schemas: dict[str, Any]) -> dict[str, Any]:
    from spec_gen.ir import build_ir
    from spec_gen.targets.models.prepare import models_document

    return models_document(build_ir(_spec(schemas)))


def _runs(stderr: str) -> set[str]:
    """The processes a `models: generate` ran in."""
    return set(re.findall(r"models: generate \((\d+)\)", stderr))


def test_two_runs_at_once_write_the_module_of_one_run(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    document = _models_document(_groups())
    monkeypatch.setenv(ENV, "1")
    monkeypatch.setenv(TWO_RUNS, "100000")
    capfd.readouterr()
    one = generated_per_class(document, "# h", None)
    assert len(_runs(capfd.readouterr().err)) == 1
    monkeypatch.setenv(TWO_RUNS, "2")
    two = generated_per_class(document, "# h", None)
    err = capfd.readouterr().err
    found = re.search(r"two runs at once, (\d+) \+ (\d+) classes", err)
    assert found, err
    schemas = document["components"]["schemas"]
    assert int(found.group(1)) + int(found.group(2)) == len(schemas)
    assert len(_runs(err)) == 2, err  # this process and a forked one
    assert two == one


def test_a_cold_build_through_two_runs_writes_the_one_run_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.spec-gen]\n"
        'spec = "openapi.json"\noutput = "generated"\n'
        f'templates = "{TEMPLATES.as_posix()}"\n'
        'server-package = "groups_api"\nclient-package = "groups_client"\n'
        'distribution-prefix = "groups"\n',
        encoding="utf-8",
    )
    (tmp_path / "openapi.json").write_text(json.dumps(_spec(_groups())), encoding="utf-8")
    config = load_config(tmp_path)
    monkeypatch.setenv(TWO_RUNS, "100000")
    one = render_tree(config, None).files
    monkeypatch.setenv(TWO_RUNS, "2")
    two = render_tree(config, None).files
    assert two == one


def test_the_parts_are_closed_apart_and_balanced() -> None:
    document = _models_document(_groups())
    schemas = document["components"]["schemas"]
    graph = dependencies(schemas)
    names = list(schemas)
    assert two_parts(names, schemas, graph) is None  # fewer than TWO_RUNS_FROM classes
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(models_parts, "TWO_RUNS_FROM", 2)
        parts = two_parts(names, schemas, graph)
        assert parts is not None
        first, second = parts
        assert not set(first) & set(second)
        assert set(first) | set(second) == set(names)
        for part in parts:
            assert closure(part, graph) == set(part)
            assert part == [n for n in names if n in part]  # the document's order
        # one group most of the document: one run
        big = {f"Big{i}": _object(next=_ref(f"Big{i + 1}")) for i in range(40)}
        big["Big40"] = _object(size={"type": "integer"})
        lopsided = {**big, "Alone": _object(x={"type": "string"})}
        graph = dependencies(lopsided)
        assert two_parts(list(lopsided), lopsided, graph) is None


# what the tool still names itself (models documents: after the IR and named.py), each seen
# in a corpus document
_NAMED_BY_THE_TOOL = {
    # OpenAI: an array's items a constrained array (`PromptItem`)
    "constrained items": {
        "Prompt": {
            "type": "array",
            "items": {"type": "array", "minItems": 1, "items": {"type": "integer"}},
        }
    },
    # Box: an allOf member's property that is an allOf of inline objects (`Permissions`)
    "inline allOf": {
        "Base": _object(id={"type": "string"}),
        "Full": {
            "allOf": [
                _ref("Base"),
                {
                    "properties": {
                        "permissions": {
                            "allOf": [
                                {
                                    "type": "object",
                                    "allOf": [_object(a={"type": "boolean"})],
                                    "properties": {"b": {"type": "boolean"}},
                                }
                            ]
                        }
                    }
                },
            ]
        },
    },
    # Discord: a map of constrained strings in a union member (a type alias)
    "constrained map value": {
        "Option": _object(
            names={
                "anyOf": [
                    {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
                    {"type": "null"},
                ]
            }
        )
    },
}


@pytest.mark.parametrize("schemas", _NAMED_BY_THE_TOOL.values(), ids=list(_NAMED_BY_THE_TOOL))
def test_a_document_the_tool_names_a_class_of_is_made_in_one_run(
    schemas: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    document = _models_document(_groups())
    document["components"]["schemas"].update(schemas)
    named = document["components"]["schemas"]
    whole = run_datamodel_codegen(document, "# h")
    assert split(whole[0], list(named), whole[1]) is None  # the tool named a class itself
    assert tool_names_some(named)
    monkeypatch.setenv(ENV, "1")
    monkeypatch.setenv(TWO_RUNS, "2")
    capfd.readouterr()
    assert generated_per_class(document, "# h", tmp_path) == whole
    err = capfd.readouterr().err
    assert "two runs" not in err and err.count("models: generate (") == 1, err  # the whole
    # guessed wrong: the parts do not split, the whole is made after them
    monkeypatch.setattr(named_module, "tool_names_some", lambda _: False)
    assert generated_per_class(document, "# h", tmp_path) == whole
    err = capfd.readouterr().err
    # a part at least (the other's process is stopped once one does not split), the whole
    assert "two runs" not in err and err.count("models: generate (") >= 2, err
    assert not (tmp_path / "classes.json").exists()


def test_a_document_of_named_classes_only_is_predicted_to_split() -> None:
    document = _models_document(_groups())
    named = document["components"]["schemas"]
    source, notes, _ = run_datamodel_codegen(document, "# h")
    assert split(source, list(named), notes) is not None
    assert not tool_names_some(named)


def _two_slow_parts(where: str) -> None:
    def part(names: list[str]) -> dict[str, Any]:
        (Path(where) / str(os.getpid())).write_text(names[0], encoding="utf-8")
        time.sleep(60)
        return {}

    models_parts.run_in_two(part, (["mine"], ["theirs"]))


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_the_forked_run_ends_with_the_models_worker(tmp_path: Path) -> None:
    """A build stopped early kills the models worker (ForkedWorker.close): its forked run
    does not go on alone."""
    with ForkedWorker() as worker:
        worker.submit(_two_slow_parts, str(tmp_path))
        deadline = time.monotonic() + 20
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        runs = {int(p.name): p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
        assert sorted(runs.values()) == ["mine", "theirs"]
        forked = next(pid for pid, part in runs.items() if part == "theirs")
        assert forked != worker.pid and _alive(forked)
    deadline = time.monotonic() + 5
    while _alive(forked) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(forked)


def test_a_ref_with_a_required_of_its_own_is_named_first_and_the_module_splits() -> None:
    """Lago: `add_on: {$ref: AddOnBaseInput, required: [...]}` is a copy of the class it
    names with those fields required; the tool named it after the property (`AddOn`) and
    the schema `AddOn` became `AddOn1`, so the routes answering `AddOn` answered the copy.
    named.py names it after where it sits; every class is a schema's, the module splits."""
    base = {"type": "object", "properties": {"name": {"type": "string"}}}
    schemas = {
        "AddOnBaseInput": base,
        "AddOnObject": _object(id={"type": "string"}),
        "AddOn": _object(add_on=_ref("AddOnObject")),
        "AddOnCreateInput": _object(add_on={**_ref("AddOnBaseInput"), "required": ["name"]}),
    }
    document = _models_document(schemas)
    named = document["components"]["schemas"]
    assert not tool_names_some(named)
    source, notes, _ = run_datamodel_codegen(document, "# h")
    pieces = split(source, list(named), notes)
    assert pieces is not None
    assert "add_on: AddOnObject" in pieces["AddOn"]["text"]
    copy = pieces["AddOnCreateInputAddOn"]["text"]
    assert "name: str\n" in copy + "\n", copy  # required in the copy, optional in the base
    assert "add_on: AddOnCreateInputAddOn" in pieces["AddOnCreateInput"]["text"]
