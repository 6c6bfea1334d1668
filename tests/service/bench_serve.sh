#!/bin/bash
# bench_serve.sh DDZ TABLES [RATE] [SECONDS] [LOOP] - one `ddz loadtest` run
# against a fresh `ddz serve` (README "Speed"): the benchmark of issue 16.
# LOOP is serve's --event-loop (auto, epoll, poll). Prints the load test's
# report, the server's CPU time and peak RSS, and the machine's load
# before the run (other work on the same cores moves the figures).
set -u
DDZ=${1:?usage: bench_serve.sh DDZ TABLES [RATE] [SECONDS] [LOOP]}
TABLES=${2:?tables}
RATE=${3:-5000}
SECONDS_=${4:-20}
LOOP=${5:-auto}
ulimit -n 30000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d /tmp/ddz-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$dir/bench.db" --ai-delay-ms 0 --quiet \
    --max-conns 12000 --max-conns-per-ip 12000 --max-rooms-per-ip 12000 --event-loop "$LOOP" &
server=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.05
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
"$DDZ" loadtest --url "ws://127.0.0.1:$port/ws" --tables "$TABLES" --seconds "$SECONDS_" \
    --rate "$RATE" --pid "$server"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^ddz_(event_loop_info|heap_bytes) '
awk '{printf "server CPU %.2f s (user %.2f, system %.2f)\n", ($14+$15)/100, $14/100, $15/100}' \
    "/proc/$server/stat"
grep VmHWM "/proc/$server/status"
kill "$server"
wait "$server"
