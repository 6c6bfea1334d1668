/* pg_conn.h - how every part of ddz opens a PostgreSQL session: the
 * store's threads (store_pg.c), the cluster's (service/cluster/cluster.c)
 * and the lead's (service/cluster/lead.c). One place, so that they all
 * notice a dead network and a stuck peer the same way:
 *
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
 * What the URL says wins over all of these (its keywords come last). */
#ifndef DDZ_PG_CONN_H
#define DDZ_PG_CONN_H

#include <libpq-fe.h>

/* Opens a session on `url` (postgres:// or postgresql://) named `app`
 * (application_name, seen in pg_stat_activity; `app` must outlive the
 * connection: a string literal). `lock_timeout_ms` bounds
 * how long a statement waits for a lock another session holds, and
 * `statement_timeout_ms` how long any statement runs; 0 = no limit.
 * Returns a connection whose PQstatus() says whether it succeeded
 * (PQerrorMessage() why not; it may be empty when the 5 s ran out), or
 * NULL when out of memory. Blocks for at most the connect timeout (5 s).
 * Its notices, from the first byte read on, go to the JSON log. */
PGconn *ddz_pg_connect(const char *url, const char *app, int lock_timeout_ms,
                       int statement_timeout_ms);

/* Returns why `c` (what ddz_pg_connect returned) is not connected, one
 * clear reason: "out of memory" for NULL, a sentence saying so when the
 * 5 s ran out while libpq was still connecting, else libpq's message.
 * Never NULL. */
const char *ddz_pg_connect_error(const PGconn *c);

#endif
