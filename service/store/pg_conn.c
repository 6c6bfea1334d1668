/* pg_conn.c - one way to open and use a PostgreSQL session (pg_conn.h). */
#include "service/store/pg_conn.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t ddz_pg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ddz_pg_log(const char *level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    msg[strcspn(msg, "\n")] = '\0';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    json_t *j =
        json_pack("{s:I, s:s, s:s}", "ts_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                  "level", level, "msg", msg);
    char *line = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (line)
        fprintf(stderr, "%s\n", line);
    free(line);
    json_decref(j);
}

/* What the server says outside an answer (a WARNING, or the FATAL of
 * "terminating connection due to administrator command" when it shuts
 * down) would go to stderr as plain text among the JSON log lines: one
 * JSON line instead, naming the session (`app`). Called on the thread
 * using the connection. */
static void notice(void *arg, const PGresult *res)
{
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *text = primary ? primary : PQresultErrorMessage(res);
    bool err = sev && (strcmp(sev, "FATAL") == 0 || strcmp(sev, "PANIC") == 0 ||
                       strcmp(sev, "ERROR") == 0);
    ddz_pg_log(err ? "error" : "warning", "postgres (%s): %s: %s", (const char *)arg,
               sev ? sev : "NOTICE", text ? text : "");
}

/* ---- the stop ---- */

int ddz_pg_stop_init(ddz_pg_stop *s)
{
    atomic_store(&s->at, 0);
    s->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return s->fd >= 0 ? 0 : -1;
}

void ddz_pg_stop_now(ddz_pg_stop *s)
{
    if (!s)
        return;
    int64_t none = 0;
    if (!atomic_compare_exchange_strong(&s->at, &none, ddz_pg_now_ms()))
        return;
    if (s->fd >= 0) {
        uint64_t one = 1;
        ssize_t w = write(s->fd, &one, sizeof one); /* stays readable: never read */
        (void)w;
    }
}

bool ddz_pg_stopping(const ddz_pg_stop *s)
{
    return s && atomic_load(&s->at) != 0;
}

void ddz_pg_stop_fini(ddz_pg_stop *s)
{
    if (s && s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}

/* ---- waiting with a bound ---- */

static _Thread_local bool last_hung;

bool ddz_pg_hung(void)
{
    return last_hung;
}

/* One call's bound: its deadline, brought forward by a stop to the grace
 * after the later of the stop and the call's start. */
typedef struct bound {
    int64_t until, start;
    const ddz_pg_stop *stop;
    bool stop_seen; /* the stop is in `until` (its eventfd no longer polled) */
} bound;

static bound bound_of(int64_t deadline, const ddz_pg_stop *stop)
{
    return (bound){.until = deadline, .start = ddz_pg_now_ms(), .stop = stop};
}

/* The moment the call must give up at, the stop taken into account. */
static int64_t bound_until(bound *b)
{
    int64_t at = b->stop ? atomic_load(&b->stop->at) : 0;
    if (at && !b->stop_seen) {
        b->stop_seen = true;
        int64_t cap = (at > b->start ? at : b->start) + DDZ_PG_STOP_GRACE_MS;
        if (cap < b->until)
            b->until = cap;
    }
    return b->until;
}

/* Waits until `c`'s socket is ready for `events`, or the bound. Returns 1
 * (ready, or an error on the socket: the caller's libpq call says which),
 * 0 when the bound ran out. */
static int wait_sock(PGconn *c, short events, bound *b)
{
    for (;;) {
        int64_t left = bound_until(b) - ddz_pg_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p[2] = {
            {.fd = PQsocket(c), .events = events},
            {.fd = b->stop && !b->stop_seen ? b->stop->fd : -1, .events = POLLIN}};
        if (p[0].fd < 0)
            return 1; /* no socket: libpq says why */
        int n = poll(p, 2, left > 60000 ? 60000 : (int)left);
        if (n < 0 && errno != EINTR)
            return 1;
        if (n > 0 && p[0].revents)
            return 1;
        /* the stop (its deadline taken at the top), a signal, or time */
    }
}

/* Gives up on the statement under way: its socket shut, so that libpq
 * sees the connection end (CONNECTION_BAD) at once, and its results
 * dropped. A cancel request would need the same server to answer. */
static void drop(PGconn *c)
{
    int fd = PQsocket(c);
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
    PQconsumeInput(c); /* reads the end: libpq closes the socket */
    PGresult *r;
    while ((r = PQgetResult(c)))
        PQclear(r);
}

/* Polls a connection that PQconnectStart/PQresetStart began until it is
 * made or fails, by `b` and at most DDZ_PG_CONNECT_MS. Returns whether it
 * is connected. */
static bool poll_connect(PGconn *c, bool reset, bound *b)
{
    int64_t cap = ddz_pg_now_ms() + DDZ_PG_CONNECT_MS;
    if (cap < b->until)
        b->until = cap;
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (PQstatus(c) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        if (wait_sock(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, b) == 0) {
            last_hung = true;
            return false; /* PQstatus() is not CONNECTION_OK: the caller sees a failure */
        }
        st = reset ? PQresetPoll(c) : PQconnectPoll(c);
    }
    if (PQstatus(c) != CONNECTION_OK)
        return false;
    PQsetnonblocking(c, 1);
    return true;
}

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
                       int statement_timeout_ms, const ddz_pg_stop *stop)
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
     * the receiver stays through PQresetStart(), which keeps the PGconn. */
    PGconn *c = PQconnectStartParams(keys, vals, 1);
    if (!c)
        return NULL;
    PQsetNoticeReceiver(c, notice, (void *)app);
    /* PQconnectPoll ignores connect_timeout: the same 5 s, kept here */
    last_hung = false;
    bound b = bound_of(INT64_MAX, stop);
    poll_connect(c, false, &b);
    return c;
}

