"""Storage: the tables (SQLAlchemy Core) and the async engine for SQLite or PostgreSQL.

Times are stored as integer Unix seconds (UTC), so both backends serialise them the
same way. Every row that belongs to an organisation carries `org_id`, and every query
of the service filters on it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    MetaData,
    event,
    text,
)
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
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


T = TypeVar("T")
SHAPES = 256  # compiled statements kept by Reader.scan_many, per Reader
# the steps of SQLite's virtual machine a statement of a scan may take on the event loop's
# thread before it is stopped and read on the reading thread instead (about 2-20 ns a step)
INLINE_STEPS = 20_000
STEPS_PER_TICK = 1_000
INLINE_SQL = 4_000  # characters of SQL a read may have to be tried on the loop's thread
_ELSEWHERE = (sqlite3.SQLITE_INTERRUPT, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
_SQLITE_NAMED = sqlite_dialect(paramstyle="named")


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
    for a writer. Anything that can scan goes through `scan` (bounded on this thread).

    On PostgreSQL they run on a pool of asyncpg connections of their own (as large as the
    engine's), in autocommit: one round trip per read, no BEGIN/ROLLBACK around it and no
    ping before it. Through SQLAlchemy's engine a read cost about 300 µs of CPU (pool
    checkout, greenlet hops, result adaptation) against about 25 µs for the driver. A
    connection the server dropped (restart, idle timeout) fails the read; the read, which
    changes nothing, is then made once more on a fresh connection.

    Statements are compiled once by SQLAlchemy for the backend's dialect (pass module-level
    statements with bindparam()); values come back as plain dicts with JSON and boolean
    columns decoded, the same on both backends.
    """

    def __init__(self, engine: AsyncEngine, url: str, pool_size: int = 10) -> None:
        self.engine = engine
        self._url = make_url(url)
        self._sqlite_path = self._url.database if is_sqlite(url) else None
        self._pool_size = pool_size
        self._connection: sqlite3.Connection | None = None
        self._scanner: ThreadPoolExecutor | None = None  # scan(): SQLite's reading thread
        self._scan_local = threading.local()
        self._inline: sqlite3.Connection | None = None  # scan(): on the loop's thread, bounded
        self.inline_steps = INLINE_STEPS
        self._ticks = [0]  # what is left of the budget of the read on the loop's thread
        self._pool: Any = None  # asyncpg.Pool, made on the first PostgreSQL read
        self._pool_lock = asyncio.Lock()
        self._compiled: dict[Any, tuple[str, list[Any], dict[str, Any]]] = {}
        self._compiled_pg: dict[Any, tuple[str, tuple[str, ...], Any, list[Any]]] = {}
        self._shapes: dict[Any, tuple[Any, list[Any]]] = {}  # scan_many(): compiled by shape
        self._planned: dict[Any, tuple[Any, Any, Any]] = {}  # scan_planned(): by the caller's key
        self.kept: dict[Any, tuple[int, Any]] = {}  # callers' values, with changes() before reading

    async def all(self, statement: Any, **params: Any) -> list[dict[str, Any]]:
        if self._sqlite_path is None:
            return await self._postgresql(statement, params)
        sql, decoders, constants = self._compile(statement)
        cursor = self._sqlite().execute(sql, {**constants, **params} if constants else params)
        names = [column[0] for column in cursor.description]
        return _decoded([dict(zip(names, row)) for row in cursor.fetchall()], names, decoders)

    def changes(self) -> int | None:
        """On SQLite, a number that changes whenever another connection (the engine's, another
        process's) has committed to the database since it was last taken (`PRAGMA
        data_version` of the Reader's own connection, which never writes): what was read on
        the Reader after it is current while it is unchanged (callers keep such values in
        `kept`). None on PostgreSQL."""
        if self._sqlite_path is None:
            return None
        return int(self._sqlite().execute("PRAGMA data_version").fetchone()[0])

    async def one(self, statement: Any, **params: Any) -> dict[str, Any] | None:
        rows = await self.all(statement, **params)
        return rows[0] if rows else None

    async def scan(self, statement: Any, **params: Any) -> list[dict[str, Any]]:
        """A listing that may read many rows (an ORDER BY over an organisation's rows, an
        OFFSET): never more than a bounded part of it on the event loop's thread.

        On SQLite it is first tried on the loop's thread with a budget of steps, and made on
        one thread of the Reader's own when it needs more (`_on_scanner`): at most one
        hand-over per read, where the engine's aiosqlite path costs one per step (checkout,
        execute, fetch, rollback) and several hundred microseconds of CPU. On PostgreSQL it
        is `all` (asyncpg never blocks the loop). Same statements (compiled once) and the
        same plain dicts as `all`.
        """
        if self._sqlite_path is None:
            return await self._postgresql(statement, params)
        sql, decoders, constants = self._compile(statement)
        if constants:
            params = {**constants, **params}
        return await self._on_scanner(len(sql), self._scan, sql, params, decoders)

    async def _on_scanner(self, size: int, work: Callable[..., T], *args: Any) -> T:
        """`work(connection, *args)`, first on the event loop's thread: on a connection of its
        own on which SQLite stops any statement after `inline_steps` steps of its virtual
        machine (a few hundred microseconds at most) and which never waits for a lock. A read
        stopped so (a scan of many rows) or refused (the database busy) changes nothing: it is
        made again on the Reader's reading thread (made on first use), on that thread's own
        connection. A short read so costs no hand-over to another thread and back, which on a
        busy server also waits for the interpreter's lock (the loop holds it while it works).
        Statements of more than INLINE_SQL characters in all (`size`: a filter of thousands
        of conditions) go to the reading thread at once: SQLite's compilation of a statement,
        which no step budget bounds, grows with its text."""
        if size <= INLINE_SQL:
            connection = self._inline or self._open_inline()
            self._ticks[0] = self.inline_steps // STEPS_PER_TICK  # this read's budget
            try:
                return work(connection, *args)
            except sqlite3.OperationalError as error:
                if (getattr(error, "sqlite_errorcode", 0) & 0xFF) not in _ELSEWHERE:
                    raise
        if self._scanner is None:
            self._scanner = ThreadPoolExecutor(1, thread_name_prefix="sqlite-scan")
        return await asyncio.get_running_loop().run_in_executor(
            self._scanner, self._on_thread, work, args
        )

    def _on_thread(self, work: Callable[..., T], args: tuple[Any, ...]) -> T:
        """On the scanning thread: its own connection (made there, used only there)."""
        connection = getattr(self._scan_local, "connection", None)
        if connection is None:
            connection = self._scan_local.connection = self._open_sqlite()
        return work(connection, *args)

    def _open_inline(self) -> sqlite3.Connection:
        connection = self._inline = self._open_sqlite()
        connection.execute("PRAGMA busy_timeout=0")
        ticks = self._ticks

        def tick() -> bool:
            """SQLite's progress handler, every STEPS_PER_TICK steps of a statement (counted
            over the runs of a cached statement, so each read sets its own budget): whether
            to stop the statement."""
            ticks[0] -= 1
            return ticks[0] < 0

        connection.set_progress_handler(tick, STEPS_PER_TICK)
        return connection

    @staticmethod
    def _scan(
        connection: sqlite3.Connection, sql: str, params: dict[str, Any], decoders: list[Any]
    ) -> list[dict[str, Any]]:
        cursor = connection.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return _decoded([dict(zip(names, row)) for row in cursor.fetchall()], names, decoders)

    async def scan_many(self, *statements: Any) -> list[list[dict[str, Any]]]:
        """Statements built per call (a filtered page and its count), read together like
        `scan`: on SQLite in one hand-over to the reading thread, on PostgreSQL on the asyncpg
        pool; the rows of each, in order.

        Each statement is compiled once per shape: SQLAlchemy's cache key of the statement
        (its structure, without the values of its bound parameters) keys the compiled form,
        and the values of the call are bound as parameters (never written into the SQL),
        through the dialect's bind processors, IN lists expanded as the engine does.
        """
        prepared = [self._prepare(statement) for statement in statements]
        if self._sqlite_path is None:
            return [await self._pg_fetch(sql, args, decoders) for sql, args, decoders in prepared]
        return await self._on_scanner(
            sum(len(sql) for sql, _, _ in prepared), self._scan_each, prepared
        )

    def _scan_each(
        self, connection: sqlite3.Connection, prepared: list[tuple[str, Any, list[Any]]]
    ) -> list[list[dict[str, Any]]]:
        return [self._scan(connection, sql, params, decoders) for sql, params, decoders in prepared]

    async def scan_planned(
        self, key: Any, keep: Any, build: Callable[[], tuple[Any, ...]], params: dict[str, Any]
    ) -> list[list[dict[str, Any]]]:
        """`scan_many` for statements whose shape the caller keys in plain Python: `build()`
        makes them (their values as named bound parameters) only when `key` is new, or when
        the object `keep` it was made with (what the statements read: a column catalogue) is
        not the one of this call; `params` holds the values of the call, bound by name."""
        entry = self._planned.get(key)
        if entry is None or entry[0] is not keep:
            dialect = self.engine.dialect if self._sqlite_path is None else _SQLITE_NAMED
            statements = build()
            compiled = tuple(
                (dialect.statement_compiler(dialect, statement), _decoders(statement))
                for statement in statements
            )
            if len(self._planned) >= SHAPES:
                del self._planned[next(iter(self._planned))]
            binders = [
                self._binder(statement, params, decoders) for statement, decoders in compiled
            ]
            entry = self._planned[key] = (keep, compiled, binders)
        prepared = []
        for (statement, decoders), binder in zip(entry[1], entry[2], strict=True):
            if binder is None:
                prepared.append(self._bound(statement, params, decoders))
            else:
                sql, constants, names = binder
                prepared.append((sql, {**constants, **{n: params[n] for n in names}}, decoders))
        if self._sqlite_path is None:
            return [await self._pg_fetch(sql, args, decoders) for sql, args, decoders in prepared]
        return await self._on_scanner(
            sum(len(sql) for sql, _, _ in prepared), self._scan_each, prepared
        )

    def _binder(
        self, compiled: Any, params: dict[str, Any], decoders: list[Any]
    ) -> tuple[str, dict[str, Any], tuple[str, ...]] | None:
        """For a statement of `scan_planned` on SQLite whose parameters need nothing of
        SQLAlchemy per call (no IN list to expand, no bind processor on a value of the call,
        no escaped name): its SQL, the values written in it (processed once) and the names of
        the call's values, so a call binds them in a dict; None otherwise (`_bound` then)."""
        if self._sqlite_path is None or compiled.escaped_bind_names:
            return None
        if compiled.post_compile_params or compiled.literal_execute_params:
            return None
        names = tuple(name for bind, name in compiled.bind_names.items() if bind.required)
        processors = compiled._bind_processors
        if any(callable(processors.get(name)) for name in names) or set(names) - set(params):
            return None
        sql, bound, _ = self._bound(compiled, params, decoders)
        constants = {name: value for name, value in bound.items() if name not in names}
        return sql, constants, names

    def _prepare(self, statement: Any) -> tuple[str, Any, list[Any]]:
        """(SQL, parameters, decoders) of a statement built per call, its compiled form
        reused by shape (at most SHAPES kept, the oldest dropped first)."""
        key = statement._generate_cache_key()
        entry = self._shapes.get(key.key) if key is not None else None
        if entry is None:
            dialect = self.engine.dialect if self._sqlite_path is None else _SQLITE_NAMED
            compiled = dialect.statement_compiler(dialect, statement, cache_key=key)
            entry = (compiled, _decoders(statement))
            if key is not None:
                if len(self._shapes) >= SHAPES:
                    del self._shapes[next(iter(self._shapes))]
                self._shapes[key.key] = entry
        compiled, decoders = entry
        if key is not None and compiled.cache_key is not key:
            values = compiled.construct_params(
                extracted_parameters=key.bindparams, escape_names=False
            )
        else:
            values = None
        return self._bound(compiled, values, decoders)

    def _bound(self, compiled: Any, values: Any, decoders: list[Any]) -> tuple[str, Any, list[Any]]:
        """(SQL, parameters, decoders) of a compiled statement and the values of a call by
        name (None: those it was compiled with), IN lists expanded, bind processors applied."""
        state = compiled.construct_expanded_state(values)
        params: dict[str, Any] = dict(state.parameters)
        # the dialect's bind processors (a JSON path, a date), as the engine applies them:
        # the compiled statement's, and those of the IN lists' expanded parameters
        escaped = compiled.escaped_bind_names
        for name, process in compiled._bind_processors.items():
            name = escaped.get(name, name) if escaped else name
            if name in params and callable(process):
                params[name] = process(params[name])
        for name, process in state.processors.items():
            if name in params:
                params[name] = process(params[name])
        if self._sqlite_path is None:
            return state.statement, [params[name] for name in state.positiontup or ()], decoders
        return state.statement, params, decoders

    def _compile(self, statement: Any) -> tuple[str, list[Any], dict[str, Any]]:
        cached = self._compiled.get(statement)
        if cached is None:
            self._refuse_per_call_statements(self._compiled)
            compiled = statement.compile(dialect=_SQLITE_NAMED)
            # the values written in the statement (a LIMIT of a constant, `column == 3`)
            constants = {
                compiled.bind_names[bind]: bind.effective_value
                for bind in compiled.binds.values()
                if not bind.required
            }
            cached = (str(compiled), _decoders(statement), constants)
            self._compiled[statement] = cached
        return cached

    @staticmethod
    def _refuse_per_call_statements(compiled: dict[Any, Any]) -> None:
        if len(compiled) > 512:
            raise RuntimeError(
                "Reader statements must be module-level constants, not built per call"
            )

    def _sqlite(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = self._open_sqlite()
        return self._connection

    def _open_sqlite(self) -> sqlite3.Connection:
        path = self._sqlite_path or ":memory:"
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA busy_timeout=1000")
        connection.execute("PRAGMA query_only=ON")
        return connection

    def _compile_pg(self, statement: Any) -> tuple[str, tuple[str, ...], Any, list[Any]]:
        cached = self._compiled_pg.get(statement)
        if cached is None:
            self._refuse_per_call_statements(self._compiled_pg)
            compiled = statement.compile(dialect=self.engine.dialect)
            sql = str(compiled)
            if "POSTCOMPILE" in sql:
                raise ValueError("Reader statements take no expanding (IN list) parameters")
            order = tuple(compiled.positiontup or ())
            cached = (sql, order, compiled, _decoders(statement))
            self._compiled_pg[statement] = cached
        return cached

    async def _postgresql(self, statement: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
        sql, order, compiled, decoders = self._compile_pg(statement)
        values = compiled.construct_params(params) if order else {}
        return await self._pg_fetch(sql, [values[name] for name in order], decoders)

    async def _pg_fetch(
        self, sql: str, args: list[Any], decoders: list[Any]
    ) -> list[dict[str, Any]]:
        import asyncpg  # type: ignore[import-untyped]

        pool = self._pool or await self._make_pool()
        for attempt in (1, 2):
            connection = await pool.acquire()
            try:
                records = await connection.fetch(sql, *args)
                break
            except (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError):
                # a connection the server dropped: read once more on a fresh one
                if attempt == 2 or not _lost(connection):
                    raise
            finally:
                await pool.release(connection)
        if not records:
            return []
        names = list(records[0].keys())
        return _decoded([dict(record.items()) for record in records], names, decoders)

    async def _make_pool(self) -> Any:
        import asyncpg

        async with self._pool_lock:
            if self._pool is None:
                _, options = self.engine.dialect.create_connect_args(self._url)
                for sqlalchemy_only in (
                    "prepared_statement_cache_size",
                    "prepared_statement_name_func",
                    "async_creator_fn",
                ):
                    options.pop(sqlalchemy_only, None)
                self._pool = await asyncpg.create_pool(
                    min_size=0, max_size=self._pool_size, reset=_reset_if_needed, **options
                )
        return self._pool

    async def close(self) -> None:
        for connection in (self._connection, self._inline):
            if connection is not None:
                connection.close()
        self._connection = self._inline = None
        if self._scanner is not None:
            scanner, self._scanner = self._scanner, None
            await asyncio.get_running_loop().run_in_executor(scanner, self._close_scan)
            scanner.shutdown(wait=False)
        if self._pool is not None:
            pool, self._pool = self._pool, None
            self._pool_lock = asyncio.Lock()  # a later pool may live on another event loop
            await pool.close()

    def _close_scan(self) -> None:
        connection = getattr(self._scan_local, "connection", None)
        if connection is not None:
            connection.close()
            self._scan_local.connection = None


async def _reset_if_needed(connection: Any) -> None:
    """Before a read connection goes back to the pool: asyncpg's default reset is a round
    trip per release (advisory locks, cursors, listeners, settings), none of which a read
    of this pool leaves; it is still made if a transaction was somehow left open."""
    if connection.is_in_transaction():
        await connection.execute(connection.get_reset_query())


def _lost(connection: Any) -> bool:
    """Whether a pooled asyncpg connection is closed (a lost one is detached from its proxy)."""
    import asyncpg

    try:
        return bool(connection.is_closed())
    except asyncpg.InterfaceError:
        return True


def _decoders(statement: Any) -> list[Any]:
    """Per selected column, how to decode its raw value (None: as it is)."""
    return [_decoder(column.type) for column in getattr(statement, "selected_columns", ())]


def _decoded(
    rows: list[dict[str, Any]], names: list[str], decoders: list[Any]
) -> list[dict[str, Any]]:
    for index, decode in enumerate(decoders):  # only the columns that need decoding
        if decode is not None and index < len(names):
            name = names[index]
            for row in rows:
                row[name] = decode(row[name])
    return rows


def _decoder(column_type: Any) -> Any:
    import json

    if isinstance(column_type, JSON):
        return lambda value: json.loads(value) if isinstance(value, str) else value
    if isinstance(column_type, Boolean):
        return lambda value: None if value is None else bool(value)
    return None
