/* test_puzzler.c - the server's stock builder (service/puzzles/puzzler.h):
 * the records of a `ddz match` log handed to it give the store exactly the
 * puzzles `ddz puzzles` lists for that log (same positions, same winning
 * plays, the same text), a game examined twice adds nothing, a position
 * the budget cannot decide is never stored (only the puzzles proved are),
 * a full queue drops the game and counts it, and the worker rests after
 * each game so as to take no more than its share of a core. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/record_json.h"
#include "rules/error.h"
#include "service/puzzles/puzzler.h"
#include "service/store/store.h"

static char dir[] = "/tmp/ddz_puzzler_XXXXXX";
static ddz_record recs[40];
static int nrecs;

/* A log of 40 games, its records read into recs[], and what `ddz puzzles`
 * says of it in dir/cli.jsonl. */
static void setup(void)
{
    cr_assert_geq(sodium_init(), 0);
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024], path[256];
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " match --seat A=ai:greedy --seat B=ai:random --seat C=ai:greedy --games 40"
                     " --seed %064d --log %s/games.jsonl >/dev/null",
             11, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             DDZ_BIN " puzzles %s/games.jsonl --budget-ms 0 --nodes 20000000 >%s/cli.jsonl"
                     " 2>/dev/null",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/games.jsonl", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[65536];
    nrecs = 0;
    while (fgets(line, sizeof line, f) && nrecs < 40) {
        json_t *j = json_loads(line, 0, NULL);
        char err[160];
        cr_assert_not_null(j);
        cr_assert_eq(ddz_record_from_json(j, &recs[nrecs], err, sizeof err), 0, "%s", err);
        json_decref(j);
        nrecs++;
    }
    fclose(f);
    cr_assert_eq(nrecs, 40);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(puzzler, .init = setup, .fini = teardown);

