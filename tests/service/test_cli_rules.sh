#!/usr/bin/env bash
# test_cli_rules.sh - the spec §10 command-line contracts of `ddz rules`.
# Usage: test_cli_rules.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_out "description" "expected stdout" command...
expect_out() {
    local what=$1 want=$2; shift 2
    local got rc
    got=$("$@" 2>/tmp/ddz_cli_err.$$); rc=$?
    if [ $rc -ne 0 ]; then no "$what: exit $rc: $(cat /tmp/ddz_cli_err.$$)"; return; fi
    if [ "$got" != "$want" ]; then no "$what: got '$got' want '$want'"; return; fi
    ok
}

# expect_err "description" "word that must appear in the message" command...
expect_err() {
    local what=$1 word=$2; shift 2
    local out rc lines
    out=$("$@" 2>/tmp/ddz_cli_err.$$); rc=$?
    lines=$(wc -l </tmp/ddz_cli_err.$$)
    if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then no "$what: exit $rc (want a clean non-zero exit)"; return; fi
    if [ -n "$out" ]; then no "$what: printed '$out' on stdout"; return; fi
    if [ "$lines" -ne 1 ]; then no "$what: $lines lines on stderr: $(cat /tmp/ddz_cli_err.$$)"; return; fi
    if ! grep -q -- "$word" /tmp/ddz_cli_err.$$; then no "$what: message lacks '$word': $(cat /tmp/ddz_cli_err.$$)"; return; fi
    ok
}

# help
"$DDZ" --help | grep -q 'rules classify' && ok || no "ddz --help lists rules classify"
"$DDZ" rules --help | grep -q -- '--follow' && ok || no "ddz rules --help explains --follow"
"$DDZ" bench --help | grep -q -- '--json' && ok || no "ddz bench --help explains --json"

# classify
expect_out "rocket" '{"type":"rocket","rank":14,"length":1,"kicker":"none","size":2}' "$DDZ" rules classify 53,52
expect_out "plane with pair kickers" '{"type":"plane","rank":3,"length":2,"kicker":"pair","size":10}' \
    "$DDZ" rules classify 8,9,10,12,13,14,24,25,26,27
expect_out "straight, spaces allowed" '{"type":"straight","rank":4,"length":5,"kicker":"none","size":5}' \
    "$DDZ" rules classify "16, 0,4 ,8,12"
expect_out "invalid shape" '{"type":"invalid"}' "$DDZ" rules classify 0,4
expect_out "33334444 is four_two of 4s" '{"type":"four_two","rank":1,"length":1,"kicker":"pair","size":8}' \
    "$DDZ" rules classify 0,1,2,3,4,5,6,7

# moves
expect_out "lead 3,3,4" $'[0]\n[1]\n[0,0]' "$DDZ" rules moves --hand 0,1,4
got=$("$DDZ" rules moves --hand 0,1,4 --follow 2 | tail -1)
[ "$got" = "[]" ] && ok || no "following ends with the pass, got '$got'"
expect_out "follow a single 3 with 3,3,4" $'[1]\n[]' "$DDZ" rules moves --hand 0,1,4 --follow 2
expect_out "nothing beats the rocket" '[]' "$DDZ" rules moves --hand 0,1,2,3 --follow 52,53
expect_out "pair or bomb over a pair" $'[11,11]\n[0,0,0,0]\n[]' "$DDZ" rules moves --hand 0,1,2,3,44,45 --follow 40,41
expect_out "only the bomb over a higher pair" $'[0,0,0,0]\n[]' "$DDZ" rules moves --hand 0,1,2,3,4,5 --follow 44,45
n=$("$DDZ" rules moves --hand 0,1,2,4,5,6,8,9,10,11,12,13,14,15,52,53 | wc -l)
[ "$n" -gt 100 ] && ok || no "a rich hand has many leads ($n)"
"$DDZ" rules moves --hand 0,1,2,4,5,6,8,9,10,11,12,13,14,15,52,53 | grep -qx '\[\]' && no "leading lists a pass" || ok

# deal: the known answer of spec §2
expect_out "known deal" '{"seed":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f","commit":"cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6","hands":[[6,8,14,16,18,21,24,30,34,35,40,41,43,44,46,47,49],[10,11,13,17,20,23,27,28,29,31,32,33,36,38,42,51,52],[0,1,2,3,4,7,9,12,15,19,25,26,37,39,45,48,53]],"leftover":[5,22,50]}' \
    "$DDZ" rules deal --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

# bad input: one line on stderr naming the problem, non-zero exit, no crash
expect_err "code 54" "54" "$DDZ" rules classify 1,54
expect_err "negative code" "not a number" "$DDZ" rules classify -1
expect_err "repeated card" "twice" "$DDZ" rules classify 3,3
expect_err "not a number" "not a number" "$DDZ" rules classify 3,x
expect_err "empty list" "empty" "$DDZ" rules classify ""
expect_err "hand with a bad code" "--hand" "$DDZ" rules moves --hand 1,2,99
expect_err "hand too big" "20 cards" "$DDZ" rules moves --hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20
expect_err "follow not a combination" "not a legal combination" "$DDZ" rules moves --hand 0,1 --follow 4,8
expect_err "follow overlaps hand" "shares" "$DDZ" rules moves --hand 0,1 --follow 1
expect_err "follow repeated" "twice" "$DDZ" rules moves --hand 0,1 --follow 4,4
expect_err "short seed" "seed" "$DDZ" rules deal --seed 0011
expect_err "non-hex seed" "seed" "$DDZ" rules deal --seed zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
expect_err "unknown subcommand" "unknown" "$DDZ" rules shuffle
expect_err "unknown command" "unknown" "$DDZ" frobnicate
expect_err "moves without --hand" "--hand" "$DDZ" rules moves

