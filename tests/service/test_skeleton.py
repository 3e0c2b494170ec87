"""The service skeleton: every route of the spec answers, in the API's error format."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from outreach_api import OPERATIONS
from outreach_api.constants import SCOPES
from outreach_server import Settings, create_app

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
KEY: dict[str, str] = {}
UNLIMITED = {"rate_limit_per_second": 100_000, "rate_limit_per_minute": 1_000_000}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("skeleton") / "db.sqlite3"
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{database}", **UNLIMITED))
    with TestClient(app) as client:
        services = app.state.services

        async def seed() -> str:
            org = await services.orgs.create("skeleton")
            scopes = sorted(SCOPES)
            _, token = await services.keys.create(
                org_id=org, name="k", mode="live", tier="billable", scopes=scopes
            )
            return str(token)

        assert client.portal is not None
        KEY["Authorization"] = f"Bearer {client.portal.call(seed)}"
        yield client


def concrete(path: str) -> str:
    return re.sub(r"{[^}]+}", "1", path)


def test_every_operation_of_the_spec_has_a_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    methods = {"get", "post", "put", "patch", "delete"}
    in_spec = {
        op["operationId"]
        for item in spec["paths"].values()
        for m, op in item.items()
        if m in methods
    }
    assert in_spec == set(OPERATIONS)
    assert len(OPERATIONS) == 46


NOT_WRITTEN_YET: set[str] = set()  # tags whose logic is not written yet answer 501


def documented_statuses(client: TestClient, op: Any) -> set[int]:
    spec = client.get("/openapi.json").json()
    path = op.path.removeprefix("/api/v1").removeprefix("/v1")
    return {int(status) for status in spec["paths"][path][op.method.lower()]["responses"]}


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_every_route_answers_with_a_documented_status(
    client: TestClient, operation_id: str
) -> None:
    """Without a key: 401. With one: a status the spec documents for the operation, in the
    error format (501 only where the logic is not written yet, never a fake success)."""
    op = OPERATIONS[operation_id]
    url = concrete(op.path)
    uses_key = any("ApiKey" in alt for alt in op.security)
    if uses_key:
        response = client.request(op.method, url)
        assert response.status_code == 401
        assert response.json() == {"detail": "Missing Authorization header"}
    response = client.request(op.method, url, headers=KEY if uses_key else {})
    if op.tag in NOT_WRITTEN_YET:
        assert response.status_code in (501, 422), response.text
        if response.status_code == 501:
            assert response.json() == {"detail": f"Not implemented yet: {operation_id}"}
        return
    assert response.status_code in documented_statuses(client, op), (
        response.status_code,
        response.text,
    )
    if response.status_code >= 400:
        detail = response.json()["detail"]
        assert isinstance(detail, str) or all(
            {"loc", "msg", "type"} <= set(item) for item in detail
        )


def test_jwt_instead_of_api_key_is_refused(client: TestClient) -> None:
    response = client.get("/api/v1/webhooks", headers={"Authorization": f"Bearer {JWT}"})
    assert response.status_code == 401
    assert response.json() == {"detail": "JWT token provided instead of API key"}


def test_literal_routes_win_over_parameters(client: TestClient) -> None:
    """/contacts/columns and /contacts/suppressions are not /contacts/{contact_id}."""
    columns = client.get("/api/v1/contacts/columns", headers=KEY)
    assert columns.status_code == 200 and isinstance(columns.json()["data"], list)
    suppressions = client.get("/api/v1/contacts/suppressions", headers=KEY)
    assert suppressions.status_code == 200 and suppressions.json()["data"] == []
    events = client.get("/api/v1/webhooks/events", headers=KEY)
    assert events.json()["data"][0] == {"event": "campaign.created"}
    assert client.get("/api/v1/contacts/7", headers=KEY).json() == {"detail": "Contact not found"}


def test_validation_errors_and_unknown_routes_use_the_error_format(client: TestClient) -> None:
    response = client.get("/api/v1/contacts/suppressions", params={"limit": 501}, headers=KEY)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "limit"]
    response = client.post(
        "/api/v1/webhooks", content=b"{broken", headers={**KEY, "content-type": "application/json"}
    )
    assert response.status_code == 422
    missing = client.get("/api/v1/does-not-exist", headers=KEY)
    assert missing.status_code == 404 and missing.json() == {"detail": "Not Found"}


def test_the_root_points_at_the_reference_docs(client: TestClient) -> None:
    answer = client.get("/", follow_redirects=False)
    assert answer.status_code == 307 and answer.headers["location"] == "/docs"
    followed = client.get("/")
    assert followed.status_code == 200 and followed.headers["content-type"].startswith("text/html")
    assert client.get("/nothing-here").status_code == 404  # only / itself redirects


def test_api_key_paths_live_under_v1_not_api_v1(client: TestClient) -> None:
    assert client.get("/v1/api-keys", headers=KEY).status_code == 200
    assert client.get("/api/v1/api-keys", headers=KEY).status_code == 404


def test_openapi_json_is_the_bundled_hand_written_spec(client: TestClient) -> None:
    document: dict[str, Any] = client.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "1.0.0"
    assert "x-rate-limit" in document
    assert json.dumps(document).count("x-provisional") > 10
