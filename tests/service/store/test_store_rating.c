/* test_store_rating.c - people's ratings in the store (SPEC §15, store.h
 * "People's ratings"): a rated game moves three rows in one transaction,
 * a game applied twice changes nothing, two stores applying games of one
 * player lose no update, the profile and the leaderboard read them back
 * (the profile with its place on the board),
 * the reader thread's rating kinds answer as the synchronous functions do,
 * and a version 7 database is migrated.
 *
 * The same bodies run against both backends: here with a SQLite file, and
 * compiled again by test_store_rating_pg.c (STORE_PG 1) against a fresh
 * PostgreSQL database of the test server. */
#ifndef STORE_PG
#define STORE_PG 0
#endif
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/error.h"
#include "service/rating/people_rating.h"
#include "service/store/store.h"
#include "tests/service/store/store_db.h"
#include "test_clock.h"

static void setup(void)
{
    store_db_setup("/tmp/ddz-rate-");
}

TestSuite(rating, .init = setup, .fini = store_db_teardown);

#define HASH1 "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaDE"

static int64_t account(ddz_store *s, const char *name)
{
    int64_t id = 0;
    cr_assert_eq(ddz_store_account_add(s, name, HASH1, &id), 0, "%s", name);
    return id;
}

static json_t *parse(char *text)
{
    cr_assert_not_null(text);
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    cr_assert_not_null(j, "%s: %s", text, e.text);
    free(text);
    return j;
}

static double num(json_t *o, const char *path1, const char *path2, const char *field)
{
    json_t *x = json_object_get(json_object_get(json_object_get(o, path1), path2), field);
    cr_assert(json_is_number(x), "%s.%s.%s", path1, path2, field);
    return json_number_value(x);
}

Test(rating, a_game_moves_three_rows_once)
{
    ddz_store *s = open_ok();
    int64_t p[3] = {account(s, "Ann"), account(s, "Bo"), -1 /* ai:strong */};
    ddz_store_rating out[3];
    cr_assert_eq(ddz_store_rating_game(s, "caai", 10, p, 1, true, out), 1);
    cr_expect_gt(out[1].mu, 25.0, "the landlord won");
    cr_expect_lt(out[0].mu, 25.0);
    cr_expect_lt(out[2].mu, 25.0);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(out[i].player, p[i]);
        cr_expect_eq(out[i].games, 1);
        cr_expect_lt(out[i].sigma, 25.0 / 3.0);
    }
    cr_expect(out[1].ll_games == 1 && out[1].ll_wins == 1 && out[1].farmer_games == 0);
    cr_expect(out[0].farmer_games == 1 && out[0].farmer_wins == 0 && out[0].ll_games == 0);
    /* the same as the pure update from new ratings */
    ddz_rating_cfg c;
    ddz_people_rating_cfg(&c);
    ddz_rating x[3] = {ddz_rating_new(&c), ddz_rating_new(&c), ddz_rating_new(&c)};
    cr_assert_eq(ddz_people_rating_game(&c, x, 1, true), 1);
    for (int i = 0; i < 3; i++) {
        cr_expect(fabs(out[i].mu - x[i].mu) < 1e-9);
        cr_expect(fabs(out[i].sigma - x[i].sigma) < 1e-9);
    }

    /* applied again (a retry, another node): nothing changes */
    ddz_store_rating again[3];
    cr_expect_eq(ddz_store_rating_game(s, "caai", 10, p, 1, true, again), 0);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(again[i].games, 1);
        cr_expect(again[i].mu == out[i].mu, "%f %f", again[i].mu, out[i].mu);
    }
    cr_expect_eq(db_num("SELECT count(*) FROM people_rating_hist"), 3);
    cr_expect_eq(db_num("SELECT sum(games) FROM people_ratings"), 3);

    /* a second game, other rule set: a row of its own */
    cr_assert_eq(ddz_store_rating_game(s, "botzone-ftl", 11, p, 0, false, out), 1);
    cr_expect_eq(out[0].games, 1);
    cr_expect_gt(out[1].mu, 25.0);

    char *text = NULL;
    cr_assert_eq(ddz_store_person_ratings(s, p[1], &text), 2);
    json_t *j = parse(text);
    cr_expect_eq(num(j, "ratings", "caai", "games"), 1);
    cr_expect_eq(num(j, "ratings", "caai", "ll_games"), 1);
    cr_expect_eq(num(j, "ratings", "caai", "ll_wins"), 1);
    cr_expect_eq(num(j, "ratings", "caai", "farmer_games"), 0);
    cr_expect_eq(num(j, "ratings", "botzone-ftl", "farmer_wins"), 1);
    double shown = num(j, "ratings", "caai", "rating");
    cr_expect(fabs(shown - ddz_people_rating_shown(x[1].mu)) <= 0.05, "%f", shown);
    cr_expect_gt(shown, 1500);
    cr_expect(fabs(num(j, "ratings", "caai", "deviation") -
                   ddz_people_rating_deviation(x[1].sigma)) <= 0.05);
    json_decref(j);

    cr_assert_eq(ddz_store_person_history(s, p[1], 10, &text), 2);
    j = parse(text);
    json_t *h = json_object_get(json_object_get(j, "history"), "caai");
    cr_assert_eq(json_array_size(h), 1);
    cr_expect(fabs(json_number_value(json_array_get(json_array_get(h, 0), 1)) - shown) < 1e-9);
    cr_expect_gt(json_integer_value(json_array_get(json_array_get(h, 0), 0)), 1700000000000);
    json_decref(j);
    ddz_store_close(s);
}

