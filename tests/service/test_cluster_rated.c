/* test_cluster_rated.c - rated quick play on two `ddz serve` nodes of one
 * PostgreSQL database (SPEC §15, issue 40; service/server/rated.h; the
 * ctest fixture "pg", each test a database of its own). A cluster's rated
 * quick play is at one node, the holder of the lead job "rated": two
 * people asking at the other node are answered `redirect` to it, follow it
 * (a new connection, hello with the session, the same `quick`), and with
 * one person who asked at the holder are seated at ONE table of three
 * people (the fill wait is 600 s: no hosted AI can be the answer); the
 * game plays out and the three ratings move. When the holder dies, the
 * other node takes the job and plays rated quick itself. Every wait is
 * bounded. */
#include "serve_harness.h"
#include "bot_procs.h"
#include "pg_test.h"
#include "cluster_nodes.h"
#include "service/store/store.h"

#define FILL_S 600 /* --rated-fill-s: far beyond the test, so only people fill a table */

/* The suite's .init: two_nodes_init() with a fill wait nobody reaches. */
static void rated_nodes_init(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
    static const char *const extra[] = {"--ai", "greedy", "--rated-fill-s", "600", NULL};
    memcpy(node_extra, extra, sizeof extra);
    node_start(0);
    node_start(1);
}

TestSuite(cluster_rated, .init = rated_nodes_init, .fini = two_nodes_fini, .timeout = HANG(180));

static char sessions[3][DDZ_SESSION_HEX + 1];
static const char *const names[3] = {"Ann", "Bo", "Cy"};

/* Accounts names[0..3) with a session each, written to the shared
 * database as a node writes them (the nodes read sessions from it). */
static void accounts(void)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    for (int i = 0; i < 3; i++) {
        int64_t id = 0;
        cr_assert_eq(
            ddz_store_account_add(s, names[i], "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", &id),
            0);
        cr_assert_eq(ddz_store_session_new(s, id, sessions[i]), 0);
    }
    ddz_store_close(s);
}

/* Node k's /metrics line for the job "rated": 1 while it holds it. */
static int holds_rated(int k)
{
    srv.port = N[k].port;
    int status;
    char *body = http_get("/metrics", &status);
    cr_assert_eq(status, 200);
    const char *line = "ddz_lead_held{job=\"rated\"} ";
    const char *at = strstr(body, line);
    cr_assert_not_null(at, "no %s in node %s's /metrics", line, N[k].id);
    int v = at[strlen(line)] - '0';
    free(body);
    return v;
}

/* Waits (bounded) until exactly one node holds "rated"; returns it. */
static int rated_holder(void)
{
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        int a = holds_rated(0), b = holds_rated(1);
        if (a + b == 1)
            return a ? 0 : 1;
        cr_assert_lt(now_ms(), deadline, "no single holder of \"rated\" (%d, %d)", a, b);
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }
}

/* Person i says hello at node k with its session. */
static cli *person_at(int k, int i)
{
    srv.port = N[k].port;
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s at %s", names[i], N[k].id);
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "x",
                          "session", sessions[i]));
    const ddz_event *w = cli_expect(c, DDZ_EVENT_WELCOME);
    cr_assert_str_eq(w->welcome.account, names[i]);
    return c;
}

static void rated_quick(cli *c)
{
    cli_send(c, json_pack("{s:s, s:i, s:b, s:s}", "type", "quick", "id", 7, "rated", 1, "rules",
                          "caai"));
}

/* The next `queued` or `redirect` of `c` (its answer to rated_quick()). */
static const ddz_event *answer(cli *c)
{
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        int64_t left = deadline - now_ms();
        const ddz_event *e = cli_next(c, left > 0 ? (int)left : 0);
        cr_assert_not_null(e, "%s: no answer to a rated quick:%s", c->name, tail_of(c));
        cr_assert_neq(e->type, DDZ_EVENT_ERROR, "%s: %s", c->name, show(e));
        if (e->type == DDZ_EVENT_QUEUED || e->type == DDZ_EVENT_REDIRECT)
            return e;
    }
}

/* Person i asks for rated quick play at node `other`, which does not hold
 * "rated": it is redirected to the holder `home` (its public URL, the
 * request's id echoed), and follows as a client does: a new connection
 * there, hello with the session, the same request, `queued`. Until
 * `other`'s lead thread has read who holds the job (a round, 500 ms) it
 * plays locally: then the person leaves that queue and asks again. */
