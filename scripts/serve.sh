#!/usr/bin/env bash
# Quick start 1: set up, build generated/ from the spec, serve the API on http://127.0.0.1:8000
# (embedded SQLite file outreach.sqlite3). Extra arguments go to `outreach-server serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
spec-gen build
exec outreach-server serve "$@"
