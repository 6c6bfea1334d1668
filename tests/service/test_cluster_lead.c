/* test_cluster_lead.c - the ladder on two `ddz serve` nodes sharing one
 * PostgreSQL (the ctest fixture "pg": DDZ_TEST_PG names the file with its
 * URL; the test makes a database of its own). Node 1 starts first and holds
 * the ladder's lock; a bot (`ddz bridge --ladder`) enlists at node 2 and
 * plays deals scheduled by node 1 and hosted by node 2; node 1 is killed
 * (SIGKILL); node 2 takes the lock within a bound and scheduling goes on;
 * nothing is lost: every deal recorded as done has its games and one
 * rating row per seat, none is recorded twice, no program plays a deal
 * twice, the standings add up to the history, and node 1's unfinished
 * deals are dropped, not left hanging; both nodes' /api/ladder show the bot
 * playing at node 2. Every wait is bounded. */
#include "serve_harness.h"
#include "bot_procs.h"
#include "pg_test.h"
#include "cluster_nodes.h"

/* The test's database is srv.db (its URL); pg is the test's own session on
 * it, for its checks. */
static PGconn *pg;

/* Waits up to `ms` for pg_num(sql) >= want; returns the ms it took, or
 * fails with `what`. */
static int64_t wait_num(const char *sql, long long want, int ms, const char *what)
{
    int64_t t0 = now_ms();
    long long v = -1;
    while (now_ms() - t0 < T(ms)) {
        if ((v = pg_num(pg, sql)) >= want)
            return now_ms() - t0;
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }
    cr_assert_fail("%s: not within %d ms (%lld, want %lld): %s", what, T(ms), v, want, sql);
    return -1;
}

/* ---- the nodes (cluster_nodes.h) ---- */

/* Whether node k's /metrics says it holds `job` (1) or not (0). */
static int metrics_held(int k, const char *job)
{
    srv.port = N[k].port;
    int status;
    char *body = http_get("/metrics", &status);
    cr_assert_eq(status, 200);
    char line[160];
    snprintf(line, sizeof line, "ddz_lead_held{job=\"%s\"} ", job);
    const char *at = strstr(body, line);
    cr_assert_not_null(at, "no %s in node %s's /metrics", line, N[k].id);
    int v = at[strlen(line)] - '0';
    free(body);
    return v;
}

/* Starts the bot `name` (its token added to the shared database): `ddz
 * bridge` at node k with `mode` (--ladder or --enlist), its log in
 * NAME.log. */
static void bot_named(const char *name, int k, proc *bot, const char *mode)
{
    char tok[80], log[200];
    token_add(name, tok);
    snprintf(log, sizeof log, "%s/%s.log", srv.dir, name);
    char *argv[] = {DDZ_BIN, "bridge", "--url",  N[k].url, "--token", tok, (char *)mode,
                    "--",    DDZ_BIN,  "engine", "--ai",   "greedy",  NULL};
    spawn(bot, log, argv);
}

static void bot_at(int k, proc *bot, const char *mode)
{
    bot_named("alpha", k, bot, mode);
}

static void bot_at_node_2(proc *bot, const char *mode)
{
    bot_at(1, bot, mode);
}

/* Waits up to `ms` for node k's log to hold `text`; fails otherwise. */
static void wait_log(int k, const char *text, int ms)
{
    int64_t deadline = now_ms() + T(ms);
    for (;;) {
        char *l = slurp(N[k].log);
        bool found = strstr(l, text) != NULL;
        if (found || now_ms() >= deadline)
            cr_assert(found, "node %s's log has no \"%s\" within %d ms:\n%s", N[k].id, text, T(ms),
                      l);
        free(l);
        if (found)
            return;
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }
}

/* Bridges a test starts here are killed by fini, however the test ends. */
static proc bots[2];

static void fini(void)
{
    for (int i = 0; i < 2; i++)
        proc_kill(&bots[i]);
    for (int k = 0; k < 2; k++)
        node_kill(k);
    if (pg)
        PQfinish(pg);
    pg = NULL;
    teardown();
    pg_db_drop();
}

static void init(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
    pg = pg_connect(srv.db);
}

/* GET /api/ladder of node k: its "scheduler" ("" if none). */
static void scheduler_seen_by(int k, char *out, size_t outlen)
{
    srv.port = N[k].port;
    int status;
    char *body = http_get("/api/ladder", &status);
    cr_assert_eq(status, 200);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "%s", body);
    json_t *s = json_object_get(j, "scheduler");
    snprintf(out, outlen, "%s", json_is_string(s) ? json_string_value(s) : "");
    cr_assert_str_eq(json_string_value(json_object_get(j, "node")), N[k].id);
    json_decref(j);
    free(body);
}

