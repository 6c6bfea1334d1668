#!/usr/bin/env bash
# test_loadtest.sh - `ddz loadtest` (the serve benchmark) against a real
# `ddz serve`: a short run of 20 tables must play, report latency and see no
# error; the clients leave the server as they found it.
# Usage: test_loadtest.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0
tmp=$(mktemp -d)
. "$(dirname "$0")/serve_lib.sh"
cleanup() {
    stop_server
    rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Every connection costs the server a descriptor too.
ulimit -n "$(ulimit -Hn)" 2>/dev/null

start_server --quiet --engine "greedy=$DDZ engine --ai greedy" || exit 1

url="ws://127.0.0.1:$port/ws"
out=$(timeout $((60 * slow)) "$DDZ" loadtest --url "$url" --tables 20 --seconds 5 --json --pid "$server" \
    2>"$tmp/lt.err")
rc=$?
if [ $rc -ne 0 ]; then
    no "loadtest exit $rc: $(cat "$tmp/lt.err")"
else
    ok
    actions=$(field actions "$out")
    errors=$(field errors "$out")
    p99=$(field p99 "$out")
    conns=$(field connections "$out")
    [ -n "$actions" ] && [ "$actions" -gt 0 ] && ok || no "no actions: $out"
    [ "$errors" = 0 ] && ok || no "errors: $out"
    [ -n "$p99" ] && ok || no "no p99: $out"
    [ "$conns" = 60 ] && ok || no "60 connections: $out"
    [ -n "$(field rss_kb_end "$out")" ] && ok || no "no server VmRSS: $out"
    case $out in
    '{"tables":20,'*'"latency_ms":{"p50":'*'"p90":'*'"p99":'*'"max":'*'"games":'*) ok ;;
    *) no "report fields: $out" ;;
    esac
fi

# Faults mixed in: drops and resumes, every kind of bad frame, engines
# killed at engine tables. Each must be answered as specified and leave
# nothing behind: no error, every client back in its seat, the server's
# descriptors back where they were, one process per engine seat.
out=$(timeout $((90 * slow)) "$DDZ" loadtest --url "$url" --tables 10 --engine greedy --engine-tables 3 \
    --seconds 8 --rate 150 --reconnects 4 --bad-frames 25 --kills 1 --sample 2 --pid "$server" \
    --json 2>"$tmp/lt.err")
rc=$?
if [ $rc -ne 0 ]; then
    no "loadtest with faults exit $rc: $(cat "$tmp/lt.err")"
else
    [ "$(field errors "$out")" = 0 ] && ok || no "errors with faults: $out"
    [ "$(field tables_seated "$out")" = 13 ] && ok || no "13 tables seated: $out"
    drops=$(field drops "$out") reconnects=$(field reconnects "$out")
    [ -n "$drops" ] && [ "$drops" -gt 0 ] && ok || no "no drops: $out"
    [ -n "$reconnects" ] && [ "$reconnects" -ge "$drops" ] &&
        [ "$(field resumed "$out")" = "$reconnects" ] && ok || no "not all resumed: $out"
    sent=$(field bad_sent "$out")
    [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$(field bad_answered "$out")" = "$sent" ] && ok ||
        no "bad frames not answered as specified: $out"
    # every kind was sent at least once, and answered as often as sent
    pairs=$(sed 's/.*"bad_frames":{\([^}]*\)}.*/\1/' <<<"$out" | grep -o '\[[0-9]*,[0-9]*\]')
    good=0
    for p in $pairs; do
        s=${p#[} s=${s%%,*} a=${p#*,} a=${a%]}
        [ "$s" -gt 0 ] && [ "$s" = "$a" ] && good=$((good + 1))
    done
    [ $good = 12 ] && ok || no "a bad frame kind not exercised or not answered: $out"
    kills=$(field kills "$out") faults=$(field engine_faults "$out")
    [ -n "$kills" ] && [ "$kills" -gt 0 ] && [ "$faults" -gt 0 ] && [ "$faults" -le "$kills" ] &&
        ok || no "engine kills and faults: $out"
    fds=$(sed -n 's/.*"fds":{\([^}]*\)}.*/\1/p' <<<"$out")
    [ -n "$(field before "{$fds}")" ] && [ "$(field before "{$fds}")" = "$(field after "{$fds}")" ] &&
        ok || no "server descriptors not back: $fds"
    [ "$(field children_end "$out")" = 6 ] && ok || no "6 engine processes at the end: $out"
    case $out in
    *'"series":[[0'*',['*) ok ;;
    *) no "no samples: $out" ;;
    esac
