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

/* Sets `req` to `status` with the error body of `code` and `message`. */
static void error_answer(ddz_http_req *req, int status, const char *code, const char *message)
{
    req->status = status;
    if (asprintf(&req->body, "{\"error\":\"%s\",\"message\":\"%s\"}", code, message) < 0)
        req->body = NULL;
}

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
        error_answer(req, HTTP_STATUS_NOT_FOUND, "ENOTFOUND", "no such player");
    } else if (rd->rc == DDZ_EDB) {
        /* away, or not answering within --db-timeout: ask again */
        error_answer(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
    } else {
        error_answer(req, HTTP_STATUS_INTERNAL_SERVER_ERROR, "ENOMEM", "out of memory");
    }
}

/* Hands `rd` (NULL: out of memory) to the transport, or answers 503 as
 * when the database is away. */
static void read_answer(ddz_http_req *req, ddz_store_read *rd)
{
    req->read = rd;
    req->done = people_read_done;
    if (!rd)
        error_answer(req, HTTP_STATUS_SERVICE_UNAVAILABLE, "EDB", "database unavailable");
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
    char arg[DDZ_STORE_RULES_MAX];
    const char *rules = lws_get_urlarg_by_name(req->wsi, "rules=", arg, sizeof arg);
    const ddz_rules *rs = rules ? ddz_rules_find(rules) : ddz_rules_at(0);
    if (!rs) {
        error_answer(req, HTTP_STATUS_BAD_REQUEST, "ERULESET", "unknown rule set");
        return;
    }
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (rd) {
        rd->kind = DDZ_STORE_READ_LEADERBOARD;
        snprintf(rd->rating.rules, sizeof rd->rating.rules, "%s", rs->name);
        rd->rating.limit = DDZ_HTTP_BOARD_ROWS;
    }
    read_answer(req, rd);
}

int ddz__http_people_routes(ddz_srv *srv)
{
    int rc = ddz__http_route_add(&srv->routes, "/api/players/", true, player_get);
    return rc < 0 ? rc
                  : ddz__http_route_add(&srv->routes, "/api/leaderboard", false, leaderboard_get);
}
