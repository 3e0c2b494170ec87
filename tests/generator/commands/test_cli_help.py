"""`spec-gen --help` names every OpenAPI version it reads."""

from __future__ import annotations

from click.testing import CliRunner
from spec_gen.cli import main


def test_help_names_the_versions_read() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    first = " ".join(result.output.split("Options:")[0].split())
    assert "OpenAPI 3.0, 3.1 or 3.2 spec" in first, result.output
