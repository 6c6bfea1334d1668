#!/usr/bin/env bash
# test_cluster_proxy.sh - deploy/cluster/nginx.conf, for real, on loopback:
# a throwaway PostgreSQL (tests/pg/pg.sh), two `ddz serve` nodes n1 and n2,
# and nginx with that file (its upstream names and port replaced by the
# nodes' and a free port); nginx -t, then tests/deploy/cluster_redirect.js
# through the proxy: node paths (/n/NODE/ws) with the WebSocket upgrade, the
# room listed on the other node, the redirect followed. (What the compose
# and Kubernetes files say of each other is checked by check_configs.sh.)
#
# A ctest test (nginx-light is installed by deploy/deps.sh; a missing nginx
# fails it):  bash tests/deploy/test_cluster_proxy.sh build/ddz
# Prints "N passed, N failed" last; exits non-zero if anything failed.
set -uo pipefail
DDZ=$(realpath "${1:-build/ddz}")
src=$(cd "$(dirname "$0")/../.." && pwd)
passed=0 failed=0
slow=${DDZ_TEST_SLOWDOWN:-1} # waits grow with the run's slowdown (tests/test_clock.h)
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
    bash "$src/tests/pg/pg.sh" stop "$tmp/pg" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# /usr/sbin is not in every user's PATH
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { bad "nginx is not installed (apt-get install nginx-light)"; printf '%d passed, %d failed\n' "$passed" "$failed"; exit 1; }
bash "$src/tests/pg/pg.sh" start "$tmp/pg" >/dev/null || { bad "PostgreSQL would not start"; exit 1; }
url=$(cat "$tmp/pg/url")
px=$(free_port)
declare -A port
for n in n1 n2; do
    port[$n]=$(free_port)
    "$DDZ" serve --port "${port[$n]}" --bind 127.0.0.1 --db "$url" \
        --node "$n" --public-url "ws://127.0.0.1:$px/n/$n/ws" --web "$src/web" \
        --ai-delay-ms 0 --ai greedy >"$tmp/$n.log" 2>&1 &
    pids+=($!)
done
for n in n1 n2; do
    for _ in $(seq $((100 * slow))); do
        curl -fs "http://127.0.0.1:${port[$n]}/healthz" >/dev/null && break
        sleep 0.1
    done
done
sed -e "s/ddz1:8080/127.0.0.1:${port[n1]}/g" -e "s/ddz2:8080/127.0.0.1:${port[n2]}/g" \
    -e "s/listen 80;/listen 127.0.0.1:$px;/" -e '/listen \[::\]:80;/d' \
    -e "s#pid /tmp/nginx.pid;#pid $tmp/nginx.pid;#" \
    -e "s#^http {#http {\n    client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy; fastcgi_temp_path $tmp/fastcgi; uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;#" \
    "$src/deploy/cluster/nginx.conf" >"$tmp/nginx.conf"
if out=$("$nginx" -t -c "$tmp/nginx.conf" -p "$tmp" -e "$tmp/error.log" 2>&1); then
    ok "nginx -t with deploy/cluster/nginx.conf"
else
    bad "nginx -t"; printf '%s\n' "$out" | sed 's/^/   /'
fi
"$nginx" -c "$tmp/nginx.conf" -p "$tmp" -e "$tmp/error.log" -g 'daemon on;' || bad "nginx would not start"
for _ in $(seq $((50 * slow))); do curl -fs "http://127.0.0.1:$px/healthz" >/dev/null && break; sleep 0.1; done
[ "$(curl -fs "http://127.0.0.1:$px/n/n2/healthz")" = ok ] && ok "/n/n2/healthz reaches a node" || bad "/n/n2/healthz"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$px/metrics")" = 404 ] && ok "/metrics stays inside" || bad "/metrics is public"
ws=()
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || ws=(--experimental-websocket)
if out=$(node "${ws[@]}" --no-warnings "$src/tests/deploy/cluster_redirect.js" "ws://127.0.0.1:$px" 30 2>&1); then
    ok "through the proxy: listed on n1, redirected to n2's path, seated ($out)"
else
    bad "redirect through the proxy"; printf '%s\n' "$out" | sed 's/^/   /'
    tail -5 "$tmp/n1.log" "$tmp/n2.log" "$tmp/error.log" 2>/dev/null | sed 's/^/   /'
fi
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
