#!/usr/bin/env bash
# test_events_schema.sh - the event codec's data files agree with the JSON
# Schemas of proto/schema/ (checked with ajv under node, by
# tests/service/validate_frames.js), so that they cannot drift apart:
#   - every frame of tests/proto/events.txt validates;
#   - every frame of tests/proto/events_bad.txt that is not marked "strict"
#     does not (a "strict" case is one the schemas accept and only the codec
#     refuses, see the header of events_bad.txt).
# tests/proto/test_event.c checks the same files against the codec.
# Node and ajv come from deploy/deps.sh (apt nodejs/npm, `npm ci`).
# Usage: test_events_schema.sh [PATH-TO-DDZ] (unused: nothing is run)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v node >/dev/null; then
    echo "FAIL: node is not installed (run deploy/deps.sh)"
    exit 1
fi
if [ ! -f "$src/node_modules/ajv/dist/2020.js" ]; then
    echo "FAIL: the npm package ajv is not installed in $src (run deploy/deps.sh)"
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The data files as the JSON lines validate_frames.js reads.
node - "$src/tests/proto/events.txt" "$src/tests/proto/events_bad.txt" >"$tmp/frames.jsonl" <<'JS'
'use strict';
const fs = require('fs');
const [good, bad] = process.argv.slice(2);
const cases = (file) =>
    fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
for (const line of cases(good))
    console.log(JSON.stringify({ dir: 'in', frame: JSON.parse(line) }));
for (const line of cases(bad)) {
    const [expected, text] = line.split('\t');
    if (!expected.endsWith(' strict')) console.log(JSON.stringify({ dir: 'badin', text }));
}
JS
[ $? = 0 ] || { echo "FAIL: a line of events.txt is not JSON"; exit 1; }

want=$(grep -c . "$tmp/frames.jsonl")
out=$(node "$src/tests/service/validate_frames.js" "$src/proto/schema" "$src/proto/PROTOCOL.md" \
    "$tmp/frames.jsonl" --no-coverage)
status=$?
echo "$out"
if [ "$want" -lt 150 ]; then
    echo "FAIL: only $want cases in events.txt and events_bad.txt"
    status=1
fi
exit $status
