"""Security schemes as the client applies them, and as the docs show them (one source for both).

Every scheme of `components/securitySchemes` becomes credentials of the client: an apiKey
(header, query or cookie) and a bearer-like scheme (http bearer, oauth2, openIdConnect) one
option, http basic two (user name and password). Option names come from the scheme names
(`ApiKey` -> `api_key`, `PetstoreAuth` (oauth2) -> `petstore_token`), each read from an
environment variable `<PREFIX>_<OPTION>` when not passed. Per operation, the client sends the
first alternative of its `security` whose credentials are all configured.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Any

from ...core.naming import snake, unique
from ...ir import Api, Operation

KINDS = ("header", "query", "cookie", "basic", "bearer")
# names the client's constructor already uses (or that would shadow its attributes)
TAKEN = frozenset(
    {
        "base_url",
        "default_headers",
        "environment",
        "http_client",
        "max_retries",
        "pacing",
        "retry_unsafe",
        "root",
        "self",
        "timeout",
    }
)
NAME_SUFFIXES = (
    "_security_scheme",
    "_security",
    "_scheme",
    "_authentication",
    "_auth",
    "_oauth2",
    "_oauth",
    "_openid",
)


@dataclass(frozen=True)
class OAuth:
    """Where an oauth2 or openIdConnect scheme's tokens are fetched, and the options holding
    what fetching them takes (client id and secret, refresh token)."""

    token_url: str  # the clientCredentials flow's tokenUrl ("" when it has none)
    refresh_url: str  # a flow's refreshUrl, else the authorizationCode/password tokenUrl
    discovery_url: str  # openIdConnectUrl: the token endpoint is read from it
    scopes: tuple[str, ...]  # asked for with client credentials
    options: tuple[str, str, str]  # client id, client secret, refresh token
    envs: tuple[str, str, str]


@dataclass(frozen=True)
class Scheme:
    """One security scheme: how its credential travels and which client options hold it."""

    name: str  # as in the spec
    kind: str  # header | query | cookie | basic | bearer
    wire_name: str  # header, query or cookie name ("Authorization" for basic and bearer)
    options: tuple[str, ...]  # client options: one, or (username, password) for basic
    envs: tuple[str, ...]  # the environment variable of each option
    description: str
    provisional: bool
    oauth: OAuth | None = None

    @property
    def how(self) -> str:
        """How a request carries the credential, in words the docs print."""
        if self.kind == "basic":
            return "`Authorization: Basic <base64(username:password)>`"
        if self.kind == "bearer":
            return "`Authorization: Bearer <token>`"
        return f"{self.kind} `{self.wire_name}`"


def _kind(scheme: dict[str, Any]) -> tuple[str, str]:
    kind = str(scheme.get("type", ""))
    if kind == "apiKey":
        where = str(scheme.get("in", "header"))
        return (where if where in ("header", "query", "cookie") else "header"), str(
            scheme.get("name", "")
        )
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        return "basic", "Authorization"
    # http bearer (and any other http scheme sent as a token), oauth2, openIdConnect
    return "bearer", "Authorization"


def _stem(name: str) -> str:
    # one word each, so that `PetstoreOAuth` is `petstore_oauth`, not `petstore_o_auth`
    for spelled, word in (("OAuth", "Oauth"), ("OpenID", "Openid"), ("OpenId", "Openid")):
        name = name.replace(spelled, word)
    stem = snake(name).strip("_")
    for suffix in NAME_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def _option(stem: str, kind: str) -> str:
    if stem.endswith(("_key", "_token")) or stem in ("key", "token", "api_key"):
        return stem
    return f"{stem}_key" if kind in ("header", "query", "cookie") else f"{stem}_token"


def _flows(scheme: dict[str, Any]) -> tuple[str, str, str, tuple[str, ...]] | None:
    """(client-credentials token URL, refresh URL, discovery URL, scopes) of a scheme whose
    tokens the client can fetch; None for any other scheme (its token is given as is)."""
    if scheme.get("type") == "openIdConnect":
        url = str(scheme.get("openIdConnectUrl") or "")
        return ("", "", url, ()) if url else None
    flows = scheme.get("flows") if scheme.get("type") == "oauth2" else None
    if not isinstance(flows, dict):
        return None
    cc = flows.get("clientCredentials")
    cc = cc if isinstance(cc, dict) else {}
    token_url = str(cc.get("tokenUrl") or "")
    scopes = cc.get("scopes")
    refresh_url = str(cc.get("refreshUrl") or "")
    for flow in ("authorizationCode", "password", "deviceAuthorization"):
        found = flows.get(flow)
        if isinstance(found, dict) and not refresh_url:
            refresh_url = str(found.get("refreshUrl") or found.get("tokenUrl") or "")
    if not token_url and not refresh_url:
        return None
    return token_url, refresh_url, "", tuple(scopes) if isinstance(scopes, dict) else ()


def schemes(api: Api, env_prefix: str) -> dict[str, Scheme]:
    """Every security scheme of the spec, with unique client options, in the spec's order."""
    used: set[str] = set(TAKEN)
    out: dict[str, Scheme] = {}
    basic_count = sum(
        1
        for s in api.security_schemes.values()
        if _kind(s if isinstance(s, dict) else {})[0] == "basic"
    )
    fetching_count = sum(
        1 for s in api.security_schemes.values() if _flows(s if isinstance(s, dict) else {})
    )
    for name, raw in api.security_schemes.items():
        scheme = raw if isinstance(raw, dict) else {}
        kind, wire = _kind(scheme)
        stem = _stem(name) or "credential"
        if kind == "basic":
            wanted = (
                ["username", "password"]
                if basic_count == 1
                else [f"{stem}_username", f"{stem}_password"]
            )
        else:
            wanted = [_option(stem, kind)]
        options = tuple(_unique(option, used) for option in wanted)
        envs = tuple(f"{env_prefix}{option.upper()}" for option in options)
        oauth = None
        flows = _flows(scheme)
        if flows is not None:
            prefix = "" if fetching_count == 1 else f"{stem}_"
            wanted = ["client_id", "client_secret"] + (
                ["refresh_token"] if flows[1] or flows[2] else []
            )
            names = [_unique(f"{prefix}{n}", used) for n in wanted] + ["", ""]
            oauth = OAuth(
                *flows,
                options=(names[0], names[1], names[2]),  # "": no refresh token for this scheme
                envs=(
                    f"{env_prefix}{names[0].upper()}",
                    f"{env_prefix}{names[1].upper()}",
                    f"{env_prefix}{names[2].upper()}" if names[2] else "",
                ),
            )
        out[name] = Scheme(
            name=name,
            kind=kind,
            wire_name=wire,
            options=options,
            envs=envs,
            description=" ".join(str(scheme.get("description", "")).split()),
            provisional=bool(scheme.get("x-provisional", False)),
            oauth=oauth,
        )
    return out