/* Whether node k's /api/ladder shows bot `name` connected and playing
 * and lists a table of node `host` (issue 23: the live fields are the
 * cluster's, the same at every node, not the answering node's). */
static bool ladder_sees(int k, const char *name, const char *host)
{
    srv.port = N[k].port;
    int status;
    char *body = http_get("/api/ladder", &status);
    cr_assert_eq(status, 200);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "%s", body);
    bool bot = false, table = false;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "players"), i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && strcmp(n, name) == 0)
            bot = json_is_true(json_object_get(e, "connected")) &&
                  json_is_true(json_object_get(e, "playing"));
    }
    json_array_foreach(json_object_get(j, "tables"), i, e)
    {
        const char *n = json_string_value(json_object_get(e, "node"));
        table |= n && strcmp(n, host) == 0;
    }
    json_decref(j);
    free(body);
    return bot && table;
}

#define LIVE_HOLDER                                                                                \
    "SELECT count(*) FROM cluster_leaders c WHERE c.job = 'ladder:caai' AND c.node = '%s'"         \
    " AND EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted"            \
    " AND k.pid = c.pid)"

/* Both nodes run the ladder with two hosted AIs; node 1, started first,
 * leads it. */
static void ladder_nodes_started(void)
{
    char sql[600];
    const char *extra[] = {"--ladder-ai",   "greedy", "--ladder-ai", "random",
                           "--ladder-time", "3",      NULL};
    memcpy(node_extra, extra, sizeof extra);
    node_start(0);
    snprintf(sql, sizeof sql, LIVE_HOLDER, "n1");
    wait_num(sql, 1, 10000, "node 1 leads the ladder");
    node_start(1);
}

