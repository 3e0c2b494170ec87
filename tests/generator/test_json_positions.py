"""Positions in a JSON file are found by walking its text (ruamel, which reads JSON as
flow-style YAML in pure Python, took 12 s on GitHub's 3 MB REST description to place 3
warnings): the same line and column as ruamel gives, for every node, on indented and on
minified JSON, with escaped keys and pointers that run past the document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from spec_gen.positions import JsonPositions, SourceMap
from spec_helpers import line_of, run_in, write

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "T", "version": "1"},
    "paths": {
        "/a/{id}": {
            "get": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok", "content": {}}},
            }
        }
    },
    "components": {
        "schemas": {
            'quote"d': {"type": "object", "properties": {"é": {"type": "string"}}},
            "slash/key": {"enum": [1, 2.5, None, True, "x", [], {}]},
            "Empty": {},
        }
    },
}


def _pointers(node: Any, tokens: list[str]) -> list[list[str]]:
    found = [tokens]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _pointers(value, [*tokens, key])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _pointers(value, [*tokens, str(index)])
    return found


@pytest.mark.parametrize("indent", [2, None, "\t"], ids=["indented", "minified", "tabs"])
def test_every_node_is_where_ruamel_puts_it(indent: int | str | None) -> None:
    text = json.dumps(DOCUMENT, indent=indent, ensure_ascii=False)
    ruamel_tree = YAML(typ="rt").load(text)
    positions = JsonPositions(text)
    pointers = _pointers(DOCUMENT, [])
    pointers += [[*p, "missing"] for p in pointers] + [[*p, "7"] for p in pointers]
    for tokens in pointers:
        want = SourceMap.position_in(ruamel_tree, tokens)
        assert positions.position(tokens) == want, tokens


def test_text_that_is_not_json_is_read_as_yaml(tmp_path: Path) -> None:
    path = write(tmp_path / "flow.yaml", "{a: {b: 1}, c: [x, y]}\n")  # flow YAML, not JSON
    tree = SourceMap.read_tree(path)
    assert not isinstance(tree, JsonPositions)
    assert SourceMap.position_in(tree, ["c", "1"]) == (1, 20)  # the `y`


def test_a_finding_in_a_json_spec_names_its_line(tmp_path: Path) -> None:
    document = json.loads(json.dumps(DOCUMENT))
    document["components"]["schemas"]["Empty"] = {"type": "string", "default": 3}
    text = json.dumps(document, indent=2)
    write(tmp_path / "openapi.json", text)
    code, out = run_in(tmp_path, "validate", "openapi.json")
    assert code == 0, out
    line = line_of(text, '"default": 3')
    assert f"openapi.json:{line}:" in out and "[default]" in out, out
