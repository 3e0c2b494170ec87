"""The generated API layer works when mounted: routing, validation, status codes, bodies."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

EXPECTED = Path(__file__).parents[2] / "golden" / "fixtures" / "petstore" / "expected"


@pytest.fixture(scope="module")
def petstore() -> Iterator[Any]:
    sys.path[:0] = [str(EXPECTED / "server"), str(EXPECTED / "client")]
    import petstore_api
    from petstore_api import models

    yield petstore_api, models
    sys.path.remove(str(EXPECTED / "server"))
    sys.path.remove(str(EXPECTED / "client"))


def make_app(petstore: Any, seen: list[Any], *, generated_app: bool = False) -> FastAPI:
    api, models = petstore

    class Pets:
        async def list_pets(self, ctx: Any, *, page: int, limit: int, kind: Any) -> Any:
            seen.append(("list", ctx, page, limit, kind))
            pet = models.Pet.model_validate({"kind": "cat", "name": "Tom", "lives": None})
            pagination = models.Pagination(page=page, limit=limit, total=1, has_next=False)
            return models.PetPage(data=[pet], pagination=pagination)

        async def create_pet(self, ctx: Any, *, body: Any) -> Any:
            seen.append(("create", body))
            return models.CreatePetResponse(data=body)

        async def delete_pet(self, ctx: Any, *, pet_id: int) -> None:
            seen.append(("delete", pet_id))

    class Admin:
        async def get_health(self, ctx: Any) -> Any:
            return models.GetHealthResponse(status="ok")

    def context(op: Any) -> Any:
        async def dependency(request: Request) -> dict[str, Any]:
            return {
                "op": op.operation_id,
                "tenant": request.headers.get("X-Tenant"),
                "auth": op.requires_authentication,
            }

        return dependency

    if generated_app:
        from petstore_api.app import create_app

        return create_app(context=context, pets=Pets(), admin_tools=Admin())  # type: ignore[no-any-return]
    app = FastAPI()
    app.include_router(api.create_api_router(context=context, pets=Pets(), admin_tools=Admin()))
    return app


def test_the_generated_app_keeps_the_routes_in_one_table(petstore: Any) -> None:
    """create_app: the API's routes in one RouteTable (not an included router), with the
    answers of the flat list: the route, 405, 404, 415 before the body."""
    seen: list[Any] = []
    app = make_app(petstore, seen, generated_app=True)
    tables = [r for r in app.routes if type(r).__name__ == "RouteTable"]
    assert len(tables) == 1 and len(tables[0].routes) == 4, app.routes
    client = TestClient(app)
    assert client.get("/api/v2/pets", params={"limit": 2}).status_code == 200
    refused, flat = (
        client.put("/api/v2/pets"),
        TestClient(make_app(petstore, [])).put("/api/v2/pets"),
    )
    assert refused.status_code == flat.status_code == 405
    assert refused.headers["allow"] == flat.headers["allow"]  # the first route's, as the flat list
    assert client.get("/api/v2/nowhere").status_code == 404
    assert client.get("/nowhere").status_code == 404
    form = client.post("/api/v2/pets", content=b"kind=cat", headers={"content-type": "text/plain"})
    assert form.status_code == 415 and "application/json" in form.text
    bad = client.post("/api/v2/pets", content=b"{x", headers={"content-type": "application/json"})
    assert bad.status_code == 422
    assert client.delete("/api/v2/pets/3").status_code == 204
    assert app.url_path_for("delete_pet", pet_id="3") == "/api/v2/pets/3"
    assert seen == [("list", seen[0][1], 1, 2, None), ("delete", 3)]


def test_routes_call_the_implementation_with_typed_arguments(petstore: Any) -> None:
    seen: list[Any] = []
    client = TestClient(make_app(petstore, seen))
    response = client.get(
        "/api/v2/pets", params={"kind": "dog", "limit": 5}, headers={"X-Tenant": "t1"}
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "data": [{"kind": "cat", "name": "Tom", "lives": None}],
        "pagination": {"page": 1, "limit": 5, "total": 1, "has_next": False, "next_cursor": None},
    }
    _, ctx, page, limit, kind = seen[0]
    assert ctx == {"op": "list_pets", "tenant": "t1", "auth": True}
    assert (page, limit, kind.value) == (1, 5, "dog")


def test_discriminated_union_body_and_created_status(petstore: Any) -> None:
    seen: list[Any] = []
    client = TestClient(make_app(petstore, seen))
    response = client.post("/api/v2/pets", json={"kind": "dog", "name": "Rex"})
    assert response.status_code == 201
    assert response.json()["data"] == {"kind": "dog", "name": "Rex", "good": True}
    assert type(seen[0][1].root).__name__ == "Dog"


def test_validation_failures_are_422_and_never_reach_the_handler(petstore: Any) -> None:
    seen: list[Any] = []
    client = TestClient(make_app(petstore, seen))
    assert client.get("/api/v2/pets", params={"limit": 201}).status_code == 422
    assert client.get("/api/v2/pets", params={"kind": "fish"}).status_code == 422
    assert client.post("/api/v2/pets", json={"kind": "fish", "name": "x"}).status_code == 422
    assert (
        client.post(
            "/api/v2/pets", content=b"{not json", headers={"content-type": "application/json"}
        ).status_code
        == 422
    )
    assert client.delete("/api/v2/pets/0").status_code == 422
    assert seen == []


def test_no_content_and_path_level_server(petstore: Any) -> None:
    seen: list[Any] = []
    client = TestClient(make_app(petstore, seen))
    response = client.delete("/api/v2/pets/7")
    assert response.status_code == 204 and response.content == b""
    assert seen == [("delete", 7)]
    assert client.get("/ops/health").json() == {"status": "ok", "note": None}
    assert client.get("/api/v2/health").status_code == 404


def test_operation_table_carries_the_extensions(petstore: Any) -> None:
    api, _ = petstore
    op = api.OPERATIONS["delete_pet"]
    assert (op.method, op.path, op.lifecycle, op.feature_flag, op.success_status) == (
        "DELETE",
        "/api/v2/pets/{pet_id}",
        "preview",
        "PET_DELETION",
        204,
    )
    assert api.OPERATIONS["get_health"].security == ()
    assert api.OPERATIONS["list_pets"].context_headers == ("X-Tenant",)
    assert api.OPERATIONS["list_pets"].scope == "pets:read"


def test_constants_come_from_root_extensions(petstore: Any) -> None:
    from petstore_api import constants

    assert constants.LIMITS_MAX_PETS == 100
    assert constants.LIMITS_DELAYS == (1, 2)


EVENTS = Path(__file__).parents[2] / "golden" / "fixtures" / "events" / "expected"


@pytest.fixture(scope="module")
def events_app() -> Iterator[tuple[TestClient, list[Any]]]:
    sys.path[:0] = [str(EVENTS / "server")]
    import events_api
    from events_api import models

    seen: list[Any] = []

    class Events:
        async def list_events(
            self, ctx: Any, *, limit: int, offset: int, kinds: Any, x_request_tag: str
        ) -> Any:
            seen.append((limit, offset, kinds, x_request_tag))
            stored = models.StoredEvent(kind="signup", id=1, stored_at="2026-01-01T00:00:00Z")
            return models.ListEventsResponse(data=[stored])

        async def record_events(self, ctx: Any, *, body: Any) -> Any:
            seen.append([event.kind for event in body.root])
            return models.RecordEventsResponse(recorded=len(body.root), failed=[])

    def context(op: Any) -> Any:
        async def dependency() -> str:
            return str(op.operation_id)

        return dependency

    app = FastAPI()
    app.include_router(events_api.create_api_router(context=context, events=Events()))
    yield TestClient(app), seen
    sys.path.remove(str(EVENTS / "server"))


def test_array_body_header_and_array_query(events_app: tuple[TestClient, list[Any]]) -> None:
    client, seen = events_app
    response = client.get(
        "/v3/events", params=[("kinds", "a"), ("kinds", "b")], headers={"X-Request-Tag": "t"}
    )
    assert response.status_code == 200, response.text
    assert seen[-1] == (20, 0, ["a", "b"], "t")
    assert response.json()["data"][0]["kind"] == "signup"
    assert client.get("/v3/events").status_code == 422  # required header missing
    assert (
        client.get("/v3/events", params={"limit": 501}, headers={"X-Request-Tag": "t"}).status_code
        == 422
    )
    recorded = client.post("/v3/events", json=[{"kind": "a"}, {"kind": "b", "payload": {"x": 1}}])
    assert recorded.json() == {"recorded": 2, "failed": []}
    assert seen[-1] == ["a", "b"]
    assert client.post("/v3/events", json=[]).status_code == 422  # minItems
    assert client.post("/v3/events", json=[{"kind": "a"}] * 101).status_code == 422  # maxItems