Test(cluster_lead, ladder_moves_to_node_2_when_node_1_dies, .init = init, .fini = fini,
     .timeout = HANG(300))
{
    char sql[600], who[32];
    ladder_nodes_started();

    /* a bot at node 2 (its token in the shared database) */
    proc bot;
    bot_at_node_2(&bot, "--ladder");

    /* node 1 schedules, node 2 hosts, the bot plays */
    wait_num("SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
             " AND scheduled_by = 'n1' AND node = 'n2' AND 'alpha' = ANY(names)",
             2, 60000, "two deals of alpha scheduled by n1, played on n2");
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals WHERE scheduled_by <> 'n1'"),
                 0, "only the leader schedules");
    scheduler_seen_by(1, who, sizeof who);
    cr_assert_str_eq(who, "n1");
    cr_assert_eq(metrics_held(0, "ladder:caai"), 1);
    cr_assert_eq(metrics_held(1, "ladder:caai"), 0);
    cr_assert_eq(metrics_held(1, "node:n2"), 1);
    /* node 1, where alpha is not, says what node 2 does: alpha connected
     * and playing, its table at n2 (between two deals it is idle a
     * moment: a bounded wait) */
    for (int k = 0; k < 2; k++) {
        int64_t t = now_ms();
        while (!ladder_sees(k, "alpha", "n2")) {
            cr_assert_lt(now_ms() - t, T(10000), "node %s never shows alpha playing at n2",
                         N[k].id);
            poll(NULL, 0, 50); /* the interval of a bounded wait */
        }
    }
    long long before = pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'");

    /* node 1 dies */
    int64_t t0 = now_ms();
    node_kill(0);
    snprintf(sql, sizeof sql, LIVE_HOLDER, "n2");
    wait_num(sql, 1, 5000, "node 2 takes the ladder's lock");
    int64_t took = now_ms() - t0;
    fprintf(stderr, "node 2 led the ladder %lld ms after node 1 was killed\n", (long long)took);
    cr_assert_leq(took, T(5000));

    /* scheduling goes on from node 2 */
    int64_t t1 = now_ms();
    wait_num("SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
             " AND scheduled_by = 'n2' AND node = 'n2' AND 'alpha' = ANY(names)",
             2, 60000, "two deals of alpha scheduled by n2 after the kill");
    fprintf(stderr, "two more deals %lld ms after node 2 took over\n", (long long)(now_ms() - t1));
    scheduler_seen_by(1, who, sizeof who);
    cr_assert_str_eq(who, "n2");
    cr_assert_eq(metrics_held(1, "ladder:caai"), 1);
    cr_assert_gt(pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"),
                 before);
    /* nothing assigned to the dead node is left hanging */
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals WHERE node = 'n1'"
                            " AND state = 'assigned'"),
                 0);

    /* nothing lost, nothing doubled: every seat of a done deal (table t,
     * hand s: names[3t + s + 1], its game games[t + 1]) has one rating row,
     * and there is no other */
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals d,"
                            " generate_series(0, d.tables - 1) t, generate_series(0, 2) s"
                            " WHERE d.state = 'done' AND (SELECT count(*) FROM ladder_history h"
                            " WHERE h.rules = d.rules AND h.deal = d.games[1]"
                            " AND h.game1 = d.games[t + 1] AND h.hand = s"
                            " AND h.name = d.names[3 * t + s + 1]) <> 1"),
                 0, "a done deal's seat without its one rating row");
    /* (one statement: one snapshot, while node 2 records more deals) */
    cr_assert_eq(pg_num(pg, "SELECT ((SELECT count(*) FROM ladder_history) = (SELECT"
                            " coalesce(sum(3 * tables), 0) FROM cluster_ladder_deals"
                            " WHERE state = 'done'))::int"),
                 1, "rating rows of no seat");
    cr_assert_eq(pg_num(pg,
                        "SELECT count(*) FROM ladder_history h WHERE NOT EXISTS (SELECT 1 FROM"
                        " cluster_ladder_deals d WHERE d.state = 'done' AND d.games[1] = h.deal)"),
                 0, "a rating row of no done deal");
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM (SELECT game1, hand FROM ladder_history"
                            " GROUP BY game1, hand HAVING count(*) > 1) x"),
                 0, "a seat recorded twice");
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM (SELECT games[1] FROM cluster_ladder_deals"
                            " WHERE state = 'done' GROUP BY games[1] HAVING count(*) > 1) x"),
                 0, "two deals with the same games");
    /* no program (here alpha) played a deal twice; hosted AIs may */
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM (SELECT d.id, x FROM cluster_ladder_deals d,"
                            " unnest(d.names) x WHERE x NOT LIKE 'ai:%' GROUP BY d.id, x"
                            " HAVING count(*) > 1) y"),
                 0, "a program played a deal twice");
    /* alpha's results were compared with the same hand at the other tables */
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM ladder_history h JOIN cluster_ladder_deals d"
                            " ON d.games[1] = h.deal WHERE h.name = 'alpha'"
                            " AND json_array_length(h.compared::json) <> d.tables - 1"),
                 0, "alpha's result not compared with the other tables'");
    /* the standings are the sum of the history (a seat is a game and a
     * deal of its holder) */
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM ladder_players p WHERE (p.deals, p.games) <>"
                            " (SELECT count(*), count(*) FROM ladder_history h"
                            " WHERE h.rules = p.rules AND h.name = p.name)"),
                 0, "a standing that does not count its history");
    /* every done deal's games are stored (the hosts' store writers may lag
     * the deal's row by a moment) */
    wait_num("SELECT CASE WHEN count(*) = 0 THEN 1 ELSE 0 END FROM cluster_ladder_deals d"
             " WHERE d.state = 'done' AND (SELECT count(*) FROM games g"
             " WHERE g.id = ANY(d.games)) <> d.tables",
             1, 10000, "every done deal's games stored");
    proc_kill(&bot);
    /* node 2 stops cleanly (SIGTERM): exit 0 (under ASan: nothing leaked),
     * and its locks go with it */
    kill(N[1].pid, SIGTERM);
    cr_assert(node_reaped(&N[1], T(15000)), "node 2 did not stop on SIGTERM");
    cr_assert(WIFEXITED(N[1].status) && WEXITSTATUS(N[1].status) == 0,
              "node 2 stopped with %d:\n%s", N[1].status, slurp(N[1].log));
    snprintf(sql, sizeof sql, LIVE_HOLDER, "n2");
    cr_assert_eq(pg_num(pg, sql), 0, "a stopped node still holds the ladder");
}

/* Bots that connect to different nodes meet: beta enlists at node 1,
 * alpha at node 2; the leader (node 1) gathers them on node 1, the home
 * it chose when beta was the only bot (one each then: a tie keeps it), by
 * sending alpha a redirect that its bridge follows; a deal of both is
 * played there and recorded. */
