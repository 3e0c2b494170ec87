"""The client's optional `testing` module: pytest fixtures running the project's real server.

Generated only when `[tool.spec-gen.client-testing]` is configured; everything the fixtures do
(the server command, how it serves, how a database is seeded and what the seeding prints) comes
from that table, nothing from a particular service:

    [tool.spec-gen.client-testing]
    server = "my-server"                 # the command (on PATH, or next to the interpreter)
    requires = ["pytest>=8", "my-service"]   # the client's `testing` extra
    database-url = "sqlite:///{directory}/test.sqlite3"   # {database_url} in the lists below
    seed = [["admin", "seed", "--database-url", "{database_url}"]]   # each prints a JSON object
    serve = ["serve", "--host", "{host}", "--port", "{port}", "--database-url", "{database_url}"]
    health = "/healthz"                  # polled until it answers below 500
    run = ["admin", "{args}", "--database-url", "{database_url}"]   # server.run(*args)
    api-key = "live_key"                 # the seed answer's field holding the client's credential
    seed-fields = { org_id = "int" }     # typed attributes of the server object, from the answers
    env = { MY_SECRET = "{random_key}" } # environment of the server and its commands

Placeholders: `{host}`, `{port}`, `{directory}`, `{database_url}`, `{random_key}` (32 random
bytes, URL-safe base64), and every field of the seed answers so far (`{org_id}`).
"""

from __future__ import annotations

from typing import Any

from ...core.naming import pascal, snake

FIELD_TYPES = {"int": "int", "str": "str", "float": "float", "bool": "bool"}
KNOWN_KEYS = frozenset(
    {
        "server",
        "requires",
        "database-url",
        "seed",
        "serve",
        "health",
        "run",
        "api-key",
        "seed-fields",
        "env",
        "settings-prefix",
    }
)


class TestingConfigError(ValueError):
    """`[tool.spec-gen.client-testing]` is not usable (the message names the key)."""


def _words(table: dict[str, Any], key: str, default: list[str]) -> list[str]:
    value = table.get(key, default)
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise TestingConfigError(f"client-testing.{key}: a list of strings")
    return list(value)


def testing_context(
    table: dict[str, Any] | None, distribution_prefix: str, primary_option: str | None
) -> dict[str, Any] | None:
    """What client/testing.py.j2 needs, or None when the project configures no fixtures."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise TestingConfigError("client-testing: a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise TestingConfigError(f"client-testing: unknown key(s) {', '.join(unknown)}")
    server = table.get("server")
    if not isinstance(server, str) or not server.strip():
        raise TestingConfigError("client-testing.server: the server command (a string)")
    seed = table.get("seed", [])
    if not isinstance(seed, list) or not all(
        isinstance(c, list) and all(isinstance(w, str) for w in c) for c in seed
    ):
        raise TestingConfigError("client-testing.seed: a list of commands (lists of strings)")
    fields = table.get("seed-fields", {})
    if not isinstance(fields, dict) or any(t not in FIELD_TYPES for t in fields.values()):
        raise TestingConfigError(
            f"client-testing.seed-fields: field = type, one of {', '.join(FIELD_TYPES)}"
        )
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise TestingConfigError("client-testing.env: NAME = value (strings)")
    taken = {
        "origin",
        "base_url",
        "api_key",
        "seed",
        "database_url",
        "directory",
        "log_path",
        "receiver",
        "command",
        "env",
        "process",
        "run",
        "client",
        "async_client",
        "log_tail",
    }
    clashes = sorted(snake(k).rstrip("_") for k in fields if snake(k).rstrip("_") in taken)
    if clashes:
        raise TestingConfigError(f"client-testing.seed-fields: {', '.join(clashes)} is taken")
    api_key = table.get("api-key")
    if api_key is not None and not primary_option:
        raise TestingConfigError("client-testing.api-key: the spec declares no security scheme")
    prefix = snake(distribution_prefix).strip("_")
    return {
        "server_command": server.strip(),
        "requires": _words(table, "requires", ["pytest>=8"]),
        "database_url": str(table.get("database-url", "")),
        "seed": tuple(tuple(command) for command in seed),
        "serve": tuple(_words(table, "serve", ["--host", "{host}", "--port", "{port}"])),
        "health": str(table.get("health", "/")),
        "run": tuple(_words(table, "run", ["{args}"])),
        "api_key_field": api_key,
        "credential_option": primary_option if api_key is not None else None,
        "fields": {snake(k).rstrip("_"): (k, FIELD_TYPES[v]) for k, v in sorted(fields.items())},
        "env": dict(sorted(env.items())),
        "name": prefix,  # start_<name>_server, fixtures <name>_server, <name>_client
        "class_prefix": pascal(prefix),  # <Prefix>Server
        "env_prefix": str(table.get("settings-prefix") or f"{prefix.upper()}_"),
    }
