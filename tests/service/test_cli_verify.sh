#!/usr/bin/env bash
# test_cli_verify.sh - `ddz verify FILE` on hand-made records (spec §2, §6, §10).
# Usage: test_cli_verify.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Game 0 of master seed 000102...1f (spec §2): all three pass, every score 0.
allpass='{"game":0,"rules":"caai","seed":"e55164c4359dbad5684a59ceae24de217587fd374f40acf1182082d00a14b749","commit":"364e41de39dae117f51b48efd2fd5422382b3c4bd7591d1300839bd7bba9d323","hands":[[2,5,7,13,15,17,19,20,22,29,31,32,40,46,51,52,53],[0,1,6,8,10,12,18,23,24,26,27,30,43,44,47,48,50],[3,4,9,14,16,21,25,28,33,34,36,37,38,41,42,45,49]],"leftover":[11,35,39],"early_penalty":350,"bids":[{"seat":0,"bid":0},{"seat":1,"bid":0},{"seat":2,"bid":0}],"landlord":null,"plays":[],"winner":null,"fault":null,"bombs":0,"rocket":false,"spring":false,"anti_spring":false,"multiplier":0,"scores":[0,0,0],"names":["west","south","east"]}'

# The known-answer seed 000102...1f: West bids 3, takes 5,22,50 and crashes
# before its first play. East holds the four 3s (0,1,2,3) and the jokers are
# split, so the unit is (1 bomb + 1) x bid 3 x 100 = 600 (spec §6) and the
# faulty landlord pays each farmer one unit.
fault='{"game":1,"rules":"caai","seed":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f","commit":"cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6","hands":[[6,8,14,16,18,21,24,30,34,35,40,41,43,44,46,47,49],[10,11,13,17,20,23,27,28,29,31,32,33,36,38,42,51,52],[0,1,2,3,4,7,9,12,15,19,25,26,37,39,45,48,53]],"leftover":[5,22,50],"early_penalty":350,"bids":[{"seat":0,"bid":3}],"landlord":0,"plays":[],"winner":null,"fault":{"seat":0,"kind":"crash"},"bombs":0,"rocket":false,"spring":false,"anti_spring":false,"multiplier":0,"scores":[-1200,600,600],"names":["ai:random","exec:./engine","ai:random"]}'

# The embedded deals are the ones `ddz rules deal` gives.
for rec in "$allpass" "$fault"; do
    seed=$(sed 's/.*"seed":"\([0-9a-f]*\)".*/\1/' <<<"$rec")
    want=$("$DDZ" rules deal --seed "$seed" | sed 's/^{//; s/}$//')
    case $rec in
    *"$want"*) ok ;;
    *) no "the record of seed $seed embeds the deal '$want'" ;;
    esac
done

printf '%s\n%s\n' "$allpass" "$fault" >"$tmp/good.jsonl"

# expect_ok "description" "expected stdout" command...
expect_ok() {
    local what=$1 want=$2; shift 2
    local got rc
    got=$("$@" 2>"$tmp/err"); rc=$?
    if [ $rc -ne 0 ]; then no "$what: exit $rc: $(cat "$tmp/err")"; return; fi
    if [ "$got" != "$want" ]; then no "$what: got '$got' want '$want'"; return; fi
    if [ -s "$tmp/err" ]; then no "$what: wrote on stderr: $(cat "$tmp/err")"; return; fi
    ok
}

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

# $bad: a copy of the good file with `sed LINEs/EXPR` applied.
bad=$tmp/bad.jsonl
alter() {
    sed "$1s/$2" "$tmp/good.jsonl" >"$bad"
    cmp -s "$tmp/good.jsonl" "$bad" && no "sed '$1s/$2' changed nothing"
}

# help and usage
"$DDZ" --help | grep -q 'verify FILE' && ok || no "ddz --help lists verify"
"$DDZ" verify --help | grep -q 'usage: ddz verify FILE' && ok || no "ddz verify --help"
"$DDZ" verify --help | grep -q 'scores' && ok || no "ddz verify --help says what is checked"
expect_fail "no FILE" 2 "FILE" "$DDZ" verify
expect_fail "two FILEs" 2 "FILE" "$DDZ" verify "$tmp/good.jsonl" "$tmp/good.jsonl"
expect_fail "unknown option" 2 "option" "$DDZ" verify --bogus

# valid files
expect_ok "two good records" "2 records verified" "$DDZ" verify "$tmp/good.jsonl"
expect_ok "from stdin" "2 records verified" sh -c "\"$DDZ\" verify - <\"$tmp/good.jsonl\""
printf '\n%s\r\n  \n\n%s\n\n' "$allpass" "$fault" >"$tmp/blank.jsonl"
expect_ok "blank lines and CRLF" "2 records verified" "$DDZ" verify "$tmp/blank.jsonl"
printf '%s' "$fault" >"$tmp/noeol.jsonl"
expect_ok "no newline at the end" "1 records verified" "$DDZ" verify "$tmp/noeol.jsonl"
: >"$tmp/empty.jsonl"
expect_ok "empty file" "0 records verified" "$DDZ" verify "$tmp/empty.jsonl"
alter 2 '"rules":"caai",//'
expect_ok "rules absent means caai" "2 records verified" "$DDZ" verify "$bad"
# The kind of a fault changes no score, so a record cannot prove it.
alter 2 '"crash"/"timeout"/'
expect_ok "fault kind is not provable" "2 records verified" "$DDZ" verify "$bad"

