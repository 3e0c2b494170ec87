"""Organisation ids in claims, headers and operator flags: ASCII digits only (issue 30, hole 8)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from outreach_server.cli import main
from outreach_server.core.identifiers import ascii_int, org_id_from_text

NOT_ASCII = ["\u0661", "\uff11", "\u00b2", "\u0967", "\U0001d7d9"]  # ١ １ ² १ 𝟙


@pytest.mark.parametrize("text", NOT_ASCII)
def test_digits_of_other_scripts_are_no_organisation(text: str) -> None:
    assert text.isdecimal() or text.isdigit()  # what the old checks accepted
    assert org_id_from_text(text) is None and ascii_int(text) is None


@pytest.mark.parametrize(
    "text", ["", " 1", "1 ", "1\n", "+1", "-1", "1_000", "0", "0x1", "1.0", "2147483648", "9" * 30]
)
def test_anything_but_plain_digits_in_range_is_refused(text: str) -> None:
    assert org_id_from_text(text) is None


def test_plain_digits_are_read() -> None:
    assert org_id_from_text("1") == 1 and org_id_from_text("0042") == 42
    assert org_id_from_text("2147483647") == 2**31 - 1


@pytest.mark.parametrize("text", ["\u0661", "\uff11"])
def test_operator_flags_refuse_them_too(text: str) -> None:
    """click's INT reads int("١") as 1: every --org-id / --agency-org-id uses ORG_ID instead."""
    result = CliRunner().invoke(
        main,
        [
            "admin",
            "add-credits",
            "--org-id",
            text,
            "--amount",
            "5",
            "--database-url",
            "sqlite+aiosqlite:////nonexistent/never-opened.sqlite3",
        ],
    )
    assert result.exit_code == 2, result.output
    assert "is not an organisation id" in result.output
