#!/usr/bin/env bash
# test_cli_store.sh - `ddz token add|list|revoke` and `ddz export` through the
# binary. (Exporting real games is tested in test_store.c, which fills a
# database in-process and runs `ddz export` and `ddz verify` on it.)
# Usage: test_cli_store.sh PATH-TO-DDZ
set -u
DDZ=$1
fails=0 passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset DDZ_DB

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

# expect_out "description" "expected stdout" command... (exit 0, silent stderr)
expect_out() {
    local what=$1 want=$2; shift 2
    local got rc
    got=$("$@" 2>"$tmp/err"); rc=$?
    if [ $rc -ne 0 ]; then no "$what: exit $rc: $(cat "$tmp/err")"; return; fi
    if [ "$got" != "$want" ]; then no "$what: got '$got' want '$want'"; return; fi
    if [ -s "$tmp/err" ]; then no "$what: wrote on stderr: $(cat "$tmp/err")"; return; fi
    ok
}

# help and usage
"$DDZ" --help | grep -q 'token add NAME' && ok || no "ddz --help lists token"
"$DDZ" --help | grep -q 'export \[--db PATH\]' && ok || no "ddz --help lists export"
"$DDZ" token --help | grep -q 'usage: ddz token add NAME' && ok || no "ddz token --help"
"$DDZ" token add --help | grep -q 'DDZ_DB' && ok || no "ddz token add --help names DDZ_DB"
"$DDZ" export --help | grep -q 'usage: ddz export' && ok || no "ddz export --help"
"$DDZ" export --help | grep -q -- '--all' && ok || no "ddz export --help explains --all"
expect_fail "no subcommand" 2 "add, list or revoke" "$DDZ" token
expect_fail "unknown subcommand" 2 "unknown subcommand" "$DDZ" token frobnicate
expect_fail "add without NAME" 2 "NAME is required" "$DDZ" token add
expect_fail "revoke without NAME" 2 "NAME is required" "$DDZ" token revoke
expect_fail "list with NAME" 2 "takes no NAME" "$DDZ" token list bob
expect_fail "too many arguments" 2 "too many" "$DDZ" token add a b
expect_fail "unknown option" 2 "unknown option" "$DDZ" token list --bogus
expect_fail "--db without PATH" 2 "--db needs a PATH" "$DDZ" token list --db
expect_fail "empty NAME" 2 "NAME must be" "$DDZ" token add ''
expect_fail "NAME too long" 2 "NAME must be" "$DDZ" token add "$(printf 'x%.0s' {1..64})"
expect_fail "NAME with a newline" 2 "NAME must be" "$DDZ" token add "$(printf 'a\nb')"
# the bot is shown under its token's name: a display name's rules (hello's)
expect_fail "NAME one of the server's own" 2 "NAME must be a display name: names like this are the server's own" \
    "$DDZ" token add ai:strong
expect_fail "NAME of another seat kind" 2 "the server's own" "$DDZ" token add 'Engine:x'
expect_fail "NAME with U+202E" 2 "U+202E is a bidirectional control" \
    "$DDZ" token add "$(printf 'bot\xe2\x80\xaeevil')"
expect_fail "NAME with a zero-width space" 2 "U+200B" "$DDZ" token add "$(printf 'a\xe2\x80\x8bb')"
expect_fail "NAME of 33 characters" 2 "at most 32 characters" "$DDZ" token add "$(printf 'x%.0s' {1..33})"
expect_fail "NAME with a space at its end" 2 "U+0020" "$DDZ" token add 'bob '
expect_fail "NAME not UTF-8" 2 "not valid UTF-8" "$DDZ" token add "$(printf 'a\xffb')"
[ ! -e ddz.db ] && ok || no "a refused NAME created ddz.db"
expect_fail "export: unknown option" 2 "unknown option" "$DDZ" export --bogus
expect_fail "export: argument" 2 "unexpected argument" "$DDZ" export foo
expect_fail "export: -o without FILE" 2 "-o needs a FILE" "$DDZ" export -o

