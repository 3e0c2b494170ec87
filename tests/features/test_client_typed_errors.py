"""Typed errors (issue 26, point 7), over HTTP, sync and async: each status error carries
`body`, the error model the operation declares for that status (the raw JSON when the answer
does not fit it), a `detail` read from the common shapes (RFC 9457, `{error: {message}}`,
`message`), `request_id` from the common request-id headers, and a 422's `.errors` from the
declared list of field errors. The server is written by hand, as such APIs answer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse
from harness import package
from http_server import serve_http

PROBLEM = {
    "type": "https://example.com/probs/not-found",
    "title": "Not Found",
    "status": 404,
    "detail": "thing t9 does not exist",
    "instance": "/things/t9",
}


def real_api() -> FastAPI:
    api = FastAPI()

    @api.get("/things/{thing_id}")
    def get_thing(thing_id: str) -> Any:
        if thing_id == "t9":
            return JSONResponse(
                PROBLEM,
                404,
                media_type="application/problem+json",
                headers={"Request-Id": "req_404"},
            )
        if thing_id == "locked":
            body = {"error": {"code": "locked", "message": "the thing is locked"}}
            return JSONResponse(body, 409, headers={"X-Amzn-RequestId": "amz-1"})
        if thing_id == "html":
            return PlainTextResponse("<html>gateway</html>", 404)
        if thing_id == "odd":
            return JSONResponse({"message": "not the declared shape"}, 403)
        return {"name": thing_id}

    @api.post("/things")
    def create_thing() -> Any:
        body = {
            "title": "Invalid fields",
            "errors": [
                {"field": "name", "message": "too short", "code": "min_length"},
                {"field": "owner.email", "message": "not an email"},
            ],
        }
        return JSONResponse(body, 422, headers={"X-Request-Id": "req_422"})

    return api


@pytest.fixture
def url() -> Iterator[str]:
    with serve_http(real_api()) as base_url:
        yield base_url


def test_rfc_9457_problem_details_become_the_declared_model(url: str) -> None:
    pkg = package("typed_errors", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.NotFoundError) as caught:
        client.things.get_thing("t9")
    err = caught.value
    assert isinstance(err.body, pkg.models.Problem)
    assert (err.body.title, err.body.instance) == ("Not Found", "/things/t9")
    assert err.detail == "thing t9 does not exist"
    assert err.request_id == "req_404"
    assert "thing t9 does not exist" in str(err)
    client.close()


def test_a_status_range_model_and_a_nested_error_message(url: str) -> None:
    pkg = package("typed_errors", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.APIStatusError) as caught:
        client.things.get_thing("locked")
    err = caught.value
    assert err.status_code == 409
    assert isinstance(err.body, pkg.models.Error)  # declared under 4XX
    assert (err.body.error.code, err.detail) == ("locked", "the thing is locked")
    assert err.request_id == "amz-1"
    client.close()


def test_an_answer_that_does_not_fit_its_declaration_is_kept_raw(url: str) -> None:
    pkg = package("typed_errors", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.NotFoundError) as html:
        client.things.get_thing("html")
    assert html.value.body == "<html>gateway</html>" and html.value.request_id is None
    with pytest.raises(pkg.APIStatusError) as odd:
        client.things.get_thing("odd")
    assert odd.value.body == {"message": "not the declared shape"}
    assert odd.value.detail == "not the declared shape"
    client.close()


def test_a_422_lists_the_declared_field_errors(url: str) -> None:
    pkg = package("typed_errors", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.UnprocessableEntityError) as caught:
        client.things.create_thing(name="x")
    err = caught.value
    assert isinstance(err.body, pkg.models.ValidationProblem)
    assert [(e.loc, e.msg, e.type) for e in err.errors] == [
        (("name",), "too short", "min_length"),
        (("owner", "email"), "not an email", ""),
    ]
    assert err.detail == "Invalid fields" and err.request_id == "req_422"
    client.close()


def test_the_async_client_raises_the_same_typed_errors(url: str) -> None:
    pkg = package("typed_errors", "client")

    async def go() -> tuple[Any, Any]:
        client = pkg.AsyncClient(base_url=url)
        try:
            await client.things.get_thing("t9")
        except pkg.NotFoundError as err:
            problem = err.body
        try:
            await client.things.create_thing(name="x")
        except pkg.UnprocessableEntityError as err:
            issues = err.errors
        await client.close()
        return problem, issues

    problem, issues = asyncio.run(go())
    assert problem.detail == "thing t9 does not exist"
    assert [e.loc for e in issues] == [("name",), ("owner", "email")]
