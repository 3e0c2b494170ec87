"""Alembic migrations shipped with the service: `outreach-server migrate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from .core.db import create_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(connection: Any | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def upgrade(url: str, revision: str = "head") -> str:
    """Apply migrations up to `revision`; returns the revision the database is now at."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))
            return str(await connection.run_sync(_current))
    finally:
        await engine.dispose()


def _current(sync_connection: Any) -> str | None:
    return MigrationContext.configure(sync_connection).get_current_revision()


def head() -> str:
    return str(ScriptDirectory.from_config(alembic_config()).get_current_head())
