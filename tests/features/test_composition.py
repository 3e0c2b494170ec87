"""Recursive schemas, allOf/oneOf/anyOf with a discriminator, const, readOnly and writeOnly."""

from __future__ import annotations

from typing import Any

from harness import app, models, package, serve
from http_server import serve_http

M = models("composition")


class Shapes:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def create_node(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return M.Node.model_validate({"id": 1, **body.model_dump(exclude_none=True)})

    async def create_shape(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return body

    async def create_account(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return M.AccountOutput(id="a1", email=body.email)

    async def echo_value(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return body

    async def create_circle(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return body


def test_recursive_body_leaves_read_only_properties_out() -> None:
    shapes = Shapes()
    client = serve("composition", shapes=shapes)
    tree = {"name": "root", "children": [{"name": "leaf", "children": []}]}
    response = client.post("/nodes", json=tree)
    assert response.status_code == 201, response.text
    assert response.json()["id"] == 1
    assert response.json()["children"][0]["name"] == "leaf"
    assert "id" not in M.NodeInput.model_fields and "id" in M.Node.model_fields
    assert type(shapes.seen[0].children[0]).__name__ == "NodeInput"


def test_discriminated_union_picks_the_member_by_its_const() -> None:
    shapes = Shapes()
    client = serve("composition", shapes=shapes)
    assert client.post("/shapes", json={"kind": "square", "side": 2}).json() == {
        "kind": "square", "label": None, "side": 2.0
    }  # fmt: skip
    assert type(shapes.seen[0].root).__name__ == "Square"
    assert client.post("/shapes", json={"kind": "circle", "side": 2}).status_code == 422
    assert client.post("/shapes", json={"kind": "hexagon"}).status_code == 422


def test_write_only_never_in_a_response_and_const_is_enforced() -> None:
    shapes = Shapes()
    client = serve("composition", shapes=shapes)
    created = client.post("/accounts", json={"email": "a@b.c", "password": "pw", "version": 2})
    assert created.status_code == 201
    assert "password" not in created.json() and created.json()["id"] == "a1"
    assert shapes.seen[0].password == "pw"
    assert client.post("/accounts", json={"email": "a@b.c", "version": 3}).status_code == 422
    assert "password" not in M.AccountOutput.model_fields


def test_any_of_keeps_each_member_type() -> None:
    client = serve("composition", shapes=Shapes())
    assert client.post("/values", json=5).json() == 5
    assert client.post("/values", json="five").json() == "five"
    assert client.post("/values", json={"kind": "k"}).json() == {"kind": "k", "label": None}


def test_the_client_takes_an_all_of_body_as_keywords_and_unions_as_their_members() -> None:
    """allOf of objects: every member's properties are keyword arguments; oneOf / anyOf
    bodies take any member (a model of it, plain data, a scalar) as `body=`."""
    shapes = Shapes()
    with serve_http(app("composition", shapes=shapes)) as url:
        client = package("composition", "client").Client(base_url=url)
        models_ = package("composition", "client").models
        circle = client.shapes.create_circle(kind="circle", radius=2.5, label="c")
        assert (circle.kind, circle.radius, circle.label) == ("circle", 2.5, "c")
        assert shapes.seen[-1].radius == 2.5
        square = client.shapes.create_shape(body=models_.Square(kind="square", side=3))
        assert (square.root.kind, square.root.side) == ("square", 3)
        assert client.shapes.echo_value(body=7).root == 7
        assert client.shapes.echo_value(body="seven").root == "seven"
        client.close()
