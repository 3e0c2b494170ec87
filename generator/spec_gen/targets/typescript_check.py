"""`tsc --noEmit --strict` on the TypeScript client: run by `spec-gen build --typecheck`, as mypy
is on the Python packages (a node process loading TypeScript costs about 2.5 s of CPU, more than
a whole cold build of a small spec, so a plain build does not start it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .typescript import OUTPUT_DIR, TYPESCRIPT_VERSION


def typecheck_written(output: Path) -> tuple[bool, str]:
    """Type-check the client written under `output/client-ts` (its own tsconfig.json)."""
    root = output / OUTPUT_DIR
    files = {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and "node_modules" not in path.parts and "dist" not in path.parts
    }
    return finish_typecheck(start_typecheck(files))


def tsc_command() -> list[str] | None:
    """A TypeScript compiler: $SPEC_GEN_TSC (`off`: none), else the pinned one the tests
    install under the user's cache folder (`~/.cache/spec-gen/typescript-<version>`), else
    `tsc` on the PATH."""
    explicit = os.environ.get("SPEC_GEN_TSC")
    if explicit == "off":  # the check left to the tests (it costs a node start, ~2.5 s CPU)
        return None
    if explicit:
        return [explicit]
    cached = typescript_cache() / "node_modules" / ".bin" / "tsc"
    if cached.is_file() and shutil.which("node"):
        return [str(cached)]
    found = shutil.which("tsc")
    return [found] if found else None


def typescript_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spec-gen" / f"typescript-{TYPESCRIPT_VERSION}"


def start_typecheck(files: dict[str, str]) -> tuple[subprocess.Popen[str], str] | None:
    """`tsc --noEmit` (strict, noUncheckedIndexedAccess: the package's tsconfig) started on
    `files` (paths under client-ts/) in a temporary tree; None without a compiler."""
    command = tsc_command()
    if command is None:
        return None
    tmp = tempfile.mkdtemp(prefix="spec-gen-ts-")
    for name, content in files.items():
        path = Path(tmp) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    process = subprocess.Popen(
        [*command, "-p", "tsconfig.json", "--noEmit"],
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return process, tmp


def finish_typecheck(started: tuple[subprocess.Popen[str], str] | None) -> tuple[bool, str]:
    """(passed, what to report)."""
    if started is None:
        return True, (
            "TypeScript client not type-checked: no tsc found (install typescript, or set "
            "SPEC_GEN_TSC; SPEC_GEN_TSC=off skips it)"
        )
    process, tmp = started
    try:
        out, _ = process.communicate()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if process.returncode != 0:
        return False, "TypeScript client does not compile (tsc --strict):\n" + out
    return True, "TypeScript client compiles (tsc --noEmit --strict)"
