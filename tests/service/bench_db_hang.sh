#!/bin/bash
# bench_db_hang.sh DDZ [TABLES] [HANG_S] [RATE] - the hung-database run of
# issue 37 (docs/cluster.md, "PostgreSQL"): `ddz serve` on a PostgreSQL server of its
# own (tests/pg/pg.sh), TABLES tables of `ddz loadtest` playing, then every
# process of that PostgreSQL stopped with SIGSTOP for HANG_S seconds (it
# accepts TCP and answers nothing: a frozen primary, a full disk).
#
#   1. during the hang: GET /api/games/ID of a game finished before it (the
#      database is asked: its time and status), the games seen finished (an
#      `over` reached their table: loadtest --overs);
#   2. the server is killed (SIGKILL) at the end of the hang, PostgreSQL is
#      let go (SIGCONT), the server started again: how many of the games
#      seen finished answer 200 (the rest are lost);
#   3. the hang again with games playing: SIGTERM, and the time to exit.
#
# Prints one line per figure and the machine's load before the run (other
# work on the same cores moves the times). CLIENT is the `ddz` that runs
# the load test (DDZ by default; it needs `loadtest --overs`): one client
# for a before-and-after comparison of two servers. A server without
# --db-timeout (before issue 37) runs with its defaults.
set -u
DDZ=${1:?usage: bench_db_hang.sh DDZ [TABLES] [HANG_S] [RATE]}
TABLES=${2:-8}
HANG=${3:-10}
RATE=${4:-100}
CLIENT=${CLIENT:-$DDZ}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/ddz-dbhang-XXXXXX)
chmod 755 "$dir"
server=
lt=
pm=
cleanup() {
    [ -n "$pm" ] && kill -CONT $pm $(pgrep -P "$pm") 2>/dev/null
    [ -n "$server" ] && kill -9 "$server" 2>/dev/null
    [ -n "$lt" ] && kill "$lt" 2>/dev/null
    wait 2>/dev/null
    bash "$here/../pg/pg.sh" stop "$dir/pg" >/dev/null 2>&1
    rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | awk '{printf "%.2f", $1}'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

bash "$here/../pg/pg.sh" start "$dir/pg" >/dev/null || exit 1
url=$(cat "$dir/pg/url")
pm=$(head -1 "$(cat "$dir/pg/data")/pgdata/postmaster.pid")
pg_stop() { kill -STOP "$pm" $(pgrep -P "$pm"); }
pg_cont() { kill -CONT "$pm" $(pgrep -P "$pm"); }

port=$(free_port)
extra=()
"$DDZ" serve --help 2>&1 | grep -q -- --db-timeout && extra=(--db-timeout "${DB_TIMEOUT:-3000}")
serve() {
    "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$url" --db-journal "$dir/journal.db" \
        --ai-delay-ms 0 "${extra[@]}" 2>>"$dir/serve.log" >/dev/null &
    server=$!
    for _ in $(seq 200); do
        curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return 0
        sleep 0.05
    done
    echo "the server did not start:" >&2
    tail -5 "$dir/serve.log" >&2
    exit 1
}
metric() { curl -s "http://127.0.0.1:$port/metrics" | sed -n "s/^$1 //p"; }
lines() { wc -l <"$dir/overs" 2>/dev/null || echo 0; }
status_of() { # ID KEY -> the HTTP status of its page
    local path=/api/games/$1
    [ "$2" != - ] && path=$path-$2
    curl -s -o /dev/null --max-time 60 -w '%{http_code}' "http://127.0.0.1:$port$path"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores); $TABLES tables, hang $HANG s," \
    "server $DDZ ${extra[*]}"
serve
: >"$dir/overs"
"$CLIENT" loadtest --url "ws://127.0.0.1:$port/ws" --tables "$TABLES" --rate "$RATE" \
    --seconds $((HANG + 30)) --overs "$dir/overs" >"$dir/lt1.out" 2>&1 &
lt=$!
for _ in $(seq 400); do [ "$(lines)" -ge 3 ] && break; sleep 0.05; done
sleep 2
before=$(lines)
read -r id0 key0 < <(head -1 "$dir/overs")

# 1. the hang (the page read in the background: a server without bounds
# answers it only once the database does)
pg_stop
t_hang=$(now)
(
    t0=$(now)
    st=$(status_of "$id0" "$key0")
    echo "$st $(since "$t0")" >"$dir/get"
) &
get=$!
left=$(echo "$HANG - ($(now) - $t_hang) - 0.3" | bc)
[ "$(echo "$left > 0" | bc)" = 1 ] && sleep "$left"
seen=$(lines)
during=$((seen - before))

# 2. killed at the end of the hang, started again with the database back
{
    kill -9 "$server"
    wait "$server"
} 2>/dev/null # no word of the shell's about the kill
wait "$get"
read -r st took <"$dir/get"
if [ "$st" = 000 ]; then
    echo "GET /api/games/$id0 during the hang: no answer in the $HANG s before the kill"
else
    echo "GET /api/games/$id0 during the hang: $st after $took s"
fi
kill "$lt" 2>/dev/null
wait "$lt" 2>/dev/null
lt=
sleep 0.2
seen=$(lines)
pg_cont
echo "games seen finished: $seen ($during of them during the $HANG s hang; an over reached" \
    "their table), then SIGKILL, SIGCONT, restart"
serve
t0=$(now)
for _ in $(seq 600); do [ "$(metric ddz_db_journal_pending)" = 0 ] && break; sleep 0.05; done
echo "journal replayed $(since "$t0") s after the restart (pending $(metric ddz_db_journal_pending))"
found=0
lost=()
while read -r id key; do
    if [ "$(status_of "$id" "$key")" = 200 ]; then
        found=$((found + 1))
    else
        lost+=("$id")
    fi
done <"$dir/overs"
echo "games found after SIGKILL and restart: $found of $seen${lost[0]:+ (lost: ${lost[*]:0:10}...)}"

# 3. SIGTERM during a hang, games playing
"$CLIENT" loadtest --url "ws://127.0.0.1:$port/ws" --tables "$TABLES" --rate "$RATE" \
    --seconds 30 >"$dir/lt2.out" 2>&1 &
lt=$!
n0=$(lines)
sleep 3
pg_stop
sleep 2
t0=$(now)
kill -TERM "$server"
# the hang goes on for HANG s at most, then the database answers again
for _ in $(seq $((HANG * 100))); do kill -0 "$server" 2>/dev/null || break; sleep 0.01; done
if kill -0 "$server" 2>/dev/null; then
    pg_cont
    for _ in $(seq 6000); do kill -0 "$server" 2>/dev/null || break; sleep 0.01; done
    echo "SIGTERM 2 s into a hang: the server exited after $(since "$t0") s, once the database" \
        "answered again ($HANG s)"
else
    echo "SIGTERM 2 s into a hang: the server exited after $(since "$t0") s"
    pg_cont
fi
wait "$server" 2>/dev/null
server=
kill "$lt" 2>/dev/null
wait "$lt" 2>/dev/null
lt=
echo "its log: $(grep -c 'not answering' "$dir/serve.log") 'not answering', $(grep -c 'replaying the journal' \
    "$dir/serve.log") 'replaying', $(grep -c 'journal replayed' "$dir/serve.log") 'replayed' lines"
