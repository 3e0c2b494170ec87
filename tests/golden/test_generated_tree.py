"""The committed `generated/` tree matches what the real spec and templates produce."""

from __future__ import annotations

from pathlib import Path

from spec_gen.build.pipeline import check
from spec_gen.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def test_generated_matches_spec() -> None:
    lines: list[str] = []
    ok = check(load_config(ROOT), echo=lines.append)
    assert ok, "\n".join(lines[-60:])
