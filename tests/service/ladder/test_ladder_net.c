/* test_ladder_net.c - service/ladder/ladder_net.h against a real
 * PostgreSQL (the ctest fixture, DDZ_TEST_PG), without servers: nodes are
 * ladder_net objects with sessions of their own, alive while their
 * "node:ID" lock (lead.h) is held. The leader plans a deal (deal_plan.h:
 * several tables, each program once) at the node of its bots; the host
 * records it in one transaction, rated as ddz_deal_rate rates it, one
 * history row per seat with its comparisons; a deal whose host died is
 * dropped and a late result for it records nothing; two hosts finishing
 * deals that share an AI at once both count (no lost update); every node
 * sees every node's bots and deals (the live view). */
#include <criterion/criterion.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "service/pg_test.h"
#include "test_clock.h"
#include "rules/error.h"
#include "service/ladder/ladder_net.h"
#include "service/cluster/lead.h"
#include "service/ladder/deal_plan.h"
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

/* Node `node`'s ladder side with the fixed participants fixed[0..nfixed)
 * and four tables. */
static ddz_ladder_net *net_fixed(const char *node, const char *const *fixed, int nfixed,
                                 int move_wait_ms)
{
    ddz_ladder_net_cfg cfg = {
        .rules = "caai", .node = node, .nfixed = nfixed, .tables = 4, .move_wait_ms = move_wait_ms};
    for (int i = 0; i < nfixed; i++)
        cfg.fixed[i] = fixed[i];
    ddz_rating_cfg_default(&cfg.rc);
    char err[200];
    ddz_ladder_net *n = ddz_ladder_net_create(&cfg, err, sizeof err);
    cr_assert_not_null(n, "%s", err);
    return n;
}

/* Node `node`'s ladder side: two hosted AIs, or eight with `move_wait_ms`
 * set (the gathering tests: enough that a deal of two bots, which takes
 * four AI seats, leaves some free for a third bot's). */