static ddz_store *open_store(const char *name)
{
    char path[256], err[256] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ddz_store *s = ddz_store_open(path, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

/* The number the first column of `sql` gives on database `name`. */
static long long db_num(const char *name, const char *sql)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
    long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

Test(puzzler, the_stock_is_what_ddz_puzzles_lists)
{
    ddz_store *s = open_store("a.db");
    /* budgets no game of this size reaches: every position decided */
    ddz_puzzler_options o = {
        .max_games = 64, .position_ms = 60000, .game_ms = 600000, .nodes = 20000000, .share = 100};
    ddz_puzzler *p = ddz_puzzler_create(&o, s);
    cr_assert_not_null(p);
    for (int i = 0; i < nrecs; i++) /* game ids 1..40: the record's game + 1 */
        cr_assert_eq(ddz_puzzler_examine(p, recs[i].game + 1, &recs[i]), 0);
    ddz_puzzler_flush(p);
    for (int i = 0; i < 5; i++) /* again: nothing added */
        cr_assert_eq(ddz_puzzler_examine(p, recs[i].game + 1, &recs[i]), 0);
    ddz_puzzler_flush(p);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_puzzler_stats st;
    ddz_puzzler_stats_get(p, &st);
    cr_expect_eq(st.games, 45);
    cr_expect_eq(st.undecided, 0);
    cr_expect_eq(st.cut, 0);
    cr_expect_eq(st.dropped, 0);
    cr_expect_eq(st.unstored, 0);

    char path[256], line[65536];
    snprintf(path, sizeof path, "%s/cli.jsonl", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert_not_null(j);
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT id FROM puzzles WHERE game = %lld AND ply = %lld",
                 (long long)json_integer_value(json_object_get(j, "game")) + 1,
                 (long long)json_integer_value(json_object_get(j, "ply")));
        int64_t id = db_num("a.db", sql);
        cr_assert_gt(id, 0, "%s", line);
        ddz_store_puzzle got;
        cr_assert_eq(ddz_store_puzzle_get(s, id, &got), 0);
        char *want = json_dumps(json_object_get(j, "solutions"), JSON_COMPACT);
        cr_expect_str_eq(got.solutions, want);
        free(want);
        want = json_dumps(json_object_get(j, "hands"), JSON_COMPACT);
        cr_expect_str_eq(got.hands, want);
        free(want);
        json_t *last = json_object_get(j, "last");
        if (json_is_null(last)) {
            cr_expect_str_eq(got.last, "");
            cr_expect_eq(got.last_by, -1);
        } else {
            want = json_dumps(last, JSON_COMPACT);
            cr_expect_str_eq(got.last, want);
            free(want);
            cr_expect_eq(got.last_by, json_integer_value(json_object_get(j, "last_by")));
        }
        cr_expect_eq(got.turn, json_integer_value(json_object_get(j, "turn")));
        cr_expect_eq(got.landlord, json_integer_value(json_object_get(j, "landlord")));
        cr_expect_str_eq(got.side, json_string_value(json_object_get(j, "side")));
        cr_expect_eq(got.moves, json_integer_value(json_object_get(j, "moves")));
        cr_expect_str_eq(got.rules, json_string_value(json_object_get(j, "rules")));
        json_decref(j);
        n++;
    }
    fclose(f);
    cr_assert_gt(n, 0, "the log has puzzles");
    cr_expect_eq(st.found, n + (long)db_num("a.db", "SELECT count(*) FROM puzzles WHERE game <= 5"),
                 "each found once, the first five games' twice");
    cr_expect_eq(db_num("a.db", "SELECT count(*) FROM puzzles"), n, "exactly those");
    ddz_puzzler_destroy(p);
    ddz_store_close(s);
}

Test(puzzler, undecided_is_never_stored)
{
    ddz_store *s = open_store("b.db");
    /* one node a position: only the smallest are decided */
    ddz_puzzler_options o = {.max_games = 64, .nodes = 1};
    ddz_puzzler *p = ddz_puzzler_create(&o, s);
    cr_assert_not_null(p);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(ddz_puzzler_examine(p, i + 1, &recs[i]), 0);
    ddz_puzzler_flush(p);
    cr_assert_eq(ddz_store_flush(s), 0);
    ddz_puzzler_stats st;
    ddz_puzzler_stats_get(p, &st);
    cr_expect_gt(st.positions, 0);
    cr_expect_gt(st.undecided, st.positions / 2);
    cr_expect_eq(db_num("b.db", "SELECT count(*) FROM puzzles"), st.found, "only proved ones");
    ddz_puzzler_destroy(p);
    ddz_store_close(s);
}

Test(puzzler, bounded)
{
    ddz_store *s = open_store("c.db");
    ddz_puzzler_options o = {.max_games = 0};
    ddz_puzzler *p = ddz_puzzler_create(&o, s);
    cr_assert_not_null(p);
    cr_expect_eq(ddz_puzzler_examine(p, 1, &recs[0]), DDZ_EBUSY);
    cr_expect_eq(ddz_puzzler_examine(p, 0, &recs[0]), DDZ_EINVAL);
    ddz_puzzler_stats st;
    ddz_puzzler_stats_get(p, &st);
    cr_expect_eq(st.dropped, 1);
    ddz_puzzler_destroy(p);

    /* one at a time, and the worker slowed by a budget it spends in full:
     * 20 games handed at once, most dropped, the rest examined */
    o = (ddz_puzzler_options){.max_games = 1, .position_ms = 5, .game_ms = 50};
    p = ddz_puzzler_create(&o, s);
    int queued = 0;
    for (int i = 0; i < 20; i++)
        queued += ddz_puzzler_examine(p, i + 1, &recs[i]) == 0;
    ddz_puzzler_flush(p);
    ddz_puzzler_stats_get(p, &st);
    cr_expect_lt(queued, 20);
    cr_expect_eq(st.dropped, 20 - queued);
    cr_expect_eq(st.games, queued);
    cr_expect_eq(ddz_puzzler_limits(p).max_games, 1);
    ddz_puzzler_destroy(p); /* a game examined stops at its next position */
    ddz_store_close(s);
}

/* At a share of 20%, the worker rests four times as long as each game
 * took: a lower bound, which a loaded machine only makes longer. */
Test(puzzler, the_worker_takes_its_share_of_a_core_and_no_more)
{
    ddz_store *s = open_store("share.db");
    ddz_puzzler_options o = {.max_games = 64, .share = 20};
    ddz_puzzler *p = ddz_puzzler_create(&o, s);
    cr_assert_not_null(p);
    cr_assert_eq(ddz_puzzler_limits(p).share, 20);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(ddz_puzzler_examine(p, recs[i].game + 1, &recs[i]), 0);
    ddz_puzzler_flush(p);
    ddz_puzzler_stats st;
    for (int t = 0; t < 6000; t++) { /* the last rest: a minute at most */
        ddz_puzzler_stats_get(p, &st);
        if (st.rests == 6)
            break;
        usleep(10000);
    }
    cr_assert_eq(st.rests, 6);
    cr_assert_eq(st.games, 6);
    /* per game, rested >= 4 * took, each rounded down to a millisecond
     * when summed: 6 ms of slack */
    cr_expect_geq(st.rested_ms + 6, 4 * st.busy_ms, "rested %ld ms after %ld busy", st.rested_ms,
                  st.busy_ms);
    ddz_puzzler_destroy(p);
    ddz_store_close(s);
    /* the defaults: a quarter of a core */
    p = ddz_puzzler_create(NULL, s = open_store("share2.db"));
    cr_assert_eq(ddz_puzzler_limits(p).share, DDZ_PUZZLER_SHARE);
    ddz_puzzler_destroy(p);
    ddz_store_close(s);
}
