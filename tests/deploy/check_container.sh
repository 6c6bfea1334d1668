#!/usr/bin/env bash
# check_container.sh - builds the ddz image with podman and checks it as an
# operator would use it. Not part of ctest (it needs root, podman and a few
# minutes; see docs/deploy.md): run it by hand, as root, from anywhere:
#
#     bash tests/deploy/check_container.sh
#
# (Named check_*, not test_*: tests/CMakeLists.txt makes every
# tests/*/test_*.sh a ctest test, and these must stay out of CI's run.)
#
# It runs deploy/podman-setup.sh first (idempotent: installs podman, writes
# containers.conf, makes the local Debian base images if missing), then:
#   - podman build --format docker -t ddz:test . (the repository's Dockerfile)
#   - runs it with a named volume on /data and its port published on
#     127.0.0.1 only (a free port podman picks), waits for /healthz
#   - GET / serves the browser client, /metrics answers
#   - plays one quick game over WebSocket (tests/deploy/quick_game.js, the
#     global WebSocket of node) and reads its record at /api/games/ID
#   - the image's HEALTHCHECK passes, the server does not run as uid 0
#   - podman stop: ddz exits 0 on SIGTERM, well before the kill timeout
#   - podman start with the same volume: the game is still at /api/games/ID
#   - podman restart, and the same again
#   - as deploy/k8s runs it: read-only root file system, a tmpfs on /tmp,
#     no capabilities, no-new-privileges: healthy, the old game still
#     served, a new game played and recorded
# The container and the volume are removed at the end, pass or fail; the
# image ddz:test is kept (layers are cached for the next run).
#
# Environment: DDZ_IMAGE (default ddz:test), DDZ_SKIP_BUILD=1 to test an
# image already built, DDZ_SKIP_SETUP=1 to skip deploy/podman-setup.sh.
# Prints "N passed, N failed" last; exits non-zero if anything failed.
# shellcheck disable=SC2015,SC2317 # `ok` never fails; traps and wait_for call functions
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
image=${DDZ_IMAGE:-ddz:test}
name=ddz-test-$$
vol=ddz-test-data-$$
passed=0
failed=0
t0=$SECONDS

ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
step() { printf -- '-- %s (%ds)\n' "$*" $((SECONDS - t0)); }
finish() {
    printf '%d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
    exit
}
die() { # a failure after which nothing else can be checked
    bad "$*"
    if [ -s "${plog:-}" ]; then
        echo "-- podman's messages:"
        sed 's/^/   /' "$plog"
    fi
    if podman container exists "$name" 2>/dev/null; then
        echo "-- container log (last 30 lines):"
        podman logs --tail 30 "$name" 2>&1 | sed 's/^/   /'
    fi
    finish
}
plog=$(mktemp)
cleanup() {
    rm -f "$plog"
    podman rm -f -v -t 2 "$name" >/dev/null 2>&1
    podman volume rm -f "$vol" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- preconditions ----
[ "$(id -u)" -eq 0 ] || die "run as root (podman builds and runs here as root)"
for tool in curl node; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done
node_ws=(node)
if ! node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null; then
    node_ws=(node --experimental-websocket)
    "${node_ws[@]}" -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null ||
        die "node $(node --version) has no global WebSocket (need Node 22, or 20 with --experimental-websocket)"
fi
if [ "${DDZ_SKIP_SETUP:-0}" != 1 ]; then
    step "deploy/podman-setup.sh"
    bash "$src/deploy/podman-setup.sh" || die "deploy/podman-setup.sh failed"
fi

# ---- build ----
if [ "${DDZ_SKIP_BUILD:-0}" != 1 ]; then
    step "podman build -t $image"
    log=$(mktemp)
    b0=$SECONDS
    if podman build --format docker -t "$image" "$src" >"$log" 2>&1; then
        ok "podman build ($((SECONDS - b0)) s)"
        rm -f "$log"
    else
        tail -40 "$log"
        rm -f "$log"
        die "podman build"
    fi
fi
size=$(podman image inspect --format '{{.Size}}' "$image") || die "no image $image"
echo "   image $image: $((size / 1000000)) MB"

# ---- run ----
step "podman run"
podman volume create "$vol" >/dev/null || die "podman volume create"
# DDZ_AI_DELAY_MS=0: the hosted AIs answer at once, so the game takes seconds.
# Podman's stderr goes to $plog, shown on failure: without systemd (as here)
# podman 4.3 logs an error on every start and stop because it cannot make
# the timer that runs the HEALTHCHECK periodically; `podman healthcheck run`
# below runs the check itself.
podman run -d --name "$name" -p 127.0.0.1::8080 -v "$vol":/data \
    -e DDZ_AI_DELAY_MS=0 "$image" >/dev/null 2>>"$plog" || die "podman run"
port=$(podman port "$name" 8080/tcp | head -1)
port=${port##*:}
[ -n "$port" ] || die "no published port"
base=http://127.0.0.1:$port
echo "   listening at $base"

wait_healthy() { # bounded: 30 s
    local until=$((SECONDS + 30))
    while [ $SECONDS -lt $until ]; do
        [ "$(curl -s --max-time 2 "$base/healthz")" = ok ] && return 0
        [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || return 1
        sleep 0.2
    done
    return 1
}
wait_healthy && ok "/healthz answers ok" || die "/healthz did not answer ok within 30 s"

body=$(curl -fsS --max-time 5 "$base/")
case $body in
*'<html'* | *'<!doctype'* | *'<!DOCTYPE'*) ok "GET / serves the client from /usr/share/ddz/web" ;;
*) bad "GET / did not serve the client: ${body:0:80}" ;;
esac
metrics=$(curl -fsS --max-time 5 "$base/metrics")
grep -q '^ddz_connections ' <<<"$metrics" &&
    ok "/metrics answers" || bad "/metrics"

uid=$(podman exec "$name" id -u)
[ -n "$uid" ] && [ "$uid" != 0 ] && ok "runs as uid $uid, not root" || bad "runs as uid '$uid'"
pid1=$(podman exec "$name" sh -c 'cat /proc/1/status' | awk '/^Uid:/ {print $2}')
[ -n "$pid1" ] && [ "$pid1" != 0 ] && ok "ddz (pid 1) has uid $pid1" || bad "pid 1 uid '$pid1'"

# ---- one game over WebSocket ----
step "quick game over WebSocket"
line=$("${node_ws[@]}" "$src/tests/deploy/quick_game.js" "ws://127.0.0.1:$port/ws" 60) ||
    die "quick game over WebSocket"
gid=$(sed -n 's/^game_id=\([0-9a-f-]*\) .*/\1/p' <<<"$line")
seed=$(sed -n 's/.* seed=\([0-9a-f]*\)$/\1/p' <<<"$line")
[ -n "$gid" ] && ok "quick game played to 'over': game_id $gid" || die "no game_id in '$line'"

record_ok() { # the record of the game is served, with the seed 'over' revealed
    local r
    r=$(curl -fsS --max-time 5 "$base/api/games/$gid") || return 1
    [ -n "$seed" ] && grep -q "$seed" <<<"$r"
}
wait_record() { # bounded: the store writes on a background thread
    local until=$((SECONDS + 10))
    while [ $SECONDS -lt $until ]; do
        record_ok && return 0
        sleep 0.2
    done
    return 1
}
wait_record && ok "/api/games/$gid serves the record (with the revealed seed)" ||
    bad "/api/games/$gid"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base/api/games/999999999")
[ "$code" = 404 ] && ok "/api/games/999999999 is 404" || bad "unknown game gave $code"

# ---- HEALTHCHECK ----
if podman healthcheck run "$name" >/dev/null 2>&1; then
    ok "the image's HEALTHCHECK passes"
else
    bad "the image's HEALTHCHECK (podman healthcheck run)"
fi

# ---- graceful stop, and the data survives ----
step "podman stop (SIGTERM), start"
s0=$SECONDS
podman stop -t 20 "$name" >/dev/null 2>>"$plog" || bad "podman stop"
stop_s=$((SECONDS - s0))
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] && ok "SIGTERM: ddz exited 0 in ${stop_s} s" || bad "SIGTERM: exit code $code after ${stop_s} s"
logs=$(podman logs "$name" 2>&1)
grep -q 'stopped' <<<"$logs" && ok "the log says it stopped cleanly" ||
    bad "no 'stopped' in the log"
