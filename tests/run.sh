#!/usr/bin/env bash
# run.sh - builds ddz twice (optimised, and with ASan/UBSan at -O1) and runs
# every test in both builds, with a bounded libFuzzer pass between them.
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
# The sanitizer and fuzz builds compile while the release tests run, at
# nice 19: the browser tests, which are most of that phase's length, wait
# on clocks and pages more than they compute, and the compilers take only
# the CPU the tests leave (some 200 s of a run, measured: 132 s for the
# sanitizer build alone on 2 cores).
(
    nice -n 19 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDDZ_SANITIZE=ON >/dev/null &&
        nice -n 19 ninja -C build-asan && nice -n 19 bash tests/fuzz/run.sh build
) >"$logs/builds.log" 2>&1 &
builds=$!
(cd build && ctest --output-on-failure -j "$jobs") | tee "$logs/release.log"
if ! wait "$builds"; then
    tail -40 "$logs/builds.log"
    echo "run.sh: the sanitizer or fuzz build failed"
    exit 1
fi
bash tests/fuzz/run.sh 20 # a bounded libFuzzer pass: each parser and the rules, 20 s per target

(cd build-asan && ctest --output-on-failure -j "$jobs") | tee "$logs/sanitizer.log"