/* A seat that left is rated as having lost (SPEC §15): its rating as the
 * pure update with the mask, its count a game and no win; the others as
 * the game went. ddz_store_rating_get reads a row back, or a new one. */
Test(rating, a_leaver_is_counted_as_a_loss)
{
    ddz_store *s = open_ok();
    int64_t p[3] = {account(s, "Lea"), account(s, "Sam"), -2 /* ai:greedy */};
    ddz_store_rating got;
    cr_expect_eq(ddz_store_rating_get(s, "caai", p[0], &got), 0, "never rated");
    cr_expect(got.mu == 25.0 && got.games == 0);
    ddz_store_rating out[3];
    /* landlord 2 lost: the farmers 0 and 1 won, but 0 had left */
    cr_assert_eq(ddz_store_rating_game_forfeit(s, "caai", 20, p, 2, false, 1u, out), 1);
    cr_expect_lt(out[0].mu, 25.0, "the leaver goes down though its side won");
    cr_expect_gt(out[1].mu, 25.0);
    cr_expect(out[0].farmer_games == 1 && out[0].farmer_wins == 0);
    cr_expect(out[1].farmer_games == 1 && out[1].farmer_wins == 1);
    ddz_rating_cfg c;
    ddz_people_rating_cfg(&c);
    ddz_rating x[3] = {ddz_rating_new(&c), ddz_rating_new(&c), ddz_rating_new(&c)};
    cr_assert_eq(ddz_people_rating_game_forfeit(&c, x, 2, false, 1u), 1);
    for (int i = 0; i < 3; i++)
        cr_expect(fabs(out[i].mu - x[i].mu) < 1e-9, "seat %d", i);
    cr_expect_eq(ddz_store_rating_get(s, "caai", p[0], &got), 1);
    cr_expect(fabs(got.mu - out[0].mu) < 1e-9 && got.games == 1);
    cr_expect_eq(ddz_store_rating_get(s, "", p[0], &got), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game_forfeit(s, "caai", 21, p, 2, false, 8u, out), DDZ_EINVAL);
    ddz_store_close(s);
}

Test(rating, nothing_for_all_pass_or_bad_arguments)
{
    ddz_store *s = open_ok();
    int64_t a = account(s, "Ann"), b = account(s, "Bo");
    ddz_store_rating out[3];
    int64_t p[3] = {a, b, -2};
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, p, -1, false, out), 0);
    cr_expect_eq(out[0].games, 0);
    int64_t twice[3] = {a, b, a}, ai4[3] = {a, b, -4}, zero[3] = {a, 0, b};
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, twice, 0, true, out), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, ai4, 0, true, out), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, zero, 0, true, out), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game(s, "caai", 0, p, 0, true, out), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, p, 3, true, out), DDZ_EINVAL);
    cr_expect_eq(ddz_store_rating_game(s, "", 1, p, 0, true, out), DDZ_EINVAL);
    cr_expect_eq(db_num("SELECT count(*) FROM people_ratings"), 0);
    cr_expect_eq(db_num("SELECT count(*) FROM people_rating_hist"), 0);
    char *text = NULL;
    cr_expect_eq(ddz_store_leaderboard(s, "caai", 0, &text), DDZ_EINVAL);
    cr_expect_eq(ddz_store_leaderboard(s, "caai", DDZ_STORE_BOARD_MAX + 1, &text), DDZ_EINVAL);
    cr_expect_eq(ddz_store_person(s, "nobody", &text), DDZ_ENOTFOUND);
    cr_expect_null(text);
    ddz_store_close(s);
}