# list, revoke and export need an existing database; nothing is created
expect_fail "list: no database" 1 "ddz.db: no such database" "$DDZ" token list
expect_fail "revoke: no database" 1 "no such database" "$DDZ" token revoke bob
expect_fail "export: no database" 1 "ddz.db: no such database" "$DDZ" export
[ ! -e ddz.db ] && ok || no "a read command created ddz.db"

# add: the token once on stdout, a one-line note on stderr
tok=$("$DDZ" token add alice 2>"$tmp/note"); rc=$?
[ $rc -eq 0 ] && ok || no "token add: exit $rc: $(cat "$tmp/note")"
[[ $tok =~ ^[0-9a-f]{64}$ ]] && ok || no "token add printed '$tok'"
[ "$(wc -l <"$tmp/note")" -eq 1 ] && grep -q 'cannot be shown again' "$tmp/note" && ok ||
    no "token add note: $(cat "$tmp/note")"
[ -e ddz.db ] && ok || no "token add creates ddz.db in the working directory"
grep -qF "$tok" ddz.db* && no "the token text is in the database" || ok
expect_fail "add: name taken" 1 "'alice' already has an active token" "$DDZ" token add alice
"$DDZ" token add 'bob the bot' >/dev/null 2>&1 && ok || no "token add 'bob the bot'"

