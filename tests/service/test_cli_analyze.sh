#!/usr/bin/env bash
# test_cli_analyze.sh - `ddz analyze FILE` on match logs and tournament
# records (spec §10): one line per play, the verdicts' chain, legal keeps, the
# summaries, and bad input. (`ddz export` writes the same lines as a match
# log: tests/service/test_store.c analyses an exported file.)
# Usage: test_cli_analyze.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passes=$((passes + 1)); }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "FAIL: python3 is missing"; exit 1; }

# A node budget and no clock: the same output on every machine.
budget=(--nodes 20000 --budget-ms 0)
# DDZ_TEST_SCALE=k (the sanitizer build) plays a k-th of the games.
scale=${DDZ_TEST_SCALE:-1}
[ "$scale" -ge 1 ] 2>/dev/null || scale=1

# check.py RECORDS ANALYSIS: every play of every record has its line, in
# order, of the spec §10 form; before of ply i+1 is after of ply i; the last
# after is the winner's side; keeps only where a won position was lost, each
# a legal play of the mover (its cards held, its ranks among `ddz rules
# moves`); a witness exactly where a won position was lost, whatever the
# budget, legal as the keeps and one of them when they are listed; the
# summaries add up. Prints what is wrong, one line each.
cat >"$tmp/check.py" <<'EOF'
import json, subprocess, sys
ddz, records, analysis = sys.argv[1], sys.argv[2], sys.argv[3]
recs = [json.loads(l) for l in open(records) if l.strip()]
lines = [l for l in open(analysis)]
out = [json.loads(l) for l in lines]
plies = [o for o in out if "ply" in o]
others = [o for o in out if "ply" not in o]
bad = []
def rank(c): return c // 4 if c < 52 else c - 39
# a summary's players: a tournament's ids where the record has them, else its names
def who(r): return r["tournament"]["players"] if "tournament" in r else r["names"]
i = 0
own = {}
moves_cache = {}
for r in recs:
    rules = r.get("rules", "caai")
    hands = [list(h) for h in r["hands"]]
    ll = r["landlord"]
    if ll is not None:
        hands[ll] += r["leftover"]
    last, last_seat = None, None
    after = None
    for k, p in enumerate(r["plays"]):
        if i >= len(plies):
            bad.append("game %d ply %d: no line" % (r["game"], k)); break
        o = plies[i]; i += 1
        if list(o.keys()) != ["game", "ply", "seat", "before", "after", "keeps", "witness"]:
            bad.append("keys %s" % list(o.keys()))
        if (o["game"], o["ply"], o["seat"]) != (r["game"], k, p["seat"]):
            bad.append("line %s for game %d ply %d seat %d" % (o, r["game"], k, p["seat"]))
        for w in ("before", "after"):
            if o[w] not in ("landlord", "farmers", "unknown"):
                bad.append("%s: %s" % (w, o))
        if k > 0 and o["before"] != after:
            bad.append("game %d ply %d: before %s, the last after %s" % (r["game"], k, o["before"], after))
        mine = "landlord" if p["seat"] == ll else "farmers"
        theirs = "farmers" if mine == "landlord" else "landlord"
        gave = o["before"] == mine and o["after"] == theirs
        if o["after"] == mine and o["before"] == theirs:
            bad.append("game %d ply %d: a win taken from a lost position" % (r["game"], k))
        if gave != (o["witness"] is not None):
            bad.append("game %d ply %d: a witness %s where gave is %s" % (r["game"], k, o["witness"], gave))
        if o["witness"] is not None and o["keeps"] is not None and o["witness"] not in o["keeps"]:
            bad.append("game %d ply %d: the witness %s is not among the keeps" % (r["game"], k, o["witness"]))
        plays = (o["keeps"] or []) + ([o["witness"]] if o["witness"] is not None else [])
        if o["keeps"] is not None:
            if not gave:
                bad.append("game %d ply %d: keeps, but no win given away: %s" % (r["game"], k, o))
            if not o["keeps"]:
                bad.append("game %d ply %d: an empty list of keeps" % (r["game"], k))
        if plays:
            hand = hands[p["seat"]]
            follow = last if last_seat is not None else None
            key = (rules, tuple(sorted(hand)), tuple(follow or ()))
            if key not in moves_cache:
                cmd = [ddz, "rules", "moves", "--rules", rules, "--hand", ",".join(map(str, sorted(hand)))]
                if follow:
                    cmd += ["--follow", ",".join(map(str, follow))]
                moves_cache[key] = [json.loads(l) for l in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split("\n") if l]
            legal = moves_cache[key]
            for keep in plays:
                if not set(keep) <= set(hand):
                    bad.append("game %d ply %d: keep %s not in hand %s" % (r["game"], k, keep, hand))
                if sorted(rank(c) for c in keep) not in legal:
                    bad.append("game %d ply %d: keep %s is no legal play" % (r["game"], k, keep))
                if sorted(keep) == sorted(p["cards"]):
                    bad.append("game %d ply %d: the play made is listed as a keep" % (r["game"], k))
        after = o["after"]
        if not p.get("auto"):
            name = who(r)[p["seat"]]
            own[name] = own.get(name, 0) + 1
        # the position after the play
        for c in p["cards"]:
            hands[p["seat"]].remove(c)
        if p["cards"]:
            last, last_seat = p["cards"], p["seat"]
        elif last_seat == (p["seat"] + 1) % 3:
            last, last_seat = None, None
    if r["plays"] and r["winner"] is not None:
        side = "landlord" if r["winner"] == ll else "farmers"
        if after != side:
            bad.append("game %d: the last after %s, the winner's side %s" % (r["game"], after, side))
