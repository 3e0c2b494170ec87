"""Strict contract mode of the generated layer, the request guard's limits, rate-limit headers
on every keyed answer, and SQL parameters kept out of errors (issue 12)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from outreach_api.contract import DECLARED_RESPONSES, StrictContract, contract_violation
from outreach_server.core.db import create_engine
from service_support import Api, bearer
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

OPERATION = "list_suppressions"  # declares 200, 400, 401, 403, 422, 429, 503


def app_answering(status: int, body: Any) -> TestClient:
    app = FastAPI()

    @app.get("/x", operation_id=OPERATION)
    async def answer() -> JSONResponse:
        return JSONResponse(body, status_code=status)

    @app.get("/free")
    async def free() -> JSONResponse:
        return JSONResponse({"anything": True}, status_code=418)

    app.add_middleware(StrictContract)
    return TestClient(app)


def test_the_table_holds_every_declared_status() -> None:
    assert set(DECLARED_RESPONSES[OPERATION]) == {"200", "400", "401", "403", "422", "429", "503"}
    assert contract_violation(OPERATION, 404, b'{"detail": "x"}') == "status 404 is not declared"
    assert contract_violation(OPERATION, 403, b'{"detail": "x"}') is None
    assert "does not match Error" in str(contract_violation(OPERATION, 403, b'{"nope": 1}'))


def test_an_undeclared_status_fails_loudly(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="outreach_api.contract"):
        response = app_answering(404, {"detail": "Not here"}).get("/x")
    assert response.status_code == 500
    assert OPERATION in response.json()["detail"] and "404" in response.json()["detail"]
    assert any(OPERATION in r.getMessage() and "404" in r.getMessage() for r in caplog.records)


def test_an_error_body_off_its_schema_fails_loudly(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="outreach_api.contract"):
        response = app_answering(403, {"message": "no"}).get("/x")
    assert response.status_code == 500
    assert any("does not match Error" in r.getMessage() for r in caplog.records)


def test_declared_answers_and_routes_of_no_operation_pass() -> None:
    client = app_answering(403, {"detail": "Refused"})
    assert (client.get("/x").status_code, client.get("/x").json()) == (403, {"detail": "Refused"})
    assert app_answering(200, {"data": []}).get("/x").status_code == 200
    assert client.get("/free").status_code == 418


def test_every_keyed_answer_carries_the_rate_limit_state(api: Api) -> None:
    token = api.key(api.org())
    ok = api.client.get("/v1/api-keys", headers=bearer(token))
    assert ok.status_code == 200
    assert int(ok.headers["X-RateLimit-Remaining"]) > 0 and ok.headers["X-RateLimit-Reset"] == "0"
    refused = api.client.get("/api/v1/contacts/999999999", headers=bearer(token))
    assert refused.status_code == 404 and "X-RateLimit-Remaining" in refused.headers


def test_bodies_over_the_limit_are_413_before_authentication(api: Api) -> None:
    big = b"[" + b"1," * 600_000 + b"1]"
    response = api.client.post(
        "/api/v1/contacts/suppressions/bulk-add",
        content=big,
        headers={"Content-Type": "application/json"},  # no key: the size answers first
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "Request body too large (limit 1048576 bytes)"}


def test_405_lists_every_method_of_the_path(api: Api) -> None:
    token = api.key(api.org())
    response = api.client.request("OPTIONS", "/api/v1/webhooks/wh_1", headers=bearer(token))
    assert response.status_code == 405
    assert response.headers["Allow"] == "DELETE, GET, PATCH"
    literal = api.client.request("PUT", "/api/v1/contacts/fetch", headers=bearer(token))
    assert literal.headers["Allow"] == "POST"  # not the GET of /contacts/{contact_id}


def test_a_failed_statement_does_not_carry_its_parameters(tmp_path: Any) -> None:
    async def run() -> str:
        engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.sqlite3'}")
        try:
            async with engine.begin() as connection:
                await connection.execute(text("CREATE TABLE t (v TEXT UNIQUE)"))
                await connection.execute(text("INSERT INTO t VALUES (:v)"), {"v": "secret-hash"})
            with pytest.raises(IntegrityError) as failure:
                async with engine.begin() as connection:
                    await connection.execute(
                        text("INSERT INTO t VALUES (:v)"), {"v": "secret-hash"}
                    )
            return str(failure.value)
        finally:
            await engine.dispose()

    message = asyncio.run(run())
    assert "secret-hash" not in message and "hidden due to hide_parameters" in message
