/* test_store_outage.c - the PostgreSQL store with its journal while the
 * database is away (service/store/store.h, journal.h): the fixture's server
 * (pg_test.h) reached through a proxy the test cuts (pg_proxy.h). Every
 * kind of write the store queues (a game, "my games", a turn result, a
 * ladder deal and a standing) waits in the journal, a pending game is read
 * from it, the store is closed and opened again in the middle of the
 * outage, and when the database is back each is written exactly once:
 * replaying the same journal a second time (an earlier replay whose commit
 * was lost with its connection) adds nothing. A journal written before
 * schema 5 (the ladder's old deal) replays too. A database that HANGS
 * (the proxy holds every connection and forwards nothing): a write is
 * durable in the journal within the store's bound, reads answer DDZ_EDB
 * within the bound of their own submission however many wait, and a close
 * ends within 2 s with everything unwritten in the journal. */
#include <criterion/criterion.h>

#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/pg_test.h"
#include "service/pg_proxy.h"
#include "proto/record_json.h"
#include "rules/error.h"
#include "service/store/journal.h"
#include "service/store/store.h"
#include "test_clock.h"
#include "tests/rules/record_gen.h"

static char dir[64], real_url[256], url[256], journal[128];
static pg_proxy px;

static void setup(void)
{
    cr_assert_geq(sodium_init(), 0);
    strcpy(dir, "/tmp/ddz-outage-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(journal, sizeof journal, "%s/journal.db", dir);
    pg_db_create(real_url, sizeof real_url);
    pg_proxy_start(&px, real_url, url, sizeof url);
}

static void unhang(void);

static void teardown(void)
{
    unhang();
    pg_proxy_stop(&px);
    pg_db_drop();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(store_outage, .init = setup, .fini = teardown);

static ddz_store *open_journaled(const char *path)
{
    ddz_store_options o = {.journal = path};
    char err[256] = "";
    ddz_store *s = ddz_store_open(url, &o, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

static ddz_store_counters stats(ddz_store *s)
{
    ddz_store_counters c;
    ddz_store_stats(s, &c);
    return c;
}

/* Waits (bounded) until nothing is pending in the store's journal. */
static void replayed(ddz_store *s)
{
    int64_t deadline = now_ms() + T(10000);
    while (stats(s).journal_pending > 0) {
        cr_assert_lt(now_ms(), deadline, "the journal still holds %llu: %s",
                     (unsigned long long)stats(s).journal_pending, stats(s).last_error);
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
}

static ddz_store_ladder_player lp(const char *name, double mu, long deals)
{
    ddz_store_ladder_player p = {.mu = mu,
                                 .sigma = 8.25 - deals,
                                 .games = 3 * deals,
                                 .deals = deals,
                                 .score = 2.5 * deals,
                                 .faults = deals / 2};
    snprintf(p.name, sizeof p.name, "%s", name);
    return p;
}

static void keep_hist(void *ctx, const ddz_store_ladder_hist *h)
{
    *(ddz_store_ladder_hist *)ctx = *h;
}

static long long num(PGconn *c, const char *sql)
{
    long long v = pg_num(c, sql);
    cr_assert_geq(v, 0, "%s: %s", sql, PQerrorMessage(c));
    return v;
}

/* Every row the writes below make, once. */
static void check_once(PGconn *c, int64_t g1, int64_t g2)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM games WHERE id IN (%lld, %lld)", (long long)g1,
             (long long)g2);
    cr_assert_eq(num(c, sql), 2);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM games"), 2);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM mine"), 1);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM turns WHERE room = 'final' AND turn = 3"), 1);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM turns"), 1);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM ladder_history"), 6, "a seat's row twice");
    cr_assert_eq(num(c, "SELECT COUNT(DISTINCT (name, hand, game1)) FROM ladder_history"), 6);
    for (int t = 0; t < 2; t++) {
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM ladder_history WHERE deal = %lld AND"
                 " game1 = %lld",
                 (long long)g1, (long long)(t ? g2 : g1));
        cr_assert_eq(num(c, sql), 3, "table %d: every seat's row, with its game", t);
    }
    /* the comparisons as queued, doubles exact through the journal */
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM ladder_history WHERE name = 'c' AND hand = 0"
                        " AND score = 0.30000000000000004 AND compared LIKE"
                        " '[{\"name\":\"a\",\"score\":0.33333333333333331,\"game\":%}]'"),
                 1);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM ladder_players"), 5);
    cr_assert_eq(num(c, "SELECT COUNT(*) FROM ladder_players WHERE name = 'a' AND"
                        " suspended = 'faulted' AND mu = 25.5"),
                 1, "the standing written after the deal is the one kept");
}

