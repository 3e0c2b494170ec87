"""The generated client against the real app (in-process): paths, typed errors, models."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from outreach_api.constants import SCOPES
from outreach_client import (
    APIError,
    AuthenticationError,
    Client,
    NotFoundError,
    PermissionDeniedError,
    UnprocessableEntityError,
)
from outreach_client.base import ENVIRONMENTS
from outreach_client.models import ApiKeyCreateRequest, ApiKeyMode
from outreach_server import Settings, create_app

TOKEN: list[str] = []


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("client") / "db.sqlite3"
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{database}"))
    with TestClient(app) as http:
        services = app.state.services

        async def seed() -> str:
            org = await services.orgs.create("client")
            scopes = sorted(SCOPES)
            _, token = await services.keys.create(
                org_id=org, name="k", mode="test", tier="billable", scopes=scopes
            )
            return str(token)

        assert http.portal is not None
        TOKEN.append(http.portal.call(seed))
        yield http


def client_for(http: TestClient, api_key: str | None = "") -> Client:
    key = TOKEN[0] if api_key == "" else api_key
    return Client(api_key=key, base_url="http://testserver/api/v1", http_client=http)


def test_namespaces_and_methods_follow_the_spec(http: TestClient) -> None:
    client = client_for(http)
    assert inspect.ismethod(client.webhooks.create)
    assert inspect.ismethod(client.webhooks.deliveries.list)
    assert inspect.ismethod(client.suppressions.bulk_add)
    assert set(ENVIRONMENTS) == {"production", "qa"}
    assert ENVIRONMENTS["production"].startswith("https://")


def test_errors_are_typed_and_carry_detail(http: TestClient) -> None:
    with pytest.raises(APIError, match="no API key"):  # refused before sending
        client_for(http, api_key=None).webhooks.list()
    with pytest.raises(AuthenticationError) as unknown:
        client_for(http, api_key="outreach_live_unknown").webhooks.list()
    assert unknown.value.status_code == 401 and unknown.value.detail
    with pytest.raises(NotFoundError) as missing_contact:
        client_for(http).contacts.get(contact_id=999_999)
    assert missing_contact.value.status_code == 404
    assert missing_contact.value.detail == "Contact not found"
    with pytest.raises(UnprocessableEntityError):
        client_for(http).suppressions.list(limit=501)


def test_api_key_operations_go_to_v1_of_the_same_host(http: TestClient) -> None:
    listing = client_for(http).api_keys.list()
    assert listing.total == 1 and listing.keys[0].mode.value == "test"
    with pytest.raises(PermissionDeniedError):  # a test key mints no live key (DECISIONS 116)
        client_for(http).api_keys.create(body=ApiKeyCreateRequest(name="from the client"))
    created = client_for(http).api_keys.create(
        body=ApiKeyCreateRequest(name="from the client", mode=ApiKeyMode.TEST)
    )
    assert created.api_key_token.startswith("outreach_test_")
    assert client_for(http).api_keys.list().total == 2
