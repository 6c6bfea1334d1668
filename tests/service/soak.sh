#!/usr/bin/env bash
# soak.sh - the soak test: `ddz serve` under `ddz loadtest` for SECONDS
# (default 600) with dropped and resumed connections, bad frames of every
# kind and engine processes killed mixed into steady play. It passes when
# the server survives with no unexpected error on either side, every fault
# is answered as proto/PROTOCOL.md specifies, its heap in use is flat (the
# second half of the run grows it by at most 2% + 512 kB) and its RSS does
# not double, its descriptors after the run are what they were before it,
# no engine process is left over, and it stops cleanly on SIGTERM.
#
# With ATTACKS (attacks per second, default 0) the attacks of the budgets
# issue are mixed into the play too (tests/service/attack.js: rooms with
# engine seats or hosted AIs made and dropped at once, quick play dropped,
# clients that stop reading room lists, wrong passwords): each must be
# answered as PROTOCOL.md says (EBUSY once a budget is spent, ERATE once
# a password lockout starts) and the play must not notice them. They start
# once every table is seated (so the tables have their engines) and stop
# 15 s before the window ends (their rooms have a 5 s grace, so the end
# checks still hold).
#
# Too long for CI (tests/service/test_loadtest.sh runs the same faults for
# 8 s there). Run it on a release build:
#     bash tests/service/soak.sh build/ddz 600
#     bash tests/service/soak.sh build/ddz 600 300 soak-out 10   # with attacks
# Usage: soak.sh [PATH-TO-DDZ] [SECONDS] [TABLES] [OUT-DIR] [ATTACKS]
# Writes OUT-DIR (default soak-out/) with soak.json (the loadtest report),
# attack.json (with ATTACKS) and serve.log (the server's JSON log lines).
set -u
DDZ=$(realpath "${1:-build/ddz}")
SECONDS_=${2:-600}
TABLES=${3:-300}
OUT=${4:-soak-out}
ATTACKS=${5:-0}
ENGINE_TABLES=20
fails=0 passes=0
mkdir -p "$OUT"
tmp=$(mktemp -d)
. "$(dirname "$0")/serve_lib.sh"
cleanup() {
    stop_server
    cp "$tmp/serve.log" "$OUT/serve.log" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

ulimit -n "$(ulimit -Hn)" 2>/dev/null
# With attacks, quick play seats ai:greedy, whose decisions are cheap: the
# attacks make and drop quick-play rooms as fast as they can, and the
# soak judges the server's steady play, not ai:strong's thinking.
ai=()
[ "$ATTACKS" != 0 ] && ai=(--ai greedy)
start_server --engine "greedy=$DDZ engine --ai greedy" "${ai[@]}" || exit 1
url="ws://127.0.0.1:$port/ws"
echo "ddz serve pid $server on port $port; soak of ${SECONDS_} s, $TABLES tables" \
    "+ $ENGINE_TABLES engine tables"

# A warm-up, so that what the server sets up once (the database's WAL
# files, the AI tables, allocator arenas) is not counted as growth.
"$DDZ" loadtest --url "$url" --tables 5 --engine greedy --engine-tables 2 --seconds 3 \
    --reconnects 2 --bad-frames 5 --kills 1 --pid "$server" >/dev/null 2>&1

# The server's own view of its memory while the soak runs: heap bytes in
# use (which a leak grows and fragmentation does not) and players held.
(
    sleep 5 # the soak's setup
    while kill -0 "$server" 2>/dev/null; do
        echo "$(metric ddz_heap_bytes) $(metric ddz_players)" >>"$tmp/heap.txt"
        sleep 30
    done
) &
sampler=$!

# The attacks, once every table is seated (bounded wait), until 15 s
# before the window ends.
if [ "$ATTACKS" != 0 ]; then
    (
        for _ in $(seq 1200); do # 120 s
            [ "$(metric ddz_rooms)" -ge $((TABLES + ENGINE_TABLES)) ] 2>/dev/null && break
            sleep 0.1
        done
        timeout $((SECONDS_ + 60)) node "$(dirname "$0")/attack.js" --url "$url" \
            --seconds $((SECONDS_ > 30 ? SECONDS_ - 15 : SECONDS_ / 2)) --rate "$ATTACKS" \
            --engine greedy >"$tmp/attack.json" 2>"$tmp/attack.err"
    ) &
    attacker=$!
    # Under the attacks, a newcomer still gets a quick game played to the end
    # and /healthz still answers (the issue's test of a server that holds).
    (
        sleep $((SECONDS_ / 3))
        node_ws=(node)
        node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null ||
            node_ws=(node --experimental-websocket)
        h=$(http_get /healthz)
        q=$(timeout 90 "${node_ws[@]}" "$(dirname "$0")/../deploy/quick_game.js" "$url" 60 2>&1)
        echo "healthz=$h quick=$?: $q" >"$tmp/newcomer.txt"
    ) &
    newcomer=$!
fi

# The soak: 1,000 actions/s, 2 drops/s, 5 bad frames/s, an engine killed
# every 2 s, the server's memory and descriptors sampled every 30 s.
out=$("$DDZ" loadtest --url "$url" --tables "$TABLES" --engine greedy \
    --engine-tables "$ENGINE_TABLES" --seconds "$SECONDS_" --rate 1000 --reconnects 2 \
    --bad-frames 5 --kills 0.5 --sample 30 --pid "$server" --json 2>"$tmp/lt.err")
rc=$?
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
if [ "$ATTACKS" != 0 ]; then
    wait "$attacker"
    wait "$newcomer"
    newcomer_line=$(cat "$tmp/newcomer.txt" 2>/dev/null)
    printf '%s\n' "$newcomer_line" >"$OUT/newcomer.txt"
    case "$newcomer_line" in
    "healthz=ok quick=0: game_id="*) ok ;;
    *) no "a newcomer under attack: $newcomer_line" ;;
    esac
    attack=$(cat "$tmp/attack.json")
    printf '%s\n' "$attack" >"$OUT/attack.json"
    [ "$(field unexpected "$attack")" = 0 ] && [ "${attack%%,*}" != '{"attacks":0' ] && ok ||
        no "attacks answered otherwise than specified: $attack $(cat "$tmp/attack.err")"
    # every kind was tried and answered
    pairs=$(grep -o '"[a-z]*":\[[0-9]*,[0-9]*\]' <<<"$attack")
    for p in $pairs; do
        s=${p#*[} s=${s%%,*} a=${p#*,} a=${a%]}
        [ "$s" -gt 0 ] && [ "$s" = "$a" ] && ok || no "attack kind not answered: $p"
    done
    budgets=$(http_get /metrics | sed -n 's/^ddz_budget_refused_total{budget="\([a-z_]*\)"} \([0-9]*\)$/\1 \2/p' |
        tr '\n' ',')
fi
cp "$tmp/heap.txt" "$OUT/heap.txt"
printf '%s\n' "$out" >"$OUT/soak.json"
[ $rc -eq 0 ] && ok || no "loadtest exit $rc: $(cat "$tmp/lt.err")"

[ "$(field errors "$out")" = 0 ] && ok || no "errors: $(field errors "$out"), first: $(
    sed -n 's/.*"first_error":"\([^"]*\)".*/\1/p' <<<"$out")"
