"""Storage: migrations create exactly the tables the code uses, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from outreach_server.cli.demo import demo_keys_file
from outreach_server.core.db import create_engine
from outreach_server.core.pagination import Page
from outreach_server.core.settings import Settings
from outreach_server.migrate import head, upgrade
from outreach_server.runtime.services import Services
from outreach_server.schema import metadata
from outreach_server.webhooks.tables import webhooks
from service_support import one_json, outreach_cli, outreach_process
from sqlalchemy import select


def test_migrations_match_the_table_definitions(empty_database_url: str) -> None:
    database_url = empty_database_url

    async def diff() -> list[Any]:
        assert await upgrade(database_url) == head()
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: compare_metadata(MigrationContext.configure(sync), metadata)
                )
        finally:
            await engine.dispose()

    assert asyncio.run(diff()) == []
    assert asyncio.run(upgrade(database_url)) == head()  # idempotent


def demo_key_state(database_url: str, org_id: int, token: str) -> tuple[bool, int]:
    """Whether `token` authenticates, and how many unrevoked demo keys the organisation has."""

    async def state() -> tuple[bool, int]:
        services = Services.create(Settings(database_url=database_url, key_cache_seconds=0))
        try:
            valid = await services.keys.authenticate(token) is not None
            keys = await services.keys.list_for_org(org_id)
            demo = [k for k in keys if k.name.startswith("demo ") and k.revoked_at is None]
            return valid, len(demo)
        finally:
            await services.close()

    return asyncio.run(state())


def demo_webhook_active(database_url: str) -> bool | None:
    """Whether the docs' example webhook `wh_demo` is active (None: it does not exist)."""

    async def read() -> bool | None:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                found = await connection.scalar(
                    select(webhooks.c.is_active).where(webhooks.c.id == "wh_demo")
                )
                return None if found is None else bool(found)
        finally:
            await engine.dispose()

    return asyncio.run(read())


def run_cli(*args: str, database_url: str) -> dict[str, Any]:
    return one_json(outreach_cli(*args, database_url=database_url))


def test_operator_commands_print_one_json_object(empty_database_url: str) -> None:
    database_url = empty_database_url

    assert run_cli("migrate", database_url=database_url) == {"revision": head()}
    agency = run_cli("admin", "create-org", "Agency", database_url=database_url)["org_id"]
    client = run_cli("admin", "create-org", "Client", database_url=database_url)["org_id"]
    key = run_cli(
        "admin", "create-key", "--org-id", str(agency), "--mode", "test", "--tier", "read",
        "--scopes", "contacts:read", "--agency", database_url=database_url,
    )  # fmt: skip
    assert key["mode"] == "test" and key["api_key_token"].startswith("outreach_test_")
    assert key["api_key_id"].startswith("key_")
    linked = run_cli(
        "admin",
        "link-org",
        "--agency-org-id",
        str(agency),
        "--org-id",
        str(client),
        database_url=database_url,
    )
    assert linked == {"agency_org_id": agency, "org_id": client, "linked": True}
    flag = run_cli(
        "admin",
        "enable-flag",
        "--org-id",
        str(client),
        "M6_APP_TOKENS_ENABLED",
        database_url=database_url,
    )
    assert flag["enabled"] is True
    demo = run_cli("admin", "seed-demo", database_url=database_url)
    assert set(demo) == {"org_id", "live_key", "test_key", "list_id"}
    assert demo["live_key"].startswith("outreach_live_") and demo["test_key"].startswith(
        "outreach_test_"
    )
    again = run_cli("admin", "seed-demo", database_url=database_url)
    assert (again["org_id"], again["list_id"]) == (demo["org_id"], demo["list_id"])
    keys_file = demo_keys_file(database_url)
    if keys_file is not None:  # SQLite: the tokens are kept next to the database file
        assert again == demo
        assert keys_file.stat().st_mode & 0o777 == 0o600
    else:  # nowhere to keep them: rotated, the earlier ones revoked
        assert again["live_key"] != demo["live_key"]
    emitted = run_cli(
        "admin", "emit-event", "campaign.created", "--org-id", str(demo["org_id"]),
        database_url=database_url,
    )  # fmt: skip
    assert emitted["deliveries_created"] == 0  # the demo webhook is inactive: no endless failures
    if keys_file is not None:
        assert demo_webhook_active(database_url) is False  # there for the docs, but inactive
    rotated = run_cli("admin", "seed-demo", "--rotate-keys", database_url=database_url)
    assert rotated["org_id"] == demo["org_id"]
    assert {rotated["live_key"], rotated["test_key"]}.isdisjoint(
        {again["live_key"], again["test_key"]}
    )
    assert demo_key_state(database_url, demo["org_id"], again["live_key"]) == (False, 2)
    assert demo_key_state(database_url, demo["org_id"], rotated["live_key"]) == (True, 2)
    revoked = run_cli(
        "admin", "revoke-key", "--key-id", key["api_key_id"], database_url=database_url
    )
    assert revoked == {"api_key_id": key["api_key_id"], "revoked": True}


def test_admin_refuses_unknown_organisations_and_scopes(tmp_path: Any) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    for args in (
        ["admin", "create-key", "--org-id", "999"],
        ["admin", "create-key", "--org-id", "1", "--scopes", "root:all"],
    ):
        done = outreach_process(*args, database_url=url)  # the real process boundary
        assert done.returncode != 0
        assert "Traceback" not in done.stderr and done.stdout == ""


def test_pagination_helper() -> None:
    assert Page(page=1, limit=50).pagination(0).model_dump() == {
        "page": 1, "limit": 50, "total": 0, "has_next": False, "next_cursor": None,
    }  # fmt: skip
    assert Page(page=2, limit=10).offset == 10
    assert Page(page=2, limit=10).pagination(21).has_next is True
    assert Page(page=3, limit=10).pagination(30).has_next is False