Test(cluster_lead, bots_at_two_nodes_are_gathered_and_meet, .init = init, .fini = fini,
     .timeout = HANG(300))
{
    ladder_nodes_started();
    proc *beta = &bots[0], *alpha = &bots[1];
    bot_named("beta", 0, beta, "--ladder");
    wait_num("SELECT count(*) FROM cluster_ladder_presence WHERE name = 'beta' AND node = 'n1'", 1,
             10000, "beta present at node 1");
    bot_named("alpha", 1, alpha, "--ladder");
    int64_t moved = wait_num("SELECT count(*) FROM cluster_ladder_presence WHERE name = 'alpha'"
                             " AND node = 'n1'",
                             1, 30000, "alpha present at node 1");
    int64_t met = wait_num("SELECT count(*) FROM cluster_ladder_deals WHERE state = 'done'"
                           " AND node = 'n1' AND 'alpha' = ANY(names) AND 'beta' = ANY(names)",
                           1, 90000, "a deal of alpha and beta, played on node 1");
    fprintf(stderr,
            "alpha, started at node 2, was present at node 1 after %lld ms; its first deal"
            " with beta was done %lld ms later\n",
            (long long)moved, (long long)met);
    cr_assert_eq(pg_num(pg, "SELECT count(*) FROM cluster_ladder_deals WHERE node = 'n2'"
                            " AND state = 'done' AND 'alpha' = ANY(names)"),
                 0, "alpha played at node 2 before it was gathered");
    char *l = slurp(alpha->log);
    cr_assert(strstr(l, "the ladder gathers its bots on node n1"), "alpha's log:\n%s", l);
    free(l);
    wait_log(1, "ladder: alpha sent to node n1", 1000);
    /* both still enlisted (a redirect is no reason to stop) */
    cr_assert(!proc_wait(alpha, 0) && !proc_wait(beta, 0), "a bridge ended");
}

/* ---- a tournament on two nodes ---- */

static char tdir[200];

/* DIR for a Swiss tournament of one bot and five hosted AIs (three turns
 * of two games), and node 1 started with it. */
static void tournament_on_node_1(void)
{
    snprintf(tdir, sizeof tdir, "%s/tournament", srv.dir);
    cr_assert_eq(mkdir(tdir, 0755), 0);
    tourney_file(tdir, "players",
                 "x=bot:alpha\na=ai:greedy\nb=ai:random\nc=ai:greedy\nd=ai:random\n"
                 "e=ai:greedy\n");
    tourney_file(tdir, "options",
                 "--format swiss --turns 3\n--games 2 --time 5 --seed "
                 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
    const char *extra[] = {"--tournament", tdir, "--tournament-late", "60", NULL};
    memcpy(node_extra, extra, sizeof extra);
    node_start(0);
}

/* Node 1 runs the tournament (DIR on storage both nodes see: here the same
 * directory); a bot enlisting at node 2 is redirected to node 1 and plays
 * there; node 1 is killed; node 2 takes the lock, resumes from DIR, the
 * bot (back at its entry point, node 2) plays on, and the tournament ends
 * with every game once. */
Test(cluster_lead, tournament_moves_to_node_2_when_node_1_dies, .init = init, .fini = fini,
     .timeout = HANG(300))
{
    tournament_on_node_1();
    wait_num("SELECT count(*) FROM cluster_leaders c WHERE c.job = 'tournament:tournament'"
             " AND c.node = 'n1' AND EXISTS (SELECT 1 FROM pg_locks k WHERE k.pid = c.pid"
             " AND k.locktype = 'advisory' AND k.granted)",
             1, 10000, "node 1 holds the tournament");
    node_start(1);

    proc bot;
    bot_at_node_2(&bot, "--enlist");

    /* it plays at node 1, sent there from node 2 */
    int64_t deadline = now_ms() + T(60000);
    while (tourney_games(tdir) < 4) {
        cr_assert_lt(now_ms(), deadline, "node 1 played no 4 games; the bot:\n%s\nnode 1:\n%s",
                     slurp(bot.log), slurp(N[0].log));
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }
    char *l = slurp(bot.log);
    cr_assert(strstr(l, "redirected to") && strstr(l, N[0].url), "no redirect to node 1:\n%s", l);
    free(l);
    srv.port = N[1].port;
    int status;
    char *body = http_get("/api/tournament", &status);
    cr_assert(strstr(body, "\"running\":false") || status != 200 || !strstr(body, "standings"),
              "node 2 runs the tournament too: %s", body);
    free(body);

    /* node 1 dies mid-tournament */
    int64_t t0 = now_ms();
    node_kill(0);
    int played = tourney_games(tdir);
    cr_assert_lt(played, 12, "the tournament was over before the kill: make it longer");
    wait_num("SELECT count(*) FROM cluster_leaders c WHERE c.job = 'tournament:tournament'"
             " AND c.node = 'n2' AND EXISTS (SELECT 1 FROM pg_locks k WHERE k.pid = c.pid"
             " AND k.locktype = 'advisory' AND k.granted)",
             1, 5000, "node 2 takes the tournament");
    fprintf(stderr, "node 2 held the tournament %lld ms after node 1 was killed\n",
            (long long)(now_ms() - t0));
    /* it waits out the grace (node 1 held DIR last), then writes its lease
     * and resumes */
    wait_log(1, "node n1 held it last: waiting", 5000);
    wait_log(1, "tournament: this node holds its lock: running it", 30000);
    fprintf(stderr, "node 2 ran the tournament %lld ms after node 1 was killed\n",
            (long long)(now_ms() - t0));
    {
        char *l = slurp(N[1].log), *at = strstr(l, "(loaded in ");
        cr_assert_not_null(at, "%s", l);
        fprintf(stderr, "node 2 loaded DIR (%d games) on its loop in %d ms\n", played,
                atoi(at + strlen("(loaded in ")));
        free(l);
    }
    cr_assert_geq(now_ms() - t0, 15000, "node 2 ran it before its grace was over");
    char lease[4300];
    snprintf(lease, sizeof lease, "%s/lease", tdir);
    char *lt = slurp(lease);
    cr_assert(strncmp(lt, "n2 ", 3) == 0, "DIR/lease: %s", lt);
    free(lt);

    /* the bot comes back through node 2 and the tournament ends there */
    cr_assert(proc_wait(&bot, T(180000)), "the bridge did not end:\n%s", slurp(bot.log));
    l = slurp(bot.log);
    cr_assert_eq(bot.code, 0, "bridge exit %d:\n%s", bot.code, l);
    cr_assert(strstr(l, "released: the tournament is over"), "%s", l);
    char back[120];
    snprintf(back, sizeof back, "reconnecting to %s", N[1].url);
    cr_assert(strstr(l, back), "the bridge did not come back through node 2:\n%s", l);
    fprintf(stderr, "%d of 12 games were played before the kill\n", played);
    free(l);
    cr_assert_eq(tourney_games(tdir), 3 * 2 * 2, "3 turns x 2 tables x 2 games, each once");
    char verify[600];
    snprintf(verify, sizeof verify, "'%s' verify '%s/games.jsonl' >/dev/null 2>&1", DDZ_BIN, tdir);
    cr_assert_eq(system(verify), 0, "ddz verify rejects games.jsonl");
    /* the games node 1 stored held are published by node 2 too: every
     * game is listed and none stays held in the database */
    wait_num("SELECT count(*) FROM games WHERE key IS NOT NULL AND aborted = 0", 0, 5000,
             "every game of the tournament published");
    srv.port = N[1].port;
    body = http_get("/api/tournament", &status);
    cr_assert_eq(status, 200, "%s", body);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "%s", body);
    cr_assert_eq(json_integer_value(json_object_get(j, "held_games")), 0, "%s", body);
    cr_assert_eq(json_array_size(json_object_get(j, "games")), 12, "%s", body);
    json_decref(j);
    free(body);
}