[ "$(field tables_seated "$out")" = $((TABLES + ENGINE_TABLES)) ] && ok ||
    no "not every table seated: $out"
drops=$(field drops "$out") reconnects=$(field reconnects "$out") resumed=$(field resumed "$out")
[ "${drops:-0}" -gt 0 ] && [ "$resumed" = "$reconnects" ] && ok ||
    no "drops $drops, reconnects $reconnects, resumed $resumed"
sent=$(field bad_sent "$out") answered=$(field bad_answered "$out")
[ "${sent:-0}" -gt 0 ] && [ "$sent" = "$answered" ] && ok ||
    no "bad frames: $sent sent, $answered answered as specified"
kills=$(field kills "$out") efaults=$(field engine_faults "$out")
[ "${kills:-0}" -gt 0 ] && [ "$efaults" -gt 0 ] && [ "$efaults" -le "$kills" ] && ok ||
    no "engines: $kills killed, $efaults faults charged"

# Memory, from /proc: the RSS of the window, sampled every 30 s. Judged
# below on the heap in use, which a leak grows; the RSS also counts pages
# the allocator holds but cannot give back (fragmentation), so it only has
# to stay within twice its size at the start of the window.
series=$(sed -n 's/.*"series":\[\(.*\)\]}$/\1/p' <<<"$out" | grep -o '\[[^]]*\]')
n=$(wc -l <<<"$series")
mid=$(sed -n "$(((n + 1) / 2))p" <<<"$series" | cut -d, -f2)
end=$(tail -1 <<<"$series" | cut -d, -f2)
first=$(head -1 <<<"$series" | cut -d, -f2)
hn=$(wc -l <"$tmp/heap.txt")
heap_first=$(head -1 "$tmp/heap.txt" | cut -d' ' -f1)
heap_mid=$(sed -n "$(((hn + 1) / 2))p" "$tmp/heap.txt" | cut -d' ' -f1)
heap_end=$(tail -1 "$tmp/heap.txt" | cut -d' ' -f1)
players=$(cut -d' ' -f2 "$tmp/heap.txt" | sort -n | uniq | tr '\n' ' ')
if [ -z "$heap_end" ]; then
    # A sanitizer build: no heap metric, and an RSS made of ASan's
    # quarantine and shadow. Its leak check is LeakSanitizer at exit (the
    # clean stop below).
    echo "soak: memory not judged: no ddz_heap_bytes (a sanitizer build)"
