"""Cookie and header parameters, every query style, object parameters and typed path parameters."""

from __future__ import annotations

from typing import Any

from harness import models, serve

M = models("parameters")


class Items:
    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    async def find_items(self, ctx: str, **kwargs: Any) -> Any:
        self.seen = kwargs
        return M.FindItemsResponse.model_validate({"ok": True})

    async def get_tile(self, ctx: str, *, coords: list[int]) -> Any:
        self.seen = {"coords": coords}
        return M.GetTileResponse(coords)


def test_every_style_is_decoded_as_the_spec_serialises_it() -> None:
    items = Items()
    client = serve("parameters", items=items)
    client.cookies.set("session", "s1")
    query = (
        "ids=1,2,3&colour=red&colour=blue&words=a%20b%20c&sizes=4|5"
        "&filter[name]=lamp&filter[min_price]=9.5&filter[in_stock]=true"
        "&x=1&y=2&box=w,3,h,4"
    )
    response = client.get(f"/items/disc/42?{query}", headers={"X-Request-Id": "r-1"})
    assert response.status_code == 200, response.text
    seen = items.seen
    assert seen["kind"] == M.FindItemsKind.DISC
    assert seen["ref"].root == 42
    assert (seen["session"], seen["theme"], seen["x_request_id"]) == ("s1", "light", "r-1")
    assert (seen["ids"], seen["colour"], seen["words"], seen["sizes"]) == (
        [1, 2, 3], ["red", "blue"], ["a", "b", "c"], [4, 5]
    )  # fmt: skip
    assert seen["filter_"].model_dump() == {"name": "lamp", "min_price": 9.5, "in_stock": True}
    assert (seen["point"].x, seen["point"].y) == (1, 2)
    assert (seen["box"].w, seen["box"].h) == (3, 4)


def test_union_path_parameter_and_absent_optionals() -> None:
    items = Items()
    client = serve("parameters", items=items)
    client.cookies.set("session", "s1")
    assert client.get("/items/book/abc").status_code == 200
    ref = items.seen["ref"].root  # the pattern-constrained member is a class of its own
    assert getattr(ref, "root", ref) == "abc"
    assert items.seen["ids"] is None and items.seen["filter_"] is None


def test_bad_values_are_422_in_fastapi_format() -> None:
    items = Items()
    client = serve("parameters", items=items)
    client.cookies.set("session", "s1")
    bad = client.get("/items/book/ABC!")
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"][:2] == ["path", "ref"]
    assert client.get("/items/book/1?ids=1,x").status_code == 422
    assert client.get("/items/book/1?filter[min_price]=cheap").status_code == 422
    assert client.get("/items/cd/1").status_code == 422
    client.cookies.clear()
    assert client.get("/items/book/1").status_code == 422  # the required cookie
    assert items.seen == {}


def test_simple_array_in_path() -> None:
    items = Items()
    client = serve("parameters", items=items)
    assert client.get("/tiles/3,4,5").json() == [3, 4, 5]
    assert client.get("/tiles/3,x").status_code == 422