/* A profile's game ids: the newest rated first (by when they were rated,
 * not by id), each once, at most DDZ_STORE_PERSON_GAMES; a deleted
 * account has no profile. */
Test(rating, a_profile_lists_the_newest_games)
{
    ddz_store *s = open_ok();
    int64_t ann = account(s, "Ann"), bo = account(s, "Bo");
    int64_t p[3] = {ann, bo, -1};
    int64_t ids[DDZ_STORE_PERSON_GAMES];
    cr_expect_eq(ddz_store_person_games(s, ann, ids, 10), 0, "no rated game yet");
    cr_expect_eq(ddz_store_person_games(s, ann, ids, 0), DDZ_EINVAL);
    cr_expect_eq(ddz_store_person_games(s, ann, ids, DDZ_STORE_PERSON_GAMES + 1), DDZ_EINVAL);
    /* games 30, 10, 20 rated in that order, two rule sets */
    cr_assert_eq(ddz_store_rating_game(s, "caai", 30, p, 0, true, NULL), 1);
    cr_assert_eq(ddz_store_rating_game(s, "botzone-ftl", 10, p, 1, true, NULL), 1);
    cr_assert_eq(ddz_store_rating_game(s, "caai", 20, p, 2, false, NULL), 1);
    /* rated within one ms of each other: make the order of time plain */
    db_exec("UPDATE people_rating_hist SET at_ms = 1000 WHERE game = 30");
    db_exec("UPDATE people_rating_hist SET at_ms = 2000 WHERE game = 10");
    db_exec("UPDATE people_rating_hist SET at_ms = 3000 WHERE game = 20");
    cr_assert_eq(ddz_store_person_games(s, ann, ids, 10), 3);
    cr_expect(ids[0] == 20 && ids[1] == 10 && ids[2] == 30, "%lld %lld %lld", (long long)ids[0],
              (long long)ids[1], (long long)ids[2]);
    cr_assert_eq(ddz_store_person_games(s, bo, ids, 2), 2, "the newest two");
    cr_expect(ids[0] == 20 && ids[1] == 10);
    cr_expect_eq(ddz_store_person_games(s, 999, ids, 10), 0);

    /* the profile carries them; more than DDZ_STORE_PERSON_GAMES: the newest */
    for (int64_t g = 100; g < 100 + DDZ_STORE_PERSON_GAMES; g++)
        cr_assert_eq(ddz_store_rating_game(s, "caai", g, p, 0, true, NULL), 1);
    db_exec("UPDATE people_rating_hist SET at_ms = 5000 + game WHERE game >= 100");
    char *text = NULL;
    cr_assert_eq(ddz_store_person(s, "ann", &text), 0);
    json_t *j = parse(text);
    json_t *games = json_object_get(j, "games");
    cr_assert_eq(json_array_size(games), DDZ_STORE_PERSON_GAMES);
    cr_expect_eq(json_integer_value(json_array_get(games, 0)), 100 + DDZ_STORE_PERSON_GAMES - 1);
    cr_expect_eq(json_integer_value(json_array_get(games, DDZ_STORE_PERSON_GAMES - 1)), 100);
    json_decref(j);

    /* a person without rated games: an empty list, not none */
    int64_t cy = account(s, "Cy");
    (void)cy;
    cr_assert_eq(ddz_store_person(s, "CY", &text), 0);
    j = parse(text);
    cr_expect(json_is_array(json_object_get(j, "games")));
    cr_expect_eq(json_array_size(json_object_get(j, "games")), 0);
    json_decref(j);

    /* deleted: no profile, though its rows stay */
    cr_assert_eq(ddz_store_account_delete(s, ann), 0);
    cr_expect_eq(ddz_store_person(s, "Ann", &text), DDZ_ENOTFOUND);
    cr_expect_null(text);
    ddz_store_close(s);
}

