# serve_lib.sh - sourced by the shell tests that run a real `ddz serve`:
# start it on a free port, talk HTTP to it, read figures out of JSON.
# Needs $DDZ (the binary) and $tmp (a scratch directory) set by the caller;
# sets $server (pid) and $port. The caller's EXIT trap should call
# stop_server.

server=
port=
# how many times longer than on an idle machine a wait may take (ctest
# sets it for the build: tests/test_clock.h)
slow=${DDZ_TEST_SLOWDOWN:-1}

# GET http://127.0.0.1:$port$1 with bash's /dev/tcp; prints the body.
http_get() {
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
    sed '1,/^\r$/d' <&3
    exec 3<&-
}

# start_server [SERVE-OPTION...]: starts `ddz serve` on a free port with
# its database and log in $tmp; waits (bounded) for /healthz. Returns 1,
# with the log on stdout, if it does not come up. Every load-test client
# comes from 127.0.0.1, so the per-address budgets are raised to the
# connection cap (docs/operations.md, "Budgets").
start_server() {
    local up= attempt
    for attempt in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 30000))
        "$DDZ" serve --port "$port" --bind 127.0.0.1 --db "$tmp/ddz.db" --ai-delay-ms 0 \
            --max-conns 10000 --max-conns-per-ip 10000 --max-rooms-per-ip 10000 "$@" \
            2>>"$tmp/serve.log" &
        server=$!
        for _ in $(seq $((200 * slow))); do # 10 s on an idle machine
            if [ "$(http_get /healthz 2>/dev/null)" = ok ]; then
                up=1
                break
            fi
            kill -0 "$server" 2>/dev/null || break # port taken: try another
            sleep 0.05
        done
        [ -n "$up" ] && return 0
        kill "$server" 2>/dev/null
        wait "$server" 2>/dev/null
        server=
    done
    echo "the server did not start: $(cat "$tmp/serve.log")"
    return 1
}

stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null
        wait "$server" 2>/dev/null
        server=
    fi
}

# field NAME JSON: the number after the first "NAME": (empty if absent or
# not a number)
field() { sed -n "s/.*\"$1\":\(-\?[0-9][0-9.eE+-]*\).*/\1/p" <<<"$2" | head -1; }

# metric NAME: the value of an unlabelled metric at /metrics
metric() { http_get /metrics | sed -n "s/^$1 //p"; }
