#!/usr/bin/env bash
# node_test.sh - runs test files of the web client under node's test runner:
# its pure modules, and the whole client in headless chromium (playwright-
# core) against a real `ddz serve` that each file starts. ctest runs each
# tests/web/*.test.mjs as a test of its own (web/NAME), so that the long
# ones run beside each other and beside the C tests.
# Usage: bash node_test.sh PATH-TO-ddz FILE.test.mjs...
# Needs what deploy/deps.sh installs: nodejs, chromium, and `npm ci` in the
# repository (node_modules/playwright-core). cluster.test.mjs runs two nodes
# on the PostgreSQL of the ctest fixture "pg", whose URL file DDZ_TEST_PG
# names, and uses Node's WebSocket (--experimental-websocket before Node 22).
set -euo pipefail
ddz=$(realpath "${1:?usage: node_test.sh PATH-TO-ddz FILE.test.mjs...}")
shift
[ $# -gt 0 ] || { echo "usage: node_test.sh PATH-TO-ddz FILE.test.mjs..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

missing=()
command -v node >/dev/null || missing+=("node (apt: nodejs)")
[ -x "${DDZ_CHROMIUM:-/usr/bin/chromium}" ] || missing+=("chromium (apt: chromium)")
[ -d "$root/node_modules/playwright-core" ] || missing+=("node_modules/playwright-core (npm ci)")
if [ ${#missing[@]} -gt 0 ]; then
    echo "node_test.sh: missing ${missing[*]}; run: bash deploy/deps.sh" >&2
    exit 1
fi

mkdir -p "$here/artifacts"
cd "$root"
ws=()
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || ws=(--experimental-websocket)
DDZ_BIN="$ddz" exec node "${ws[@]}" --no-warnings --test --test-reporter=spec "$@"
