/* test_store_puzzle.c - the store's stock of puzzles (store.h "Puzzles",
 * spec §16): a puzzle added is read back as written, a position added
 * twice is one row, bad puzzles are refused, the next puzzle is one of the
 * rules asked for, near the rating asked for, not a recent one while
 * others remain, a person's attempts are rated once each (the person and
 * the puzzle moving apart, in one transaction), and a version 8 database
 * is migrated.
 *
 * The same bodies run against both backends: here with a SQLite file, and
 * compiled again by test_store_puzzle_pg.c (STORE_PG 1) against a fresh
 * PostgreSQL database of the test server. */
#ifndef STORE_PG
#define STORE_PG 0
#endif
#include <criterion/criterion.h>

#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "rules/error.h"
#include "service/store/store.h"
#include "tests/service/store/store_db.h"

static void setup(void)
{
    store_db_setup("/tmp/ddz-puzzle-");
}

TestSuite(puzzle, .init = setup, .fini = store_db_teardown);

/* A puzzle of game `game`, ply `ply`, under `rules`. */
static ddz_store_puzzle sample(int64_t game, int ply, const char *rules)
{
    ddz_store_puzzle p = {.game = game,
                          .ply = ply,
                          .landlord = 1,
                          .turn = 2,
                          .last_by = 1,
                          .moves = 7,
                          .difficulty = 1.81};
    snprintf(p.rules, sizeof p.rules, "%s", rules);
    snprintf(p.hands, sizeof p.hands, "[[0,4],[8,9,52],[12,16,53]]");
    snprintf(p.last, sizeof p.last, "[1]");
    snprintf(p.side, sizeof p.side, "farmers");
    snprintf(p.solutions, sizeof p.solutions, "[[53]]");
    return p;
}

/* Sets the rating of every puzzle of `game` to `r`. */
static void set_rating(int64_t game, double r)
{
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE puzzles SET rating = %.1f WHERE game = %lld", r,
             (long long)game);
    db_exec(sql);
}

Test(puzzle, added_read_back_once)
{
    ddz_store *s = open_ok();
    ddz_store_puzzle p = sample(5, 12, "caai");
    cr_assert_eq(ddz_store_add_puzzle(s, &p), 0);
    ddz_store_puzzle leads = sample(5, 14, "caai");
    leads.last_by = -1;
    leads.last[0] = '\0';
    snprintf(leads.side, sizeof leads.side, "landlord");
    leads.turn = 1;
    cr_assert_eq(ddz_store_add_puzzle(s, &leads), 0);
    /* the same position again, with other contents: nothing changes */
    ddz_store_puzzle again = sample(5, 12, "caai");
    again.moves = 99;
    cr_assert_eq(ddz_store_add_puzzle(s, &again), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_expect_eq(db_num("SELECT count(*) FROM puzzles"), 2);

    int64_t id = db_num("SELECT id FROM puzzles WHERE ply = 12");
    ddz_store_puzzle got;
    cr_assert_eq(ddz_store_puzzle_get(s, id, &got), 0);
    cr_expect_eq(got.id, id);
    cr_expect_eq(got.game, 5);
    cr_expect_eq(got.ply, 12);
    cr_expect_str_eq(got.rules, "caai");
    cr_expect_str_eq(got.hands, "[[0,4],[8,9,52],[12,16,53]]");
    cr_expect_eq(got.landlord, 1);
    cr_expect_eq(got.turn, 2);
    cr_expect_str_eq(got.last, "[1]");
    cr_expect_eq(got.last_by, 1);
    cr_expect_str_eq(got.side, "farmers");
    cr_expect_str_eq(got.solutions, "[[53]]");
    cr_expect_eq(got.moves, 7, "the first one stays");
    cr_expect_float_eq(got.difficulty, 1.81, 1e-9);
    cr_expect_float_eq(got.rating, DDZ_STORE_PUZZLE_RATING0, 1e-9);
    cr_expect_float_eq(got.deviation, DDZ_STORE_PUZZLE_DEV0, 1e-9);

    id = db_num("SELECT id FROM puzzles WHERE ply = 14");
    cr_assert_eq(ddz_store_puzzle_get(s, id, &got), 0);
    cr_expect_eq(got.last_by, -1);
    cr_expect_str_eq(got.last, "");
    cr_expect_str_eq(got.side, "landlord");
    cr_expect_eq(db_num("SELECT count(*) FROM puzzles WHERE last IS NULL AND last_by IS NULL"), 1);

    cr_expect_eq(ddz_store_puzzle_get(s, 9999, &got), DDZ_ENOTFOUND);
    ddz_store_close(s);
}

Test(puzzle, bad_puzzles_refused)
{
    ddz_store *s = open_ok();
    ddz_store_puzzle p = sample(0, 1, "caai");
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "game 0");
    p = sample(1, -1, "caai");
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "ply -1");
    p = sample(1, 1, "");
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "no rules");
    p = sample(1, 1, "caai");
    p.turn = 3;
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "a seat out of range");
    p = sample(1, 1, "caai");
    p.last[0] = '\0';
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "someone played, no cards");
    p = sample(1, 1, "caai");
    p.last_by = -1;
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "cards, nobody played them");
    p = sample(1, 1, "caai");
    snprintf(p.side, sizeof p.side, "west");
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "side");
    p = sample(1, 1, "caai");
    memset(p.solutions, '[', sizeof p.solutions);
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "unterminated");
    p = sample(1, 1, "caai");
    p.moves = 0;
    cr_expect_eq(ddz_store_add_puzzle(s, &p), DDZ_EINVAL, "no moves");
    cr_expect_eq(ddz_store_add_puzzle(s, NULL), DDZ_EINVAL);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_expect_eq(db_num("SELECT count(*) FROM puzzles"), 0);
    ddz_store_close(s);
}