static ddz_ladder_net *net_with(const char *node, int move_wait_ms)
{
    static const char *const ais[] = {"ai:x", "ai:y", "ai:z", "ai:w",
                                      "ai:v", "ai:u", "ai:t", "ai:s"};
    return net_fixed(node, ais, move_wait_ms ? 8 : 2, move_wait_ms);
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

/* PLAY's deal played out: at every table West won 4 (the others -2),
 * table t's game is game0 + t. */
static ddz_ladder_net_result result_of(const ddz_ladder_net_msg *play, int64_t game0)
{
    ddz_ladder_net_result r = {.deal = play->deal, .tables = play->tables};
    memcpy(r.names, play->names, sizeof r.names);
    for (int t = 0; t < play->tables; t++) {
        for (int s = 0; s < 3; s++)
            r.score[t][s] = s == 0 ? 4 : -2;
        r.games[t] = game0 + t;
    }
    return r;
}

/* A result of deal `deal` of two tables, names[6] table-major, West
 * winning (2, the others -1), games g0 and g0 + 1. */
static ddz_ladder_net_result result2(int64_t deal, const char *const *names, int64_t g0)
{
    ddz_ladder_net_result r = {.deal = deal, .tables = 2};
    for (int t = 0; t < 2; t++) {
        for (int s = 0; s < 3; s++) {
            snprintf(r.names[t][s], sizeof r.names[t][s], "%s", names[3 * t + s]);
            r.score[t][s] = s == 0 ? 2 : -1;
        }
        r.games[t] = g0 + t;
    }
    return r;
}

/* Whether every program (not a hosted AI) holds one seat at most of
 * every deal. */
static bool each_program_once(PGconn *c)
{
    return num(c, "SELECT count(*) FROM (SELECT d.id, x FROM cluster_ladder_deals d,"
                  " unnest(d.names) x WHERE x NOT LIKE 'ai:%' GROUP BY d.id, x"
                  " HAVING count(*) > 1) y") == 0;
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
                         " AND scheduled_by = 'a' AND state = 'assigned' AND tables = 2"
                         " AND cardinality(names) = 6 AND 'bot1' = ANY(names)"
                         " AND names <@ '{bot1,ai:x,ai:y}'"),
                 1, "one deal of bot1 and the AIs at two tables, hosted by b");
    cr_assert(each_program_once(ca));
    ddz_ladder_net_work(a, ca, true); /* its participants are busy: no second deal */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals"), 1);
    cr_assert_null(next_of(a, DDZ_LADDER_NET_PLAY), "a is not the host");
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    cr_assert_eq(play->tables, 2);
    int bot1 = 0;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 3; s++)
            bot1 += strcmp(play->names[t][s], "bot1") == 0;
    cr_assert_eq(bot1, 1, "bot1 plays the deal once");
    ddz_ladder_net_work(b, cb, false);
    cr_assert_null(next_of(b, DDZ_LADDER_NET_PLAY), "a deal handed twice");
    ddz_ladder_net_result res = result_of(play, 100);
    cr_assert_eq(ddz_ladder_net_done(b, &res), 0);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
                         " AND games = '{100,101}'"),
                 1);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_history WHERE deal = 100"), 6,
                 "one history row per seat");
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_players WHERE name = 'bot1'"
                         " AND deals = 1 AND games = 1"),
                 1);
    cr_assert_eq(num(cb, "SELECT sum(games) FROM ladder_players"), 6, "every seat counted");
    /* bot1's result is compared with the other table's holder of its hand */
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_history WHERE name = 'bot1'"
                         " AND cardinality(ARRAY(SELECT json_array_elements(compared::json))) = 1"),
                 1, "bot1 compared with the other table's holder of its hand");
    /* every node hears of the standings and the history */
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_msg *m = next_of(a, DDZ_LADDER_NET_STANDING);
    cr_assert_not_null(m);
    free(m);
    int hist = 0, bot1_rows = 0;
    while ((m = ddz_ladder_net_next(a))) {
        if (m->kind == DDZ_LADDER_NET_HIST) {
            hist++;
            cr_assert_eq(m->hist.deal, 100);
            cr_assert(m->hist.hand >= 0 && m->hist.hand <= 2);
            cr_assert_eq(m->hist.ncmp, 1);
            bot1_rows += strcmp(m->hist.name, "bot1") == 0;
        }
        free(m);
    }
    cr_assert_eq(hist, 6, "the history rows (after the standings)");
    cr_assert_eq(bot1_rows, 1);
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
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"
                         " AND (node = 'b' OR 'bot1' = ANY(names))"),
                 0, "the dead node's bot was scheduled again");
    ddz_ladder_net_result res = result_of(play, 200);
    ddz_ladder_net_done(b, &res);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_history"), 0);
    cr_assert_eq(num(cb, "SELECT count(*) FROM ladder_players"), 0);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"), 1);
    /* and the AIs are free again: with no program present anywhere, they
     * play a deal alone, at the leader's node */
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"
                         " AND node = 'a' AND names <@ '{ai:x,ai:y}'"),
                 1, "no deal of the AIs alone at the leader's node");
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
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, state,"
                " created_at, tables, names) VALUES(1, 'caai', 'a', 'a', 'assigned', now(), 2,"
                " '{ai:x,ai:y,p,ai:y,ai:x,p2}'), (2, 'caai', 'b', 'a', 'assigned', now(), 2,"
                " '{ai:x,q,r,ai:x,s,t}')");
    const char *n1[] = {"ai:x", "ai:y", "p", "ai:y", "ai:x", "p2"};
    const char *n2[] = {"ai:x", "q", "r", "ai:x", "s", "t"};
    ddz_ladder_net_result r1 = result2(1, n1, 10), r2 = result2(2, n2, 20);
    ddz_ladder_net_done(a, &r1);
    ddz_ladder_net_done(b, &r2);
    pthread_t ta, tb;
    racer ra = {a, ca}, rb = {b, cb};
    pthread_create(&ta, NULL, race, &ra);
    pthread_create(&tb, NULL, race, &rb);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"), 2);
    /* ai:x held two seats of each deal: every seat counts */
    cr_assert_eq(num(ca, "SELECT deals FROM ladder_players WHERE name = 'ai:x'"), 4);
    cr_assert_eq(num(ca, "SELECT games FROM ladder_players WHERE name = 'ai:x'"), 4);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history WHERE name = 'ai:x'"), 4);
    /* a result sent again for a done deal records nothing */
    ddz_ladder_net_result again = result2(1, n1, 10);
    ddz_ladder_net_done(a, &again);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_eq(num(ca, "SELECT deals FROM ladder_players WHERE name = 'ai:x'"), 4);
}

