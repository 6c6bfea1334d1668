/* puzzles_srv.c - puzzles as a plug-in of the table host (see
 * puzzles_srv.h). */
#include "service/puzzles/puzzles_srv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/puzzles/puzzler.h"
#include "service/server/host.h"
#include "service/store/store.h"

/* The plug-in's state. */
typedef struct puzzles {
    ddz_host *host;
    ddz_puzzler *pz;
    bool stopping; /* the server stops: attempts never checked are answered 503 */
} puzzles;

/* The plug-in of a route handler's host. */
static puzzles *of(ddz_host *h)
{
    return ddz_host_plugin_self(h, "puzzles");
}

/* The 401 of a session that is not (or no longer) live. */
static void refuse_session(ddz_http_req *req)
{
    ddz__http_error(req, HTTP_STATUS_UNAUTHORIZED, "EAUTH", "wrong name, password or session");
}

/* The read came back: 200 with the puzzle (taken), 404 while the stock
 * has none of the rules (or no such puzzle), 401 for a session not live,
 * 503 while the database is away. */
static void next_done(ddz_srv *srv, ddz_store_read *rd, ddz_http_req *req)
{
    (void)srv;
    req->status = HTTP_STATUS_OK;
    if (rd->rc >= 0 && rd->json) {
        req->body = rd->json;
        rd->json = NULL; /* taken */
    } else if (rd->rc == DDZ_EAUTH) {
        refuse_session(req);
    } else if (rd->rc == DDZ_ENOTFOUND) {
        ddz__http_error(req, HTTP_STATUS_NOT_FOUND, "ENOTFOUND",
                        rd->kind == DDZ_STORE_READ_PUZZLE_GET ? "no such puzzle"
                                                              : "no puzzle of these rules yet");
    } else if (rd->rc == DDZ_EDB) {
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
    } else {
        ddz__http_error(req, HTTP_STATUS_INTERNAL_SERVER_ERROR, "ENOMEM", "out of memory");
    }
}

/* Parses `text`, ids separated by commas ("" none), into q. Returns 0,
 * or -1 for anything else (an id not a positive integer, too many). */
static int parse_recent(const char *text, ddz_store_puzzle_req *q)
{
    q->nrecent = 0;
    const char *p = text;
    while (*p) {
        /* digits only: strtoll would take a sign or spaces */
        if (*p < '0' || *p > '9' || q->nrecent == DDZ_STORE_PUZZLE_RECENT_MAX)
            return -1;
        char *end;
        errno = 0;
        long long id = strtoll(p, &end, 10);
        if (errno || id < 1 || (*end != ',' && *end != '\0') || (*end == ',' && !end[1]))
            return -1;
        q->recent[q->nrecent++] = id;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* GET /api/puzzles/next?rules=R&recent=ID,... */
static void next_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv, (void)path;
    const ddz_rules *rs = ddz__http_rules_arg(req);
    if (!rs)
        return; /* 400 */
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (!rd) {
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
        return;
    }
    /* 50 ids of up to 16 digits and their commas */
    char list[DDZ_STORE_PUZZLE_RECENT_MAX * 17 + 1];
    const char *recent = lws_get_urlarg_by_name(req->wsi, "recent=", list, sizeof list);
    if (recent && parse_recent(recent, &rd->puzzle) < 0) {
        free(rd);
        ddz__http_error(req, HTTP_STATUS_BAD_REQUEST, "EFIELD",
                        "recent: up to 50 puzzle ids, separated by commas");
        return;
    }
    if (ddz_host_bearer(req, rd->session) < 0) {
        free(rd);
        refuse_session(req);
        return;
    }
    rd->kind = DDZ_STORE_READ_PUZZLE_NEXT;
    snprintf(rd->rating.rules, sizeof rd->rating.rules, "%s", rs->name);
    rd->puzzle.rating = DDZ_STORE_PUZZLE_RATING0; /* a guest's; a person's is read */
    req->read = rd;
    req->done = next_done;
}

/* The id of path "/api/puzzles/ID" followed by `tail`, or 0. */
static int64_t path_id(const char *path, const char *tail)
{
    static const char prefix[] = "/api/puzzles/";
    const char *p = path + sizeof prefix - 1;
    char *end;
    errno = 0;
    long long id = *p >= '1' && *p <= '9' ? strtoll(p, &end, 10) : 0;
    return id < 1 || errno || strcmp(end, tail) != 0 ? 0 : id;
}

/* GET /api/puzzles/ID: the puzzle, as next serves it (never its
 * solutions): a page opened on one puzzle, a link shared. */
static void puzzle_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv;
    int64_t id = path_id(path, "");
    if (!id) {
        ddz__http_not_found(req);
        return;
    }
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (!rd) {
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
        return;
    }
    rd->kind = DDZ_STORE_READ_PUZZLE_GET;
    rd->id = id;
    req->read = rd;
    req->done = next_done;
}

