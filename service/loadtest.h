/* loadtest.h - `ddz loadtest`: many WebSocket clients playing at once
 * against a `ddz serve`, measuring throughput and action latency.
 *
 * One libwebsockets event loop opens 3 x tables connections. The first
 * client of each table `create`s a private room {games: 100, pause: 0,
 * time: 60} and the other two `join` it by id; every client answers its own
 * `turn` at once (seat 0 bids the highest legal value, the others 0; plays
 * are uniformly random among `legal`), optionally paced to a total action
 * rate, and never faster than `client_rate` per connection (the server
 * drops frames above its per-client rate, 20/s by default). After a turn
 * the clients ask for a rematch; at the end each client `leave`s, so the
 * server can close the rooms.
 *
 * Latency of an action: from the moment its client WRITES it to the moment
 * the matching broadcast (`bid_made` or `played` of that seat, for that
 * turn's seq) has been RECEIVED by all three clients of the table.
 *
 * Traffic goes only to the given URL. The run is bounded: a setup phase
 * (connect and seat everyone, at most `setup_seconds`), the measured window
 * of `seconds`, one second of drain for actions still in flight.
 */
#ifndef DDZ_LOADTEST_H
#define DDZ_LOADTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ddz_loadtest_cfg {
    const char *url;      /* ws://HOST:PORT/ws */
    int tables;           /* tables of three connections */
    double seconds;       /* length of the measured window */
    double rate;          /* total actions per second, 0 = as fast as allowed */
    double client_rate;   /* most actions per second one connection sends (default 10) */
    double setup_seconds; /* bound on connecting and seating (default 10 + tables / 50) */
    int pid;              /* server pid for VmRSS, 0 = none */
    uint64_t seed;        /* random plays */
    bool insecure;        /* wss: accept self-signed certificates */
} ddz_loadtest_cfg;

typedef struct ddz_loadtest_result {
    int tables;        /* tables asked for */
    int tables_seated; /* tables whose three clients were seated when the window opened */
    int connections;   /* connections that completed the WebSocket handshake */
    long actions;      /* actions written during the window */
    double actions_per_s;
    long samples;                  /* latencies measured (actions seen by all three clients) */
    double p50, p90, p99, max;     /* latency, milliseconds */
    long games;                    /* games finished during the window */
    long errors;                   /* error frames, failed or dropped connections */
    char first_error[160];         /* the first one, for the report */
    long rss_kb_start, rss_kb_end; /* server VmRSS, -1 if unknown */
    double setup_s;                /* time to connect and seat */
    double window_s;               /* measured window actually run */
    double rate;                   /* target rate, 0 = unpaced */
    double client_cpu_s;           /* CPU time this process used in the window */
    bool epoll;                    /* the client loop ran on libev/epoll, else lws's poll() */
} ddz_loadtest_result;

/* Raises RLIMIT_NOFILE to its hard limit, runs the load test and fills
 * *out. Returns 0, or 2 on bad configuration (bad URL, no tables: one line
 * on stderr), 1 if the event loop cannot be created. Connection failures
 * are not a failure of the run: they are counted in out->errors. */
int ddz_loadtest_run(const ddz_loadtest_cfg *cfg, ddz_loadtest_result *out);

/* Prints `r` as a readable report, or with `json` as one JSON object on one
 * line: tables, connections, actions, actions_per_s, latency_ms {p50, p90,
 * p99, max}, games, errors, rss_kb_start, rss_kb_end (null if unknown), and
 * samples, seconds, setup_s, rate, tables_seated, client_cpu_s,
 * first_error. */
void ddz_loadtest_print(const ddz_loadtest_result *r, bool json, FILE *f);

#endif
