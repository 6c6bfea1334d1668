/* test_serve_analysis.c - GET /api/games/ID/analysis (issue 26): a
 * finished game's post-game analysis, computed off the loop on the first
 * request (202 until then), cached in the store, read under exactly the
 * record's access rule, and refused (503) past the analyst's bound; a
 * win given away names a play that would have kept it (its "witness"),
 * and an analysis cached by a version without witnesses is computed
 * again and replaced. The held competition game's case is in
 * test_serve_tourney.c. */
#include <arpa/inet.h>
#include <sqlite3.h>

#include "serve_harness.h"

/* GETs `path` on a socket of its own and returns the whole answer (status
 * line, headers, body), malloc'd: what ddz_wsc_http_get() does not show,
 * the headers. Bounded by T(5000). */
static char *raw_get(const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)srv.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path);
    cr_assert_eq(write(fd, req, (size_t)n), n);
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int64_t left = deadline - now_ms();
        cr_assert_gt(left, 0, "GET %s: no whole answer within %d ms", path, T(5000));
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        if (len + 1 >= cap)
            buf = realloc(buf, cap *= 2);
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got <= 0)
            break; /* the server closes after its answer */
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

/* The analysis of game `id` (under `key` if not ""): asked again while it
 * is 202 (each 202 "pending"), until 200; bounded. Returns it parsed. */
static json_t *analysis_ready(long long id, const char *key)
{
    char path[128];
    snprintf(path, sizeof path, "/api/games/%lld%s%s/analysis", id, key[0] ? "-" : "", key);
    int64_t deadline = now_ms() + T(20000);
    for (;;) {
        int status;
        char *body = http_get(path, &status);
        json_t *j = json_loads(body, 0, NULL);
        cr_assert_not_null(j, "GET %s: %d, not JSON: %s", path, status, body);
        if (status == 200) {
            free(body);
            return j;
        }
        cr_assert_eq(status, 202, "GET %s: %d %s", path, status, body);
        cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "pending");
        json_decref(j);
        free(body);
        cr_assert_lt(now_ms(), deadline, "GET %s: still pending after %d ms", path, T(20000));
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
}

/* Checks analysis `an` of game `id` against its record `rec`: of the
 * current form (its version); one entry per play, in order, by the play's
 * seat; each position's verdict the last one's after; the last after the
 * winner's side; keeps only where a play gave the win away, as card lists
 * out of the mover's hand; there, always a witness, one of the keeps
 * when they are listed. */
static void check_analysis(json_t *an, json_t *rec, long long id)
{
    cr_assert_eq(json_integer_value(json_object_get(an, "version")), 2);
    cr_assert_eq(json_integer_value(json_object_get(an, "game_id")), id);
    json_t *plies = json_object_get(an, "plies"), *plays = json_object_get(rec, "plays");
    size_t n = json_array_size(plays);
    cr_assert_gt(n, 0, "a game with plays");
    cr_assert_eq(json_array_size(plies), n, "one entry per play: %zu for %zu",
                 json_array_size(plies), n);
    const char *last = NULL;
    int gave[3] = {0};
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(plies, i), *play = json_array_get(plays, i);
        cr_assert_eq(json_integer_value(json_object_get(p, "ply")), (json_int_t)i);
        cr_assert_eq(json_integer_value(json_object_get(p, "seat")),
                     json_integer_value(json_object_get(play, "seat")));
        const char *before = json_string_value(json_object_get(p, "before"));
        const char *after = json_string_value(json_object_get(p, "after"));
        cr_assert(before && after, "ply %zu: verdicts", i);
        for (int k = 0; k < 2; k++) {
            const char *v = k ? after : before;
            cr_assert(!strcmp(v, "landlord") || !strcmp(v, "farmers") || !strcmp(v, "unknown"),
                      "ply %zu: verdict %s", i, v);
        }
        if (last)
            cr_assert_str_eq(before, last, "ply %zu: before is the last ply's after", i);
        last = after;
        json_t *keeps = json_object_get(p, "keeps"), *witness = json_object_get(p, "witness");
        if (json_is_true(json_object_get(p, "gave"))) {
            gave[json_integer_value(json_object_get(p, "seat"))]++;
            cr_assert(strcmp(before, after) != 0 && strcmp(after, "unknown") != 0);
            cr_assert(json_is_null(keeps) || json_array_size(keeps) > 0, "ply %zu", i);
            bool listed = json_is_null(keeps);
            for (size_t k = 0; k < json_array_size(keeps); k++) {
                cr_assert(json_is_array(json_array_get(keeps, k)), "ply %zu: keeps as cards", i);
                listed |= json_equal(json_array_get(keeps, k), witness);
            }
            cr_assert(json_is_array(witness), "ply %zu: a win given away names a keeping play", i);
            cr_assert(listed, "ply %zu: the witness is one of the keeps", i);
        } else {
            cr_assert(json_is_false(json_object_get(p, "gave")), "ply %zu: gave", i);
            cr_assert(json_is_null(keeps), "ply %zu: keeps only where the win was given", i);
            cr_assert(json_is_null(witness), "ply %zu: a witness only where it was given", i);
        }
    }
    int landlord = (int)json_integer_value(json_object_get(rec, "landlord"));
    int winner = (int)json_integer_value(json_object_get(rec, "winner"));
    cr_assert_str_eq(last, winner == landlord ? "landlord" : "farmers",
                     "the last position is the winner's side's");
    json_t *tally = json_object_get(an, "tally");
    cr_assert_eq(json_array_size(tally), 3);
    for (int s = 0; s < 3; s++)
        cr_assert_eq(json_integer_value(json_object_get(json_array_get(tally, s), "gave")), gave[s],
                     "seat %d: the tally counts its plays that gave", s);
    json_t *budget = json_object_get(an, "budget");
    char *shown = json_dumps(budget, JSON_COMPACT);
    cr_log_info("game %lld: %zu plays, budget %s", id, n, shown);
    free(shown);
    cr_assert(json_integer_value(json_object_get(budget, "nodes")) > 0 &&
                  json_integer_value(json_object_get(budget, "position_ms")) > 0 &&
                  json_integer_value(json_object_get(budget, "game_ms")) > 0 &&
                  json_is_integer(json_object_get(budget, "nodes_used")),
              "the budget used is said");
}

