/* test_cluster_rooms.c - two `ddz serve` nodes on one PostgreSQL (the
 * ctest fixture "pg": DDZ_TEST_PG names the file with its URL; each test
 * makes a database of its own): every node's lobby lists every room, a join
 * of another node's room is redirected there, a game is played to the end
 * on the other node, and a killed node's rooms leave the list within a
 * bound. Clients are the browser protocol's (wsclient.h through
 * serve_harness.h: every frame parses and prints back to its bytes); with
 * DDZ_FRAMES_OUT set their frames are captured for tests/service/
 * test_schema.sh, which is how `redirect` is validated against its schema. */
#include "serve_harness.h"
#include "bot_procs.h"
#include "pg_test.h"
#include "cluster_nodes.h"

/* The test's database: its URL is srv.db. */

/* ---- the nodes (cluster_nodes.h) ---- */

/* The harness's client helpers talk to srv.port: aim them at node k. */
static cli *hello_on(int k, const char *name)
{
    srv.port = N[k].port;
    return cli_hello(name);
}

/* Asks `c` for the lobby until `pred` holds for its `rooms` (bounded by
 * `ms`); returns the time it took in ms, or -1. */
typedef bool (*rooms_pred)(const ddz_event_rooms *r, const void *ctx);

static int64_t list_until(cli *c, rooms_pred pred, const void *ctx, int ms)
{
    int64_t start = now_ms(), deadline = start + ms;
    while (now_ms() < deadline) {
        cli_send(c, json_pack("{s:s}", "type", "list"));
        const ddz_event *e = cli_expect(c, DDZ_EVENT_ROOMS);
        if (pred(&e->rooms, ctx))
            return now_ms() - start;
        poll(NULL, 0, 100); /* the interval of a bounded wait */
    }
    return -1;
}

static const ddz_event_room *listed(const ddz_event_rooms *r, const char *id)
{
    for (size_t i = 0; i < r->nrooms; i++)
        if (strcmp(r->rooms[i].id, id) == 0)
            return &r->rooms[i];
    return NULL;
}

static bool has_room(const ddz_event_rooms *r, const void *id)
{
    return listed(r, id) != NULL;
}

static bool lacks_room(const ddz_event_rooms *r, const void *id)
{
    return listed(r, id) == NULL;
}

/* A room id of node `k`: "ID-" and eight characters. */
static void assert_room_of(const char *room, int k)
{
    size_t n = strlen(N[k].id);
    cr_assert(strncmp(room, N[k].id, n) == 0 && room[n] == '-' && strlen(room + n + 1) == 8,
              "room id %s is not %s-XXXXXXXX", room, N[k].id);
}

/* Creates a listed room on `c`'s node: c at seat 2, ai:greedy at seat 1,
 * seat 0 open; one game. Returns its id (static: the last 4 stay valid). */
static const char *create_open_room(cli *c)
{
    json_t *o = opts(1, 0, 30);
    json_object_set_new(o, "seats", json_pack("[n, s, n]", "ai:greedy"));
    cli_send(c, json_pack("{s:s, s:o, s:i}", "type", "create", "options", o, "seat", 2));
    const ddz_event *j = cli_expect(c, DDZ_EVENT_JOINED);
    static char rooms[4][DDZ_EVENT_ROOM_ID_MAX];
    static int k;
    char *room = rooms[k++ % 4];
    snprintf(room, DDZ_EVENT_ROOM_ID_MAX, "%s", j->joined.room);
    cli_expect(c, DDZ_EVENT_STATE);
    return room;
}

/* The start of most tests: a host at node 2 with an open room, and alice
 * at node 1, whose lobby lists that room within a bound. Returns the room. */
static const char *room_on_2_listed_on_1(cli **host, cli **alice)
{
    *host = hello_on(1, "host");
    const char *room = create_open_room(*host);
    *alice = hello_on(0, "alice");
    cr_assert_geq(list_until(*alice, has_room, room, T(5000)), 0,
                  "node 1 did not list node 2's room %s", room);
    return room;
}