if i != len(plies):
    bad.append("%d lines for %d plays" % (len(plies), i))
players = {o["player"]: o for o in others if "player" in o}
if set(players) != set(r2 for rec in recs for r2 in who(rec)):
    bad.append("players %s" % sorted(players))
for name, o in players.items():
    if list(o.keys()) != ["player", "positions", "gave", "took", "unknown"]:
        bad.append("summary keys %s" % list(o.keys()))
    if o["positions"] != own.get(name, 0):
        bad.append("%s: %d positions, %d own plays" % (name, o["positions"], own.get(name, 0)))
    if o["took"] != 0:
        bad.append("%s: took %d" % (name, o["took"]))
gave = sum(1 for o in plies if o["witness"] is not None)
total = others[-1]
if total != {"games": len(recs), "plays": len(plies), "unknown": sum(1 for o in plies if "unknown" in (o["before"], o["after"])), "bad_lines": 0}:
    bad.append("totals %s" % total)
if lines and not lines[-1].endswith("\n"):
    bad.append("no newline at the end")
for b in bad[:20]:
    print(b)
print("checked %d games, %d plays, %d wins given away (%d with keeps listed), %d unknown" % (len(recs), len(plies), gave, sum(1 for o in plies if o["keeps"] is not None), total.get("unknown", -1)), file=sys.stderr)
EOF

# check "what" RECORDS ANALYSIS
check() {
    local what=$1 wrong
    wrong=$(python3 "$tmp/check.py" "$DDZ" "$2" "$3" 2>"$tmp/checked") || { no "$what: check.py failed: $wrong"; return; }
    if [ -n "$wrong" ]; then no "$what: $wrong"; else ok; fi
    cat "$tmp/checked"
}

# help and usage
"$DDZ" --help | grep -q 'analyze FILE' && ok || no "ddz --help lists analyze"
"$DDZ" analyze --help | grep -q 'usage: ddz analyze FILE' && ok || no "ddz analyze --help"
"$DDZ" analyze --help | grep -q '"keeps":K,"witness":P}' && ok || no "ddz analyze --help gives the form"

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
expect_fail "no FILE" 2 "FILE" "$DDZ" analyze
expect_fail "two FILEs" 2 "FILE" "$DDZ" analyze a b
expect_fail "unknown option" 2 "unknown option" "$DDZ" analyze --bogus x
expect_fail "a bad --nodes" 2 "--nodes" "$DDZ" analyze x --nodes -1
expect_fail "a bad --budget-ms" 2 "--budget-ms" "$DDZ" analyze x --budget-ms 1s
expect_fail "no budget at all" 2 "give one of them" "$DDZ" analyze x --nodes 0 --budget-ms 0
expect_fail "missing file" 1 "$tmp/nonexistent.jsonl" "$DDZ" analyze "$tmp/nonexistent.jsonl"

