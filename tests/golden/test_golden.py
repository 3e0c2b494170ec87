"""Golden files: each fixture spec's output is committed under `expected/`; any change fails.

Refresh on purpose (after a template or generator change you mean):
    SPEC_GEN_UPDATE_GOLDEN=1 pytest tests/golden
or, for one fixture:  cd tests/golden/fixtures/<name> && spec-gen build --no-cache
Then read the diff of `expected/` in the PR like any other change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from spec_gen.build.pipeline import render_tree
from spec_gen.build.tree import changes, existing_files, short_diff, write_tree
from spec_gen.core.config import load_config

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "pyproject.toml").is_file())
UPDATE = os.environ.get("SPEC_GEN_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", NAMES)
def test_output_matches_golden_files(name: str) -> None:
    config = load_config(FIXTURES / name)
    result = render_tree(config, None)
    old = existing_files(config.output)
    found = changes(old, result.files)
    if UPDATE:
        write_tree(config.output, result.files, found)
        return
    report = "\n".join(
        f"{c.kind}: {c.path}\n{short_diff(c.path, old.get(c.path), result.files.get(c.path))}"
        for c in found
    )
    assert not found, (
        f"golden files of {name} differ (SPEC_GEN_UPDATE_GOLDEN=1 to refresh):\n{report}"
    )


@pytest.mark.parametrize("name", NAMES)
def test_golden_code_passes_mypy_strict(name: str) -> None:
    expected = FIXTURES / name / "expected"
    packages = [p.parent.name for p in expected.glob("*/*/__init__.py")]
    assert len(packages) == 2, packages
    args = [arg for package in sorted(packages) for arg in ("-p", package)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--config-file",
            os.devnull,
            *args,
        ],
        cwd=expected,
        env={**os.environ, "MYPYPATH": f"{expected / 'server'}{os.pathsep}{expected / 'client'}"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
