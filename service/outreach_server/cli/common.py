"""What every command of `outreach-server` shares: the database option, running an action
against the services, printing one JSON object.

Nothing heavy at module level: `outreach-server admin X --help` must not load the web
framework, the database engine or the generated routers.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from ..core.identifiers import org_id_from_text
from ..core.settings import Settings

if TYPE_CHECKING:
    from ..runtime.services import Services


def print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`outreach-server --version`: the version of the distribution that installed it."""
    if not value or ctx.resilient_parsing:
        return
    from importlib import metadata

    names = metadata.packages_distributions().get("outreach_server") or ["spec-gen-outreach"]
    try:
        version = metadata.version(names[0])
    except metadata.PackageNotFoundError:
        version = "unknown (not installed)"
    click.echo(f"outreach-server, version {version}")
    ctx.exit()


def port_problem(host: str, port: int) -> str | None:
    """Why `serve` cannot listen on host:port, in one line naming the way out; None when it
    can (bound and released at once, with SO_REUSEADDR as uvicorn binds)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is already in use (another server?): stop it, "
                    f"or serve on another port with --port {9000 if port != 9000 else 9001}"
                )
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


DATABASE_HELP = (
    "SQLAlchemy URL (env OUTREACH_DATABASE_URL; default: the SQLite file outreach.sqlite3)."
)
database_option = click.option("--database-url", default=None, help=DATABASE_HELP)


class OrgIdType(click.ParamType[int, Any]):
    """An organisation id in ASCII digits (click's INT takes `int()`'s Unicode digits: "١")."""

    name = "org_id"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        number = value if isinstance(value, int) else org_id_from_text(str(value).strip())
        if isinstance(number, bool) or number is None or number <= 0:
            self.fail(f"{value!r} is not an organisation id (ASCII digits, 1 to 2147483647)")
        return number


ORG_ID = OrgIdType()


def webhook_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The webhook delivery settings as flags (each also an OUTREACH_* variable)."""
    for option in reversed(
        [
            click.option(
                "--webhook-allow-http/--no-webhook-allow-http",
                default=None,
                help="Allow http targets, for development and tests (env OUTREACH_WEBHOOK_ALLOW_HTTP).",
            ),
            click.option(
                "--webhook-allowed-networks",
                default=None,
                help="CIDRs exempt from the private-address refusal (env OUTREACH_WEBHOOK_ALLOWED_NETWORKS).",
            ),
            click.option(
                "--webhook-retry-scale",
                type=float,
                default=None,
                help="Factor on the retry delays (env OUTREACH_WEBHOOK_RETRY_SCALE).",
            ),
        ]
    ):
        command = option(command)
    return command


CONNECTION_FLAGS = ("header_timeout", "body_timeout", "max_connections")
WEBHOOK_FLAGS = ("webhook_allow_http", "webhook_allowed_networks", "webhook_retry_scale")


def export_settings(settings: Settings, names: tuple[str, ...]) -> None:
    """Hand settings to the worker processes uvicorn starts (they read the environment)."""
    import os

    for name in names:
        value = getattr(settings, name)
        if value is not None:
            os.environ[f"OUTREACH_{name.upper()}"] = (
                ("1" if value else "0") if isinstance(value, bool) else str(value)
            )


async def migrate_database(url: str) -> str:
    from ..migrate import upgrade

    return await upgrade(url)


def print_json(obj: dict[str, Any]) -> None:
    click.echo(json.dumps(obj))


def run(database_url: str | None, action: Callable[[Services], Awaitable[dict[str, Any]]]) -> None:
    """Run `action(services)` against the database (migrated first on the embedded default)."""
    from ..runtime.services import Services

    settings = Settings.from_env(database_url=database_url)

    async def go() -> dict[str, Any]:
        if settings.migrate_on_start:
            await migrate_database(settings.database_url)
        services = Services.create(settings)
        try:
            return await action(services)
        finally:
            await services.close()

    print_json(asyncio.run(go()))
