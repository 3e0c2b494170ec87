"""The findings located in the validator's worker (build/located.py): the positions it finds
are the ones the build's own process would find, and the pointers only the build's process
looked up are given to the next build's worker, and stay so."""

from __future__ import annotations

import json
from pathlib import Path

from spec_gen.build.located import locate, remember_unlocated, rules_in_worker, to_locate
from spec_gen.document.load import bundle
from spec_gen.lint.findings import RawFinding
from spec_gen.lint.profiles import ruleset
from spec_gen.lint.validate import locate_findings, validate_bundle

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "T", "version": "1"},
    "paths": {
        "/a": {
            "get": {
                "operationId": "a",
                "parameters": [
                    {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "OK."}},
            }
        }
    },
    "components": {"schemas": {"A": {"type": "object"}}},
}


def test_the_workers_positions_are_the_ones_the_build_finds(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC, indent=2), encoding="utf-8")
    spec_bundle = bundle(spec)
    rules = ruleset(None)
    raw = validate_bundle(spec_bundle, rules)
    assert raw  # the Accept header parameter is ignored: a warning at its node
    found, known = rules_in_worker(spec_bundle, rules, ["/components/schemas/A"])
    assert found is not None and {f.pointer for f in found} <= set(known)
    assert (
        known["/components/schemas/A"]
        == locate(spec_bundle, ["/components/schemas/A"])["/components/schemas/A"]
    )
    alone = locate_findings(spec_bundle, raw, tmp_path)
    assert locate_findings(spec_bundle, raw, tmp_path, None, known) == alone
    assert locate_findings(spec_bundle, raw, tmp_path, None, {}) == alone


def test_the_pointers_the_build_located_itself_are_given_to_the_next_worker(
    tmp_path: Path,
) -> None:
    raw = [RawFinding("/a", "models", "x"), RawFinding("/b", "models", "y")]
    origin = (tmp_path / "spec.json", 1, 1)
    assert to_locate(tmp_path, ["/r"]) == ["/r"]  # no record yet
    remember_unlocated(tmp_path, raw, {"/a": origin})  # /b located by the build's process
    assert to_locate(tmp_path, ["/r"]) == ["/r", "/b"]
    # the next build's worker located /b: it stays given (not dropped, then missed again)
    remember_unlocated(tmp_path, raw, {"/a": origin, "/b": origin})
    assert to_locate(tmp_path, []) == ["/b"]
    remember_unlocated(tmp_path, raw[:1], {"/a": origin})  # /b found no more
    assert to_locate(tmp_path, []) == []
    assert to_locate(None, ["/r"]) == ["/r"]
