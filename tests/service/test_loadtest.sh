#!/usr/bin/env bash
# test_loadtest.sh - `ddz loadtest` (the serve benchmark) against a real
# `ddz serve`: a short run of 20 tables must play, report latency and see no
# error; the clients leave the server as they found it.
# Usage: test_loadtest.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0
tmp=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null
        wait "$server" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Every connection costs the server a descriptor too.
ulimit -n "$(ulimit -Hn)" 2>/dev/null

# GET http://127.0.0.1:$port$1 with bash's /dev/tcp; prints the body.
http_get() {
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
    sed '1,/^\r$/d' <&3
    exec 3<&-
}

# Starts the server on a free port; waits (bounded) for /healthz.
up=
for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$tmp/ddz.db" --ai-delay-ms 0 --quiet \
        --max-conns 10000 2>>"$tmp/serve.log" &
    server=$!
    for _ in $(seq 200); do # 10 s
        if [ "$(http_get /healthz 2>/dev/null)" = ok ]; then
            up=1
            break
        fi
        kill -0 "$server" 2>/dev/null || break # port taken: try another
        sleep 0.05
    done
    [ -n "$up" ] && break
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=
done
if [ -z "$up" ]; then
    echo "FAIL: the server did not start: $(cat "$tmp/serve.log")"
    exit 1
fi

# field NAME JSON: the number after "NAME": (empty if absent or not a number)
field() { sed -n "s/.*\"$1\":\(-\?[0-9][0-9.eE+-]*\).*/\1/p" <<<"$2"; }

url="ws://127.0.0.1:$port/ws"
out=$(timeout 60 "$DDZ" loadtest --url "$url" --tables 20 --seconds 5 --json --pid "$server" \
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

# The readable report, a short run.
out=$(timeout 30 "$DDZ" loadtest --url "$url" --tables 2 --seconds 1 2>&1)
case $out in
*"latency "*"p99"*"errors          0"*) ok ;;
*) no "readable report: $out" ;;
esac

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

echo "test_loadtest: $passes passed, $fails failed"
[ $fails -eq 0 ]
