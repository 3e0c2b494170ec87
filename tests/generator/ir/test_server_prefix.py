"""A first server whose path the routes cannot sit under: a variable it does not declare
(`/merchants/{merchantAccount}/...`: the client's path was an f-string naming undefined
variables, mypy refused it) or a URL that is not one (`<terminal-IP-address>`). The routes
then have no prefix."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_helpers import run_in, write


def _spec(url: str) -> str:
    return f"""\
openapi: 3.1.0
info: {{title: T, version: '1'}}
servers:
  - url: '{url}'
paths:
  /login:
    post:
      operationId: login
      responses:
        '204': {{description: done}}
"""


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1/merchants/{merchantAccount}/devices/{deviceId}/sync",
        "<local-terminal-IP-address>",
    ],
)
def test_a_server_path_without_a_usable_prefix_gives_routes_none(tmp_path: Path, url: str) -> None:
    write(tmp_path / "openapi.yaml", _spec(url))
    code, output = run_in(
        tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", "--typecheck"
    )
    assert code == 0, output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text("utf-8")
    assert '"/login",' in router
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text("utf-8")
    assert '"/login",' in client


def test_a_declared_server_variable_still_gives_its_prefix(tmp_path: Path) -> None:
    text = _spec("https://api.example.com/{version}").replace(
        "  - url: 'https://api.example.com/{version}'\n",
        "  - url: 'https://api.example.com/{version}'\n    variables: {version: {default: v2}}\n",
    )
    write(tmp_path / "openapi.yaml", text)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text("utf-8")
    assert '"/v2/login",' in router
