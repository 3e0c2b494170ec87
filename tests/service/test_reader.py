"""The PostgreSQL reader of the hot path: autocommit connections without a ping per
checkout, and one more try when the server has dropped the pooled connection."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from conftest import drop_postgres_database, make_postgres_database
from outreach_server.core.db import INLINE_SQL, Reader, create_engine
from sqlalchemy import bindparam, column, literal_column, select, text

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

    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()

    async def scenario() -> None:
        reader = Reader(create_engine(url), url, pool_size=2)
        try:
            (first,) = await reader.all(MINE)
            # autocommit: no BEGIN is sent before a statement (VACUUM refuses to run in one)
            assert await reader.all(text("VACUUM pg_class")) == []
            (again,) = await reader.all(MINE)
            assert again["pid"] == first["pid"]  # the pooled connection, kept
            # the server drops every connection of this database (a restart, an idle timeout),
            # while this event loop is blocked: the pool cannot have noticed before the read
            assert (
                asyncio.run_coroutine_threadsafe(terminate_others(url, name), other).result() >= 1
            )
            time.sleep(0.2)  # noqa: ASYNC251 (blocking on purpose: the server closes the socket)
            (after,) = await reader.all(MINE)
            assert after["pid"] != first["pid"]  # read again on a new connection
            # an error that is not a lost connection is raised, not retried
            with pytest.raises(asyncpg.UndefinedTableError):
                await reader.all(text("SELECT * FROM no_such_table"))
            (kept,) = await reader.all(MINE)
            assert kept["pid"] == after["pid"]
        finally:
            await reader.close()
            await reader.engine.dispose()

    try:
        asyncio.run(scenario())
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join()
        other.close()


SCANNED = (
    select(column("n"), literal_column("'x'").label("tag"))
    .select_from(text("(SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) AS numbers"))
    .where(column("n") >= bindparam("least"))
    .order_by(column("n"))
    .limit(2)  # a constant of the statement, not a parameter of the call
)


async def scanned_twice(reader: Reader) -> tuple[list[Any], list[Any], set[str]]:
    """What scan() and all() read, and the threads scan() read on."""
    threads = {threading.current_thread().name}
    scanned = await reader.scan(SCANNED, least=2)
    read = await reader.all(SCANNED, least=2)
    if reader._scanner is not None:  # SQLite: the reading thread's name
        threads = {reader._scanner.submit(lambda: threading.current_thread().name).result()}
    return scanned, read, threads


COUNTED = text(
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < :upto) "
    "SELECT count(*) AS n, thread_name() AS thread FROM c"
)


def test_a_short_scan_reads_on_the_loop_thread_and_a_long_one_on_the_reading_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite a scan is first made on the loop's thread, stopped after a budget of steps
    (each read its own: a short statement run many times is never stopped); one that needs
    more is made again on the reading thread, with the same answer."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'scan.sqlite3'}"
    opened = Reader._open_sqlite

    def open_naming_threads(self: Reader) -> Any:
        connection = opened(self)
        connection.create_function("thread_name", 0, lambda: threading.current_thread().name)
        return connection

    monkeypatch.setattr(Reader, "_open_sqlite", open_naming_threads)

    async def scenario() -> tuple[list[Any], list[Any], Any, Any, bool, str]:
        reader = Reader(create_engine(url), url)
        try:
            scanned, read, _ = await scanned_twice(reader)
            for _ in range(reader.inline_steps // 10):  # a cached statement's steps add up
                short = await reader.scan(COUNTED, upto=10)
            no_thread_yet = reader._scanner is None
            long = await reader.scan(COUNTED, upto=reader.inline_steps)
            # a statement of a long text: to the reading thread at once (compiling it is
            # what would stall the loop, and no step budget bounds that)
            padded = text(f"SELECT thread_name() AS thread /* {'x' * INLINE_SQL} */ WHERE :a")
            (wordy,) = await reader.scan(padded, a=1)
            assert wordy["thread"].startswith("sqlite-scan")
            return scanned, read, short, long, no_thread_yet, threading.current_thread().name
        finally:
            await reader.close()
            await reader.engine.dispose()

    scanned, read, short, long, no_thread_yet, loop_thread = asyncio.run(scenario())
    assert scanned == read == [{"n": 2, "tag": "x"}, {"n": 3, "tag": "x"}]
    assert short == [{"n": 10, "thread": loop_thread}] and no_thread_yet
    assert long[0]["n"] == 20_000 and long[0]["thread"].startswith("sqlite-scan")


def test_a_scan_that_fails_on_the_loop_thread_is_not_made_again(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'scan.sqlite3'}"

    async def scenario() -> bool:
        reader = Reader(create_engine(url), url)
        try:
            with pytest.raises(Exception, match="no such table"):
                await reader.scan(text("SELECT n FROM missing WHERE n > :least"), least=1)
            return reader._scanner is None
        finally:
            await reader.close()
            await reader.engine.dispose()

    assert asyncio.run(scenario())


def test_scan_is_a_read_of_the_pool_on_postgresql(pg_url: tuple[str, str]) -> None:
    _, url = pg_url

    async def scenario() -> tuple[list[Any], list[Any]]:
        reader = Reader(create_engine(url), url)
        try:
            scanned, read, _ = await scanned_twice(reader)
            assert reader._scanner is None  # no thread: asyncpg never blocks the loop
            return scanned, read
        finally:
            await reader.close()
            await reader.engine.dispose()

    scanned, read = asyncio.run(scenario())
    assert scanned == read == [{"n": 2, "tag": "x"}, {"n": 3, "tag": "x"}]
