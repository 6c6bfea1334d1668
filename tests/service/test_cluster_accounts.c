/* test_cluster_accounts.c - people's accounts on two `ddz serve` nodes of
 * one PostgreSQL database (SPEC §15, issue 40; the ctest fixture "pg",
 * each test a database of its own): a session made on node 1 plays on
 * node 2; signed out on node 1, a hello with it on node 2 is refused at
 * once and node 2's live connection under it is closed within the
 * sessions' poll (players.h DDZ_SESSION_POLL_US, 2 s); a sign-up on node 1
 * makes the name refused to guests on node 2 within the names' poll
 * (accounts.c DDZ_NAMES_POLL_MS, 10 s); both nodes show the same ratings
 * rows. */
#include "serve_harness.h"
#include "bot_procs.h"
#include "pg_test.h"
#include "cluster_nodes.h"
#include "service/server/accounts_http.h"
#include "service/store/store.h"

/* The test's database: its URL is srv.db. */
TestSuite(cluster_accounts, .init = two_nodes_init, .fini = two_nodes_fini, .timeout = HANG(120));

/* The harness's helpers talk to srv.port: aim them at node k. */
static void at(int k)
{
    srv.port = N[k].port;
}

static cli *hello_session(const char *who, const char *session)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s", who);
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "x",
                          "session", session));
    return c;
}

Test(cluster_accounts, a_session_is_one_on_both_nodes)
{
    char s[65];
    at(0);
    sign_up("Chen", "a long password", s);

    /* made on node 1, plays on node 2 */
    at(1);
    cli *b = hello_session("on node 2", s);
    const ddz_event *w = cli_expect(b, DDZ_EVENT_WELCOME);
    cr_expect_str_eq(w->welcome.account, "Chen");

    /* signed out on node 1: node 2 refuses a new hello at once, and closes
     * its live connection within its poll */
    at(0);
    reply r = call("DELETE", "/api/sessions", NULL, s);
    int64_t ended = now_ms();
    expect(&r, 200, NULL);
    at(1);
    cli *late = hello_session("late on node 2", s);
    expect_error(late, DDZ_EAUTH, DDZ_REQ_HELLO);
    const ddz_event_error *e = expect_error(b, DDZ_EAUTH, 0);
    int64_t took = now_ms() - ended;
    cr_expect_str_eq(e->message, "this session ended");
    cr_expect_leq(took, T(2000) + 1000, "node 2 closed the ended session after %lld ms",
                  (long long)took);
}

Test(cluster_accounts, a_name_made_on_one_node_is_refused_on_the_other)
{
    int code;
    at(1);
    cli_close(guest_hello("wang FANG", &code)); /* nobody's yet */
    cr_expect_eq(code, 0);
    char s[65];
    at(0);
    sign_up("Wang Fang", "a long password", s);
    int64_t made = now_ms();
    cli_close(guest_hello("WANG FANG", &code));
    cr_expect_eq(code, DDZ_ENAME, "at once on the node that made it");
    at(1);
    int64_t deadline = made + T(10000) + 5000;
    for (code = 0; code != DDZ_ENAME && now_ms() < deadline;) {
        cli_close(guest_hello("wang fang", &code));
        if (code != DDZ_ENAME)
            usleep(200 * 1000);
    }
    cr_expect_eq(code, DDZ_ENAME, "node 2 still lets a guest be Wang Fang after %lld ms",
                 (long long)(now_ms() - made));
}

/* Ratings live in the database: a rated game written once (the store, as
 * a node writes it) is the same at both nodes' /api/players/NAME. */
Test(cluster_accounts, ratings_are_the_same_at_both_nodes)
{
    char s[65];
    at(0);
    sign_up("Gao", "a long password", s);
    char err[256];
    ddz_store *st = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    ddz_store_account a;
    cr_assert_eq(ddz_store_account_get(st, "gao", &a), 0);
    int64_t players[3] = {a.id, -1, -2};
    ddz_store_rating out[3];
    cr_assert_eq(ddz_store_rating_game(st, "caai", 1, players, 0, true, out), 1);
    ddz_store_close(st);
    char *body[2];
    for (int k = 0; k < 2; k++) {
        at(k);
        reply r = call("GET", "/api/players/Gao", NULL, NULL);
        cr_assert_eq(r.status, 200, "node %d: %s", k + 1, r.body);
        body[k] = r.body;
    }
    cr_expect_str_eq(body[0], body[1]);
    cr_expect_not_null(strstr(body[0], "\"caai\""), "%s", body[0]);
    free(body[0]);
    free(body[1]);
}
