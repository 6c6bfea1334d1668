/* test_serve_tourney.c - `ddz serve --tournament DIR` with real remote
 * bots: `ddz bridge --enlist` processes playing `ddz engine --ai greedy`,
 * beside hosted AIs and an operator engine; a bot that never comes and
 * forfeits under the lateness rule; a server killed mid-tournament and
 * started again. Every run's standings.json is checked against a plain
 * recomputation from games.jsonl and forfeits.jsonl (a Swiss twin, below),
 * its records against `ddz verify` and the store (/api/games/ID), and no
 * engine process may outlive the test's server and bridges.
 *
 * A bot played by this test itself (wsclient) enlists too, so that the
 * frames of `enlist`, `enlisted` and `released` are captured for
 * tests/service/test_schema.sh (DDZ_FRAMES_OUT). */
#include <math.h>
#include <sodium.h>
#include <sys/stat.h>

#include "serve_harness.h"
#include "bot_procs.h"

#define SEED "0000000000000000000000000000000000000000000000000000000000000005"

static char tdir[160]; /* the tournament's directory, in srv.dir */

/* Makes DIR with `players` and `options`, and sets the server's options. */
static void make_cup(const char *players, const char *options, const char *late)
{
    snprintf(tdir, sizeof tdir, "%s/tournament", srv.dir);
    cr_assert_eq(mkdir(tdir, 0755), 0);
    tourney_file(tdir, "players", players);
    tourney_file(tdir, "options", options);
    static char engine[300];
    snprintf(engine, sizeof engine, "eng=%s engine --ai greedy", DDZ_BIN);
    const char *extra[] = {"--tournament", tdir, "--tournament-late", late, "--engine",
                           engine,         NULL};
    memcpy(serve_extra, extra, sizeof extra);
}

static void start_bridge(proc *p, const char *name, const char *token)
{
    char url[64], log[200];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", srv.port);
    snprintf(log, sizeof log, "%s/%s.log", srv.dir, name);
    char *argv[] = {DDZ_BIN, "bridge", "--url",  url,    "--token", (char *)token, "--enlist",
                    "--",    DDZ_BIN,  "engine", "--ai", "greedy",  NULL};
    spawn(p, log, argv);
}

/* GET /api/tournament, parsed. */
static json_t *api(void)
{
    int status;
    char *body = http_get("/api/tournament", &status);
    cr_assert_eq(status, 200, "GET /api/tournament: %d %s", status, body);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "not JSON: %s", body);
    free(body);
    return j;
}

/* Waits (bounded) until the API says the tournament is done. */
static json_t *wait_done(int ms)
{
    int64_t deadline = now_ms() + T(ms);
    for (;;) {
        json_t *j = api();
        if (json_is_true(json_object_get(j, "done")))
            return j;
        cr_assert(json_is_null(json_object_get(j, "error")), "stopped: %s",
                  json_string_value(json_object_get(j, "error")));
        json_decref(j);
        cr_assert_lt(now_ms(), deadline, "the tournament did not end within %d ms", T(ms));
        poll(NULL, 0, 50); /* retry interval of a bounded wait */
    }
}

