/* http_games.c - the game records over HTTP (see http_games.h). */
#include "service/server/http_games.h"

#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/record_json.h"
#include "rules/error.h"
#include "service/server/analyst.h"
#include "service/server/context.h"
#include "service/server/http_routes.h"
#include "service/store/store.h"

/* The stored record `json` (taken) as it is served: with the terms that
 * explain its scores (ddz_record_json_explain), which the replay page
 * shows; as stored when they cannot be computed (a record that does not
 * replay, or no memory), since the record itself is still worth serving.
 * Returns the text, or NULL when `json` is NULL. */
static char *explained(char *json)
{
    json_t *j = json ? json_loads(json, 0, NULL) : NULL;
    char *out =
        j && ddz_record_json_explain(j, NULL, 0) == 0 ? json_dumps(j, DDZ_RECORD_JSON_FLAGS) : NULL;
    json_decref(j);
    if (!out)
        return json;
    free(json);
    return out;
}

/* Sets the answer of GET /api/games/ID from the store's `rc` and `json`
 * (taken). */
static void game_answer(ddz_http_req *req, int rc, char *json)
{
    req->status = HTTP_STATUS_OK;
    req->body = rc < 0 ? json : explained(json);
    if (rc == DDZ_ENOTFOUND) {
        req->status = HTTP_STATUS_NOT_FOUND;
        req->body = strdup("{\"error\":\"ENOTFOUND\",\"message\":\"no such game\"}");
    } else if (rc == DDZ_EDB) {
        /* the database away and the game not in the journal: it may well
         * be stored, so not "no such game" but "ask again" */
        req->status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        req->body = strdup("{\"error\":\"EDB\",\"message\":\"database unavailable\"}");
    } else if (rc < 0) {
        req->status = HTTP_STATUS_INTERNAL_SERVER_ERROR;
        req->body = strdup("{\"error\":\"ENOMEM\",\"message\":\"out of memory\"}");
    }
    if (rc < 0)
        free(json);
}

/* Sets the answer of GET /api/my-games from the store's `rc` and `json`
 * (taken: the list as ddz_store_my_games() writes it). */
static void mine_answer(ddz_http_req *req, int rc, char *json)
{
    req->status = HTTP_STATUS_OK;
    req->body = NULL;
    if (rc >= 0 && json &&
        asprintf(&req->body, "{\"games\":%s,\"max\":%d}", json, DDZ_STORE_MINE_MAX) < 0)
        req->body = NULL;
    if (rc >= 0 && !req->body)
        rc = DDZ_ENOMEM;
    if (rc == DDZ_EDB) { /* away, or not answering within --db-timeout: ask again */
        req->status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        req->body = strdup("{\"error\":\"EDB\",\"message\":\"database unavailable\"}");
    } else if (rc < 0) {
        req->status = HTTP_STATUS_INTERNAL_SERVER_ERROR;
        req->body = strdup("{\"error\":\"ENOMEM\",\"message\":\"out of memory\"}");
    }
    free(json);
}

/* The browser's own key from "Authorization: Bearer KEY" (32 lower-case
 * hex digits, what it sends in hello as `me`), hashed as the store keeps
 * it. Returns false if the header is missing or malformed. */
static bool my_key(struct lws *wsi, uint8_t me[DDZ_STORE_ME_BYTES])
{
    char buf[128];
    static const char bearer[] = "Bearer ";
    int n = lws_hdr_copy(wsi, buf, sizeof buf, WSI_TOKEN_HTTP_AUTHORIZATION);
    const char *key = buf + sizeof bearer - 1;
    if (n != (int)(sizeof bearer - 1 + 32) || strncmp(buf, bearer, sizeof bearer - 1) != 0 ||
        strspn(key, "0123456789abcdef") != 32)
        return false;
    crypto_generichash(me, DDZ_STORE_ME_BYTES, (const uint8_t *)key, 32, NULL, 0);
    return true;
}

/* An account's session from "Authorization: Bearer S" (64 hex digits)
 * into `out`; false if the header holds none. */
static bool my_session(struct lws *wsi, char out[DDZ_SESSION_HEX + 1])
{
    char buf[128];
    static const char bearer[] = "Bearer ";
    int n = lws_hdr_copy(wsi, buf, sizeof buf, WSI_TOKEN_HTTP_AUTHORIZATION);
    const char *s = buf + sizeof bearer - 1;
    bool ok = n == (int)(sizeof bearer - 1 + DDZ_SESSION_HEX) &&
              strncmp(buf, bearer, sizeof bearer - 1) == 0 &&
              strspn(s, "0123456789abcdefABCDEF") == DDZ_SESSION_HEX;
    if (ok)
        memcpy(out, s, DDZ_SESSION_HEX + 1);
    sodium_memzero(buf, sizeof buf);
    return ok;
}

