"""The IR: path prefixes from servers at the document, path-item and operation level."""

from __future__ import annotations

from typing import Any

from spec_gen.ir import build_ir


def operation(op_id: str, **extra: Any) -> dict[str, Any]:
    return {"operationId": op_id, "responses": {"204": {"description": "done"}}, **extra}


def test_an_operations_servers_apply_to_it_alone() -> None:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://h/api/v1"}],
        "paths": {
            "/things": {
                "get": operation("list_things", servers=[{"url": "https://h/v1"}]),
                "post": operation("create_thing"),
            },
            "/other": {
                "servers": [{"url": "https://h/v2"}],
                "get": operation("get_other"),
                "put": operation("put_other", servers=[{"url": "https://h/v3"}]),
                "delete": operation("delete_other"),
            },
        },
    }
    api = build_ir(document)
    full = {op.operation_id: op.full_path for op in api.operations}
    assert full == {
        "list_things": "/v1/things",
        "create_thing": "/api/v1/things",
        "get_other": "/v2/other",
        "put_other": "/v3/other",
        "delete_other": "/v2/other",
    }
