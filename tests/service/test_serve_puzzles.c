/* test_serve_puzzles.c - the server's puzzles over HTTP (spec §16,
 * puzzles_srv.h): GET /api/puzzles/next from a served server, over a
 * database whose stock the store wrote: a puzzle of the rules asked for,
 * never with its solutions, not one of the recent ids while others
 * remain; bad arguments refused with 400, an empty stock 404. POST
 * /api/puzzles/ID/attempt on a puzzle `ddz puzzles` found in a match log:
 * a wrong first play fails and only then tells the solutions, a winning
 * one goes on (or is solved) without them, bad bodies, illegal plays and
 * unknown puzzles are refused; a signed-in person's first ended attempt
 * at a puzzle is rated (solved: up; failed: down), later ones are not,
 * and next is picked near their rating and says it. GET /api/puzzles/ID
 * and the page's link /puzzles. */
#include "serve_harness.h"

#include "rules/cards.h"
#include "rules/combo.h"
#include "rules/movegen.h"
#include "rules/ruleset.h"
#include "server/accounts_http.h"
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

Test(serve_puzzles, next_never_tells_the_solutions, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    bool seen[4] = {false};
    for (int i = 0; i < 30; i++) {
        json_t *j = http_json("/api/puzzles/next", 200); /* the default rule set */
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
        json_t *j = http_json("/api/puzzles/next?rules=caai&recent=1,3", 200);
        cr_expect_eq(json_integer_value(json_object_get(j, "id")), 2, "not a recent one");
        json_decref(j);
    }
    json_t *j = http_json("/api/puzzles/next?rules=botzone-ftl", 200);
    cr_expect_eq(json_integer_value(json_object_get(j, "id")), 4);
    cr_expect_null(json_object_get(j, "solutions"));
    json_decref(j);
}

Test(serve_puzzles, bad_requests_refused, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    json_t *j = http_json("/api/puzzles/next?rules=nope", 400);
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ERULESET");
    json_decref(j);
    static const char *const bad[] = {"abc", "1,,2", "1,", "-1", "0", "1x", "%201"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[128];
        snprintf(path, sizeof path, "/api/puzzles/next?recent=%s", bad[i]);
        j = http_json(path, 400);
        cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "EFIELD", "%s", bad[i]);
        json_decref(j);
    }
    j = http_json("/api/puzzles/next?rules=botzone-ftl2", 404); /* none of those yet */
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ENOTFOUND");
    json_decref(j);
}

/* The first puzzle `ddz puzzles` finds in a log of 80 games, stored as
 * game 50's (id 1: the only one); its line as JSON in *line. */
static void fill_real_puzzle(json_t **line)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " match --seat A=ai:greedy --seat B=ai:random --seat C=ai:greedy --games 80"
                     " --seed %064d --log %s/games.jsonl >/dev/null && " DDZ_BIN
                     " puzzles %s/games.jsonl 2>/dev/null | head -1 >%s/p.jsonl",
             11, srv.dir, srv.dir, srv.dir);
    cr_assert_eq(system(cmd), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/p.jsonl", srv.dir);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s", e.text);
    ddz_store_puzzle p = {.game = 50, .ply = (int)json_integer_value(json_object_get(j, "ply"))};
    snprintf(p.rules, sizeof p.rules, "%s", json_string_value(json_object_get(j, "rules")));
    char *t = json_dumps(json_object_get(j, "hands"), JSON_COMPACT);
    snprintf(p.hands, sizeof p.hands, "%s", t);
    free(t);
    json_t *last = json_object_get(j, "last");
    p.last_by = json_is_null(last) ? -1 : (int)json_integer_value(json_object_get(j, "last_by"));
    if (!json_is_null(last)) {
        t = json_dumps(last, JSON_COMPACT);
        snprintf(p.last, sizeof p.last, "%s", t);
        free(t);
    }
    t = json_dumps(json_object_get(j, "solutions"), JSON_COMPACT);
    snprintf(p.solutions, sizeof p.solutions, "%s", t);
    free(t);
    p.landlord = (int)json_integer_value(json_object_get(j, "landlord"));
    p.turn = (int)json_integer_value(json_object_get(j, "turn"));
    snprintf(p.side, sizeof p.side, "%s", json_string_value(json_object_get(j, "side")));
    p.moves = (int)json_integer_value(json_object_get(j, "moves"));
    p.difficulty = json_number_value(json_object_get(j, "difficulty"));
    char err[256] = "";
    ddz_store *s = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(ddz_store_add_puzzle(s, &p), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_close(s);
    *line = j;
}

