/* http_routes.h - the server's HTTP routes as one table (nginx's way).
 *
 * Each module registers the paths it answers when the server starts, before
 * the lws context exists: server.c /healthz, http_games.c /api/my-games and
 * /api/games/, http_people.c /api/players/ and /api/leaderboard,
 * metrics.c /metrics, and the plug-ins through host.h:
 * service/ladder/ladder_srv.c /api/ladder and /api/ladder/,
 * service/tourney/tourney_srv.c /api/tournament,
 * service/puzzles/puzzles_srv.c /api/puzzles/ and /puzzles. A request's path is then
 * looked up here (ddz__http_route()), whether it is a route at all rather
 * than a static file is asked here (ddz__http_is_route()), and the lws
 * mounts that send those paths to the HTTP callback are made here from the
 * same table (ddz__http_mounts()): adding an endpoint is one call to
 * ddz__http_route_add(). The table and its mounts are fixed arrays: the
 * routes are the code's, never a client's.
 *
 * A handler answers at once (status, type, body, maybe a store ticket the
 * answer waits for), or hands a store read to the transport (`read`), which
 * submits it and, when it comes back, has the handler's `done` answer
 * (server.c, http_read_done).
 */
#ifndef DDZ_HTTP_ROUTES_H
#define DDZ_HTTP_ROUTES_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ddz_srv ddz_srv;
typedef struct ddz_store_read ddz_store_read;

#define DDZ_HTTP_ROUTES_MAX 32 /* routes registered, in all: twice those the server has */
/* A request body's bytes, at most (the account routes' JSON): a larger
 * Content-Length is answered 413 before a byte of it is read. */
#define DDZ_HTTP_BODY_MAX 4096
/* A handler's extra header lines (ddz_http_req.extra), at most, with the
 * NUL: a profile's Location (http_people.c) with a 128-byte name as %XX. */
#define DDZ_HTTP_EXTRA_MAX 512
/* How long an answer that comes later (ddz_http_req.later) may take, past
 * its store reads' bounds, before the gate closes its connection. */
#define DDZ_HTTP_LATER_MS 20000

/* The methods a body route takes (ddz__http_route_add_methods); every
 * other route takes GET and HEAD, and only those. A body route takes GET
 * and HEAD too when it names DDZ_HTTP_ROUTE_GET (a resource read and
 * posted to under one prefix: /api/puzzles/). */
#define DDZ_HTTP_ROUTE_POST 1u
#define DDZ_HTTP_ROUTE_DELETE 2u
#define DDZ_HTTP_ROUTE_GET 4u
#define DDZ_HTTP_MOUNT_MAX 32 /* bytes of a mount point, its NUL included */

/* One request as its handler sees it: what it reads, what it sets. The
 * transport (server.c) keeps the rest (the connection's state, the write). */
typedef struct ddz_http_req {
    struct lws *wsi;   /* its headers, for lws_hdr_copy() (read only) */
    int method;        /* LWSHUMETH_GET, _HEAD, _POST or _DELETE */
    const char *in;    /* POST, DELETE: the request's body, NUL-terminated ("" if none) */
    size_t in_len;     /* its bytes (at most DDZ_HTTP_BODY_MAX) */
    int status;        /* 200 unless the handler says otherwise */
    const char *type;  /* "application/json" unless ... */
    char *body;        /* malloc'd, taken; NULL: empty (out of memory) */
    const char *extra; /* more header lines (CRLF-ended, copied; under DDZ_HTTP_EXTRA_MAX bytes),
                          or NULL */
    /* A store ticket (ddz_store_ticket()): the answer is not written before
     * that write is durable (what it tells of must not be lost to a kill
     * after it was read), 0: at once. */
    uint64_t hold;
    /* Or a store read (malloc'd, its kind and key set; taken), with no
     * body: the transport submits it (503 EDB if the store cannot take it)
     * and, when it is done, hands it to `done`, which sets the answer
     * (status, type, body, extra; `hold` is not read then) and takes what
     * it serves of the read (NULL there); the rest is freed. */
    ddz_store_read *read;
    void (*done)(ddz_srv *srv, ddz_store_read *rd, struct ddz_http_req *req);
    /* Or an answer that comes LATER, after work of the handler's own (the
     * accounts' hashes and store reads): the handler sets `later` to its
     * object, which keeps `conn` and `answer` (set by the transport) and,
     * when it has the answer, calls answer(srv, conn, its answer). If the
     * connection goes first, the transport calls forget(later) (the
     * handler then never answers that conn). No body, no hold, no read. */
    void *later;
    void (*forget)(void *later);
    /* The transport's, for `later`: the request, and what answers it with
     * an answer's status, type, body (taken) and extra. Call only while
     * the handler holds `conn` (not after its forget). Passed here rather
     * than named, so that a handler needs nothing of the transport's. */
    void *conn;
    void (*answer)(ddz_srv *srv, void *conn, struct ddz_http_req *answer);
} ddz_http_req;

