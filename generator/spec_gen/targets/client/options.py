"""The client's constructor options, each a real keyword parameter of `Client(...)`,
`AsyncClient(...)` and `with_options(...)`, so that a type checker refuses a misspelt one.

One list, in the order the constructor takes them: the credentials of every security scheme
(and what fetching an OAuth2 token takes), the server, transport and retry options, and the
headers the request context sends on every call (`x-context`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .auth import Scheme


@dataclass(frozen=True)
class ClientOption:
    name: str
    annotation: str  # as the generated client spells it (httpx and Mapping are imported)
    default: str  # a Python expression
    env: str = ""  # the environment variable read when the option is not passed


def client_options(
    table: dict[str, Scheme], environments: dict[str, str], context_headers: dict[str, str]
) -> list[ClientOption]:
    """Every option of the client's constructor, in order."""
    out: list[ClientOption] = []
    for scheme in table.values():
        for option, env in zip(scheme.options, scheme.envs, strict=True):
            out.append(ClientOption(option, "str | None", "None", env))
        if scheme.oauth is not None:
            for option, env in zip(scheme.oauth.options, scheme.oauth.envs, strict=True):
                if option:
                    out.append(ClientOption(option, "str | None", "None", env))
    names = ", ".join(repr(name) for name in environments)
    out += [
        ClientOption("environment", f"Literal[{names}] | None" if names else "str | None", "None"),
        ClientOption("base_url", "str | None", "None"),
        ClientOption("timeout", "float | httpx.Timeout | None", "DEFAULT_TIMEOUT"),
        ClientOption("max_retries", "int", "DEFAULT_MAX_RETRIES"),
        ClientOption("retry_unsafe", "bool", "False"),
        ClientOption("pacing", "bool", "False"),
        ClientOption("default_headers", "Mapping[str, str] | None", "None"),
    ]
    out += [ClientOption(option, "int | str | None", "None") for option in context_headers]
    return out


def credential_options(table: dict[str, Scheme]) -> list[ClientOption]:
    """The options read from the environment when not passed."""
    return [o for o in client_options(table, {}, {}) if o.env]
