#!/usr/bin/env bash
# test_schema.sh - every frame of real sessions validates against the JSON
# Schemas of proto/schema/ (PROTOCOL.md), with ajv under node.
#
# The frames are those the service tests captured as they ran under ctest
# (tests/CMakeLists.txt: test_serve.c, test_serve_tourney.c for the
# competition messages, test_serve_casual.c for casual play and the
# two-node test_cluster_rooms.c and test_cluster_rated.c for `redirect`,
# each with DDZ_FRAMES_OUT set, every frame the server sent and every
# request the clients sent as JSON lines in the directory DDZ_FRAMES_DIR
# names): ctest runs them first, as the fixture "frames".
# tests/service/validate_frames.js checks
# them all: every server frame and well-formed request validates, every
# request malformed on purpose does not, and every message type of
# PROTOCOL.md has a schema and occurs.
# Node and ajv come from deploy/deps.sh (apt nodejs/npm, `npm ci`).
# Usage: test_schema.sh PATH-TO-DDZ (under ctest)
set -u
DDZ=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
frames=${DDZ_FRAMES_DIR:-}
if [ -z "$frames" ] || ! ls "$frames"/*.jsonl >/dev/null 2>&1; then
    echo "FAIL: no captured frames in DDZ_FRAMES_DIR (\"$frames\"): run under ctest (the fixture \"frames\")"
    exit 1
fi
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

cat "$frames"/*.jsonl >"$tmp/frames.jsonl"
node "$src/tests/service/validate_frames.js" "$src/proto/schema" "$src/proto/PROTOCOL.md" \
    "$tmp/frames.jsonl"
status=$?

# Self-test: frames that break the protocol must be caught, each of them.
cat >"$tmp/bad.jsonl" <<'JSONL'
{"dir":"in","frame":{"type":"welcome","version":1,"you":{"id":"p1","name":"x","bot":false},"server":"ddz 0.1"}}
{"dir":"in","frame":{"type":"game","game":1,"games":1,"commit":"00","hand":null}}
{"dir":"in","frame":{"type":"game","game":1,"games":1,"commit":"cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6","hand":[1,2,3]}}
{"dir":"in","frame":{"type":"played","seat":3,"cards":[],"combo":"pass","auto":false,"left":17}}
{"dir":"in","frame":{"type":"played","seat":1,"cards":[54],"combo":"single","auto":false,"left":17}}
{"dir":"in","frame":{"type":"turn","seat":0,"action":"bid","seq":1,"deadline_ms":10,"legal":[[1]]}}
{"dir":"in","frame":{"type":"seat","seat":1,"player":{"name":"x","kind":"robot","connected":true}}}
{"dir":"in","frame":{"type":"bye","reason":"x","extra":1}}
{"dir":"in","frame":{"type":"nosuch"}}
{"dir":"in","frame":[1,2]}
{"dir":"out","frame":{"type":"bid","seq":1,"bid":4}}
{"dir":"bad","text":"{\"type\":\"play\",\"seq\":1,\"cards\":[5]}"}
JSONL
want=$(grep -c . "$tmp/bad.jsonl")
got=$(node "$src/tests/service/validate_frames.js" "$src/proto/schema" "$src/proto/PROTOCOL.md" \
    "$tmp/bad.jsonl" --no-coverage | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ "$got" != "$want" ]; then
    echo "FAIL: the validator caught ${got:-no} of $want frames that break the protocol"
    status=1
fi
exit $status
