"""Every security scheme, honoured per operation by the generated client, checked by the
generated server: the `security` fixture's client against its API layer (stub handlers
answering which credentials arrived), over real HTTP."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator
from typing import Any

import pytest
from harness import app, models, package
from http_server import serve_http

M = models("security")
C = package("security", "client")


class Auth:
    """Answers which schemes the generated layer found, and what they carried."""

    async def _who(self, credentials: Any) -> Any:
        if credentials is None:
            return M.Who(schemes=[])
        found = credentials.by_scheme
        secret = ",".join(f"{name}={c.value}" for name, c in sorted(found.items()))
        user = next((c.username for c in found.values() if c.username), None)
        return M.Who(schemes=sorted(found), username=user, secret=secret)

    async def with_basic(self, ctx: str, *, credentials: Any) -> Any:
        return await self._who(credentials)

    async def with_bearer(self, ctx: str, *, credentials: Any) -> Any:
        return await self._who(credentials)

    async def with_api_key(self, ctx: str, *, credentials: Any) -> Any:
        return await self._who(credentials)

    async def with_key_and_bearer(self, ctx: str, *, credentials: Any) -> Any:
        return await self._who(credentials)

    async def optional_auth(self, ctx: str, *, credentials: Any) -> Any:
        return await self._who(credentials)

    async def no_auth(self, ctx: str) -> None:
        return None


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_http(app("security", auth=Auth())) as url:
        yield url


@pytest.fixture(autouse=True)
def no_credentials_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for env in importlib.import_module("security_client.auth").CREDENTIAL_ENVS.values():
        monkeypatch.delenv(env, raising=False)


def test_basic_auth_reaches_the_handler_with_its_credentials(base_url: str) -> None:
    client = C.Client(base_url=base_url, username="ada", password="pa:ss")
    who = client.auth.with_basic()
    assert who.schemes == ["basic"] and who.username == "ada"


def test_bearer_is_the_default_scheme(base_url: str) -> None:
    who = C.Client(base_url=base_url, bearer_token="bt-1").auth.with_bearer()
    assert who.schemes == ["bearer"] and who.secret == "bearer=bt-1"


@pytest.mark.parametrize(
    ("option", "scheme"),
    [("header_key", "header_key"), ("query_key", "query_key"), ("cookie_key", "cookie_key")],
)
def test_an_api_key_travels_where_its_scheme_says(base_url: str, option: str, scheme: str) -> None:
    client = C.Client(base_url=base_url, **{option: "k-1"})
    who = client.auth.with_api_key()
    assert who.schemes == [scheme] and who.secret == f"{scheme}=k-1"


def test_the_first_complete_alternative_is_sent(base_url: str) -> None:
    client = C.Client(base_url=base_url, query_key="q", cookie_key="c")
    assert client.auth.with_api_key().schemes == ["query_key"]


def test_an_alternative_of_two_schemes_sends_both(base_url: str) -> None:
    client = C.Client(base_url=base_url, header_key="h", oauth_token="o")
    who = client.auth.with_key_and_bearer()
    assert who.schemes == ["header_key", "oauth"] and who.secret == "header_key=h,oauth=o"
    with pytest.raises(C.APIError, match=r"oauth_token= \(or \$SECURITY_OAUTH_TOKEN\)"):
        C.Client(base_url=base_url, header_key="h").auth.with_key_and_bearer()


def test_optional_security_sends_the_token_only_when_set(base_url: str) -> None:
    with_token = C.Client(base_url=base_url, oidc_token="id-1").auth.optional_auth()
    assert with_token.schemes == ["oidc"] and with_token.secret == "oidc=id-1"
    assert C.Client(base_url=base_url).auth.optional_auth().schemes == []


def test_no_auth_sends_nothing_and_missing_credentials_never_leave(base_url: str) -> None:
    C.Client(base_url=base_url).auth.no_auth()
    with pytest.raises(C.APIError, match=r"no credentials: pass username="):
        C.Client(base_url=base_url, username="only").auth.with_basic()


def test_credentials_come_from_the_environment(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECURITY_HEADER_KEY", "from-env")
    assert C.Client(base_url=base_url).auth.with_api_key().secret == "header_key=from-env"


def test_the_async_client_authenticates_the_same_way(base_url: str) -> None:
    async def call() -> Any:
        async with C.AsyncClient(base_url=base_url, username="u", password="p") as client:
            return await client.auth.with_basic()

    assert asyncio.run(call()).username == "u"
