"""The `outreach-server` command line starts at once: a command loads only what it needs.

Checked by import, not by timing: a fresh interpreter runs the command in process and
reports which heavy packages ended up in `sys.modules`.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from outreach_server.cli import ADMIN_AREAS, main

WEB = ("fastapi", "starlette", "outreach_api.routers", "uvicorn")
STORAGE = ("sqlalchemy", "sqlalchemy.ext.asyncio", "aiosqlite", "asyncpg", "alembic")

PROBE = """
import json, os, sys
from outreach_server.cli import main
try:
    main(sys.argv[1:], prog_name="outreach-server")
except SystemExit as exit:
    code = exit.code
else:
    code = 0
heavy = sorted(m for m in json.loads(os.environ["HEAVY"]) if m in sys.modules)
print(json.dumps({"code": code, "loaded": heavy}), file=sys.stderr)
"""


def loaded_by(*args: str, cwd: Path | None = None) -> list[str]:
    """The heavy modules a fresh `outreach-server ARGS` imported (it must exit 0)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
        env={**os.environ, "HEAVY": json.dumps([*WEB, *STORAGE])},
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    return list(report["loaded"])


def test_an_operator_command_help_loads_no_web_framework_and_no_database() -> None:
    assert loaded_by("admin", "create-org", "--help") == []
    assert loaded_by("--help") == []
    assert loaded_by("serve", "--help") == []


@pytest.mark.parametrize("area", sorted(ADMIN_AREAS))
def test_no_admin_command_loads_the_web_framework(area: str) -> None:
    command = ADMIN_AREAS[area][0]
    assert not set(loaded_by("admin", command, "--help")) & set(WEB)


def test_creating_an_organisation_loads_no_web_framework(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cli.sqlite3'}"
    loaded = loaded_by("admin", "create-org", "Acme", "--database-url", url)
    assert not set(loaded) & set(WEB)
    assert "sqlalchemy.ext.asyncio" in loaded  # it did reach the database


@pytest.mark.parametrize("area", sorted(ADMIN_AREAS))
def test_the_lazy_table_names_every_command_of_each_area(area: str) -> None:
    group = click.Group()
    importlib.import_module(f"outreach_server.cli.{area}").register(group)
    assert sorted(group.commands) == sorted(ADMIN_AREAS[area])


def test_admin_help_lists_every_command() -> None:
    admin = main.commands["admin"]
    assert isinstance(admin, click.Group)
    ctx = click.Context(admin)
    listed = admin.list_commands(ctx)
    assert listed == sorted(name for names in ADMIN_AREAS.values() for name in names)
    assert all(admin.get_command(ctx, name) is not None for name in listed)
    assert admin.get_command(ctx, "no-such-command") is None
