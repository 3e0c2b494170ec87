"""Each security scheme's credentials reach the handler; a missing credential is 401."""

from __future__ import annotations

import base64
from typing import Any

from harness import models, serve

M = models("security")


def who(credentials: Any) -> Any:
    if credentials is None:
        return M.Who(schemes=[])
    first = next(iter(credentials.by_scheme.values()))
    return M.Who(
        schemes=sorted(credentials.by_scheme),
        username=first.username,
        secret=first.password or first.value,
    )


class Auth:
    async def with_basic(self, ctx: str, *, credentials: Any) -> Any:
        return who(credentials)

    async def with_bearer(self, ctx: str, *, credentials: Any) -> Any:
        return who(credentials)

    async def with_api_key(self, ctx: str, *, credentials: Any) -> Any:
        return who(credentials)

    async def with_key_and_bearer(self, ctx: str, *, credentials: Any) -> Any:
        assert credentials.scopes["oauth"] == ("read",)
        return M.Who(schemes=sorted(credentials.by_scheme), secret=credentials["oauth"].value)

    async def optional_auth(self, ctx: str, *, credentials: Any) -> Any:
        return who(credentials)

    async def no_auth(self, ctx: str) -> None:
        return None


def test_basic_auth_operation_receives_its_credentials() -> None:
    client = serve("security", auth=Auth())
    token = base64.b64encode(b"ada:s3cr:et").decode()
    response = client.get("/basic", headers={"Authorization": f"Basic {token}"})
    assert response.json() == {"schemes": ["basic"], "username": "ada", "secret": "s3cr:et"}
    refused = client.get("/basic", headers={"Authorization": "Bearer abc"})
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Basic"
    assert client.get("/basic", headers={"Authorization": "Basic !!"}).status_code == 401


def test_bearer_from_the_root_requirement() -> None:
    client = serve("security", auth=Auth())
    assert client.get("/bearer", headers={"Authorization": "Bearer t0k"}).json()["secret"] == "t0k"
    assert client.get("/bearer").status_code == 401


def test_api_key_in_header_query_or_cookie() -> None:
    client = serve("security", auth=Auth())
    assert client.get("/keys", headers={"X-API-Key": "h"}).json()["schemes"] == ["header_key"]
    assert client.get("/keys?api_key=q").json() == {
        "schemes": ["query_key"],
        "username": None,
        "secret": "q",
    }
    client.cookies.set("key", "c")
    assert client.get("/keys").json()["schemes"] == ["cookie_key"]
    client.cookies.clear()
    assert client.get("/keys").status_code == 401


def test_and_requirement_needs_every_scheme_and_optional_security() -> None:
    client = serve("security", auth=Auth())
    both = {"X-API-Key": "k", "Authorization": "Bearer o"}
    assert client.get("/both", headers=both).json()["schemes"] == ["header_key", "oauth"]
    assert client.get("/both", headers={"X-API-Key": "k"}).status_code == 401
    assert client.get("/maybe").json() == {"schemes": [], "username": None, "secret": None}
    assert client.get("/maybe", headers={"Authorization": "Bearer i"}).json()["schemes"] == ["oidc"]
    assert client.get("/open").status_code == 204