/* Deal 1 of p, q and the AIs at two tables (deal_1), assigned to node a
 * (the tables made). */
static const char *const deal_1[] = {"p", "ai:x", "ai:y", "q", "ai:y", "ai:x"};

static void deal_1_assigned_to_a(void)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, state,"
                " created_at, tables, names) VALUES(1, 'caai', 'a', 'a', 'assigned', now(), 2,"
                " '{p,ai:x,ai:y,q,ai:y,ai:x}')");
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
    ddz_ladder_net_result res = result2(1, deal_1, 10);
    res.score[1][0] = NAN;
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
    ddz_ladder_net_result res = result2(1, deal_1, 10);
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
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, state,"
                " created_at, tables, names) VALUES(2, 'caai', 'b', 'a', 'assigned', now(), 2,"
                " '{q,r,s,t,u,v}')");
    PGconn *x = conn();
    pg_exec(x, "BEGIN");
    pg_exec(x, "SELECT pg_advisory_xact_lock(7205759403792793602)");
    cr_assert_eq(DDZ_LADDER_NET_HIST_LOCK, 7205759403792793602, "the test's key is the lock's");
    pg_exec(x, "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score, faults,"
               " game1, game2, game3, opp1, opp2) VALUES('caai', 'w', 1, 25, 8, 1, 0, 1, 2, 3,"
               " 'u', 'v')");
    const char *n2[] = {"q", "r", "s", "t", "u", "v"};
    ddz_ladder_net_result r2 = result2(2, n2, 20);
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
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history"), 7);
    cr_assert_eq(k, 7, "a was told %d of the 7 history rows", k);
    for (int i = 1; i < k; i++)
        cr_assert_gt(ids[i], ids[i - 1], "told out of id order");
}

/* The bots of node a (p) and b (q, r), published; a and b remade with
 * eight hosted AIs and a move wait of `wait_ms`. */
static void bots_at_a_and_b(int wait_ms)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    ddz_ladder_net_destroy(a);
    ddz_ladder_net_destroy(b);
    a = net_with("a", wait_ms), b = net_with("b", wait_ms);
    const char *pa[] = {"p"}, *pb[] = {"q", "r"};
    ddz_ladder_net_present(a, pa, 1);
    ddz_ladder_net_present(b, pb, 2);
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_work(b, cb, false);
}

#define DEALS_OF(who) "SELECT count(*) FROM cluster_ladder_deals WHERE '" who "' = ANY(names)"

/* Every deal without q ends (q and r stay busy). */
static void free_all_but_q(void)
{
    pg_exec(ca, "UPDATE cluster_ladder_deals SET state = 'done' WHERE state = 'assigned'"
                " AND NOT ('q' = ANY(names))");
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
    cr_assert_str_eq(m->names[0][0], "p");
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
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE 'p' = ANY(names)"
                         " AND node = 'b'"),
                 1, "p plays at b");
}

/* A bot that does not get home within the wait (here: it leaves and
 * comes back, as a bridge that cannot reach home does) plays where it is
 * (with that node's participants), and is not ordered again meanwhile. */
