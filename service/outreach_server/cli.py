"""The `outreach-server` command line: serve, migrate, and operator commands under `admin`.

Every admin command prints one JSON object. The database comes from --database-url,
else OUTREACH_DATABASE_URL, else the embedded SQLite file.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import click
from outreach_api.constants import SCOPES

from .settings import Settings

DATABASE_HELP = (
    "SQLAlchemy URL (env OUTREACH_DATABASE_URL; default: the SQLite file outreach.sqlite3)."
)
database_option = click.option("--database-url", default=None, help=DATABASE_HELP)


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


WEBHOOK_FLAGS = ("webhook_allow_http", "webhook_allowed_networks", "webhook_retry_scale")


def _export(settings: Settings, names: tuple[str, ...]) -> None:
    """Hand settings to the worker processes uvicorn starts (they read the environment)."""
    import os

    for name in names:
        value = getattr(settings, name)
        if value is not None:
            os.environ[f"OUTREACH_{name.upper()}"] = (
                ("1" if value else "0") if isinstance(value, bool) else str(value)
            )


@click.group()
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
@webhook_options
def serve(
    host: str | None,
    port: int | None,
    database_url: str | None,
    redis_url: str | None,
    workers: int | None,
    access_log: bool | None,
    **webhook: Any,
) -> None:
    """Serve the API with uvicorn (uvloop and httptools)."""
    import os

    import uvicorn

    settings = Settings.from_env(
        host=host,
        port=port,
        database_url=database_url,
        redis_url=redis_url,
        workers=workers,
        access_log=access_log,
        **webhook,
    )
    if settings.workers > 1 and not settings.redis_url:
        click.echo(
            "refusing to start several workers without --redis-url: each process would keep its own "
            "rate-limit budget, letting a key exceed its limits",
            err=True,
        )
        sys.exit(2)
    # worker processes build their app from the environment: hand the flags over
    os.environ["OUTREACH_DATABASE_URL"] = settings.database_url
    os.environ["OUTREACH_ACCESS_LOG"] = "1" if settings.access_log else "0"
    if settings.redis_url:
        os.environ["OUTREACH_REDIS_URL"] = settings.redis_url
    _export(settings, WEBHOOK_FLAGS)
    if settings.workers > 1 and settings.migrate_on_start:
        asyncio.run(_migrate(settings.database_url))
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
        http="httptools",
        log_level=settings.log_level.lower(),
        access_log=False,
        timeout_graceful_shutdown=10,
    )


async def _migrate(url: str) -> str:
    from .migrate import upgrade

    return await upgrade(url)


@main.command()
@database_option
def migrate(database_url: str | None) -> None:
    """Apply the database migrations (PostgreSQL or SQLite)."""
    settings = Settings.from_env(database_url=database_url)
    revision = asyncio.run(_migrate(settings.database_url))
    _print({"revision": revision})


@main.command()
@database_option
@click.option(
    "--concurrency",
    type=int,
    default=32,
    show_default=True,
    help="Delivery attempts claimed and sent at once.",
)
@webhook_options
def worker(database_url: str | None, concurrency: int, **webhook: Any) -> None:
    """Run the webhook delivery worker alone (scale-out: run several on PostgreSQL)."""
    import signal

    from .observability import configure_logging
    from .services import Services

    # one database connection per attempt in flight, plus the claims
    settings = Settings.from_env(database_url=database_url, db_pool_size=concurrency + 4, **webhook)
    configure_logging(settings.log_level, settings.json_logs)

    async def go() -> None:
        if settings.migrate_on_start:
            await _migrate(settings.database_url)
        services = Services.create(settings)
        services.webhooks.batch = concurrency
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


# -- admin ---------------------------------------------------------------------------------


def _print(obj: dict[str, Any]) -> None:
    click.echo(json.dumps(obj))


def _run(database_url: str | None, action: Callable[[Any], Awaitable[dict[str, Any]]]) -> None:
    """Run `action(services)` against the database (migrated first on the embedded default)."""
    from .services import Services

    settings = Settings.from_env(database_url=database_url)

    async def go() -> dict[str, Any]:
        if settings.migrate_on_start:
            await _migrate(settings.database_url)
        services = Services.create(settings)
        try:
            return await action(services)
        finally:
            await services.close()

    _print(asyncio.run(go()))


def _scopes(value: str | None) -> list[str]:
    if value is None:
        return sorted(SCOPES)
    scopes = sorted({s.strip() for s in value.split(",") if s.strip()})
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise click.BadParameter(
            f"unknown scope(s) {', '.join(unknown)}; known: {', '.join(sorted(SCOPES))}"
        )
    return scopes


@main.group()
def admin() -> None:
    """Operator commands; each prints one JSON object."""


@admin.command("create-org")
@click.argument("name")
@database_option
def create_org(name: str, database_url: str | None) -> None:
    """Create an organisation: {"org_id": ...}."""

    async def action(services: Any) -> dict[str, Any]:
        return {"org_id": await services.orgs.create(name)}

    _run(database_url, action)


@admin.command("create-key")
@click.option("--org-id", type=int, required=True)
@click.option("--mode", type=click.Choice(["live", "test"]), default="live", show_default=True)
@click.option("--name", default="operator key", show_default=True)
@click.option(
    "--tier",
    type=click.Choice(["read", "write", "billable"]),
    default="billable",
    show_default=True,
)
@click.option("--scopes", default=None, help="Comma-separated (default: every scope of the spec).")
@click.option("--agency", is_flag=True, help="The key may target organisations linked to its own.")
@database_option
def create_key(
    org_id: int,
    mode: str,
    name: str,
    tier: str,
    scopes: str | None,
    agency: bool,
    database_url: str | None,
) -> None:
    """Create an API key: {"api_key_id", "api_key_token", "mode"}; the token is shown only now."""
    granted = _scopes(scopes)

    async def action(services: Any) -> dict[str, Any]:
        if not await services.orgs.exists(org_id):
            raise click.ClickException(f"no organisation {org_id}")
        record, token = await services.keys.create(
            org_id=org_id, name=name, mode=mode, tier=tier, scopes=granted, is_agency=agency
        )
        return {"api_key_id": record.id, "api_key_token": token, "mode": record.mode}

    _run(database_url, action)


@admin.command("revoke-key")
@click.option("--key-id", required=True)
@database_option
def revoke_key(key_id: str, database_url: str | None) -> None:
    """Revoke an API key; running servers refuse it within their key-cache time (5 s)."""

    async def action(services: Any) -> dict[str, Any]:
        return {"api_key_id": key_id, "revoked": await services.keys.revoke(key_id)}

    _run(database_url, action)


@admin.command("link-org")
@click.option("--agency-org-id", type=int, required=True)
@click.option("--org-id", type=int, required=True)
@database_option
def link_org(agency_org_id: int, org_id: int, database_url: str | None) -> None:
    """Let the agency organisation's agency keys act for another organisation."""

    async def action(services: Any) -> dict[str, Any]:
        for required in (agency_org_id, org_id):
            if not await services.orgs.exists(required):
                raise click.ClickException(f"no organisation {required}")
        await services.orgs.link(agency_org_id, org_id)
        return {"agency_org_id": agency_org_id, "org_id": org_id, "linked": True}

    _run(database_url, action)


@admin.command("enable-flag")
@click.option("--org-id", type=int, required=True)
@click.argument("flag")
@database_option
def enable_flag(org_id: int, flag: str, database_url: str | None) -> None:
    """Enable a feature flag (e.g. M6_APP_TOKENS_ENABLED) for an organisation."""

    async def action(services: Any) -> dict[str, Any]:
        if not await services.orgs.exists(org_id):
            raise click.ClickException(f"no organisation {org_id}")
        await services.orgs.enable_flag(org_id, flag)
        return {"org_id": org_id, "flag": flag, "enabled": True}

    _run(database_url, action)


@admin.command("seed-demo")
@database_option
def seed_demo(database_url: str | None) -> None:
    """A demo organisation with a list of contacts, and fresh live and test keys."""
    from .demo import seed_demo as seed

    _run(database_url, seed)


def _register_areas() -> None:
    from . import admin_app_platform, admin_billing, admin_contacts, admin_ledger, admin_webhooks

    for area in (admin_ledger, admin_contacts, admin_billing, admin_webhooks, admin_app_platform):
        area.register(admin)


_register_areas()

if __name__ == "__main__":
    main()
