"""Names that are keywords, builtins, FastAPI's or pydantic's, or collide after case
conversion; no operationId, no tags; schemas named `Response`, `None`, `UUID`, dotted."""

from __future__ import annotations

from typing import Any

from harness import models, package, serve

M = models("safe_names")


class Default:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def get_users_id(self, ctx: str, **kwargs: Any) -> Any:
        self.seen.append((ctx, kwargs))
        return M.ResponseModel.model_validate({"role": "admin", "Field": "f", "import": 1})

    async def put_users_id(self, ctx: str, *, id_: str, body: Any) -> Any:
        self.seen.append((ctx, body))
        return body

    async def post_models_uuid(self, ctx: str, *, uuid: str, body: Any) -> Any:
        self.seen.append((ctx, uuid, body))
        return M.ComExampleThing(BaseModel="b", Path="p")


def test_colliding_parameters_each_reach_the_handler() -> None:
    impl = Default()
    client = serve("safe_names", default=impl)
    query = "id=7&mixedCase=a&mixed_case=b&class=c&Response=r&list=3"
    response = client.get(f"/users/u1?{query}", headers={"from": "me"})
    assert response.status_code == 200, response.text
    assert response.json() == {"role": "admin", "Field": "f", "import": 1}
    ctx, kwargs = impl.seen[0]
    assert ctx == "get_users_id"  # derived from method and path
    assert kwargs == {
        "id_": "u1", "id_query": 7, "mixed_case": "a", "mixed_case_query": "b", "class_": "c",
        "from_": "me", "response": "r", "list_": 3,
    }  # fmt: skip


def test_schemas_bound_by_pointer_not_by_guessing() -> None:
    impl = Default()
    client = serve("safe_names", default=impl)
    role = client.put("/users/u1", json={"name": "r", "level": 2})
    assert role.json() == {"name": "r", "level": 2}
    assert type(impl.seen[0][1]) is M.Role  # the component Role, not the inline enum
    assert set(M.ResponseModelRole) == {M.ResponseModelRole.ADMIN, M.ResponseModelRole.MEMBER}
    created = client.post("/models/6a2f41a3-c54c-fce8-32d2-0324e1c32e22", json={"value": "v"})
    assert created.json() == {"BaseModel": "b", "Path": "p"}
    assert isinstance(impl.seen[1][2], M.NoneModel)


def test_root_extensions_are_typed_constants_and_refs_in_them_stay_as_written() -> None:
    package("safe_names")
    from safe_names_api import constants

    assert constants.RATE_LIMIT["per-second"] == 10
    assert constants.LINKS == {"$ref": "#/components/schemas/Role"}
    assert constants._9_LIVES is True