Test(store_outage, every_write_waits_in_the_journal_and_is_written_once)
{
    ddz_store *s = open_journaled(journal);
    ddz_record *r = malloc(sizeof *r);
    gen_record(1, r);
    int64_t g1 = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, g1, "room-1", NULL, r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_eq(stats(s).journal_pending, 0, "nothing pending while the database is there");

    /* away: every kind of write goes to the journal, none is lost */
    pg_proxy_cut(&px);
    gen_record(2, r);
    int64_t g2 = ddz_store_reserve_game_id(s);
    char key[DDZ_STORE_KEY_HEX + 1];
    ddz_store_new_game_key(key);
    cr_assert_eq(ddz_store_add_game(s, g2, "room-2", key, r, false), 0);
    uint8_t me[DDZ_STORE_ME_BYTES] = {1, 2, 3};
    cr_assert_eq(ddz_store_add_mine(s, g2, 1, me), 0);
    const char *names[3] = {"west", "南", "east"};
    const double totals[3] = {-700, 350, 350};
    cr_assert_eq(ddz_store_add_turn(s, "final", 3, 6, names, totals), 0);
    /* a deal at two tables (games g1, g2): a, ai:greedy, b and c, ai:greedy, d; every
     * seat compared with the same hand at the other table */
    static ddz_store_ladder_deal d;
    const char *who[5] = {"b", "ai:greedy", "a", "c", "d"};
    d.nplayers = 5;
    for (int i = 0; i < 5; i++)
        d.p[i] = lp(who[i], 24 + 0.125 * i, 1);
    const char *tables[2][3] = {{"a", "ai:greedy", "b"}, {"c", "ai:greedy", "d"}};
    const double scores[2][3] = {{1.0 / 3, -2, 4}, {0.1 + 0.2, 1, -1}};
    d.nrows = 6;
    for (int t = 0; t < 2; t++)
        for (int hand = 0; hand < 3; hand++) {
            ddz_store_ladder_hist *h = &d.rows[3 * t + hand];
            snprintf(h->name, sizeof h->name, "%s", tables[t][hand]);
            h->mu = 25 + hand, h->sigma = 7, h->score = scores[t][hand];
            h->deal = g1, h->hand = hand, h->games[0] = t ? g2 : g1;
            snprintf(h->opp[0], sizeof h->opp[0], "%s", tables[t][(hand + 1) % 3]);
            snprintf(h->opp[1], sizeof h->opp[1], "%s", tables[t][(hand + 2) % 3]);
            h->ncmp = 1;
            snprintf(h->cmp[0].name, sizeof h->cmp[0].name, "%s", tables[1 - t][hand]);
            h->cmp[0].score = scores[1 - t][hand];
            h->cmp[0].game = t ? g1 : g2;
        }
    cr_assert_eq(ddz_store_ladder_add_deal(s, "caai", &d), 0);
    ddz_store_ladder_player susp = lp("a", 25.5, 1);
    snprintf(susp.suspended, sizeof susp.suspended, "faulted");
    cr_assert_eq(ddz_store_ladder_put(s, "caai", &susp), 0);
    cr_assert_eq(ddz_store_flush(s), 0, "a write kept in the journal is no error");
    ddz_store_counters c = stats(s);
    cr_assert_eq(c.journal_pending, 5, "pending: %llu", (unsigned long long)c.journal_pending);
    cr_assert_gt(c.journal_bytes, 0);
    cr_assert_eq(c.write_errors + c.drops + c.journal_dropped, 0);

    /* a pending game is read from the journal, under its key only */
    char *json = NULL;
    cr_assert_eq(ddz_store_get_game(s, g2, key, &json), 0);
    json_t *rj = ddz_record_to_json(r);
    char *want = json_dumps(rj, DDZ_RECORD_JSON_FLAGS);
    json_decref(rj);
    cr_assert_str_eq(json, want);
    free(json);
    free(want);
    cr_assert_eq(ddz_store_get_game(s, g2, NULL, &json), DDZ_ENOTFOUND);
    cr_assert_eq(ddz_store_get_game(s, g1, NULL, &json), DDZ_EDB, "the database is away");

    /* closed in the middle of the outage: the journal keeps it all */
    ddz_store_close(s);
    char copy[160], cmd[400];
    snprintf(copy, sizeof copy, "%s/journal-copy.db", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", journal, copy);
    cr_assert_eq(system(cmd), 0);

    /* back: a store opened on the journal replays it */
    pg_proxy_restore(&px);
    s = open_journaled(journal);
    cr_assert_eq(stats(s).journal_pending, 5, "the journal was found again");
    replayed(s);
    c = stats(s);
    cr_assert_eq(c.journal_replayed, 5);
    cr_assert_eq(c.write_errors, 0, "%s", c.last_error);
    cr_assert_eq(ddz_store_get_game(s, g2, key, &json), 0);
    free(json);
    ddz_store_close(s);
    PGconn *db = pg_connect(real_url);
    check_once(db, g1, g2);

    /* the same journal replayed again: nothing twice */
    s = open_journaled(copy);
    replayed(s);
    c = stats(s);
    cr_assert_eq(c.write_errors, 0, "a second replay failed: %s", c.last_error);
    ddz_store_close(s);
    check_once(db, g1, g2);
    PQfinish(db);
    free(r);
}

/* What the store journaled for a ladder deal and a standing before schema
 * 5 (one deal played three times at one table): item_encode's old shape. */
#define OLD_PLAYER(name, mu, susp)                                                                 \
    "{\"name\":\"" name "\",\"mu\":" mu ",\"sigma\":7.25,\"games\":3,\"deals\":1,\"score\":4.0,"   \
    "\"faults\":0,\"suspended\":\"" susp "\"}"
#define OLD_ITEM(kind, deal)                                                                       \
    "{\"kind\":" kind ",\"id\":0,\"at\":1700000000000,\"number\":0,\"games\":0,"                   \
    "\"aborted\":false,\"room\":\"caai\",\"text\":null,\"totals\":null,"                           \
    "\"names\":[null,null,null],\"key\":null,\"me\":\"" ZEROS64 "\",\"deal\":" deal "}"
#define ZEROS64 "0000000000000000000000000000000000000000000000000000000000000000"
#define OLD_THREE                                                                                  \
    OLD_PLAYER("a", "26.5", "")                                                                    \
    "," OLD_PLAYER("b", "24.0", "") "," OLD_PLAYER("c", "0.33333333333333331", "")
#define OLD_SUSPENDED                                                                              \
    OLD_PLAYER("a", "27.0", "faulted") "," OLD_PLAYER("", "0.0", "") "," OLD_PLAYER("", "0.0", "")
static const char old_deal[] = OLD_ITEM(
    "2", "{\"p\":[" OLD_THREE "],\"score\":[4.0,-2.0,-2.0],\"faults\":[0,1,0],\"games\":[7,8,9]}");
static const char old_put[] =
    OLD_ITEM("3", "{\"p\":[" OLD_SUSPENDED
                  "],\"score\":[0.0,0.0,0.0],\"faults\":[0,0,0],\"games\":[0,0,0]}");

/* A journal kept across the upgrade to schema 5 still replays: an old
 * deal's rows are written as rows of the old format (hand, deal, compared
 * NULL; the three games), read back as hand -1, and a second replay adds
 * nothing. */
Test(store_outage, a_journal_from_before_schema_5_replays)
{
    char err[256] = "";
    ddz_journal *jn = ddz_journal_open(journal, 100, 1 << 20, err, sizeof err);
    cr_assert_not_null(jn, "%s", err);
    ddz_journal_entry e[2] = {{.body = old_deal}, {.body = old_put}};
    cr_assert_eq(ddz_journal_append(jn, e, 2), 0);
    ddz_journal_close(jn);
    char copy[160], cmd[400];
    snprintf(copy, sizeof copy, "%s/journal-copy.db", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", journal, copy);
    cr_assert_eq(system(cmd), 0);

    PGconn *db = pg_connect(real_url);
    for (int pass = 0; pass < 2; pass++) {
        ddz_store *s = open_journaled(pass ? copy : journal);
        replayed(s);
        ddz_store_counters c = stats(s);
        cr_assert_eq(c.journal_replayed, 2, "pass %d", pass);
        cr_assert_eq(c.write_errors, 0, "pass %d: %s", pass, c.last_error);
        ddz_store_close(s);
        cr_assert_eq(num(db, "SELECT COUNT(*) FROM ladder_history"), 3, "pass %d", pass);
        cr_assert_eq(num(db, "SELECT COUNT(*) FROM ladder_history WHERE hand IS NULL AND deal IS"
                             " NULL AND compared IS NULL AND game1 = 7 AND game2 = 8 AND"
                             " game3 = 9 AND finished_at = 1700000000000"),
                     3);
        cr_assert_eq(num(db, "SELECT COUNT(*) FROM ladder_history WHERE name = 'b' AND"
                             " opp1 = 'c' AND opp2 = 'a' AND score = -2 AND faults = 1"),
                     1);
        cr_assert_eq(num(db, "SELECT COUNT(*) FROM ladder_players"), 3);
        cr_assert_eq(num(db, "SELECT COUNT(*) FROM ladder_players WHERE name = 'a' AND"
                             " suspended = 'faulted' AND mu = 27"),
                     1);
    }
    PQfinish(db);

    ddz_store *s = open_journaled(journal);
    ddz_store_ladder_hist h[2];
    cr_assert_eq(ddz_store_ladder_history(s, "caai", "c", 5, keep_hist, h), 1);
    cr_assert_eq(h[0].hand, -1);
    cr_assert_eq(h[0].mu, 1.0 / 3);
    cr_assert(h[0].games[0] == 7 && h[0].games[1] == 8 && h[0].games[2] == 9);
    cr_assert_eq(h[0].ncmp, 0);
    ddz_store_close(s);
}

Test(store_outage, a_journal_past_its_bound_drops_the_oldest)
{
    ddz_store_options o = {.journal = journal, .journal_max = 3};
    char err[256] = "";
    ddz_store *s = ddz_store_open(url, &o, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    pg_proxy_cut(&px);
    ddz_record *r = malloc(sizeof *r);
    int64_t ids[5];
    for (int k = 0; k < 5; k++) {
        gen_record((uint32_t)k, r);
        ids[k] = ddz_store_reserve_game_id(s);
        cr_assert_eq(ddz_store_add_game(s, ids[k], NULL, NULL, r, false), 0);
        cr_assert_eq(ddz_store_flush(s), 0);
    }
    ddz_store_counters c = stats(s);
    cr_assert_eq(c.journal_pending, 3);
    cr_assert_eq(c.journal_dropped, 2);
    cr_assert_eq(c.journal_appended, 5);
    pg_proxy_restore(&px);
    replayed(s);
    ddz_store_close(s);
    PGconn *db = pg_connect(real_url);
    for (int k = 0; k < 5; k++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM games WHERE id = %lld", (long long)ids[k]);
        cr_assert_eq(num(db, sql), k < 2 ? 0 : 1, "game %d", k);
    }
    PQfinish(db);
    free(r);
}

/* A held game (a competition's, under a key told to nobody) published
 * while the database is away: the publication waits in the journal behind
 * the game, and the game is read by its id alone at once, from the
 * journal (a ladder's deal published while its games wait there answered
 * 404 until the database was back), and from the database once the
 * journal is replayed. */
Test(store_outage, a_publication_waits_in_the_journal_behind_its_game)
{
    ddz_store *s = open_journaled(journal);
    ddz_record *r = malloc(sizeof *r);
    gen_record(3, r);
    char key[DDZ_STORE_KEY_HEX + 1];
    ddz_store_new_game_key(key);
    int64_t before = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, before, "table-1", key, r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);

    pg_proxy_cut(&px);
    int64_t during = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, during, "table-2", key, r, false), 0);
    int64_t ids[] = {before, during};
    cr_assert_eq(ddz_store_publish_games(s, ids, 2), 0);
    cr_assert_eq(ddz_store_flush(s), 0, "a write kept in the journal is no error");
    cr_assert_eq(stats(s).journal_pending, 3);
    /* served as the database will serve it: by its id alone (its
     * publication waits behind it); the one stored before is asked of the
     * database, away */
    char *json = NULL;
    cr_assert_eq(ddz_store_get_game(s, during, NULL, &json), 0,
                 "published in the journal, but served under its key");
    free(json);
    cr_assert_eq(ddz_store_get_game(s, during, key, &json), DDZ_ENOTFOUND,
                 "its key is no longer the way in");
    cr_assert_eq(ddz_store_get_game(s, before, NULL, &json), DDZ_EDB);
    ddz_store_close(s);

    pg_proxy_restore(&px);
    s = open_journaled(journal);
    replayed(s);
    cr_assert_eq(stats(s).write_errors, 0, "%s", stats(s).last_error);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(ddz_store_get_game(s, ids[i], NULL, &json), 0, "game %d", i);
        free(json);
    }
    ddz_store_close(s);
    free(r);
}

