"""A build's cache of parsed YAML files (read.read_yaml's `parsed`): a file whose text was
parsed before is not parsed again, what is handed out is the build's own copy, and what
cannot be kept as JSON is not kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_gen.document import read
from spec_gen.document.load import bundle


def test_a_file_parsed_before_is_read_from_the_cache_as_a_fresh_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "a.yaml"
    spec.write_text("a: 1\nb: [x, {c: 2021-01-01}]\n")
    parsed: dict[str, str] = {}
    first = read.read_yaml(spec, parsed)
    assert first == {"a": 1, "b": ["x", {"c": "2021-01-01"}]}
    assert len(parsed) == 1
    first["b"].append("changed by the build")  # the bundle's repairs change what it read

    def no_parse(path: Path, text: str) -> None:
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr(read, "_parse", no_parse)
    again = read.read_yaml(spec, parsed)
    assert again == {"a": 1, "b": ["x", {"c": "2021-01-01"}]}
    # another text is another key: parsed, not taken from the cache
    spec.write_text("a: 2\n")
    with pytest.raises(AssertionError, match="parsed again"):
        read.read_yaml(spec, parsed)


def test_anchors_json_and_refused_files_are_not_kept(tmp_path: Path) -> None:
    parsed: dict[str, str] = {}
    anchored = tmp_path / "anchored.yaml"
    anchored.write_text("base: &b {x: 1}\nuse: *b\n")
    value = read.read_yaml(anchored, parsed)
    assert value["use"] is value["base"]  # the alias shares its mapping, as ruamel makes it
    as_json = tmp_path / "doc.json"
    as_json.write_text('{"a": 1}')
    assert read.read_yaml(as_json, parsed) == {"a": 1}
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * (read.MAX_DEPTH + 5) + "]" * (read.MAX_DEPTH + 5) + "\n")
    with pytest.raises(read.SpecError, match="levels deep"):
        read.read_yaml(deep, parsed)
    assert parsed == {}


def test_a_bundle_from_the_cache_is_the_bundle_without_it(tmp_path: Path) -> None:
    (tmp_path / "openapi.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n"
        "  /things:\n    $ref: paths.yaml#/things\n"
        "components:\n  schemas:\n    Thing: {$ref: 'schemas.yaml#/Thing'}\n"
    )
    (tmp_path / "paths.yaml").write_text(
        "things:\n  get:\n    responses:\n      '200':\n        description: ok\n"
        "        content:\n          application/json:\n"
        "            schema: {$ref: 'schemas.yaml#/Thing'}\n"
    )
    (tmp_path / "schemas.yaml").write_text(
        "Thing:\n  type: object\n  nullable: true\n  properties:\n"
        "    n: {type: integer, example: 3}\n"
    )
    parsed: dict[str, str] = {}
    cold = bundle(tmp_path / "openapi.yaml", parsed=parsed)
    assert len(parsed) == 3
    warm = bundle(tmp_path / "openapi.yaml", parsed=parsed)
    plain = bundle(tmp_path / "openapi.yaml")
    assert warm.document == cold.document == plain.document
    assert warm.repairs == plain.repairs and warm.moved == plain.moved
    # the 3.0 document was upgraded in place: the cache still holds what the files say
    assert any('"nullable": true' in v for v in parsed.values())
