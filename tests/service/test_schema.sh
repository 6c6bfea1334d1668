#!/usr/bin/env bash
# test_schema.sh - every frame of real sessions validates against the JSON
# Schemas of proto/schema/ (PROTOCOL.md), with ajv under node.
#
# Runs the service tests (tests/service/test_serve.c, built beside ddz as
# tests/service_test_serve, two tests of test_serve_tourney.c for the
# competition messages, test_serve_casual.c for casual play, and the
# two-node test test_cluster_rooms.c for `redirect`, on the PostgreSQL of
# the ctest fixture "pg", whose URL file DDZ_TEST_PG names) with
# DDZ_FRAMES_OUT set, so that every frame the server sent and every request the clients sent is captured as JSON lines,
# then tests/service/validate_frames.js checks them all: every server frame
# and well-formed request validates, every request malformed on purpose does
# not, and every message type of PROTOCOL.md has a schema and occurs.
# Node and ajv come from deploy/deps.sh (apt nodejs/npm, `npm ci`).
# Usage: test_schema.sh PATH-TO-DDZ
set -u
DDZ=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
serve_tests=$(dirname "$DDZ")/tests/service_test_serve
tourney_tests=$(dirname "$DDZ")/tests/service_test_serve_tourney
casual_tests=$(dirname "$DDZ")/tests/service_test_serve_casual
cluster_tests=$(dirname "$DDZ")/tests/service_test_cluster_rooms

if [ ! -x "$serve_tests" ]; then
    echo "FAIL: $serve_tests is not built"
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

# A failing service test is reported by its own ctest entry; what it
# captured is validated all the same, and the coverage check below catches
# a capture left incomplete.
if ! DDZ_FRAMES_OUT=$tmp/frames.jsonl "$serve_tests" --jobs 1 >"$tmp/serve.out" 2>&1; then
    echo "note: some service tests failed (see service/test_serve):"
    grep -E '^\[(FAIL|ERR )\]' "$tmp/serve.out" | head -20
fi
# enlist, enlisted and released: a bot of the tournament tests
for t in 'serve_tourney/an_absent_bot*' 'serve_tourney/no_tournament*'; do
    if ! DDZ_FRAMES_OUT=$tmp/frames.jsonl "$tourney_tests" --jobs 1 --filter "$t" \
        >"$tmp/tourney.out" 2>&1; then
        echo "note: $t failed (see service/test_serve_tourney)"
    fi
done
# custody, hint, phrase and hello's `me`: the casual-play tests
if ! DDZ_FRAMES_OUT=$tmp/frames.jsonl "$casual_tests" --jobs 1 >"$tmp/casual.out" 2>&1; then
    echo "note: some casual-play tests failed (see service/test_serve_casual):"
    grep -E '^\[(FAIL|ERR )\]' "$tmp/casual.out" | head -20
fi
# redirect: two nodes on PostgreSQL
if [ -z "${DDZ_TEST_PG:-}" ]; then
    echo "FAIL: DDZ_TEST_PG is not set: run under ctest (the \"pg\" fixture)"
    exit 1
fi
if ! DDZ_FRAMES_OUT=$tmp/frames.jsonl "$cluster_tests" --jobs 1 \
    --filter 'cluster/a_room_of_node_2*' >"$tmp/cluster.out" 2>&1; then
    echo "note: the cluster test failed (see service/test_cluster_rooms):"
    grep -E '^\[(FAIL|ERR )\]' "$tmp/cluster.out" | head -20
fi
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
