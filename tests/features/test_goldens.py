"""Each feature fixture's output is committed under `expected/`, and type-checks strictly.

Refresh on purpose: `SPEC_GEN_UPDATE_GOLDEN=1 pytest tests/features/test_goldens.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from harness import FEATURES, feature_names
from spec_gen.build.pipeline import render_tree
from spec_gen.build.tree import changes, existing_files, short_diff, write_tree
from spec_gen.core.config import load_config

UPDATE = os.environ.get("SPEC_GEN_UPDATE_GOLDEN") == "1"
# the generated packages checked by mypy --strict
KINDS = ("api", "client")


@pytest.mark.parametrize("name", feature_names())
def test_output_matches_golden_files(name: str) -> None:
    config = load_config(FEATURES / name)
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
    assert not found, f"golden files of {name} differ (SPEC_GEN_UPDATE_GOLDEN=1):\n{report}"


def test_every_feature_passes_mypy_strict() -> None:
    """One mypy run over every fixture's generated packages."""
    paths, args = [], []
    for name in feature_names():
        expected = FEATURES / name / "expected"
        paths += [str(expected / "server"), str(expected / "client")]
        args += [a for kind in KINDS for a in ("-p", f"{name}_{kind}")]
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
        env={**os.environ, "MYPYPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
