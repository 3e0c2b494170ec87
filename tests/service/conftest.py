"""Service test fixtures: a database per test on SQLite and on PostgreSQL, an app, seeded keys.

PostgreSQL (127.0.0.1:5432, user postgres) and Redis (127.0.0.1:6379) are real servers
shared with other runs: each test creates its own database (unique name, dropped
afterwards). Without them the tests skip with the reason, except under CI=true.

Migrating an empty database is the slowest part of a test's set-up (about 1.5 s on
PostgreSQL), so the migrations run once per session into a template, and each test gets a
copy of it (`CREATE DATABASE ... TEMPLATE`, or SQLite's backup API): every test still has
a database of its own. `empty_database_url` is for the tests of the migrations themselves.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from outreach_server import Settings, create_app
from outreach_server.migrate import upgrade
from service_support import Api

PG_HOST = os.environ.get("OUTREACH_TEST_PG_HOST", "127.0.0.1")
PG_ADMIN_DSN = f"postgresql://postgres@{PG_HOST}:5432/postgres"
REDIS_URL = os.environ.get("OUTREACH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def unavailable(what: str, reason: object) -> None:
    message = f"{what} not reachable: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (required under CI=true)")
    pytest.skip(message)


async def _pg_admin(statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(PG_ADMIN_DSN, timeout=3)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@pytest.fixture(scope="session")
def postgres_available() -> None:
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:  # noqa: BLE001  (any failure to reach the server)
        unavailable(f"PostgreSQL at {PG_HOST}:5432", exc)


def make_postgres_database(template: str | None = None) -> tuple[str, str]:
    name = f"outreach_test_{uuid.uuid4().hex[:16]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"{copy}'))
    return name, f"postgresql+asyncpg://postgres@{PG_HOST}:5432/{name}"


def drop_postgres_database(name: str) -> None:
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head, copied by each test."""
    path = tmp_path_factory.mktemp("template") / "outreach.sqlite3"
    asyncio.run(upgrade(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture(scope="session")
def postgres_template(postgres_available: None) -> Iterator[str]:
    """A PostgreSQL database migrated to head (no connection left open: it is copied)."""
    name, url = make_postgres_database()
    try:
        asyncio.run(upgrade(url))
        yield name
    finally:
        drop_postgres_database(name)


def copy_sqlite(template: Path, path: Path) -> None:
    source, target = sqlite3.connect(template), sqlite3.connect(path)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of its own for the test, migrated to head, on each backend."""
    if request.param == "sqlite":
        path = tmp_path / "outreach.sqlite3"
        copy_sqlite(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    name, url = make_postgres_database(template=request.getfixturevalue("postgres_template"))
    try:
        yield url
    finally:
        drop_postgres_database(name)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def module_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One migrated database per test module and backend, for tests that need no isolation
    from each other (each makes its own organisation)."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("module") / "outreach.sqlite3"
        copy_sqlite(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    name, url = make_postgres_database(template=request.getfixturevalue("postgres_template"))
    try:
        yield url
    finally:
        drop_postgres_database(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database (no table at all) on each backend."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'outreach.sqlite3'}"
        return
    request.getfixturevalue("postgres_available")
    name, url = make_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(name)


def make_api(
    database_url: str, raise_server_exceptions: bool = True, **settings: Any
) -> Iterator[Api]:
    """The app on `database_url`, started (migrated at start unless auto_migrate=False), in
    strict contract mode (an undeclared status or error body is a logged 500)."""
    settings.setdefault("auto_migrate", True)
    settings.setdefault("strict_contract", True)
    app = create_app(Settings(database_url=database_url, **settings))
    with TestClient(app, raise_server_exceptions=raise_server_exceptions) as client:
        yield Api(client, app.state.services)


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    """The app on `database_url`, the rate limits raised (these tests make many requests per
    key; the limiter has its own tests) and no key cache (revocations are seen at once)."""
    yield from make_api(
        database_url,
        auto_migrate=False,  # a copy of the migrated template already
        key_cache_seconds=0.0,
        rate_limit_per_second=100_000,
        rate_limit_per_minute=1_000_000,
    )
