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

The slowest modules run first (`LONGEST_FIRST`): pytest-xdist hands out whole modules
(`--dist loadscope`), so a four-minute module handed out last keeps one worker busy while
the other has nothing left; handed out first, the short ones fill in beside it.
`scripts/test.sh` turns off xdist's own reordering (by number of tests) so this order holds.
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

# the modules that took longest in a whole run (junit times, `--junitxml`), longest first
LONGEST_FIRST = (
    "tests/contract/test_schemathesis.py",
    "tests/corpus/test_fidelity_large.py",
    "tests/generator/commands/test_own_spec.py",
    "tests/generator/build/test_verify.py",
    "tests/generator/build/test_incremental.py",
    "tests/service/test_webhook_delivery.py",
    "tests/client/test_client_retries.py",
    "tests/docs/test_docs_browser.py",
    "tests/service/test_suppressions.py",
    "tests/service/test_webhook_authority.py",
    "tests/client/test_client_http.py",
    "tests/contract/test_slow_clients.py",
    "tests/docs/test_docs_examples.py",
    "tests/service/test_webhook_batched_delivery.py",
    "tests/service/test_billable.py",
    "tests/service/test_contacts.py",
    "tests/generator/diff/test_diff_generated.py",
    "tests/corpus/test_corpus.py",
    "tests/generator/build/test_unit_keys.py",
    "tests/generator/build/test_models_two_runs.py",
    "tests/generator/build/test_build.py",
)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("SPEC_GEN_TESTS_SEED", str(random.SystemRandom().randrange(1, 2**31)))
    # the build's probes run at the build's priority: the test workers fill every core, and a
    # probe below them would wait for the whole run (generator/spec_gen/build/probe.py)
    os.environ.setdefault("SPEC_GEN_PROBE_NICE", "0")
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    missing = [name for name in LONGEST_FIRST if not (ROOT / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py LONGEST_FIRST names no file: {missing}")

    def place(item: pytest.Item) -> int:
        return rank.get(item.path.relative_to(ROOT).as_posix(), len(rank))

    items.sort(key=place)  # stable: the rest keep their order


@pytest.fixture
def repo_root() -> Path:
    return ROOT
