"""App platform tokens: the exchange, the service token and the JWK Set, on both backends."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import make_api
from cryptography.fernet import Fernet
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey
from service_support import Api, bearer, one_json, outreach_cli

FLAG = "M6_APP_TOKENS_ENABLED"
EXCHANGE = "/api/v1/app-sessions/exchange"
SERVICE_TOKEN = "/api/v1/service-token"
JWKS = "/api/v1/app-platform/.well-known/jwks.json"
IDP_ISSUER = "https://idp.example.test"
IDP_AUDIENCE = "outreach"
SECRET_KEY = Fernet.generate_key().decode()

IDP_KEY = RSAKey.generate_key(2048, parameters={"kid": "idp-1", "alg": "RS256", "use": "sig"})
OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "idp-1", "alg": "RS256", "use": "sig"})
IDP_JWKS = json.dumps({"keys": [IDP_KEY.as_dict(private=False)]})


def principal(
    *,
    sub: str = "user-1",
    org_id: int | str = 1,
    role: str = "admin",
    key: RSAKey = IDP_KEY,
    lifetime: int = 300,
    **extra: Any,
) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": IDP_ISSUER,
        "aud": IDP_AUDIENCE,
        "sub": sub,
        "org_id": org_id,
        "role": role,
        "iat": now,
        "exp": now + lifetime,
        **extra,
    }
    return jwt.encode({"alg": "RS256", "kid": "idp-1"}, claims, key)


@dataclass
class World:
    api: Api
    org_id: int
    app_id: str

    def exchange(
        self, token: str | None, body: dict[str, Any] | None = None, **headers: str
    ) -> Any:
        sent = dict(headers)
        if token is not None:
            sent.update(bearer(token))
        return self.api.client.post(EXCHANGE, json=body or {"app_id": self.app_id}, headers=sent)


def platform_api(database_url: str, **settings: Any) -> Iterator[Api]:
    values: dict[str, Any] = {
        "key_cache_seconds": 0.0,
        "secret_key": SECRET_KEY,
        "app_idp_jwks": IDP_JWKS,
        "app_idp_issuer": IDP_ISSUER,
        "app_idp_audience": IDP_AUDIENCE,
        "app_exchange_rate_per_second": 3,
        "app_exchange_rate_per_minute": 5,
        "app_service_token_rate_per_second": 3,
        "app_service_token_rate_per_minute": 5,
    }
    values.update(settings)
    yield from make_api(database_url, **values)


@pytest.fixture
def papi(database_url: str) -> Iterator[Api]:
    yield from platform_api(database_url)


def setup_world(api: Api, *, flag: bool = True, consent: bool = True, key: bool = True) -> World:
    platform = api.services.app_platform
    org_id = api.org("client")
    if flag:
        api.call(api.services.orgs.enable_flag, org_id, FLAG)
    app_id = str(api.call(platform.registry.create_app, "Widget"))
    api.call(platform.registry.install, org_id, app_id, consent=consent)
    if key:
        api.call(platform.tokens.create_signing_key)
    return World(api, org_id, app_id)


def fetched_jwks(api: Api) -> KeySet:
    response = api.client.get(JWKS)
    assert response.status_code == 200, response.text
    return KeySet.import_key_set(response.json())


def verify(api: Api, token: str) -> dict[str, Any]:
    decoded = jwt.decode(token, fetched_jwks(api), algorithms=["ES256"])
    return dict(decoded.claims)


def credential(world: World) -> tuple[str, str]:
    registry = world.api.services.app_platform.registry
    client_id, secret = world.api.call(registry.create_credential, world.org_id, world.app_id)
    return str(client_id), str(secret)


# -- gating ------------------------------------------------------------------------------


def test_exchange_and_service_token_are_404_while_the_flag_is_off(papi: Api) -> None:
    world = setup_world(papi, flag=False)
    client_id, secret = credential(world)
    response = world.exchange(principal(org_id=world.org_id))
    assert response.status_code == 404 and response.json() == {"detail": "Not Found"}
    response = papi.client.post(
        SERVICE_TOKEN, json={"client_id": client_id, "client_secret": secret}
    )
    assert response.status_code == 404 and response.json() == {"detail": "Not Found"}
    # the flag of another organisation changes nothing
    other = papi.org("other")
    papi.call(papi.services.orgs.enable_flag, other, FLAG)
    assert world.exchange(principal(org_id=world.org_id)).status_code == 404
    papi.call(papi.services.orgs.enable_flag, world.org_id, FLAG)
    assert world.exchange(principal(org_id=world.org_id)).status_code == 200


def test_jwks_is_empty_then_lists_every_key_once_and_verifies_issued_tokens(papi: Api) -> None:
    assert papi.client.get(JWKS).json() == {"keys": []}
    world = setup_world(papi, key=False)
    assert papi.client.get(JWKS).json() == {"keys": []}
    tokens = papi.services.app_platform.tokens
    first = papi.call(tokens.create_signing_key)
    issued = world.exchange(principal(org_id=world.org_id))
    assert issued.status_code == 200, issued.text
    second = papi.call(tokens.create_signing_key)
    document = papi.client.get(JWKS).json()
    kids = [key["kid"] for key in document["keys"]]
    assert sorted(kids) == sorted([first, second]) and len(set(kids)) == 2
    for key in document["keys"]:
        assert key["kty"] == "EC" and key["alg"] == "ES256" and "d" not in key
    # a token signed before the rotation still verifies; a new one is signed by the new key
    old = issued.json()["data"]["access_token"]
    assert verify(papi, old)["org_id"] == world.org_id
    new = world.exchange(principal(org_id=world.org_id, sub="user-2")).json()["data"]
    assert jwt.decode(new["access_token"], fetched_jwks(papi)).header["kid"] == second


def test_signing_keys_need_a_server_key(database_url: str) -> None:
    for api in platform_api(database_url, secret_key=None):
        with pytest.raises(Exception, match="OUTREACH_SECRET_KEY"):
            api.call(api.services.app_platform.tokens.create_signing_key)


# -- exchange ----------------------------------------------------------------------------


def test_exchange_mints_a_token_from_the_principal(papi: Api) -> None:
    world = setup_world(papi)
    response = world.exchange(principal(org_id=world.org_id, sub="alice", role="editor"))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["token_type"] == "Bearer" and data["expires_in"] == 900
    claims = verify(papi, data["access_token"])
    assert claims["sub"] == "alice" and claims["role"] == "editor"
    assert claims["org_id"] == world.org_id and claims["aud"] == world.app_id
    assert claims["iss"] == "outreach-app-platform" and claims["token_use"] == "session"
    assert claims["exp"] - claims["iat"] == 900
    # X-Org-Id naming the principal's organisation is accepted; another one is refused
    ok = world.exchange(
        principal(org_id=world.org_id, sub="bob"), **{"X-Org-Id": str(world.org_id)}
    )
    assert ok.status_code == 200
    other = papi.org("other")
    papi.call(papi.services.orgs.enable_flag, other, FLAG)
    refused = world.exchange(
        principal(org_id=world.org_id, sub="carol"), **{"X-Org-Id": str(other)}
    )
    assert refused.status_code == 403 and "detail" in refused.json()


def test_forged_identity_in_the_body_is_ignored(papi: Api) -> None:
    world = setup_world(papi)
    other = papi.org("victim")
    papi.call(papi.services.orgs.enable_flag, other, FLAG)
    body = {
        "app_id": world.app_id,
        "sub": "root",
        "subject": "root",
        "org_id": other,
        "organization_id": other,
        "role": "owner",
    }
    response = world.exchange(principal(org_id=world.org_id, sub="mallory", role="viewer"), body)
    assert response.status_code == 200, response.text
    claims = verify(papi, response.json()["data"]["access_token"])
    assert claims["sub"] == "mallory" and claims["role"] == "viewer"
    assert claims["org_id"] == world.org_id


@pytest.mark.parametrize(
    "case",
    ["none", "not-bearer", "garbage", "api-key", "wrong-key", "expired", "wrong-issuer",
     "wrong-audience", "no-role", "bad-org", "arabic-indic-org", "fullwidth-org",
     "superscript-org", "signed-org", "spaced-org", "hs256", "app-token"],
)  # fmt: skip
def test_exchange_without_a_valid_principal_is_401(papi: Api, case: str) -> None:
    world = setup_world(papi)
    org = world.org_id
    headers: dict[str, str] = {}
    token: str | None = None
    if case == "not-bearer":
        headers = {"Authorization": f"Basic {principal(org_id=org)}"}
    elif case == "garbage":
        token = "not.a.jwt"
    elif case == "api-key":
        token = papi.key(org)
    elif case == "wrong-key":
        token = principal(org_id=org, key=OTHER_KEY)
    elif case == "expired":
        token = principal(org_id=org, lifetime=-120)
    elif case == "wrong-issuer":
        token = principal(org_id=org, iss="https://evil.example")
    elif case == "wrong-audience":
        token = principal(org_id=org, aud="someone-else")
    elif case == "no-role":
        now = int(time.time())
        claims = {
            "iss": IDP_ISSUER,
            "aud": IDP_AUDIENCE,
            "sub": "x",
            "org_id": org,
            "exp": now + 60,
        }
        token = jwt.encode({"alg": "RS256", "kid": "idp-1"}, claims, IDP_KEY)
    elif case == "bad-org":
        token = principal(org_id="acme")
    elif case == "arabic-indic-org":  # issue 30 hole 8: int("١") == 1, but it is no ASCII digit
        token = principal(org_id="".join(chr(0x660 + int(d)) for d in str(org)))
    elif case == "fullwidth-org":
        token = principal(org_id="".join(chr(0xFF10 + int(d)) for d in str(org)))
    elif case == "superscript-org":  # "²".isdigit() is true and int("²") raises
        token = principal(org_id="\u00b2")
    elif case == "signed-org":
        token = principal(org_id=f"+{org}")
    elif case == "spaced-org":
        token = principal(org_id=f" {org}\n")
    elif case == "hs256":
        from joserfc.jwk import OctKey

        secret = OctKey.import_key(json.dumps(IDP_KEY.as_dict(private=False)).encode())
        claims = {"iss": IDP_ISSUER, "aud": IDP_AUDIENCE, "sub": "x", "org_id": org,
                  "role": "admin", "exp": int(time.time()) + 60}  # fmt: skip
        token = jwt.encode({"alg": "HS256", "kid": "idp-1"}, claims, secret, algorithms=["HS256"])
    elif case == "app-token":
        minted = world.exchange(principal(org_id=org)).json()["data"]["access_token"]
        token = minted
    response = world.exchange(token, **headers)
    assert response.status_code == 401, response.text
    assert isinstance(response.json()["detail"], str)


def test_exchange_without_a_consented_installation_is_403(papi: Api) -> None:
    world = setup_world(papi, consent=False)
    response = world.exchange(principal(org_id=world.org_id))
    assert response.status_code == 403 and "detail" in response.json()
    # an app installed in another organisation does not count
    other = papi.org("other")
    papi.call(papi.services.orgs.enable_flag, other, FLAG)
    registry = papi.services.app_platform.registry
    papi.call(registry.install, other, world.app_id, consent=True)
    assert world.exchange(principal(org_id=world.org_id)).status_code == 403
    assert (
        world.exchange(principal(org_id=world.org_id), {"app_id": "app_unknown"}).status_code == 403
    )
    papi.call(registry.install, world.org_id, world.app_id, consent=True)
    assert world.exchange(principal(org_id=world.org_id)).status_code == 200


def test_exchange_limiter_is_per_principal_and_app(papi: Api) -> None:
    world = setup_world(papi)
    alice = principal(org_id=world.org_id, sub="alice")
    statuses = [world.exchange(alice).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    refused = world.exchange(alice)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.json() == {"detail": "Rate limit exceeded. Please slow down."}
    # another principal, and the same principal for another app, have their own budgets
    assert world.exchange(principal(org_id=world.org_id, sub="bob")).status_code == 200
    registry = papi.services.app_platform.registry
    second_app = str(papi.call(registry.create_app, "Other"))
    papi.call(registry.install, world.org_id, second_app, consent=True)
    assert world.exchange(alice, {"app_id": second_app}).status_code == 200


# -- service token -----------------------------------------------------------------------


def test_service_token_mints_for_a_valid_credential(papi: Api) -> None:
    world = setup_world(papi)
    client_id, secret = credential(world)
    response = papi.client.post(
        SERVICE_TOKEN, json={"client_id": client_id, "client_secret": secret}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["token_type"] == "Bearer"
    claims = verify(papi, data["access_token"])
    assert claims["sub"] == client_id and claims["aud"] == world.app_id
    assert claims["org_id"] == world.org_id and claims["token_use"] == "service"


def test_service_token_wrong_secret_or_unknown_client_is_401(papi: Api) -> None:
    world = setup_world(papi)
    client_id, secret = credential(world)
    for body in (
        {"client_id": client_id, "client_secret": secret + "x"},
        {"client_id": "appc_unknown", "client_secret": secret},
        {"client_id": client_id, "client_secret": ""},
    ):
        response = papi.client.post(SERVICE_TOKEN, json=body)
        assert response.status_code == 401
        assert response.json() == {"detail": "Invalid client credential"}


def test_service_token_is_throttled_before_the_credential_is_checked(papi: Api) -> None:
    world = setup_world(papi)
    client_id, secret = credential(world)
    wrong = {"client_id": client_id, "client_secret": "apps_wrong"}
    assert [papi.client.post(SERVICE_TOKEN, json=wrong).status_code for _ in range(3)] == [401] * 3
    # wrong secrets used the budget: even the right secret is now refused, unchecked
    right = {"client_id": client_id, "client_secret": secret}
    refused = papi.client.post(SERVICE_TOKEN, json=right)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # unknown client ids are throttled too (before any lookup), each on its own budget
    ghost = {"client_id": "appc_ghost", "client_secret": "x"}
    statuses = [papi.client.post(SERVICE_TOKEN, json=ghost).status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]


# -- admin commands ----------------------------------------------------------------------


def run_cli(*args: str, database_url: str, secret_key: str | None = None) -> Any:
    env = os.environ.copy()
    env.pop("OUTREACH_SECRET_KEY", None)
    if secret_key is not None:
        env["OUTREACH_SECRET_KEY"] = secret_key
    return outreach_cli(*args, database_url=database_url, env=env)


def test_admin_commands(papi: Api, database_url: str) -> None:
    org = papi.org("client")
    papi.call(papi.services.orgs.enable_flag, org, FLAG)
    url = database_url
    app_id = one_json(run_cli("admin", "create-app", "--name", "Widget", database_url=url))[
        "app_id"
    ]
    installed = one_json(
        run_cli("admin", "install-app", "--org-id", str(org), "--app-id", app_id, database_url=url)
    )
    assert installed["consented"] is False and isinstance(installed["installation_id"], int)
    refused = run_cli(
        "admin", "create-app-credential", "--org-id", str(org), "--app-id", app_id,
        database_url=url,
    )  # fmt: skip
    assert refused.returncode != 0 and "consented" in refused.stderr
    consented = one_json(
        run_cli(
            "admin",
            "install-app",
            "--org-id",
            str(org),
            "--app-id",
            app_id,
            "--consent",
            database_url=url,
        )
    )
    assert consented["installation_id"] == installed["installation_id"] and consented["consented"]
    created = one_json(
        run_cli(
            "admin",
            "create-app-credential",
            "--org-id",
            str(org),
            "--app-id",
            app_id,
            database_url=url,
        )
    )
    assert set(created) == {"client_id", "client_secret"}
    no_key = run_cli("admin", "create-signing-key", database_url=url)
    assert no_key.returncode != 0 and "OUTREACH_SECRET_KEY" in no_key.stderr
    kid = one_json(run_cli("admin", "create-signing-key", database_url=url, secret_key=SECRET_KEY))[
        "kid"
    ]
    assert [key["kid"] for key in papi.client.get(JWKS).json()["keys"]] == [kid]
    response = papi.client.post(SERVICE_TOKEN, json=created)
    assert response.status_code == 200, response.text
    verify(papi, response.json()["data"]["access_token"])
    unknown = run_cli(
        "admin", "install-app", "--org-id", str(org), "--app-id", "app_x", database_url=url
    )
    assert unknown.returncode != 0 and "no app" in unknown.stderr


def test_the_stored_secrets_are_not_the_secrets(papi: Api) -> None:
    from outreach_server.app_platform.tables import app_credentials, app_signing_keys
    from sqlalchemy import select

    world = setup_world(papi)
    _, secret = credential(world)

    async def rows() -> tuple[list[Any], list[Any]]:
        async with papi.services.engine.connect() as connection:
            creds = (await connection.execute(select(app_credentials))).all()
            keys = (await connection.execute(select(app_signing_keys))).all()
            return list(creds), list(keys)

    creds, keys = papi.call(rows)
    assert all(secret not in str(tuple(row)) for row in creds)
    for row in keys:
        assert '"d"' not in row.private_jwk  # encrypted at rest with the server key
        private = json.loads(Fernet(SECRET_KEY.encode()).decrypt(row.private_jwk.encode()))
        assert ECKey.import_key(private).kid == row.kid and "d" in private