/* A listed room's game: its analysis by the id alone, computed once (202
 * first, with Retry-After), then served from the cache. */
Test(serve_analysis, a_listed_rooms_game, .init = setup, .fini = teardown)
{
    cli *c[3];
    c[0] = cli_hello("West");
    c[0]->bidder = true;
    const char *room = cli_create(c[0], opts(1, 0, 10), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    cr_assert_eq(run(c, 3, NULL, NULL, T(30000)), -1);
    const ddz_event_over *over = c[0]->over;
    cr_assert_eq(over->game_key[0], '\0', "a listed room's game has no key");
    json_t *rec = fetch_game(over->game_id, "");

    char path[96];
    snprintf(path, sizeof path, "/api/games/%lld/analysis", (long long)over->game_id);
    char *first = raw_get(path);
    cr_assert(strncmp(first, "HTTP/1.1 202", 12) == 0, "the first ask queues it: %s", first);
    cr_assert(strcasestr(first, "\r\nretry-after: 1\r\n"), "202 says when to ask again: %s", first);
    cr_assert(strstr(first, "{\"status\":\"pending\"}"), "%s", first);
    free(first);

    json_t *an = analysis_ready(over->game_id, "");
    check_analysis(an, rec, over->game_id);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 1, "computed once");
    cr_assert_eq(metric("ddz_analyses_total{result=\"cached\"}"), 1);
    /* the second fetch: the cache's (the store's, or the analyst's own
     * while the store writes it), nothing computed again */
    int status;
    char *body = http_get(path, &status);
    cr_assert_eq(status, 200, "%s", body);
    json_t *again = json_loads(body, 0, NULL);
    cr_assert(json_equal(again, an), "the cached analysis is the one computed");
    free(body);
    json_decref(again);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 1, "not computed again");
    cr_assert_eq(metric("ddz_analyses_total{result=\"cached\"}"), 2, "served from the cache");
    cr_assert_eq(metric("ddz_analyses_in_hand"), 0);

    /* the store keeps it: a restarted server serves it at once */
    cr_assert_eq(server_stop(), 0);
    server_start();
    body = http_get(path, &status);
    cr_assert_eq(status, 200, "after a restart, from the store: %d %s", status, body);
    again = json_loads(body, 0, NULL);
    cr_assert(json_equal(again, an), "the stored analysis is the one computed");
    free(body);
    json_decref(again);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 0, "nothing computed");

    /* an analysis cached by an older version (no "version", no witness)
     * is computed again, and the new one replaces it in the store */
    cr_assert_eq(server_stop(), 0);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(srv.db, &db), SQLITE_OK);
    char *old = sqlite3_mprintf("UPDATE analyses SET analysis = '{\"game_id\":%lld,\"plies\":[]}'"
                                " WHERE game = %lld",
                                (long long)over->game_id, (long long)over->game_id);
    cr_assert_eq(sqlite3_exec(db, old, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_changes(db), 1);
    sqlite3_free(old);
    sqlite3_close(db);
    server_start();
    first = raw_get(path);
    cr_assert(strncmp(first, "HTTP/1.1 202", 12) == 0, "an old form is computed again: %s", first);
    free(first);
    again = analysis_ready(over->game_id, "");
    check_analysis(again, rec, over->game_id);
    json_decref(again);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 1);
    /* the store holds the new one once written: after a restart it is
     * served at once (bounded: the write is the store's, after the job) */
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        cr_assert_eq(server_stop(), 0);
        server_start();
        body = http_get(path, &status);
        if (status == 200)
            break;
        free(body);
        cr_assert_lt(now_ms(), deadline, "the new analysis never reached the store");
    }
    again = json_loads(body, 0, NULL);
    free(body);
    check_analysis(again, rec, over->game_id);
    json_decref(again);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 0, "replaced in the store");

    /* unknown ids and malformed paths are the record's 404s */
    body = http_get("/api/games/987654321/analysis", &status);
    cr_assert_eq(status, 404, "%s", body);
    free(body);
    body = http_get("/api/games/1x/analysis", &status);
    cr_assert_eq(status, 404, "%s", body);
    free(body);
    snprintf(path, sizeof path, "/api/games/%lld-%032d/analysis", (long long)over->game_id, 0);
    body = http_get(path, &status);
    cr_assert_eq(status, 404, "a listed game under a key is no game, as its record: %s", body);
    free(body);
    json_decref(an);
    json_decref(rec);
}