TestSuite(cluster, .init = two_nodes_init, .fini = two_nodes_fini, .timeout = HANG(120));

Test(cluster, a_room_of_node_2_is_listed_on_node_1_joined_by_redirect_and_played)
{
    cli *host = hello_on(1, "host");
    const char *room = create_open_room(host);
    assert_room_of(room, 1);

    cli *alice = hello_on(0, "alice");
    /* about half a second (docs/cluster.md): node 2 compares its rooms every 500 ms */
    int64_t took = list_until(alice, has_room, room, T(2000));
    cr_assert_geq(took, 0, "node 1's lobby did not list room %s of node 2 within %d ms", room,
                  T(2000));
    cr_log_info("node 2's room listed on node 1 after %lld ms", (long long)took);
    /* /metrics says what node 1 sees */
    int status;
    char *body;
    cr_assert_eq(ddz_wsc_http_get("127.0.0.1", N[0].port, "/metrics", T(5000), &status, &body), 0);
    cr_assert(strstr(body, "\nddz_cluster_up 1\n") && strstr(body, "\nddz_cluster_nodes 2\n") &&
                  strstr(body, "\nddz_cluster_other_rooms 1\n"),
              "%s", body);
    free(body);
    /* as node 2 lists it: the seats too */
    cli_send(alice, json_pack("{s:s}", "type", "list"));
    const ddz_event_room *r = listed(&cli_expect(alice, DDZ_EVENT_ROOMS)->rooms, room);
    cr_assert_not_null(r);
    cr_assert(!r->seats[0].seated && r->seats[1].seated && r->seats[2].seated);
    cr_assert_str_eq(r->seats[1].name, "ai:greedy");
    cr_assert_str_eq(r->seats[2].name, "host");

    /* join on node 1: redirected to node 2, with the request's id */
    cli_send(alice,
             json_pack("{s:s, s:s, s:i, s:i}", "type", "join", "room", room, "seat", 0, "id", 7));
    const ddz_event *e = cli_expect(alice, DDZ_EVENT_REDIRECT);
    cr_assert_str_eq(e->redirect.url, N[1].url);
    cr_assert_eq(e->redirect.about, DDZ_REQ_JOIN);
    cr_assert_str_eq(e->redirect.id, "7");
    cr_assert_str_eq(e->redirect.room, room);
    /* spectate is redirected the same way */
    cli_send(alice, json_pack("{s:s, s:s}", "type", "spectate", "room", room));
    e = cli_expect(alice, DDZ_EVENT_REDIRECT);
    cr_assert_eq(e->redirect.about, DDZ_REQ_SPECTATE);
    cr_assert_str_eq(e->redirect.url, N[1].url);

    /* follow it as a client does: node 2, hello, the request again */
    cli *alice2 = hello_on(1, "alice");
    cli_join(alice2, room, 0);
    alice2->seat = 0;
    host->seat = 2;
    cli *cs[] = {alice2, host};
    cr_assert_eq(run(cs, 2, NULL, NULL, T(60000)), -1);
    check_over(alice2->over);
    cr_assert(alice2->over->game_id > 0);
    /* the record is stored by node 2 and served there, and by node 1:
     * the nodes share the store */
    srv.port = N[1].port;
    check_record(alice2->over);
    srv.port = N[0].port;
    check_record(alice2->over);

    /* a room of node 1 is not redirected on node 1, and a room id with an
     * unknown node is no room */
    cli_send(alice, json_pack("{s:s, s:s}", "type", "join", "room", "n9-abcdefgh"));
    expect_error(alice, DDZ_ENOTFOUND, DDZ_REQ_JOIN);
    cli_free(alice);
    cli_free(alice2);
    cli_free(host);
}

