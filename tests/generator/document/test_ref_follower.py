"""The one `$ref` follower (document/refs.py) every layer uses: its rules for a chain, a
loop, keys beside a ref, percent-encoded and RFC 6901-escaped pointers, and a ref that
points at nothing."""

from __future__ import annotations

from typing import Any

import pytest
from spec_gen.document.refs import MAX_HOPS, DanglingRef, deref, follow, ref_loops, ref_pointer

DOCUMENT: dict[str, Any] = {
    "components": {
        "schemas": {
            "Pet": {"type": "object", "description": "a pet"},
            "Alias": {"$ref": "#/components/schemas/Pet", "description": "an alias"},
            "Error Body": {"type": "string"},
            "a/b~c": {"type": "integer"},
            "Loop": {"$ref": "#/components/schemas/Loop2"},
            "Loop2": {"$ref": "#/components/schemas/Loop"},
            "Flag": True,
        }
    }
}


def test_a_chain_is_followed_to_its_end_with_the_last_ref() -> None:
    node, ref = follow(DOCUMENT, {"$ref": "#/components/schemas/Alias"})
    assert node == {"type": "object", "description": "a pet"}
    assert ref == "#/components/schemas/Pet"
    assert follow(DOCUMENT, {"type": "string"}) == ({"type": "string"}, None)


def test_keys_beside_a_ref_are_laid_over_its_target_only_when_merged() -> None:
    node = {"$ref": "#/components/schemas/Alias", "title": "mine"}
    assert deref(DOCUMENT, node) == {"type": "object", "description": "a pet"}
    merged = deref(DOCUMENT, node, siblings="merge")
    # each step lays its own keys over its target: the nearest ref's keys win
    assert merged == {"type": "object", "description": "an alias", "title": "mine"}


def test_pointers_are_percent_decoded_then_read_as_rfc_6901() -> None:
    assert ref_pointer("#/components/schemas/Error%20Body") == "/components/schemas/Error Body"
    assert ref_pointer("other.yaml#/x") is None
    assert deref(DOCUMENT, {"$ref": "#/components/schemas/Error%20Body"}) == {"type": "string"}
    assert deref(DOCUMENT, {"$ref": "#/components/schemas/Error Body"}) == {"type": "string"}
    assert deref(DOCUMENT, {"$ref": "#/components/schemas/a~1b~0c"}) == {"type": "integer"}
    assert deref(DOCUMENT, {"$ref": "#/components/schemas/a%7E1b%7E0c"}) == {"type": "integer"}


def test_a_dangling_ref_is_empty_or_raises() -> None:
    for ref in ("#/components/schemas/Nowhere", "other.yaml#/Pet", "#/components/schemas/Pet/x/1"):
        assert deref(DOCUMENT, {"$ref": ref}) == {}
    assert deref(DOCUMENT, {"$ref": "#/nowhere", "title": "t"}, siblings="merge") == {"title": "t"}
    with pytest.raises(DanglingRef, match="points at nothing"):
        deref(DOCUMENT, {"$ref": "#/components/schemas/Nowhere"}, missing="raise")


def test_a_loop_stops_after_the_hop_limit() -> None:
    node, _ = follow(DOCUMENT, {"$ref": "#/components/schemas/Loop"})
    assert isinstance(node, dict) and "$ref" in node  # still a ref: the `ref` rule names the loop
    assert ref_loops(DOCUMENT, "#/components/schemas/Loop")
    assert not ref_loops(DOCUMENT, "#/components/schemas/Alias")
    chain: dict[str, Any] = {f"S{n}": {"$ref": f"#/S{n + 1}"} for n in range(MAX_HOPS + 1)}
    chain[f"S{MAX_HOPS + 1}"] = {"type": "string"}
    assert deref(chain, {"$ref": "#/S2"}) == {"type": "string"}  # MAX_HOPS refs in a row
    assert deref(chain, {"$ref": "#/S1"}) == {"$ref": f"#/S{MAX_HOPS + 1}"}  # one more: stopped


def test_a_boolean_schema_is_what_the_chain_ends_at() -> None:
    assert deref(DOCUMENT, {"$ref": "#/components/schemas/Flag"}) is True
