/* test_ladder_net.c - service/cluster/ladder_net.h against a real
 * PostgreSQL (the ctest fixture, DDZ_TEST_PG), without servers: nodes are
 * ladder_net objects with sessions of their own, alive while their
 * "node:ID" lock (lead.h) is held. The leader assigns a deal to the node
 * of its bot; the host records it in one transaction; a deal whose host
 * died is dropped and a late result for it records nothing; two hosts
 * finishing deals that share an AI at once both count (no lost update). */
#include <criterion/criterion.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "service/pg_test.h"
#include "rules/error.h"
#include "service/cluster/ladder_net.h"
#include "service/cluster/lead.h"
#include "service/store/store.h"

static char url[600];

/* A node's liveness: its "node:ID" lock, held by a lead of its own. */
static ddz_lead *alive(const char *id)
{
    char job[40];
    snprintf(job, sizeof job, "node:%s", id);
    const char *jobs[] = {job};
    char public_url[64];
    snprintf(public_url, sizeof public_url, "ws://%s.invalid/ws", id);
    ddz_lead_cfg cfg = {.url = url, .node = id, .public_url = public_url, .retry_ms = 50};
    char err[200];
    ddz_lead *l = ddz_lead_start(&cfg, jobs, 1, err, sizeof err);
    cr_assert_not_null(l, "%s", err);
    ddz_lead_job st = {0};
    for (int i = 0; i < 200 && !st.holder_known; i++) {
        ddz_lead_state(l, 0, &st);
        poll(NULL, 0, 10);
    }
    cr_assert(st.held && st.holder_known, "node %s never alive", id);
    return l;
}

/* Node `node`'s ladder side: two fixed participants, or four with
 * `move_wait_ms` set (the gathering tests: enough for two tables). */
static ddz_ladder_net *net_with(const char *node, int move_wait_ms)
{
    ddz_ladder_net_cfg cfg = {.rules = "caai",
                              .node = node,
                              .fixed = {"ai:x", "ai:y", "ai:z", "ai:w"},
                              .nfixed = move_wait_ms ? 4 : 2,
                              .tables = 4,
                              .pair_slack = 2,
                              .move_wait_ms = move_wait_ms};
    ddz_rating_cfg_default(&cfg.rc);
    char err[200];
    ddz_ladder_net *n = ddz_ladder_net_create(&cfg, err, sizeof err);
    cr_assert_not_null(n, "%s", err);
    return n;
}

static ddz_ladder_net *net(const char *node)
{
    return net_with(node, 0);
}

static PGconn *conn(void)
{
    PGconn *c = pg_connect(url);
    pg_exec(c, "SET client_min_messages = warning"); /* as the lead session */
    return c;
}

/* The first column of `sql`'s first row; fails the test if the query does
 * (pg_num's -1). */
static long long num(PGconn *c, const char *sql)
{
    long long v = pg_num(c, sql);
    cr_assert_geq(v, 0, "%s: %s", sql, PQerrorMessage(c));
    return v;
}

/* Every test: a fresh database with the store's schema (the store makes
 * the ladder_* tables), two live nodes a and b, their ladder_net objects
 * and a session each; fini undoes what is left (a test may stop lb). */
static ddz_lead *la, *lb;
static ddz_ladder_net *a, *b;
static PGconn *ca, *cb;