/* Answers `path` (the request's, without its query) into `req`. */
typedef void (*ddz_http_handler)(ddz_srv *srv, const char *path, ddz_http_req *req);

typedef struct ddz_http_route {
    const char *path; /* static; ends in '/' for a prefix */
    bool prefix;      /* every path that starts with `path`, else `path` alone */
    unsigned
        methods; /* 0: GET and HEAD; else DDZ_HTTP_ROUTE_POST | DDZ_HTTP_ROUTE_DELETE, only those */
    ddz_http_handler fn;
} ddz_http_route;

typedef struct ddz_http_routes {
    ddz_http_route route[DDZ_HTTP_ROUTES_MAX];
    int n;
    /* The lws mounts (ddz__http_mounts()): one per first path segment. */
    struct lws_http_mount mount[DDZ_HTTP_ROUTES_MAX];
    char mount_path[DDZ_HTTP_ROUTES_MAX][DDZ_HTTP_MOUNT_MAX];
    int nmounts;
} ddz_http_routes;

/* The body of every 404 a route gives (and of a HEAD of no file). */
extern const char ddz__http_no_resource[];

/* Registers `fn` for the path `path` (static storage) alone or, with
 * `prefix`, for every path starting with it; a prefix ends in '/', so that
 * "/api/ladder/" never takes "/api/ladderx". Call before ddz__http_mounts().
 * Returns 0; DDZ_EINVAL for a path that is not "/" and a segment or more,
 * or whose first segment does not fit a mount, or a prefix without its
 * '/', or the same path and kind registered twice; DDZ_ENOSPC past
 * DDZ_HTTP_ROUTES_MAX routes. */
int ddz__http_route_add(ddz_http_routes *t, const char *path, bool prefix, ddz_http_handler fn);

/* Registers `fn` for the path `path` alone (or, when it ends in '/', for
 * every path it starts, as a prefix: an exact route of another path there
 * keeps its own methods), answering the `methods`
 * (DDZ_HTTP_ROUTE_POST, DDZ_HTTP_ROUTE_DELETE; with a body of at most
 * DDZ_HTTP_BODY_MAX bytes; DDZ_HTTP_ROUTE_GET: GET and HEAD as well) and
 * no other: GET and HEAD get 405 there unless named.
 * Returns as ddz__http_route_add, and DDZ_EINVAL for no method or another. */
int ddz__http_route_add_methods(ddz_http_routes *t, const char *path, unsigned methods,
                                ddz_http_handler fn);

/* Whether `uri`'s route takes `method` (an LWSHUMETH_: GET and HEAD on
 * every path but a body route's, so static files too; POST and DELETE on
 * a body route that names them). Sets *allow (may be NULL) to the Allow
 * header's value for that path. */
bool ddz__http_route_takes(const ddz_http_routes *t, const char *uri, int method,
                           const char **allow);

/* Returns the route for `path`: the exact one, else the longest prefix
 * that starts it; NULL for none. */
const ddz_http_route *ddz__http_route_find(const ddz_http_routes *t, const char *path);

/* Whether `uri` falls under one of the mounts the table makes (a first
 * segment some route has), so that lws hands it to the HTTP callback, not
 * to the static files: "/api/nothing" is a route's 404. */
bool ddz__http_is_route(const ddz_http_routes *t, const char *uri);

/* Makes the lws mounts of the table's routes (one per distinct first
 * segment, in the order first registered; the segment is taken whole, as
 * lws matches it), handled by the protocol `origin`, followed by `next`.
 * Returns the first of the chain (`next` if there are no routes). Never
 * fails. */
const struct lws_http_mount *ddz__http_mounts(ddz_http_routes *t, const char *origin,
                                              const struct lws_http_mount *next);

/* Answers `path` into `req` (zeroed by the caller, its wsi set): as its
 * route's handler says, with 200 and JSON unless it says otherwise, or
 * 404 with ddz__http_no_resource when no route takes it. */
void ddz__http_route(ddz_srv *srv, const ddz_http_routes *t, const char *path, ddz_http_req *req);

/* Sets `req` to 404 with ddz__http_no_resource: a handler's "not here". */
void ddz__http_not_found(ddz_http_req *req);

/* Sets `req` to `status` with the error body {"error": code, "message":
 * message} (both literals without quotes or backslashes). Never fails (out
 * of memory: no body). */
void ddz__http_error(ddz_http_req *req, int status, const char *code, const char *message);

/* Returns the rule set the request's `rules=` argument names
 * (ddz_rules_find), the default one (ddz_rules_at(0)) without one; for a
 * name no rule set has, NULL with `req` answered 400 ERULESET. */
const struct ddz_rules *ddz__http_rules_arg(ddz_http_req *req);

/* Decodes the %XX escapes of `in` into `out` (cap bytes). Returns 0, or
 * -1 for a bad escape, a NUL byte, an empty result or one that does not
 * fit. */
int ddz__http_url_decode(const char *in, char *out, size_t cap);

#endif
