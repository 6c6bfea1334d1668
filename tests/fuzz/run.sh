#!/usr/bin/env bash
# run.sh - a bounded libFuzzer pass over every target in tests/fuzz.
#
# Configures build-fuzz/ with clang (-DDDZ_FUZZ=ON: the libraries with
# coverage, ASan and UBSan), builds the fuzz_* targets, then runs each for
# SECONDS (default 25) starting from its seed corpus tests/fuzz/corpus/NAME
# (read only; new inputs go to build-fuzz/corpus/NAME, emptied each run) and
# its dictionary NAME.dict. Fails if any target crashes, leaks, times out or
# fails a check; the input that did it is left in build-fuzz/artifacts/.
# Reproduce one with: build-fuzz/tests/fuzz/NAME build-fuzz/artifacts/NAME-crash-...
#
# Usage: tests/fuzz/run.sh [SECONDS]     (or DDZ_FUZZ_SECONDS=N)
#        tests/fuzz/run.sh build         (configure and build only)
set -euo pipefail
cd "$(dirname "$0")/../.."
build_only=false
if [ "${1:-}" = build ]; then
    build_only=true
    shift
fi
secs=${1:-${DDZ_FUZZ_SECONDS:-25}}
build=build-fuzz

cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDDZ_FUZZ=ON -DDDZ_TESTS=OFF >/dev/null
targets=()
for src in tests/fuzz/fuzz_*.c; do
    targets+=("$(basename "$src" .c)")
done
ninja -C "$build" "${targets[@]}"
$build_only && exit 0

rm -rf "$build/artifacts"
mkdir -p "$build/artifacts"
# One target per core at a time (each is one process): the pass takes
# SECONDS x targets / cores.
fuzz_one() {
    local t=$1 work=$build/corpus/$1 log=$build/artifacts/$1.log start=$SECONDS rc=0
    rm -rf "$work"
    mkdir -p "$work"
    local dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    # Messages go to the log; the whole of it is shown only on failure.
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "${dict[@]}" \
        "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 || true)
    if [ $rc -ne 0 ]; then
        touch "$build/artifacts/$t.failed"
        echo "fuzz: $t FAILED (exit $rc) after $((SECONDS - start)) s:"
        grep -E 'check failed|ERROR|SUMMARY|^    #[0-9]+ |Test unit written|artifact' "$log" | head -40 || true
    else
        echo "fuzz: $t ok: ${runs:-?} runs in $((SECONDS - start)) s, ${cov:-cov: ?}," \
            "$(ls "$work" | wc -l) new inputs"
    fi
}
cores=$(nproc)
running=0
for t in "${targets[@]}"; do
    if [ $running -ge "$cores" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait
failed=()
for t in "${targets[@]}"; do
    [ -e "$build/artifacts/$t.failed" ] && failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]} (logs and inputs in $build/artifacts/)"
    exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${secs} s each without a finding"