static void init(void)
{
    pg_db_create(url, sizeof url);
    char err[200];
    ddz_store *s = ddz_store_open(url, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    ddz_store_close(s);
    la = alive("a"), lb = alive("b");
    a = net("a"), b = net("b");
    ca = conn(), cb = conn();
}

static void fini(void)
{
    if (ca)
        PQfinish(ca);
    if (cb)
        PQfinish(cb);
    if (a)
        ddz_ladder_net_destroy(a);
    if (b)
        ddz_ladder_net_destroy(b);
    if (la)
        ddz_lead_stop(la);
    if (lb)
        ddz_lead_stop(lb);
    pg_db_drop();
}

TestSuite(ladder_net, .init = init, .fini = fini);

/* Pops messages until one of `kind`; returns it (free it) or NULL. */
static ddz_ladder_net_msg *next_of(ddz_ladder_net *n, int kind)
{
    ddz_ladder_net_msg *m;
    while ((m = ddz_ladder_net_next(n))) {
        if (m->kind == kind)
            return m;
        free(m);
    }
    return NULL;
}

static ddz_ladder_net_result result_of(const ddz_ladder_net_msg *play, int64_t game0)
{
    ddz_ladder_net_result r = {.deal = play->deal};
    for (int k = 0; k < 3; k++) {
        snprintf(r.names[k], sizeof r.names[k], "%s", play->names[k]);
        r.score[k] = k == 0 ? 4 : -2;
        r.games[k] = game0 + k;
    }
    return r;
}

Test(ladder_net, leader_assigns_to_the_bots_node_which_records)
{
    const char *bots[] = {"bot1"};
    ddz_ladder_net_present(b, bots, 1);
    ddz_ladder_net_work(b, cb, false); /* publishes bot1 */
    ddz_ladder_net_work(a, ca, false); /* not the leader: schedules nothing */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals"), 0);
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE node = 'b'"
                         " AND scheduled_by = 'a' AND state = 'assigned'"
                         " AND 'bot1' IN (p1, p2, p3)"),
                 1);
    ddz_ladder_net_work(a, ca, true); /* its participants are busy: no second deal */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals"), 1);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_PLAY), "a is not the host");
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_null(next_of(b, DDZ_LADDER_NET_PLAY), "a deal handed twice");
    ddz_ladder_net_result res = result_of(play, 100);
    cr_assert_eq(ddz_ladder_net_done(b, &res), 0);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
                         " AND game1 = 100 AND game3 = 102"),
                 1);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_history WHERE game1 = 100"), 3);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_players WHERE deals = 1 AND games = 3"), 3);
    cr_assert_eq(num(cb, "SELECT sum(deals) FROM ladder_pairs"), 3);
    /* the winner rose, the others fell */
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT (mu > 25)::int FROM ladder_players WHERE name = '%s'",
             play->names[0]);
    cr_assert_eq(num(cb, sql), 1);
    /* every node hears of the standings and the history */
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_msg *m = next_of(a, DDZ_LADDER_NET_STANDING);
    cr_assert_not_null(m);
    free(m);
    int hist = 0;
    while ((m = ddz_ladder_net_next(a)))
        hist += m->kind == DDZ_LADDER_NET_HIST, free(m);
    cr_assert_eq(hist, 3, "the history rows (after the standings)");
    free(play);
}

Test(ladder_net, a_dead_hosts_deal_is_dropped_and_its_late_result_records_nothing)
{
    const char *bots[] = {"bot1"};
    ddz_ladder_net_present(b, bots, 1);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, true);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    ddz_lead_stop(lb); /* node b is gone (its lock with it) */
    lb = NULL;
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"), 1);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_presence"), 0,
                 "a dead node's bots are not present");
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"), 0,
                 "the dead node's bot was scheduled again");
    ddz_ladder_net_result res = result_of(play, 200);
    ddz_ladder_net_done(b, &res);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_history"), 0);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_players"), 0);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"), 1);
    /* and the AIs are free again: a deal among fixed participants only
     * needs a third, so nothing is scheduled, but none is busy */
    free(play);
}

typedef struct racer {
    ddz_ladder_net *n;
    PGconn *c;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    ddz_ladder_net_work(r->n, r->c, false);
    return NULL;
}

/* Two deals sharing ai:x, hosted by a and b, recorded at the same time:
 * ai:x's row is locked by one transaction while the other waits, so both
 * deals count (deals 2, games 6, two history rows). */
Test(ladder_net, two_hosts_sharing_an_ai_both_count)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    PGresult *ins =
        PQexec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, p1, p2,"
                   " p3, state, created_at) VALUES(1, 'caai', 'a', 'a', 'ai:x', 'ai:y', 'p', "
                   "'assigned', now()), (2, 'caai', 'b', 'a', 'ai:x', 'q', 'r', 'assigned',"
                   " now())");
    cr_assert_eq(PQresultStatus(ins), PGRES_COMMAND_OK, "%s", PQerrorMessage(ca));
    PQclear(ins);
    ddz_ladder_net_result r1 = {.deal = 1, .names = {"ai:x", "ai:y", "p"}};
    ddz_ladder_net_result r2 = {.deal = 2, .names = {"ai:x", "q", "r"}};
    for (int k = 0; k < 3; k++) {
        r1.score[k] = r2.score[k] = k == 0 ? 2 : -1;
        r1.games[k] = 10 + k, r2.games[k] = 20 + k;
    }
    ddz_ladder_net_done(a, &r1);
    ddz_ladder_net_done(b, &r2);
    pthread_t ta, tb;
    racer ra = {a, ca}, rb = {b, cb};
    pthread_create(&ta, NULL, race, &ra);
    pthread_create(&tb, NULL, race, &rb);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"), 2);
    cr_assert_eq(num(ca, "SELECT deals FROM ladder_players WHERE name = 'ai:x'"), 2);
    cr_assert_eq(num(ca, "SELECT games FROM ladder_players WHERE name = 'ai:x'"), 6);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history WHERE name = 'ai:x'"), 2);
    /* a result sent again for a done deal records nothing */
    ddz_ladder_net_result again = {.deal = 1, .names = {"ai:x", "ai:y", "p"}};
    ddz_ladder_net_done(a, &again);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_eq(num(ca, "SELECT deals FROM ladder_players WHERE name = 'ai:x'"), 2);
}