Test(cluster, a_killed_nodes_rooms_leave_the_other_lobby_within_a_bound)
{
    cli *host, *alice;
    const char *room = room_on_2_listed_on_1(&host, &alice);
    /* a room of node 1 is listed on node 2 as well */
    const char *mine = create_open_room(alice);
    assert_room_of(mine, 0);
    cr_assert_geq(list_until(host, has_room, mine, T(5000)), 0);
    cli_close(host);
    node_kill(1);
    /* dead after 5 s without a heartbeat, seen at the next read (1 s) */
    int64_t took = list_until(alice, lacks_room, room, T(10000));
    cr_assert_geq(took, 0, "node 2's room %s still listed %d ms after it was killed", room,
                  T(10000));
    cr_log_info("a killed node's room left the list after %lld ms", (long long)took);
    /* and a join of it is no room, not a redirect to a dead node */
    cli_send(alice, json_pack("{s:s, s:s}", "type", "join", "room", room));
    expect_error(alice, DDZ_ENOTFOUND, DDZ_REQ_JOIN);
    /* node 2 back: what it had is gone, it lists node 1's room again */
    node_start(1);
    cli *again = hello_on(1, "again");
    cr_assert_geq(list_until(again, has_room, mine, T(5000)), 0);
    cr_assert_geq(list_until(again, lacks_room, room, T(1000)), 0);
    cli_free(alice);
    cli_free(again);
}

Test(cluster, a_stopped_node_leaves_at_once)
{
    cli *host, *alice;
    const char *room = room_on_2_listed_on_1(&host, &alice);
    cli_close(host);
    kill(N[1].pid, SIGTERM);
    cr_assert(node_reaped(&N[1], T(10000)));
    char *log = slurp(N[1].log);
    cr_assert(WIFEXITED(N[1].status) && WEXITSTATUS(N[1].status) == 0,
              "node 2 stopped with status %d; its log:\n%s", N[1].status, log);
    free(log);
    /* SIGTERM: it removes its rooms and says so, no waiting for the
     * heartbeat to go stale */
    int64_t took = list_until(alice, lacks_room, room, T(3000));
    cr_assert_geq(took, 0, "a stopped node's room is still listed after %d ms", T(3000));
    cli_free(alice);
}

Test(cluster, ddz_bridge_follows_a_redirect_and_plays)
{
    cli *host, *alice; /* node 1 knows of the room, as a lobby would show it */
    const char *room = room_on_2_listed_on_1(&host, &alice);
    cli_free(alice);
    char log[200];
    snprintf(log, sizeof log, "%s/bridge.log", srv.dir);
    /* pointed at node 1, with node 2's room */
    char *argv[] = {DDZ_BIN,  "bridge", "--url",   N[0].url, "--room", (char *)room,
                    "--seat", "0",      "--turns", "1",      "--name", "bridgey",
                    "--",     DDZ_BIN,  "engine",  "--ai",   "greedy", NULL};
    proc br;
    spawn(&br, log, argv);
    host->seat = 2;
    /* the bridge sits down at node 2 (bounded) */
    int64_t deadline = now_ms() + T(10000);
    bool sat = false;
    while (!sat && now_ms() < deadline) {
        const ddz_event *e = cli_next(host, 100);
        sat = e && e->type == DDZ_EVENT_SEAT && e->seat.seat == 0 && e->seat.player.seated;
        if (e && e->type == DDZ_EVENT_TURN)
            act_pending(host);
    }
    if (!sat) {
        char *t = slurp(log);
        cr_assert_fail("the bridge did not sit down within %d ms; its log:\n%s", T(10000), t);
    }
    cli *cs[] = {host};
    cr_assert_eq(run(cs, 1, NULL, NULL, T(60000)), -1);
    check_over(host->over);
    /* the bridge played its turn (one game) and leaves: exit 0 */
    bool exited = proc_wait(&br, T(10000));
    proc_kill(&br); /* if it did not */
    char *text = slurp(log);
    cr_assert(exited, "the bridge did not exit; its log:\n%s", text);
    cr_assert_eq(br.code, 0, "bridge exit %d; its log:\n%s", br.code, text);
    char want[160];
    snprintf(want, sizeof want, "redirected to %s", N[1].url);
    cr_assert(strstr(text, want), "no '%s' in the bridge's log:\n%s", want, text);
    cr_assert(strstr(text, "seated in room"), "%s", text);
    free(text);
    cli_free(host);
}

