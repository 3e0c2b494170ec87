"""Storage: the tables (SQLAlchemy Core) and the async engine for SQLite or PostgreSQL.

Times are stored as integer Unix seconds (UTC), so both backends serialise them the
same way. Every row that belongs to an organisation carries `org_id`, and every query
of the service filters on it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    MetaData,
    event,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_pragmas(dbapi_connection: Any, _: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def create_engine(url: str, pool_size: int = 10) -> AsyncEngine:
    """An async engine; SQLite files (and their folder) are created on first use.

    On PostgreSQL `pool_size` connections are kept open (connections beyond them are
    closed after use, so a pool smaller than the work in flight reconnects all the time).
    """
    if is_sqlite(url):
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        # hide_parameters: a failed statement's error (and so its log line) never carries the
        # bound values (a key's token hash, a contact's email)
        engine = create_async_engine(url, connect_args={"timeout": 30}, hide_parameters=True)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url, pool_size=pool_size, max_overflow=20, pool_pre_ping=True, hide_parameters=True
    )


async def ping(engine: AsyncEngine) -> bool:
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 (readiness reports any failure as not ready)
        return False
    return True


class Reader:
    """Short indexed single-statement reads on the hot path (a key lookup, a small listing).

    On SQLite they run on one long-lived read-only connection of the standard sqlite3
    module, on the event loop's thread: such a read takes tens of microseconds, less than
    handing it to a worker thread (aiosqlite) costs, and in WAL mode a reader never waits
    for a writer. Anything that can scan must go through the engine instead. On
    PostgreSQL the reads have a pool of their own (as large as the engine's, no overflow):
    autocommit connections, so a read is one round trip (no BEGIN/ROLLBACK around it),
    without the engine's ping at checkout (a dropped connection fails the read, which is
    made once more on a fresh connection: `_read`). Statements are compiled once (pass
    module-level statements with bindparam()); values come back as plain dicts with JSON
    and boolean columns decoded.
    """

    def __init__(self, engine: AsyncEngine, url: str, pool_size: int = 10) -> None:
        self.engine = engine
        self._sqlite_path = make_url(url).database if is_sqlite(url) else None
        self._connection: sqlite3.Connection | None = None
        self._compiled: dict[Any, tuple[str, list[Any]]] = {}
        # PostgreSQL: a pool of autocommit connections of its own, without a ping per checkout
        self._read_engine = (
            None
            if self._sqlite_path is not None
            else create_async_engine(
                url,
                pool_size=pool_size,
                max_overflow=0,  # reads wait for a pooled connection rather than open more
                pool_pre_ping=False,
                isolation_level="AUTOCOMMIT",
                hide_parameters=True,
            )
        )

    async def all(self, statement: Any, **params: Any) -> list[dict[str, Any]]:
        if self._read_engine is not None:
            return await self._read(self._read_engine, statement, params)
        sql, decoders = self._compile(statement)
        cursor = self._sqlite().execute(sql, params)
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row)) for row in cursor.fetchall()]
        for index, decode in enumerate(decoders):  # only the columns that need decoding
            if decode is not None:
                name = names[index]
                for row in rows:
                    row[name] = decode(row[name])
        return rows

    async def one(self, statement: Any, **params: Any) -> dict[str, Any] | None:
        rows = await self.all(statement, **params)
        return rows[0] if rows else None

    def _compile(self, statement: Any) -> tuple[str, list[Any]]:
        cached = self._compiled.get(statement)
        if cached is None:
            if len(self._compiled) > 512:
                raise RuntimeError(
                    "Reader statements must be module-level constants, not built per call"
                )
            from sqlalchemy.dialects import sqlite

            sql = str(statement.compile(dialect=sqlite.dialect(paramstyle="named")))
            decoders = [_decoder(column.type) for column in statement.selected_columns]
            cached = self._compiled[statement] = (sql, decoders)
        return cached

    def _sqlite(self) -> sqlite3.Connection:
        if self._connection is None:
            path = self._sqlite_path or ":memory:"
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA busy_timeout=1000")
            connection.execute("PRAGMA query_only=ON")
            self._connection = connection
        return self._connection

    @staticmethod
    async def _read(
        engine: AsyncEngine, statement: Any, params: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """One statement on an autocommit connection: no BEGIN/ROLLBACK around it, and no
        ping before it. A connection the server dropped (restart, idle timeout) fails the
        statement with the connection invalidated: the pool then discards every connection
        as old as it, and the read, which changes nothing, is made once more on a new one."""
        try:
            async with engine.connect() as connection:
                return [dict(row._mapping) for row in await connection.execute(statement, params)]
        except DBAPIError as error:
            if not error.connection_invalidated:
                raise
        async with engine.connect() as connection:
            return [dict(row._mapping) for row in await connection.execute(statement, params)]

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._read_engine is not None:
            await self._read_engine.dispose()


def _decoder(column_type: Any) -> Any:
    import json

    if isinstance(column_type, JSON):
        return lambda value: json.loads(value) if isinstance(value, str) else value
    if isinstance(column_type, Boolean):
        return lambda value: None if value is None else bool(value)
    return None
