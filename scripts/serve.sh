#!/usr/bin/env bash
# Quick start 1: set up, build generated/ from the spec, seed a demo organisation with a list
# of contacts and a live and a test key, then serve the API on http://127.0.0.1:8000 (the
# embedded SQLite file outreach.sqlite3). Extra arguments go to `outreach-server serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
spec-gen build
demo=$(outreach-server admin seed-demo)
echo "demo: $demo"
live_key=$(python -c 'import json,sys; print(json.loads(sys.argv[1])["live_key"])' "$demo")
echo "try:  curl -s -H 'Authorization: Bearer $live_key' http://127.0.0.1:8000/v1/api-keys"
echo "docs: http://127.0.0.1:8000/docs (examples read the key: export OUTREACH_API_KEY=$live_key)"
exec outreach-server serve "$@"
