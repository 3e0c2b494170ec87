"""No module of the generator is over 500 lines: a module that grows past it is doing more
than one job and is split by job (as targets/models/ and document/repair.py were)."""

from __future__ import annotations

from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "generator" / "spec_gen"
LIMIT = 500


def oversized(root: Path, limit: int = LIMIT) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append(f"{path.relative_to(root)}: {lines} lines")
    return out


def test_no_generator_module_is_over_500_lines() -> None:
    assert oversized(GENERATOR) == []


def test_the_size_check_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * LIMIT, encoding="utf-8")
    assert oversized(tmp_path) == [f"pkg/long.py: {LIMIT + 1} lines"]