# list: name, ISO 8601 UTC time, state; tab-separated, by name
listing=$("$DDZ" token list 2>"$tmp/err")
[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && ok || no "token list: $(cat "$tmp/err")"
[ "$(wc -l <<<"$listing")" -eq 2 ] && ok || no "token list: '$listing'"
today=$(date -u +%Y-%m-%d)
[[ $(sed -n 1p <<<"$listing") =~ ^alice$'\t'${today}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'\t'active$ ]] &&
    ok || no "token list line 1: '$(sed -n 1p <<<"$listing")'"
[[ $(sed -n 2p <<<"$listing") =~ ^bob\ the\ bot$'\t'.*$'\t'active$ ]] && ok ||
    no "token list line 2: '$(sed -n 2p <<<"$listing")'"

# revoke
expect_out "revoke alice" "" "$DDZ" token revoke alice
"$DDZ" token list | grep -q "^alice"$'\t'".*"$'\t'"revoked$" && ok || no "alice is listed as revoked"
expect_fail "revoke again" 1 "no active token named 'alice'" "$DDZ" token revoke alice
expect_fail "revoke unknown" 1 "no active token named 'nobody'" "$DDZ" token revoke nobody
expect_fail "control characters stay on one line" 1 "no active token named 'a?b'" \
    "$DDZ" token revoke "$(printf 'a\nb')"
tok2=$("$DDZ" token add alice 2>/dev/null)
[[ $tok2 =~ ^[0-9a-f]{64}$ && $tok2 != "$tok" ]] && ok || no "a revoked name gets a new token"
"$DDZ" token list | grep -q "^alice"$'\t'".*"$'\t'"active$" && ok || no "alice is active again"

# --db and DDZ_DB
mkdir sub
"$DDZ" token add carol --db sub/other.db >/dev/null 2>&1 && ok || no "token add --db"
expect_out "list --db" "carol" sh -c "\"$DDZ\" token list --db sub/other.db | cut -f1"
expect_out "DDZ_DB" "carol" sh -c "DDZ_DB=sub/other.db \"$DDZ\" token list | cut -f1"
expect_out "--db beats DDZ_DB" "alice
bob the bot" sh -c "DDZ_DB=sub/other.db \"$DDZ\" token list --db ddz.db | cut -f1"
expect_fail "unwritable location" 1 "nowhere/x.db: unable to open database file" \
    "$DDZ" token add dave --db "$tmp/nowhere/x.db"
printf 'not a database at all, not at all, no\n%.0s' {1..50} >junk.db
expect_fail "not a database" 1 "junk.db: file is not a database" "$DDZ" token list --db junk.db

# a token stored before names followed the display-name rules (here written
# by hand): listed with what is wrong with it, refused by the server
# (test_store.c), and revoked as any other
"$DDZ" token add zed --db refused.db >/dev/null 2>&1 && ok || no "token add --db refused.db"
python3 - <<'PY' || no "could not store a token under a refused name"
import os, sqlite3
db = sqlite3.connect("refused.db")
db.execute("INSERT INTO tokens(name, hash, created_at) VALUES (?, ?, 0)",
           ("ai:strong", os.urandom(32)))
db.commit()
PY
line=$("$DDZ" token list --db refused.db 2>"$tmp/err" | grep '^ai:strong')
[[ $line =~ ^ai:strong$'\t'.*$'\t'active$'\t'"refused: names like this are the server's own"$ ]] &&
    ok || no "a stored refused name is listed as such: '$line' $(cat "$tmp/err")"
[[ $("$DDZ" token list --db refused.db | grep '^zed') =~ $'\t'active$ ]] && ok ||
    no "a good name is listed as before"
expect_out "revoke a refused name" "" "$DDZ" token revoke ai:strong --db refused.db
[[ $("$DDZ" token list --db refused.db | grep '^ai:strong') =~ $'\t'revoked$ ]] && ok ||
    no "ai:strong is revoked"

# export of a database without games: nothing, successfully
expect_out "export, no games" "" "$DDZ" export
expect_out "export --all -o FILE" "" "$DDZ" export --all -o games.jsonl
[ -e games.jsonl ] && [ ! -s games.jsonl ] && ok || no "export -o wrote an empty file"
expect_out "exported file verifies" "0 records verified" "$DDZ" verify games.jsonl
expect_fail "export to a bad FILE" 1 "nowhere/g.jsonl" "$DDZ" export -o "$tmp/nowhere/g.jsonl"

# ddz serve --db-queue: the store's write-queue bound, checked before the
# server starts (timeout: should a bad value be taken, serve would run)
"$DDZ" serve --help | grep -q -- '--db-queue N' && ok || no "ddz serve --help lists --db-queue"
"$DDZ" serve --help | grep -q 'DDZ_DB_QUEUE, default 10000' && ok || no "serve --help: DDZ_DB_QUEUE"
expect_fail "serve --db-queue 0" 2 "--db-queue must be 1..1000000" timeout 10 "$DDZ" serve --db-queue 0
expect_fail "serve --db-queue too big" 2 "--db-queue must be" timeout 10 "$DDZ" serve --db-queue 1000001
# an operator engine's NAME names one program: the second of a name is refused
expect_fail "serve --engine twice" 2 "a NAME may be given once" \
    timeout 10 "$DDZ" serve --engine x=cat --engine x=botzone:cat
expect_fail "DDZ_DB_QUEUE not a number" 2 "DDZ_DB_QUEUE must be" \
    env DDZ_DB_QUEUE=lots timeout 10 "$DDZ" serve
# the journal of writes a PostgreSQL database could not take (its bounds)
"$DDZ" serve --help | grep -q -- '--db-journal PATH' && ok || no "serve --help lists --db-journal"
"$DDZ" serve --help | grep -q 'DDZ_DB_JOURNAL_MAX, default 100000' && ok ||
    no "serve --help: DDZ_DB_JOURNAL_MAX"
"$DDZ" serve --help | grep -q 'DDZ_DB_JOURNAL_MB, default 256' && ok ||
    no "serve --help: DDZ_DB_JOURNAL_MB"
expect_fail "serve --db-journal-max 0" 2 "--db-journal-max must be 1..10000000" \
    timeout 10 "$DDZ" serve --db-journal-max 0
expect_fail "serve --db-journal-mb too big" 2 "--db-journal-mb must be 1..1048576" \
    timeout 10 "$DDZ" serve --db-journal-mb 1048577
expect_fail "DDZ_DB_JOURNAL_MAX not a number" 2 "DDZ_DB_JOURNAL_MAX must be" \
    env DDZ_DB_JOURNAL_MAX=lots timeout 10 "$DDZ" serve

echo "test_cli_store: $passes passed, $fails failed"
[ $fails -eq 0 ]