static int count_lines(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tdir, name);
    char *s = slurp(path);
    int n = 0;
    for (char *p = s; *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

/* ---- the twin: Swiss standings recomputed plainly from the files ---- */

enum { NP_MAX = 12 };

typedef struct tw_player {
    char id[40];
    double points, small;
    int byes;
    uint64_t lot;
} tw_player;

static tw_player tw[NP_MAX];
static int tw_n;

static int tw_find(const char *id)
{
    for (int i = 0; i < tw_n; i++)
        if (strcmp(tw[i].id, id) == 0)
            return i;
    cr_assert_fail("unknown player %s", id);
    return -1;
}

static int tw_cmp(const void *pa, const void *pb)
{
    const tw_player *a = &tw[*(const int *)pa], *b = &tw[*(const int *)pb];
    if (fabs(a->points - b->points) > 1e-9)
        return a->points > b->points ? -1 : 1;
    if (a->small != b->small)
        return a->small > b->small ? -1 : 1;
    return a->lot < b->lot ? -1 : 1;
}

/* Recomputes `turns` Swiss turns of `games` games from DIR's files and
 * compares standings.json with it. Returns the number of forfeits read. */
static int check_twin(int turns, int games)
{
    char path[256];
    memset(tw, 0, sizeof tw);
    tw_n = 0;
    snprintf(path, sizeof path, "%s/players", tdir);
    FILE *f = fopen(path, "r");
    char line[512];
    uint8_t seed[32];
    for (int b = 0; b < 32; b++)
        sscanf(SEED + 2 * b, "%2hhx", &seed[b]);
    while (fgets(line, sizeof line, f)) {
        *strchr(line, '=') = '\0';
        tw_player *p = &tw[tw_n++];
        snprintf(p->id, sizeof p->id, "%.39s", line);
        uint8_t h[16];
        crypto_generichash_state st;
        crypto_generichash_init(&st, seed, 32, 16);
        crypto_generichash_update(&st, (const uint8_t *)"ddz-lot", 7);
        crypto_generichash_update(&st, (const uint8_t *)p->id, strlen(p->id));
        crypto_generichash_final(&st, h, 16);
        for (int b = 7; b >= 0; b--)
            p->lot = p->lot << 8 | h[b];
    }
    fclose(f);
    const double cap = 350.0 * games;
    const int avg = tw_n / 6 + 1;
    /* per turn and player: seat (-1 none), small, forfeit role (0 none, 1 absent, 2 awarded) */
    int seat[24][NP_MAX], role[24][NP_MAX];
    double small[24][NP_MAX];
    for (int t = 0; t < 24; t++)
        for (int i = 0; i < NP_MAX; i++)
            seat[t][i] = -1, role[t][i] = 0, small[t][i] = 0;
    snprintf(path, sizeof path, "%s/games.jsonl", tdir);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    char *l = NULL;
    size_t lcap = 0;
    while (getline(&l, &lcap, f) > 0) {
        json_t *j = json_loads(l, 0, NULL);
        json_t *t = json_object_get(j, "tournament");
        int turn = (int)json_integer_value(json_object_get(t, "turn"));
        for (int s = 0; s < 3; s++) {
            int i = tw_find(json_string_value(json_array_get(json_object_get(t, "players"), s)));
            seat[turn][i] = s;
            small[turn][i] += json_number_value(json_array_get(json_object_get(j, "scores"), s));
        }
        json_decref(j);
    }
    fclose(f);
    int nforfeits = 0;
    snprintf(path, sizeof path, "%s/forfeits.jsonl", tdir);
    f = fopen(path, "r");
    while (f && getline(&l, &lcap, f) > 0) {
        json_t *j = json_loads(l, 0, NULL);
        json_t *t = json_object_get(j, "tournament"), *ab = json_object_get(j, "absent");
        int turn = (int)json_integer_value(json_object_get(t, "turn"));
        for (int s = 0; s < 3; s++) {
            const char *id = json_string_value(json_array_get(json_object_get(t, "players"), s));
            int i = tw_find(id);
            role[turn][i] = 2;
            for (size_t k = 0; k < json_array_size(ab); k++)
                if (strcmp(json_string_value(json_array_get(ab, k)), id) == 0)
                    role[turn][i] = 1;
        }
        nforfeits++;
        json_decref(j);
    }
    if (f)
        fclose(f);
    free(l);
    for (int turn = 1; turn <= turns; turn++)
        for (int i = 0; i < tw_n; i++) {
            tw_player *p = &tw[i];
            if (role[turn][i] == 1) {
                p->points -= 2 * avg;
            } else if (role[turn][i] == 2) {
                p->points += avg;
                p->small += cap;
            } else if (seat[turn][i] < 0) {
                p->points += avg + 1;
                p->small += cap;
                p->byes++;
            } else {
                int below = 0, same = 0;
                for (int k = 0; k < tw_n; k++)
                    if (seat[turn][k] == seat[turn][i] && !role[turn][k]) {
                        below += small[turn][k] < small[turn][i];
                        same += small[turn][k] == small[turn][i];
                    }
                double pts = 1 + below + (same - 1) / 2.0, rec = small[turn][i];
                if (rec < -cap)
                    pts -= 1;
                if (rec > cap)
                    pts += 1, rec = cap;
                p->points += pts;
                p->small += rec;
            }
        }
    int order[NP_MAX];
    for (int i = 0; i < tw_n; i++)
        order[i] = i;
    qsort(order, (size_t)tw_n, sizeof *order, tw_cmp);
    snprintf(path, sizeof path, "%s/standings.json", tdir);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "standings.json: %s", je.text);
    cr_assert_eq(json_integer_value(json_object_get(j, "turn")), turns);
    json_t *ps = json_object_get(j, "players");
    cr_assert_eq((int)json_array_size(ps), tw_n);
    for (int r = 0; r < tw_n; r++) {
        json_t *e = json_array_get(ps, (size_t)r);
        const tw_player *p = &tw[order[r]];
        cr_assert_str_eq(json_string_value(json_object_get(e, "id")), p->id, "rank %d", r + 1);
        cr_assert_float_eq(json_number_value(json_object_get(e, "points")), p->points, 1e-9,
                           "%s: points", p->id);
        cr_assert_float_eq(json_number_value(json_object_get(e, "small")), p->small, 1e-9,
                           "%s: small", p->id);
        cr_assert_eq(json_integer_value(json_object_get(e, "byes")), p->byes, "%s: byes", p->id);
    }
    json_decref(j);
    return nforfeits;
}