/* Deal 1 among ai:x, ai:y and p, assigned to node a (the tables made). */
static void deal_1_assigned_to_a(void)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, p1, p2, p3,"
                " state, created_at) VALUES(1, 'caai', 'a', 'a', 'ai:x', 'ai:y', 'p',"
                " 'assigned', now())");
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_msg *play = next_of(a, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    cr_assert_eq(play->deal, 1);
    free(play);
}

/* A result that can never be rated (a score that is not a number) is not
 * left assigned, which would hold its participants busy on every node and
 * hand the deal to the loop again: it is dropped, nothing recorded. */
Test(ladder_net, a_deal_that_cannot_be_rated_is_dropped_not_played_again)
{
    deal_1_assigned_to_a();
    ddz_ladder_net_result res = {.deal = 1, .names = {"ai:x", "ai:y", "p"}};
    res.score[0] = NAN;
    cr_assert_eq(ddz_ladder_net_done(a, &res), 0);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"), 1);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history"), 0);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_PLAY), "the deal was handed again");
}

/* A result whose transaction keeps failing (here a trigger refuses the
 * history rows) is given up after some rounds: the deal is then dropped,
 * and it is never handed to the loop again meanwhile nor after. */
Test(ladder_net, a_result_given_up_drops_its_deal_which_is_never_played_again)
{
    deal_1_assigned_to_a();
    pg_exec(ca, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
                " $$BEGIN RAISE EXCEPTION 'refused by the test'; END$$");
    pg_exec(ca, "CREATE TRIGGER refuse BEFORE INSERT ON ladder_history"
                " FOR EACH ROW EXECUTE FUNCTION refuse()");
    ddz_ladder_net_result res = {.deal = 1, .names = {"ai:x", "ai:y", "p"}};
    for (int k = 0; k < 3; k++)
        res.score[k] = k == 0 ? 2 : -1, res.games[k] = 10 + k;
    cr_assert_eq(ddz_ladder_net_done(a, &res), 0);
    int rounds = 0;
    while (num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'") == 0) {
        cr_assert_lt(rounds++, 100, "the result was never given up");
        ddz_ladder_net_work(a, ca, false);
        cr_assert_null(next_of(a, DDZ_LADDER_NET_PLAY), "the deal was handed again (round %d)",
                       rounds);
    }
    cr_assert_gt(rounds, 1, "given up at the first failure");
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_players WHERE deals > 0"), 0);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_PLAY), "the deal was handed again");
}

typedef struct recorder {
    ddz_ladder_net *n;
    PGconn *c;
    volatile int done;
} recorder;