Test(puzzle, next_is_near_and_not_recent)
{
    ddz_store *s = open_ok();
    ddz_store_puzzle got;
    cr_expect_eq(ddz_store_puzzle_next(s, "caai", 1500, NULL, 0, &got), DDZ_ENOTFOUND);
    /* games 1..30: ratings 1000, 1050, ... 2450, one puzzle each; game
     * 100 under other rules at 1500 exactly */
    for (int g = 1; g <= 30; g++) {
        ddz_store_puzzle p = sample(g, 3, "caai");
        cr_assert_eq(ddz_store_add_puzzle(s, &p), 0);
    }
    ddz_store_puzzle other = sample(100, 3, "botzone-ftl");
    cr_assert_eq(ddz_store_add_puzzle(s, &other), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    for (int g = 1; g <= 30; g++)
        set_rating(g, 1000.0 + 50.0 * (g - 1));

    /* near 1500 (game 11): the ten nearest are games 6..16 but one */
    for (int i = 0; i < 40; i++) {
        cr_assert_eq(ddz_store_puzzle_next(s, "caai", 1500, NULL, 0, &got), 0);
        cr_expect_str_eq(got.rules, "caai");
        cr_expect(got.game >= 6 && got.game <= 16, "game %lld", (long long)got.game);
        cr_expect(got.rating >= 1250 && got.rating <= 1750, "rating %.1f", got.rating);
    }
    /* far off the stock's ends: its end */
    cr_assert_eq(ddz_store_puzzle_next(s, "caai", 9000, NULL, 0, &got), 0);
    cr_expect_geq(got.game, 21);
    cr_assert_eq(ddz_store_puzzle_next(s, "caai", -9000, NULL, 0, &got), 0);
    cr_expect_leq(got.game, 10);

    /* every one of the 30 but game 30 (the farthest) recent: game 30 */
    int64_t recent[29];
    for (int g = 1; g <= 29; g++) {
        char sql[80];
        snprintf(sql, sizeof sql, "SELECT id FROM puzzles WHERE game = %d", g);
        recent[g - 1] = db_num(sql);
    }
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(ddz_store_puzzle_next(s, "caai", 1500, recent, 29, &got), 0);
        cr_expect_eq(got.game, 30);
    }
    /* the other rules: their only puzzle, recent or not */
    cr_assert_eq(ddz_store_puzzle_next(s, "botzone-ftl", 1500, NULL, 0, &got), 0);
    cr_expect_eq(got.game, 100);
    int64_t its = got.id;
    cr_assert_eq(ddz_store_puzzle_next(s, "botzone-ftl", 1500, &its, 1, &got), 0);
    cr_expect_eq(got.game, 100, "a small stock repeats");

    cr_expect_eq(ddz_store_puzzle_next(s, "", 1500, NULL, 0, &got), DDZ_EINVAL);
    cr_expect_eq(ddz_store_puzzle_next(s, "caai", 1500, NULL, -1, &got), DDZ_EINVAL);
    cr_expect_eq(ddz_store_puzzle_next(s, "botzone-ftl2", 1500, NULL, 0, &got), DDZ_ENOTFOUND);
    ddz_store_close(s);
}

