#!/bin/bash
# ai_flood.sh DDZ ROOMS SECONDS [AI] - issue 37's hosted-AI flood against a
# fresh `ddz serve` (docs/operations.md, "Budgets"): one client address holds ROOMS
# quick-play rooms of two ai:strong seats with its own seat in custody (all
# three seats asking the think pool), while a player from another address
# plays quick play against AI (default strong) for SECONDS; prints the
# machine's load before, the bystander's AI move times (ai_flood.js), the
# server's CPU over the run (% of one core) and its think-pool metrics.
# ROOMS 0 is the baseline. The server runs with its defaults, plus
# --trusted-proxy 127.0.0.1 so that the flood's connections count as
# X-Forwarded-For's 10.37.0.1 and the bystander's as 127.0.0.1.
set -u
DDZ=${1:?usage: ai_flood.sh DDZ ROOMS SECONDS [AI]}
ROOMS=${2:?rooms}
SECS=${3:?seconds}
AI=${4:-strong}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/ddz-ai-flood-XXXXXX)
trap 'rm -rf "$dir"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cpu() { awk '{print ($14+$15)}' "/proc/$1/stat"; } # clock ticks
"$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$dir/flood.db" --web "$here/../../web" \
    --trusted-proxy 127.0.0.1 --quiet &
server=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.05
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
t0=$(date +%s.%N) c0=$(cpu "$server")
node --experimental-websocket --no-warnings "$here/ai_flood.js" "ws://127.0.0.1:$port/ws" \
    "$ROOMS" "$SECS" "$AI"
t1=$(date +%s.%N) c1=$(cpu "$server")
echo "server CPU: $(echo "scale=0; 100 * ($c1 - $c0) / $(getconf CLK_TCK) / ($t1 - $t0)" | bc)% of one core"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^ddz_think_|ai_think_per_ip'
kill "$server"
wait "$server"