/* Parses "/api/games/ID" (a listed room's game) or "/api/games/ID-KEY" (a
 * private or password room's, KEY being its DDZ_STORE_KEY_HEX lower-case
 * hex digits), either followed by "/analysis" (its post-game analysis, the
 * same access). Returns true and sets *id, `key` ("" for none) and
 * *analysis, or false for any other path. */
static bool game_path(const char *path, long long *id, char key[DDZ_STORE_KEY_HEX + 1],
                      bool *analysis)
{
    static const char suffix[] = "/analysis";
    size_t n = strlen(path);
    char buf[128];
    *analysis = n > sizeof suffix - 1 && strcmp(path + n - (sizeof suffix - 1), suffix) == 0;
    if (*analysis) {
        if (n - (sizeof suffix - 1) >= sizeof buf)
            return false;
        memcpy(buf, path, n - (sizeof suffix - 1));
        buf[n - (sizeof suffix - 1)] = '\0';
        path = buf;
    }
    static const char prefix[] = "/api/games/";
    const char *p = path + sizeof prefix - 1;
    if (strncmp(path, prefix, sizeof prefix - 1) != 0 || *p < '1' || *p > '9')
        return false;
    char *end;
    errno = 0;
    *id = strtoll(p, &end, 10);
    if (errno || *id < 1)
        return false;
    key[0] = '\0';
    if (!*end)
        return true;
    if (*end != '-' || strlen(end + 1) != DDZ_STORE_KEY_HEX ||
        strspn(end + 1, "0123456789abcdef") != DDZ_STORE_KEY_HEX)
        return false;
    memcpy(key, end + 1, DDZ_STORE_KEY_HEX + 1);
    return true;
}

/* A read not made (out of memory): as when the database is away, ask again. */
static const char db_away[] = "{\"error\":\"EDB\",\"message\":\"database unavailable\"}";

/* Sets the answer of `req` to `status` with the text `body` (copied). */
static void text_answer(ddz_http_req *req, int status, const char *body, const char *extra)
{
    req->status = status;
    req->extra = extra;
    req->body = body ? strdup(body) : NULL;
}

#define RETRY_AFTER "retry-after: 1\x0d\x0a"

/* Sets the answer of GET /api/games/ID/analysis from the store's read
 * `rd` (its record, its cached analysis; both taken): the record's own
 * answer when it may not be read (404, 503, 500: exactly as the record
 * would be, and nothing computed); 200 with the cached analysis (unless
 * an older version cached it: ddz_analyst_current); else
 * what the analyst says: 200 with an answer it still holds, 202 while
 * the game is queued or running (a job queued now if none was), 503 past
 * its bound, 422 for a record it could not analyse. */
static void analysis_answer(ddz_srv *srv, ddz_http_req *req, ddz_store_read *rd)
{
    ddz_metrics *m = &srv->m;
    char *json = NULL;
    if (rd->rc < 0) {
        game_answer(req, rd->rc, rd->json); /* takes it */
        rd->json = NULL;
        return;
    }
    if (rd->analysis && !ddz_analyst_current(rd->analysis)) {
        /* cached by an older version, without what this one adds (a win
         * given away's witness): computed again, and the store's row
         * replaced when the new one is written */
        free(rd->analysis);
        rd->analysis = NULL;
    }
    if (rd->analysis) {
        m->analyses_cached++;
        req->status = HTTP_STATUS_OK;
        req->body = rd->analysis;
        rd->analysis = NULL;
        return;
    }
    int rc = !rd->json      ? DDZ_ENOMEM
             : srv->analyst ? ddz_analyst_request(srv->analyst, rd->id, rd->json, &json)
                            : DDZ_EBUSY;
    switch (rc) {
    case DDZ_ANALYST_READY:
        m->analyses_cached++;
        text_answer(req, HTTP_STATUS_OK, json, NULL);
        break;
    case DDZ_ANALYST_FAILED:
        text_answer(req, 422 /* lws names no 422 */, json, NULL);
        break;
    case DDZ_ANALYST_QUEUED:
    case DDZ_ANALYST_PENDING:
        m->analyses_pending++;
        text_answer(req, 202 /* nor 202 */, "{\"status\":\"pending\"}", RETRY_AFTER);
        break;
    case DDZ_EBUSY:
        m->analyses_refused++;
        text_answer(req, HTTP_STATUS_SERVICE_UNAVAILABLE,
                    "{\"error\":\"EBUSY\",\"message\":\"too many analyses under way: ask "
                    "again\"}",
                    RETRY_AFTER);
        break;
    default:
        text_answer(req, HTTP_STATUS_INTERNAL_SERVER_ERROR,
                    "{\"error\":\"ENOMEM\",\"message\":\"out of memory\"}", NULL);
    }
    free(json);
}