static void *record_in_thread(void *arg)
{
    recorder *r = arg;
    ddz_ladder_net_work(r->n, r->c, false);
    __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Pops node n's history messages; appends their ids to ids[*k]. */
static void history_told(ddz_ladder_net *n, long long *ids, int *k, int max)
{
    ddz_ladder_net_msg *m;
    while ((m = ddz_ladder_net_next(n))) {
        if (m->kind == DDZ_LADDER_NET_HIST && *k < max)
            ids[(*k)++] = m->hist.id;
        free(m);
    }
}

/* Another recording is under way (session x drew a history id and has not
 * committed) when node b records a deal: b waits for it, so node a, which
 * tails the history past the last id it told, never sees b's later ids
 * before x's earlier one, and is told every row in id order. Without the
 * lock b commits at once, a's tail passes x's id, and x's row is never
 * told. */
Test(ladder_net, the_history_is_told_in_id_order_with_no_row_missed)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, p1, p2, p3,"
                " state, created_at) VALUES(2, 'caai', 'b', 'a', 'q', 'r', 's', 'assigned',"
                " now())");
    PGconn *x = conn();
    pg_exec(x, "BEGIN");
    pg_exec(x, "SELECT pg_advisory_xact_lock(7205759403792793602)");
    cr_assert_eq(DDZ_LADDER_NET_HIST_LOCK, 7205759403792793602, "the test's key is the lock's");
    pg_exec(x, "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score, faults,"
               " game1, game2, game3, opp1, opp2) VALUES('caai', 'w', 1, 25, 8, 1, 0, 1, 2, 3,"
               " 'u', 'v')");
    ddz_ladder_net_result r2 = {.deal = 2, .names = {"q", "r", "s"}};
    for (int k = 0; k < 3; k++)
        r2.score[k] = k == 0 ? 2 : -1, r2.games[k] = 20 + k;
    cr_assert_eq(ddz_ladder_net_done(b, &r2), 0);
    recorder rb = {b, cb, 0};
    pthread_t t;
    pthread_create(&t, NULL, record_in_thread, &rb);
    /* b is waiting for the lock, or (without it) has recorded */
    for (int i = 0;; i++) {
        cr_assert_lt(i, 1000, "b neither waits nor records");
        if (__atomic_load_n(&rb.done, __ATOMIC_SEQ_CST) ||
            num(ca, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    " AND database = (SELECT oid FROM pg_database WHERE datname ="
                    " current_database()) AND (classid::bigint << 32 | objid::bigint) ="
                    " 7205759403792793602") > 0)
            break;
        poll(NULL, 0, 10);
    }
    long long ids[16];
    int k = 0;
    ddz_ladder_net_work(a, ca, false);
    history_told(a, ids, &k, 16);
    pg_exec(x, "COMMIT");
    pthread_join(t, NULL);
    ddz_ladder_net_work(a, ca, false);
    history_told(a, ids, &k, 16);
    PQfinish(x);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history"), 4);
    cr_assert_eq(k, 4, "a was told %d of the 4 history rows", k);
    for (int i = 1; i < k; i++)
        cr_assert_gt(ids[i], ids[i - 1], "told out of id order");
}

/* The bots of node a (p) and b (q, r), published; a and b remade with four
 * fixed participants and a move wait of `wait_ms`. The fixed participants
 * have played 10 deals each, so that tables are built around the bots,
 * which have none (schedule.h: fewest deals first). */
static void bots_at_a_and_b(int wait_ms)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    pg_exec(ca, "INSERT INTO ladder_players(rules, name, mu, sigma, games, deals, score, faults,"
                " updated_at) SELECT 'caai', x, 25, 8, 30, 10, 0, 0, 0 FROM"
                " unnest('{ai:x,ai:y,ai:z,ai:w}'::text[]) x");
    ddz_ladder_net_destroy(a);
    ddz_ladder_net_destroy(b);
    a = net_with("a", wait_ms), b = net_with("b", wait_ms);
    const char *pa[] = {"p"}, *pb[] = {"q", "r"};
    ddz_ladder_net_present(a, pa, 1);
    ddz_ladder_net_present(b, pb, 2);
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_work(b, cb, false);
}

#define DEALS_OF(who) "SELECT count(*) FROM cluster_ladder_deals WHERE '" who "' IN (p1, p2, p3)"

/* Every deal without q ends (q and r stay busy). */
static void free_all_but_q(void)
{
    pg_exec(ca, "UPDATE cluster_ladder_deals SET state = 'done' WHERE state = 'assigned'"
                " AND NOT ('q' IN (p1, p2, p3))");
}

/* Bots on two nodes never meet unless gathered: the leader orders node
 * a's bot to b, where most bots are; node a is told to send it there (once)
 * and it is in no deal meanwhile; once it is present at b the order is
 * done and it is scheduled there with b's bots. */
