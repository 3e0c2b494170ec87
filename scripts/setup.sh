#!/usr/bin/env bash
# Create .venv (if missing) and install spec-gen, the generated packages and the service, editable.
# Skipped when nothing the install depends on changed since the last one: the stamp
# .venv/.setup-stamp holds a hash of pyproject.toml and the Python version (the packages are
# editable, so code changes need no reinstall; a new dependency or entry point changes
# pyproject.toml). SETUP_FORCE=1 reinstalls anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.setup-stamp
wanted=$(.venv/bin/python -c 'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest(), sys.version.split()[0])')
if [ "${SETUP_FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "setup: .venv is up to date (pyproject.toml unchanged; SETUP_FORCE=1 reinstalls)" >&2
else
  rm -f "$stamp"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  echo "$wanted" > "$stamp"
fi
# byte-compile the editable packages (pip did the installed ones): where PYTHONDONTWRITEBYTECODE
# is set, as on the CI machines here, every spec-gen, server and test subprocess would
# otherwise compile each module it imports from source, some 0.1 s per start
.venv/bin/python -m compileall -q -j 0 generator service generated >/dev/null
