"""The rendered units a rebuild reads back (targets/units.py): what their keys cover, and the
indented document assembled from kept pieces."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jinja2.meta
import pytest
from spec_gen.core.config import PACKAGED_TEMPLATES
from spec_gen.targets.render import environment
from spec_gen.targets.units import Fingerprints, Units, path_item

# what each unit's template reads: its key covers exactly these (the renderers' arguments);
# a template reading more (the whole `api`, another tag's views) must widen its key first
UNIT_TEMPLATES = {
    "api/interfaces/tag.py.j2": {"handler_credentials", "header", "models", "tag"},
    "api/routers/tag.py.j2": {"handler_credentials", "header", "models", "tag"},
    "client/resource.py.j2": {
        "header",
        "models",
        "op_models",
        "returns",  # a macro's own variable
        "root",
        "root_events",
        "root_literal",
        "root_overload",
        "root_stream",
        "views",
    },
    "docs/tag.md.j2": {"header_md", "md_text", "tag"},
    "docs/tag.html.j2": {"html_blocks", "tag"},
    "docs/blocks.md.j2": {"md_cell", "md_text"},
    "docs/blocks.html.j2": {"html_blocks", "html_text"},
}
IMPORTS = {"docs/tag.md.j2": "docs/blocks.md.j2", "docs/tag.html.j2": "docs/blocks.html.j2"}


@pytest.mark.parametrize("name", sorted(UNIT_TEMPLATES))
def test_a_unit_template_reads_only_the_variables_its_key_covers(name: str) -> None:
    env = environment(PACKAGED_TEMPLATES)
    source = (PACKAGED_TEMPLATES / name).read_text(encoding="utf-8")
    tree = env.parse(source)
    assert jinja2.meta.find_undeclared_variables(tree) == UNIT_TEMPLATES[name]
    assert set(jinja2.meta.find_referenced_templates(tree)) == (
        {IMPORTS[name]} if name in IMPORTS else set()
    )


def _document() -> dict[str, Any]:
    pet = {"$ref": "#/components/schemas/Pet"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1", "description": "The API."},
        "servers": [{"url": "https://a.example.com"}],
        "tags": [{"name": "pets", "description": "Pets."}],
        "paths": {
            "/pets": {
                "get": {
                    "summary": "List",
                    "description": "All pets.",
                    "responses": {"200": {"description": "OK", "content": {"j": {"schema": pet}}}},
                }
            },
            "/ping": {"get": {"description": "Ping.", "responses": {"204": {"description": "-"}}}},
        },
        "components": {
            "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "K"}},
            "schemas": {
                "Pet": {
                    "description": "A pet.",
                    "oneOf": [{"$ref": "#/components/schemas/Cat"}],
                    "discriminator": {"mapping": {"dog": "#/components/schemas/Dog"}},
                },
                "Cat": {"description": "A cat.", "type": "object"},
                "Dog": {"description": 'A dog "quoted" \\ .', "type": "object"},
                "Unused": {"description": "Nobody.", "type": "string"},
            },
        },
    }


def _edited(edit: Any) -> dict[str, Any]:
    document = copy.deepcopy(_document())
    edit(document)
    return document


def _pets(prints: Fingerprints) -> str:
    return prints.reach([path_item("/pets"), *prints.tag_nodes(["pets"])])


def _ping(prints: Fingerprints) -> str:
    return prints.reach([path_item("/ping")])


DESCRIPTIONS = {  # edit -> which units' own part it changes: (pets, ping)
    "operation": (lambda d: d["paths"]["/pets"]["get"].update(description="x"), (True, False)),
    "schema": (lambda d: d["components"]["schemas"]["Cat"].update(description="x"), (True, False)),
    "mapped": (lambda d: d["components"]["schemas"]["Dog"].update(description="x"), (True, False)),
    "unused": (lambda d: d["components"]["schemas"]["Unused"].update(description="x"), (0, 0)),
    "tag": (lambda d: d["tags"][0].update(description="x"), (True, False)),
    "ping": (lambda d: d["paths"]["/ping"]["get"].update(description="x"), (False, True)),
}


@pytest.mark.parametrize("what", sorted(DESCRIPTIONS))
def test_a_description_changes_only_the_units_that_reach_it(what: str) -> None:
    edit, (pets, ping) = DESCRIPTIONS[what]
    before, after = Fingerprints(_document()), Fingerprints(_edited(edit))
    assert before.narrow == after.narrow  # the part every docs page's key has
    assert (_pets(before) != _pets(after), _ping(before) != _ping(after)) == (pets, ping)


@pytest.mark.parametrize("where", ["first", "last", "only"])
def test_a_description_added_where_there_was_none_leaves_the_global_part(where: str) -> None:
    def add(document: dict[str, Any]) -> None:
        schemas = document["components"]["schemas"]
        if where == "only":
            schemas["Unused"] = {}
        old = schemas["Unused"]
        old.pop("description", None)
        if where == "first":
            schemas["Unused"] = {"description": "Added.", **old}
        else:
            old["description"] = "Added."

    def without(document: dict[str, Any]) -> None:
        add(document)
        del document["components"]["schemas"]["Unused"]["description"]

    assert Fingerprints(_edited(add)).narrow == Fingerprints(_edited(without)).narrow


# an edit -> whether it changes the document's part every docs page's key has (`narrow`); the
# others reach a unit's key through its own part (its nodes, its IR values: unit_keys.py)
NARROW = {
    "server": (lambda d: d["servers"][0].update(url="https://b.example.com"), True),
    "info description": (lambda d: d["info"].update(description="Edited."), True),
    "summary": (lambda d: d["paths"]["/pets"]["get"].update(summary="Listed"), False),
    "security scheme": (lambda d: d["components"]["securitySchemes"]["k"].update(name="L"), False),
    "schema type": (lambda d: d["components"]["schemas"]["Unused"].update(type="integer"), False),
    "path added": (lambda d: d["paths"].update({"/new": {}}), False),
    "tag added": (lambda d: d["tags"].append({"name": "new"}), False),
}


@pytest.mark.parametrize("what", sorted(NARROW))
def test_the_document_part_of_every_docs_key_leaves_out_paths_tags_and_components(
    what: str,
) -> None:
    edit, changes = NARROW[what]
    assert (Fingerprints(_document()).narrow != Fingerprints(_edited(edit)).narrow) == changes


def test_the_served_document_assembled_from_kept_pieces_is_jsons(tmp_path: Path) -> None:
    document = _document()
    document["paths"]["/ünïcode"] = {"get": {"description": 'é\n"x"', "responses": {}}}
    document["components"]["examples"] = {}
    first = Units(tmp_path, "context")
    assert first.document_json(document) == json.dumps(document, indent=2, ensure_ascii=False)
    first.save()
    edited = _edited(DESCRIPTIONS["operation"][0])
    again = Units(tmp_path, "context")
    assert again.document_json(edited) == json.dumps(edited, indent=2, ensure_ascii=False)
    assert Units(None).document_json(edited) == json.dumps(edited, indent=2, ensure_ascii=False)


def test_a_unit_is_read_back_by_its_key_and_kept_for_two_builds(tmp_path: Path) -> None:
    renders: list[str] = []

    def render(text: str) -> Any:
        return lambda: renders.append(text) or text

    builds = []
    for used in (["a"], ["a", "b"], ["b"], ["c"]):  # each build's units
        units = Units(tmp_path)
        assert [units.text("k", key, render(key.upper())) for key in used] == [
            key.upper() for key in used
        ]
        units.save()
        builds.append(units.summary())
    assert renders == ["A", "B", "C"]  # each rendered once, then read back
    assert builds == ["k 1 of 1", "k 1 of 2", "k 0 of 1", "k 1 of 1"]
    # kept: what the last two builds used (b, c); a, used two builds before, removed
    last = Units(tmp_path)
    assert [last.kept("a"), last.kept("b"), last.kept("c")] == [None, "B", "C"]
