/* test_serve_outage.c - `ddz serve --db postgres://...` while the database
 * is away or hangs: the server reaches the fixture's PostgreSQL
 * (pg_test.h) through a proxy this test owns (pg_proxy.h), which it cuts
 * as a stopped database would cut it, or makes hang as a database stopped
 * with SIGSTOP would, without touching the server the other tests share.
 * Games finished meanwhile are served at /api/games/ID from the store's
 * journal at once, survive a restart of the node in the middle of the
 * outage (and a SIGKILL in the middle of a hang: an `over` comes only once
 * its record is durable), and are all in the database, once each, when it
 * is back, with nothing pending and no write counted as lost; a journal
 * past its bound (--db-journal-max) drops the oldest writes and counts
 * them. During a hang reads and a bot's hello answer within --db-timeout,
 * SIGTERM stops the server within 2 s, the log says what happens, and the
 * cluster's view says the database is away; a guest's name is checked
 * against the accounts' names without waiting for it. */
#include "serve_harness.h"
#include "pg_test.h"
#include "pg_proxy.h"
#include "service/store/store.h"

#include <pthread.h>

static pg_proxy px;
static char real_url[256]; /* the test's database, not through the proxy */
static char journal[128];

static void outage_setup(void)
{
    setup_no_server();
    pg_db_create(real_url, sizeof real_url);
    pg_proxy_start(&px, real_url, srv.db, sizeof srv.db);
    snprintf(journal, sizeof journal, "%s/journal.db", srv.dir);
}

static void unhang(void);

static void outage_teardown(void)
{
    unhang();
    teardown();
    pg_proxy_stop(&px);
    pg_db_drop();
}

TestSuite(serve_outage, .init = outage_setup, .fini = outage_teardown);

/* A quick game against the hosted AIs: its `over` (its record not checked
 * yet: it may still be on its way to the journal). */
static ddz_event_over quick_game(const char *name)
{
    cli *c = cli_hello(name);
    c->bidder = true;
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_eq(run(&c, 1, NULL, NULL, T(30000)), -1);
    check_over(c->over);
    ddz_event_over o = *c->over;
    cli_close(c);
    return o;
}

/* GET /api/games/ID[-KEY]: its status (the body dropped). */
static int game_status(const ddz_event_over *o)
{
    char path[160];
    snprintf(path, sizeof path, "/api/games/%lld%s%s", (long long)o->game_id,
             o->game_key[0] ? "-" : "", o->game_key);
    int status;
    free(http_get(path, &status));
    return status;
}

/* Waits (bounded) until the record of `o` is served: a game just over is
 * with the store's writer for a moment (404), or the database read fails
 * while it is away (503); then it is served from the journal. The record
 * is then checked as any (check_record: the over's, and `ddz verify`). */
static void served(const ddz_event_over *o)
{
    int64_t deadline = now_ms() + T(10000);
    int status;
    while ((status = game_status(o)) != 200) {
        cr_assert(status == 404 || status == 503, "game %lld: status %d", (long long)o->game_id,
                  status);
        cr_assert_lt(now_ms(), deadline, "game %lld still %d after %d ms: lost",
                     (long long)o->game_id, status, T(10000));
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
    check_record(o);
}

/* How many rows of games hold game `id` (in the database, not through the
 * proxy or the server). */
static long long stored(PGconn *c, long long id)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM games WHERE id = %lld", id);
    return pg_num(c, sql);
}

