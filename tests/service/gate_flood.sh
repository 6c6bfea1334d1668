#!/usr/bin/env bash
# gate_flood.sh - the door's floods of issue 37, measured (docs/operations.md,
# "Budgets"): for each head of tests/service/gate_flood.js (connect, crcrlf,
# h2cnul), a fresh `ddz serve` under a descriptor limit of NOFILE (default
# 1024, a shell's; 512 puts the flood past the socket cap) with the default
# budgets takes 10 addresses x 95 sockets sending
# that head then silence, and 40 legitimate GET /healthz from fresh
# addresses; prints the driver's JSON line for each (how many probes
# failed, how many flood sockets the server still held after 12 s), first
# with the flood's sockets left as the server leaves them, then with each
# one opened again as soon as the server closes it.
#
# Usage: [NOFILE=N] bash tests/service/gate_flood.sh [DDZ] [HEAD...]
#        (DDZ defaults to build/ddz; HEAD to all three)
# Needs node and the loopback addresses 127.0.2.0/24 and 127.0.3.0/24
# (Linux routes all of 127.0.0.0/8 to lo).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DDZ=$(realpath "${1:-build/ddz}")
shift || true
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(connect crcrlf h2cnul)
tmp=$(mktemp -d)
trap 'stop_server || true; rm -rf "$tmp"' EXIT
# shellcheck source=serve_lib.sh
. "$here/serve_lib.sh"

# start_server of serve_lib.sh raises the per-address budgets; this one
# keeps the defaults and the shell's descriptor limit.
start_plain() {
    local attempt
    for attempt in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 30000))
        (ulimit -n "${NOFILE:-1024}" && exec "$DDZ" serve --port "$port" --bind 127.0.0.1 \
            --db "$tmp/ddz-$attempt.db" --quiet) 2>>"$tmp/serve.log" &
        server=$!
        for _ in $(seq 200); do
            [ "$(http_get /healthz 2>/dev/null)" = ok ] && return 0
            kill -0 "$server" 2>/dev/null || break
            sleep 0.05
        done
        stop_server
    done
    echo "the server did not start: $(cat "$tmp/serve.log")" >&2
    return 1
}

echo "descriptor limit ${NOFILE:-1024}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for reconnect in 0 1; do
    for kind in "${kinds[@]}"; do
        start_plain
        node "$here/gate_flood.js" --port "$port" --head "$kind" --reconnect "$reconnect"
        stop_server || true
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