/* GET /api/puzzles/...: ID, or next. POST: ID/attempt. */
static void puzzles_route(ddz_srv *srv, const char *path, ddz_http_req *req);

/* GET /puzzles: the page, as the client's route (a link to share). */
static void page_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv, (void)path;
    req->status = HTTP_STATUS_FOUND;
    req->extra = "Location: /#/puzzles\r\n";
    req->body = strdup("");
}

/* An attempt whose answer comes later: the transport's request. */
typedef struct attempt_op {
    ddz_srv *srv;
    void *conn; /* NULL once the connection went (forget) */
    void (*answer)(ddz_srv *srv, void *conn, ddz_http_req *answer);
} attempt_op;

static void attempt_forget(void *later)
{
    ((attempt_op *)later)->conn = NULL; /* freed when its check comes back */
}

/* POST /api/puzzles/ID/attempt: the check goes to the puzzler's attempts
 * worker; the answer comes when it is done. */
static void attempt_post(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    int64_t id = path_id(path, "/attempt");
    if (!id) {
        ddz__http_not_found(req);
        return;
    }
    char session[DDZ_SESSION_HEX + 1];
    int who = ddz_host_bearer(req, session);
    if (who < 0) {
        refuse_session(req);
        return;
    }
    attempt_op *op = malloc(sizeof *op);
    if (!op) {
        sodium_memzero(session, sizeof session);
        ddz__http_error(req, HTTP_STATUS_INTERNAL_SERVER_ERROR, "ENOMEM", "out of memory");
        return;
    }
    *op = (attempt_op){.srv = srv, .conn = req->conn, .answer = req->answer};
    puzzles *P = of(srv);
    int rc =
        P && P->pz ? ddz_puzzler_attempt(P->pz, id, req->in, who ? session : NULL, op) : DDZ_EBUSY;
    sodium_memzero(session, sizeof session);
    if (rc < 0) {
        free(op);
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EBUSY",
                        "too many attempts being checked; try again");
        req->extra = "Retry-After: 1\r\n";
        return;
    }
    req->later = op;
    req->forget = attempt_forget;
}

/* An attempt was checked (on the loop): its answer goes to its request,
 * if still open. */
