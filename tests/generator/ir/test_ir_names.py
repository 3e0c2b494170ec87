"""Names the IR chooses for what real specs contain: every one a valid, unique identifier that
shadows nothing the generated modules use."""

from __future__ import annotations

import keyword
from typing import Any

from spec_gen.ir import build_ir


def doc(paths: dict[str, Any], schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas or {}},
    }


def op(**extra: Any) -> dict[str, Any]:
    return {"responses": {"200": {"description": "ok"}}, **extra}


def test_tag_modules_and_protocols_never_clash() -> None:
    api = build_ir(
        doc(
            {
                "/a": {"get": op(tags=["class"])},
                "/b": {"get": op(tags=["Class"])},
                "/c": {"get": op(tags=["pet"])},
            },
            {"PetApi": {"type": "object"}},
        )
    )
    modules = [t.module for t in api.tags]
    assert len(set(modules)) == 3 and not any(keyword.iskeyword(m) for m in modules)
    pet = next(t for t in api.tags if t.name == "pet")
    assert pet.class_name + "Api" != "PetApi"


def test_operation_handlers_never_shadow_the_routers_names() -> None:
    api = build_ir(
        doc({f"/{name}": {"get": op(operationId=name)} for name in ("transport", "router", "list")})
    )
    assert [o.python_name for o in api.operations] == ["transport_", "router_", "list_"]


def test_parameters_keep_clear_of_handler_locals_and_path_placeholders() -> None:
    params = [
        {"name": "Context", "in": "header", "schema": {"type": "string"}},
        {"name": "result", "in": "query", "schema": {"type": "string"}},
        {"name": "id", "in": "query", "schema": {"type": "string", "default": "x"}},
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
    ]
    api = build_ir(doc({"/things/{id}": {"post": op(parameters=params)}}))
    names = {(p.name, p.location): p.py_name for p in api.operations[0].params}
    assert names == {
        ("Context", "header"): "context_",
        ("result", "query"): "result_",
        ("id", "query"): "id_query",
        ("id", "path"): "id_",
    }


def test_schema_names_are_safe_classes_bound_to_their_pointer() -> None:
    api = build_ir(
        doc({}, {"Response": {"type": "object"}, "a.b-c": {"type": "object"}, "Field": {}})
    )
    assert api.class_names == {"Response": "ResponseModel", "a.b-c": "ABC", "Field": "FieldModel"}
    assert api.schema_pointers["ABC"] == "/components/schemas/a.b-c"


def test_defaults_that_do_not_fit_are_dropped_and_path_defaults_ignored() -> None:
    params = [
        {"name": "n", "in": "query", "schema": {"type": "string", "default": 1}},
        {"name": "k", "in": "path", "required": True, "schema": {"type": "string", "default": "a"}},
        {"name": "m", "in": "query", "schema": {"type": "integer", "default": 3}},
    ]
    api = build_ir(doc({"/x/{k}": {"get": op(parameters=params)}}))
    defaults = {p.name: p.default for p in api.operations[0].params}
    assert repr(defaults["n"]) == "MISSING" and repr(defaults["k"]) == "MISSING"
    assert defaults["m"] == 3


def test_operation_ids_without_latin_words_are_named_after_method_and_path() -> None:
    # an operationId in Chinese (`获取用户`) has no word a Python name keeps: its handler was
    # `value`, the next one `value2`; now the method and path name it, the id stays as written
    api = build_ir(
        doc(
            {
                "/users": {"get": op(operationId="获取用户"), "post": op(operationId="创建用户")},
                "/users/{id}": {
                    "get": op(
                        operationId="获取",
                        parameters=[{"name": "id", "in": "path", "required": True, "schema": {}}],
                    )
                },
                "/orders": {"get": op(operationId="listOrders")},
            }
        )
    )
    names = {o.operation_id: o.python_name for o in api.operations}
    assert names == {
        "获取用户": "get_users",
        "创建用户": "post_users",
        "获取": "get_users_id",
        "listOrders": "list_orders",
    }
