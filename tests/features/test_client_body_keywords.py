"""Body fields as keyword arguments of the generated clients, over real HTTP against the
fixtures' generated API layers (stub handlers): JSON bodies whose field names collide with
the method's other arguments, url-encoded forms and multipart uploads; `body=` beside them;
local validation failures raised as the client's own error."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from harness import app, models, package
from http_server import serve_http


class Default:
    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def patch_users_id(self, ctx: str, *, id_: int, body_: str | None, body: Any) -> Any:
        self.seen.append({"id_": id_, "body_": body_, "body": body})
        return body


@pytest.fixture(scope="module")
def default() -> Default:
    return Default()


@pytest.fixture(scope="module")
def base_url(default: Default) -> Iterator[str]:
    with serve_http(app("safe_names", default=default)) as url:
        yield url


def test_colliding_field_names_each_reach_their_place(base_url: str, default: Default) -> None:
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    client = package("safe_names", "client").Client(base_url=base_url, http_client=http)
    profile = client.default.patch_users_id(
        "7",  # an integer path parameter given as text
        body_="query text",
        id_2=42,
        body_2="field text",
        class_="c",
        self_=True,
        display_name="Ada",
        tags=["red"],
        rank=None,  # None is sent as null; omitted fields are not sent at all
    )
    assert sent[-1].url.path == "/users/7" and sent[-1].url.params["body"] == "query text"
    got = default.seen[-1]
    assert got["id_"] == 7 and got["body_"] == "query text"
    wire = got["body"].model_dump(by_alias=True, exclude_unset=True, mode="json")
    assert wire == {
        "id": 42, "body": "field text", "class": "c", "self": True, "displayName": "Ada",
        "tags": ["red"], "rank": None,
    }  # fmt: skip
    assert profile.display_name == "Ada"  # snake_case attribute, wire name kept
    client.default.patch_users_id(1, id_2=1, display_name="B")
    assert set(sent[-1].read().decode().strip("{}").replace('"', "").split(",")) == {
        "id:1",
        "displayName:B",
    }


def test_body_and_fields_are_exclusive_and_required_fields_required(base_url: str) -> None:
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    client = package("safe_names", "client").Client(base_url=base_url, http_client=http)
    with pytest.raises(TypeError, match=r"not both"):
        client.default.patch_users_id(1, body={"id": 1, "displayName": "A"}, class_="c")
    with pytest.raises(TypeError, match=r"missing required keyword argument\(s\): 'display_name'"):
        client.default.patch_users_id(1, id_2=1)
    errors = package("safe_names", "client").errors
    with pytest.raises(errors.RequestValidationError) as caught:
        client.default.patch_users_id(1, id_2=1, display_name="", tags=["green"])
    assert isinstance(caught.value, errors.APIError)
    assert caught.value.fields == ["displayName", "tags"]
    assert [issue.loc for issue in caught.value.errors] == [("displayName",), ("tags", 0)]
    assert "displayName" in str(caught.value) and "tags.0" in str(caught.value)
    assert sent == []  # nothing reached the server
    whole = client.default.patch_users_id(1, body={"id": 1, "displayName": "Whole"})
    assert whole.display_name == "Whole"


def test_async_client_takes_the_same_keywords(base_url: str, default: Default) -> None:
    async def go() -> Any:
        client = package("safe_names", "client").AsyncClient(base_url=base_url)
        try:
            return await client.default.patch_users_id(3, id_2=3, display_name="Async")
        finally:
            await client.close()

    assert asyncio.run(go()).display_name == "Async"
    assert default.seen[-1]["id_"] == 3


class Auth:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def login(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return models("form_login").LoginResponse(
            token=f"t-{body.username}", user=body.username, remember=body.remember
        )


class Files:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(await body.file.read())
        return models("uploads").Stored(name=body.title, size=body.file.size)


def test_form_and_multipart_fields_as_keywords() -> None:
    auth = Auth()
    with serve_http(app("form_login", auth=auth)) as url:
        client = package("form_login", "client").Client(base_url=url)
        session = client.auth.login(username="ada", password="pw", scope=["a", "b"])
    assert (session.token, session.remember) == ("t-ada", False)
    body = auth.seen[-1]
    assert (body.username, body.password.get_secret_value(), body.scope) == (
        "ada",
        "pw",
        ["a", "b"],
    )
    files = Files()
    with serve_http(app("uploads", files=files)) as url:
        client = package("uploads", "client").Client(base_url=url)
        stored = client.files.upload_file(file=b"\x00\x01\x02", title="bin")
    assert (stored.name, stored.size) == ("bin", 3)
    assert files.seen[-1] == b"\x00\x01\x02"