/* Live accounts with 5 games or more, by rating; AIs and the deleted out. */
Test(rating, the_leaderboard)
{
    ddz_store *s = open_ok();
    int64_t top = account(s, "Top"), mid = account(s, "Mid"), low = account(s, "Low");
    int64_t few = account(s, "Few"), gone = account(s, "Gone");
    int64_t game = 1;
    ddz_store_rating out[3];
    for (int i = 0; i < 5; i++) {
        int64_t p[3] = {top, mid, low};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, p, 0, true, out), 1);
        int64_t q[3] = {gone, -3, -2};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, q, 0, true, out), 1);
    }
    int64_t p[3] = {few, -1, -2};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, p, 0, true, out), 1);
    cr_assert_eq(ddz_store_account_delete(s, gone), 0);
    /* Mid and Low are farmers of equal results: Mid plays one more as
     * landlord, and loses */
    int64_t r[3] = {mid, few, -3};
    cr_assert_eq(ddz_store_rating_game(s, "caai", game++, r, 0, false, out), 1);

    char *text = NULL;
    cr_assert_eq(ddz_store_leaderboard(s, "caai", 10, &text), 4);
    json_t *j = parse(text);
    cr_expect_str_eq(json_string_value(json_object_get(j, "rules")), "caai");
    json_t *list = json_object_get(j, "players");
    const char *want[] = {"Top", "Few", "Low", "Mid"};
    cr_assert_eq(json_array_size(list), 4);
    double last = 1e9;
    for (size_t i = 0; i < 4; i++) {
        json_t *e = json_array_get(list, i);
        cr_expect_str_eq(json_string_value(json_object_get(e, "name")), want[i]);
        double rating = json_number_value(json_object_get(e, "rating"));
        cr_expect_leq(rating, last);
        last = rating;
        cr_expect_geq(json_integer_value(json_object_get(e, "games")), 5);
        cr_expect_gt(json_number_value(json_object_get(e, "deviation")), 0);
    }
    json_decref(j);
    cr_assert_eq(ddz_store_leaderboard(s, "caai", 1, &text), 1);
    json_decref(parse(text));
    cr_assert_eq(ddz_store_leaderboard(s, "botzone-ftl", 10, &text), 0);
    j = parse(text);
    cr_expect_eq(json_array_size(json_object_get(j, "players")), 0);
    json_decref(j);
    ddz_store_close(s);
}

/* The profile's "rank" of a rule set is its place on that leaderboard,
 * however far down, in the board's own order (a tie of rating and games
 * by the older account), the deleted not counted; none off the board. */
Test(rating, a_profile_says_its_place_on_the_leaderboard)
{
    ddz_store *s = open_ok();
    int64_t gone = account(s, "Gone"), one = account(s, "One"), two = account(s, "Two");
    int64_t lead = account(s, "Lead"), few = account(s, "Few");
    int64_t game = 1;
    for (int i = 0; i < 5; i++) {
        /* One and Two farmers together every game: the same rating, the same games */
        int64_t p[3] = {-1, one, two};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, p, 0, i % 2 == 0, NULL), 1);
        int64_t q[3] = {lead, -2, -3};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, q, 0, true, NULL), 1);
        int64_t r[3] = {gone, -2, -3};
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, r, 0, true, NULL), 1);
    }
    int64_t p[3] = {few, -1, -2};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_store_rating_game(s, "caai", game++, p, 0, true, NULL), 1);
    cr_assert_eq(ddz_store_account_delete(s, gone), 0);

    char *text = NULL;
    cr_assert_eq(ddz_store_leaderboard(s, "caai", 10, &text), 3);
    json_t *board = parse(text);
    json_t *list = json_object_get(board, "players");
    const char *want[] = {"Lead", "One", "Two"};
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(list, i);
        cr_assert_str_eq(json_string_value(json_object_get(e, "name")), want[i]);
        cr_assert_eq(ddz_store_person(s, want[i], &text), 0);
        json_t *j = parse(text);
        cr_expect_eq(num(j, "ratings", "caai", "rank"), (double)(i + 1), "%s", want[i]);
        json_decref(j);
    }
    cr_expect_eq(json_number_value(json_object_get(json_array_get(list, 1), "rating")),
                 json_number_value(json_object_get(json_array_get(list, 2), "rating")),
                 "One and Two tie: their order is the accounts' age");
    json_decref(board);
    /* below a board of one row, still its place */
    cr_assert_eq(ddz_store_leaderboard(s, "caai", 1, &text), 1);
    json_decref(parse(text));
    cr_assert_eq(ddz_store_person(s, "two", &text), 0);
    json_t *j = parse(text);
    cr_expect_eq(num(j, "ratings", "caai", "rank"), 3.0);
    json_decref(j);
    /* four games: rated, not on the board, no rank */
    cr_assert_eq(ddz_store_person(s, "Few", &text), 0);
    j = parse(text);
    cr_expect_eq(num(j, "ratings", "caai", "games"), 4.0);
    cr_expect_null(json_object_get(json_object_get(json_object_get(j, "ratings"), "caai"), "rank"));
    json_decref(j);
    ddz_store_close(s);
}

