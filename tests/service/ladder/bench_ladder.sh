#!/bin/bash
# bench_ladder.sh DDZ MODE SECONDS TABLES [OUT] - the ladder's figures in
# docs/competitions.md ("The ladder"), on a fresh `ddz serve` and database:
#   MODE field: the test's field (tests/service/test_serve_ladder.c): two
#     `ddz bridge --ladder` bots (greedy and random `ddz engine`), an
#     operator engine (greedy) and ai:greedy, ai:random; prints the deals
#     rated in SECONDS after 10 s of warm-up
#   MODE ais: ai:strong:20, ai:greedy and ai:random alone for SECONDS;
#     prints the deals and how many it took to settle their ranking
#     (tests/service/ladder/convergence.py)
# TABLES is --ladder-tables. OUT (default a temporary directory, removed)
# keeps the database and logs.
set -u
DDZ=$(realpath "${1:?usage: bench_ladder.sh DDZ field|ais SECONDS TABLES [OUT]}")
MODE=${2:?mode}
S=${3:?seconds}
T=${4:?tables}
OUT=${5:-}
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/ddz-ladder-XXXXXX)
mkdir -p "$OUT"
rm -f "$OUT"/l.db*
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
deals() {
    curl -s "http://127.0.0.1:$port/api/ladder" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["deals"])'
}
standings() {
    curl -s "http://127.0.0.1:$port/api/ladder" | python3 -c 'import json,sys
for p in json.load(sys.stdin)["players"]:
    print("  %-14s %5.1f +- %.1f  %d deals" % (p["name"], p["rating"], p["uncertainty"], p["deals"]))'
}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; [ -z "${5:-}" ] && rm -rf "$OUT"' EXIT
if [ "$MODE" = field ]; then
    ta=$("$DDZ" token add alpha --db "$OUT/l.db" 2>/dev/null)
    tb=$("$DDZ" token add beta --db "$OUT/l.db" 2>/dev/null)
    "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$OUT/l.db" --quiet \
        --engine "eng=$DDZ engine --ai greedy" --ladder-engine eng --ladder-ai greedy \
        --ladder-ai random --ladder-time 3 --ladder-tables "$T" >"$OUT/serve.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
    "$DDZ" bridge --url "ws://127.0.0.1:$port/ws" --token "$ta" --ladder --quiet -- \
        "$DDZ" engine --ai greedy >"$OUT/alpha.log" 2>&1 &
    pids+=($!)
    "$DDZ" bridge --url "ws://127.0.0.1:$port/ws" --token "$tb" --ladder --quiet -- \
        "$DDZ" engine --ai random >"$OUT/beta.log" 2>&1 &
    pids+=($!)
    sleep 10
    d0=$(deals)
    sleep "$S"
    d1=$(deals)
    echo "field, $T tables: $((d1 - d0)) deals in $S s ($(((d1 - d0) * 60 / S)) a minute)"
    standings
else
    "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$OUT/l.db" --quiet \
        --ladder-ai strong:20 --ladder-ai greedy --ladder-ai random \
        --ladder-tables "$T" >"$OUT/serve.log" 2>&1 &
    pids+=($!)
    sleep "$S"
    echo "ais, $T tables: $(deals) deals in $S s"
    standings
    kill "${pids[@]}"
    wait 2>/dev/null
    pids=()
    python3 "$(dirname "$0")/convergence.py" "$OUT/l.db"
fi
