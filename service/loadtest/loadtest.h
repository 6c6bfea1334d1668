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
 *
 * Faults, for the soak test (each at a total rate per second, during the
 * window only; 0 turns it off):
 *  - reconnects: a seated client drops its connection (half the time with a
 *    close frame, like a reload; half the time by shutting the socket, like
 *    a lost network), then connects again after 0.2..1 s and resumes with
 *    its `welcome` token; it must come back to its seat.
 *  - bad frames: a client sends one malformed, illegal or oversized frame
 *    (not JSON, no type, unknown type, wrong field types, a card out of
 *    range, a stale action, a card it does not hold, deep nesting, over
 *    16 KiB, binary, invalid UTF-8); the server must answer each as
 *    proto/PROTOCOL.md says (the error code, and for the last three the
 *    close code) and play on. A client has one bad frame out at a time.
 *  - engine tables: tables of one client and two `engine:NAME` seats (the
 *    server's --engine), and kills: a random engine process of the server
 *    (a child of `pid`) gets SIGKILL; the server must charge the fault and
 *    start the engine again for the next game. A client's action that a
 *    game ended by such a fault overtook is answered ESTALE (or EPHASE
 *    before the next game began), as it should be (counted as
 *    `overtaken`); one not yet written is dropped. So is a bad play aimed
 *    at such a turn.
 *  - sign-ins: a flood of failed sign-ins from many loopback addresses
 *    (signin_flood.h), during the window only.
 * The server's VmRSS and open descriptors are read at the start and end of
 * the window, every `sample_seconds` in between, and its descriptors also
 * before the first connection and after the last one closed.
 */
#ifndef DDZ_LOADTEST_H
#define DDZ_LOADTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "service/loadtest/signin_flood.h"

typedef struct ddz_loadtest_cfg {
    const char *url;       /* ws://HOST:PORT/ws */
    int tables;            /* tables of three connections */
    double seconds;        /* length of the measured window */
    double rate;           /* total actions per second, 0 = as fast as allowed */
    double client_rate;    /* most actions per second one connection sends (default 10) */
    double setup_seconds;  /* bound on connecting and seating (default 10 + tables / 50) */
    int pid;               /* server pid for VmRSS, 0 = none */
    uint64_t seed;         /* random plays */
    bool insecure;         /* wss: accept self-signed certificates */
    double reconnect_rate; /* dropped and resumed connections per second */
    double bad_rate;       /* bad frames per second */
    const char *engine;    /* engine name for engine tables */
    int engine_tables;     /* tables of one client and two engine seats */
    double kill_rate;      /* engine processes killed per second (needs pid) */
    double sample_seconds; /* server RSS and fds sampled this often, 0 = no */
    /* Each finished game's "ID KEY" (KEY "-" if none), one line as its
     * `over` reaches its table's first client, flushed at once (what the
     * clients were told, for a check that none is lost); NULL = none. */
    FILE *overs;
    /* A flood of failed sign-ins during the window (signin_flood.h), at
     * this many a second (0 = none), over this many connections at once
     * and loopback source addresses. */
    double signin_rate;
    int signin_threads;
    int signin_addrs;
} ddz_loadtest_cfg;

enum { DDZ_LOADTEST_MAX_SAMPLES = 256, DDZ_LOADTEST_BAD_KINDS = 12 };

typedef struct ddz_loadtest_sample {
    double t;    /* seconds into the window */
    long rss_kb; /* server VmRSS */
    long fds;    /* server's open descriptors */
} ddz_loadtest_sample;

typedef struct ddz_loadtest_result {
    int tables;        /* tables asked for */
    int engine_tables; /* ... and tables of one client and two engines */
    int tables_seated; /* tables (of both kinds) whose clients were seated when the window opened */
    int connections;   /* handshakes completed, reconnections included */
    long actions;      /* actions written during the window */
    double actions_per_s;
    long samples;              /* latencies measured (actions seen by all three clients) */
    long cut_samples;          /* actions not measured: in flight while a client of their
                                  table was away (its reconnection is the test's own delay) */
    double p50, p90, p99, max; /* latency, milliseconds */
    struct {
        double ms;              /* the slowest sample (= max) */
        int table;              /* its table */
        double at_s;            /* when its action was written, seconds into the window */
        double fault_before_ms; /* the table's latest fault before that, ms; -1 = none */
        char fault[24]; /* which ("a client dropped", "a bad frame", "a client reconnected") */
    } slowest;
    long games;                    /* games finished during the window */
    long errors;                   /* error frames, failed or dropped connections */
    char first_error[160];         /* the first one, for the report */
    long rss_kb_start, rss_kb_end; /* server VmRSS as the window opens and ends, -1 if unknown */
    double setup_s;                /* time to connect and seat */
    double window_s;               /* measured window actually run */
    double rate;                   /* target rate, 0 = unpaced */
    double client_cpu_s;           /* CPU time this process used in the window */
    bool epoll;                    /* the client loop ran on libev/epoll, else lws's poll() */
    /* faults (the soak test) */
    long drops;        /* connections dropped on purpose */
    long reconnects;   /* reconnections after a drop or a close the protocol calls for */
    long resumed;      /* ... that came back to their seat */
    long bad_sent;     /* bad frames written */
    long bad_answered; /* ... answered as the protocol says */
    long bad_kind_sent[DDZ_LOADTEST_BAD_KINDS], bad_kind_answered[DDZ_LOADTEST_BAD_KINDS];
    long kills;         /* engine processes killed */
    long engine_faults; /* games that ended with a fault charged to an engine */
    long overtaken;     /* actions answered ESTALE because such a game ended under them */
    long fds_before, fds_start, fds_end, fds_after; /* server descriptors, -1 if unknown */
    long children_end; /* server's child processes at the end of the window */
    int nsamples;
    ddz_loadtest_sample sample[DDZ_LOADTEST_MAX_SAMPLES];
    bool signin;                     /* a sign-in flood ran in the window */
    ddz_signin_flood_result signins; /* ... and how the server answered it */
} ddz_loadtest_result;

/* Raises RLIMIT_NOFILE to its hard limit, runs the load test and fills
 * *out. Returns 0, or 2 on bad configuration (bad URL, no tables, engine
 * tables without an engine, kills or samples without a pid: one line on
 * stderr), 1 if the event loop cannot be created. Connection failures and
 * answers other than the protocol's are not a failure of the run: they
 * are counted in out->errors. */
int ddz_loadtest_run(const ddz_loadtest_cfg *cfg, ddz_loadtest_result *out);

/* Prints `r` as a readable report, or with `json` as one JSON object on one
 * line: tables, connections, actions, actions_per_s, latency_ms {p50, p90,
 * p99, max}, games, errors, rss_kb_start, rss_kb_end (null if unknown), and
 * samples, seconds, setup_s, rate, tables_seated, client_cpu_s,
 * first_error, client_loop, engine_tables, faults {overtaken, drops, reconnects, resumed, bad_sent,
 * bad_answered, kills, engine_faults}, bad_frames {kind: [sent, answered]},
 * fds {before, start, end, after} and children_end (null if unknown), and
 * series [[t, rss_kb, fds], ...], and with a flood, sign_ins {sent, per_s,
 * ok, refused, limited, busy, other, failed, latency_ms {p50, p99, max},
 * hashed_p50_ms}. */
void ddz_loadtest_print(const ddz_loadtest_result *r, bool json, FILE *f);

#endif