Test(cluster, nodes_connect_again_when_the_database_drops_them)
{
    cli *host, *alice;
    const char *room = room_on_2_listed_on_1(&host, &alice);
    /* every node's cluster connection cut by the server (as a database
     * restart or a failover would) */
    PGconn *pg = pg_connect(pg_admin);
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s' "
             "AND pid <> pg_backend_pid()",
             pg_db);
    pg_exec(pg, sql);
    /* and what node 2 listed is gone from the table too: it must write it
     * again once it is back */
    PGconn *db = pg_connect(srv.db);
    pg_exec(db, "DELETE FROM cluster_rooms");
    PQfinish(db);
    PQfinish(pg);
    /* within a heartbeat or two both are back: node 1 lists node 2's room
     * again, and a room made now on node 2 shows too */
    cr_assert_geq(list_until(alice, has_room, room, T(8000)), 0,
                  "node 2's room never came back after the connections were cut");
    cli *host2 = hello_on(1, "host2");
    const char *later = create_open_room(host2);
    cr_assert_geq(list_until(alice, has_room, later, T(5000)), 0);
    /* the nodes still serve their clients all along */
    cr_assert(node_healthy(&N[0]) && node_healthy(&N[1]));
    cli_free(alice);
    cli_free(host);
    cli_free(host2);
}

/* Runs `ddz serve ARGS...` expecting exit `code` (2: a usage error) with
 * `want` on stderr. */
static void serve_exits(int code, const char *want, const char *const *args)
{
    char log[] = "/tmp/ddz-cluster-usage-XXXXXX";
    int fd = mkstemp(log);
    cr_assert_geq(fd, 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fd, 2);
        char port[16];
        snprintf(port, sizeof port, "%d", free_port());
        const char *argv[16] = {"ddz", "serve", "--port", port, "--bind", "127.0.0.1"};
        int n = 6;
        for (int i = 0; args[i] && n < 15; i++)
            argv[n++] = args[i];
        execv(DDZ_BIN, (char *const *)argv);
        _exit(127);
    }
    close(fd);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    char *err = slurp(log);
    const char *ext[] = {"", ".db", ".db-wal", ".db-shm"};
    for (int i = 0; i < 4; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s%s", log, ext[i]);
        unlink(p);
    }
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code, "status %d: %s", status, err);
    cr_assert(strstr(err, want), "'%s' not in: %s", want, err);
    free(err);
}

static void serve_refused(const char *want, const char *const *args)
{
    serve_exits(2, want, args);
}

Test(cluster_cli, node_options_are_checked)
{
    serve_refused("--node and --public-url go together",
                  (const char *[]){"--db", "postgres://x/y", "--node", "n1", NULL});
    serve_refused("--node and --public-url go together",
                  (const char *[]){"--public-url", "ws://h/ws", NULL});
    serve_refused(
        "--node needs a PostgreSQL --db",
        (const char *[]){"--db", "x.db", "--node", "n1", "--public-url", "ws://h/ws", NULL});
    serve_refused("--node must be 1..16 of a-z and 0-9",
                  (const char *[]){"--db", "postgres://x/y", "--node", "N-1", "--public-url",
                                   "ws://h/ws", NULL});
    serve_refused("--node must be 1..16 of a-z and 0-9",
                  (const char *[]){"--db", "postgres://x/y", "--node", "a234567890123456x",
                                   "--public-url", "ws://h/ws", NULL});
    serve_refused("--public-url must be a ws:// or wss:// URL",
                  (const char *[]){"--db", "postgres://x/y", "--node", "n1", "--public-url",
                                   "http://h/ws", NULL});
    /* a database that does not answer: the node does not start (the
     * store or the cluster says so, whichever opens it first) */
    int port = free_port();
    char url[64];
    snprintf(url, sizeof url, "postgres://ddz@127.0.0.1:%d/ddz", port);
    serve_exits(1, "ddz serve: ",
                (const char *[]){"--db", url, "--node", "n1", "--public-url", "ws://h/ws", NULL});
}