podman start "$name" >/dev/null 2>>"$plog" || die "podman start"
port=$(podman port "$name" 8080/tcp | head -1)
port=${port##*:}
base=http://127.0.0.1:$port
wait_healthy && ok "healthy again after start" || die "not healthy after start"
record_ok && ok "after stop/start: /api/games/$gid still served" || bad "game $gid lost after stop/start"

step "podman restart"
podman restart -t 20 "$name" >/dev/null 2>>"$plog" || die "podman restart"
port=$(podman port "$name" 8080/tcp | head -1)
port=${port##*:}
base=http://127.0.0.1:$port
wait_healthy && ok "healthy again after restart" || die "not healthy after restart"
record_ok && ok "after restart: /api/games/$gid still served" || bad "game $gid lost after restart"

owner=$(podman exec "$name" stat -c '%U %a' /data/ddz.db 2>/dev/null)
[ "${owner%% *}" = ddz ] && ok "/data/ddz.db on the volume, owned by ddz ($owner)" ||
    bad "/data/ddz.db: '$owner'"

# ---- as Kubernetes runs it (deploy/k8s/deployment.yaml) ----
step "read-only root, no capabilities, no new privileges"
podman stop -t 20 "$name" >/dev/null 2>>"$plog"
podman rm -v "$name" >/dev/null 2>>"$plog"
podman run -d --name "$name" -p 127.0.0.1::8080 -v "$vol":/data \
    --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
    -e DDZ_AI_DELAY_MS=0 "$image" >/dev/null 2>>"$plog" || die "podman run --read-only"
port=$(podman port "$name" 8080/tcp | head -1)
port=${port##*:}
base=http://127.0.0.1:$port
wait_healthy && ok "hardened: healthy" || die "hardened: not healthy"
record_ok && ok "hardened: /api/games/$gid served from the same volume" || bad "hardened: game $gid"
line=$("${node_ws[@]}" "$src/tests/deploy/quick_game.js" "ws://127.0.0.1:$port/ws" 60)
gid2=$(sed -n 's/^game_id=\([0-9a-f-]*\) .*/\1/p' <<<"$line")
[ -n "$gid2" ] && [ "$gid2" != "$gid" ] && ok "hardened: another quick game, game_id $gid2" ||
    bad "hardened: quick game ('$line')"

step "done"
finish