# ---- a match log: ai:random against two ai:greedy, every rule set ----
seed=00000000000000000000000000000000000000000000000000000000000000a1
for rules in caai botzone-ftl botzone-ftl2; do
    games=$((36 / scale))
    [ "$rules" = caai ] || games=$((12 / scale))
    [ $games -ge 6 ] || games=6
    log=$tmp/$rules.jsonl
    if ! "$DDZ" match --seat A=ai:random --seat B=ai:greedy --seat C=ai:greedy --games $games \
        --seed $seed --rules $rules --log "$log" >/dev/null 2>"$tmp/err"; then
        no "$rules: ddz match: $(cat "$tmp/err")"
        continue
    fi
    if ! "$DDZ" analyze "$log" "${budget[@]}" >"$tmp/$rules.out" 2>"$tmp/err"; then
        no "$rules: ddz analyze exits $?: $(cat "$tmp/err")"
        continue
    fi
    [ -s "$tmp/err" ] && no "$rules: wrote on stderr: $(cat "$tmp/err")" || ok
    check "$rules match log" "$log" "$tmp/$rules.out"
done
# the analysis found something to say, and decided many positions (about half)
[ "$scale" -gt 1 ] || grep -q '"keeps":\[\[' "$tmp/caai.out" && ok || no "no play of 36 games gave a win away"
known=$(grep -c '"before":"\(landlord\|farmers\)"' "$tmp/caai.out")
all=$(grep -c '"ply"' "$tmp/caai.out")
[ $((known * 3)) -gt "$all" ] && ok || no "only $known of $all positions decided"

# a node budget alone gives the same output every time
"$DDZ" analyze "$tmp/caai.jsonl" "${budget[@]}" >"$tmp/again.out" 2>&1
cmp -s "$tmp/caai.out" "$tmp/again.out" && ok || no "two runs differ"
# a tight budget: a play that gave a win away names a play that would have
# kept it (the one that proved the position won), also where listing them
# all ran out of budget
if "$DDZ" analyze "$tmp/caai.jsonl" --nodes 2000 --budget-ms 0 >"$tmp/tight.out" 2>"$tmp/err"; then
    check "a tight budget" "$tmp/caai.jsonl" "$tmp/tight.out"
    [ "$scale" -gt 1 ] || grep -q '"keeps":null,"witness":\[' "$tmp/tight.out" && ok ||
        no "a tight budget: no win given away whose keeps ran out of budget"
else
    no "a tight budget: $(cat "$tmp/err")"
fi
# a record analysed alone gives the lines it gave in the file
sed -n 5p "$tmp/caai.jsonl" >"$tmp/one.jsonl"
game=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read())["game"])' "$tmp/one.jsonl")
"$DDZ" analyze "$tmp/one.jsonl" "${budget[@]}" | grep '"ply"' >"$tmp/one.out"
grep "^{\"game\":$game,\"ply\"" "$tmp/caai.out" | cmp -s - "$tmp/one.out" && ok ||
    no "game $game alone differs from game $game in the file"
# standard input, and a clock budget alone
"$DDZ" analyze - --budget-ms 20 --nodes 0 <"$tmp/one.jsonl" >"$tmp/clock.out" 2>"$tmp/err" &&
    [ ! -s "$tmp/err" ] && ok || no "stdin, --budget-ms 20: $(cat "$tmp/err")"
check "a clock budget" "$tmp/one.jsonl" "$tmp/clock.out"

# ---- --scores: the best score each side can force, and what each play cost ----
# check_scores.py RECORDS ANALYSIS: the verdict lines as without --scores
# plus "forced" and "cost"; a play's cost is its side's forced score before
# it minus the next play's (the game's own scores after the last play);
# costs are never negative; under the zero-sum rule sets each farmer's
# forced score is minus half the landlord's, and its sign is the verdict;
# the players' lines add up.
cat >"$tmp/check_scores.py" <<'EOF2'
import json, sys
records, analysis = sys.argv[1], sys.argv[2]
recs = {r["game"]: r for r in (json.loads(l) for l in open(records) if l.strip())}
out = [json.loads(l) for l in open(analysis)]
plies = [o for o in out if "ply" in o]
bad = []
by_game = {}
for o in plies:
    by_game.setdefault(o["game"], []).append(o)
    if list(o.keys()) != ["game", "ply", "seat", "before", "after", "keeps", "witness", "forced", "cost"]:
        bad.append("keys %s" % list(o.keys()))
