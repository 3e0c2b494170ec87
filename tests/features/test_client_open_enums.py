"""Enums open in answers, closed in requests (issue 26, point 5), over HTTP, sync and async:
the server answers a status added after the client was generated; the list of orders still
reads (the value kept, a member of its enum), and a request with an undeclared value is
refused before anything is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from harness import package
from http_server import serve_http

ORDERS = [
    {"id": "o1", "status": "pending", "priority": 1},
    {"id": "o2", "status": "returned", "priority": 5, "tags": ["shipped", "lost"]},  # new values
]


def real_api(received: list[Any]) -> FastAPI:
    api = FastAPI()
    api.get("/orders")(lambda: ORDERS)
    api.get("/orders/priority")(lambda: 7)

    @api.post("/orders", status_code=201)
    async def create(request: Request) -> Any:
        received.append(await request.json())
        return {**received[-1], "status": "on_hold"}

    return api


@pytest.fixture
def served() -> Iterator[tuple[str, list[Any]]]:
    received: list[Any] = []
    with serve_http(real_api(received)) as url:
        yield url, received


def test_an_unknown_value_in_an_answer_is_kept(served: tuple[str, list[Any]]) -> None:
    url, _ = served
    pkg = package("open_enums", "client")
    client = pkg.Client(base_url=url)
    orders = client.orders.list_orders()
    assert [o.status for o in orders] == ["pending", "returned"]
    new = orders[1]
    assert isinstance(new.status, pkg.models.Status) and new.status.value == "returned"
    assert orders[0].status is pkg.models.Status.PENDING  # known values stay the members
    assert new.priority == 5 and isinstance(new.priority, pkg.models.Priority)
    assert new.tags == [pkg.models.Status.SHIPPED, "lost"]
    assert new.model_dump(mode="json", exclude_none=True) == ORDERS[1]
    assert client.orders.top_priority() == 7  # an enum answer on its own
    answer = client.with_raw_response.orders.list_orders()
    assert answer.parse()[1].status == "returned"
    client.close()


def test_a_request_is_still_checked_against_the_declared_values(
    served: tuple[str, list[Any]],
) -> None:
    url, received = served
    pkg = package("open_enums", "client")
    client = pkg.Client(base_url=url)
    with pytest.raises(pkg.RequestValidationError) as caught:
        client.orders.create_order(id_="o3", status="returned")
    assert caught.value.fields == ["status"]
    assert received == []  # nothing was sent
    with pytest.raises(ValueError):
        pkg.models.Status("returned")  # outside an answer the enum is closed
    created = client.orders.create_order(id_="o3", status=pkg.models.Status.SHIPPED)
    assert received == [{"id": "o3", "status": "shipped"}]
    assert created.status == "on_hold"  # the answer is open again
    client.close()


def test_the_async_client_reads_new_values_too(served: tuple[str, list[Any]]) -> None:
    url, _ = served

    async def go() -> list[str]:
        client = package("open_enums", "client").AsyncClient(base_url=url)
        orders = await client.orders.list_orders()
        await client.close()
        return [o.status.value for o in orders]

    assert asyncio.run(go()) == ["pending", "returned"]