/* ---- a database that hangs (accepts, never answers) ---------------------
 *
 * The proxy holds every connection and forwards nothing (pg_proxy_hang):
 * what a server stopped with SIGSTOP looks like. Without bounds of our own
 * every call waits until it answers again: the proxy lets it answer
 * after PG_PROXY_HANG_MAX_MS, so that a store without them fails these
 * tests (by seconds) instead of hanging them. The store's bound is BOUND_MS. */

#define BOUND_MS 400

static void hang(void)
{
    pg_proxy_hang(&px);
}

static void unhang(void)
{
    pg_proxy_restore(&px);
}

static ddz_store *open_bounded(int timeout_ms)
{
    ddz_store_options o = {.journal = journal, .timeout_ms = timeout_ms};
    char err[256] = "";
    ddz_store *s = ddz_store_open(url, &o, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

/* A write while the database hangs is durable within the bound: given up
 * at it, kept in the journal (counted as such, not as lost), served from
 * there, and written once when the database answers again. */
Test(store_outage, a_write_during_a_hang_is_journaled_within_the_bound, .timeout = HANG(60))
{
    ddz_store *s = open_bounded(BOUND_MS);
    ddz_record *r = malloc(sizeof *r);
    gen_record(4, r);
    int64_t g1 = ddz_store_reserve_game_id(s);
    cr_assert_eq(ddz_store_add_game(s, g1, NULL, NULL, r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_geq(ddz_store_durable(s), ddz_store_ticket(s), "a commit is durable");

    hang();
    int64_t g2 = ddz_store_reserve_game_id(s);
    gen_record(5, r);
    int64_t t0 = now_ms();
    cr_assert_eq(ddz_store_add_game(s, g2, NULL, NULL, r, false), 0);
    uint64_t ticket = ddz_store_ticket(s);
    while (ddz_store_durable(s) < ticket) {
        cr_assert_lt(now_ms() - t0, BELOW(2000, PG_PROXY_HANG_MAX_MS), "not durable after %lld ms",
                     (long long)(now_ms() - t0));
        poll(NULL, 0, 5); /* the interval of a bounded wait */
    }
    int64_t took = now_ms() - t0;
    cr_log_info("a write during the hang was durable (journaled) after %lld ms (bound %d)",
                (long long)took, BOUND_MS);
    cr_assert_geq(took, BOUND_MS - 50, "journaled before the bound: %lld ms", (long long)took);
    cr_assert_eq(ddz_store_flush(s), 0, "a write kept in the journal is no error");
    ddz_store_counters c = stats(s);
    cr_assert_eq(c.journal_pending, 1);
    cr_assert_eq(c.write_errors + c.drops, 0, "%s", c.last_error);
    cr_assert(strstr(c.last_error, "no answer"), "why: %s", c.last_error);
    char *json = NULL;
    t0 = now_ms();
    cr_assert_eq(ddz_store_get_game(s, g2, NULL, &json), 0, "served from the journal");
    cr_assert_lt(now_ms() - t0, BELOW(200, BOUND_MS), "the journal asks no database");
    free(json);

    /* and the writes after it go behind it at once */
    int64_t g3 = ddz_store_reserve_game_id(s);
    t0 = now_ms();
    cr_assert_eq(ddz_store_add_game(s, g3, NULL, NULL, r, false), 0);
    cr_assert_eq(ddz_store_flush(s), 0);
    cr_assert_lt(now_ms() - t0, BELOW(300, BOUND_MS), "behind the journal: no database asked");
    cr_assert_eq(stats(s).journal_pending, 2);

    unhang();
    replayed(s);
    ddz_store_close(s);
    PGconn *db = pg_connect(real_url);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM games WHERE id IN (%lld, %lld, %lld)",
             (long long)g1, (long long)g2, (long long)g3);
    cr_assert_eq(num(db, sql), 3);
    cr_assert_eq(num(db, "SELECT COUNT(*) FROM games"), 3, "a game twice");
    PQfinish(db);
    free(r);
}

/* The reader thread's answers: the wake counts them. */
static atomic_int answered;

static void count_answer(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&answered, 1);
}

#define NREADS 16

/* Reads while the database hangs answer DDZ_EDB within the bound, measured
 * from their submission: the first gives up at it, and the ones queued
 * behind it are not each given a bound of their own after it (NREADS x
 * the bound) but answer by theirs. */
Test(store_outage, reads_during_a_hang_answer_within_their_bound, .timeout = HANG(60))
{
    ddz_store *s = open_bounded(BOUND_MS);
    cr_assert_eq(ddz_store_reader_start(s, count_answer, NULL), 0);
    hang();
    static ddz_store_read rd[NREADS];
    int64_t t0 = now_ms();
    for (int i = 0; i < NREADS; i++) {
        rd[i] = (ddz_store_read){.kind = i % 2 ? DDZ_STORE_READ_GAME : DDZ_STORE_READ_TOKEN,
                                 .id = 1000 + i};
        memset(rd[i].token, 'a', DDZ_TOKEN_HEX);
        cr_assert_eq(ddz_store_read_submit(s, &rd[i]), 0);
    }
    int64_t last = 0;
    for (int got = 0; got < NREADS;) {
        ddz_store_read *r = ddz_store_read_done(s);
        if (!r) {
            cr_assert_lt(now_ms() - t0, BELOW(2500, NREADS * BOUND_MS),
                         "%d of %d reads answered after %lld ms", got, NREADS,
                         (long long)(now_ms() - t0));
            poll(NULL, 0, 5); /* the interval of a bounded wait */
            continue;
        }
        cr_assert_eq(r->rc, DDZ_EDB, "read %d: %d", (int)(r - rd), r->rc);
        last = now_ms() - t0;
        got++;
    }
    cr_log_info("%d reads during the hang all answered EDB within %lld ms (bound %d)", NREADS,
                (long long)last, BOUND_MS);
    /* a read on the caller's thread: the same bound */
    char *json = NULL;
    t0 = now_ms();
    cr_assert_eq(ddz_store_get_game(s, 1, NULL, &json), DDZ_EDB);
    cr_assert_lt(now_ms() - t0, BELOW(2000, PG_PROXY_HANG_MAX_MS));
    cr_assert_geq(stats(s).read_errors, NREADS);
    unhang();
    ddz_store_close(s);
}

/* Closing while the database hangs, with a write under way and more
 * queued, takes well under 2 s (the stop's grace), not the bound (3 s by
 * default) nor until the database answers: everything unwritten is in the
 * journal, and the next store replays it. */
Test(store_outage, close_during_a_hang_keeps_everything_in_the_journal, .timeout = HANG(60))
{
    ddz_store *s = open_bounded(0); /* the default bound, 3 s */
    hang();
    ddz_record *r = malloc(sizeof *r);
    int64_t ids[3];
    for (int k = 0; k < 3; k++) {
        gen_record((uint32_t)(10 + k), r);
        ids[k] = ddz_store_reserve_game_id(s);
        cr_assert_eq(ddz_store_add_game(s, ids[k], NULL, NULL, r, false), 0);
    }
    poll(NULL, 0, 100); /* the writer is in the first batch's statements */
    int64_t t0 = now_ms();
    ddz_store_close(s);
    int64_t took = now_ms() - t0;
    cr_log_info("closed in %lld ms during the hang", (long long)took);
    cr_assert_lt(took, 2000 - 100, "closing took %lld ms", (long long)took);
    unhang();
    s = open_bounded(BOUND_MS);
    cr_assert_eq(stats(s).journal_pending, 3, "the journal holds %llu",
                 (unsigned long long)stats(s).journal_pending);
    replayed(s);
    cr_assert_eq(stats(s).write_errors, 0, "%s", stats(s).last_error);
    ddz_store_close(s);
    PGconn *db = pg_connect(real_url);
    cr_assert_eq(num(db, "SELECT COUNT(*) FROM games"), 3);
    PQfinish(db);
    free(r);
}
