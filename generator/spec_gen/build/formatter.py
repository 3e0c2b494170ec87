"""Formatting the generated Python with ruff (pinned): imports sorted, unused ones dropped,
then `ruff format`, all files at once in one throw-away tree."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path


def scratch_dir() -> str | None:
    """Where ruff's throw-away tree goes: `$TMPDIR` when set, else the memory-backed
    /dev/shm when there is one (ruff rewrites every file twice: on a disk under load,
    creating a thousand small files can take seconds), else the system's default."""
    if os.environ.get("TMPDIR"):
        return None
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def format_python(files: dict[str, str]) -> dict[str, str]:
    """Sort imports, drop unused ones and format, with ruff (pinned), in one temporary tree."""
    from ruff.__main__ import find_ruff_bin

    ruff = find_ruff_bin()
    with tempfile.TemporaryDirectory(prefix="spec-gen-", dir=scratch_dir()) as tmp:
        root = Path(tmp)
        python = [name for name in files if name.endswith(".py")]
        for name in python:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(files[name], encoding="utf-8")
        common = ["--isolated", "--line-length", "100", "--target-version", "py311"]
        for command in (
            ["check", *common, "--select", "I,F401", "--fix-only", "--exit-zero", "."],
            ["format", *common, "."],
        ):
            done = subprocess.run(
                [ruff, *command], cwd=root, capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                raise RuntimeError(
                    f"ruff {command[0]} failed on generated code:\n{done.stderr}{done.stdout}"
                )
        out = dict(files)
        for name in python:
            out[name] = (root / name).read_text(encoding="utf-8")
    return out
