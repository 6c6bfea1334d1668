#!/usr/bin/env bash
# test_cli_match.sh - the command-line contract of `ddz match` (spec §10):
# usage errors are one line on stderr and exit 2, before any game is played.
# (The match itself, every fault kind and the results table, is tested in
# test_match.c.)
# Usage: test_cli_match.sh PATH-TO-DDZ
set -u
DDZ=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fails=0 passes=0
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_fail "description" exit-status "text the one stderr line must hold" command...
expect_fail() {
    local what=$1 status=$2 text=$3; shift 3
    local out rc lines
    out=$("$@" 2>"$tmp/err"); rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc -ne "$status" ]; then no "$what: exit $rc, want $status: $(cat "$tmp/err")"; return; fi
    if [ -n "$out" ]; then no "$what: printed '$out' on stdout"; return; fi
    if [ "$lines" -ne 1 ]; then no "$what: $lines lines on stderr: $(cat "$tmp/err")"; return; fi
    if ! grep -qF -- "$text" "$tmp/err"; then no "$what: message lacks '$text': $(cat "$tmp/err")"; return; fi
    ok
}

engine="exec:$DDZ engine --ai random"
seats=(--seat "A=$engine" --seat B=ai:random --seat C=ai:greedy --games 2 --quiet)

expect_fail "a seat missing" 2 "all three seats are required" "$DDZ" match --seat A=ai:random
expect_fail "an unknown option" 2 "unknown option" "$DDZ" match "${seats[@]}" --bogus 1
expect_fail "an unknown rule set" 2 "--rules: unknown rule set (known: caai, botzone-ftl, botzone-ftl2)" \
    "$DDZ" match "${seats[@]}" --rules ftl

# --engine-logs DIR must be a directory the engines can write their logs
# in: otherwise every engine would fail to start, every game be charged to
# seat A as a crash, and the match still exit 0.
expect_fail "--engine-logs: a missing directory" 2 "--engine-logs $tmp/missing: no such directory" \
    "$DDZ" match "${seats[@]}" --engine-logs "$tmp/missing"
expect_fail "--engine-logs: below a missing directory" 2 "--engine-logs $tmp/missing/logs:" \
    "$DDZ" match "${seats[@]}" --engine-logs "$tmp/missing/logs"
: >"$tmp/file"
expect_fail "--engine-logs: a file" 2 "--engine-logs $tmp/file: not a directory" \
    "$DDZ" match "${seats[@]}" --engine-logs "$tmp/file"
expect_fail "--engine-logs: below a file" 2 "--engine-logs $tmp/file/logs:" \
    "$DDZ" match "${seats[@]}" --engine-logs "$tmp/file/logs"
expect_fail "--engine-logs: hosted AIs only, all the same" 2 "--engine-logs $tmp/missing:" \
    "$DDZ" match --seat A=ai:random --seat B=ai:random --seat C=ai:random --engine-logs "$tmp/missing"
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
if [ -w "$tmp/ro" ]; then
    echo "note: running as root, a read-only directory is writable: case skipped"
else
    expect_fail "--engine-logs: a read-only directory" 2 "--engine-logs $tmp/ro: not writable" \
        "$DDZ" match "${seats[@]}" --engine-logs "$tmp/ro"
fi
[ -z "$(ls -A "$tmp/ro")" ] && ok || no "a refused match wrote in $tmp/ro"

# A writable directory: the games are played, the engine's log is there.
mkdir "$tmp/logs"
out=$("$DDZ" match "${seats[@]}" --seed "$(printf '%064d' 0)" --engine-logs "$tmp/logs" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && ok || no "match with --engine-logs: exit $rc: $(cat "$tmp/err")"
grep -q '^seed 0\{64\}, 2 games' <<<"$out" && ok || no "match with --engine-logs printed: $out"
[ -f "$tmp/logs/player-A.stderr.log" ] && ok || no "no log for seat A in $tmp/logs"
grep -qi 'crash' <<<"$out" && no "a crash was charged: $out" || ok

# A Botzone-protocol bot in another language runs unchanged (spec §10, §11);
# an empty command is refused as `exec:` is (exit 1). Debian's python3,
# named (the first in PATH may be a slow version manager's shim), under a
# 5 s clock grown by the run's slowdown (tests/test_clock.h).
expect_fail "botzone: without a command" 1 "botzone:" \
    "$DDZ" match --seat A=botzone: --seat B=ai:random --seat C=ai:greedy --games 1 --quiet
out=$("$DDZ" match --seat "A=botzone:/usr/bin/python3 $here/botzone_bot.py" --seat B=ai:random \
    --seat C=ai:greedy --games 1 --time $((5 * ${DDZ_TEST_SLOWDOWN:-1})) --log "$tmp/bz.jsonl" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && ok || no "match with a botzone: seat: exit $rc: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && no "a botzone: seat was charged: $(cat "$tmp/err")" || ok
"$DDZ" verify "$tmp/bz.jsonl" >/dev/null && ok || no "the botzone: match's records do not verify"

# ai:strong as an engine, its endgame played for the score (the default)
# or only to win (--endgame win, the A/B test's baseline): both play their
# games without a fault; another mode is bad usage.
expect_fail "engine --endgame: an unknown mode" 2 "--endgame must be score or win" \
    "$DDZ" engine --ai strong --endgame best
for mode in score win; do
    "$DDZ" match --seat "A=exec:$DDZ engine --ai strong --rollouts 30 --endgame $mode" \
        --seat B=ai:greedy --seat C=ai:greedy --games 3 --quiet --log "$tmp/eg-$mode.jsonl" \
        >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok ||
        no "engine --endgame $mode: $(cat "$tmp/err")"
    [ "$(grep -c '"fault":null' "$tmp/eg-$mode.jsonl")" -eq 3 ] && ok ||
        no "engine --endgame $mode: a game with a fault"
done

echo "test_cli_match: $passes passed, $fails failed"
[ $fails -eq 0 ]