Test(serve_outage, every_game_finished_while_the_database_is_away_is_kept)
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = NULL;
    server_start();
    ddz_event_over o[5];
    o[0] = quick_game("Before");
    served(&o[0]);

    /* the database goes away; games go on, and are served at once */
    pg_proxy_cut(&px);
    o[1] = quick_game("During1");
    o[2] = quick_game("During2");
    for (int i = 1; i <= 2; i++)
        served(&o[i]);
    cr_assert_geq(metric("ddz_db_journal_pending"), 2, "the outage's games are pending");
    cr_assert_eq(metric("ddz_db_write_errors_total"), 0);

    /* the node restarts in the middle of the outage, then the database
     * comes back: the node finds its journal and replays it */
    cr_assert_eq(server_stop(), 0);
    PGconn *db = pg_connect(real_url);
    for (int i = 1; i <= 2; i++)
        cr_assert_eq(stored(db, o[i].game_id), 0, "game %lld reached the database while away",
                     (long long)o[i].game_id);
    pg_proxy_restore(&px);
    server_start();
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0,
                 "the journal was not replayed after the restart");
    cr_assert_geq(metric("ddz_db_journal_replayed_total"), 2);

    /* away again, back again, the node running all along */
    pg_proxy_cut(&px);
    o[3] = quick_game("During3");
    o[4] = quick_game("During4");
    served(&o[3]);
    served(&o[4]);
    cr_assert_geq(metric("ddz_db_journal_pending"), 2);
    pg_proxy_restore(&px);
    int64_t back = now_ms();
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0,
                 "the journal was not replayed when the database came back");
    cr_log_info("the journal was empty %lld ms after the database came back",
                (long long)(now_ms() - back));

    /* every game by id, and in the database once */
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(game_status(&o[i]), 200, "game %lld", (long long)o[i].game_id);
        cr_assert_eq(stored(db, o[i].game_id), 1, "game %lld: stored %lld times",
                     (long long)o[i].game_id, stored(db, o[i].game_id));
    }
    cr_assert_eq(pg_num(db, "SELECT COUNT(*) FROM games WHERE aborted = 0"), 5);
    cr_assert_eq(metric("ddz_db_write_errors_total"), 0, "a write was lost");
    cr_assert_eq(metric("ddz_db_journal_dropped_total"), 0);
    PQfinish(db);
    cr_assert_eq(server_stop(), 0);
}

Test(serve_outage, a_journal_past_its_bound_drops_the_oldest_and_counts_them)
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-journal-max";
    serve_extra[3] = "2";
    serve_extra[4] = NULL;
    server_start();
    pg_proxy_cut(&px);
    ddz_event_over o[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "Away%d", i);
        o[i] = quick_game(name);
    }
    served(&o[2]); /* the newest is kept */
    long dropped = metric_becomes("ddz_db_journal_pending", 2, T(5000)) == 2
                       ? metric("ddz_db_journal_dropped_total")
                       : -1;
    cr_assert_geq(dropped, 1, "past its bound the journal kept %ld",
                  metric("ddz_db_journal_pending"));
    cr_assert_eq(metric("ddz_db_journal_pending"), 2, "the bound");
    cr_assert_eq(metric("ddz_db_journal_appended_total") - dropped, 2);
    cr_assert_geq(metric("ddz_db_write_errors_total"), dropped, "a dropped write is a lost one");

    pg_proxy_restore(&px);
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0);
    PGconn *db = pg_connect(real_url);
    cr_assert_eq(stored(db, o[2].game_id), 1, "the newest game was not replayed");
    cr_assert_eq(stored(db, o[0].game_id), 0, "the oldest game was not dropped");
    cr_assert_eq(game_status(&o[0]), 404, "a dropped game is lost: not found");
    PQfinish(db);
    cr_assert_eq(server_stop(), 0);
}

/* libpq's own notices (the FATAL a backend sends when it is terminated,
 * read by the cluster's LISTENing session between statements) are JSON
 * log lines like every other line the server writes, not plain text. */
Test(serve_outage, database_notices_are_json_log_lines)
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--node";
    serve_extra[3] = "n1";
    serve_extra[4] = "--public-url";
    serve_extra[5] = "ws://127.0.0.1:1/ws";
    serve_extra[6] = NULL;
    server_start();
    PGconn *db = pg_connect(real_url);
    cr_assert_eq(metric_becomes("ddz_cluster_up", 1, T(5000)), 1);
    pg_exec(db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()");
    PQfinish(db);
    int64_t deadline = now_ms() + T(10000);
    char *log;
    while (!strstr(log = slurp(srv.log), "terminating connection")) {
        free(log);
        cr_assert_lt(now_ms(), deadline, "no session of the server heard it was terminated");
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert(json_is_string(json_object_get(j, "msg")) &&
                      json_is_integer(json_object_get(j, "ts_ms")) &&
                      json_is_string(json_object_get(j, "level")),
                  "not a JSON log line: %s", line);
        json_decref(j);
    }
    free(log);
    /* and the server is back on the database: a game is stored */
    ddz_event_over o = quick_game("After");
    served(&o);
    cr_assert_eq(metric_becomes("ddz_cluster_up", 1, T(5000)), 1);
    cr_assert_eq(server_stop(), 0);
}

