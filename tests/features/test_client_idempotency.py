"""Idempotency keys (issue 26, point 9), over HTTP, sync and async: an operation declaring an
`Idempotency-Key` header (any case) sends a fresh key per call unless given, the same key on
every retry of that call, and is retried like a GET; a POST without one is not retried. The
server answers 500 then 201, as a real API does when its first attempt failed midway."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from harness import package
from http_server import serve_http


class Flaky:
    """Each path fails its first request of every call with a 500; records the keys seen."""

    def __init__(self) -> None:
        self.keys: list[str | None] = []
        self.fail_next = True

    def app(self) -> FastAPI:
        api = FastAPI()

        @api.post("/payments")
        @api.post("/refunds")
        async def create(request: Request) -> Any:
            self.keys.append(request.headers.get("idempotency-key"))
            if self.fail_next:
                self.fail_next = False
                return JSONResponse({"detail": "try again"}, 500, headers={"Retry-After": "0"})
            self.fail_next = True
            return JSONResponse(await request.json(), 201)

        return api


@pytest.fixture
def flaky() -> Iterator[tuple[Flaky, str]]:
    server = Flaky()
    with serve_http(server.app()) as url:
        yield server, url


def test_a_retry_repeats_the_key_and_each_call_gets_its_own(flaky: tuple[Flaky, str]) -> None:
    server, url = flaky
    client = package("idempotency", "client").Client(base_url=url)
    assert client.payments.create_payment(amount=5).amount == 5
    assert client.payments.create_payment(amount=6).amount == 6
    first, retry, second, second_retry = server.keys
    assert first and first == retry  # the retry of one call sends the same key
    assert second and second == second_retry and second != first  # a new call, a new key
    client.close()


def test_a_given_key_is_sent_as_given(flaky: tuple[Flaky, str]) -> None:
    server, url = flaky
    client = package("idempotency", "client").Client(base_url=url)
    client.payments.create_payment(amount=1, idempotency_key="order-42")
    assert server.keys == ["order-42", "order-42"]
    client.close()


def test_a_post_without_the_header_is_not_retried(flaky: tuple[Flaky, str]) -> None:
    server, url = flaky
    pkg = package("idempotency", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.InternalServerError):
        client.payments.create_refund(amount=1)
    assert server.keys == [None]  # one attempt: a retried POST might act twice
    client.close()


def test_the_async_client_repeats_the_key_too(flaky: tuple[Flaky, str]) -> None:
    server, url = flaky

    async def go() -> int:
        client = package("idempotency", "client").AsyncClient(base_url=url)
        payment = await client.payments.create_payment(amount=7)
        await client.close()
        return int(payment.amount)

    assert asyncio.run(go()) == 7
    assert len(server.keys) == 2 and server.keys[0] and server.keys[0] == server.keys[1]