fi
kill -0 "$server" 2>/dev/null && [ "$(http_get /healthz)" = ok ] && ok ||
    no "the server did not survive the faults: $(tail -5 "$tmp/serve.log")"

# The readable report, a short run.
out=$(timeout $((30 * slow)) "$DDZ" loadtest --url "$url" --tables 2 --seconds 1 2>&1)
case $out in
*"latency "*"p99"*"errors          0"*) ok ;;
*) no "readable report: $out" ;;
esac

# A global rate below what the tables ask for: actions still wait in the
# pacer when the window ends, and the client frees them cleanly (it once
# freed the tables before the pacer's heap that points into them: a use
# after free that the sanitizer build reports and the release build
# crashed on at 3,334 tables).
out=$(timeout $((30 * slow)) "$DDZ" loadtest --url "$url" --tables 20 --seconds 2 --rate 5 --json \
    2>"$tmp/lt.err")
rc=$?
[ $rc -eq 0 ] && [ "$(field errors "$out")" = 0 ] && ok ||
    no "a paced run with actions still waiting: exit $rc: $out $(tail -5 "$tmp/lt.err")"

# A flood of failed sign-ins while tables play (--sign-ins): 64 at once
# from many loopback addresses, past the hashing queue's 32, so some are
# hashed and refused (401) and the rest turned away at once (503); none
# is signed in, every one is answered as SPEC §15 says, and the tables
# play on without an error.
out=$(timeout $((60 * slow)) "$DDZ" loadtest --url "$url" --tables 2 --seconds 2 --json \
    --sign-ins 64 --sign-in-conns 64 --pid "$server" 2>"$tmp/lt.err")
rc=$?
si=${out#*\"sign_ins\":}
if [ $rc -ne 0 ] || [ "$si" = "$out" ]; then
    no "sign-in flood: exit $rc, no sign_ins: $out $(tail -5 "$tmp/lt.err")"
else
    [ "$(field errors "$out")" = 0 ] && ok || no "errors at the tables during the flood: $out"
    [ "$(field sent "$si")" -ge 64 ] && ok || no "64 sign-ins sent: $si"
    [ "$(field refused "$si")" -ge 1 ] && ok || no "some hashed and refused (401): $si"
    [ "$(field busy "$si")" -ge 1 ] && ok || no "some past the queue (503): $si"
    [ "$(field ok "$si")" = 0 ] && [ "$(field other "$si")" = 0 ] && ok ||
        no "nothing but 401, 429 and 503: $si"
fi
err=$("$DDZ" loadtest --url "wss://127.0.0.1:$port/ws" --sign-ins 1 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *HTTP* ]] && ok || no "a flood over wss: exit 2: $err"

# The clients closed their connections and left their rooms.
gone=
for _ in $(seq 200); do # 10 s
    if http_get /metrics | grep -q '^ddz_connections 0$'; then
        gone=1
        break
    fi
    sleep 0.05
done
[ -n "$gone" ] && ok || no "connections left open: $(http_get /metrics | grep '^ddz_conn')"

# Bad usage.
"$DDZ" loadtest --tables 3 >/dev/null 2>&1
[ $? -eq 2 ] && ok || no "no --url: exit 2"
"$DDZ" loadtest --url http://x/ws >/dev/null 2>&1
[ $? -eq 2 ] && ok || no "a non-ws URL: exit 2"
err=$("$DDZ" loadtest --url "$url" --kills 1 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *pid* ]] && ok || no "kills without --pid: exit 2 naming it: $err"
err=$("$DDZ" loadtest --url "$url" --engine-tables 2 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *engine* ]] && ok || no "engine tables without --engine: exit 2: $err"

echo "test_loadtest: $passes passed, $fails failed"
[ $fails -eq 0 ]