/* ---- two stores (two nodes) applying games of one player at once ---- */

typedef struct racer {
    ddz_store *s;
    pthread_barrier_t *go;
    int64_t player[3];
    int64_t first_game;
    int games, failed;
} racer;

static void *apply_games(void *arg)
{
    racer *r = arg;
    pthread_barrier_wait(r->go);
    for (int i = 0; i < r->games; i++) {
        ddz_store_rating out[3];
        int rc = ddz_store_rating_game(r->s, "caai", r->first_game + i, r->player, i % 3,
                                       i % 2 == 0, out);
        if (rc != 1)
            r->failed++;
    }
    return NULL;
}

Test(rating, two_stores_lose_no_update)
{
    ddz_store *a = open_ok(), *b = open_ok();
    int64_t shared = account(a, "Shared"), x = account(a, "X"), y = account(a, "Y");
    enum { GAMES = 40 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    racer r[2] = {{a, &go, {shared, x, -1}, 1000, GAMES, 0},
                  {b, &go, {y, shared, -2}, 2000, GAMES, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, apply_games, &r[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    cr_expect_eq(r[0].failed + r[1].failed, 0, "%d %d", r[0].failed, r[1].failed);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT games FROM people_ratings WHERE player = %lld",
             (long long)shared);
    cr_expect_eq(db_num(sql), 2 * GAMES);
    snprintf(sql, sizeof sql,
             "SELECT ll_games + farmer_games FROM people_ratings WHERE player = %lld",
             (long long)shared);
    cr_expect_eq(db_num(sql), 2 * GAMES);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM people_rating_hist WHERE player = %lld",
             (long long)shared);
    cr_expect_eq(db_num(sql), 2 * GAMES);
    /* and both stores applying the SAME games: each applied once */
    pthread_barrier_init(&go, NULL, 2);
    racer same[2] = {{a, &go, {shared, x, y}, 5000, GAMES, 0},
                     {b, &go, {shared, x, y}, 5000, GAMES, 0}};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, apply_games, &same[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    cr_expect_eq(same[0].failed + same[1].failed, GAMES, "each game applied by one store");
    snprintf(sql, sizeof sql, "SELECT games FROM people_ratings WHERE player = %lld",
             (long long)shared);
    cr_expect_eq(db_num(sql), 3 * GAMES);
    ddz_store_close(a);
    ddz_store_close(b);
}

/* ---- through the reader thread ---- */

Test(rating, the_reader_thread_runs_the_rating_kinds)
{
    ddz_store *s = open_ok();
    int64_t ann = account(s, "Ann"), bo = account(s, "Bo");
    cr_assert_eq(ddz_store_reader_start(s, store_db_wake, NULL), 0);
    ddz_store_read r = {.kind = DDZ_STORE_READ_RATING_GAME,
                        .rating = {.rules = "caai",
                                   .game = 7,
                                   .player = {-3, ann, bo},
                                   .landlord = 1,
                                   .landlord_won = true}};
    for (int round = 0; round < 6; round++) {
        r.rating.game = 7 + round;
        store_db_run(s, &r);
        cr_expect_eq(r.rc, 1);
        cr_expect_eq(r.rating.out[1].games, round + 1);
        cr_expect_eq(r.rating.out[1].ll_wins, round + 1);
    }
    cr_expect_gt(r.rating.out[1].mu, 25.0);
    /* the rows before the game come with the answer (what a person is told) */
    cr_expect_eq(r.rating.before[1].games, 5);
    cr_expect_lt(r.rating.before[1].mu, r.rating.out[1].mu);
    const double ann_mu = r.rating.out[1].mu;

    r = (ddz_store_read){.kind = DDZ_STORE_READ_PERSON};
    snprintf(r.account.name, sizeof r.account.name, "ANN");
    store_db_run(s, &r);
    cr_assert_eq(r.rc, 0);
    json_t *j = parse(r.json);
    cr_expect_str_eq(json_string_value(json_object_get(j, "name")), "Ann");
    cr_expect_eq(num(j, "ratings", "caai", "games"), 6);
    json_t *h = json_object_get(json_object_get(j, "history"), "caai");
    cr_assert_eq(json_array_size(h), 6);
    double prev = 0;
    for (size_t i = 0; i < 6; i++) {
        double v = json_number_value(json_array_get(json_array_get(h, i), 1));
        cr_expect_gt(v, prev, "a landlord who keeps winning climbs");
        prev = v;
    }
    json_decref(j);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_RATING_GAME,
                         .rating = {.rules = "caai", .player = {-3, ann, bo}, .landlord = 1}};
    /* a leaver: counted as a loss */
    r.rating.game = 20;
    r.rating.landlord_won = true;
    r.rating.forfeit = 1u << 1;
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 1);
    cr_expect_lt(r.rating.out[1].mu, ann_mu, "the landlord left: down though it won");
    cr_expect_eq(r.rating.out[1].ll_wins, 6);

    /* one player's row, or a newcomer's */
    r = (ddz_store_read){.kind = DDZ_STORE_READ_RATING_GET,
                         .rating = {.rules = "caai", .player = {ann}}};
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 1);
    cr_expect_eq(r.rating.out[0].games, 7);
    r.rating.rules[0] = 'x';
    store_db_run(s, &r);
    cr_expect_eq(r.rc, 0);
    cr_expect(r.rating.out[0].mu == 25.0 && r.rating.out[0].games == 0);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_PERSON};
    snprintf(r.account.name, sizeof r.account.name, "nobody");
    store_db_run(s, &r);
    cr_expect_eq(r.rc, DDZ_ENOTFOUND);
    cr_expect_null(r.json);

    r = (ddz_store_read){.kind = DDZ_STORE_READ_LEADERBOARD,
                         .rating = {.rules = "caai", .limit = 10}};
    store_db_run(s, &r);
    cr_assert_eq(r.rc, 2);
    j = parse(r.json);
    json_t *list = json_object_get(j, "players");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "name")), "Ann");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(list, 1), "name")), "Bo");
    json_decref(j);
    ddz_store_reader_stop(s);
    ddz_store_close(s);
}

/* A database of version 7 (before the ratings) gets the tables. */
Test(rating, version_7_is_migrated)
{
    ddz_store *s = open_ok();
    ddz_store_close(s);
    /* and before the puzzles (version 9), which came later */
    db_exec("DROP TABLE people_ratings; DROP TABLE people_rating_hist; DROP TABLE puzzles;"
            " DROP TABLE puzzle_ratings; DROP TABLE puzzle_attempts;");
#if STORE_PG
    db_exec("UPDATE store_schema SET version = 7");
#else
    db_exec("PRAGMA user_version = 7");
#endif
    s = open_ok();
    int64_t p[3] = {account(s, "Ann"), -1, -2};
    cr_expect_eq(ddz_store_rating_game(s, "caai", 1, p, 0, true, NULL), 1);
    ddz_store_close(s);
#if STORE_PG
    cr_expect_eq(db_num("SELECT version FROM store_schema"), DDZ_STORE_SCHEMA_VERSION);
#else
    cr_expect_eq(db_num("PRAGMA user_version"), DDZ_STORE_SCHEMA_VERSION);
#endif
    cr_expect_eq(db_num("SELECT count(*) FROM people_rating_hist"), 3);
}
