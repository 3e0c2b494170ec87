"""Where a finding's node was written. ruamel's round-trip loader, which placed them before,
is pure Python (12 to 14 s on GitHub's 3 MB REST description, JSON or YAML, to place 3
warnings); a JSON file is now walked along the pointers, a YAML file composed by the C
parser. Both must give the line and column the round-trip loader gave, for every node:
indented, minified and tab-indented JSON with escaped keys; YAML with anchors, merge keys,
flow collections, block scalars, comments and non-ASCII text; pointers that run past the
document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from spec_gen.document.positions import JsonPositions, SourceMap, YamlPositions
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
            found += _pointers(value, [*tokens, str(key)])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _pointers(value, [*tokens, str(index)])
    return found


def _round_trip_position(tree: Any, tokens: list[str]) -> tuple[int, int] | None:
    """The line and column ruamel's round-trip loader gives (what spec-gen used before);
    None for a key a merge brings, which it has no position for."""
    node, line, column = tree, 1, 1
    for token in tokens:
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            line, column = (x + 1 for x in node.lc.item(int(token)))
            node = node[int(token)]
        elif isinstance(node, dict) and (key := next((k for k in node if str(k) == token), None)):
            try:
                line, column = (x + 1 for x in node.lc.key(key))
            except KeyError:
                return None
            node = node[key]
        else:
            break
    return line, column


def _same_as_round_trip(tree: JsonPositions | YamlPositions, text: str) -> None:
    reference = YAML(typ="rt").load(text)
    pointers = _pointers(reference, [])
    pointers += [[*p, "missing"] for p in pointers] + [[*p, "7"] for p in pointers]
    compared = 0
    for tokens in pointers:
        if (want := _round_trip_position(reference, tokens)) is not None:
            assert tree.position(tokens) == want, tokens
            compared += 1
    assert compared > len(pointers) // 2


@pytest.mark.parametrize("indent", [2, None, "\t"], ids=["indented", "minified", "tabs"])
def test_json_nodes_are_where_the_round_trip_loader_put_them(indent: int | str | None) -> None:
    text = json.dumps(DOCUMENT, indent=indent, ensure_ascii=False)
    _same_as_round_trip(JsonPositions(text), text)


YAML_TEXT = """\
# a comment
openapi: 3.1.0
info: {title: "Té", version: '1'}
paths:
  /a/{id}:
    get:
      description: |
        Several lines,
        é and 中文.
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        -   name: q   # odd indentation
            in: query
            schema: &text {type: string, maxLength: 3}
      responses:
        200: {description: ok}
components:
  schemas:
    Base: &base
      type: object
      properties: {a: *text}
    Derived:
      <<: *base
      description: merged
    List:
      - [1, 2, {x: y}]
      - >-
        folded
"""


def test_yaml_nodes_are_where_the_round_trip_loader_put_them() -> None:
    tree = YamlPositions(YAML_TEXT)
    _same_as_round_trip(tree, YAML_TEXT)
    # a key a merge brings is placed at that key in the mapping it comes from
    assert tree.position(["components", "schemas", "Derived", "type"]) == (
        line_of(YAML_TEXT, "type: object"),
        7,
    )


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
