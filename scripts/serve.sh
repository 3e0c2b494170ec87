#!/usr/bin/env bash
# Quick start 1: set up, build generated/ from the spec, seed a demo organisation with a list
# of contacts and a live and a test key, then serve the API on http://127.0.0.1:8000 (the
# embedded SQLite file outreach.sqlite3). Extra arguments go to `outreach-server serve`
# (`--port 9000`, `--host 0.0.0.0`, ...); the hints printed name the address served.
# A port already in use stops it before anything is built or seeded: one line naming --port.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
host=${OUTREACH_HOST:-127.0.0.1}
port=${OUTREACH_PORT:-8000}
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --port) port=${args[i + 1]:-$port} ;;
    --port=*) port=${args[i]#--port=} ;;
    --host) host=${args[i + 1]:-$host} ;;
    --host=*) host=${args[i]#--host=} ;;
  esac
done
case "$host" in
  0.0.0.0 | "") shown=127.0.0.1 ;;
  *:*) shown="[$host]" ;;
  *) shown=$host ;;
esac
problem=$(python -c 'import sys; from outreach_server.cli.common import port_problem
print(port_problem(sys.argv[1], int(sys.argv[2])) or "")' "$host" "$port")
if [ -n "$problem" ]; then
  echo "serve.sh: $problem" >&2
  exit 1
fi
spec-gen build
origin="http://$shown:$port"
demo=$(outreach-server admin seed-demo)
echo "demo: $demo"
live_key=$(python -c 'import json,sys; print(json.loads(sys.argv[1])["live_key"])' "$demo")
echo "try:  curl -s -H 'Authorization: Bearer $live_key' $origin/v1/api-keys"
echo "docs: $origin/docs (examples read the key: export OUTREACH_API_KEY=$live_key)"
echo "then, in another shell: . .venv/bin/activate  (for spec-gen, outreach-server, pytest)"
exec outreach-server serve "$@"
