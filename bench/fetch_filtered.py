#!/usr/bin/env python3
"""Filtered fetch benchmark: POST /contacts/fetch over 1,000,000 contacts, SQLite and PostgreSQL.

Loads --rows contacts into one organisation (plus a tenth as many into a second one, which
every query must skip) on each backend, migrated by the service's own migrations (so the
indexes are the real ones), then times the statements of a filtered fetch:

  filter   last_name contains "son" (case-insensitive)  AND  created_at inRange [lo, hi]
  columns  first_name, last_name, email, created_at; first page, limit 50, ordered by id

in two scopes: the whole organisation, and one list (its own contacts or those added to
it, `in_list`). For each it reports the median milliseconds of

  page    the page query alone (contact_store's select_matching(...).select(...).limit(50))
  count   the total of the pagination object (select_matching(...).count())
  fetch   the whole request through the app: key, scope, catalogue, page, count, JSON

SQLite: a temporary file, bulk-loaded with executemany in one transaction. PostgreSQL: a
temporary database at --pg-host (user postgres), created and dropped here, loaded with
COPY (asyncpg copy_records_to_table), then ANALYZEd as autovacuum would. Results go to
bench/results/fetch_filtered.json. Run with the project's virtual environment active:
`python bench/fetch_filtered.py [--rows 1000000] [--repeat 7]`.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "fetch_filtered.json"
T0 = 1_700_000_000
SPAN = 10_000_000  # created_at spreads over this many seconds
PREFIXES = [
    "John", "Ander", "Peter", "Wil", "Ed", "Harri", "Jack", "Nel", "Robin", "Richard",
    "Thomp", "Gib", "Mor", "Dix", "Hud", "Car", "Wat", "Ben", "Stan", "Whit",
]  # fmt: skip
SUFFIXES = ["son", "ley", "man", "ford", "well", "ton", "berg", "ez", "ski", "ova", "er", "ard"]
FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim"]
FILTER: dict[str, Any] = {
    "last_name": {"filterType": "text", "type": "contains", "filter": "son"},
    "created_at": {
        "filterType": "number",
        "type": "inRange",
        "filter": T0 + SPAN // 4,
        "filterTo": T0 + 3 * SPAN // 4,
    },
}
COLUMNS = ["first_name", "last_name", "email", "created_at"]
INSERT_COLUMNS = (
    "org_id", "list_id", "email", "first_name", "last_name", "company_name", "job_title",
    "fields", "created_at",
)  # fmt: skip


def contact_rows(
    count: int, org_id: int, list_ids: list[int], seed: int
) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(seed)
    for n in range(count):
        last = rng.choice(PREFIXES) + rng.choice(SUFFIXES)
        first = rng.choice(FIRST)
        yield (
            org_id,
            list_ids[n % len(list_ids)],
            f"{first.lower()}.{last.lower()}.{n}@example.com",
            first,
            last,
            f"Company {n % 5000}",
            "Engineer" if n % 3 else "Manager",
            "{}",
            T0 + rng.randrange(SPAN),
        )


# -- loading -------------------------------------------------------------------------------


async def prepare(url: str) -> None:
    from outreach_server.migrate import upgrade

    await upgrade(url)


def load_sqlite(path: str, rows: int) -> dict[str, Any]:
    """Two organisations, three lists, the contacts, some memberships; returns the ids."""
    connection = sqlite3.connect(path)
    try:
        cursor = connection.cursor()
        cursor.execute("BEGIN")
        ids = _seed_sqlite(cursor)
        placeholders = ", ".join("?" for _ in INSERT_COLUMNS)
        statement = f"INSERT INTO contacts ({', '.join(INSERT_COLUMNS)}) VALUES ({placeholders})"
        cursor.executemany(statement, contact_rows(rows, ids["org"], ids["lists"], 1))
        cursor.executemany(
            statement, contact_rows(rows // 10, ids["other_org"], [ids["other_list"]], 2)
        )
        cursor.execute(
            "INSERT INTO list_memberships (list_id, contact_id, org_id, added_at) "
            "SELECT ?, id, org_id, 0 FROM contacts WHERE org_id = ? AND list_id = ? AND id % 50 = 0",
            (ids["lists"][0], ids["org"], ids["lists"][1]),
        )
        connection.commit()
    finally:
        connection.close()
    return ids


def _seed_sqlite(cursor: sqlite3.Cursor) -> dict[str, Any]:
    def org(name: str) -> int:
        cursor.execute("INSERT INTO organizations (name, created_at) VALUES (?, ?)", (name, T0))
        return int(cursor.lastrowid or 0)

    def new_list(org_id: int, name: str) -> int:
        cursor.execute(
            "INSERT INTO lists (org_id, name, type, created_at) VALUES (?, ?, 'contacts', ?)",
            (org_id, name, T0),
        )
        return int(cursor.lastrowid or 0)

    org_id, other = org("bench"), org("other tenant")
    return {
        "org": org_id,
        "other_org": other,
        "lists": [new_list(org_id, "first half"), new_list(org_id, "second half")],
        "other_list": new_list(other, "theirs"),
    }


async def load_postgresql(dsn: str, rows: int) -> dict[str, Any]:
    import asyncpg

    connection = await asyncpg.connect(dsn)
    try:

        async def org(name: str) -> int:
            return int(await connection.fetchval(
                "INSERT INTO organizations (name, created_at) VALUES ($1, $2) RETURNING id", name, T0
            ))  # fmt: skip

        async def new_list(org_id: int, name: str) -> int:
            return int(await connection.fetchval(
                "INSERT INTO lists (org_id, name, type, created_at) "
                "VALUES ($1, $2, 'contacts', $3) RETURNING id", org_id, name, T0,
            ))  # fmt: skip

        org_id, other = await org("bench"), await org("other tenant")
        ids = {
            "org": org_id,
            "other_org": other,
            "lists": [await new_list(org_id, "first half"), await new_list(org_id, "second half")],
            "other_list": await new_list(other, "theirs"),
        }
        for count, owner, lists, seed in (
            (rows, org_id, ids["lists"], 1),
            (rows // 10, other, [ids["other_list"]], 2),
        ):
            await connection.copy_records_to_table(
                "contacts",
                records=contact_rows(count, owner, lists, seed),
                columns=list(INSERT_COLUMNS),
            )
        await connection.execute(
            "INSERT INTO list_memberships (list_id, contact_id, org_id, added_at) "
            "SELECT $1, id, org_id, 0 FROM contacts WHERE org_id = $2 AND list_id = $3 "
            "AND id % 50 = 0",
            ids["lists"][0], org_id, ids["lists"][1],
        )  # fmt: skip
        await connection.execute("ANALYZE")
        return ids
    finally:
        await connection.close()


# -- timing --------------------------------------------------------------------------------


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


async def time_statements(url: str, ids: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The page and count statements of the fetch, as contact_store builds them."""
    from outreach_server.contacts.store import ContactScope, select_matching
    from outreach_server.core.db import create_engine
    from outreach_server.core.tables import contacts

    engine = create_engine(url)
    out: dict[str, Any] = {}
    try:
        scope = ContactScope(ids["org"])
        for name, list_id in (("organisation", None), ("one list", ids["lists"][0])):
            async with engine.connect() as connection:
                matching = await select_matching(
                    connection, scope, list_id=list_id, filter_model=FILTER
                )
                page = matching.select(*(contacts.c[c] for c in ["id", *COLUMNS])).limit(50)
                samples: dict[str, list[float]] = {"page": [], "count": []}
                total = rows = 0
                for run in range(repeat + 1):  # the first run warms the cache, untimed
                    started = time.perf_counter()
                    rows = len((await connection.execute(page)).all())
                    page_s = time.perf_counter() - started
                    started = time.perf_counter()
                    total = int(await connection.scalar(matching.count()) or 0)
                    count_s = time.perf_counter() - started
                    if run:
                        samples["page"].append(page_s)
                        samples["count"].append(count_s)
            out[name] = {"list_id": list_id, "rows": rows, "total": total, "seconds": samples}
    finally:
        await engine.dispose()
    return out


