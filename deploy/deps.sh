#!/usr/bin/env bash
# deps.sh - installs everything ddz needs to build, run and test on Debian 12.
# Idempotent; run as root. Used by the README's two commands and by .ci/run.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config clang
      libsodium-dev libjansson-dev libwebsockets-dev libssl-dev libsqlite3-dev
      libcriterion-dev
      # the server's and the bridge's epoll loop: libev, driven by lws's
      # event-library plugin (docs/benchmarks.md, "Speed")
      libev-dev libwebsockets-evlib-ev
      # the PostgreSQL store (--db postgres://...) and the server its tests
      # start for themselves (tests/pg/pg.sh)
      libpq-dev postgresql
      # openssl s_client and req for tests/service/test_attack_tls.sh
      openssl
      # the sqlite3 command: tests/web/profile.test.mjs writes people's
      # ratings into the server's database with it
      sqlite3
      # the Python Botzone bot of tests/service/test_botzone.c (a bot in
      # another language, run unchanged; standard library only)
      python3
      # libFuzzer and the sanitizer runtimes for clang (tests/fuzz/run.sh);
      # only a Recommends of clang, which --no-install-recommends skips
      libclang-rt-14-dev
      # memcheck for tests/service/test_valgrind.sh
      valgrind
      # the browser tests (tests/web) drive Debian's chromium headless;
      # CJK glyphs so that the Chinese client renders in it
      chromium fonts-noto-cjk
      # tests/deploy/test_cluster_proxy.sh: HTTP requests to the nodes
      # through nginx (nginx-light itself: below)
      curl)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js and npm for the JavaScript test tools: from Debian unless the
# machine already has them (another build of nodejs bundles its own npm,
# and Debian's npm package would conflict with it).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node.js 20 or later: playwright-core needs it, and the tests' WebSocket
# clients use Node's own (--experimental-websocket from 20.10). Debian 12's
# nodejs is 18; where that is all there is, Node.js 20's official binary
# is taken from the npm registry (the package node-linux-ARCH, through the
# machine's own npm configuration) into /opt/ddz-node, and linked from
# /usr/local/bin, which comes first in PATH.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 20 ]; then
    case "$(dpkg --print-architecture)" in
    amd64) arch=x64 ;;
    arm64) arch=arm64 ;;
    *) echo "deps.sh: Node.js 20 or later is needed; install it, then run this again" >&2; exit 1 ;;
    esac
    npm install --prefix /opt/ddz-node --no-save --no-audit --no-fund --loglevel=error \
        "node-linux-$arch@20"
    ln -sf "/opt/ddz-node/node_modules/node-linux-$arch/bin/node" /usr/local/bin/node
    hash -r
    [ "$(node_major)" -ge 20 ] || { echo "deps.sh: Node.js 20 was not installed" >&2; exit 1; }
fi

# nginx for tests/deploy/test_cluster_proxy.sh, which runs its own on a free
# port with deploy/cluster/nginx.conf. The package's service is not wanted:
# it is kept from starting at install (it would take port 80, and fail the
# install if that port is taken) and from starting at boot.
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    export DEBIAN_FRONTEND=noninteractive
    policy=/usr/sbin/policy-rc.d
    made_policy=
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
        trap 'rm -f "$policy"' EXIT
    fi
    [ ${#missing[@]} -gt 0 ] || apt-get update -qq
    apt-get install -y -qq --no-install-recommends nginx-light
    [ -z "$made_policy" ] || rm -f "$policy"
    if [ -d /run/systemd/system ]; then
        systemctl disable nginx >/dev/null 2>&1 || true
    else
        update-rc.d nginx disable >/dev/null 2>&1 || true
    fi
fi

# The JavaScript test tools pinned by package-lock.json (playwright-core,
# which downloads no browser, and ajv), into node_modules/; again only when
# the lock file changed since the last install.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$root/package-lock.json" ]; then
    stamp="$root/node_modules/.deps-lock.sha256"
    want=$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$want" >"$stamp"
    fi
fi
