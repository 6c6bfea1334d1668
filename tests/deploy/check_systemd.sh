#!/usr/bin/env bash
# check_systemd.sh - runs deploy/ddz.service under a real systemd, with all its
# hardening, and checks that ddz works inside it. systemd runs as pid 1 of a
# podman container (Debian 12, the local base image), so nothing is installed
# on this host. Not part of ctest (root, podman, about a minute): run
#
#     bash tests/deploy/check_systemd.sh
#
# after tests/deploy/check_container.sh, whose image (DDZ_IMAGE, default
# ddz:test) provides the ddz binary and the client. It installs the unit as
# deploy/ddz.service says, with /etc/ddz/ddz.env setting DDZ_BIND=0.0.0.0 so
# that the test can reach it, then checks: the unit starts; /healthz; a quick
# game over WebSocket and its record; the state directory's owner and mode;
# Restart=on-failure brings ddz back after a SIGKILL; `systemctl stop` ends
# it cleanly (exit 0, "stopped" logged). Prints "N passed, N failed" last.
# shellcheck disable=SC2015,SC2317 # `ok` never fails; traps and wait_for call functions
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
image=${DDZ_IMAGE:-ddz:test}
name=ddz-systemd-test-$$
passed=0
failed=0

ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
finish() {
    printf '%d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
    exit
}
die() {
    bad "$*"
    if podman container exists "$name" 2>/dev/null; then
        echo "-- journal of ddz.service:"
        podman exec "$name" journalctl -u ddz --no-pager 2>&1 | tail -20 | sed 's/^/   /'
    fi
    finish
}
ctx=$(mktemp -d)
cleanup() {
    podman rm -f -v -t 2 "$name" >/dev/null 2>&1
    rm -rf "$ctx"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || die "run as root"
podman image exists "$image" || die "no image $image (run tests/deploy/check_container.sh first)"
podman image exists localhost/debian:12-slim || die "no base image (run deploy/podman-setup.sh)"
node_ws=(node)
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null ||
    node_ws=(node --experimental-websocket)

# The binary and the client from the image, the unit from deploy/.
cid=$(podman create "$image" 2>/dev/null) || die "podman create $image"
podman cp "$cid":/usr/local/bin/ddz "$ctx/ddz" && podman cp "$cid":/usr/share/ddz/web "$ctx/web" ||
    die "copy ddz out of $image"
podman rm -v "$cid" >/dev/null 2>&1
cp "$src/deploy/ddz.service" "$ctx/"
printf 'DDZ_BIND=0.0.0.0\nDDZ_AI_DELAY_MS=0\n' >"$ctx/ddz.env"
cat >"$ctx/Containerfile" <<'EOF'
FROM localhost/debian:12-slim
RUN apt-get update && apt-get install -y --no-install-recommends systemd systemd-sysv \
      libsodium23 libjansson4 libwebsockets17 libsqlite3-0 libssl3 \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --home-dir /var/lib/ddz --no-create-home --shell /usr/sbin/nologin ddz
COPY ddz /usr/local/bin/ddz
COPY web /usr/share/ddz/web
COPY ddz.env /etc/ddz/ddz.env
COPY ddz.service /etc/systemd/system/ddz.service
RUN systemctl enable ddz.service
STOPSIGNAL SIGRTMIN+3
CMD ["/sbin/init"]
EOF
podman build -q -t ddz-systemd:test "$ctx" >"$ctx/build.log" 2>&1 || {
    cat "$ctx/build.log"
    die "podman build of the systemd image"
}
podman run -d --name "$name" --systemd=always -p 127.0.0.1::8080 ddz-systemd:test \
    >/dev/null 2>"$ctx/run.log" || {
    cat "$ctx/run.log"
    die "podman run"
}
port=$(podman port "$name" 8080/tcp | head -1)
port=${port##*:}
base=http://127.0.0.1:$port

sx() { podman exec "$name" "$@"; }
wait_for() { # wait_for SECONDS COMMAND...: bounded wait on a condition
    local until=$((SECONDS + $1))
    shift
    while [ $SECONDS -lt $until ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}
healthy() { [ "$(curl -s --max-time 2 "$base/healthz")" = ok ]; }
active_pid() { # prints ddz's main pid once the unit is active
    [ "$(sx systemctl is-active ddz)" = active ] || return 1
    local p
    p=$(sx systemctl show -p MainPID --value ddz)
    [ "${p:-0}" != 0 ] && echo "$p"
}

wait_for 30 active_pid && ok "ddz.service is active under systemd" || die "ddz.service did not start"
wait_for 15 healthy && ok "/healthz answers ok" || die "/healthz"
journal=$(sx journalctl -u ddz --no-pager -o cat)
grep -qE ' E: |error' <<<"$journal" && bad "errors at start: $(grep -E ' E: |error' <<<"$journal" | head -3)" ||
    ok "no error logged at start"

line=$("${node_ws[@]}" "$src/tests/deploy/quick_game.js" "ws://127.0.0.1:$port/ws" 60) ||
    die "quick game over WebSocket"
gid=$(sed -n 's/^game_id=\([0-9a-f-]*\) .*/\1/p' <<<"$line")
ok "quick game played under the unit's sandbox: game_id $gid"
record() { curl -fs --max-time 2 "$base/api/games/$gid" | grep -q '"seed"'; }
wait_for 10 record && ok "/api/games/$gid served" || bad "/api/games/$gid"

st=$(sx stat -c '%U %a' /var/lib/ddz /var/lib/ddz/ddz.db | tr '\n' ' ')
[ "$st" = "ddz 750 ddz 640 " ] && ok "state directory and database: $st" || bad "state: '$st'"
user=$(sx stat -c %U "/proc/$(active_pid)")
[ "$user" = ddz ] && ok "runs as user ddz" || bad "runs as '$user'"

old=$(active_pid)
sx sh -c "kill -KILL $old" # a crash
restarted() { local p; p=$(active_pid) && [ "$p" != "$old" ]; }
wait_for 15 restarted && wait_for 15 healthy && ok "Restart=on-failure: back after SIGKILL" ||
    bad "not restarted after SIGKILL"
wait_for 5 record && ok "the game survived the crash" || bad "game $gid lost after the crash"

sx systemctl stop ddz
res=$(sx systemctl show -p Result -p ExecMainStatus --value ddz | tr '\n' ' ')
[ "$res" = "success 0 " ] && ok "systemctl stop: clean exit" || bad "systemctl stop: '$res'"
journal=$(sx journalctl -u ddz --no-pager -o cat)
grep -q '"stopped"' <<<"$journal" && ok "'stopped' logged" ||
    bad "no 'stopped' in the journal"
echo "   systemd-analyze security: $(sx systemd-analyze security ddz.service --no-pager 2>/dev/null |
    tail -1 | sed 's/^→ //')"
finish