/* `ddz verify` accepts games.jsonl; every game listed by the API is served. */
static void check_records(json_t *j, int want)
{
    char *out, path[256];
    snprintf(path, sizeof path, "%s/games.jsonl", tdir);
    cr_assert_eq(run_ddz(&out, "verify", path, NULL, NULL), 0, "ddz verify: %s", out);
    free(out);
    json_t *games = json_object_get(j, "games");
    cr_assert_eq(json_integer_value(json_object_get(j, "games_played")), want);
    for (size_t k = 0; k < json_array_size(games) && k < 4; k++) {
        json_t *g = json_array_get(games, k);
        cr_assert(json_is_integer(json_object_get(g, "id")), "a game without its store id");
        json_t *rec = fetch_game(json_integer_value(json_object_get(g, "id")), "");
        json_decref(rec);
    }
}

/* Two bridges, an operator engine and hosted AIs: the whole tournament. */
Test(serve_tourney, two_bridges_engines_and_ais_play_it_through, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(240))
{
    char t1[80], t2[80];
    token_add("robo1", t1);
    token_add("robo2", t2);
    make_cup("x1=bot:robo1\nx2=bot:robo2\na=ai:greedy\nb=ai:random\nc=engine:eng\nd=ai:greedy\n",
             "--format swiss --turns 2\n--games 2 --time 5 --seed " SEED "\n", "30");
    server_start();
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "robo1", t1);
    start_bridge(&b2, "robo2", t2);
    /* a spectator of the first table that has a room */
    cli *w = cli_hello("watcher");
    char room[DDZ_EVENT_ROOM_ID_MAX] = "";
    for (int64_t deadline = now_ms() + T(20000); !room[0] && now_ms() < deadline;) {
        json_t *j = api();
        json_t *tables = json_object_get(json_object_get(j, "current"), "tables");
        for (size_t k = 0; k < json_array_size(tables) && !room[0]; k++) {
            json_t *r = json_object_get(json_array_get(tables, k), "room");
            if (json_is_string(r))
                snprintf(room, sizeof room, "%s", json_string_value(r));
        }
        json_decref(j);
        if (!room[0])
            poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
    if (room[0]) { /* (a fast table may be over before it is seen) */
        cli_send(w, json_pack("{s:s, s:s}", "type", "spectate", "room", room));
        const ddz_event *e;
        while ((e = cli_next(w, T(5000))) && e->type != DDZ_EVENT_JOINED &&
               e->type != DDZ_EVENT_ERROR)
            ;
        cr_assert_not_null(e, "no answer to spectate");
        if (e->type == DDZ_EVENT_JOINED && e->joined.room[0]) {
            const ddz_event *st = cli_expect(w, DDZ_EVENT_STATE);
            cr_assert_not(st->state.has_hand, "a spectator sees no hand");
        }
    }
    bool e1 = proc_wait(&b1, T(180000)), e2 = proc_wait(&b2, T(30000));
    char *l1 = slurp(b1.log), *l2 = slurp(b2.log);
    cr_assert(e1 && e2, "a bridge did not end\nrobo1:\n%s\nrobo2:\n%s", l1, l2);
    cr_assert_eq(b1.code, 0, "robo1 exit %d:\n%s", b1.code, l1);
    cr_assert_eq(b2.code, 0, "robo2 exit %d:\n%s", b2.code, l2);
    cr_assert(strstr(l1, "released: the tournament is over"), "%s", l1);
    free(l1);
    free(l2);
    json_t *j = wait_done(10000);
    cr_assert_eq(count_lines("games.jsonl"), 8, "2 turns x 2 tables x 2 games");
    check_records(j, 8);
    json_decref(j);
    cr_assert_eq(check_twin(2, 2), 0);
    tourney_games(tdir); /* fails on a game recorded twice */
    cr_assert_eq(server_stop(), 0);
    cr_assert_eq(count_descendants("engine --ai"), 0, "an engine process outlived the server");
}

static bool released(cli *c, const ddz_event *e, void *ctx)
{
    (void)c, (void)ctx;
    return e->type == DDZ_EVENT_RELEASED;
}

