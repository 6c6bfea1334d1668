#!/bin/bash
# bench_serve.sh DDZ TABLES [RATE] [SECONDS] [LOOP] - one `ddz loadtest` run
# against a fresh `ddz serve` (docs/benchmarks.md, "Speed"): the benchmark of issue 16.
# LOOP is serve's --event-loop (auto, epoll, poll). Prints the load test's
# report, the server's CPU time in the window (from all connections seated
# to the end: CPU per action) and peak RSS, and the machine's load before
# the run (other work on the same cores moves the figures). MAXCONNS (12000)
# is the server's connection cap and per-address budgets. NICE=-10 runs
# both processes ahead of other work on the machine (needs root). CLIENT
# is the `ddz` that runs the load test (DDZ by default): one client for a
# before-and-after comparison of two servers.
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
cpu() { awk '{print ($14+$15)/100}' "/proc/$1/stat"; }
${NICE:+nice -n "$NICE"} "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$dir/bench.db" --ai-delay-ms 0 --quiet \
    --max-conns "${MAXCONNS:-12000}" --max-conns-per-ip "${MAXCONNS:-12000}" \
    --max-rooms-per-ip "${MAXCONNS:-12000}" --event-loop "$LOOP" &
server=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.05
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
(   # the server's CPU time once every connection is in
    while [ "$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^ddz_connections //p')" \
        != $((3 * TABLES)) ]; do sleep 0.05; done
    cpu "$server" >"$dir/cpu0"
) &
${NICE:+nice -n "$NICE"} "${CLIENT:-$DDZ}" loadtest --url "ws://127.0.0.1:$port/ws" --tables "$TABLES" --seconds "$SECONDS_" \
    --rate "$RATE" --pid "$server"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^ddz_(event_loop_info|heap_bytes|puzzle_games_total|puzzle_seconds_total)'
cpu1=$(cpu "$server")
echo "server CPU $cpu1 s in all, $(echo "$cpu1 - $(cat "$dir/cpu0" 2>/dev/null || echo 0)" | bc) s since all connections were in"
grep VmHWM "/proc/$server/status"
kill "$server"
wait "$server"