Test(ladder_net, the_leader_gathers_the_bots_on_the_node_with_most)
{
    bots_at_a_and_b(60000);
    ddz_ladder_net_work(a, ca, true); /* a leads */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
                         " AND from_node = 'a' AND to_node = 'b' AND url = 'ws://b.invalid/ws'"),
                 1, "p is ordered to b");
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves"), 1, "only p moves");
    cr_assert_eq(num(ca, DEALS_OF("p")), 0, "p was given a deal on its way");
    cr_assert_gt(num(ca, DEALS_OF("q")), 0, "b's bots play meanwhile");
    ddz_ladder_net_msg *m = next_of(a, DDZ_LADDER_NET_MOVE);
    cr_assert_not_null(m, "node a was not told to send p");
    cr_assert_str_eq(m->names[0], "p");
    cr_assert_str_eq(m->url, "ws://b.invalid/ws");
    cr_assert_str_eq(m->home, "b");
    free(m);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_null(next_of(b, DDZ_LADDER_NET_MOVE), "node b told to move a bot");
    ddz_ladder_net_work(a, ca, true);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_MOVE), "the order was told twice");
    cr_assert_eq(num(ca, DEALS_OF("p")), 0, "p was given a deal on its way");

    /* p reconnects at b (which leads now: its round forms b's tables
     * only, so that p is not left without a fixed participant by a's) */
    const char *pb[] = {"q", "r", "p"};
    ddz_ladder_net_present(a, NULL, 0);
    ddz_ladder_net_present(b, pb, 3);
    ddz_ladder_net_work(a, ca, false);
    free_all_but_q();
    ddz_ladder_net_work(b, cb, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves"), 0, "the order stayed");
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE 'p' IN (p1, p2, p3)"
                         " AND node = 'b'"),
                 1, "p plays at b");
}

/* A bot that does not get home within the wait (here: it leaves and
 * comes back, as a bridge that cannot reach home does) plays where it is
 * (with that node's participants), and is not ordered again meanwhile. */
Test(ladder_net, a_bot_that_does_not_move_plays_where_it_is)
{
    bots_at_a_and_b(300);
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"), 1);
    cr_assert_eq(num(ca, DEALS_OF("p")), 0);
    ddz_ladder_net_msg *told = next_of(a, DDZ_LADDER_NET_MOVE);
    cr_assert_not_null(told, "node a was not told to send p");
    free(told);
    char *at = NULL;
    {
        PGresult *r = PQexec(ca, "SELECT at::text FROM cluster_ladder_moves WHERE name = 'p'");
        cr_assert_eq(PQntuples(r), 1);
        at = strdup(PQgetvalue(r, 0, 0));
        PQclear(r);
    }
    const char *pa[] = {"p"};
    ddz_ladder_net_present(a, NULL, 0); /* p leaves a ... */
    ddz_ladder_net_work(a, ca, true);
    ddz_ladder_net_present(a, pa, 1); /* ... and is back */
    ddz_ladder_net_work(a, ca, true);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_MOVE), "p was sent away again");
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p' AND at = '%s'", at);
    free(at);
    cr_assert_eq(num(ca, sql), 1, "p was ordered again");
    cr_assert_eq(num(ca, DEALS_OF("p")), 0, "p played within the wait");
    /* the wait is the condition itself: past it, p is free to play at a */
    while (num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
                   " AND at > now() - interval '300 milliseconds'") > 0)
        poll(NULL, 0, 20);
    free_all_but_q();
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE 'p' IN (p1, p2, p3)"
                         " AND node = 'a'"),
                 1, "p did not play where it stayed");
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
                         " AND at > now() - interval '300 milliseconds'"),
                 0, "p was ordered again");
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"), 1,
                 "the order (the cooldown) is gone");
}

/* A tie keeps the home chosen before; with none, the lowest node id. */
Test(ladder_net, a_tie_keeps_the_home)
{
    ddz_ladder_net_destroy(a);
    ddz_ladder_net_destroy(b);
    a = net_with("a", 60000), b = net_with("b", 60000);
    const char *pb[] = {"q"};
    ddz_ladder_net_present(b, pb, 1);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, true); /* home: b, its only node */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves"), 0);
    const char *pa[] = {"p"};
    ddz_ladder_net_present(a, pa, 1);
    ddz_ladder_net_work(a, ca, true); /* one each: b stays home, not a */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
                         " AND to_node = 'b'"),
                 1, "the home moved on a tie");
    /* a new leader keeps the home its predecessor's orders point to: p is
     * still sent to b, q is not sent to a (the lowest id) */
    ddz_ladder_net_destroy(b);
    b = net_with("b", 60000);
    ddz_ladder_net_present(b, pb, 1);
    ddz_ladder_net_work(b, cb, true);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
                         " AND to_node = 'b'"),
                 1, "a new leader gave up its predecessor's home");
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'q'"), 0,
                 "a new leader swapped the bots");
}