/* A bot that never comes forfeits its table after --tournament-late; a
 * bot played by the test enlists, plays where it is seated and is
 * released at the end. */
Test(serve_tourney, an_absent_bot_forfeits_with_the_seeds_points, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(120))
{
    char t1[80], t2[80];
    token_add("ghost", t1);
    token_add("here", t2);
    make_cup("g=bot:ghost\nh=bot:here\na=ai:greedy\nb=ai:random\nc=ai:greedy\nd=ai:random\n",
             "--format swiss --turns 1 --games 1 --time 5 --seed " SEED "\n", "1");
    server_start();
    /* enlisting: a person may not, an unknown bot may not */
    cli *person = cli_hello("person");
    cli_send(person, json_pack("{s:s}", "type", "enlist"));
    expect_error(person, DDZ_EAUTH, DDZ_REQ_ENLIST);
    cli *bot = cli_connect();
    snprintf(bot->name, sizeof bot->name, "here");
    cli_send(bot, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "here",
                            "token", t2));
    cli_expect(bot, DDZ_EVENT_WELCOME);
    cli_send(bot, json_pack("{s:s}", "type", "enlist"));
    const ddz_event *e = cli_expect(bot, DDZ_EVENT_ENLISTED);
    cr_assert_str_eq(e->enlisted.player, "h");
    cr_assert_str_eq(e->enlisted.competition, "tournament");
    /* plays its table (or has a bye), then is released */
    int64_t deadline = now_ms() + T(60000);
    for (;;) {
        reset_over(&bot, 1);
        if (run(&bot, 1, released, NULL, T(60000)) >= 0)
            break;
        cr_assert_lt(now_ms(), deadline, "not released within %d ms", T(60000));
    }
    json_t *j = wait_done(10000);
    json_decref(j);
    cr_assert_eq(check_twin(1, 1), 1, "one table forfeited");
    /* the absentee: -2 x average (6 players: 2); its table mates: +2, 350 small */
    for (int i = 0; i < tw_n; i++)
        if (strcmp(tw[i].id, "g") == 0)
            cr_assert_float_eq(tw[i].points, -4, 1e-9);
    cr_assert_eq(server_stop(), 0);
}

/* The server killed mid-tournament and started again: it resumes, no game
 * is played twice or lost, and the bridge finds its way back. */
Test(serve_tourney, a_server_killed_mid_tournament_resumes, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(300))
{
    char t1[80];
    token_add("robo", t1);
    make_cup("r=bot:robo\na=ai:greedy\nb=ai:random\nc=ai:greedy\nd=ai:random\ne=engine:eng\n",
             "--format swiss --turns 2 --games 6 --time 5 --seed " SEED "\n", "60");
    server_start();
    proc b = {0};
    start_bridge(&b, "robo", t1);
    int64_t deadline = now_ms() + T(60000);
    while (count_lines("games.jsonl") < 4) {
        cr_assert_lt(now_ms(), deadline, "no 4 games within %d ms", T(60000));
        poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
    kill(srv.pid, SIGKILL);
    cr_assert(reap_within(T(5000)));
    int before = count_lines("games.jsonl");
    cr_assert_lt(before, 24, "the tournament was over before the kill");
    server_start(); /* another port: the bridge cannot come back */
    proc_kill(&b);
    start_bridge(&b, "robo2", t1);
    cr_assert(proc_wait(&b, T(240000)), "the bridge did not end");
    cr_assert_eq(b.code, 0);
    json_t *j = wait_done(10000);
    cr_assert_eq(count_lines("games.jsonl"), 24, "2 turns x 2 tables x 6 games");
    check_records(j, 24);
    json_decref(j);
    tourney_games(tdir); /* fails on a game recorded twice */
    cr_assert_eq(check_twin(2, 6), 0);
    cr_assert_eq(server_stop(), 0);
    cr_assert_eq(count_descendants("engine --ai"), 0, "an engine process outlived the server");
}

/* Without --tournament: no API, and enlisting is refused. */
Test(serve_tourney, no_tournament_no_enlisting, .init = setup, .fini = teardown)
{
    int status;
    char *body = http_get("/api/tournament", &status);
    cr_assert_eq(status, 200, "%s", body);
    cr_assert_str_eq(body, "{\"running\":false}");
    free(body);
    cli *c = cli_hello("someone");
    cli_send(c, json_pack("{s:s}", "type", "enlist"));
    expect_error(c, DDZ_ENOTFOUND, DDZ_REQ_ENLIST);
}
