"""The OpenAPI facts every layer reads live in `document/openapi.py`, once: no module spells
out a component schema's `$ref` prefix or defines its own name maps, data keys or component
kinds; and the IR reads the document's name maps as the bundler and the lint rules do."""

from __future__ import annotations

import ast
from pathlib import Path

from spec_gen.document import openapi
from spec_gen.ir.schemas import rewrite_refs

GENERATOR = Path(__file__).resolve().parents[3] / "generator" / "spec_gen"
FACTS = {"NAME_MAPS", "NAME_KEYS", "DATA_KEYS", "SCHEMA_REF", "_SCHEMA_REF", "COMPONENT_KINDS"}
# the docs and the Python client build `$ref`s to a model with f-strings; both packages were
# being reworked at the same time as this move, so they are left to their own changes
NOT_YET = ("docs", "targets/client")


def test_the_facts_are_defined_once() -> None:
    defined: list[str] = []
    spelled: list[str] = []
    for path in sorted(GENERATOR.rglob("*.py")):
        if path.name == "openapi.py" and path.parent.name == "document":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in FACTS:
                        defined.append(f"{path.relative_to(GENERATOR)}: {target.id}")
            if (
                isinstance(node, ast.Constant)
                and node.value == "#/components/schemas/"
                and not str(path.relative_to(GENERATOR)).startswith(NOT_YET)
            ):
                spelled.append(f"{path.relative_to(GENERATOR)}:{node.lineno}")
    assert defined == [] and spelled == []


def test_the_name_maps_hold_every_map_of_names() -> None:
    assert set(openapi.COMPONENT_KINDS) <= openapi.NAME_MAPS
    assert set(openapi.SCHEMA_MAPS) <= openapi.NAME_MAPS
    # the five the IR's own copy lacked
    assert {"securitySchemes", "variables", "mapping", "scopes", "paths"} <= openapi.NAME_MAPS
    assert len(openapi.NAME_MAPS) == 22
    assert openapi.SCHEMA_DATA_KEYWORDS - openapi.DATA_KEYS == {"examples"}


def test_the_ir_renames_refs_under_every_map_of_names() -> None:
    """The IR's copy of the name maps lacked `paths`, `securitySchemes`, `variables`,
    `mapping` and `scopes`: an `x-` key under one was read as an extension and its `$ref`s
    left at the old class name, while the bundler (which reads the same key as a name)
    had followed them. Unified, the IR renames them too; a real extension, outside a map of
    names, is still left as written."""
    renames = {"None": "NoneModel"}
    old = {"$ref": "#/components/schemas/None"}
    document = {
        "paths": {"x-internal": {"get": {"responses": {"200": {"schema": dict(old)}}}}},
        "x-extension": {"schema": dict(old)},
    }
    out = rewrite_refs(document, renames)
    assert out["paths"]["x-internal"]["get"]["responses"]["200"]["schema"] == {
        "$ref": "#/components/schemas/NoneModel"
    }
    assert out["x-extension"] == {"schema": old}
