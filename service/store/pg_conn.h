/* pg_conn.h - how every part of ddz talks to PostgreSQL: the store's
 * threads (store_pg.c), the cluster's (service/cluster/cluster.c), the
 * lead's (service/cluster/lead.c) and the ladder's work on it
 * (service/ladder/ladder_net.c). One place, so that they all notice a
 * dead network, a stuck peer and a HUNG SERVER the same way:
 *
 *   - every round trip has a bound kept by our side (ddz_pg_exec() and its
 *     halves, ddz_pg_reset(), ddz_pg_connect()): libpq's asynchronous calls
 *     polled on the socket against a deadline. A server that accepts and
 *     never answers (stopped, a full disk, a stuck failover) keeps the
 *     kernel acknowledging, so neither TCP keepalives nor tcp_user_timeout
 *     ever fire; and it would not answer a cancel request either. So past
 *     its deadline a statement is given up by DROPPING the connection (its
 *     socket shut: the server ends the session when it wakes, and what the
 *     statement did is rolled back unless it had committed), and the next
 *     caller reconnects, under its own deadline;
 *   - a stop (ddz_pg_stop) ends every wait of the parts that share it
 *     shortly after it is asked for: a shutdown never waits on a server
 *     that does not answer;
 *   - the client side: a connection attempt gives up after 5 s; an idle
 *     connection is probed after 5 s (then every 2 s, 3 times), and data
 *     unacknowledged for 10 s fails the connection (tcp_user_timeout), so
 *     a vanished server frees a thread in seconds, not TCP's 15 minutes;
 *   - the server side: the backend probes us the same way (tcp_keepalives_*)
 *     and ends a session idle inside a transaction for 15 s, so a node cut
 *     off in the middle of a transaction does not keep its row locks (and
 *     its advisory locks) for the kernel's two hours;
 *   - lock_timeout / statement_timeout as the caller asks, and no NOTICEs;
 *   - what the server still says outside an answer (WARNINGs, the FATAL
 *     of a shutdown or of pg_terminate_backend) goes to stderr as a JSON
 *     log line ({"ts_ms", "level", "msg": "postgres (APP): FATAL: ..."}),
 *     never as libpq's plain text among the server's JSON lines.
 *
 * What the URL says wins over all of these (its keywords come last).
 * Deadlines are CLOCK_MONOTONIC milliseconds (ddz_pg_now_ms()). */
#ifndef DDZ_PG_CONN_H
#define DDZ_PG_CONN_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DDZ_PG_TIMEOUT_MS 3000 /* default bound of a round trip (serve --db-timeout) */
#define DDZ_PG_CONNECT_MS 5000 /* bound of a connection attempt */
/* Once stopping, how long a round trip may still take (from the stop, or
 * from its start if later): a live server answers well within it, so a
 * shutdown still writes what it has; a hung one is given up. */
#define DDZ_PG_STOP_GRACE_MS 1000

/* A stop several threads' waits share: once asked for, none of them waits
 * past DDZ_PG_STOP_GRACE_MS. A value (embed it); `fd` is an eventfd that
 * becomes readable, so a poll() on the socket wakes for it. */
typedef struct ddz_pg_stop {
    int fd;             /* readable once stopping; -1 if none could be made */
    _Atomic int64_t at; /* ddz_pg_now_ms() when stopping was asked for, 0 before */
} ddz_pg_stop;

/* Readies `s` (not stopping). Returns 0, or -1 when no eventfd could be
 * made (then a stop is seen only when a wait ends: still bounded). */
int ddz_pg_stop_init(ddz_pg_stop *s);

/* Asks for the stop: every wait that shares `s` ends within the grace.
 * Idempotent; any thread, also a signal handler (an atomic store and a
 * write(2)). NULL is ignored. */
void ddz_pg_stop_now(ddz_pg_stop *s);

/* Returns whether ddz_pg_stop_now(s) was called. NULL: false. */
bool ddz_pg_stopping(const ddz_pg_stop *s);