/* A read of this file's routes came back from the store's reader thread:
 * its answer, taking what it serves of the read (the transport frees the
 * rest). */
static void games_read_done(ddz_srv *srv, ddz_store_read *rd, ddz_http_req *req)
{
    if (rd->kind == DDZ_STORE_READ_ANALYSIS) {
        analysis_answer(srv, req, rd); /* what it takes of rd is NULL there */
        return;
    }
    if (rd->kind == DDZ_STORE_READ_MINE_SESSION && rd->rc == DDZ_EAUTH) {
        req->status = HTTP_STATUS_UNAUTHORIZED;
        req->body = strdup("{\"error\":\"EAUTH\",\"message\":\"unknown or ended session\"}");
    } else if (rd->kind == DDZ_STORE_READ_MINE || rd->kind == DDZ_STORE_READ_MINE_SESSION)
        mine_answer(req, rd->rc, rd->json);
    else
        game_answer(req, rd->rc, rd->json);
    rd->json = NULL; /* taken */
}

/* Asks the store for `rd` (NULL: out of memory): the transport submits it
 * (cb_http), or answers 503 as when the database is away. */
static void read_answer(ddz_http_req *req, ddz_store_read *rd)
{
    req->read = rd;
    req->done = games_read_done;
    if (!rd) {
        req->status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        req->body = strdup(db_away);
    }
}

/* GET /api/my-games: a player's own games; who it is comes in the
 * Authorization header, never in the address (logs, history, Referer).
 * Answered when the store's read comes back (mine_answer()). */
static void my_games_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv, (void)path;
    uint8_t me[DDZ_STORE_ME_BYTES];
    char session[DDZ_SESSION_HEX + 1];
    if (my_session(req->wsi, session)) {
        /* a signed-in person's: the account's games, from any device */
        ddz_store_read *rd = calloc(1, sizeof *rd);
        if (rd) {
            rd->kind = DDZ_STORE_READ_MINE_SESSION;
            memcpy(rd->session, session, sizeof rd->session);
        }
        sodium_memzero(session, sizeof session);
        read_answer(req, rd);
        return;
    }
    if (!my_key(req->wsi, me)) {
        req->status = HTTP_STATUS_UNAUTHORIZED;
        req->body = strdup("{\"error\":\"EAUTH\",\"message\":\"send Authorization: Bearer "
                           "KEY, the key the browser said in hello as me, or an account's "
                           "session\"}");
        return;
    }
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (rd) {
        rd->kind = DDZ_STORE_READ_MINE;
        memcpy(rd->me, me, sizeof rd->me);
    }
    read_answer(req, rd);
}

/* GET /api/games/ID[-KEY][/analysis]: the store's reader thread fetches
 * it; the answer waits until then (games_read_done()). An analysis is
 * read the same way, the record's access rule first, with its cached copy
 * if any. */
static void game_get(ddz_srv *srv, const char *path, ddz_http_req *req)
{
    (void)srv;
    long long id;
    char key[DDZ_STORE_KEY_HEX + 1];
    bool analysis;
    if (!game_path(path, &id, key, &analysis)) {
        ddz__http_not_found(req);
        return;
    }
    ddz_store_read *rd = calloc(1, sizeof *rd);
    if (rd) {
        rd->kind = analysis ? DDZ_STORE_READ_ANALYSIS : DDZ_STORE_READ_GAME;
        rd->id = id;
        memcpy(rd->key, key, sizeof rd->key);
    }
    read_answer(req, rd);
}

int ddz__http_games_routes(ddz_srv *srv)
{
    int rc = ddz__http_route_add(&srv->routes, "/api/my-games", false, my_games_get);
    return rc < 0 ? rc : ddz__http_route_add(&srv->routes, "/api/games/", true, game_get);
}
