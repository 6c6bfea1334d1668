#!/bin/bash
# bench_engine_churn.sh DDZ [SECONDS] [ADDRESSES] [CONNS] - engine rooms
# made and dropped against a fresh `ddz serve` while a bystander times its
# requests (issue 37, docs/operations.md, "Budgets"): tests/service/engine_churn.js with
# ADDRESSES client addresses (default 4) of CONNS connections each
# (default 1), for SECONDS (default 10). The operator engine is ENGINE
# (default "DDZ engine --ai random"); the server runs with its default
# budgets (64 engines, 50 starts a second, 20 per address where the binary
# has that budget) behind --trusted-proxy 127.0.0.1, which lets the script
# speak for several addresses. Prints the machine's load before, the
# script's JSON line, the server's CPU seconds and the engine starts it
# counted. CHURN_ARGS adds options of the script (--grace S, --drop 1).
# Runs any `ddz` build: main's for a before-and-after comparison.
set -u
DDZ=${1:?usage: bench_engine_churn.sh DDZ [SECONDS] [ADDRESSES] [CONNS]}
SECONDS_=${2:-10}
ADDRESSES=${3:-4}
CONNS=${4:-1}
ENGINE=${ENGINE:-"$DDZ engine --ai random"}
dir=$(mktemp -d /tmp/ddz-churn-XXXXXX)
trap 'kill "$server" 2>/dev/null; rm -rf "$dir"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$dir/churn.db" --quiet \
    --trusted-proxy 127.0.0.1 --engine "churn=$ENGINE" 2>"$dir/serve.log" &
server=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.05
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
cpu() { awk '{print ($14+$15)/100}' "/proc/$1/stat"; }
cpu0=$(cpu "$server")
node "$(dirname "$0")/engine_churn.js" --url "ws://127.0.0.1:$port/ws" --engine churn \
    --seconds "$SECONDS_" --addresses "$ADDRESSES" --conns "$CONNS" ${CHURN_ARGS:-}
echo "server CPU $(echo "$(cpu "$server") - $cpu0" | bc) s during the run"
curl -s "http://127.0.0.1:$port/metrics" |
    grep -E '^ddz_budget_(refused_total|used)\{budget="(engines|spawns|spawns_per_ip)"\}|^ddz_engine_processes'
kill "$server"
wait "$server"
