/* test_http_routes.c - the HTTP route table (service/server/http_routes.c):
 * an exact path against a prefix, the longest prefix winning, an unknown
 * path a 404, what counts as a route for HEAD, the lws mounts made from
 * the table, and the registrations it refuses. The server's answers
 * themselves are tested over HTTP (test_serve, test_serve_ladder,
 * test_serve_tourney, test_serve_analysis). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/server/http_routes.h"

/* Each handler answers its own name, so a test sees which one ran. */
#define HANDLER(name)                                                                              \
    static void name(ddz_srv *srv, const char *path, ddz_http_req *req)                            \
    {                                                                                              \
        (void)srv, (void)path;                                                                     \
        req->body = strdup(#name);                                                                 \
    }
HANDLER(health)
HANDLER(ladder)
HANDLER(ladder_player)
HANDLER(api_any)
HANDLER(games)

/* The handler that takes `path`'s name, or "" for none. */
static const char *who(const ddz_http_routes *t, const char *path)
{
    const ddz_http_route *r = ddz__http_route_find(t, path);
    static char name[32];
    if (!r)
        return "";
    ddz_http_req req = {0};
    r->fn(NULL, path, &req);
    snprintf(name, sizeof name, "%s", req.body);
    free(req.body);
    return name;
}

static ddz_http_routes table(void)
{
    ddz_http_routes t = {0};
    cr_assert_eq(ddz__http_route_add(&t, "/healthz", false, health), 0);
    cr_assert_eq(ddz__http_route_add(&t, "/api/", true, api_any), 0);
    cr_assert_eq(ddz__http_route_add(&t, "/api/ladder/", true, ladder_player), 0);
    cr_assert_eq(ddz__http_route_add(&t, "/api/ladder", false, ladder), 0);
    cr_assert_eq(ddz__http_route_add(&t, "/api/games/", true, games), 0);
    return t;
}

Test(http_routes, exact_path_is_that_path_alone)
{
    ddz_http_routes t = table();
    cr_assert_str_eq(who(&t, "/healthz"), "health");
    cr_assert_str_eq(who(&t, "/healthz/"), "");
    cr_assert_str_eq(who(&t, "/healthzz"), "");
    cr_assert_str_eq(who(&t, "/health"), "");
}

Test(http_routes, exact_path_beats_a_prefix_and_longest_prefix_wins)
{
    ddz_http_routes t = table();
    /* "/api/ladder" is under the prefix "/api/" too */
    cr_assert_str_eq(who(&t, "/api/ladder"), "ladder");
    /* "/api/ladder/" is longer than "/api/", registered after it or not */
    cr_assert_str_eq(who(&t, "/api/ladder/bot%201"), "ladder_player");
    cr_assert_str_eq(who(&t, "/api/ladder/"), "ladder_player");
    cr_assert_str_eq(who(&t, "/api/games/12"), "games");
    cr_assert_str_eq(who(&t, "/api/ladderx"), "api_any");
    cr_assert_str_eq(who(&t, "/api/"), "api_any");
    /* a prefix ends in '/': "/api" is not under "/api/" */
    cr_assert_str_eq(who(&t, "/api"), "");
}

Test(http_routes, unknown_path_is_404_no_such_resource)
{
    ddz_http_routes t = {0};
    cr_assert_eq(ddz__http_route_add(&t, "/healthz", false, health), 0);
    ddz_http_req req = {0};
    ddz__http_route(NULL, &t, "/nothing", &req);
    cr_assert_eq(req.status, 404);
    cr_assert_str_eq(req.type, "application/json");
    cr_assert_str_eq(req.body, "{\"error\":\"ENOTFOUND\",\"message\":\"no such resource\"}");
    free(req.body);
    /* a route found: 200 and JSON unless its handler says otherwise */
    req = (ddz_http_req){0};
    ddz__http_route(NULL, &t, "/healthz", &req);
    cr_assert_eq(req.status, 200);
    cr_assert_str_eq(req.type, "application/json");
    cr_assert_str_eq(req.body, "health");
    free(req.body);
}

Test(http_routes, a_route_is_anything_under_a_routes_first_segment)
{
    ddz_http_routes t = table();
    cr_assert(ddz__http_is_route(&t, "/healthz"));
    cr_assert(ddz__http_is_route(&t, "/healthz/x"));
    cr_assert(ddz__http_is_route(&t, "/api"));
    cr_assert(ddz__http_is_route(&t, "/api/nothing")); /* a route's 404, not a file's */
    cr_assert_not(ddz__http_is_route(&t, "/apix"));
    cr_assert_not(ddz__http_is_route(&t, "/metrics")); /* not registered here */
    cr_assert_not(ddz__http_is_route(&t, "/"));
    cr_assert_not(ddz__http_is_route(&t, "/index.html"));
    cr_assert_not(ddz__http_is_route(&t, ""));
}

Test(http_routes, one_mount_per_first_segment_chained_to_the_next)
{
    ddz_http_routes t = table();
    struct lws_http_mount files = {.mountpoint = "/", .mountpoint_len = 1};
    const struct lws_http_mount *m = ddz__http_mounts(&t, "ddz-http", &files);
    const char *want[] = {"/healthz", "/api"};
    for (int i = 0; i < 2; i++, m = m->mount_next) {
        cr_assert_not_null(m);
        cr_assert_str_eq(m->mountpoint, want[i]);
        cr_assert_eq(m->mountpoint_len, strlen(want[i]));
        cr_assert_str_eq(m->origin, "ddz-http");
        cr_assert_eq(m->origin_protocol, LWSMPRO_CALLBACK);
    }
    cr_assert_eq(m, &files);
    ddz_http_routes none = {0};
    cr_assert_eq(ddz__http_mounts(&none, "ddz-http", &files), &files);
}

Test(http_routes, bad_and_twice_registered_paths_are_refused)
{
    ddz_http_routes t = table();
    cr_assert_eq(ddz__http_route_add(&t, "/healthz", false, health), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/api/games/", true, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/api/x/", false, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/api/x", true, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "api/x", false, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/", true, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "//x", false, games), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/x", false, NULL), DDZ_EINVAL);
    cr_assert_eq(ddz__http_route_add(&t, "/a-first-segment-too-long-for-a-mount", false, games),
                 DDZ_EINVAL);
    /* the same path as the other kind is another route */
    cr_assert_eq(ddz__http_route_add(&t, "/api/games", false, games), 0);
}

Test(http_routes, the_table_is_bounded)
{
    ddz_http_routes t = {0};
    static char paths[DDZ_HTTP_ROUTES_MAX + 1][16];
    for (int i = 0; i <= DDZ_HTTP_ROUTES_MAX; i++) {
        snprintf(paths[i], sizeof paths[i], "/r%d", i);
        cr_assert_eq(ddz__http_route_add(&t, paths[i], false, health),
                     i < DDZ_HTTP_ROUTES_MAX ? 0 : DDZ_ENOSPC, "route %d", i);
    }
    cr_assert_str_eq(who(&t, "/r0"), "health");
    cr_assert_str_eq(who(&t, paths[DDZ_HTTP_ROUTES_MAX]), "");
}

Test(http_routes, url_decode)
{
    char out[8];
    cr_assert_eq(ddz__http_url_decode("bot%201", out, sizeof out), 0);
    cr_assert_str_eq(out, "bot 1");
    cr_assert_eq(ddz__http_url_decode("%e5%9c%b0", out, sizeof out), 0);
    cr_assert_str_eq(out, "\xe5\x9c\xb0");
    cr_assert_eq(ddz__http_url_decode("a%2", out, sizeof out), -1);
    cr_assert_eq(ddz__http_url_decode("a%00", out, sizeof out), -1);
    cr_assert_eq(ddz__http_url_decode("", out, sizeof out), -1);
    cr_assert_eq(ddz__http_url_decode("12345678", out, sizeof out), -1);
}

/* A body route answers the methods it names and no other; every other
 * path (a route or a file) GET and HEAD alone. */
Test(http_routes, body_routes_take_their_methods_only)
{
    ddz_http_routes t = table();
    cr_assert_eq(ddz__http_route_add_methods(&t, "/api/sessions",
                                             DDZ_HTTP_ROUTE_POST | DDZ_HTTP_ROUTE_DELETE, games),
                 0);
    cr_assert_eq(ddz__http_route_add_methods(&t, "/api/accounts", DDZ_HTTP_ROUTE_POST, games), 0);
    cr_expect_eq(ddz__http_route_add_methods(&t, "/api/x", 0, games), DDZ_EINVAL);
    cr_expect_eq(ddz__http_route_add_methods(&t, "/api/y", 4, games), DDZ_EINVAL);
    const char *allow = NULL;
    cr_expect(ddz__http_route_takes(&t, "/api/sessions", LWSHUMETH_POST, &allow));
    cr_expect_str_eq(allow, "POST, DELETE");
    cr_expect(ddz__http_route_takes(&t, "/api/sessions?x=1", LWSHUMETH_DELETE, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/sessions", LWSHUMETH_GET, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/accounts", LWSHUMETH_DELETE, &allow));
    cr_expect_str_eq(allow, "POST");
    cr_expect_not(ddz__http_route_takes(&t, "/api/accounts", LWSHUMETH_HEAD, NULL));
    cr_expect(ddz__http_route_takes(&t, "/api/ladder", LWSHUMETH_GET, &allow));
    cr_expect_str_eq(allow, "GET, HEAD");
    cr_expect_not(ddz__http_route_takes(&t, "/api/ladder", LWSHUMETH_POST, NULL));
    cr_expect(ddz__http_route_takes(&t, "/index.html", LWSHUMETH_HEAD, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/index.html", LWSHUMETH_DELETE, NULL));
}

/* A body route may be a prefix (POST /api/puzzles/ID/attempt): every path
 * under it takes its methods, but an exact route there keeps its own. */
Test(http_routes, a_body_route_may_be_a_prefix)
{
    ddz_http_routes t = table();
    cr_assert_eq(ddz__http_route_add(&t, "/api/puzzles/next", false, games), 0);
    cr_assert_eq(ddz__http_route_add_methods(&t, "/api/puzzles/", DDZ_HTTP_ROUTE_POST, games), 0);
    cr_expect(ddz__http_route_takes(&t, "/api/puzzles/7/attempt", LWSHUMETH_POST, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/puzzles/7/attempt", LWSHUMETH_GET, NULL));
    cr_expect(ddz__http_route_takes(&t, "/api/puzzles/next", LWSHUMETH_GET, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/puzzles/next", LWSHUMETH_POST, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/puzzlesx", LWSHUMETH_POST, NULL));
}

/* A body route that names GET takes GET and HEAD too (GET /api/puzzles/ID
 * and POST /api/puzzles/ID/attempt under one prefix), and no other. */
Test(http_routes, a_body_route_may_take_get_too)
{
    ddz_http_routes t = table();
    cr_assert_eq(ddz__http_route_add_methods(&t, "/api/puzzles/",
                                             DDZ_HTTP_ROUTE_GET | DDZ_HTTP_ROUTE_POST, games),
                 0);
    const char *allow = NULL;
    cr_expect(ddz__http_route_takes(&t, "/api/puzzles/7", LWSHUMETH_GET, &allow));
    cr_expect_str_eq(allow, "GET, HEAD, POST");
    cr_expect(ddz__http_route_takes(&t, "/api/puzzles/7", LWSHUMETH_HEAD, NULL));
    cr_expect(ddz__http_route_takes(&t, "/api/puzzles/7/attempt", LWSHUMETH_POST, NULL));
    cr_expect_not(ddz__http_route_takes(&t, "/api/puzzles/7", LWSHUMETH_DELETE, &allow));
    cr_expect_eq(ddz__http_route_add_methods(&t, "/api/z", DDZ_HTTP_ROUTE_GET, games), DDZ_EINVAL);
}
