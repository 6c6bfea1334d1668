/* test_serve_puzzles.c - the server's puzzles over HTTP (spec §16,
 * http_puzzles.h): GET /api/puzzles/next from a served server, over a
 * database whose stock the store wrote: a puzzle of the rules asked for,
 * never with its solutions, not one of the recent ids while others
 * remain; bad arguments refused with 400, an empty stock 404. */
#include "serve_harness.h"

#include "service/store/store.h"

/* Three caai puzzles (games 1..3) and one botzone-ftl puzzle (game 9). */
static void fill_database(void)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    for (int g = 1; g <= 4; g++) {
        ddz_store_puzzle p = {.game = g == 4 ? 9 : g,
                              .ply = 10 + g,
                              .landlord = 0,
                              .turn = 1,
                              .last_by = 0,
                              .moves = 5,
                              .difficulty = 2.32};
        snprintf(p.rules, sizeof p.rules, "%s", g == 4 ? "botzone-ftl" : "caai");
        snprintf(p.hands, sizeof p.hands, "[[0],[4,53],[8]]");
        snprintf(p.last, sizeof p.last, "[1]");
        snprintf(p.side, sizeof p.side, "farmers");
        snprintf(p.solutions, sizeof p.solutions, "[[53]]");
        cr_assert_eq(ddz_store_add_puzzle(s, &p), 0);
    }
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_close(s);
}

static json_t *get_json(const char *path, int want_status)
{
    int status = 0;
    char *body = http_get(path, &status);
    cr_assert_eq(status, want_status, "GET %s: %d %s", path, status, body ? body : "");
    json_error_t e;
    json_t *j = json_loads(body ? body : "", 0, &e);
    cr_assert_not_null(j, "GET %s: not JSON: %s", path, body ? body : "");
    free(body);
    return j;
}

Test(serve_puzzles, next_never_tells_the_solutions, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    bool seen[4] = {false};
    for (int i = 0; i < 30; i++) {
        json_t *j = get_json("/api/puzzles/next", 200); /* the default rule set */
        cr_expect_str_eq(json_string_value(json_object_get(j, "rules")), "caai");
        cr_expect_null(json_object_get(j, "solutions"));
        cr_expect_null(json_object_get(j, "game"), "the game's record would tell");
        cr_expect_null(json_object_get(j, "ply"));
        json_int_t id = json_integer_value(json_object_get(j, "id"));
        cr_assert(id >= 1 && id <= 3, "id %lld", (long long)id);
        seen[id] = true;
        json_t *hands = json_object_get(j, "hands");
        cr_expect_eq(json_array_size(hands), 3);
        cr_expect_eq(json_integer_value(json_array_get(json_array_get(hands, 1), 1)), 53);
        cr_expect_eq(json_integer_value(json_object_get(j, "landlord")), 0);
        cr_expect_eq(json_integer_value(json_object_get(j, "turn")), 1);
        cr_expect_eq(json_integer_value(json_array_get(json_object_get(j, "last"), 0)), 1);
        cr_expect_eq(json_integer_value(json_object_get(j, "last_by")), 0);
        cr_expect_str_eq(json_string_value(json_object_get(j, "side")), "farmers");
        cr_expect_eq(json_integer_value(json_object_get(j, "moves")), 5);
        cr_expect_eq(json_number_value(json_object_get(j, "rating")), 1500.0);
        json_decref(j);
    }
    cr_expect(seen[1] && seen[2] && seen[3], "picked at random among the near ones");

    for (int i = 0; i < 5; i++) {
        json_t *j = get_json("/api/puzzles/next?rules=caai&recent=1,3", 200);
        cr_expect_eq(json_integer_value(json_object_get(j, "id")), 2, "not a recent one");
        json_decref(j);
    }
    json_t *j = get_json("/api/puzzles/next?rules=botzone-ftl", 200);
    cr_expect_eq(json_integer_value(json_object_get(j, "id")), 4);
    cr_expect_null(json_object_get(j, "solutions"));
    json_decref(j);
}

Test(serve_puzzles, bad_requests_refused, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    json_t *j = get_json("/api/puzzles/next?rules=nope", 400);
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ERULESET");
    json_decref(j);
    static const char *const bad[] = {"abc", "1,,2", "1,", "-1", "0", "1x", "%201"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[128];
        snprintf(path, sizeof path, "/api/puzzles/next?recent=%s", bad[i]);
        j = get_json(path, 400);
        cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "EFIELD", "%s", bad[i]);
        json_decref(j);
    }
    j = get_json("/api/puzzles/next?rules=botzone-ftl2", 404); /* none of those yet */
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ENOTFOUND");
    json_decref(j);
}