# records that do not verify: the line, the game and the field are named
alter 2 '600,600\]/600,500]/'
expect_fail "altered score" 1 "ddz verify: line 2 (game 1): scores[2]: 500, should be 600" \
    "$DDZ" verify "$bad"
alter 2 '"fault":{"seat":0/"fault":{"seat":1/'
expect_fail "fault on the wrong seat" 1 "line 2 (game 1): scores[0]: -1200, should be 1200" \
    "$DDZ" verify "$bad"
alter 1 'e55164c4/e55164c5/'
expect_fail "altered seed" 1 "line 1 (game 0): seed: " "$DDZ" verify "$bad"
alter 2 'cb2f5160/cb2f5161/'
expect_fail "altered commit" 1 "line 2 (game 1): commit: " "$DDZ" verify "$bad"
alter 2 '\[\[6,8,/[[5,8,/'
expect_fail "a hand card swapped" 1 "line 2 (game 1): hands[0]: " \
    "$DDZ" verify "$bad"
alter 1 '"seat":1,"bid":0/"seat":1,"bid":2/; s/"seat":2,"bid":0/"seat":2,"bid":2/'
expect_fail "a bid that is not higher" 1 "line 1 (game 0): bids[2]: " \
    "$DDZ" verify "$bad"
alter 1 '"landlord":null/"landlord":1/'
expect_fail "all passed, but a landlord" 1 "line 1 (game 0): landlord: " \
    "$DDZ" verify "$bad"
alter 1 '"plays":\[\]/"plays":[{"seat":0,"cards":[2]}]/'
expect_fail "a play after all passed" 1 "line 1 (game 0): plays[0]: " \
    "$DDZ" verify "$bad"
alter 2 '"fault":{"seat":0,"kind":"crash"}/"fault":null/'
expect_fail "the fault removed" 1 "line 2 (game 1): plays: the game is not over" \
    "$DDZ" verify "$bad"
alter 2 '"plays":\[\]/"plays":[{"seat":0,"cards":[6,8]}]/'
expect_fail "a bad play before the fault" 1 "line 2 (game 1): plays[0]: " \
    "$DDZ" verify "$bad"

# records that do not decode
alter 2 '"game":1,/"game":1,,/'
expect_fail "malformed JSON" 1 "ddz verify: line 2: invalid JSON" \
    "$DDZ" verify "$bad"
expect_fail "not an object" 1 "line 2: record: expected an object" \
    sh -c "printf '%s\n[1,2]\n' '$allpass' | \"$DDZ\" verify -"
alter 2 '\[\[6,8,/[[54,8,/'
expect_fail "card out of range" 1 "line 2 (game 1): hands[0]: card 54 outside 0..53" \
    "$DDZ" verify "$bad"
alter 1 '"scores":\[0,0,0\],//'
expect_fail "missing field" 1 "line 1 (game 0): scores: missing" \
    "$DDZ" verify "$bad"
alter 1 '"game":0,/"game":0,"game":0,/'
expect_fail "duplicate key" 1 "line 1: invalid JSON" \
    "$DDZ" verify "$bad"
alter 2 '"rules":"caai"/"rules":"ftl"/'
expect_fail "unknown rule set" 1 "line 2 (game 1): rules: unknown rule set 'ftl'" \
    "$DDZ" verify "$bad"
alter 2 '"rules":"caai"/"rules":"a\\nb"/'
expect_fail "control characters stay on one line" 1 "rules: unknown rule set 'a?b'" \
    "$DDZ" verify "$bad"

