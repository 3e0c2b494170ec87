"""The rate limit through HTTP: 429 with the document's body and headers; 503 when Redis is down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_api
from service_support import Api, bearer


@pytest.fixture
def sqlite_api(tmp_path) -> Iterator[Api]:  # type: ignore[no-untyped-def]
    yield from make_api(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")


def test_eleventh_request_in_a_second_is_refused_with_the_documented_answer(
    sqlite_api: Api,
) -> None:
    api = sqlite_api
    token = api.key(api.org())
    other = api.key(api.org())
    statuses = [
        api.client.get("/v1/api-keys", headers=bearer(token)).status_code for _ in range(11)
    ]
    assert statuses[:10] == [200] * 10
    refused = api.client.get("/v1/api-keys", headers=bearer(token))
    assert refused.status_code == 429
    assert refused.json() == {"detail": "Rate limit exceeded. Please slow down."}
    assert refused.headers["X-RateLimit-Limit-Minute"] == "200"
    assert refused.headers["X-RateLimit-Limit-Second"] == "10"
    assert refused.headers["Retry-After"] == "1"
    assert api.client.get("/v1/api-keys", headers=bearer(other)).status_code == 200  # per key


def test_unreachable_redis_refuses_with_503_never_unlimited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    for api in make_api(url, redis_url="redis://127.0.0.1:1/0"):
        token = api.key(api.org())
        response = api.client.get("/v1/api-keys", headers=bearer(token))
        assert response.status_code == 503
        assert response.json() == {"detail": "Rate limiter unavailable"}
        ready = api.client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["checks"] == {
            "database": True,
            "redis": False,
        }


def test_unexpected_failures_are_500_without_internals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    for api in make_api(url, raise_server_exceptions=False):
        token = api.key(api.org())

        async def broken(org_id: int) -> None:
            raise RuntimeError("SELECT secret FROM api_keys -- internal detail")

        monkeypatch.setattr(api.services.keys, "list_for_org", broken)
        response = api.client.get("/v1/api-keys", headers=bearer(token))
        assert response.status_code == 500
        assert response.json() == {"detail": "Internal server error"}
        assert "SELECT" not in response.text and "Traceback" not in response.text


def test_health_and_readiness(sqlite_api: Api) -> None:
    assert sqlite_api.client.get("/healthz").json() == {"status": "ok"}
    ready = sqlite_api.client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {
        "status": "ready",
        "checks": {"database": True},
    }


def test_request_ids_and_metrics_per_operation(sqlite_api: Api) -> None:
    api = sqlite_api
    token = api.key(api.org())
    ok = api.client.get("/v1/api-keys", headers=bearer(token) | {"X-Request-Id": "trace-123"})
    assert ok.headers["X-Request-Id"] == "trace-123"
    refused = api.client.get("/v1/api-keys")
    assert refused.status_code == 401 and len(refused.headers["X-Request-Id"]) == 32
    metrics = api.client.get("/metrics").text
    assert 'operation_id="list_api_keys"' in metrics
    assert 'status="200"' in metrics and 'status="401"' in metrics
    assert token not in metrics


def test_a_json_null_body_is_refused_not_read_as_no_body(sqlite_api: Api) -> None:
    """Schemathesis (ST201): `-d null` on an operation with an optional object body was read
    as no body and accepted. The generated routers refuse it (transport.refuse_null_body),
    before the handler runs; a required body sent as null is missing, as FastAPI says."""
    api = sqlite_api
    token = api.key(api.org())
    before = api.client.get("/v1/api-keys", headers=bearer(token)).json()["data"]
    headers = {**bearer(token), "Content-Type": "application/json"}
    # optional body: omitted is fine (the contact is unknown: 404), null is a 422
    omitted = api.client.post("/api/v1/contacts/999999/suppress", headers=bearer(token))
    assert omitted.status_code == 404, omitted.text
    for raw in (b"null", b" null\n"):
        refused = api.client.post("/api/v1/contacts/999999/suppress", content=raw, headers=headers)
        assert refused.status_code == 422, refused.text
        (item,) = refused.json()["detail"]
        assert item["loc"] == ["body"] and item["type"] == "model_type", item
    # required body
    refused = api.client.post("/v1/api-keys", content=b" null ", headers=headers)
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["loc"] == ["body"]
    assert api.client.get("/v1/api-keys", headers=bearer(token)).json()["data"] == before
    # null inside an object is not affected
    ok = api.client.post("/v1/api-keys", content=b'{"name": "n", "mode": "test"}', headers=headers)
    assert ok.status_code == 201, ok.text