/* Closes the eventfd. NULL is ignored. */
void ddz_pg_stop_fini(ddz_pg_stop *s);

/* Returns CLOCK_MONOTONIC in milliseconds: what deadlines are in. */
int64_t ddz_pg_now_ms(void);

/* Opens a session on `url` (postgres:// or postgresql://) named `app`
 * (application_name, seen in pg_stat_activity; `app` must outlive the
 * connection: a string literal). `lock_timeout_ms` bounds
 * how long a statement waits for a lock another session holds, and
 * `statement_timeout_ms` how long any statement runs; 0 = no limit.
 * Returns a connection whose PQstatus() says whether it succeeded
 * (PQerrorMessage() why not; it may be empty when the 5 s ran out), or
 * NULL when out of memory. Blocks for at most the connect timeout (5 s),
 * less if `stop` (NULL: none) is asked for meanwhile. The connection is in
 * libpq's nonblocking mode: use it through the calls below. Its notices,
 * from the first byte read on, go to the JSON log. */
PGconn *ddz_pg_connect(const char *url, const char *app, int lock_timeout_ms,
                       int statement_timeout_ms, const ddz_pg_stop *stop);

/* Returns why `c` (what ddz_pg_connect returned) is not connected, one
 * clear reason: "out of memory" for NULL, a sentence saying so when the
 * 5 s ran out while libpq was still connecting, else libpq's message.
 * Never NULL. */
const char *ddz_pg_connect_error(const PGconn *c);

/* Connects `c` again (a connection that broke, or that a bound dropped),
 * by the deadline `deadline_ms` or 5 s from now, whichever comes first,
 * and `stop`. Returns whether it is connected. */
bool ddz_pg_reset(PGconn *c, int64_t deadline_ms, const ddz_pg_stop *stop);

/* THE statement with a deadline: sends `sql` with `n` text parameters
 * (n == 0 and params NULL: the simple protocol, so `sql` may hold several
 * statements, as PQexec) and waits for its results until `deadline_ms`
 * (and `stop`). Returns the result, as PQexec would (the last one, or the
 * first error; the caller checks its status and PQclear()s it), or NULL
 * when there is none: the connection is not up (never reconnects: see
 * ddz_pg_reset), it broke, or the bound ran out first; then
 * ddz_pg_hung() says whether it was the bound, and the connection was
 * DROPPED if the statement had been sent (PQstatus() is not
 * CONNECTION_OK). A deadline already past sends nothing. */
PGresult *ddz_pg_exec(PGconn *c, const char *sql, int n, const char *const *params,
                      int64_t deadline_ms, const ddz_pg_stop *stop);

/* ddz_pg_exec's two halves, for a caller that reads its results one at a
 * time (PQsetSingleRowMode() between them). ddz_pg_send sends, by the
 * deadline; returns false if it could not (the connection dropped if the
 * bound ran out). ddz_pg_next waits for the next result by the deadline;
 * returns it, or NULL at the end, or when the bound ran out (the
 * connection dropped; ddz_pg_hung() says so). */
bool ddz_pg_send(PGconn *c, const char *sql, int n, const char *const *params, int64_t deadline_ms,
                 const ddz_pg_stop *stop);
PGresult *ddz_pg_next(PGconn *c, int64_t deadline_ms, const ddz_pg_stop *stop);

/* Returns whether the latest ddz_pg_exec, _send, _next or ddz_pg_reset
 * called ON THIS THREAD failed because its bound ran out (or the stop came)
 * rather than because the server refused or closed: the server is "not
 * answering" rather than "down". */
bool ddz_pg_hung(void);

/* Writes one JSON log line to stderr as the server's are ({"ts_ms",
 * "level", "msg"}), also under --quiet: the parts that talk to the
 * database do not know the log's settings, and what the database does is
 * worth a line. One fprintf: lines of threads do not interleave. */
void ddz_pg_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