/* A database of version 8 (before the puzzles) gets the table. */
Test(puzzle, version_8_is_migrated)
{
    ddz_store *s = open_ok();
    ddz_store_close(s);
    db_exec("DROP TABLE puzzles; DROP TABLE puzzle_ratings; DROP TABLE puzzle_attempts;");
#if STORE_PG
    db_exec("UPDATE store_schema SET version = 8");
#else
    db_exec("PRAGMA user_version = 8");
#endif
    s = open_ok();
    ddz_store_puzzle p = sample(7, 2, "caai");
    cr_assert_eq(ddz_store_add_puzzle(s, &p), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_store_close(s);
#if STORE_PG
    cr_expect_eq(db_num("SELECT version FROM store_schema"), DDZ_STORE_SCHEMA_VERSION);
#else
    cr_expect_eq(db_num("PRAGMA user_version"), DDZ_STORE_SCHEMA_VERSION);
#endif
    cr_expect_eq(db_num("SELECT count(*) FROM puzzles"), 1);
}

/* A person's first ended attempt at a puzzle moves both ratings (solved:
 * the person up, the puzzle down; failed: the other way), a second moves
 * nothing, and the person's rating is per rule set. */
Test(puzzle, an_attempt_is_rated_once)
{
    ddz_store *s = open_ok();
    ddz_store_puzzle a = sample(1, 3, "caai"), b = sample(2, 3, "caai"), c = sample(3, 3, "ftl2");
    cr_assert_eq(ddz_store_add_puzzle(s, &a), 0);
    cr_assert_eq(ddz_store_add_puzzle(s, &b), 0);
    cr_assert_eq(ddz_store_add_puzzle(s, &c), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    int64_t ida = db_num("SELECT id FROM puzzles WHERE game = 1"),
            idb = db_num("SELECT id FROM puzzles WHERE game = 2"),
            idc = db_num("SELECT id FROM puzzles WHERE game = 3");
    ddz_store_puzzle_rating r, g;
    cr_assert_eq(ddz_store_puzzle_rating_get(s, 7, "caai", &g), 0, "never rated");
    cr_expect_float_eq(g.mu, 25.0, 1e-9);

    cr_assert_eq(ddz_store_puzzle_rate(s, 7, ida, true, &r), 1);
    cr_expect_str_eq(r.rules, "caai");
    cr_expect_float_eq(r.mu_before, 25.0, 1e-9);
    cr_expect_gt(r.mu, r.mu_before, "solved: the person goes up");
    cr_expect_lt(r.sigma, 25.0 / 3, "and is less uncertain");
    cr_expect_float_eq(r.puzzle_before, DDZ_STORE_PUZZLE_RATING0, 1e-9);
    cr_expect_lt(r.puzzle_after, r.puzzle_before, "the puzzle goes down");
    cr_expect_eq(r.attempts, 1);
    cr_expect_eq(r.solved, 1);
    ddz_store_puzzle got;
    cr_assert_eq(ddz_store_puzzle_get(s, ida, &got), 0);
    cr_expect_float_eq(got.rating, r.puzzle_after, 1e-9);
    cr_expect_lt(got.deviation, DDZ_STORE_PUZZLE_DEV0);
    double mu1 = r.mu;

    /* again: attempted before, nothing moves */
    cr_assert_eq(ddz_store_puzzle_rate(s, 7, ida, false, &r), 0);
    cr_expect_float_eq(r.mu, mu1, 1e-9);
    cr_assert_eq(ddz_store_puzzle_get(s, ida, &got), 0);
    cr_expect_float_eq(got.rating, r.puzzle_after, 1e-9);
    cr_expect_eq(db_num("SELECT count(*) FROM puzzle_attempts"), 1);

    /* failed: the person down from where they were, the puzzle up */
    cr_assert_eq(ddz_store_puzzle_rate(s, 7, idb, false, &r), 1);
    cr_expect_float_eq(r.mu_before, mu1, 1e-9);
    cr_expect_lt(r.mu, mu1);
    cr_expect_gt(r.puzzle_after, r.puzzle_before);
    cr_expect_eq(r.attempts, 2);
    cr_expect_eq(r.solved, 1);
    cr_assert_eq(ddz_store_puzzle_rating_get(s, 7, "caai", &g), 1);
    cr_expect_float_eq(g.mu, r.mu, 1e-9);
    cr_expect_eq(g.attempts, 2);

    /* another person at the same puzzle: rated, from a new rating */
    cr_assert_eq(ddz_store_puzzle_rate(s, 8, ida, false, &r), 1);
    cr_expect_float_eq(r.mu_before, 25.0, 1e-9);
    /* another rule set is another rating */
    cr_assert_eq(ddz_store_puzzle_rate(s, 7, idc, true, &r), 1);
    cr_expect_str_eq(r.rules, "ftl2");
    cr_expect_float_eq(r.mu_before, 25.0, 1e-9);
    cr_expect_eq(r.attempts, 1);

    cr_expect_eq(ddz_store_puzzle_rate(s, 7, 999999, true, &r), DDZ_ENOTFOUND);
    cr_expect_eq(ddz_store_puzzle_rate(s, 0, ida, true, &r), DDZ_EINVAL);
    cr_expect_eq(ddz_store_puzzle_rating_get(s, 7, "", &g), DDZ_EINVAL);
    cr_expect_eq(db_num("SELECT count(*) FROM puzzle_attempts"), 4);
    ddz_store_close(s);
}