/* A private room's game (quick play): 404 without its key, as the record
 * is, and nothing computed; with the key, its analysis. */
Test(serve_analysis, a_private_rooms_game_needs_its_key, .init = setup, .fini = teardown)
{
    cli *c = cli_hello("Lin");
    c->bidder = true;
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cli_expect(c, DDZ_EVENT_STATE);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    const ddz_event_over *over = c->over;
    cr_assert_eq(strlen(over->game_key), 32, "a private room's game has a key");
    json_t *rec = fetch_game(over->game_id, over->game_key);

    char path[128];
    snprintf(path, sizeof path, "/api/games/%lld/analysis", (long long)over->game_id);
    int status;
    char *body = http_get(path, &status);
    cr_assert_eq(status, 404, "no key, no analysis: %d %s", status, body);
    free(body);
    char wrong[33];
    snprintf(wrong, sizeof wrong, "%s", over->game_key);
    wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
    snprintf(path, sizeof path, "/api/games/%lld-%s/analysis", (long long)over->game_id, wrong);
    body = http_get(path, &status);
    cr_assert_eq(status, 404, "a wrong key, no analysis: %d %s", status, body);
    free(body);
    cr_assert_eq(metric("ddz_analyses_total{result=\"pending\"}"), 0, "nothing was queued");

    json_t *an = analysis_ready(over->game_id, over->game_key);
    check_analysis(an, rec, over->game_id);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 1);
    json_decref(an);
    json_decref(rec);
}

/* Past the bound of games in hand, 503 with Retry-After: with
 * --analysis-jobs 0 the bound is reached before the first. */
Test(serve_analysis, refused_past_the_bound, .init = setup_no_server, .fini = teardown)
{
    static const char *const extra[] = {"--analysis-jobs", "0", NULL};
    memcpy(serve_extra, extra, sizeof extra);
    server_start();
    cli *c = cli_hello("Lin");
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cli_expect(c, DDZ_EVENT_STATE);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    const ddz_event_over *over = c->over;
    json_decref(fetch_game(over->game_id, over->game_key));
    char path[128];
    snprintf(path, sizeof path, "/api/games/%lld-%s/analysis", (long long)over->game_id,
             over->game_key);
    for (int i = 0; i < 2; i++) {
        char *a = raw_get(path);
        cr_assert(strncmp(a, "HTTP/1.1 503", 12) == 0, "refused: %s", a);
        cr_assert(strcasestr(a, "\r\nretry-after: 1\r\n"), "503 says when to ask again: %s", a);
        cr_assert(strstr(a, "\"EBUSY\""), "%s", a);
        free(a);
    }
    cr_assert_eq(metric("ddz_analyses_total{result=\"refused\"}"), 2);
    cr_assert_eq(metric("ddz_analyses_total{result=\"computed\"}"), 0);
}
