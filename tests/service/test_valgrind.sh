#!/usr/bin/env bash
# test_valgrind.sh - a short match, move generation and verification under
# Valgrind's memcheck: no invalid access, no use of uninitialised memory, no
# definite or indirect leak. Engine child processes are not traced.
# Usage: test_valgrind.sh PATH-TO-DDZ
#
# Skipped for a sanitizer build (the binary links ASan): Valgrind and ASan
# do not run together, and that build is checked by ASan itself.
set -u
DDZ=$1
if ldd "$DDZ" 2>/dev/null | grep -q asan || grep -qa __asan_init "$DDZ"; then
    echo "test_valgrind: skipped: ASan build ($DDZ links AddressSanitizer; Valgrind cannot run it)"
    exit 0
fi
if ! command -v valgrind >/dev/null; then
    echo "test_valgrind: FAIL: valgrind is not installed (deploy/deps.sh installs it)"
    exit 1
fi
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# vg "description" command...: runs the command under memcheck; its stdout
# goes to $tmp/out. Fails on a non-zero exit or any memcheck error.
vg() {
    local what=$1; shift
    local rc=0
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --trace-children=no --log-file="$tmp/vg.log" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ $rc -ne 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$tmp/vg.log"; then
        no "$what: exit $rc"
        sed 's/^/    /' "$tmp/err" "$tmp/vg.log" | head -80
        return 1
    fi
    ok
}

seed=76616c6772696e642d7265636f72642d746573742d6d617463682d3030303031
if vg "a 5-game match with an engine" "$DDZ" match --seat A=ai:greedy --seat B=ai:random \
    --seat C="exec:$DDZ engine --ai greedy" --games 5 --time 10 --seed "$seed" --quiet \
    --log "$tmp/games.jsonl"; then
    n=$(wc -l <"$tmp/games.jsonl")
    [ "$n" -eq 5 ] && ok || no "the match logged $n records, want 5"
fi

# The landlord's 20 cards of a real deal, leading and following a pair.
hand=0,1,2,3,4,5,6,8,9,12,16,17,18,20,24,28,32,36,52,53
if vg "rules moves (lead)" "$DDZ" rules moves --hand "$hand"; then
    [ "$(wc -l <"$tmp/out")" -gt 100 ] && ok || no "rules moves listed $(wc -l <"$tmp/out") plays"
fi
if vg "rules moves (follow)" "$DDZ" rules moves --hand "$hand" --follow 40,41; then
    [ "$(tail -1 "$tmp/out")" = "[]" ] && ok || no "rules moves --follow: pass not last"
fi
vg "rules classify" "$DDZ" rules classify 0,1,2,4,5,6,8,9

if [ -s "$tmp/games.jsonl" ] && vg "verify the match's records" "$DDZ" verify "$tmp/games.jsonl"; then
    grep -q '^5 records verified$' "$tmp/out" && ok || no "verify printed: $(cat "$tmp/out")"
fi

echo "test_valgrind: $passes passed, $fails failed"
[ $fails -eq 0 ]
