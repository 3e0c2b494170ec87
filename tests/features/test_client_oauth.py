"""OAuth2 flows (issue 26, point 3), over HTTP, sync and async, against a real token endpoint
issuing expiring tokens: client credentials (cached, renewed before expiry, one retry on a
401 with a fresh token, one fetch however many threads or tasks ask at once), a refresh
token (rotated), OpenID Connect discovery, a static token; the client id, secret and refresh
token go to the token endpoint only (HTTPS or loopback, no redirect followed)."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse
from harness import package
from http_server import serve_http


class AuthServer:
    """A token endpoint and an API on one origin; tokens expire after `lifetime` seconds."""

    def __init__(self) -> None:
        self.lifetime = 60.0
        self.token_requests: list[dict[str, Any]] = []
        self.api_authorizations: list[str] = []
        self.tokens: dict[str, float] = {}  # token -> expiry
        self.issued = 0
        self.refresh = "r1"
        self.token_delay = 0.0
        self.redirect_to: str | None = None
        self.lock = threading.Lock()

    def issue(self, grant: str) -> dict[str, Any]:
        with self.lock:
            self.issued += 1
            token = f"tok-{self.issued}"
            self.tokens[token] = time.monotonic() + self.lifetime
        answer: dict[str, Any] = {"access_token": token, "token_type": "Bearer"}
        answer["expires_in"] = self.lifetime
        if grant == "refresh_token":
            self.refresh = f"r{int(self.refresh[1:]) + 1}"  # rotated on every use
            answer["refresh_token"] = self.refresh
        return answer

    def revoke_all(self) -> None:
        self.tokens.clear()

    def app(self) -> FastAPI:
        api = FastAPI()

        @api.post("/oauth/token")
        @api.post("/oidc/token")
        async def token(request: Request) -> Any:
            form = dict(await request.form())
            self.token_requests.append(
                {
                    "path": request.url.path,
                    "form": form,
                    "authorization": request.headers.get("authorization"),
                }
            )
            if self.redirect_to:
                return RedirectResponse(self.redirect_to, 307)
            await asyncio.sleep(self.token_delay)
            if (
                form.get("grant_type") == "refresh_token"
                and form.get("refresh_token") != self.refresh
            ):
                return JSONResponse({"error": "invalid_grant"}, 400)
            return self.issue(str(form.get("grant_type")))

        @api.get("/.well-known/openid-configuration")
        async def discovery(request: Request) -> Any:
            base = str(request.base_url).rstrip("/")
            return {"issuer": base, "token_endpoint": f"{base}/oidc/token"}

        @api.get("/things")
        @api.get("/me")
        @api.get("/sso")
        async def things(request: Request) -> Any:
            authorization = request.headers.get("authorization", "")
            self.api_authorizations.append(authorization)
            token = authorization.removeprefix("Bearer ")
            expiry = self.tokens.get(token)
            if token != "static" and (expiry is None or expiry < time.monotonic()):
                return JSONResponse({"error": "invalid_token"}, 401)
            return [{"name": token}] if request.url.path == "/things" else {"name": token}

        return api


@pytest.fixture
def auth() -> Iterator[tuple[AuthServer, str]]:
    server = AuthServer()
    with serve_http(server.app()) as url:
        yield server, url


def client(url: str, **options: Any) -> Any:
    return package("oauth", "client").Client(base_url=url, **options)


def test_client_credentials_are_fetched_once_and_cached(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    c = client(url, partner_client_id="app", partner_client_secret="s3cr:t")
    assert c.things.list_things()[0].name == "tok-1"
    assert c.things.list_things()[0].name == "tok-1"
    assert c.with_options(max_retries=0).things.list_things()[0].name == "tok-1"  # shared
    (sent,) = server.token_requests
    assert sent["form"] == {"grant_type": "client_credentials", "scope": "read write"}
    basic = base64.b64encode(b"app:s3cr%3At").decode()  # form-encoded first (RFC 6749 2.3.1)
    assert sent["authorization"] == f"Basic {basic}"
    assert server.api_authorizations == ["Bearer tok-1"] * 3  # the secret stays at the token URL
    c.close()


def test_a_token_is_renewed_before_it_expires(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    server.lifetime = 1.0
    c = client(url, partner_client_id="app", partner_client_secret="s")
    assert c.things.list_things()[0].name == "tok-1"
    time.sleep(0.95)  # inside the last tenth of its lifetime: fetched again before sending
    assert c.things.list_things()[0].name == "tok-2"
    assert len(server.token_requests) == 2
    assert server.api_authorizations == ["Bearer tok-1", "Bearer tok-2"]  # no 401 on the way
    c.close()


def test_a_401_fetches_a_fresh_token_and_retries_once(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    c = client(url, partner_client_id="app", partner_client_secret="s", max_retries=0)
    c.things.list_things()
    server.revoke_all()  # the server forgot its tokens (a restart, a revocation)
    assert c.things.list_things()[0].name == "tok-2"
    assert server.api_authorizations == ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]
    server.revoke_all()
    server.tokens = {}
    server.lifetime = -1.0  # every token refused: one retry, then the 401 is raised
    with pytest.raises(package("oauth", "client").AuthenticationError):
        c.things.list_things()
    assert len(server.token_requests) == 3
    c.close()


def test_threads_share_one_token_fetch(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    server.token_delay = 0.2
    c = client(url, partner_client_id="app", partner_client_secret="s")
    with ThreadPoolExecutor(8) as pool:
        names = list(pool.map(lambda _: c.things.list_things()[0].name, range(8)))
    assert names == ["tok-1"] * 8 and len(server.token_requests) == 1
    c.close()


def test_tasks_share_one_token_fetch(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    server.token_delay = 0.2

    async def go() -> list[str]:
        c = package("oauth", "client").AsyncClient(
            base_url=url, partner_client_id="app", partner_client_secret="s"
        )
        things = await asyncio.gather(*(c.things.list_things() for _ in range(8)))
        server.revoke_all()
        fresh = await c.things.list_things()  # 401, a fresh token, once more
        await c.close()
        return [t[0].name for t in things] + [fresh[0].name]

    assert asyncio.run(go()) == ["tok-1"] * 8 + ["tok-2"]
    assert len(server.token_requests) == 2


def test_a_refresh_token_is_used_and_rotated(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    c = client(url, user_refresh_token="r1", user_client_id="web")
    assert c.things.get_me().name == "tok-1"
    assert server.token_requests[0]["form"] == {
        "grant_type": "refresh_token",
        "refresh_token": "r1",
        "client_id": "web",  # a public client: no secret, its id in the form
    }
    server.revoke_all()
    assert c.things.get_me().name == "tok-2"  # refreshed with the rotated token
    assert server.token_requests[1]["form"]["refresh_token"] == "r2"
    c.close()


def test_openid_connect_discovery_finds_the_token_endpoint(auth: tuple[AuthServer, str]) -> None:
    server, url = auth

    async def go() -> str:
        c = package("oauth", "client").AsyncClient(
            base_url=url, sso_client_id="app", sso_client_secret="s"
        )
        me = await c.things.get_sso()
        await c.close()
        return str(me.name)

    assert asyncio.run(go()) == "tok-1"
    (sent,) = server.token_requests
    assert sent["path"] == "/oidc/token" and sent["form"] == {"grant_type": "client_credentials"}


def test_a_static_token_is_sent_as_given(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    c = client(url, partner_token="static", partner_client_id="app", partner_client_secret="s")
    assert c.things.list_things()[0].name == "static"
    assert server.token_requests == []
    c.close()


def test_credentials_go_nowhere_but_the_token_endpoint(auth: tuple[AuthServer, str]) -> None:
    server, url = auth
    pkg = package("oauth", "client")
    with serve_http(AuthServer().app()) as elsewhere:
        other = elsewhere.replace("127.0.0.1", "localhost")
        server.redirect_to = f"{other}/oauth/token"
        c = client(url, partner_client_id="app", partner_client_secret="s")
        with pytest.raises(pkg.APIError, match="redirected"):
            c.things.list_things()
        c.close()
    # a token URL over plain HTTP off this machine is refused before anything is sent
    remote = client("http://api.example.com", partner_client_id="app", partner_client_secret="s")
    with pytest.raises(pkg.APIError, match="not HTTPS"):
        remote.things.list_things()
    remote.close()
    missing = client(url)
    with pytest.raises(pkg.APIError, match="partner_client_id= and partner_client_secret="):
        missing.things.list_things()
    missing.close()
