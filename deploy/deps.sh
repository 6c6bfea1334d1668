#!/usr/bin/env bash
# deps.sh - installs everything ddz needs to build, run and test on Debian 12.
# Idempotent; run as root. Used by the README's two commands and by .ci/run.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config clang
      libsodium-dev libjansson-dev libwebsockets-dev libssl-dev libsqlite3-dev
      libcriterion-dev)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
