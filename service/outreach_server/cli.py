"""The `outreach-server` command line."""

from __future__ import annotations

import sys

import click

from .settings import Settings


@click.group()
def main() -> None:
    """Run and operate the Outreach Data Platform service."""


@main.command()
@click.option(
    "--host", default=None, help="Interface to bind (env OUTREACH_HOST, default 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (env OUTREACH_PORT, default 8000).")
@click.option(
    "--database-url",
    default=None,
    help="SQLAlchemy URL (env OUTREACH_DATABASE_URL; default: SQLite file).",
)
@click.option(
    "--redis-url", default=None, help="Redis URL for shared rate limits (env OUTREACH_REDIS_URL)."
)
@click.option(
    "--workers", type=int, default=None, help="Server processes (env OUTREACH_WORKERS, default 1)."
)
def serve(
    host: str | None,
    port: int | None,
    database_url: str | None,
    redis_url: str | None,
    workers: int | None,
) -> None:
    """Serve the API with uvicorn (uvloop and httptools)."""
    import uvicorn

    settings = Settings.from_env(
        host=host, port=port, database_url=database_url, redis_url=redis_url, workers=workers
    )
    if settings.workers > 1 and not settings.redis_url:
        click.echo(
            "refusing to start several workers without --redis-url: each process would keep its own "
            "rate-limit budget, letting a key exceed its limits",
            err=True,
        )
        sys.exit(2)
    uvicorn.run(
        "outreach_server.app:create_app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        loop="uvloop",
        http="httptools",
        log_level="info",
    )


if __name__ == "__main__":
    main()
