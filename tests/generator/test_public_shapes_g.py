"""Shapes met in large public API descriptions (seventh round: Cloudflare, Discord, Linode,
Stripe, Asana, Sentry, ...), each in a small hand-written spec: the build exits 0 and the
output says what the document meant.

- a parameter schema without `type` but with a scalar default (`page: {default: 1,
  minimum: 1}`, Cloudflare's paging parameters): read as a str with the default 1
  (`page: Annotated[str, Query()] = 1`, mypy --strict failed) and without its bounds. It now
  takes the default's type, and the bounds that type takes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import run_in

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_g"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_untyped_parameters_take_their_default_type(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "untyped_parameter_defaults.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    router = (tmp_path / "out" / "server" / "api_server" / "routers" / "default.py").read_text()
    assert "page: Annotated[int, Query(ge=1)] = 1," in router
    assert "ratio: Annotated[float, Query()] = 0.5," in router
    assert "exact: Annotated[bool, Query()] = True," in router
    assert 'x_mode: Annotated[str, Header(alias="X-Mode")] = "fast",' in router
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    assert "page: int | None = None," in resources.read_text()