def time_requests(url: str, ids: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The whole request through the app (TestClient: no network, no server process)."""
    from fastapi.testclient import TestClient
    from outreach_server import Settings, create_app

    settings = Settings(
        database_url=url,
        auto_migrate=False,
        rate_limit_per_second=1_000_000,
        rate_limit_per_minute=60_000_000,
    )
    app = create_app(settings)
    out: dict[str, Any] = {}
    with TestClient(app) as client:
        services = app.state.services

        async def make_key() -> str:
            _, token = await services.keys.create(
                org_id=ids["org"], name="bench", mode="live", tier="read",
                scopes=["contacts:read"],
            )  # fmt: skip
            return str(token)

        assert client.portal is not None
        token = client.portal.call(make_key)
        headers = {"Authorization": f"Bearer {token}"}
        for name, list_id in (("organisation", None), ("one list", ids["lists"][0])):
            body: dict[str, Any] = {"columns": COLUMNS, "filter_model": FILTER}
            if list_id is not None:
                body["list_id"] = list_id
            samples = []
            total = None
            for run in range(repeat + 1):
                started = time.perf_counter()
                response = client.post("/api/v1/contacts/fetch", json=body, headers=headers)
                elapsed = time.perf_counter() - started
                if response.status_code != 200:
                    raise RuntimeError(f"fetch answered {response.status_code}: {response.text}")
                total = response.json()["pagination"]["total"]
                if run:
                    samples.append(elapsed)
            out[name] = {"total": total, "seconds": samples}
    return out


async def pg_admin(host: str, statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(f"postgresql://postgres@{host}:5432/postgres", timeout=5)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def run_backend(name: str, args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    if name == "sqlite":
        folder = tempfile.mkdtemp(prefix="fetch_bench_")
        path = str(Path(folder) / "bench.sqlite3")
        url = f"sqlite+aiosqlite:///{path}"
        asyncio.run(prepare(url))
        load_started = time.perf_counter()
        ids = load_sqlite(path, args.rows)

        def cleanup() -> None:
            shutil.rmtree(folder, ignore_errors=True)

    else:
        database = f"fetch_bench_{uuid.uuid4().hex[:12]}"
        asyncio.run(pg_admin(args.pg_host, f'CREATE DATABASE "{database}"'))
        url = f"postgresql+asyncpg://postgres@{args.pg_host}:5432/{database}"
        dsn = f"postgresql://postgres@{args.pg_host}:5432/{database}"

        def cleanup() -> None:
            asyncio.run(
                pg_admin(args.pg_host, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            )

        try:
            asyncio.run(prepare(url))
            load_started = time.perf_counter()
            ids = asyncio.run(load_postgresql(dsn, args.rows))
        except BaseException:
            cleanup()
            raise
    load_seconds = time.perf_counter() - load_started
    print(
        f"{name}: loaded {args.rows:,} + {args.rows // 10:,} contacts in {load_seconds:.1f} s",
        file=sys.stderr,
    )
    try:
        statements = asyncio.run(time_statements(url, ids, args.repeat))
        requests = time_requests(url, ids, args.repeat)
    finally:
        cleanup()
    return {
        "backend": name,
        "load_seconds": round(load_seconds, 2),
        "total_seconds": round(time.perf_counter() - started, 2),
        "statements": statements,
        "requests": requests,
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| backend | scope | matching | page ms (median) | count ms (median) | fetch request ms (median) |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        for scope, timed in result["statements"].items():
            request = result["requests"][scope]
            lines.append(
                f"| {result['backend']} | {scope} | {timed['total']:,} | "
                f"{median_ms(timed['seconds']['page'])} | {median_ms(timed['seconds']['count'])} | "
                f"{median_ms(request['seconds'])} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-host", default="127.0.0.1")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    results = [run_backend(name.strip(), args) for name in args.backends.split(",") if name.strip()]
    for result in results:  # the two scopes and the request must agree on the total
        totals = {t["total"] for t in result["statements"].values()}
        assert all(
            result["requests"][s]["total"] == t["total"] for s, t in result["statements"].items()
        )
        assert len(totals) == 2, totals
    print(table(results))
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "python_version": platform.python_version(),
            "platform": platform.platform(),
            "sqlite_version": sqlite3.sqlite_version,
        },
        "rows": args.rows,
        "other_tenant_rows": args.rows // 10,
        "repeat": args.repeat,
        "filter": FILTER,
        "columns": COLUMNS,
        "limit": 50,
        "results": results,
        "table": table(results),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
