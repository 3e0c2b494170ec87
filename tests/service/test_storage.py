"""Storage: migrations create exactly the tables the code uses, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from outreach_server.core.db import create_engine
from outreach_server.core.pagination import Page
from outreach_server.migrate import head, upgrade
from outreach_server.schema import metadata
from service_support import one_json, outreach_cli


def test_migrations_match_the_table_definitions(database_url: str) -> None:
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


def run_cli(*args: str, database_url: str) -> dict[str, Any]:
    return one_json(outreach_cli(*args, database_url=database_url))


def test_operator_commands_print_one_json_object(database_url: str) -> None:
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
    assert again["live_key"] != demo["live_key"]
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
        done = subprocess.run(
            [sys.executable, "-m", "outreach_server.cli", *args, "--database-url", url],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0
        assert "Traceback" not in done.stderr and done.stdout == ""


def test_pagination_helper() -> None:
    assert Page(page=1, limit=50).pagination(0).model_dump() == {
        "page": 1, "limit": 50, "total": 0, "has_next": False, "next_cursor": None,
    }  # fmt: skip
    assert Page(page=2, limit=10).offset == 10
    assert Page(page=2, limit=10).pagination(21).has_next is True
    assert Page(page=3, limit=10).pagination(30).has_next is False