/* ---- a database that hangs (accepts, never answers: pg_proxy_hang) ------
 *
 * The measurement: PostgreSQL stopped with SIGSTOP while tables
 * played. Without bounds of our own every database call waits until it
 * answers again; the proxy lets it answer after PG_PROXY_HANG_MAX_MS, so
 * that such a server fails these tests by seconds instead of hanging them. */

#define BOUND_MS 500 /* the server's --db-timeout here */

static void hang(void)
{
    pg_proxy_hang(&px);
}

static void unhang(void)
{
    pg_proxy_restore(&px);
}

/* How many lines of the server's log hold `what`. */
static int log_lines(const char *what)
{
    char *log = slurp(srv.log);
    int n = 0;
    for (const char *p = log; (p = strstr(p, what)); p++)
        n++;
    free(log);
    return n;
}

/* Waits (bounded) until the server's log holds `what`. */
static void logged(const char *what)
{
    int64_t deadline = now_ms() + T(10000);
    while (log_lines(what) == 0) {
        cr_assert_lt(now_ms(), deadline, "the log never said \"%s\"", what);
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
}

/* Every game a client saw end while the database hung is found after the
 * node is killed (SIGKILL) in the middle of the hang and started again:
 * its `over` came only once its record was in the journal. Meanwhile a
 * game's page and a bot's hello answer within the bound, and the log says
 * once that writes go to the journal, and when the replay starts and
 * ends. */
Test(serve_outage, no_game_seen_finished_during_a_hang_is_lost_to_a_kill, .timeout = HANG(120))
{
    setenv("DDZ_DB", srv.db, 1);
    char *tok;
    cr_assert_eq(run_ddz(&tok, "token", "add", "Robo", NULL), 0, "ddz token add: %s", tok);
    tok[strcspn(tok, "\n")] = '\0';
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "500";
    serve_extra[4] = NULL;
    server_start();
    ddz_event_over o[4];
    o[0] = quick_game("Before");
    served(&o[0]);

    hang();
    for (int i = 1; i < 4; i++) {
        char name[24];
        snprintf(name, sizeof name, "During%d", i);
        int64_t t0 = now_ms();
        o[i] = quick_game(name);
        cr_log_info("game %lld: over %lld ms after it began, in the hang", (long long)o[i].game_id,
                    (long long)(now_ms() - t0));
    }
    /* a game's page: the database is asked (the game is not in the
     * journal), and answers 503 within the bound */
    int64_t t0 = now_ms();
    cr_assert_eq(game_status(&o[0]), 503);
    int64_t read_ms = now_ms() - t0;
    cr_log_info("GET /api/games/%lld during the hang: 503 after %lld ms", (long long)o[0].game_id,
                (long long)read_ms);
    cr_assert_lt(read_ms, BELOW(2000, PG_PROXY_HANG_MAX_MS));
    /* a bot's hello: its token is checked in the database */
    cli *bot = cli_connect();
    snprintf(bot->name, sizeof bot->name, "Robo");
    t0 = now_ms();
    cli_send(bot, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "Robo",
                            "token", tok));
    expect_error(bot, DDZ_EDB, DDZ_REQ_HELLO);
    int64_t hello_ms = now_ms() - t0;
    cr_log_info("a bot's hello during the hang: EDB after %lld ms", (long long)hello_ms);
    cr_assert_lt(hello_ms, BELOW(2000, PG_PROXY_HANG_MAX_MS));
    cli_close(bot);
    free(tok);
    cr_assert_eq(log_lines("database not answering: writes go to the journal"), 1,
                 "one line for the outage");

    /* killed in the middle of the hang; back with the database */
    kill(srv.pid, SIGKILL);
    cr_assert(reap_within(T(5000)));
    unhang();
    server_start();
    for (int i = 0; i < 4; i++)
        served(&o[i]);
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0);
    logged("replaying the journal");
    logged("journal replayed");
    PGconn *db = pg_connect(real_url);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(stored(db, o[i].game_id), 1, "game %lld: stored %lld times",
                     (long long)o[i].game_id, stored(db, o[i].game_id));
    PQfinish(db);
    cr_assert_eq(metric("ddz_db_write_errors_total"), 0);
    cr_assert_eq(server_stop(), 0);
}