# bench --json has the contract's keys
out=$("$DDZ" bench --json --seconds 0.05)
echo "$out" | grep -q '"selfplay_games_per_s": [0-9]' && echo "$out" | grep -q '"movegen_moves_per_s": [0-9]' \
    && ok || no "bench --json keys: $out"

# numbers on the command line are checked whole and in range
expect_err "bench --seconds not a number" "--seconds" "$DDZ" bench --seconds fast
expect_err "bench --seed with a sign" "--seed" "$DDZ" bench --seed -1
expect_err "bench ai --threads 0" "--threads" "$DDZ" bench ai --threads 0
expect_err "bench ai --deals with trailing text" "--deals" "$DDZ" bench ai --deals 10x
expect_err "engine --budget not a number" "--budget" "$DDZ" engine --budget soon
expect_err "engine --seed too big" "--seed" "$DDZ" engine --seed 99999999999999999999999
expect_err "loadtest --seed not a number" "--seed" "$DDZ" loadtest --url ws://127.0.0.1:1/ws --seed x

# ---- the rule sets (spec §8): --rules NAME, an unknown name is usage (exit 2)
expect_out "classify under botzone-ftl: a quad straight" \
    '{"type":"quad_straight","rank":1,"length":2,"kicker":"none","size":8}' \
    "$DDZ" rules classify --rules botzone-ftl 0,1,2,3,4,5,6,7
expect_out "33344434 reads as 33334444 under botzone-ftl2" \
    '{"type":"quad_straight","rank":1,"length":2,"kicker":"none","size":8}' \
    "$DDZ" rules classify 0,1,2,4,5,6,3,7 --rules botzone-ftl2
expect_out "quad straight with two singles per four" \
    '{"type":"quad_straight","rank":2,"length":2,"kicker":"single","size":12}' \
    "$DDZ" rules classify --rules botzone-ftl 4,5,6,7,8,9,10,11,0,20,32,36
expect_out "repeated wings are illegal under botzone-ftl" '{"type":"invalid"}' \
    "$DDZ" rules classify --rules botzone-ftl 0,1,2,4,5,6,8,9
expect_out "and a plane under caai" '{"type":"plane","rank":1,"length":2,"kicker":"single","size":8}' \
    "$DDZ" rules classify --rules caai 0,1,2,4,5,6,8,9
moves=$("$DDZ" rules moves --rules botzone-ftl --hand 0,1,2,3,4,5,6,7)
grep -qx '\[0,0,0,0,1,1,1,1\]' <<<"$moves" && ! grep -qx '\[0,0,0,0,1,1\]' <<<"$moves" \
    && ok || no "botzone moves: 33334444 leads as a quad straight, 3333+4+4 not at all: $moves"
moves=$("$DDZ" rules moves --hand 0,1,2,3,4,5,6,7)
grep -qx '\[0,0,0,0,1,1\]' <<<"$moves" && ok || no "caai moves: 3333+4+4 is a four_two: $moves"
expect_out "botzone moves: a quad straight follows a lower one; bombs beat it" \
    $'[2,2,2,2,3,3,3,3]\n[2,2,2,2]\n[3,3,3,3]\n[]' \
    "$DDZ" rules moves --rules botzone-ftl --hand 8,9,10,11,12,13,14,15 --follow 0,1,2,3,4,5,6,7
for args in "classify --rules nope 1" "moves --hand 1,2 --rules nope"; do
    # shellcheck disable=SC2086
    out=$("$DDZ" rules $args 2>/tmp/ddz_cli_err.$$); rc=$?
    if [ $rc -eq 2 ] && [ -z "$out" ] && grep -q 'unknown rule set' /tmp/ddz_cli_err.$$ \
        && grep -q 'botzone-ftl2' /tmp/ddz_cli_err.$$; then ok
    else no "rules $args: exit $rc (want 2), $(cat /tmp/ddz_cli_err.$$)"; fi
done
for cmd in "bench --rules nope" "bench ai --rules nope" "engine --rules nope"; do
    # shellcheck disable=SC2086
    "$DDZ" $cmd >/dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] && ok || no "$cmd: exit $rc, want 2"
done
out=$("$DDZ" bench --json --seconds 0.05 --rules botzone-ftl2)
echo "$out" | grep -q '"rules": "botzone-ftl2"' && echo "$out" | grep -q '"selfplay_games_per_s": [0-9]' \
    && ok || no "bench --rules botzone-ftl2: $out"

rm -f /tmp/ddz_cli_err.$$
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