Test(ladder_net, a_bot_that_does_not_move_plays_where_it_is)
{
    /* The wait must outlast the steps below on a loaded machine: 300 ms
     * did not (the check "within the wait" came after it). */
    const int wait_ms = T(3000);
    bots_at_a_and_b(wait_ms);
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
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM cluster_ladder_moves WHERE name = 'p'"
             " AND at > now() - interval '%d milliseconds'",
             wait_ms);
    while (num(ca, sql) > 0)
        poll(NULL, 0, 20);
    free_all_but_q();
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE 'p' = ANY(names)"
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

/* A field of seven bots at node b and an operator engine (a program every
 * node hosts) with two hosted AIs: the leader plans deals at b in which
 * every program plays once, in at most b's four tables. */
Test(ladder_net, a_deals_plan_has_each_program_once)
{
    const char *fixed[] = {"ai:x", "ai:y", "engine:e"};
    ddz_ladder_net_destroy(a);
    ddz_ladder_net_destroy(b);
    a = net_fixed("a", fixed, 3, 0), b = net_fixed("b", fixed, 3, 0);
    const char *bots[] = {"b1", "b2", "b3", "b4", "b5", "b6", "b7"};
    ddz_ladder_net_present(b, bots, 7);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"), 1);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE node = 'b'"
                         " AND tables = 3 AND cardinality(names) = 9"
                         " AND names @> '{b1,b2,b3,b4,b5,b6,b7,engine:e}'"),
                 1, "eight programs at three tables, at b");
    cr_assert(each_program_once(ca));
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    cr_assert_eq(play->tables, 3);
    for (int i = 0; i < 7; i++) {
        int seats = 0;
        for (int t = 0; t < 3; t++)
            for (int s = 0; s < 3; s++)
                seats += strcmp(play->names[t][s], bots[i]) == 0;
        cr_assert_eq(seats, 1, "%s holds %d seats", bots[i], seats);
    }
    free(play);
    /* everyone is busy, and b has one free table: nothing more */
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals"), 1);
}

/* Without any bot, hosted AIs play alone at the leader's node; an engine
 * is a program: with one, its deal (with the AIs) is played there too, and
 * the AIs play no deal of their own. */
Test(ladder_net, hosted_ais_play_alone_only_without_programs)
{
    ddz_ladder_net_work(b, cb, true); /* b leads, a is a node */
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE node = 'b'"
                         " AND state = 'assigned' AND names <@ '{ai:x,ai:y}' AND tables = 2"),
                 1, "the AIs do not play alone at the leader's node");
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals"), 1);
    pg_exec(cb, "UPDATE cluster_ladder_deals SET state = 'done'");
    const char *fixed[] = {"ai:x", "ai:y", "engine:e"};
    ddz_ladder_net_destroy(b);
    b = net_fixed("b", fixed, 3, 0);
    ddz_ladder_net_work(b, cb, true);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"
                         " AND node = 'b' AND 'engine:e' = ANY(names)"),
                 1, "the engine's deal");
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"), 1);
    cr_assert(each_program_once(cb));
}

/* Deal 3 at three tables (p, q, r at West; the AIs at the other hands,
 * ai:x twice at South), recorded by node a: each hand is rated among its
 * distinct holders exactly as ddz_deal_rate rates it; one history row per
 * seat with its hand, game, table mates and the same hand's holders at the
 * other tables; node b is told every row, old ones too. */
