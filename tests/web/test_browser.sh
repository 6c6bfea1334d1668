#!/usr/bin/env bash
# test_browser.sh - the web client's tests: its pure modules under node, and
# the whole client in headless chromium (playwright-core) against a real
# `ddz serve` that the test starts. Usage: bash test_browser.sh PATH-TO-ddz
# Needs what deploy/deps.sh installs: nodejs, chromium, and `npm ci` in the
# repository (node_modules/playwright-core). cluster.test.mjs runs two nodes
# on the PostgreSQL of the ctest fixture "pg", whose URL file DDZ_TEST_PG
# names, and uses Node's WebSocket (--experimental-websocket before Node 22).
set -euo pipefail
ddz=$(realpath "${1:?usage: test_browser.sh PATH-TO-ddz}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

missing=()
command -v node >/dev/null || missing+=("node (apt: nodejs)")
[ -x "${DDZ_CHROMIUM:-/usr/bin/chromium}" ] || missing+=("chromium (apt: chromium)")
[ -d "$root/node_modules/playwright-core" ] || missing+=("node_modules/playwright-core (npm ci)")
if [ ${#missing[@]} -gt 0 ]; then
    echo "test_browser.sh: missing ${missing[*]}; run: bash deploy/deps.sh" >&2
    exit 1
fi

mkdir -p "$here/artifacts"
cd "$root"
ws=()
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || ws=(--experimental-websocket)
DDZ_BIN="$ddz" exec node "${ws[@]}" --no-warnings --test --test-reporter=spec \
    "$here/unit.test.mjs" "$here/browser.test.mjs" "$here/casual.test.mjs" "$here/cluster.test.mjs"
