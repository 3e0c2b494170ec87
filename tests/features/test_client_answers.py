"""Answers are what the schema says (issue 26, point 2), over HTTP, sync and async: an array
answers a `list`, a map a `dict`, a primitive its Python type, a nullable array `None` too;
camelCase and dashed wire names are snake_case attributes, and the wire keeps its names both
ways (the answer read by alias, a request body sent by alias)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from harness import package
from http_server import serve_http

PETS = [
    {"id": 1, "petName": "Rex", "createdAt": "2026-01-01", "owner-email": "a@example.com"},
    {"id": 2, "petName": "Tom"},
]


def real_api(received: list[Any]) -> FastAPI:
    api = FastAPI()
    api.get("/pets")(lambda: PETS)
    api.get("/pets/names")(lambda: ["Rex", "Tom"])
    api.get("/inventory")(lambda: {"available": 3, "sold": 1})
    api.get("/count")(lambda: 2)
    api.get("/maybe")(lambda: None)

    @api.post("/pets", status_code=201)
    async def add(request: Request) -> Any:
        body = await request.json()
        received.append(body)
        return body

    return api


@pytest.fixture
def served() -> Iterator[tuple[str, list[Any]]]:
    received: list[Any] = []
    with serve_http(real_api(received)) as url:
        yield url, received


def test_an_array_answer_is_a_list_of_models(served: tuple[str, list[Any]]) -> None:
    url, _ = served
    client = package("answers", "client").Client(base_url=url)
    pets = client.pets.find_pets()
    assert type(pets) is list and len(pets) == 2
    first = pets[0]
    assert (first.id, first.pet_name, first.created_at, first.owner_email) == (
        1,
        "Rex",
        "2026-01-01",
        "a@example.com",
    )
    assert [p.pet_name for p in pets] == ["Rex", "Tom"]  # iterates items, not ("root", [...])
    assert first.model_dump(by_alias=True, exclude_none=True) == PETS[0]
    assert client.pets.pet_names() == ["Rex", "Tom"]
    client.close()


def test_maps_primitives_and_null(served: tuple[str, list[Any]]) -> None:
    url, _ = served
    client = package("answers", "client").Client(base_url=url)
    inventory = client.store.get_inventory()
    assert type(inventory) is dict and inventory == {"available": 3, "sold": 1}
    count = client.store.count_pets()
    assert type(count) is int and count == 2
    assert client.store.maybe_tags() is None
    client.close()


def test_snake_case_keywords_go_out_under_the_wire_names(served: tuple[str, list[Any]]) -> None:
    url, received = served
    client = package("answers", "client").Client(base_url=url)
    pet = client.pets.add_pet(id_=3, pet_name="Kit", owner_email="k@example.com")
    assert received == [{"id": 3, "petName": "Kit", "owner-email": "k@example.com"}]
    assert (pet.pet_name, pet.owner_email) == ("Kit", "k@example.com")
    client.close()


def test_the_async_client_answers_the_same_types(served: tuple[str, list[Any]]) -> None:
    url, _ = served

    async def go() -> tuple[Any, Any, Any]:
        client = package("answers", "client").AsyncClient(base_url=url)
        result = (
            await client.pets.find_pets(),
            await client.store.get_inventory(),
            await client.store.count_pets(),
        )
        await client.close()
        return result

    pets, inventory, count = asyncio.run(go())
    assert [p.pet_name for p in pets] == ["Rex", "Tom"]
    assert inventory == {"available": 3, "sold": 1} and count == 2