scored = costly = 0
cost = {}
for g, lines in by_game.items():
    r = recs[g]
    ll, rules = r["landlord"], r.get("rules", "caai")
    zero_sum = rules != "botzone-ftl"
    for k, o in enumerate(lines):
        f = o["forced"]
        if f is not None and zero_sum:
            if abs(f["farmer"] + f["landlord"] / 2) > 1e-9:
                bad.append("game %d ply %d: farmer %s, landlord %s" % (g, k, f["farmer"], f["landlord"]))
            if o["before"] != "unknown" and (f["landlord"] > 0) != (o["before"] == "landlord"):
                bad.append("game %d ply %d: forced %s, verdict %s" % (g, k, f, o["before"]))
        if k + 1 < len(lines):
            nxt = lines[k + 1]["forced"]
        else:
            s = r["scores"]
            nxt = {"landlord": s[ll], "farmer": s[(ll + 1) % 3]} if r["winner"] is not None else None
        side = "landlord" if o["seat"] == ll else "farmer"
        if f is None or nxt is None:
            if o["cost"] is not None:
                bad.append("game %d ply %d: a cost without both scores" % (g, k))
            continue
        want = f[side] - nxt[side]
        if o["cost"] is None or abs(o["cost"] - want) > 1e-6:
            bad.append("game %d ply %d: cost %s, want %s" % (g, k, o["cost"], want))
        elif o["cost"] < 0:
            bad.append("game %d ply %d: negative cost %s" % (g, k, o["cost"]))
        p = r["plays"][o["ply"]]
        if not p.get("auto"):
            name = r["names"][o["seat"]]
            c = cost.setdefault(name, [0, 0, 0.0])
            c[0] += 1
            c[1] += o["cost"] > 0
            c[2] += o["cost"]
for o in out:
    if "player" in o:
        c = cost.get(o["player"], [0, 0, 0.0])
        if (o["scored"], o["costly"]) != (c[0], c[1]) or abs(o["cost"] - c[2]) > 1e-6:
            bad.append("%s: scored/costly/cost %s %s %s, lines say %s" % (o["player"], o["scored"], o["costly"], o["cost"], c))
for b in bad[:20]:
    print(b)
known = sum(1 for o in plies if o["forced"] is not None)
print("%d plays, %d with forced scores, %d costly" % (len(plies), known, sum(c[1] for c in cost.values())), file=sys.stderr)
EOF2
for rules in caai botzone-ftl botzone-ftl2; do
    if ! "$DDZ" analyze "$tmp/$rules.jsonl" "${budget[@]}" --scores >"$tmp/$rules.scores" 2>"$tmp/err"; then
        no "$rules --scores: exit $?: $(cat "$tmp/err")"
        continue
    fi
    wrong=$(python3 "$tmp/check_scores.py" "$tmp/$rules.jsonl" "$tmp/$rules.scores" 2>"$tmp/checked") ||
        wrong="check_scores.py failed: $wrong"
    [ -z "$wrong" ] && ok || no "$rules --scores: $wrong"
    cat "$tmp/checked"
    # the verdicts are those of the run without --scores
    diff <(grep '"ply"' "$tmp/$rules.out" | sed 's/}$//') \
        <(grep '"ply"' "$tmp/$rules.scores" | sed 's/,"forced":.*$//') >/dev/null && ok ||
        no "$rules --scores: the verdicts differ from the run without it"
done
# something to say: scores found for a good part of the plays (most of the
# endgames), and some play that cost points
known=$(grep -c '"forced":{' "$tmp/caai.scores")
all=$(grep -c '"ply"' "$tmp/caai.scores")
[ $((known * 5)) -gt "$all" ] && ok || no "--scores: forced scores for only $known of $all plays"
[ "$scale" -gt 1 ] || grep -q '"cost":[1-9]' "$tmp/caai.scores" && ok || no "--scores: no play of 36 games cost points"

# ---- tournament records (DIR/games.jsonl) ----
printf 'a=ai:random\nb=ai:greedy\nc=ai:greedy\n' >"$tmp/players"
if "$DDZ" tournament --players "$tmp/players" --dir "$tmp/t" --format swiss --turns 1 --games 6 \
    --seed $seed >/dev/null 2>"$tmp/err"; then
    "$DDZ" analyze "$tmp/t/games.jsonl" "${budget[@]}" >"$tmp/t.out" 2>"$tmp/err" && ok ||
        no "tournament records: $(cat "$tmp/err")"
    check "tournament records" "$tmp/t/games.jsonl" "$tmp/t.out"
    # the summary names the tournament's players by id (b and c share a name)
    for id in a b c; do
        grep -q "^{\"player\":\"$id\"," "$tmp/t.out" && ok || no "tournament: no summary line for player $id"
    done
