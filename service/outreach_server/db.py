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
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    event,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

organizations = Table(
    "organizations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

agency_links = Table(
    "agency_links",
    metadata,
    Column(
        "agency_org_id",
        Integer,
        ForeignKey("organizations.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True),
)

feature_flags = Table(
    "feature_flags",
    metadata,
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True),
    Column("flag", String(100), primary_key=True),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column(
        "org_id",
        Integer,
        ForeignKey("organizations.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    Column("name", String(200), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("tier", String(16), nullable=False),
    Column("scopes", Text, nullable=False),  # space-separated
    Column("is_agency", Boolean, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("last_used_at", BigInteger, nullable=True),
    Column("expires_at", BigInteger, nullable=True),
    Column("revoked_at", BigInteger, nullable=True),
)

lists = Table(
    "lists",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("type", String(16), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_lists_org_id_id", "org_id", "id"),
)

contacts = Table(
    "contacts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("list_id", Integer, ForeignKey("lists.id", ondelete="CASCADE"), nullable=False),
    Column("email", String(320), nullable=True),
    Column("first_name", String(200), nullable=True),
    Column("last_name", String(200), nullable=True),
    Column("company_name", String(200), nullable=True),
    Column("owner_id", String(100), nullable=True),
    Column("fields", JSON, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    # withheld until unlocked (POST /contacts/unlock-info sets unlocked_at)
    Column("phone", String(64), nullable=True),
    Column("linkedin_url", String(500), nullable=True),
    Column("job_title", String(200), nullable=True),
    Column("company_id", Integer, nullable=True),
    # deliverability, written back by verification
    Column("email_status", String(32), nullable=True),
    Column("email_checked_at", BigInteger, nullable=True),
    Column("unlocked_at", BigInteger, nullable=True),
    Column("updated_at", BigInteger, nullable=True),
    Index("ix_contacts_org_id_list_id", "org_id", "list_id"),
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
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_size=pool_size, max_overflow=20, pool_pre_ping=True)


async def ping(engine: AsyncEngine) -> bool:
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception:  # readiness reports any failure as not ready
        return False
    return True


class Reader:
    """Short indexed single-statement reads on the hot path (a key lookup, a small listing).

    On SQLite they run on one long-lived read-only connection of the standard sqlite3
    module, on the event loop's thread: such a read takes tens of microseconds, less than
    handing it to a worker thread (aiosqlite) costs, and in WAL mode a reader never waits
    for a writer. Anything that can scan must go through the engine instead. On
    PostgreSQL every read goes through the engine. Statements are compiled once (pass
    module-level statements with bindparam()); values come back as plain dicts with JSON
    and boolean columns decoded.
    """

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self.engine = engine
        self._sqlite_path = make_url(url).database if is_sqlite(url) else None
        self._connection: sqlite3.Connection | None = None
        self._compiled: dict[Any, tuple[str, list[Any]]] = {}

    async def all(self, statement: Any, **params: Any) -> list[dict[str, Any]]:
        if self._sqlite_path is None:
            async with self.engine.connect() as connection:
                return [dict(row._mapping) for row in await connection.execute(statement, params)]
        sql, decoders = self._compile(statement)
        cursor = self._sqlite().execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [
            {
                name: decode(value) if decode else value
                for name, decode, value in zip(names, decoders, row)
            }
            for row in cursor.fetchall()
        ]

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

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _decoder(column_type: Any) -> Any:
    import json

    if isinstance(column_type, JSON):
        return lambda value: json.loads(value) if isinstance(value, str) else value
    if isinstance(column_type, Boolean):
        return lambda value: None if value is None else bool(value)
    return None
