#!/usr/bin/env bash
# pg.sh - a throwaway PostgreSQL server for the tests that need one.
#
#   pg.sh start DIR   initdb into a new temporary directory, start on a free
#                     loopback port, create the database "ddz" and write its
#                     URL to DIR/url (and the data directory to DIR/data)
#   pg.sh stop DIR    stop that server and remove both directories
#
# ctest runs these as the fixture "pg" (tests/CMakeLists.txt): a test whose
# source mentions DDZ_TEST_PG gets DDZ_TEST_PG=DIR/url in its environment
# and reads the URL from that file. No mocks: Debian's own postgres binaries
# (package postgresql, installed by deploy/deps.sh). initdb refuses to run
# as root, so as root the cluster belongs to the "postgres" system user
# that the package creates.
set -euo pipefail
cmd=${1:?usage: pg.sh start|stop DIR}
dir=${2:?usage: pg.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$bin/initdb" ] || { echo "pg.sh: no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop() {
    local data
    data=$(cat "$dir/data" 2>/dev/null || true)
    if [ -n "$data" ] && [ -f "$data/pgdata/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$data/pgdata" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    [ -n "$data" ] && rm -rf "$data"
    rm -rf "$dir"
}

case "$cmd" in
stop) stop ;;
start)
    stop # a server left behind by an interrupted run
    mkdir -p "$dir"
    # The cluster lives under /tmp, not in the build tree: the "postgres"
    # user may not be allowed into the checkout's directories.
    data=$(mktemp -d /tmp/ddz-pg.XXXXXX)
    echo "$data" >"$dir/data"
    mkdir -p "$data/sock"
    if [ "$(id -u)" = 0 ]; then chown -R postgres: "$data"; fi
    as_owner "$bin/initdb" -D "$data/pgdata" -U ddz --auth=trust -E UTF8 --no-locale >"$data/initdb.log" 2>&1 ||
        { cat "$data/initdb.log" >&2; exit 1; }
    # A free port: ask the kernel for one, then let postgres bind it; a race
    # with another process is retried with another port.
    for attempt in 1 2 3 4 5; do
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        if as_owner "$bin/pg_ctl" -D "$data/pgdata" -l "$data/server.log" -w -t 30 start \
            -o "-p $port -k $data/sock -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
            >/dev/null 2>&1; then
            "$bin/createdb" -h 127.0.0.1 -p "$port" -U ddz ddz
            echo "postgres://ddz@127.0.0.1:$port/ddz" >"$dir/url"
            chmod a+r "$dir/url"
            exit 0
        fi
    done
    cat "$data/server.log" >&2
    exit 1
    ;;
*) echo "usage: pg.sh start|stop DIR" >&2; exit 2 ;;
esac