# ---- the Botzone rule sets (spec §8): each record under its own rules ----
# The known-answer deal under botzone-ftl: no bids, West (the landlord) leads
# its lowest card 5, and South crashes: the landlord 2.5, the farmers -1.
deal='"seed":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f","commit":"cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6","hands":[[6,8,14,16,18,21,24,30,34,35,40,41,43,44,46,47,49],[10,11,13,17,20,23,27,28,29,31,32,33,36,38,42,51,52],[0,1,2,3,4,7,9,12,15,19,25,26,37,39,45,48,53]],"leftover":[5,22,50]'
ftl='{"game":2,"rules":"botzone-ftl",'$deal',"early_penalty":0,"bids":[],"landlord":0,"plays":[{"seat":0,"cards":[5]}],"winner":null,"fault":{"seat":1,"kind":"crash"},"faults":[{"seat":1,"kind":"crash","at":1}],"bombs":0,"rocket":false,"spring":false,"anti_spring":false,"multiplier":0,"scores":[2.5,-1,-1],"names":["west","south","east"]}'
# The same deal under botzone-ftl2: West bids 1; South times out asked to
# bid (its stand-in bids 0); East passes; West leads 5; the stand-ins of
# South and East pass (marked auto; East crashed when asked); West times out
# on its next lead: three faulty seats, every score -1.
ftl2='{"game":3,"rules":"botzone-ftl2",'$deal',"early_penalty":0,"bids":[{"seat":0,"bid":1},{"seat":1,"bid":0},{"seat":2,"bid":0}],"landlord":0,"plays":[{"seat":0,"cards":[5]},{"seat":1,"cards":[],"auto":true},{"seat":2,"cards":[],"auto":true}],"winner":null,"fault":{"seat":1,"kind":"timeout"},"faults":[{"seat":1,"kind":"timeout","at":-1,"bids":1},{"seat":2,"kind":"crash","at":2},{"seat":0,"kind":"timeout","at":3}],"bombs":0,"rocket":false,"spring":false,"anti_spring":false,"multiplier":0,"scores":[-1,-1,-1],"names":["west","south","east"]}'
printf '%s\n%s\n%s\n%s\n' "$allpass" "$fault" "$ftl" "$ftl2" >"$tmp/good.jsonl"
expect_ok "records of three rule sets" "4 records verified" "$DDZ" verify "$tmp/good.jsonl"
alter 3 '"scores":\[2.5,/"scores":[2.505,/'
expect_fail "a float score off by 0.005" 1 "line 3 (game 2): scores[0]: 2.505, should be 2.5" \
    "$DDZ" verify "$bad"
alter 3 '"fault":{"seat":1,"kind":"crash"},"faults":\[{"seat":1/"fault":{"seat":2,"kind":"crash"},"faults":[{"seat":2/'
expect_ok "botzone-ftl: which farmer faulted is not provable (both -1)" "4 records verified" \
    "$DDZ" verify "$bad"
alter 3 '"bids":\[\]/"bids":[{"seat":0,"bid":1}]/'
expect_fail "botzone-ftl: a bid" 1 "line 3 (game 2): bids[0]: " "$DDZ" verify "$bad"
alter 3 '"rules":"botzone-ftl"/"rules":"caai"/'
expect_fail "botzone-ftl's record under caai" 1 "line 3 (game 2): plays[0]: no play is possible" \
    "$DDZ" verify "$bad"
alter 4 '"seat":1,"bid":0/"seat":1,"bid":2/'
expect_fail "botzone-ftl2: a faulty seat's own bid" 1 "line 4 (game 3): bids[1]: the seat has faulted" \
    "$DDZ" verify "$bad"
alter 4 '{"seat":1,"cards":\[\],"auto":true}/{"seat":1,"cards":[]}/'
expect_fail "botzone-ftl2: a stand-in's pass not marked auto" 1 "line 4 (game 3): plays[1]: the seat has faulted" \
    "$DDZ" verify "$bad"
alter 4 '{"seat":0,"kind":"timeout","at":3}/{"seat":0,"kind":"timeout","at":0}/'
expect_fail "botzone-ftl2: a fault out of order" 1 "line 4 (game 3): faults[2]: not between" \
    "$DDZ" verify "$bad"
alter 4 ',{"seat":0,"kind":"timeout","at":3}//'
expect_fail "botzone-ftl2: the third fault removed" 1 "line 4 (game 3): plays: the game is not over" \
    "$DDZ" verify "$bad"
alter 4 '"fault":{"seat":1,"kind":"timeout"}/"fault":{"seat":2,"kind":"timeout"}/'
expect_fail "botzone-ftl2: fault is not the first of faults" 1 "line 4 (game 3): fault: " \
    "$DDZ" verify "$bad"
alter 4 '"scores":\[-1,-1,-1\]/"scores":[-1,-1,-1.5]/'
expect_fail "botzone-ftl2: a score" 1 "line 4 (game 3): scores[2]: -1.5, should be -1" \
    "$DDZ" verify "$bad"
alter 4 '"rules":"botzone-ftl2"/"rules":"caai"/'
expect_fail "botzone-ftl2's record under caai" 1 "line 4 (game 3): bids[1]: " "$DDZ" verify "$bad"

# files that cannot be read
expect_fail "missing file" 1 "$tmp/nonexistent.jsonl" "$DDZ" verify "$tmp/nonexistent.jsonl"
expect_fail "a directory" 1 "$tmp" "$DDZ" verify "$tmp"

# a very long line is read whole
{
    printf '%s,"padding":"' "${allpass%\}}"
    head -c 300000 /dev/zero | tr '\0' x
    printf '"}\n%s\n' "$fault"
} >"$tmp/long.jsonl"
expect_ok "a 300 kB line" "2 records verified" "$DDZ" verify "$tmp/long.jsonl"

echo "test_cli_verify: $passes passed, $fails failed"
[ $fails -eq 0 ]