/* SIGTERM while the database hangs, the first write of the outage under
 * way (the game cut by the shutdown: its default bound of 3 s not run
 * out): the server is gone within 2 s, and the next start writes what it
 * kept in the journal. */
Test(serve_outage, sigterm_during_a_hang_exits_within_2_s, .timeout = HANG(120))
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = NULL;
    server_start();
    ddz_event_over before = quick_game("Before");
    served(&before);
    hang();
    cli *c = cli_hello("Cut");
    cli_send(c, json_pack("{s:s}", "type", "quick"));
    cli_expect(c, DDZ_EVENT_JOINED);
    cli_expect(c, DDZ_EVENT_GAME);
    int64_t t0 = now_ms();
    kill(srv.pid, SIGTERM);
    cr_assert_eq(server_wait(), 0);
    int64_t took = now_ms() - t0;
    cr_log_info("SIGTERM during the hang: exited after %lld ms", (long long)took);
    cr_assert_lt(took, 2000, "the server took %lld ms to stop", (long long)took);
    cr_assert_eq(log_lines("database not answering"), 1);

    unhang();
    server_start();
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0);
    PGconn *db = pg_connect(real_url);
    cr_assert_eq(pg_num(db, "SELECT COUNT(*) FROM games WHERE aborted = 1"), 1,
                 "the game cut by the shutdown was not written");
    PQfinish(db);
    cr_assert_eq(server_stop(), 0);
}

/* The cluster notices a hung database as it notices a dead one: its view
 * says it is not connected, and again connected once it answers. */
Test(serve_outage, the_cluster_notices_a_hang, .timeout = HANG(120))
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "500";
    serve_extra[4] = "--node";
    serve_extra[5] = "n1";
    serve_extra[6] = "--public-url";
    serve_extra[7] = "ws://127.0.0.1:1/ws";
    serve_extra[8] = NULL;
    server_start();
    cr_assert_eq(metric_becomes("ddz_cluster_up", 1, T(5000)), 1);
    hang();
    int64_t t0 = now_ms();
    cr_assert_eq(metric_becomes("ddz_cluster_up", 0, BELOW(3000, PG_PROXY_HANG_MAX_MS)), 0,
                 "the cluster did not notice the hang");
    cr_log_info("ddz_cluster_up went to 0 %lld ms into the hang", (long long)(now_ms() - t0));
    unhang();
    cr_assert_eq(metric_becomes("ddz_cluster_up", 1, T(10000)), 1);
    cr_assert_eq(server_stop(), 0);
}

/* What a client saw go wrong while it played: an error answer to one of
 * its requests (a bid or play past its clock), or a seat taken into a
 * hosted AI's custody (a clock ran out for a person). */
static bool trouble(cli *c, const ddz_event *e, void *ctx)
{
    (void)c;
    (void)ctx;
    return e->type == DDZ_EVENT_ERROR ||
           (e->type == DDZ_EVENT_SEAT && e->seat.player.seated && e->seat.player.custody);
}

/* A table with no pause between games (scripts, competitions) whose game
 * ends just as the database stops answering: its `over` waits for the
 * record to be durable (--db-timeout, longer here than a turn's clock),
 * and the next game is not dealt before it reached every player, so that
 * no first `turn` waits behind it while its clock runs out. */
