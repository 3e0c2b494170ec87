"""An optional JSON body: omitted is None, `null` is a 422; a context built from the request
alone is called directly by routes without inputs, and an override of it is honoured."""

from __future__ import annotations

import importlib
from typing import Any

import fastapi.routing
import pytest
from fastapi import FastAPI, Request, Response
from fastapi.exceptions import ResponseValidationError
from fastapi.testclient import TestClient
from harness import models, package, serve

M = models("optional_body")


class Notes:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def add_note(self, ctx: Any, *, body: Any) -> Any:
        self.seen.append(body)
        return body if body is not None else M.Note()

    async def count_notes(self, ctx: Any) -> Any:
        return M.Count(count=len(self.seen), caller=str(ctx))


def test_an_omitted_body_is_none_and_an_object_is_the_model() -> None:
    notes = Notes()
    client = serve("optional_body", notes=notes)
    assert client.post("/notes").status_code == 200
    sent = client.post("/notes", json={"text": "hi"})
    assert sent.status_code == 200 and sent.json() == {"text": "hi"}
    assert notes.seen[0] is None
    assert isinstance(notes.seen[1], M.Note) and notes.seen[1].text == "hi"


def test_a_json_null_body_is_a_422_not_an_omitted_body() -> None:
    notes = Notes()
    client = serve("optional_body", notes=notes)
    for raw in (b"null", b"  null\n"):
        answer = client.post("/notes", content=raw, headers={"content-type": "application/json"})
        assert answer.status_code == 422, answer.text
        (error,) = answer.json()["detail"]
        assert error["loc"] == ["body"] and error["type"] == "model_type", error
    assert notes.seen == []  # the implementation never ran


MADE: dict[str, Any] = {}  # the context dependency made for each operation


def request_context(op: Any) -> Any:
    async def dependency(request: Request) -> str:
        return f"{op.operation_id}:{request.headers.get('x-caller', 'anonymous')}"

    MADE[op.operation_id] = dependency
    return dependency


def app_with_request_context(notes: Notes) -> tuple[FastAPI, Any]:
    router = package("optional_body").create_api_router(context=request_context, notes=notes)
    app = FastAPI()
    app.include_router(router)
    (route,) = [r for r in router.routes if getattr(r, "path", "") == "/notes/count"]
    return app, route


def test_a_request_only_context_is_built_for_routes_with_and_without_inputs() -> None:
    notes = Notes()
    app, route = app_with_request_context(notes)
    client = TestClient(app)
    assert client.post("/notes", json={"text": "a"}).status_code == 200
    counted = client.get("/notes/count", headers={"x-caller": "ann"})
    assert counted.status_code == 200, counted.text
    assert counted.json() == {"count": 1, "caller": "count_notes:ann"}
    # the route without inputs calls its dependency itself: FastAPI solves no dependency
    assert route.dependant.dependencies == []
    assert route.dependant.request_param_name == "request"


def test_an_override_of_the_context_dependency_is_honoured_on_the_direct_route() -> None:
    notes = Notes()
    app, _ = app_with_request_context(notes)

    async def overridden(request: Request) -> str:
        return "override"

    app.dependency_overrides[MADE["count_notes"]] = overridden
    counted = TestClient(app).get("/notes/count")
    assert counted.json() == {"count": 0, "caller": "override"}


class Answers(Notes):
    """count_notes answers what the test sets."""

    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer

    async def count_notes(self, ctx: Any) -> Any:
        return self.answer


def solved_on(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each call of FastAPI's dependency solving, recorded (FastAPI's own handler makes one)."""
    calls: list[object] = []
    original = fastapi.routing.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        calls.append(kwargs["dependant"].call)
        return await original(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    return calls


def answer_of(answer: Any, *, direct: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    transport = importlib.import_module("optional_body_api.transport")
    with monkeypatch.context() as patch:
        if not direct:
            patch.setattr(transport.Route, "answers_like_fastapi_directly", lambda self: False)
        app, _ = app_with_request_context(Answers(answer))
        # within the patch: FastAPI may build a route's handler on its first request
        return TestClient(app).get("/notes/count", headers={"x-caller": "zoe"})


def test_the_direct_handler_answers_as_fastapis_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = solved_on(monkeypatch)
    model = M.Count(count=3, caller="zoë ✓")
    direct = answer_of(model, direct=True, monkeypatch=monkeypatch)
    assert calls == []  # no dependency solving on the direct route
    standard = answer_of(model, direct=False, monkeypatch=monkeypatch)
    assert len(calls) == 1  # FastAPI's handler solved the request-only endpoint
    assert direct.status_code == standard.status_code == 200
    assert direct.content == standard.content == '{"count":3,"caller":"zoë ✓"}'.encode()
    assert direct.headers == standard.headers
    # a dict is validated against the response model as FastAPI does, then serialised
    as_dict = {"count": "4", "caller": "x", "extra": 1}
    direct = answer_of(as_dict, direct=True, monkeypatch=monkeypatch)
    standard = answer_of(as_dict, direct=False, monkeypatch=monkeypatch)
    assert direct.content == standard.content == b'{"count":4,"caller":"x"}'
    # a Response is sent as it is
    raw = Response(b"as is", status_code=202, media_type="text/plain")
    assert answer_of(raw, direct=True, monkeypatch=monkeypatch).content == b"as is"


def test_the_direct_handler_refuses_an_answer_outside_the_response_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for direct in (True, False):
        with pytest.raises(ResponseValidationError):
            answer_of({"count": "many"}, direct=direct, monkeypatch=monkeypatch)


def test_fastapis_handler_answers_while_its_telemetry_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = solved_on(monkeypatch)
    transport = importlib.import_module("optional_body_api.transport")
    monkeypatch.setattr(transport, "telemetry_data", lambda: object())
    answered = answer_of(M.Count(count=1, caller="t"), direct=True, monkeypatch=monkeypatch)
    assert answered.json() == {"count": 1, "caller": "t"}
    assert len(calls) == 1
