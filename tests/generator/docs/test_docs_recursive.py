"""Docs of recursive schemas that are not objects: a union, array or map of themselves."""

from __future__ import annotations

from typing import Any

from spec_gen.docs import DocsSettings, build_site
from spec_gen.docs.schemas import field_tables, type_text
from spec_gen.ir import build_ir


def _document(schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/things": {
                "get": {
                    "operationId": "list_things",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Report"}
                                }
                            },
                        },
                        "400": {
                            "description": "bad",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Report"}
                                }
                            },
                        },
                    },
                }
            }
        },
        "components": {"schemas": schemas},
    }


# A tree of error details: each key maps to more details or to a leaf object.
TREE = {
    "Leaf": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
    "Details": {
        "oneOf": [
            {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Details"}},
            {"$ref": "#/components/schemas/Leaf"},
        ]
    },
    # an array of itself or a string
    "Nested": {
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"$ref": "#/components/schemas/Nested"}},
        ]
    },
    "Report": {
        "type": "object",
        "properties": {
            "errors": {"$ref": "#/components/schemas/Details"},
            "path": {"$ref": "#/components/schemas/Nested"},
        },
    },
}


def test_a_union_of_a_map_of_itself_is_named_where_it_comes_back() -> None:
    api = build_ir(_document(TREE))
    text = type_text(api, {"$ref": "#/components/schemas/Details"})
    assert text == "map of string to `Details` or `Leaf`"
    nested = type_text(api, {"$ref": "#/components/schemas/Nested"})
    assert nested == "string or array of `Nested`"


def test_field_tables_reach_the_objects_of_a_recursive_union_once() -> None:
    api = build_ir(_document(TREE))
    tables = field_tables(api, {"$ref": "#/components/schemas/Report"}, "Report")
    assert [t.title for t in tables] == ["Report", "Leaf"]
    rows = {row[0]: row[1] for row in tables[0].rows}
    assert rows == {
        "`errors`": "map of string to `Details` or `Leaf`",
        "`path`": "string or array of `Nested`",
    }


def test_an_all_of_cycle_merges_each_member_once() -> None:
    schemas = {
        "A": {
            "allOf": [{"$ref": "#/components/schemas/B"}],
            "properties": {"a": {"type": "string"}},
        },
        "B": {
            "allOf": [{"$ref": "#/components/schemas/A"}],
            "properties": {"b": {"type": "integer"}},
        },
        "Report": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}},
    }
    api = build_ir(_document(schemas))
    tables = field_tables(api, {"$ref": "#/components/schemas/A"}, "A")
    assert [row[0] for row in tables[0].rows] == ["`a`", "`b`"]


def test_the_whole_site_builds_for_a_recursive_union() -> None:
    api = build_ir(_document(TREE))
    site = build_site(api, DocsSettings(client_package="t_client", env_prefix="T_"))
    assert [doc.anchor for tag in site.tags for doc in tag.operations] == ["list_things"]
    assert "map of string to `Details` or `Leaf`" in repr(site.tags)