Test(ladder_net, recording_rates_each_hand_among_its_holders)
{
    ddz_ladder_net_work(a, ca, false); /* makes the tables */
    /* a row of the old format (before schema 5): told as such */
    pg_exec(ca, "INSERT INTO ladder_history(rules, name, finished_at, mu, sigma, score, faults,"
                " game1, game2, game3, opp1, opp2) VALUES('caai', 'old', 1, 25, 8, 3, 1, 1, 2, 3,"
                " 'u', 'v')");
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(id, rules, node, scheduled_by, state,"
                " created_at, tables, names) VALUES(3, 'caai', 'a', 'a', 'assigned', now(), 3,"
                " '{p,ai:x,ai:y,q,ai:y,ai:x,r,ai:x,ai:y}')");
    ddz_ladder_net_work(a, ca, false);
    ddz_ladder_net_msg *play = next_of(a, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    cr_assert_eq(play->deal, 3);
    cr_assert_eq(play->tables, 3);
    cr_assert_str_eq(play->names[1][2], "ai:x");
    ddz_ladder_net_result res = {.deal = 3, .tables = 3, .games = {300, 301, 302}};
    memcpy(res.names, play->names, sizeof res.names);
    free(play);
    const double score[DDZ_DEAL_TABLES][3] = {{4, -2, -2}, {-2, 1, 1}, {2, -1, -1}};
    for (int t = 0; t < 3; t++)
        for (int s = 0; s < 3; s++)
            res.score[t][s] = score[t][s];
    res.faults[1][0] = 1;
    cr_assert_eq(ddz_ladder_net_done(a, &res), 0);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE id = 3"
                         " AND state = 'done' AND games = '{300,301,302}'"),
                 1);

    /* the same inputs through ddz_deal_rate: ai:x, ai:y, p, q, r (fresh) */
    const char *who[] = {"ai:x", "ai:y", "p", "q", "r"};
    ddz_rating_cfg rc;
    ddz_rating_cfg_default(&rc);
    ddz_rating r[5];
    for (int i = 0; i < 5; i++)
        r[i] = ddz_rating_new(&rc);
    ddz_deal_plan plan = {.tables = 3, .who = {{2, 0, 1}, {3, 1, 0}, {4, 0, 1}}};
    cr_assert_eq(ddz_deal_rate(&rc, &plan, r, 5, score), 3);
    for (int i = 0; i < 5; i++) {
        char sql[200];
        snprintf(sql, sizeof sql,
                 "SELECT mu, sigma FROM ladder_players WHERE rules = 'caai' AND name = '%s'",
                 who[i]);
        PGresult *pr = PQexec(ca, sql);
        cr_assert_eq(PQntuples(pr), 1, "%s has no standing", who[i]);
        double mu = atof(PQgetvalue(pr, 0, 0)), sg = atof(PQgetvalue(pr, 0, 1));
        PQclear(pr);
        cr_assert_float_eq(mu, r[i].mu, 1e-9, "%s: mu %.12g, not %.12g", who[i], mu, r[i].mu);
        cr_assert_float_eq(sg, r[i].sigma, 1e-9, "%s: sigma", who[i]);
    }
    cr_assert_gt(r[2].mu, r[4].mu, "p won most among the West hands");
    /* the standings: every seat held */
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_players WHERE name = 'ai:x' AND games = 3"
                         " AND deals = 3 AND score = -2"),
                 1);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_players WHERE name = 'q' AND games = 1"
                         " AND deals = 1 AND score = -2 AND faults = 1"),
                 1);
    /* the history: one row per seat */
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history WHERE deal = 300"), 9);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history WHERE deal = 300 AND name = 'ai:x'"),
                 3);
    cr_assert_eq(
        num(ca, "SELECT count(*) FROM ladder_history WHERE name = 'q' AND deal = 300 AND hand = 0"
                " AND game1 = 301 AND game2 IS NULL AND score = -2 AND faults = 1"
                " AND opp1 = 'ai:y' AND opp2 = 'ai:x' AND compared::jsonb ="
                " '[{\"name\": \"p\", \"score\": 4, \"game\": 300},"
                " {\"name\": \"r\", \"score\": 2, \"game\": 302}]'::jsonb"),
        1, "q's row");
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history WHERE name = 'ai:y' AND hand = 1"
                         " AND game1 = 301 AND compared::jsonb ="
                         " '[{\"name\": \"ai:x\", \"score\": -2, \"game\": 300},"
                         " {\"name\": \"ai:x\", \"score\": -1, \"game\": 302}]'::jsonb"),
                 1, "ai:y's row at South");
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM ladder_history h JOIN ladder_players p USING (rules, name)"
             " WHERE h.deal = 300 AND h.mu = p.mu AND h.sigma = p.sigma");
    cr_assert_eq(num(ca, sql), 9, "every row has its player's rating after the deal");

    /* node b is told the rows, the old one first */
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *m;
    int rows = 0;
    bool told_q = false;
    while ((m = ddz_ladder_net_next(b))) {
        if (m->kind == DDZ_LADDER_NET_HIST) {
            const ddz_store_ladder_hist *h = &m->hist;
            if (rows++ == 0) {
                cr_assert_str_eq(h->name, "old");
                cr_assert_eq(h->hand, -1);
                cr_assert_eq(h->deal, 0);
                cr_assert_eq(h->ncmp, 0);
                cr_assert(h->games[0] == 1 && h->games[1] == 2 && h->games[2] == 3);
                cr_assert_float_eq(h->score, 3, 1e-12);
            } else if (strcmp(h->name, "q") == 0) {
                told_q = true;
                cr_assert_eq(h->deal, 300);
                cr_assert_eq(h->hand, 0);
                cr_assert_eq(h->games[0], 301);
                cr_assert_eq(h->faults, 1);
                cr_assert_str_eq(h->opp[0], "ai:y");
                cr_assert_str_eq(h->opp[1], "ai:x");
                cr_assert_eq(h->ncmp, 2);
                cr_assert_str_eq(h->cmp[0].name, "p");
                cr_assert_float_eq(h->cmp[0].score, 4, 1e-12);
                cr_assert_eq(h->cmp[0].game, 300);
                cr_assert_str_eq(h->cmp[1].name, "r");
                cr_assert_float_eq(h->cmp[1].score, 2, 1e-12);
                cr_assert_eq(h->cmp[1].game, 302);
                cr_assert_float_eq(h->mu, r[3].mu, 1e-9);
            }
        }
        free(m);
    }
    cr_assert_eq(rows, 10, "b was told %d of the 10 history rows", rows);
    cr_assert(told_q);
}