static ddz_cards cards_of(const json_t *a)
{
    ddz_cards c = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) c |= 1ULL << json_integer_value(v);
    return c;
}

/* {"plays":[CARDS]} */
static char *one_play(ddz_cards c)
{
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(codes[i]));
    json_t *b = json_pack("{s:[o]}", "plays", a);
    char *text = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    return text;
}

Test(serve_puzzles, an_attempt_is_checked, .init = setup_no_server, .fini = teardown)
{
    json_t *pz;
    fill_real_puzzle(&pz);
    server_start();
    /* a losing first play: the first legal play that is not a solution */
    const ddz_rules *rs = ddz_rules_find(json_string_value(json_object_get(pz, "rules")));
    int turn = (int)json_integer_value(json_object_get(pz, "turn"));
    ddz_cards hand = cards_of(json_array_get(json_object_get(pz, "hands"), (size_t)turn));
    json_t *last = json_object_get(pz, "last");
    ddz_combo lc = {.type = DDZ_PASS};
    if (!json_is_null(last))
        lc = ddz_combo_classify(rs, ddz_cards_ranks(cards_of(last)));
    static ddz_move moves[DDZ_MOVES_MAX];
    int n = ddz_movegen(rs, ddz_cards_ranks(hand), json_is_null(last) ? NULL : &lc, moves,
                        DDZ_MOVES_MAX);
    json_t *sols = json_object_get(pz, "solutions");
    ddz_cards wrong = (ddz_cards)-1;
    for (int i = 0; i < n && wrong == (ddz_cards)-1; i++) {
        ddz_cards c = ddz_cards_pick(hand, moves[i].ranks);
        bool wins = false;
        size_t k;
        json_t *v;
        json_array_foreach(sols, k, v) wins |= cards_of(v) == c;
        if (!wins)
            wrong = c;
    }
    cr_assert_neq(wrong, (ddz_cards)-1);

    char *body = one_play(wrong);
    reply r = call("POST", "/api/puzzles/1/attempt", body, NULL);
    free(body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *a = json_loads(r.body, 0, NULL);
    free(r.body);
    cr_expect_str_eq(json_string_value(json_object_get(a, "result")), "failed");
    cr_expect(json_equal(json_object_get(a, "solutions"), sols), "the solutions, told now");
    cr_expect_eq(json_array_size(json_object_get(a, "line")), 1);
    json_decref(a);

    body = one_play(cards_of(json_array_get(sols, 0)));
    r = call("POST", "/api/puzzles/1/attempt", body, NULL);
    free(body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    a = json_loads(r.body, 0, NULL);
    free(r.body);
    const char *res = json_string_value(json_object_get(a, "result"));
    cr_assert_not_null(res);
    cr_expect(strcmp(res, "continue") == 0 || strcmp(res, "solved") == 0, "%s", res);
    cr_expect_null(json_object_get(a, "solutions"), "a winning play tells no solutions");
    json_decref(a);

    /* bad bodies and plays, unknown puzzles, other methods */
    r = call("POST", "/api/puzzles/1/attempt", "{\"plays\":", NULL);
    expect(&r, 400, "EFIELD");
    r = call("POST", "/api/puzzles/1/attempt", "{\"plays\":[]}", NULL);
    expect(&r, 400, "EFIELD");
    body = one_play(~hand & ((1ULL << DDZ_NCARDS) - 1) & -(~hand & ((1ULL << DDZ_NCARDS) - 1)));
    r = call("POST", "/api/puzzles/1/attempt", body, NULL); /* a card not held */
    free(body);
    expect(&r, 400, "EILLEGAL");
    r = call("POST", "/api/puzzles/999/attempt", "{\"plays\":[[0]]}", NULL);
    expect(&r, 404, "ENOTFOUND");
    r = call("POST", "/api/puzzles/x/attempt", "{\"plays\":[[0]]}", NULL);
    expect(&r, 404, NULL);
    r = call("POST", "/api/puzzles/1/other", "{\"plays\":[[0]]}", NULL);
    expect(&r, 404, NULL);
    r = call("GET", "/api/puzzles/1/attempt", NULL, NULL);
    expect(&r, 405, NULL);
    r = call("POST", "/api/puzzles/next", "{}", NULL);
    expect(&r, 405, NULL);
    json_decref(pz);
}

/* The server's own games are examined for the stock (puzzler.h), off its
 * loop: a listed room's two games, both examined, counted at /metrics. */
Test(serve_puzzles, served_games_are_examined, .init = setup, .fini = teardown)
{
    cli *c = cli_hello("Host");
    c->bidder = true;
    json_t *o = opts(2, 0, 30);
    json_object_set_new(o, "seats", json_pack("[n, s, s]", "ai:greedy", "ai:greedy"));
    cli_create(c, o, 0);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    reset_over(&c, 1);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    cr_expect_eq(metric("ddz_puzzle_games_total{result=\"offered\"}"), 2);
    cr_expect_eq(metric_becomes("ddz_puzzle_games_total{result=\"examined\"}", 2, T(10000)), 2);
    /* the positions counted (none, maybe: a quick win leaves every one over 20 cards) */
    cr_expect_geq(metric("ddz_puzzle_positions_total{result=\"examined\"}"), 0);
    cr_expect_eq(metric("ddz_puzzle_games_total{result=\"dropped\"}"), 0);
    cli_free(c);
}

Test(serve_puzzles, one_puzzle_by_id_and_the_pages_link, .init = setup_no_server, .fini = teardown)
{
    fill_database();
    server_start();
    json_t *j = http_json("/api/puzzles/2", 200);
    cr_expect_eq(json_integer_value(json_object_get(j, "id")), 2);
    cr_expect_null(json_object_get(j, "solutions"));
    cr_expect_null(json_object_get(j, "game"));
    json_decref(j);
    j = http_json("/api/puzzles/999", 404);
    cr_expect_str_eq(json_string_value(json_object_get(j, "error")), "ENOTFOUND");
    json_decref(j);
    reply r = call("GET", "/api/puzzles/2x", NULL, NULL);
    expect(&r, 404, NULL);
    r = call("POST", "/api/puzzles/2", "{}", NULL);
    expect(&r, 405, NULL);
    r = call("GET", "/puzzles", NULL, NULL);
    char loc[64];
    cr_expect_eq(r.status, 302);
    cr_expect_str_eq(header(&r, "location", loc, sizeof loc), "/#/puzzles");
    free(r.body);
}

/* The winning play after `plays` at puzzle 1, learned as a guest (an
 * unrated attempt): a candidate (a pass, or when that is no legal play
 * the lowest card of `hand`) that does not fail, else the first of what
 * the failure says won there. */
static ddz_cards oracle(json_t *plays, ddz_cards hand)
{
    for (int k = 0; k < 2; k++) {
        ddz_cards c = k == 0 ? 0 : hand & -hand;
        json_t *b = json_pack("{s:o}", "plays", json_deep_copy(plays));
        json_t *try = json_array();
        uint8_t codes[DDZ_NCARDS];
        int n = ddz_cards_list(c, codes);
        for (int i = 0; i < n; i++)
            json_array_append_new(try, json_integer(codes[i]));
        json_array_append_new(json_object_get(b, "plays"), try);
        char *text = json_dumps(b, JSON_COMPACT);
        json_decref(b);
        reply r = call("POST", "/api/puzzles/1/attempt", text, NULL);
        free(text);
        if (r.status == 400) { /* a pass where the mover leads */
            free(r.body);
            continue;
        }
        cr_assert_eq(r.status, 200, "%s", r.body);
        json_t *a = json_loads(r.body, 0, NULL);
        free(r.body);
        cr_expect_null(json_object_get(a, "rated"), "a guest is never rated");
        const char *res = json_string_value(json_object_get(a, "result"));
        if (strcmp(res, "failed") == 0)
            c = cards_of(json_array_get(json_object_get(a, "solutions"), 0));
        json_decref(a);
        return c;
    }
    cr_assert_fail("no candidate play");
    return 0;
}

/* POSTs `plays` at puzzle 1 as the person of `session`; returns the answer. */
static json_t *attempt_as(json_t *plays, const char *session)
{
    json_t *b = json_pack("{s:O}", "plays", plays);
    char *text = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    reply r = call("POST", "/api/puzzles/1/attempt", text, session);
    free(text);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *a = json_loads(r.body, 0, NULL);
    free(r.body);
    cr_assert_not_null(a);
    return a;
}

static json_t *one(ddz_cards c)
{
    json_t *a = json_array();
    uint8_t codes[DDZ_NCARDS];
    int n = ddz_cards_list(c, codes);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(codes[i]));
    return a;
}

Test(serve_puzzles, a_person_is_rated_once_a_guest_never, .init = setup_no_server, .fini = teardown)
{
    json_t *pz;
    fill_real_puzzle(&pz);
    server_start();
    char ann[65], bob[65];
    sign_up("Ann", "a good password", ann);
    sign_up("Bob", "a good password", bob);
    int turn = (int)json_integer_value(json_object_get(pz, "turn"));
    ddz_cards hand = cards_of(json_array_get(json_object_get(pz, "hands"), (size_t)turn));

    /* next says where Ann stands */
    reply r = call("GET", "/api/puzzles/next", NULL, ann);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *j = json_loads(r.body, 0, NULL);
    free(r.body);
    cr_expect_float_eq(json_number_value(json_object_get(json_object_get(j, "you"), "rating")),
                       1500.0, 1e-9);
    json_decref(j);

    /* Bob solves it: every play the one that wins, the replies as the
     * server makes them */
    json_t *plays = json_array(), *a = NULL;
    ddz_cards left = hand;
    for (int step = 0; step < 30; step++) {
        ddz_cards c = oracle(plays, left);
        json_array_append_new(plays, one(c));
        left &= ~c;
        json_decref(a);
        a = attempt_as(plays, bob);
        const char *res = json_string_value(json_object_get(a, "result"));
        cr_assert(strcmp(res, "failed") != 0, "the oracle's play failed at step %d", step);
        if (strcmp(res, "solved") == 0)
            break;
        cr_expect_null(json_object_get(a, "rated"), "nothing is rated before the end");
    }
    cr_assert_str_eq(json_string_value(json_object_get(a, "result")), "solved");
    json_t *rated = json_object_get(a, "rated");
    cr_assert_not_null(rated, "Bob's first solve is rated");
    cr_expect_float_eq(json_number_value(json_object_get(rated, "before")), 1500.0, 1e-9);
    cr_expect_gt(json_number_value(json_object_get(rated, "after")), 1500.0);
    cr_expect_lt(json_number_value(json_object_get(rated, "puzzle_after")),
                 json_number_value(json_object_get(rated, "puzzle_before")));
    cr_expect_eq(json_integer_value(json_object_get(a, "game")), 50, "where it comes from");
    cr_expect_eq(json_integer_value(json_object_get(a, "ply")),
                 json_integer_value(json_object_get(pz, "ply")));
    double puzzle_after = json_number_value(json_object_get(rated, "puzzle_after"));
    json_decref(a);
    /* solved again: not rated again */
    a = attempt_as(plays, bob);
    cr_expect_str_eq(json_string_value(json_object_get(a, "result")), "solved");
    cr_expect_null(json_object_get(a, "rated"));
    json_decref(a);
    json_decref(plays);

    /* Ann fails it: rated down, the puzzle up from where Bob left it */
    json_t *sols = json_object_get(pz, "solutions");
    ddz_cards wrong = 0; /* a pass or a single card that is no solution */
    for (int k = 0; k < 54 && !wrong; k++) {
        ddz_cards c = 1ULL << k;
        bool sol = false;
        size_t i;
        json_t *v;
        json_array_foreach(sols, i, v) sol |= cards_of(v) == c;
        if ((hand & c) && !sol)
            wrong = c;
    }
    plays = json_array();
    json_array_append_new(plays, one(wrong));
    a = attempt_as(plays, ann);
    /* the log is made from a fixed seed: its first puzzle has such a play */
    cr_assert_str_eq(json_string_value(json_object_get(a, "result")), "failed");
    {
        rated = json_object_get(a, "rated");
        cr_assert_not_null(rated);
        cr_expect_lt(json_number_value(json_object_get(rated, "after")), 1500.0);
        cr_expect_float_eq(json_number_value(json_object_get(rated, "puzzle_before")), puzzle_after,
                           1e-6);
        cr_expect_gt(json_number_value(json_object_get(rated, "puzzle_after")), puzzle_after);
        json_decref(a);
        a = attempt_as(plays, ann);
        cr_expect_null(json_object_get(a, "rated"), "a second failure is not rated");
        r = call("GET", "/api/puzzles/next", NULL, ann);
        j = json_loads(r.body, 0, NULL);
        free(r.body);
        json_t *you = json_object_get(j, "you");
        cr_expect_lt(json_number_value(json_object_get(you, "rating")), 1500.0);
        cr_expect_eq(json_integer_value(json_object_get(you, "attempts")), 1);
        json_decref(j);
    }
    json_decref(a);
    json_decref(plays);

    /* a session that is not one */
    r = call("GET", "/api/puzzles/next", NULL,
             "0000000000000000000000000000000000000000000000000000000000000000");
    expect(&r, 401, "EAUTH");
    r = call("POST", "/api/puzzles/1/attempt", "{\"plays\":[[0]]}",
             "0000000000000000000000000000000000000000000000000000000000000000");
    expect(&r, 401, "EAUTH");
    cr_expect_eq(metric("ddz_puzzle_attempts_rated_total"), 2, "Bob's solve, Ann's failure");
    json_decref(pz);
}
