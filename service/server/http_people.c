/* http_people.c - people's ratings over HTTP (see http_people.h). */
#include "service/server/http_people.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "rules/ruleset.h"
#include "service/server/context.h"
#include "service/server/http_routes.h"
#include "service/store/store.h"

/* A read of this file's routes came back: 200 with the store's JSON
 * (taken), 404 for no such player, 503 while the database is away. */
static void people_read_done(ddz_srv *srv, ddz_store_read *rd, ddz_http_req *req)
{
    (void)srv;
    req->status = HTTP_STATUS_OK;
    if (rd->rc >= 0 && rd->json) {
        req->body = rd->json;
        rd->json = NULL; /* taken */
    } else if (rd->rc == DDZ_ENOTFOUND) {
        ddz__http_error(req, HTTP_STATUS_NOT_FOUND, "ENOTFOUND", "no such player");
    } else if (rd->rc == DDZ_EDB) {
        /* away, or not answering within --db-timeout: ask again */
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
    } else {
        ddz__http_error(req, HTTP_STATUS_INTERNAL_SERVER_ERROR, "ENOMEM", "out of memory");
    }
}

/* Hands `rd` (NULL: out of memory) to the transport, or answers 503 as
 * when the database is away. */
static void read_answer(ddz_http_req *req, ddz_store_read *rd)
{
    req->read = rd;
    req->done = people_read_done;
    if (!rd)
        ddz__http_error(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
}

/* GET /api/players/NAME (NAME URL-encoded, any case): the account's
 * profile; a name no account can have is a 404 without a read. */
static void player_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv;
    static const char prefix[] = "/api/players/";
    char name[DDZ_ACCOUNT_NAME_MAX];
    if (ddz__http_url_decode(path + sizeof prefix - 1, name, sizeof name) != 0 ||
        strchr(name, '/')) {
        ddz__http_not_found(req);
        return;
    }
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (rd) {
        rd->kind = DDZ_STORE_READ_PERSON;
        memcpy(rd->account.name, name, sizeof rd->account.name);
    }
    read_answer(req, rd);
}

/* GET /api/leaderboard?rules=R: R one of the rule sets (ddz_rules_find),
 * the default one (caai) when absent. */
static void leaderboard_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv, (void)path;
    const ddz_rules *rs = ddz__http_rules_arg(req);
    if (!rs)
        return; /* 400 */
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (rd) {
        rd->kind = DDZ_STORE_READ_LEADERBOARD;
        snprintf(rd->rating.rules, sizeof rd->rating.rules, "%s", rs->name);
        rd->rating.limit = DDZ_HTTP_BOARD_ROWS;
    }
    read_answer(req, rd);
}

/* Writes `in` to `out` (cap bytes) with every byte but the URL's
 * unreserved ones (RFC 3986) as %XX, so what goes into a header line is
 * never a CR, a LF or a byte a browser would read otherwise. Returns 0,
 * or -1 when it does not fit. */
static int url_encode(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                     (*p >= '0' && *p <= '9') || strchr("-._~", *p);
        if (n + (plain ? 1 : 3) >= cap)
            return -1;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
    return 0;
}

/* GET /@/NAME: a profile's address to share, sent on to the client's own
 * route /#/@/NAME (302). A redirect rather than index.html served under
 * that path: the page's scripts and styles are relative to "/", and the
 * fragment is where the client's router looks. Whether NAME exists is the
 * profile page's to say (it asks /api/players/NAME). */
static void profile_link(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv;
    static const char prefix[] = "/@/";
    char name[DDZ_ACCOUNT_NAME_MAX], enc[3 * DDZ_ACCOUNT_NAME_MAX];
    /* the transport copies it once this returns; one loop a thread */
    static _Thread_local char extra[DDZ_HTTP_EXTRA_MAX];
    if (ddz__http_url_decode(path + sizeof prefix - 1, name, sizeof name) != 0 ||
        strchr(name, '/') || url_encode(name, enc, sizeof enc) != 0 ||
        snprintf(extra, sizeof extra, "location: /#/@/%s\x0d\x0a", enc) >= (int)sizeof extra) {
        ddz__http_not_found(req);
        return;
    }
    req->status = HTTP_STATUS_FOUND;
    req->type = "text/plain";
    req->extra = extra;
    if (asprintf(&req->body, "/#/@/%s\n", enc) < 0)
        req->body = NULL;
}

int ddz__http_people_routes(ddz_srv *srv)
{
    int rc = ddz__http_route_add(&srv->routes, "/api/players/", true, player_get);
    if (rc == 0)
        rc = ddz__http_route_add(&srv->routes, "/@/", true, profile_link);
    return rc < 0 ? rc
                  : ddz__http_route_add(&srv->routes, "/api/leaderboard", false, leaderboard_get);
}