def _unique(name: str, used: set[str]) -> str:
    if keyword.iskeyword(name) or not name.isidentifier():
        name = f"{name}_"
    return unique(name, used, separator="_")


def env_prefix(distribution_prefix: str) -> str:
    """`acme` -> `ACME_`: the prefix of the client's environment variables."""
    return snake(distribution_prefix).strip("_").upper() + "_"


def primary_scheme(api: Api, table: dict[str, Scheme]) -> Scheme | None:
    """The scheme of the spec's default security (else the first one): `api_key` of `Client(...)`."""
    for alternative in api.default_security:
        for name in alternative:
            if name in table:
                return table[name]
    return next(iter(table.values()), None)


def operation_schemes(op: Operation, table: dict[str, Scheme]) -> list[list[Scheme]]:
    """The operation's security alternatives as schemes ([] inside: anonymous access allowed)."""
    return [[table[name] for name in alt if name in table] for alt in op.security]


def token_param(api: Api, op: Operation, table: dict[str, Scheme]) -> tuple[str, str] | None:
    """(argument, scheme) for an operation authenticated only by its own bearer-like scheme,
    not the spec's default: the call takes that token as an argument (e.g. a user's session)."""
    if not op.security or op.security == api.default_security or len(op.security[0]) != 1:
        return None
    scheme = table.get(op.security[0][0])
    if scheme is None or scheme.kind != "bearer":
        return None
    default = {name for alt in api.default_security for name in alt}
    if scheme.name in default:
        return None
    return scheme.options[0], scheme.name