Test(serve_outage, no_clock_runs_while_an_over_waits_to_be_durable, .timeout = HANG(120))
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "4500"; /* past the turn's 3 s clock */
    serve_extra[4] = NULL;
    server_start();
    cli *c[3];
    c[0] = cli_hello("West");
    json_t *opts = json_pack("{s:i, s:i, s:i}", "games", 2, "pause", 0, "time", 3);
    const char *room = cli_create(c[0], opts, 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    for (int i = 0; i < 3; i++)
        c[i]->act = c[i]->bidder = true;
    hang(); /* game 1's record is the outage's first write */
    int64_t t0 = now_ms();
    cr_assert_eq(run(c, 3, trouble, NULL, T(60000)), -1, "trouble in game 1");
    int64_t over_ms = now_ms() - t0;
    cr_log_info("game 1 over %lld ms into the hang", (long long)over_ms);
    reset_over(c, 3);
    int who = run(c, 3, trouble, NULL, T(60000));
    cr_assert_eq(who, -1, "%s: trouble in game 2, the first of the hang's: %s", c[who]->name,
                 tail_of(c[who]));
    unhang();
    cr_assert_eq(server_stop(), 0);
}

/* `ddz bridge` whose hello comes while the database hangs gets EDB (its
 * token cannot be checked), which is no refusal: it connects again after
 * a while and takes its seat once the database answers. */
Test(serve_outage, a_bridge_comes_back_after_a_hello_the_database_could_not_check,
     .timeout = HANG(120))
{
    setenv("DDZ_DB", srv.db, 1);
    char *tok;
    cr_assert_eq(run_ddz(&tok, "token", "add", "Robo", NULL), 0, "ddz token add: %s", tok);
    tok[strcspn(tok, "\n")] = '\0';
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "500";
    serve_extra[4] = NULL;
    server_start();
    cli *host = cli_hello("Host");
    json_t *opts = json_pack("{s:b, s:i, s:[n,n,s]}", "bots", 1, "games", 1, "seats", "ai:greedy");
    const char *room = cli_create(host, opts, 0);

    hang();
    char url[64], log[160];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", srv.port);
    snprintf(log, sizeof log, "%s/bridge.log", srv.dir);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, 2);
        execl(DDZ_BIN, "ddz", "bridge", "--url", url, "--token", tok, "--room", room, "--seat", "1",
              "--", DDZ_BIN, "engine", "--ai", "random", (char *)NULL);
        _exit(127);
    }
    free(tok);
    /* its first hello is answered EDB within the bound */
    int64_t deadline = now_ms() + T(10000);
    for (;;) {
        char *text = slurp(log);
        bool said = strstr(text, "cannot take our hello now") != NULL;
        free(text);
        if (said)
            break;
        cr_assert_lt(now_ms(), deadline, "the bridge was never answered EDB");
        cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0, "the bridge gave up at EDB");
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
    unhang();
    /* back within its backoff (1 s, then 2 s, ...): seated as Robo */
    deadline = now_ms() + T(15000);
    for (;;) {
        const ddz_event *e = cli_next(host, 200);
        if (e && e->type == DDZ_EVENT_SEAT && e->seat.seat == 1 && e->seat.player.seated) {
            cr_assert_str_eq(e->seat.player.name, "Robo");
            break;
        }
        cr_assert_lt(now_ms(), deadline, "the bridge never took its seat");
        cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0, "the bridge gave up");
    }
    kill(pid, SIGTERM);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
    cr_assert_eq(server_stop(), 0);
}

/* The ladder's top-level deal count as GET /api/ladder serves it. */
static long ladder_deals(void)
{
    int status;
    char *body = http_get("/api/ladder", &status);
    cr_assert_eq(status, 200, "%s", body);
    json_t *j = json_loads(body, 0, NULL);
    free(body);
    cr_assert_not_null(j);
    long n = (long)json_integer_value(json_object_get(j, "deals"));
    json_decref(j);
    return n;
}

/* The ladder's standings are not served before the deal's rows are
 * durable: a deal rated as the database stops answering shows in
 * /api/ladder only once it is in the journal, so that a node killed right
 * after someone read it has not told of a rating it then loses. */