/* A result whose plan is not the one assigned (the loop played other
 * seats) is not recorded: the deal is dropped. */
Test(ladder_net, a_result_of_another_plan_is_dropped)
{
    deal_1_assigned_to_a();
    const char *other[] = {"q", "ai:x", "ai:y", "p", "ai:y", "ai:x"};
    ddz_ladder_net_result res = result2(1, other, 10);
    cr_assert_eq(ddz_ladder_net_done(a, &res), 0);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"), 1);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_history"), 0);
    cr_assert_eq(num(ca, "SELECT count(*) FROM ladder_players"), 0);
}

/* The live view: node a, which hosts nothing, knows that bot1 is present
 * at node b and playing there, and lists b's deal; once the deal is done
 * bot1 is idle, and once it leaves b it is present nowhere. */
Test(ladder_net, every_node_sees_every_nodes_bots_and_deals)
{
    bool playing = true;
    char node[32] = "x";
    cr_assert_not(ddz_ladder_net_where(a, "bot1", &playing, node, sizeof node),
                  "present before any round");
    cr_assert_not(playing);
    cr_assert_str_eq(node, "");
    const char *bots[] = {"bot1"};
    ddz_ladder_net_present(b, bots, 1);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, false);
    cr_assert(ddz_ladder_net_where(a, "bot1", &playing, node, sizeof node), "bot1 not seen");
    cr_assert_str_eq(node, "b");
    cr_assert_not(playing);
    ddz_ladder_net_live live[4];
    cr_assert_eq(ddz_ladder_net_deals(a, live, 4), 0);

    ddz_ladder_net_work(a, ca, true); /* a leads: a deal at b */
    cr_assert(ddz_ladder_net_where(a, "bot1", &playing, NULL, 0));
    cr_assert(playing, "bot1's deal at b is not seen from a");
    cr_assert(ddz_ladder_net_where(a, "bot1", NULL, node, sizeof node));
    cr_assert_eq(ddz_ladder_net_deals(a, live, 4), 1);
    cr_assert_str_eq(live[0].node, "b");
    cr_assert_eq(live[0].tables, 2);
    int seats = 0;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 3; s++)
            seats += strcmp(live[0].names[t][s], "bot1") == 0;
    cr_assert_eq(seats, 1);
    cr_assert_eq(ddz_ladder_net_deals(a, live, 0), 0, "max is kept");
    /* a hosted AI is present nowhere, yet plays */
    cr_assert_not(ddz_ladder_net_where(a, "ai:x", &playing, NULL, 0));
    cr_assert(playing);
    /* b sees the same */
    ddz_ladder_net_work(b, cb, false);
    cr_assert(ddz_ladder_net_where(b, "bot1", &playing, NULL, 0) && playing);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    cr_assert_eq(live[0].deal, play->deal);

    ddz_ladder_net_result res = result_of(play, 500);
    free(play);
    cr_assert_eq(ddz_ladder_net_done(b, &res), 0);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, false);
    cr_assert(ddz_ladder_net_where(a, "bot1", &playing, NULL, 0));
    cr_assert_not(playing, "a done deal is still played");
    cr_assert_eq(ddz_ladder_net_deals(a, live, 4), 0);

    ddz_ladder_net_present(b, NULL, 0);
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_work(a, ca, false);
    cr_assert_not(ddz_ladder_net_where(a, "bot1", &playing, node, sizeof node),
                  "bot1 left, still present");
    cr_assert_str_eq(node, "");
}

