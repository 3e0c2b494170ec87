"""A body sent as another media type than the operation reads is 415 naming the accepted
type (spec/DECISIONS.md row 134), declared in the spec's answers so the strict contract keeps it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_api
from service_support import Api, bearer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def sqlite_api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")


@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "text/plain", "text/plain; charset=utf-8"]
)
def test_a_wrong_content_type_is_415_naming_the_accepted_type(
    sqlite_api: Api, content_type: str
) -> None:
    api = sqlite_api
    token = api.key(api.org(), tier="write", scopes=())
    body = json.dumps({"name": "Prospects", "type": "contacts"})
    headers = {**bearer(token), "content-type": content_type}
    refused = api.client.post("/api/v1/lists", content=body, headers=headers)
    assert refused.status_code == 415, refused.text  # strict contract on: declared, not a 500
    media = content_type.split(";")[0]
    assert refused.json() == {
        "detail": f"Unsupported media type {media!r}; send one of: application/json"
    }
    # the same body sent as JSON is accepted
    headers["content-type"] = "application/json"
    created = api.client.post("/api/v1/lists", content=body, headers=headers)
    assert created.status_code == 201 and created.json()["data"]["name"] == "Prospects"


def test_every_operation_with_a_json_body_declares_415() -> None:
    document = json.loads((REPO / "generated/server/outreach_api/openapi.json").read_text())
    missing = [
        operation["operationId"]
        for item in document["paths"].values()
        for method, operation in item.items()
        if isinstance(operation, dict)
        and "application/json" in operation.get("requestBody", {}).get("content", {})
        and "415" not in operation["responses"]
    ]
    assert missing == []