bool ddz_pg_reset(PGconn *c, int64_t deadline_ms, const ddz_pg_stop *stop)
{
    last_hung = false;
    bound b = bound_of(deadline_ms, stop);
    if (bound_until(&b) <= ddz_pg_now_ms()) {
        last_hung = true;
        return false;
    }
    return PQresetStart(c) && poll_connect(c, true, &b);
}

/* ---- statements ---- */

/* Sends and flushes under `b`. Returns whether all of it went. */
static bool send_under(PGconn *c, const char *sql, int n, const char *const *params, bound *b)
{
    if (bound_until(b) <= ddz_pg_now_ms()) {
        last_hung = true; /* nothing sent: the connection is left as it is */
        return false;
    }
    if (PQstatus(c) != CONNECTION_OK)
        return false;
    PQsetnonblocking(c, 1); /* the flush below waits under the bound, not in libpq */
    int ok = n == 0 && !params ? PQsendQuery(c, sql)
                               : PQsendQueryParams(c, sql, n, NULL, params, NULL, NULL, 0);
    if (!ok)
        return false;
    int f;
    while ((f = PQflush(c)) == 1) {
        /* the server may need us to read before it reads more */
        if (wait_sock(c, POLLOUT | POLLIN, b) == 0) {
            last_hung = true;
            drop(c);
            return false;
        }
        if (!PQconsumeInput(c))
            break;
    }
    return f == 0;
}

/* The next result under `b`: NULL at the end, or when the bound ran out
 * (the connection dropped). */
static PGresult *next_under(PGconn *c, bound *b)
{
    while (PQisBusy(c)) {
        if (wait_sock(c, POLLIN, b) == 0) {
            last_hung = true;
            drop(c);
            return NULL;
        }
        if (!PQconsumeInput(c))
            break; /* broken: PQgetResult hands over the error */
    }
    return PQgetResult(c);
}

bool ddz_pg_send(PGconn *c, const char *sql, int n, const char *const *params, int64_t deadline_ms,
                 const ddz_pg_stop *stop)
{
    last_hung = false;
    bound b = bound_of(deadline_ms, stop);
    return send_under(c, sql, n, params, &b);
}

PGresult *ddz_pg_next(PGconn *c, int64_t deadline_ms, const ddz_pg_stop *stop)
{
    last_hung = false;
    bound b = bound_of(deadline_ms, stop);
    return next_under(c, &b);
}

PGresult *ddz_pg_exec(PGconn *c, const char *sql, int n, const char *const *params,
                      int64_t deadline_ms, const ddz_pg_stop *stop)
{
    last_hung = false;
    bound b = bound_of(deadline_ms, stop);
    if (!send_under(c, sql, n, params, &b))
        return NULL;
    /* as PQexec: the last result, or the first that failed */
    PGresult *keep = NULL, *r;
    while ((r = next_under(c, &b))) {
        ExecStatusType st = PQresultStatus(keep);
        if (keep && (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR)) {
            PQclear(r);
            continue;
        }
        PQclear(keep);
        keep = r;
    }
    if (last_hung) { /* given up half-way: what came is not the answer */
        PQclear(keep);
        return NULL;
    }
    return keep;
}