/* A cluster_ladder_deals made by the old version (one table, p1..p3 NOT
 * NULL, game1..3) is migrated at the first round: the plan's columns
 * added, the old ones nullable and kept, an old deal still assigned
 * dropped (no node plays it), and deals are planned into it. */
Test(ladder_net, an_old_deals_table_is_migrated)
{
    pg_exec(ca, "CREATE TABLE cluster_ladder_deals(id BIGSERIAL PRIMARY KEY, rules TEXT NOT NULL,"
                " node TEXT NOT NULL, scheduled_by TEXT NOT NULL, p1 TEXT NOT NULL,"
                " p2 TEXT NOT NULL, p3 TEXT NOT NULL, state TEXT NOT NULL,"
                " created_at TIMESTAMPTZ NOT NULL, done_at TIMESTAMPTZ, game1 BIGINT,"
                " game2 BIGINT, game3 BIGINT)");
    pg_exec(ca, "INSERT INTO cluster_ladder_deals(rules, node, scheduled_by, p1, p2, p3, state,"
                " created_at, game1, game2, game3) VALUES('caai', 'b', 'a', 'bot1', 'ai:x', 'ai:y',"
                " 'done', now(), 1, 2, 3), ('caai', 'b', 'a', 'bot1', 'ai:x', 'ai:y', 'assigned',"
                " now(), NULL, NULL, NULL)");
    const char *bots[] = {"bot1"};
    ddz_ladder_net_present(b, bots, 1);
    ddz_ladder_net_work(b, cb, false); /* migrates */
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'dropped'"
                         " AND p1 = 'bot1'"),
                 1, "the old deal still assigned");
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
                         " AND game3 = 3"),
                 1, "the old rows are kept");
    ddz_ladder_net_work(a, ca, true);
    cr_assert_eq(num(ca, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'assigned'"
                         " AND node = 'b' AND 'bot1' = ANY(names) AND p1 IS NULL"),
                 1, "no deal planned into the old table");
    ddz_ladder_net_work(b, cb, false);
    ddz_ladder_net_msg *play = next_of(b, DDZ_LADDER_NET_PLAY);
    cr_assert_not_null(play);
    ddz_ladder_net_result res = result_of(play, 700);
    free(play);
    cr_assert_eq(ddz_ladder_net_done(b, &res), 0);
    ddz_ladder_net_work(b, cb, false);
    cr_assert_eq(num(cb, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
                         " AND games = '{700,701}'"),
                 1);
}
