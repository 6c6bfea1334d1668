/* pg_conn.c - one way to open a PostgreSQL session (pg_conn.h). */
#include "service/store/pg_conn.h"

#include <jansson.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the server says outside an answer (a WARNING, or the FATAL of
 * "terminating connection due to administrator command" when it shuts
 * down) would go to stderr as plain text among the JSON log lines: one
 * JSON line instead, as the server's log writes them (ts_ms, level, msg),
 * naming the session (`app`). Called on the thread using the connection;
 * the line is one fprintf, so lines from threads do not interleave. */
static void notice(void *arg, const PGresult *res)
{
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *text = primary ? primary : PQresultErrorMessage(res);
    char msg[400];
    snprintf(msg, sizeof msg, "postgres (%s): %s: %s", (const char *)arg, sev ? sev : "NOTICE",
             text ? text : "");
    msg[strcspn(msg, "\n")] = '\0';
    bool err = sev && (strcmp(sev, "FATAL") == 0 || strcmp(sev, "PANIC") == 0 ||
                       strcmp(sev, "ERROR") == 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    json_t *j =
        json_pack("{s:I, s:s, s:s}", "ts_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                  "level", err ? "error" : "warning", "msg", msg);
    char *line = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (line)
        fprintf(stderr, "%s\n", line);
    free(line);
    json_decref(j);
}

/* How long a connection may take (libpq's connect_timeout, 5 s, applies
 * to PQconnectdbParams only). */
enum { DDZ_PG_CONNECT_MS = 5000 };

const char *ddz_pg_connect_error(const PGconn *c)
{
    if (!c)
        return "out of memory";
    /* our own 5 s bound stopped PQconnectPoll while libpq was still
     * connecting (its message then holds at most its prefix); its own
     * failures leave CONNECTION_BAD and say why */
    ConnStatusType st = PQstatus(c);
    if (st != CONNECTION_BAD && st != CONNECTION_OK)
        return "no answer from the database server within 5 s";
    return PQerrorMessage(c);
}

PGconn *ddz_pg_connect(const char *url, const char *app, int lock_timeout_ms,
                       int statement_timeout_ms)
{
    char options[320];
    snprintf(options, sizeof options,
             "-c client_min_messages=warning -c lock_timeout=%d -c statement_timeout=%d"
             " -c idle_in_transaction_session_timeout=15000 -c tcp_keepalives_idle=5"
             " -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3",
             lock_timeout_ms > 0 ? lock_timeout_ms : 0,
             statement_timeout_ms > 0 ? statement_timeout_ms : 0);
    /* later keywords win: ours first, then the URL (expand_dbname) */
    const char *const keys[] = {"connect_timeout",
                                "application_name",
                                "client_encoding",
                                "options",
                                "keepalives",
                                "keepalives_idle",
                                "keepalives_interval",
                                "keepalives_count",
                                "tcp_user_timeout",
                                "dbname",
                                NULL};
    const char *const vals[] = {"5", app, "UTF8", options, "1", "5", "2", "3", "10000", url, NULL};
    /* Started, not connected, so that the receiver is ours before the
     * first byte is read: a backend terminated just as its startup ends
     * sends its FATAL right behind ReadyForQuery, and libpq hands what
     * follows ReadyForQuery in the same read to the notice hooks, which
     * PQconnectdbParams would still have at libpq's default (plain text on
     * stderr). `app` is a string literal of the caller's (it outlives c);
     * the receiver stays through PQreset(), which keeps the PGconn. */
    PGconn *c = PQconnectStartParams(keys, vals, 1);
    if (!c)
        return NULL;
    PQsetNoticeReceiver(c, notice, (void *)app);
    /* PQconnectPoll ignores connect_timeout: the same 5 s, kept here */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (PQstatus(c) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = DDZ_PG_CONNECT_MS -
                       ((now.tv_sec - t0.tv_sec) * 1000L + (now.tv_nsec - t0.tv_nsec) / 1000000L);
        if (left_ms <= 0)
            break; /* PQstatus() is not CONNECTION_OK: the caller sees a failure */
        struct pollfd p = {.fd = PQsocket(c),
                           .events = st == PGRES_POLLING_READING ? POLLIN : POLLOUT};
        if (p.fd >= 0 && poll(&p, 1, (int)left_ms) == 0)
            continue; /* the clock says when to stop */
        st = PQconnectPoll(c);
    }
    return c;
}