/* The fence: node 1 runs the tournament, which waits for the bot (nothing
 * is played before it enlists); DIR/lease is then overwritten as another
 * node taking over would (its lock freed by PostgreSQL before node 1
 * noticed); the bot enlists at node 1 and plays: node 1 appends no game
 * and stops the tournament. */
Test(cluster_lead, a_node_whose_lease_was_taken_writes_no_more_games, .init = init, .fini = fini,
     .timeout = HANG(120))
{
    tournament_on_node_1();
    wait_log(0, "tournament: this node holds its lock: running it", 10000);
    char lease[4300];
    snprintf(lease, sizeof lease, "%s/lease", tdir);
    char *lt = slurp(lease);
    cr_assert(strncmp(lt, "n1 1 ", 5) == 0, "DIR/lease: %s", lt);
    free(lt);
    cr_assert_eq(tourney_games(tdir), 0, "games played without the bot");
    tourney_file(tdir, "lease", "n9 1 1\n");
    proc bot;
    bot_at(0, &bot, "--enlist");
    wait_log(0, "not this node's (n1 1 ", 60000);
    /* and it stops running it (not again in this term) */
    srv.port = N[0].port;
    int64_t deadline = now_ms() + T(10000);
    for (;;) {
        int status;
        char *body = http_get("/api/tournament", &status);
        bool running = status == 200 && strstr(body, "\"running\":true");
        free(body);
        if (!running)
            break;
        cr_assert_lt(now_ms(), deadline, "node 1 still runs the tournament");
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }
    cr_assert_eq(tourney_games(tdir), 0, "node 1 appended after its lease was taken");
    lt = slurp(lease);
    cr_assert_str_eq(lt, "n9 1 1\n", "node 1 wrote DIR/lease again");
    free(lt);
    kill(bot.pid, SIGKILL);
    proc_wait(&bot, T(5000));
}
