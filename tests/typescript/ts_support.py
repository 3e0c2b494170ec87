"""The TypeScript compiler the TypeScript client's tests use: the pinned `typescript` package,
installed from the npm registry into the user's cache folder (outside the repository), once.

    python tests/typescript/ts_support.py      # what .ci/run does before the suite

Without node or npm the tests that need it skip with the reason, except under CI=true, where
they fail.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spec_gen.targets.typescript import TYPESCRIPT_VERSION
from spec_gen.targets.typescript_check import typescript_cache

ROOT = Path(__file__).resolve().parents[2]
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "ES2022",
        "moduleResolution": "Bundler",
        "lib": ["ES2022", "DOM", "DOM.Iterable"],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "noEmit": True,
        "skipLibCheck": True,
    }
}


def install() -> Path:
    """The pinned tsc, installed under the cache folder if it is not there yet."""
    cache = typescript_cache()
    tsc = cache / "node_modules" / ".bin" / "tsc"
    if tsc.is_file():
        return tsc
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("npm is not installed")
    cache.mkdir(parents=True, exist_ok=True)
    with (cache.parent / f".{cache.name}.lock").open("w") as lock:  # xdist workers wait
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not tsc.is_file():
            subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(cache),
                 f"typescript@{TYPESCRIPT_VERSION}"],
                check=True, capture_output=True, text=True, timeout=300,
            )  # fmt: skip
    return tsc


def tsc_or_skip() -> Path:
    """The compiler; skips (fails under CI=true) without node or npm."""
    reason = None
    if shutil.which("node") is None:
        reason = "node is not installed"
    else:
        try:
            return install()
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", "") or ""
            reason = f"could not install typescript@{TYPESCRIPT_VERSION}: {exc} {detail}".strip()
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {reason}")
    print(f"skipped: {reason}")
    pytest.skip(reason)


def typecheck(
    tsc: Path, root: Path, include: list[str], paths: dict[str, list[str]] | None = None
) -> subprocess.CompletedProcess[str]:
    """ONE tsc --noEmit (strict, noUncheckedIndexedAccess) over every folder of `include`;
    `paths`: package names resolved to folders of the tree."""
    options = {**TSCONFIG["compilerOptions"], "paths": paths or {}}
    config = {"compilerOptions": options, "include": include}
    (root / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(tsc), "-p", "tsconfig.json"], cwd=root, capture_output=True, text=True, check=False
    )


if __name__ == "__main__":
    print(install())
    sys.exit(0)
