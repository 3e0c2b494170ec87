"""Small helpers for the generator's tests: write a spec, run the CLI in a directory, build one
of the documents under fixtures/shapes/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from spec_gen.cli import main

HEAD = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\n"
SHAPES = Path(__file__).resolve().parent / "fixtures" / "shapes"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_in(directory: Path, *args: str) -> tuple[int, str]:
    """Run `spec-gen ARGS` with `directory` as the working directory (its own pyproject)."""
    before = Path.cwd()
    os.chdir(directory)
    try:
        result = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(before)
    return result.exit_code, result.output


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line containing `needle`."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


def column_of(text: str, needle: str) -> int:
    line = text.splitlines()[line_of(text, needle) - 1]
    return line.index(needle) + 1


def run_json(directory: Path, script: str) -> Any:
    """Run a Python `script` in `directory` (a generated server's folder, say) in a fresh
    interpreter; what it printed, read as JSON (the test fails with its stderr otherwise)."""
    ran = subprocess.run(
        [sys.executable, "-c", script], cwd=directory, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def build_shape(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    """`spec-gen build EXTRA` of the document `fixtures/shapes/<fixture>` (`<topic>/<name>`),
    copied to `tmp_path/openapi.yaml`, into `tmp_path/out`: the exit code and the output."""
    shutil.copy(SHAPES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def lines_warned(output: str, rule: str) -> list[int]:
    """The source lines of the findings of `rule`, in order."""
    return sorted(int(line.split(":")[1]) for line in output.splitlines() if f"[{rule}]" in line)