else
    no "ddz tournament: $(cat "$tmp/err")"
fi

# ---- ddz bench analyze: its rows, on a small budget ----
if "$DDZ" bench analyze --deals 3 --budget-ms 30 --blunder-nodes 2000 --rules caai --scores \
    --rollouts 10 >"$tmp/bench.out" 2>"$tmp/err"; then
    ok
    # part one: who wins and the scores, from three kinds of position each;
    # shares within 0..100%, solved no more than searched
    rows=$(awk '$1 == "caai" && ($2 == "win" || $2 == "score")' "$tmp/bench.out")
    [ "$(wc -l <<<"$rows")" -eq 6 ] && ok || no "bench analyze: part one rows: $rows"
    # (a kind's name is two words: positions are the 5th field)
    awk '{ if ($6 > $5 || $7 + 0 > 100 || $5 + 0 < 1) bad = 1 } END { exit bad }' <<<"$rows" && ok ||
        no "bench analyze: a part one row does not add up: $rows"
    # part two: three AIs, three roles each; gave never above won
    rows=$(awk '$1 == "caai" && $2 ~ /^ai:/' "$tmp/bench.out")
    [ "$(wc -l <<<"$rows")" -eq 9 ] && ok || no "bench analyze: part two rows: $rows"
    awk '{ n = NF; if ($(n - 2) > $(n - 3) || $(n - 3) > $(n - 4)) bad = 1 } END { exit bad }' <<<"$rows" &&
        ok || no "bench analyze: a part two row does not add up: $rows"
    grep -q '^peak resident memory: [0-9.]* MB$' "$tmp/bench.out" && ok || no "bench analyze: no memory line"
else
    no "bench analyze: $(cat "$tmp/err")"
fi
"$DDZ" bench analyze --no-reach --ais none >"$tmp/bench.out" 2>&1 && ! grep -q '^caai' "$tmp/bench.out" &&
    ok || no "bench analyze --no-reach --ais none: $(cat "$tmp/bench.out")"
expect_fail "bench analyze: two rotations" 2 "--rotations must be 1 or 3" \
    "$DDZ" bench analyze --rotations 2

# ---- bad lines: each named on stderr, the others still analysed ----
{
    sed -n 1p "$tmp/caai.jsonl"
    echo '{"game":1,,}'
    sed -n 2p "$tmp/caai.jsonl" | sed 's/"scores":\[[^,]*,/"scores":[12345,/'
    echo
    echo '[1,2]'
    sed -n 3p "$tmp/caai.jsonl"
} >"$tmp/bad.jsonl"
"$DDZ" analyze "$tmp/bad.jsonl" "${budget[@]}" >"$tmp/bad.out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok || no "bad lines: exit $rc, want 1"
[ "$(wc -l <"$tmp/err")" -eq 3 ] && ok || no "bad lines: stderr: $(cat "$tmp/err")"
grep -q '^ddz analyze: line 2: invalid JSON' "$tmp/err" && ok || no "line 2 not named: $(cat "$tmp/err")"
grep -q '^ddz analyze: line 3 (game 1): scores\[0\]: 12345, should be' "$tmp/err" && ok ||
    no "line 3 not named: $(cat "$tmp/err")"
grep -q '^ddz analyze: line 5: record: expected an object' "$tmp/err" && ok ||
    no "line 5 not named: $(cat "$tmp/err")"
want=$(grep -c '"ply"' <(grep '^{"game":[02],"ply"' "$tmp/caai.out"))
got=$(grep -c '^{"game":[02],"ply"' "$tmp/bad.out")
[ "$got" -eq "$want" ] && [ "$(grep -c '"ply"' "$tmp/bad.out")" -eq "$want" ] && ok ||
    no "bad lines: $got lines of games 0 and 2, want $want and no others"
tail -1 "$tmp/bad.out" | grep -q '"games":2,.*"bad_lines":3}$' && ok ||
    no "bad lines: totals $(tail -1 "$tmp/bad.out")"

echo "test_cli_analyze: $passes passed, $fails failed"
[ $fails -eq 0 ]