elif [ "$hn" -lt 4 ]; then
    # the first 30 s or so are the heap's ramp; a half needs more samples
    echo "soak: memory not judged: too short (samples every 30 s; run 2 minutes or more)"
else
    [ "$end" -le $((2 * first)) ] && ok ||
        no "RSS more than doubled: $first kB at the start, $mid kB halfway, $end kB at the end"
    # The heap in use: flat over the second half (at most 2% + 512 kB).
    [ "$heap_end" -le $((heap_mid + heap_mid / 50 + 524288)) ] && ok ||
        no "heap grows: $heap_first B at the start, $heap_mid B halfway, $heap_end B at the end"
fi

# Descriptors: back to the count before the run; engines: one per seat.
fds=$(sed -n 's/.*"fds":{\([^}]*\)}.*/{\1}/p' <<<"$out")
[ -n "$(field before "$fds")" ] && [ "$(field before "$fds")" = "$(field after "$fds")" ] && ok ||
    no "descriptors not back to where they were: $fds"
[ "$(field children_end "$out")" = $((2 * ENGINE_TABLES)) ] && ok ||
    no "engine processes at the end: $(field children_end "$out"), not $((2 * ENGINE_TABLES))"

# The server: alive, idle again, no error logged, a clean stop.
kill -0 "$server" 2>/dev/null && [ "$(http_get /healthz)" = ok ] && ok || no "the server died"
[ "$(metric ddz_connections)" = 0 ] && [ "$(metric ddz_engine_processes)" = 0 ] && ok ||
    no "left behind: $(metric ddz_connections) connections, $(metric ddz_engine_processes) engines"
errors=$(grep -c '"level":"error"' "$tmp/serve.log")
[ "$errors" = 0 ] && ok || no "$errors error lines in the server log: $(
    grep -m3 '"level":"error"' "$tmp/serve.log")"
rss_idle=$(sed -n 's/^VmRSS: *//p' "/proc/$server/status")
kill -TERM "$server"
wait "$server"
rc=$?
server=
[ $rc -eq 0 ] && ok || no "exit $rc on SIGTERM"

echo "soak: window $(field seconds "$out") s, $(field actions "$out") actions," \
    "$(field games "$out") games, p99 $(field p99 "$out") ms, max $(field max "$out") ms"
echo "soak: $drops drops, $reconnects reconnects, $resumed resumed; $sent bad frames," \
    "$answered answered as specified; $kills engines killed, $efaults faults charged"
echo "soak: server VmRSS $first kB at the start of the window, $mid kB halfway, $end kB at" \
    "the end, $rss_idle after the clients left; fds $fds"
echo "soak: heap in use $heap_first B at the start, $heap_mid B halfway, $heap_end B at the" \
    "end; players held: $players"
echo "soak: series [t, VmRSS kB, fds]: $(tr '\n' ' ' <<<"$series")"
echo "soak: heap series [bytes players]: $(tr '\n' ',' <"$tmp/heap.txt")"
[ "$ATTACKS" != 0 ] && echo "soak: attacks: $attack; refused by budget: $budgets"
echo "soak: $passes passed, $fails failed"
[ $fails -eq 0 ]
