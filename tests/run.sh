#!/usr/bin/env bash
# run.sh - builds ddz twice (optimised, and with ASan/UBSan at -O1) and runs
# every test in both builds, and a bounded libFuzzer pass (the sanitizer
# build, the fuzz pass and its tests beside the release build's: below).
# ctest gives each test the environment of its build (tests/CMakeLists.txt:
# the slowdown its waits are bounded by, the sanitizer build's shorter long
# runs and sanitizer options), starts the longest first and stops a test at
# a timeout that says what it should take. At the end (pass or fail) it
# prints the ten slowest tests of each build and the whole run's time.
set -euo pipefail
cd "$(dirname "$0")/.."
# One test more than there are cores: with one per core part of the CPU sat
# idle (the tests wait on game clocks, AI pauses and each other's processes);
# with two per core the browser tests' chromium and the brute-force AI tests
# fought for the CPU and the run was slower (measured: tests/durations.cmake).
jobs=$(($(nproc) + 1))
t0=$(date +%s)
logs=$(mktemp -d)

# "SECONDS NAME" for each test a ctest log reports, slowest first.
timings() {
    sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$1" | sort -rn
}
summary() {
    for build in release sanitizer; do
        [ -s "$logs/$build.log" ] || continue
        echo "run.sh: the ten slowest tests of the $build build (s):"
        timings "$logs/$build.log" | head -10 | sed 's/^/    /'
    done
    echo "run.sh: $(($(date +%s) - t0)) s in all on $(nproc) cores"
    rm -rf "$logs"
}
trap summary EXIT

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build
# Most of the run is the browser tests, one chromium at a time (they wait on
# clocks and pages more than they compute): the release build's take some
# 1,100 s, its C tests run beside them. So the rest runs beside them too, at
# a lower priority, taking the CPU they leave: the sanitizer and fuzz builds
# (nice 19), the fuzz pass and the sanitizer build's tests but its browser
# tests (nice 10). Those browser tests run last, after the release build's,
# so that chromium still runs alone.
(
    nice -n 19 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDDZ_SANITIZE=ON >/dev/null &&
        nice -n 19 ninja -C build-asan && nice -n 19 bash tests/fuzz/run.sh build &&
        nice -n 10 bash tests/fuzz/run.sh 20 && # each parser and the rules, 20 s per target
        (cd build-asan && nice -n 10 ctest --output-on-failure -j "$jobs" -LE chromium)
) >"$logs/sanitizer.log" 2>&1 &
beside=$!
release=0
(cd build && ctest --output-on-failure -j "$jobs") | tee "$logs/release.log" || release=$?
sanitizer=0
wait "$beside" || sanitizer=$?
cat "$logs/sanitizer.log"
(cd build-asan && ctest --output-on-failure -j "$jobs" -L chromium) | tee "$logs/sanitizer-web.log" ||
    sanitizer=$?
cat "$logs/sanitizer-web.log" >>"$logs/sanitizer.log"
[ "$release" -eq 0 ] || echo "run.sh: the release build's tests failed"
[ "$sanitizer" -eq 0 ] || echo "run.sh: the sanitizer build, the fuzz pass or their tests failed"
[ "$release" -eq 0 ] && [ "$sanitizer" -eq 0 ]
