"""Fixtures of the contract and hostile-input tests: a real server per module and backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from running_server import RunningServer, backend_server


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    """The demo organisation served by a real `outreach-server serve`, on each backend."""
    workdir = tmp_path_factory.mktemp(f"server-{request.param}")
    yield from backend_server(str(request.param), workdir)
