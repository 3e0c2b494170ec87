"""Helpers shared by the service tests (imported by name: the tests' folder is on sys.path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from click.testing import CliRunner
from fastapi.testclient import TestClient
from outreach_api.constants import SCOPES
from outreach_server.cli import main as cli_main
from outreach_server.runtime.services import Services


@dataclass
class Api:
    """A running app (lifespan started: migrated) and a way to call its services."""

    client: TestClient
    services: Services

    def call(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        async def run() -> Any:
            return await func(*args, **kwargs)

        assert self.client.portal is not None
        return self.client.portal.call(run)

    def org(self, name: str = "org") -> int:
        return int(self.call(self.services.orgs.create, name))

    def key(
        self,
        org_id: int | None,
        *,
        mode: str = "live",
        tier: str = "billable",
        scopes: tuple[str, ...] = tuple(sorted(SCOPES)),
        agency: bool = False,
        **extra: Any,
    ) -> str:
        _, token = self.call(
            self.services.keys.create,
            org_id=org_id,
            name=f"{mode} {tier}",
            mode=mode,
            tier=tier,
            scopes=scopes,
            is_agency=agency,
            **extra,
        )
        return str(token)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def outreach_cli(
    *args: str, database_url: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`outreach-server ARGS --database-url URL`, run in this process with click's runner:
    the same exit code, stdout and stderr as a real process (an unexpected exception shows
    as a traceback on stderr, exit 1), without starting an interpreter per command. `env`
    is the whole environment the command sees. Tests of the process boundary itself use
    `outreach_process`."""
    argv = [*args, "--database-url", database_url]
    overrides: dict[str, str | None] = {}
    if env is not None:
        overrides = {name: None for name in os.environ if name not in env}
        overrides.update(env)
    result = CliRunner().invoke(cli_main, argv, env=overrides, prog_name="outreach-server")
    stderr = result.stderr
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, stderr)


def outreach_process(
    *args: str, database_url: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`outreach-server ARGS --database-url URL` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", *args, "--database-url", database_url],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(env) if env is not None else os.environ.copy(),
        check=False,
    )


def one_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The one JSON object an operator command prints (and nothing else on stdout)."""
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    return dict(json.loads(lines[0]))
