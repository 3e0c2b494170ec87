"""The generated client reaches every operation's full path against the real app (in-process)."""

from __future__ import annotations

import inspect

import pytest
from fastapi.testclient import TestClient
from outreach_client import (
    AuthenticationError,
    Client,
    InternalServerError,
    UnprocessableEntityError,
)
from outreach_client.base import ENVIRONMENTS
from outreach_server import Settings, create_app


@pytest.fixture(scope="module")
def http() -> TestClient:
    return TestClient(create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")))


def client_for(http: TestClient, api_key: str | None = "outreach_live_x") -> Client:
    return Client(api_key=api_key, base_url="http://testserver/api/v1", http_client=http)


def test_namespaces_and_methods_follow_the_spec(http: TestClient) -> None:
    client = client_for(http)
    assert inspect.ismethod(client.webhooks.create)
    assert inspect.ismethod(client.webhooks.deliveries.list)
    assert inspect.ismethod(client.suppressions.bulk_add)
    assert set(ENVIRONMENTS) == {"production", "qa"}
    assert ENVIRONMENTS["production"].startswith("https://")


def test_errors_are_typed_and_carry_detail(http: TestClient) -> None:
    with pytest.raises(AuthenticationError) as missing:
        client_for(http, api_key=None).webhooks.list()
    assert missing.value.detail == "Missing Authorization header"
    with pytest.raises(InternalServerError) as not_yet:
        client_for(http).webhooks.list()
    assert not_yet.value.status_code == 501
    assert not_yet.value.detail == "Not implemented yet: list_webhooks"
    with pytest.raises(UnprocessableEntityError):
        client_for(http).suppressions.list(limit=501)


def test_api_key_operations_go_to_v1_of_the_same_host(http: TestClient) -> None:
    with pytest.raises(InternalServerError) as not_yet:
        client_for(http).api_keys.list()
    assert not_yet.value.detail == "Not implemented yet: list_api_keys"
    assert not_yet.value.response.request.url.path == "/v1/api-keys"
