"""The generated routes with inputs (parameters, a JSON body) answered by `transport.input_handler`:
the same answers as FastAPI's own handler (status, headers, bytes, 422 details, 415, the order
of the checks), the context built once and after a body FastAPI refuses before anything, no
dependency solving per request, and an override of the context honoured."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastapi.routing
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

EXPECTED = Path(__file__).parents[2] / "golden" / "fixtures" / "petstore" / "expected"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def petstore() -> Iterator[Any]:
    sys.path[:0] = [str(EXPECTED / "server"), str(EXPECTED / "client")]
    import petstore_api
    from petstore_api import models

    yield petstore_api, models
    sys.path.remove(str(EXPECTED / "server"))
    sys.path.remove(str(EXPECTED / "client"))


class World:
    """An implementation of the petstore's operations that records what it was called with,
    and a context dependency per operation that counts its calls."""

    def __init__(self, models: Any) -> None:
        self.models = models
        self.seen: list[Any] = []
        self.contexts: list[str] = []
        self.made: dict[str, Any] = {}

    def context(self, op: Any) -> Any:
        async def dependency(request: Request) -> str:
            self.contexts.append(op.operation_id)
            return f"{op.operation_id}:{request.headers.get('x-tenant', '-')}"

        self.made[op.operation_id] = dependency
        return dependency

    async def list_pets(self, ctx: Any, *, page: int, limit: int, kind: Any) -> Any:
        self.seen.append(("list", ctx, page, limit, kind))
        pet = self.models.Pet.model_validate({"kind": "cat", "name": "Tom", "lives": None})
        pagination = self.models.Pagination(page=page, limit=limit, total=1, has_next=False)
        return self.models.PetPage(data=[pet], pagination=pagination)

    async def create_pet(self, ctx: Any, *, body: Any) -> Any:
        self.seen.append(("create", ctx, body.model_dump()))
        return self.models.CreatePetResponse(data=body)

    async def delete_pet(self, ctx: Any, *, pet_id: int) -> None:
        self.seen.append(("delete", ctx, pet_id))

    async def get_health(self, ctx: Any) -> Any:
        return self.models.GetHealthResponse(status="ok")


def build(petstore: Any) -> tuple[FastAPI, World]:
    _, models = petstore
    from petstore_api.app import create_app

    world = World(models)
    app = create_app(context=world.context, pets=world, admin_tools=world)
    return app, world


REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/api/v2/pets", {}),
    ("GET", "/api/v2/pets?page=2&limit=10&kind=cat", {"headers": {"x-tenant": "t1"}}),
    ("GET", "/api/v2/pets?page=0", {}),  # below the minimum
    ("GET", "/api/v2/pets?page=x&limit=500&kind=bird", {}),  # three errors, in order
    ("GET", "/api/v2/pets?page=3&page=4", {}),  # repeated: FastAPI takes the last
    ("GET", "/api/v2/pets?unknown=1&limit=", {}),
    ("POST", "/api/v2/pets", {"json": {"kind": "cat", "name": "Tom", "lives": 9}}),
    ("POST", "/api/v2/pets", {"json": {"kind": "dog", "name": "Rex", "extra": [1, 2]}}),
    ("POST", "/api/v2/pets", {"json": {"kind": "cat"}}),  # a required member missing
    ("POST", "/api/v2/pets", {"json": {"kind": "cat", "name": 3, "lives": "many"}}),
    ("POST", "/api/v2/pets", {"json": {"kind": "bird", "name": "Tweety"}}),
    ("POST", "/api/v2/pets", {"json": [{"kind": "cat", "name": "Tom"}]}),
    ("POST", "/api/v2/pets", {"content": b"null", "headers": JSON}),
    ("POST", "/api/v2/pets", {"content": b"", "headers": JSON}),
    ("POST", "/api/v2/pets", {"content": b'{"kind": "cat", "name": ', "headers": JSON}),
    ("POST", "/api/v2/pets", {"content": b'{"kind": "cat", "name": "\xff"}', "headers": JSON}),
    ("POST", "/api/v2/pets", {"content": b"[" * 5000 + b"]" * 5000, "headers": JSON}),
    ("POST", "/api/v2/pets", {"content": b'{"kind":"cat","name":"T"}'}),  # no Content-Type
    ("POST", "/api/v2/pets", {"content": b"kind=cat", "headers": {"content-type": "text/plain"}}),
    (
        "POST",
        "/api/v2/pets",
        {
            "content": b'{"kind":"dog","name":"R"}',
            "headers": {"content-type": "application/json; charset=utf-8"},
        },
    ),
    (
        "POST",
        "/api/v2/pets",
        {
            "content": b'{"kind":"dog","name":"R"}',
            "headers": {"content-type": "application/x+json"},
        },
    ),
    ("DELETE", "/api/v2/pets/7", {}),
    ("DELETE", "/api/v2/pets/0", {}),
    ("GET", "/api/v2/health", {}),
]


def answers(petstore: Any, monkeypatch: pytest.MonkeyPatch, *, direct: bool) -> list[Any]:
    transport = importlib.import_module("petstore_api.transport")
    found = []
    with monkeypatch.context() as patch:
        if not direct:
            patch.setattr(transport, "takes_inputs_directly", lambda route: False)
        app, world = build(petstore)
        # within the patch: FastAPI may build a route's handler on its first request
        client = TestClient(app, raise_server_exceptions=False)
        for method, target, options in REQUESTS:
            before = (len(world.contexts), len(world.seen))
            answer = client.request(method, target, **options)
            found.append(
                (
                    method,
                    target,
                    answer.status_code,
                    dict(answer.headers),
                    answer.content,
                    world.contexts[before[0] :],
                    world.seen[before[1] :],
                )
            )
    return found


def test_routes_with_inputs_answer_as_fastapis_handler(
    petstore: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    direct = answers(petstore, monkeypatch, direct=True)
    standard = answers(petstore, monkeypatch, direct=False)
    for mine, theirs in zip(direct, standard, strict=True):
        assert mine == theirs
    statuses = [answer[2] for answer in direct]
    # the cases above are what they claim: valid, 422, 415, 400 and 204 answers all met
    assert {200, 201, 204, 400, 415, 422} <= set(statuses), statuses
    by_target = {(a[0], a[1], str(i)): a for i, a in enumerate(direct)}
    assert len(by_target) == len(REQUESTS)
    invalid_json = direct[14]
    assert invalid_json[2] == 422 and invalid_json[5] == []  # refused before the context
    three = direct[3]
    locs = [error["loc"] for error in __import__("json").loads(three[4])["detail"]]
    assert locs == [["query", "page"], ["query", "limit"], ["query", "kind"]]


def test_routes_with_inputs_solve_no_dependencies(
    petstore: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Any] = []
    original = fastapi.routing.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        calls.append(kwargs["dependant"].call)
        return await original(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    app, world = build(petstore)
    client = TestClient(app)
    assert client.get("/api/v2/pets?page=2").status_code == 200
    assert client.post("/api/v2/pets", json={"kind": "cat", "name": "Tom"}).status_code == 201
    assert client.get("/api/v2/pets?page=0").status_code == 422
    assert calls == []
    assert world.contexts == ["list_pets", "create_pet", "list_pets"]  # once each
    # list_pets's query parameters (one value each) are read without FastAPI's reader
    transport = importlib.import_module("petstore_api.transport")
    (route,) = [r for r in app.routes if getattr(r, "name", "") == "list_pets"] or [
        r for table in app.routes for r in getattr(table, "routes", []) if r.name == "list_pets"
    ]
    assert transport._plain_parameters(route.dependant.query_params) is not None
    # create_pet's JSON body (one field, not embedded) is validated without FastAPI's reader
    (create,) = [r for table in app.routes for r in getattr(table, "routes", [])
                 if r.name == "create_pet"]  # fmt: skip
    assert transport._single_body(list(create.dependant.body_params), False) is not None
    # while FastAPI's telemetry records a request, FastAPI's own handler answers it
    monkeypatch.setattr(transport, "telemetry_data", lambda: object())
    assert client.get("/api/v2/pets?page=2").json()["pagination"]["page"] == 2
    assert len(calls) >= 1


def test_overrides_are_honoured_as_fastapi_honours_them(
    petstore: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the app has dependency_overrides, every generated route (with inputs, without,
    a 204, one whose body FastAPI refuses) is answered by FastAPI's own dependency solving
    with the overrides applied, whatever the override takes; without them, the fast handlers."""
    solved: list[Any] = []
    original = fastapi.routing.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        solved.append(kwargs["dependant"].call)
        return await original(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    app, world = build(petstore)
    client = TestClient(app)

    async def by_request(request: Request) -> str:
        return "async:" + request.headers.get("x-tenant", "-")

    def plain() -> str:
        return "sync"

    def with_query(other: int) -> str:
        return f"query:{other}"

    pet = {"kind": "dog", "name": "Rex"}
    for override, query, expected in (
        (by_request, "", "async:t9"),
        (plain, "", "sync"),
        (with_query, "?other=5", "query:5"),
    ):
        for made in world.made.values():
            app.dependency_overrides[made] = override
        seen = len(world.seen)
        headers = {"x-tenant": "t9"}
        assert client.get("/api/v2/pets" + query, headers=headers).status_code == 200
        assert client.post("/api/v2/pets" + query, json=pet, headers=headers).status_code == 201
        assert client.delete("/api/v2/pets/7" + query, headers=headers).status_code == 204
        assert client.get("/ops/health" + query, headers=headers).status_code == 200
        assert [found[1] for found in world.seen[seen:]] == [expected] * 3
    # the override's own parameter is read and required as FastAPI requires it
    for method, target in (("GET", "/api/v2/pets"), ("GET", "/ops/health")):
        refused = client.request(method, target)
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["query", "other"]
    bad = client.post("/api/v2/pets?other=1", content=b'{"kind": ', headers=JSON)
    assert bad.status_code == 422 and bad.json()["detail"][0]["type"] == "json_invalid"
    assert world.contexts == []  # the generated context never called
    assert solved  # FastAPI's own solving
    app.dependency_overrides.clear()
    solved.clear()
    assert client.get("/api/v2/pets").status_code == 200
    assert client.get("/ops/health").status_code == 200
    assert world.contexts == ["list_pets", "get_health"] and solved == []


def test_without_fastapis_readers_every_route_keeps_fastapis_handler(
    petstore: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """input_handler calls private helpers of FastAPI: where they are gone or called otherwise,
    the routes keep FastAPI's own handler, with the same answers."""
    from fastapi.dependencies import utils

    transport = importlib.import_module("petstore_api.transport")
    assert transport._fastapi_readers() is not None  # the pinned FastAPI
    with monkeypatch.context() as patch:
        patch.delattr(utils, "request_params_to_args")
        assert transport._fastapi_readers() is None

    def other_params(fields: Any, received: Any, extra: Any) -> Any:
        raise AssertionError("never called")

    async def other_body(fields: Any, body: Any) -> Any:
        raise AssertionError("never called")

    for name, replacement in (("request_params_to_args", other_params),
                              ("request_body_to_args", other_body)):  # fmt: skip
        with monkeypatch.context() as patch:
            patch.setattr(utils, name, replacement)
            assert transport._fastapi_readers() is None
    expected = answers(petstore, monkeypatch, direct=False)
    monkeypatch.setattr(transport, "_readers", None)
    app, _ = build(petstore)
    routes = [r for table in app.routes for r in getattr(table, "routes", [])]
    assert routes and not any(transport.takes_inputs_directly(r) for r in routes)
    assert answers(petstore, monkeypatch, direct=True) == expected