Test(serve_outage, no_ladder_standing_read_during_a_hang_is_lost_to_a_kill, .timeout = HANG(120))
{
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "4000";
    serve_extra[4] = "--ladder-ai";
    serve_extra[5] = "greedy";
    serve_extra[6] = "--ladder-ai";
    serve_extra[7] = "random";
    serve_extra[8] = "--ai-delay-ms";
    serve_extra[9] = "0";
    serve_extra[10] = NULL;
    server_start();
    int64_t deadline = now_ms() + T(30000);
    while (ladder_deals() < 1) {
        cr_assert_lt(now_ms(), deadline, "no deal rated within %d ms", T(30000));
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
    hang();
    long before = ladder_deals(), seen;
    deadline = now_ms() + PG_PROXY_HANG_MAX_MS - 1000;
    while ((seen = ladder_deals()) <= before) {
        cr_assert_lt(now_ms(), deadline, "no deal rated in the hang");
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    }
    cr_log_info("%ld deals read in the hang (%ld before it)", seen, before);
    kill(srv.pid, SIGKILL);
    cr_assert(reap_within(T(5000)));
    unhang();
    serve_extra[4] = NULL; /* no ladder: the journal's replay is all */
    server_start();
    cr_assert_eq(metric_becomes("ddz_db_journal_pending", 0, T(10000)), 0);
    PGconn *db = pg_connect(real_url);
    long long stored_deals = pg_num(db, "SELECT COALESCE(MAX(deals), 0) FROM ladder_players");
    PQfinish(db);
    cr_assert_geq(stored_deals, seen, "%ld deals were read, %lld are stored", seen, stored_deals);
    cr_assert_eq(server_stop(), 0);
}

/* Says hello as guest `name`: the error code it gets (0 for welcome) and,
 * in *ms, how long the answer took. */
static int guest_hello_ms(const char *name, int64_t *ms)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "guest");
    int64_t t0 = now_ms();
    cli_send(c, json_pack("{s:s, s:i, s:s}", "type", "hello", "version", 1, "name", name));
    int code = 0;
    for (bool answered = false; !answered;) {
        const ddz_event *e = cli_next(c, T(5000));
        cr_assert_not_null(e, "no answer to hello %s", name);
        answered = e->type == DDZ_EVENT_WELCOME || e->type == DDZ_EVENT_ERROR;
        if (e->type == DDZ_EVENT_ERROR)
            code = e->error.code;
    }
    *ms = now_ms() - t0;
    cli_close(c);
    return code;
}

/* A guest's name is checked against the accounts' names in memory
 * (service/server/names.h), never in the database (issue 37): while the
 * database hangs, a guest under an account's name is still refused ENAME
 * and another is welcome, each at once. */
Test(serve_outage, a_hang_does_not_stall_a_guests_name_check, .timeout = HANG(120))
{
    char err[256];
    ddz_store *st = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(
        ddz_store_account_add(st, "Éva", "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", NULL), 0);
    ddz_store_close(st);
    serve_extra[0] = "--db-journal";
    serve_extra[1] = journal;
    serve_extra[2] = "--db-timeout";
    serve_extra[3] = "500";
    serve_extra[4] = NULL;
    server_start();
    int64_t ms, deadline = now_ms() + T(5000);
    while (guest_hello_ms("éVA", &ms) != DDZ_ENAME) { /* the names' first load is in */
        cr_assert_lt(now_ms(), deadline, "the account's name was never refused");
        poll(NULL, 0, 50); /* the interval of a bounded wait */
    }

    hang();
    cr_expect_eq(guest_hello_ms("ÉVA", &ms), DDZ_ENAME);
    cr_log_info("a guest's hello under an account's name during the hang: ENAME after %lld ms",
                (long long)ms);
    cr_expect_lt(ms, BELOW(300, BOUND_MS), "the name check waited for the database");
    cr_expect_eq(guest_hello_ms("Someone", &ms), 0);
    cr_expect_lt(ms, BELOW(300, BOUND_MS), "a guest's hello waited for the database");
    unhang();
}
