#!/usr/bin/env bash
# run.sh - builds ddz twice (optimised, and with ASan/UBSan) and runs every
# test in both builds. The sanitizer build runs the brute-force comparisons
# on a tenth of the positions (DDZ_TEST_SCALE=10) to stay within CI time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build
(cd build && ctest --output-on-failure -j "$jobs")
bash tests/fuzz/run.sh 20  # a bounded libFuzzer pass: each parser and the rules, 20 s per target

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDDZ_SANITIZE=ON >/dev/null
ninja -C build-asan
(cd build-asan && DDZ_TEST_SCALE=10 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$jobs")
