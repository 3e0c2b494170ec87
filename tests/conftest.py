"""Shared test setup: the repository root and helpers.

Many tests run `mypy --strict` on a freshly generated tree (`spec-gen build --typecheck`,
the goldens, the corpus). Each such tree is new, but what it imports (pydantic, FastAPI,
httpx, ...) is not: one mypy cache for the whole session (`MYPY_CACHE_DIR`, unless the
caller set one) lets every run after the first read those from the cache instead of
checking them again, about 5 s of each run. mypy still checks each generated module from
its source (a cache entry whose path, size or hash differs is not used).

Tests that draw something fresh each run (the contract test's second seed) read it from
`SPEC_GEN_TESTS_SEED`, drawn here once per run unless set: under pytest-xdist every worker
must collect the same test ids, and setting it reproduces a run.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_OWN_MYPY_CACHE = "SPEC_GEN_TESTS_OWN_MYPY_CACHE"


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("SPEC_GEN_TESTS_SEED", str(random.SystemRandom().randrange(1, 2**31)))
    if "MYPY_CACHE_DIR" not in os.environ:
        os.environ["MYPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="spec-gen-tests-mypy-")
        os.environ[_OWN_MYPY_CACHE] = os.environ["MYPY_CACHE_DIR"]


def pytest_unconfigure(config: pytest.Config) -> None:
    # the process that made the cache removes it (under xdist, the workers inherit it)
    if hasattr(config, "workerinput"):
        return
    own = os.environ.pop(_OWN_MYPY_CACHE, None)
    if own and os.environ.get("MYPY_CACHE_DIR") == own:
        shutil.rmtree(own, ignore_errors=True)
        del os.environ["MYPY_CACHE_DIR"]


@pytest.fixture
def repo_root() -> Path:
    return ROOT
