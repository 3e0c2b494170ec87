"""The PostgreSQL reader of the hot path: autocommit connections without a ping per
checkout, and one more try when the server has dropped the pooled connection."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from conftest import drop_postgres_database, make_postgres_database
from outreach_server.core.db import Reader, create_engine
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

MINE = text("SELECT pg_backend_pid() AS pid")


@pytest.fixture
def pg_url(postgres_available: None) -> Iterator[tuple[str, str]]:
    name, url = make_postgres_database()
    try:
        yield name, url
    finally:
        drop_postgres_database(name)


async def terminate_others(admin_url: str, name: str) -> int:
    engine = create_engine(admin_url)
    try:
        async with engine.begin() as connection:
            result = await connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
            return int(result.scalar_one())
    finally:
        await engine.dispose()


def test_reads_run_alone_and_survive_a_dropped_connection(pg_url: tuple[str, str]) -> None:
    name, url = pg_url

    async def scenario() -> None:
        reader = Reader(create_engine(url), url, pool_size=2)
        try:
            (first,) = await reader.all(MINE)
            # autocommit: no BEGIN is sent before a statement (VACUUM refuses to run in one)
            assert reader._read_engine is not None
            async with reader._read_engine.connect() as connection:
                await connection.execute(text("VACUUM pg_class"))
            (again,) = await reader.all(MINE)
            assert again["pid"] == first["pid"]  # the pooled connection, kept
            # the server drops every connection of this database (a restart, an idle timeout)
            assert await terminate_others(url, name) >= 1
            (after,) = await reader.all(MINE)
            assert after["pid"] != first["pid"]  # read again on a new connection
            # an error that is not a lost connection is raised, not retried
            with pytest.raises(ProgrammingError):
                await reader.all(text("SELECT * FROM no_such_table"))
        finally:
            await reader.close()
            await reader.engine.dispose()

    asyncio.run(scenario())
