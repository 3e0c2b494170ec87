"""The `outreach-server` command line: serve, migrate, and operator commands under `admin`.

Every admin command prints one JSON object. The database comes from --database-url,
else OUTREACH_DATABASE_URL, else the embedded SQLite file.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from typing import Any

import click

from ..core.settings import Settings
from .common import (
    CONNECTION_FLAGS,
    WEBHOOK_FLAGS,
    database_option,
    export_settings,
    migrate_database,
    port_problem,
    print_json,
    print_version,
    webhook_options,
)


@click.group()
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=print_version,
    help="Show the version and exit.",
)
def main() -> None:
    """Run and operate the Outreach Data Platform service."""


@main.command()
@click.option(
    "--host", default=None, help="Interface to bind (env OUTREACH_HOST, default 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (env OUTREACH_PORT, default 8000).")
@database_option
@click.option(
    "--redis-url", default=None, help="Redis URL for shared rate limits (env OUTREACH_REDIS_URL)."
)
@click.option(
    "--workers", type=int, default=None, help="Server processes (env OUTREACH_WORKERS, default 1)."
)
@click.option(
    "--access-log/--no-access-log",
    default=None,
    help="One JSON line per request (env OUTREACH_ACCESS_LOG; off by default).",
)
@click.option(
    "--header-timeout",
    type=float,
    default=None,
    help="Seconds a request's whole head may take; then 408 and closed (env "
    "OUTREACH_HEADER_TIMEOUT, default 10; 0: none).",
)
@click.option(
    "--body-timeout",
    type=float,
    default=None,
    help="Seconds a request's whole body may take after its head; then 408 and closed (env "
    "OUTREACH_BODY_TIMEOUT, default 30; 0: none).",
)
@click.option(
    "--max-connections",
    type=int,
    default=None,
    help="Open connections per server process; one more is answered 503 and closed (env "
    "OUTREACH_MAX_CONNECTIONS, default 1000; 0: no cap).",
)
@webhook_options
def serve(
    host: str | None,
    port: int | None,
    database_url: str | None,
    redis_url: str | None,
    workers: int | None,
    access_log: bool | None,
    header_timeout: float | None,
    body_timeout: float | None,
    max_connections: int | None,
    **webhook: Any,
) -> None:
    """Serve the API with uvicorn (uvloop and httptools)."""
    import os

    import uvicorn

    from ..app.connections import GuardedHttpToolsProtocol

    settings = Settings.from_env(
        host=host,
        port=port,
        database_url=database_url,
        redis_url=redis_url,
        workers=workers,
        access_log=access_log,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_connections=max_connections,
        **webhook,
    )
    for name, value in (
        ("header_timeout", settings.header_timeout),
        ("body_timeout", settings.body_timeout),
        ("max_connections", settings.max_connections),
    ):
        if value < 0:
            click.echo(f"--{name.replace('_', '-')} must be 0 or more", err=True)
            sys.exit(2)
    if settings.workers > 1 and not settings.redis_url:
        click.echo(
            "refusing to start several workers without --redis-url: each process would keep its own "
            "rate-limit budget, letting a key exceed its limits",
            err=True,
        )
        sys.exit(2)
    problem = port_problem(settings.host, settings.port)
    if problem:  # before anything starts: one line, not uvicorn's [Errno 98] among log lines
        click.echo(f"outreach-server: {problem}", err=True)
        sys.exit(1)
    # worker processes build their app from the environment: hand the flags over
    os.environ["OUTREACH_DATABASE_URL"] = settings.database_url
    os.environ["OUTREACH_HOST"] = settings.host  # the docs page's examples call this address
    os.environ["OUTREACH_PORT"] = str(settings.port)
    os.environ["OUTREACH_ACCESS_LOG"] = "1" if settings.access_log else "0"
    if settings.redis_url:
        os.environ["OUTREACH_REDIS_URL"] = settings.redis_url
    export_settings(settings, WEBHOOK_FLAGS + CONNECTION_FLAGS)
    if settings.workers > 1 and settings.migrate_on_start:
        asyncio.run(migrate_database(settings.database_url))
        os.environ["OUTREACH_AUTO_MIGRATE"] = "0"
    if settings.workers > 1 and settings.webhook_worker:
        # the delivery worker runs in exactly one process: with several, run it on its own
        os.environ["OUTREACH_WEBHOOK_WORKER"] = "0"
        click.echo(
            "several server processes: webhook deliveries need `outreach-server worker` running",
            err=True,
        )
    uvicorn.run(
        "outreach_server.app:create_app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        loop="uvloop",
        http=GuardedHttpToolsProtocol,  # httptools, with read deadlines and a connection cap
        log_level=settings.log_level.lower(),
        access_log=False,
        timeout_graceful_shutdown=10,
    )


@main.command()
@database_option
def migrate(database_url: str | None) -> None:
    """Apply the database migrations (PostgreSQL or SQLite)."""
    settings = Settings.from_env(database_url=database_url)
    revision = asyncio.run(migrate_database(settings.database_url))
    print_json({"revision": revision})


@main.command()
@database_option
@click.option(
    "--concurrency",
    type=int,
    default=256,
    show_default=True,
    help="Delivery attempts in flight at once (claimed in batches of up to --batch).",
)
@click.option(
    "--batch", type=int, default=100, show_default=True, help="Due attempts claimed at once."
)
@click.option(
    "--per-target",
    type=int,
    default=32,
    show_default=True,
    help="Attempts in flight at once to one target (host and port): its connections.",
)
@click.option(
    "--per-org",
    type=int,
    default=None,
    help="Due attempts of one organisation in flight at once [default: a quarter of "
    "--concurrency]; claims take turns between organisations.",
)
@webhook_options
def worker(
    database_url: str | None,
    concurrency: int,
    batch: int,
    per_target: int,
    per_org: int | None,
    **webhook: Any,
) -> None:
    """Run the webhook delivery worker alone (scale-out: run several on PostgreSQL)."""
    import signal

    from ..core.logs import configure_logging
    from ..runtime.services import Services

    # the claims and the recorder use a connection each; the POSTs none
    settings = Settings.from_env(database_url=database_url, db_pool_size=4, **webhook)
    configure_logging(settings.log_level, settings.json_logs)

    async def go() -> None:
        if settings.migrate_on_start:
            await migrate_database(settings.database_url)
        services = Services.create(settings)
        services.webhooks.batch = max(1, min(batch, concurrency))
        services.webhooks.concurrency = max(1, concurrency)
        services.webhooks.per_target = max(1, per_target)
        services.webhooks.per_org = per_org
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await services.webhooks.start()
        click.echo(json.dumps({"worker": "webhooks", "started": True}), err=True)
        try:
            await stop.wait()
        finally:
            await services.close()

    asyncio.run(go())


# Each admin command lives in the module of its area; a command's module is imported only
# when that command (or the whole list, for `admin --help`) is asked for, so one command
# starts without loading the others' dependencies. tests/service/test_cli.py checks that
# this table names every command each area registers.
ADMIN_AREAS: dict[str, tuple[str, ...]] = {
    "access": (
        "create-org",
        "create-key",
        "revoke-key",
        "link-org",
        "unlink-org",
        "enable-flag",
        "seed-demo",
    ),
    "app_platform": (
        "create-app",
        "install-app",
        "create-app-credential",
        "create-signing-key",
    ),
    "billing": (
        "add-credits",
        "create-waterfall-config",
        "add-provider-key",
        "create-form",
        "create-survey",
        "create-survey-trigger",
        "create-mailbox",
    ),
    "contacts": (
        "create-list",
        "create-contact",
        "create-company",
        "create-custom-column",
        "allow-photo",
        "enroll",
        "restrict-key",
    ),
    "ledger": ("record-optout", "record-bounce"),
    "webhooks": ("emit-event",),
}


class AreaGroup(click.Group):
    """A group whose commands are registered by their area's module on first use."""

    def __init__(self, *args: Any, areas: dict[str, tuple[str, ...]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.area_of = {name: area for area, names in areas.items() for name in names}
        self.loaded: set[str] = set()

    def load_area(self, area: str) -> None:
        if area not in self.loaded:
            self.loaded.add(area)
            importlib.import_module(f"{__name__}.{area}").register(self)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.area_of))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        area = self.area_of.get(cmd_name)
        if cmd_name not in self.commands and area is not None:
            self.load_area(area)
        return super().get_command(ctx, cmd_name)


@main.group(cls=AreaGroup, areas=ADMIN_AREAS)
def admin() -> None:
    """Operator commands; each prints one JSON object."""
