#!/usr/bin/env bash
# Quick start 2: set up and run everything CI runs: validate the spec, check generated/ is
# up to date, type-check (mypy binds service/ to the generated interfaces), run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
spec-gen validate
spec-gen build --check > /dev/null || spec-gen build --check
mypy
# the tests run on every core (pytest-xdist); a test module stays on one worker, so its
# module-scoped servers and databases are set up once (`-n 0` after the script: one process).
# The longest modules are handed out first (tests/conftest.py, LONGEST_FIRST), not xdist's
# order by number of tests.
# pytest exits 5 when no test ran; `set -e` turns that (like any failure) into a failed run
python -m pytest -n auto --dist loadscope --no-loadscope-reorder "$@"