static cli *redirected(int other, int home, int i)
{
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        cli *c = person_at(other, i);
        rated_quick(c);
        const ddz_event *e = answer(c);
        if (e->type == DDZ_EVENT_REDIRECT) {
            cr_expect_str_eq(e->redirect.url, N[home].url);
            cr_expect_eq(e->redirect.about, DDZ_REQ_QUICK);
            cr_expect_str_eq(e->redirect.id, "7");
            cr_expect_str_eq(e->redirect.room, "");
            char reason[128];
            snprintf(reason, sizeof reason, "rated quick play is on node %s", N[home].id);
            cr_expect_str_eq(e->redirect.reason, reason);
            cli_close(c);
            break;
        }
        cli_send(c, json_pack("{s:s}", "type", "leave"));
        cli_expect(c, DDZ_EVENT_JOINED);
        cli_close(c);
        cr_assert_lt(now_ms(), deadline, "node %s never redirected a rated quick to %s",
                     N[other].id, N[home].id);
        poll(NULL, 0, 100); /* the interval of a bounded wait */
    }
    cli *c = person_at(home, i);
    rated_quick(c);
    const ddz_event *e = answer(c);
    cr_assert_eq(e->type, DDZ_EVENT_QUEUED, "%s: the holder redirected: %s", c->name, show(e));
    cr_expect_eq(e->queued.fill_s, FILL_S);
    return c;
}

/* `c`'s seat at a rated table: returns the room id (static per call) and
 * checks that no seat is a hosted AI's. */
static const char *seated(cli *c)
{
    int64_t deadline = now_ms() + T(10000);
    const ddz_event *e;
    while ((e = cli_next(c, (int)(deadline - now_ms()))) && e->type != DDZ_EVENT_JOINED)
        ;
    cr_assert_not_null(e, "%s: not seated:%s", c->name, tail_of(c));
    cr_assert_geq(e->joined.seat, 0);
    static char room[3][DDZ_EVENT_ROOM_ID_MAX];
    static int k;
    char *id = room[k++ % 3];
    snprintf(id, DDZ_EVENT_ROOM_ID_MAX, "%s", e->joined.room);
    const ddz_event_state *st = &cli_expect(c, DDZ_EVENT_STATE)->state;
    cr_expect(st->options.rated, "%s: a rated table says so", c->name);
    for (int i = 0; i < 3; i++)
        cr_expect(!st->players[i].seated || st->players[i].kind != DDZ_EVENT_AI,
                  "%s: a hosted AI in seat %d: %s", c->name, i, st->players[i].name);
    return id;
}

Test(cluster_rated, people_of_both_nodes_meet_at_the_holder)
{
    accounts();
    int home = rated_holder(), other = 1 - home;
    cli *cs[3];
    cs[0] = redirected(other, home, 0);
    cs[1] = redirected(other, home, 1);
    cs[2] = person_at(home, 2); /* at the holder: no redirect */
    rated_quick(cs[2]);
    const ddz_event *e = answer(cs[2]);
    cr_assert_eq(e->type, DDZ_EVENT_QUEUED, "%s", show(e));

    const char *room[3];
    for (int i = 0; i < 3; i++)
        room[i] = seated(cs[i]);
    cr_expect_str_eq(room[0], room[1]);
    cr_expect_str_eq(room[1], room[2]);
    char prefix[24];
    snprintf(prefix, sizeof prefix, "%s-", N[home].id);
    cr_expect_eq(strncmp(room[0], prefix, strlen(prefix)), 0, "room %s is the holder's", room[0]);

    for (int i = 0; i < 3; i++)
        cs[i]->act = true;
    cs[0]->bidder = true;
    run(cs, 3, NULL, NULL, T(60000));
    double before = 0, after = 0;
    for (int i = 0; i < 3; i++) {
        ddz_event_rated r = cli_expect(cs[i], DDZ_EVENT_RATED)->rated;
        cr_expect_eq(r.games, 1, "%s", cs[i]->name);
        cr_expect_not(r.forfeit);
        before += r.before;
        after += r.rating;
    }
    cr_expect_eq(before, 3 * 1500);
    cr_expect_neq(after, before, "the game moved the ratings");

    /* the other node's profiles say so too: one database */
    srv.port = N[other].port;
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "/api/players/%s", names[i]);
        int status;
        char *body = http_get(path, &status);
        cr_assert_eq(status, 200, "%s: %s", path, body);
        json_t *j = json_loads(body, 0, NULL);
        free(body);
        cr_assert_not_null(j);
        json_t *caai = json_object_get(json_object_get(j, "ratings"), "caai");
        cr_expect_eq(json_integer_value(json_object_get(caai, "games")), 1, "%s", names[i]);
        json_decref(j);
    }
}

/* The holder dies: the other node takes "rated" and seats rated quick
 * play itself (a `queued`, not a redirect to the dead node). */
Test(cluster_rated, the_other_node_takes_over_when_the_holder_dies)
{
    accounts();
    int home = rated_holder(), other = 1 - home;
    cli_close(redirected(other, home, 0));
    node_kill(home);
    int64_t deadline = now_ms() + T(5000);
    for (;;) {
        cli *c = person_at(other, 1);
        rated_quick(c);
        const ddz_event *e = answer(c);
        if (e->type == DDZ_EVENT_QUEUED)
            break;
        cr_expect_str_eq(e->redirect.url, N[home].url, "redirected to no dead node's successor");
        cli_close(c);
        cr_assert_lt(now_ms(), deadline, "node %s still redirects to the dead %s", N[other].id,
                     N[home].id);
        poll(NULL, 0, 100); /* the interval of a bounded wait */
    }
    cr_expect_eq(holds_rated(other), 1);
}