static void attempt_done(void *ctx, void *owner, int rc, const char *json)
{
    const puzzles *P = ctx;
    attempt_op *op = owner;
    ddz_http_req req = {.status = HTTP_STATUS_OK, .type = "application/json"};
    if (rc == 0 || rc == DDZ_EFIELD) {
        req.status = rc == 0 ? HTTP_STATUS_OK : HTTP_STATUS_BAD_REQUEST;
        req.body = json ? strdup(json) : NULL;
    } else if (rc == DDZ_EAUTH) {
        refuse_session(&req);
    } else if (rc == DDZ_ENOTFOUND) {
        ddz__http_error(&req, HTTP_STATUS_NOT_FOUND, "ENOTFOUND", "no such puzzle");
    } else if (rc == DDZ_EDB) {
        ddz__http_error(&req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
    } else if (rc == DDZ_EINVAL && P->stopping) { /* never checked */
        ddz__http_error(&req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EBUSY", "the server is stopping");
    } else if (rc == DDZ_EBUDGET || rc == DDZ_ETIMEOUT) {
        ddz__http_error(&req, HTTP_STATUS_SERVICE_UNAVAILABLE, ddz_errname(rc),
                        "the check ran out of time; try again");
    } else {
        ddz__http_error(&req, HTTP_STATUS_INTERNAL_SERVER_ERROR, ddz_errname(rc),
                        "the puzzle could not be checked");
    }
    if (op->conn) /* else the connection went */
        op->answer(op->srv, op->conn, &req);
    free(req.body);
    free(op);
}

/* A 405 for a method `allow` does not name. */
static void not_allowed(ddz_http_req *req, const char *allow)
{
    ddz__http_error(req, HTTP_STATUS_METHOD_NOT_ALLOWED, "EMETHOD", "method not allowed here");
    req->extra = allow;
}

static void puzzles_route(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    bool next = strcmp(path, "/api/puzzles/next") == 0, one = path_id(path, "") != 0,
         attempt = path_id(path, "/attempt") != 0;
    if (req->method == LWSHUMETH_POST && attempt)
        attempt_post(srv, path, req);
    else if (req->method == LWSHUMETH_POST && (next || one))
        not_allowed(req, "Allow: GET, HEAD\r\n");
    else if (req->method != LWSHUMETH_POST && attempt)
        not_allowed(req, "Allow: POST\r\n");
    else if (req->method != LWSHUMETH_POST && next)
        next_get(srv, path, req);
    else if (req->method != LWSHUMETH_POST && one)
        puzzle_get(srv, path, req);
    else
        ddz__http_not_found(req);
}

/* ---- the plug-in ---- */

static void *puzzles_create(ddz_host *h, char *err, size_t errlen)
{
    puzzles *P = calloc(1, sizeof *P);
    int rc = P ? ddz_host_route_add_methods(h, "/api/puzzles/",
                                            DDZ_HTTP_ROUTE_GET | DDZ_HTTP_ROUTE_POST, puzzles_route)
               : DDZ_ENOMEM;
    if (rc == 0)
        rc = ddz_host_route_add(h, "/puzzles", false, page_get);
    if (rc < 0) {
        snprintf(err, errlen, "cannot register its routes (%s)", ddz_errname(rc));
        free(P);
        return NULL;
    }
    P->host = h;
    return P;
}

/* The attempts' worker checked one: the loop looks (poll). */
static void wake(void *ctx)
{
    ddz_host_wake(ctx);
}

static int puzzles_start(void *self, char *err, size_t errlen)
{
    puzzles *P = self;
    P->pz = ddz_puzzler_create(NULL, ddz_host_store(P->host));
    if (!P->pz || ddz_puzzler_attempts_start(P->pz, wake, P->host) < 0) {
        snprintf(err, errlen, "cannot start its threads");
        ddz_puzzler_destroy(P->pz);
        P->pz = NULL;
        return -1;
    }
    return 0;
}

/* A wake: the attempts checked are answered. */
static void puzzles_poll(void *self)
{
    puzzles *P = self;
    if (P->pz)
        ddz_puzzler_collect(P->pz, attempt_done, P);
}

static void puzzles_game_over(void *self, int64_t game, const ddz_record *rec)
{
    puzzles *P = self;
    if (P->pz)
        ddz_puzzler_examine(P->pz, game, rec); /* a full queue: skipped, counted */
}

static void puzzles_metrics(void *self, FILE *f)
{
    puzzles *P = self;
    ddz_puzzler_stats ps = {0};
    if (P->pz)
        ddz_puzzler_stats_get(P->pz, &ps);
    /* the stock builder's work (puzzler.h): games offered (anyone may read
     * them: never a competition's held game), examined and dropped,
     * positions, puzzles found, undecided; its time busy and resting (its
     * share of a core: busy / (busy + resting)); attempts rated */
    fprintf(f,
            "# TYPE ddz_puzzle_games_total counter\n"
            "ddz_puzzle_games_total{result=\"offered\"} %ld\n"
            "ddz_puzzle_games_total{result=\"examined\"} %ld\n"
            "ddz_puzzle_games_total{result=\"dropped\"} %ld\n"
            "ddz_puzzle_games_total{result=\"cut\"} %ld\n"
            "# TYPE ddz_puzzle_positions_total counter\n"
            "ddz_puzzle_positions_total{result=\"examined\"} %ld\n"
            "ddz_puzzle_positions_total{result=\"puzzle\"} %ld\n"
            "ddz_puzzle_positions_total{result=\"undecided\"} %ld\n"
            "# TYPE ddz_puzzle_seconds_total counter\n"
            "ddz_puzzle_seconds_total{state=\"busy\"} %.3f\n"
            "ddz_puzzle_seconds_total{state=\"resting\"} %.3f\n"
            "# TYPE ddz_puzzle_attempts_rated_total counter\n"
            "ddz_puzzle_attempts_rated_total %ld\n",
            ps.offered, ps.games, ps.dropped, ps.cut, ps.positions, ps.found, ps.undecided,
            ps.busy_ms / 1000.0, ps.rested_ms / 1000.0, ps.rated);
}

/* The server stops, before its store: the workers stop (a check running
 * ends within its budget) and every attempt still waiting is answered 503
 * now, so that no connection holds one of ours after destroy. */
static void puzzles_stop(void *self)
{
    puzzles *P = self;
    if (!P->pz)
        return;
    P->stopping = true;
    ddz_puzzler_stop(P->pz);
    ddz_puzzler_collect(P->pz, attempt_done, P);
}

static void puzzles_destroy(void *self)
{
    puzzles *P = self;
    ddz_puzzler_destroy(P->pz);
    free(P);
}

const ddz_plugin ddz_puzzles_plugin = {
    .kind = "puzzles",
    .create = puzzles_create,
    .start = puzzles_start,
    .poll = puzzles_poll,
    .game_over = puzzles_game_over,
    .metrics = puzzles_metrics,
    .stop = puzzles_stop,
    .destroy = puzzles_destroy,
};
