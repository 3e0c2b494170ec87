#!/usr/bin/env python3
"""Send-path check benchmark: the suppression ledger under a million rows, SQLite and PostgreSQL.

Every send path asks the ledger "which of these N contacts may be reached on channel C"
(`SuppressionLedger.reachable`, one indexed statement). This script builds a ledger of
--rows rows (default 1,000,000) in a fresh database of each backend and times, through the
ledger store (`outreach_server.ledger`), exactly what the service runs:

  1. send-path check, --check-ids contacts (default 10,000) on one channel, a new random
     sample of the organisation's contacts each run;
  2. the same for 100 contacts (the per-batch cost floor);
  3. bulk-add of --bulk-ids contacts (default 100,000) as org_initiated/all, each run on a
     fresh sample (part of it already active, part not).

The data: two organisations, the measured one with most rows. Contacts carry no data beyond
their ids; each ledger row has a distinct (channel, category) per contact, a quarter of them
cleared (history rows). The fill uses the fast paths (sqlite3 executemany, asyncpg COPY),
then ANALYZE (and VACUUM on PostgreSQL, so index-only scans are possible, as on a settled
production table). The query plan of the check is recorded too.

SQLite: a temporary file. PostgreSQL: a temporary database on --pg-dsn's server (default
postgresql://postgres@127.0.0.1:5432/postgres), created and dropped. The table shows the
median and the minimum of --repeat runs (default 7; bulk-add 3) in milliseconds; the results
go to bench/results/send_path_check.json. Run it with the project's virtual environment
active: `python bench/send_path_check.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import json
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import sqlalchemy
from outreach_server.core.db import Reader, create_engine
from outreach_server.ledger.statements import statements
from outreach_server.ledger.store import SuppressionLedger
from outreach_server.migrate import upgrade

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "send_path_check.json"
PG_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
COMBOS = [
    (channel, category)
    for channel in ("all", "email", "phone", "linkedin")
    for category in ("contact_initiated", "org_initiated", "system")
]
AIM_MS = 50.0
NOW = 1_700_000_000


@dataclass
class Row:
    backend: str
    key: str
    label: str
    ids: int
    ms: list[float] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.ms)

    @property
    def min_ms(self) -> float:
        return min(self.ms)


@dataclass
class Layout:
    """Who owns what: contact ids 1..a are org 1's (measured), a+1..a+b org 2's."""

    rows: int
    contacts_a: int
    contacts_b: int
    rows_a: int

    @classmethod
    def for_rows(cls, rows: int) -> Layout:
        rows_a = rows * 4 // 5
        return cls(rows, contacts_a=rows_a * 5 // 8, contacts_b=rows - rows_a, rows_a=rows_a)

    def contacts(self) -> list[tuple[int, int, int]]:
        """(id, org_id, list_id)."""
        a = [(i, 1, 1) for i in range(1, self.contacts_a + 1)]
        b = [(self.contacts_a + i, 2, 2) for i in range(1, self.contacts_b + 1)]
        return a + b

    def ledger(self) -> list[tuple[Any, ...]]:
        """(id, org_id, contact_id, channel, category, active, created_at, created_by,
        cleared_at, cleared_by): a distinct (channel, category) per contact and slot."""
        rng = random.Random(11)
        out: list[tuple[Any, ...]] = []
        for r in range(self.rows):
            if r < self.rows_a:
                org, first, count, index = 1, 1, self.contacts_a, r
            else:
                org, first, count, index = 2, self.contacts_a + 1, self.contacts_b, r - self.rows_a
            contact, slot = first + index % count, index // count
            channel, category = COMBOS[(contact * 7 + slot * 5) % len(COMBOS)]
            active = rng.random() < 0.75
            cleared = (None, None) if active else (NOW + 60, "operator")
            out.append((r + 1, org, contact, channel, category, active, NOW, "key_bench", *cleared))
        return out


# -- filling ------------------------------------------------------------------------------------


def fill_sqlite(path: str, layout: Layout) -> None:
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA synchronous=OFF")
    connection.executemany(
        "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)",
        [(1, "measured", NOW), (2, "other", NOW)],
    )
    connection.executemany(
        "INSERT INTO lists (id, org_id, name, type, created_at) VALUES (?, ?, ?, ?, ?)",
        [(1, 1, "a", "contacts", NOW), (2, 2, "b", "contacts", NOW)],
    )
    connection.executemany(
        "INSERT INTO contacts (id, org_id, list_id, fields, created_at) VALUES (?, ?, ?, '{}', ?)",
        [(*c, NOW) for c in layout.contacts()],
    )
    connection.executemany(
        "INSERT INTO suppressions (id, org_id, contact_id, channel, category, active, created_at,"
        " created_by, cleared_at, cleared_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        layout.ledger(),
    )
    connection.commit()
    connection.execute("ANALYZE")
    connection.close()


async def fill_postgres(dsn: str, layout: Layout) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(
            f"INSERT INTO organizations (id, name, created_at) VALUES (1, 'measured', {NOW}), "
            f"(2, 'other', {NOW});"
            f"INSERT INTO lists (id, org_id, name, type, created_at) VALUES "
            f"(1, 1, 'a', 'contacts', {NOW}), (2, 2, 'b', 'contacts', {NOW})"
        )
        await connection.copy_records_to_table(
            "contacts",
            records=[(*c, "{}", NOW) for c in layout.contacts()],
            columns=["id", "org_id", "list_id", "fields", "created_at"],
        )
        await connection.copy_records_to_table(
            "suppressions",
            records=layout.ledger(),
            columns=[
                "id", "org_id", "contact_id", "channel", "category", "active", "created_at",
                "created_by", "cleared_at", "cleared_by",
            ],
        )  # fmt: skip
        for table in ("organizations", "lists", "contacts", "suppressions"):
            await connection.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
        await connection.execute("VACUUM ANALYZE")
    finally:
        await connection.close()


# -- timing -------------------------------------------------------------------------------------


async def timed(action: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        result = await action()
        return (time.perf_counter() - started) * 1000, result
    finally:
        gc.enable()


async def measure(backend: str, url: str, layout: Layout, args: argparse.Namespace) -> list[Row]:
    engine = create_engine(url)
    ledger = SuppressionLedger(engine, Reader(engine, url))
    rng = random.Random(5)
    population = list(range(1, layout.contacts_a + 1))
    check = Row(backend, "check", f"send-path check, {args.check_ids:,} contacts", args.check_ids)
    small = Row(backend, "check_small", "send-path check, 100 contacts", 100)
    bulk = Row(backend, "bulk_add", f"bulk-add, {args.bulk_ids:,} contacts", args.bulk_ids)
    try:
        await ledger.reachable(1, rng.sample(population, args.check_ids), "email")  # warm-up
        for _ in range(args.repeat):  # interleaved rows: a slow moment hits both alike
            for row in (check, small):
                ids = rng.sample(population, row.ids)
                ms, reachable = await timed(lambda ids=ids: ledger.reachable(1, ids, "email"))
                row.ms.append(ms)
                row.detail.setdefault("reachable", []).append(len(reachable))
        samples = rng.sample(population, min(len(population), args.bulk_ids * args.bulk_repeat))
        for n in range(args.bulk_repeat):
            ids = samples[n * args.bulk_ids : (n + 1) * args.bulk_ids]
            ms, done = await timed(lambda ids=ids: ledger.bulk_add(1, ids, actor="bench"))
            bulk.ms.append(ms)
            bulk.detail.setdefault("added", []).append(len(done.added))
            bulk.detail.setdefault("already_active", []).append(len(done.already_active))
        check.detail["plan"] = await query_plan(engine, backend, population[: args.check_ids])
    finally:
        await engine.dispose()
    return [check, small, bulk]


async def query_plan(engine: Any, backend: str, ids: list[int]) -> list[str]:
    """The plan of the send-path check, to show it is answered from indexes."""
    sql = statements(engine.dialect.name)
    compiled = sql.reachable[False].compile(dialect=engine.dialect)
    values = compiled.construct_params({"org": 1, "ids": sql.ids(ids), "ch": "email"})
    params = tuple(values[name] for name in compiled.positiontup or ())
    prefix = "EXPLAIN " if backend == "postgresql" else "EXPLAIN QUERY PLAN "
    async with engine.connect() as connection:
        rows = (await connection.exec_driver_sql(prefix + str(compiled), params)).all()
    return [_shorten(str(row[-1])) for row in rows]


def _shorten(line: str, width: int = 160) -> str:
    """A plan line without the bound id array PostgreSQL prints in full."""
    return line if len(line) <= width else line[: width - 5] + " ..."


async def run_sqlite(layout: Layout, args: argparse.Namespace) -> tuple[list[Row], float]:
    with tempfile.TemporaryDirectory(prefix="send_path_") as folder:
        path = str(Path(folder) / "ledger.sqlite3")
        url = f"sqlite+aiosqlite:///{path}"
        await upgrade(url)
        started = time.perf_counter()
        fill_sqlite(path, layout)
        fill_s = time.perf_counter() - started
        return await measure("sqlite", url, layout, args), fill_s


async def run_postgres(layout: Layout, args: argparse.Namespace) -> tuple[list[Row], float]:
    name = f"bench_send_path_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(args.pg_dsn, timeout=5)
    await admin.execute(f'CREATE DATABASE "{name}"')
    base = args.pg_dsn.rsplit("/", 1)[0]
    try:
        url = f"{base.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{name}"
        await upgrade(url)
        started = time.perf_counter()
        await fill_postgres(f"{base}/{name}", layout)
        fill_s = time.perf_counter() - started
        return await measure("postgresql", url, layout, args), fill_s
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


# -- report -------------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    lines = [
        "| backend | row | median ms | min ms | per contact µs |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        per = row.median_ms * 1000 / row.ids
        lines.append(
            f"| {row.backend} | {row.label} | {row.median_ms:.1f} | {row.min_ms:.1f} | {per:.2f} |"
        )
    return "\n".join(lines)


async def pg_version(dsn: str) -> str | None:
    try:
        connection = await asyncpg.connect(dsn, timeout=5)
    except (TimeoutError, OSError, asyncpg.PostgresError):  # reported as not available
        return None
    try:
        return str(await connection.fetchval("SHOW server_version"))
    finally:
        await connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="ledger rows")
    parser.add_argument("--check-ids", type=int, default=10_000)
    parser.add_argument("--bulk-ids", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7, help="runs of each check row")
    parser.add_argument("--bulk-repeat", type=int, default=3, help="runs of the bulk-add row")
    parser.add_argument("--pg-dsn", default=PG_DSN, help="admin DSN of the PostgreSQL server")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    layout = Layout.for_rows(args.rows)
    if layout.contacts_a < max(args.check_ids, args.bulk_ids * args.bulk_repeat):
        parser.error("too few contacts for the samples: raise --rows or lower the id counts")

    results: list[Row] = []
    fills: dict[str, float] = {}
    errors: dict[str, str] = {}
    backends = [("sqlite", run_sqlite)]
    version = None if args.no_postgres else asyncio.run(pg_version(args.pg_dsn))
    if not args.no_postgres:
        if version is None:
            errors["postgresql"] = f"not reachable at {args.pg_dsn}"
        else:
            backends.append(("postgresql", run_postgres))
    for backend, run in backends:
        print(f"{backend}: filling {layout.rows:,} ledger rows ...", file=sys.stderr, flush=True)
        rows, fills[backend] = asyncio.run(run(layout, args))
        results.extend(rows)

    print(
        f"Ledger: {layout.rows:,} rows ({layout.rows_a:,} in the measured organisation, "
        f"over {layout.contacts_a:,} of its contacts); channel email; {args.repeat} runs "
        f"(bulk-add {args.bulk_repeat})."
    )
    print()
    print(table(results))
    pg_check = next((r for r in results if r.backend == "postgresql" and r.key == "check"), None)
    if pg_check is not None:
        met = "MET" if pg_check.median_ms < AIM_MS else "NOT MET"
        print(
            f"\nAim: the {args.check_ids:,}-contact check under {AIM_MS:.0f} ms on PostgreSQL: "
            f"{met} ({pg_check.median_ms:.1f} ms)"
        )
    for backend, error in errors.items():
        print(f"\n{backend}: skipped ({error})")

    args.json.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "python_version": platform.python_version(),
            "platform": platform.platform(),
            "machine": platform.machine(),
        },
        "sqlite_version": sqlite3.sqlite_version,
        "postgresql_version": version,
        "sqlalchemy": sqlalchemy.__version__,
        "asyncpg": asyncpg.__version__,
        "ledger_rows": layout.rows,
        "measured_org_rows": layout.rows_a,
        "measured_org_contacts": layout.contacts_a,
        "fill_seconds": {k: round(v, 1) for k, v in fills.items()},
        "aim_ms": AIM_MS,
        "errors": errors,
        "results": [
            {**asdict(r), "median_ms": round(r.median_ms, 2), "min_ms": round(r.min_ms, 2)}
            for r in results
        ],
    }
    args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 1 if errors and not args.no_postgres else 0


if __name__ == "__main__":
    raise SystemExit(main())
