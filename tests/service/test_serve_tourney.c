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
#include <sqlite3.h>
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

/* Games of the store still held (a key, not aborted): read in the
 * database itself, beside the server (WAL). */
static long long held_in_store(void)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(srv.db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, T(2000)); /* scaled, as every bounded wait here */
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT COUNT(*) FROM games WHERE key IS NOT NULL AND"
                                    " aborted = 0",
                                    -1, &st, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sqlite3_errmsg(db));
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* Waits (bounded) until the store holds no game back: the tournament is
 * over, so every game of it is published (a resumed one too, whose games
 * the server before stored held). */
static void none_held_in_store(void)
{
    int64_t deadline = now_ms() + T(5000);
    long long n;
    while ((n = held_in_store()) > 0) {
        cr_assert_lt(now_ms(), deadline, "%lld games still held in the store", n);
        poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
}

/* `ddz verify` accepts games.jsonl; every game listed by the API is served;
 * none is held any more. */
static void check_records(json_t *j, int want)
{
    char *out, path[256];
    snprintf(path, sizeof path, "%s/games.jsonl", tdir);
    cr_assert_eq(run_ddz(&out, "verify", path, NULL, NULL), 0, "ddz verify: %s", out);
    free(out);
    json_t *games = json_object_get(j, "games");
    cr_assert_eq(json_integer_value(json_object_get(j, "games_played")), want);
    cr_assert_eq(json_integer_value(json_object_get(j, "held_games")), 0);
    cr_assert_eq(json_array_size(games), (size_t)want, "every game is listed at the end");
    none_held_in_store();
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

/* ---- issue 23: no hand revealed to anyone who may still play it ---- */

enum { SPY_DEALS = 64 };

/* A bot that wants to win by any means: before each of its games it reads
 * GET /api/tournament, every /api/games/ID it can find (the ids are
 * numbers: it tries them all up to past the newest it knows), and what an
 * anonymous connection of its program watching the other table was sent. */
typedef struct spy {
    cli *bot;     /* enlisted, seated: plays its games */
    cli *peek[2]; /* anonymous spectators: of the other table, of the bot's own */
    char peek_room[2][DDZ_EVENT_ROOM_ID_MAX];        /* the rooms they watch, "" for none */
    char learned[SPY_DEALS][2 * DDZ_SEED_BYTES + 1]; /* commits of deals it read a hand of */
    int nlearned;
    int card_frames; /* frames of a held game's cards the spectator was sent */
    char first_card_frame[300];
    bool saw_held; /* the spectator's state said the games are held */
    int not_held;  /* states of a tournament table that did not say so */
    char first_not_held[300];
    long long last_id; /* the bot's newest game id */
    int games;         /* the bot's games played */
} spy;

static void spy_learn(spy *s, const char *commit)
{
    for (int i = 0; i < s->nlearned; i++)
        if (strcmp(s->learned[i], commit) == 0)
            return;
    if (s->nlearned < SPY_DEALS)
        snprintf(s->learned[s->nlearned++], sizeof s->learned[0], "%s", commit);
}

/* Reads game `id` as anyone may; learns its deal if it is served. Returns
 * whether it was. */
static bool spy_read_game(spy *s, long long id)
{
    char path[64];
    snprintf(path, sizeof path, "/api/games/%lld", id);
    int status;
    char *body = http_get(path, &status);
    bool got = status == 200;
    if (got) {
        json_t *rec = json_loads(body, 0, NULL);
        cr_assert_not_null(rec, "GET %s: %s", path, body);
        const char *commit = json_string_value(json_object_get(rec, "commit"));
        cr_assert_not_null(commit, "GET %s: no commit: %s", path, body);
        spy_learn(s, commit);
        json_decref(rec);
    } else {
        cr_assert_eq(status, 404, "GET %s: %d %s", path, status, body);
    }
    free(body);
    return got;
}

/* What the spectator was sent so far: a card, a bid, a play, a result or a
 * total of a held game is a leak (a faster table's plays tell the hands of
 * the deal the bot is about to play). */
static void spy_seen(spy *s, int w, const ddz_event *e)
{
    {
        bool cards = false;
        switch (e->type) {
        case DDZ_EVENT_BID_MADE:
        case DDZ_EVENT_LEFTOVER:
        case DDZ_EVENT_PLAYED:
        case DDZ_EVENT_FAULT:
        case DDZ_EVENT_TURN_OVER:
            cards = true;
            break;
        case DDZ_EVENT_OVER: {
            char hex[2 * DDZ_SEED_BYTES + 1];
            sodium_bin2hex(hex, sizeof hex, e->over.commit, sizeof e->over.commit);
            spy_learn(s, hex);
            cards = true;
            break;
        }
        case DDZ_EVENT_STATE:
            s->saw_held |= e->state.held;
            cards = e->state.nhistory > 0 || e->state.has_result || e->state.has_leftover ||
                    e->state.landlord >= 0;
            for (int i = 0; i < 3; i++)
                cards |= e->state.players[i].in_game;
            if (e->state.has_result) {
                char hex[2 * DDZ_SEED_BYTES + 1];
                sodium_bin2hex(hex, sizeof hex, e->state.result.commit, DDZ_SEED_BYTES);
                spy_learn(s, hex);
            }
            break;
        case DDZ_EVENT_JOINED:
            if (!e->joined.room[0])
                s->peek_room[w][0] = '\0'; /* its table ended */
            break;
        default:
            break;
        }
        if (cards && !s->card_frames++)
            snprintf(s->first_card_frame, sizeof s->first_card_frame, "%.299s", show(e));
    }
}

static void spy_drain_peek(spy *s, int w)
{
    const ddz_event *e;
    while ((e = cli_next(s->peek[w], 0)))
        spy_seen(s, w, e);
}

/* Spectator `w` watches the table of the current turn that is (w = 1)
 * or is not (w = 0) the bot's (the one with `me` among its players), if
 * it has a room (a table of hosted AIs may be over before it is seen). */
static void spy_watch(spy *s, int w, json_t *api_now, const char *me)
{
    json_t *tables = json_object_get(json_object_get(api_now, "current"), "tables");
    for (size_t k = 0; k < json_array_size(tables); k++) {
        json_t *t = json_array_get(tables, k), *ps = json_object_get(t, "players");
        bool mine = false;
        for (size_t i = 0; i < json_array_size(ps); i++)
            mine |= json_is_string(json_array_get(ps, i)) &&
                    strcmp(json_string_value(json_array_get(ps, i)), me) == 0;
        const char *room = json_string_value(json_object_get(t, "room"));
        if (mine != (w == 1) || !room || strcmp(room, s->peek_room[w]) == 0)
            continue;
        spy_drain_peek(s, w); /* what came before */
        cli_send(s->peek[w], json_pack("{s:s, s:s}", "type", "spectate", "room", room));
        const ddz_event *e;
        do {
            e = cli_next(s->peek[w], T(5000));
            cr_assert_not_null(e, "no answer to spectate");
            spy_seen(s, w, e);
            if (e->type == DDZ_EVENT_JOINED && e->joined.room[0])
                snprintf(s->peek_room[w], sizeof s->peek_room[w], "%s", e->joined.room);
        } while (e->type != DDZ_EVENT_JOINED && e->type != DDZ_EVENT_ERROR);
        if (e->type == DDZ_EVENT_JOINED && e->joined.room[0]) {
            e = cli_expect(s->peek[w], DDZ_EVENT_STATE);
            spy_seen(s, w, e); /* checked with the rest */
            if (!e->state.held && !s->not_held++)
                snprintf(s->first_not_held, sizeof s->first_not_held, "%.299s", show(e));
        }
        return;
    }
}

/* Before game `g` (its commit `commit`, hex) of the bot: what it can read. */
static void spy_look(spy *s, const char *me, const char *commit, int g)
{
    json_t *j = api();
    spy_watch(s, 0, j, me);
    spy_watch(s, 1, j, me);
    /* the games the API lists, and every id up to past the newest known */
    long long top = s->last_id;
    json_t *games = json_object_get(j, "games");
    for (size_t k = 0; k < json_array_size(games); k++) {
        json_t *id = json_object_get(json_array_get(games, k), "id");
        if (json_is_integer(id)) {
            spy_read_game(s, json_integer_value(id));
            if (json_integer_value(id) > top)
                top = json_integer_value(id);
        }
    }
    /* the TV (the watch page's game) is the newest game listed, and it is
     * served at once by its id alone: the page waits for the publication
     * to be durable */
    json_t *tv = json_object_get(j, "tv"), *newest = NULL;
    for (size_t k = 0; k < json_array_size(games) && !newest; k++)
        if (json_is_integer(json_object_get(json_array_get(games, k), "id")))
            newest = json_array_get(games, k);
    if (!newest) {
        cr_assert(json_is_null(tv), "no game listed, yet the TV names one");
    } else {
        long long id = json_integer_value(json_object_get(newest, "id"));
        cr_assert_eq(json_integer_value(json_object_get(tv, "game")), id,
                     "the TV names game %lld, the newest listed is %lld",
                     json_integer_value(json_object_get(tv, "game")), id);
        char path[64];
        snprintf(path, sizeof path, "/api/games/%lld", id);
        int status;
        free(http_get(path, &status));
        cr_assert_eq(status, 200, "the TV's game %lld is not served at once: %d", id, status);
        cr_assert(json_equal(json_object_get(tv, "players"), json_object_get(newest, "players")));
    }
    for (long long id = 1; id <= top + 14; id++)
        spy_read_game(s, id);
    spy_drain_peek(s, 0);
    spy_drain_peek(s, 1);
    for (int i = 0; i < s->nlearned; i++)
        cr_assert_str_neq(s->learned[i], commit,
                          "before its game %d the bot read the hands of that deal", g);
    cr_assert_eq(s->card_frames, 0, "a spectator of a held table was sent %d card frames: %s",
                 s->card_frames, s->first_card_frame);
    cr_assert_eq(s->not_held, 0, "a spectator of a tournament table is told it is held: %s",
                 s->first_not_held);
    /* the API lists a game of the current turn only once every table of
     * the turn has played it, and says how many it holds back */
    json_t *cur = json_object_get(j, "current");
    if (json_is_object(cur)) {
        long long turn = json_integer_value(json_object_get(cur, "turn"));
        const char *stage = json_string_value(json_object_get(cur, "stage"));
        json_t *tables = json_object_get(cur, "tables");
        long long low = 1000, held = 0;
        for (size_t k = 0; k < json_array_size(tables); k++) {
            json_t *t = json_array_get(tables, k);
            long long done = json_integer_value(json_object_get(t, "games_done"));
            if (json_array_size(json_object_get(t, "forfeited")) == 0 && done < low)
                low = done;
            held += json_integer_value(json_object_get(t, "held"));
        }
        for (size_t k = 0; k < json_array_size(games); k++) {
            json_t *x = json_array_get(games, k);
            if (json_integer_value(json_object_get(x, "turn")) == turn && stage &&
                strcmp(json_string_value(json_object_get(x, "stage")), stage) == 0)
                cr_assert_leq(json_integer_value(json_object_get(x, "game")), low,
                              "game %lld of the turn is listed; a table has played %lld",
                              json_integer_value(json_object_get(x, "game")), low);
        }
        cr_assert(json_is_integer(json_object_get(j, "held_games")), "the API says what it holds");
        cr_assert_eq(json_integer_value(json_object_get(j, "held_games")), held);
    }
    json_decref(j);
}

/* Plays the tournament as the spy until it is released. */
static void spy_play(spy *s, const char *me)
{
    cli *b = s->bot;
    b->act = true;
    uint64_t dealt = 0;
    int64_t deadline = now_ms() + T(240000);
    for (;;) {
        cr_assert_lt(now_ms(), deadline, "the spy was not released within %d ms", T(240000));
        const ddz_event *e = cli_next(b, T(30000));
        cr_assert_not_null(e, "the spy heard nothing for %d ms:%s", T(30000), tail_of(b));
        if (e->type == DDZ_EVENT_RELEASED)
            return;
        if (e->type == DDZ_EVENT_GAME && e->game.has_hand) {
            char hex[2 * DDZ_SEED_BYTES + 1];
            sodium_bin2hex(hex, sizeof hex, e->game.commit, sizeof e->game.commit);
            dealt = e->game.hand;
            spy_look(s, me, hex, e->game.game);
        } else if (e->type == DDZ_EVENT_OVER) {
            /* the seated bot itself gets the game's end whole, as today */
            cr_assert_eq(e->over.dealt[b->seat], dealt, "its own over has its dealt hand");
            s->last_id = e->over.game_id;
            s->games++;
        } else if (e->type == DDZ_EVENT_TURN || e->type == DDZ_EVENT_STATE) {
            act_pending(b);
        }
    }
}

/* The attack of issue 23: a bot at a table with hosted AIs, the other
 * table all hosted AIs (its six games over in milliseconds), both played
 * at once (`tables` tables at a time). Before each of its games the bot
 * reads everything it can; it must never hold a hand of a deal it has yet
 * to play. At the end every game is published. */
static void spy_cup(int tables)
{
    char t1[80];
    token_add("spy", t1);
    char options[200];
    snprintf(options, sizeof options,
             "--format swiss --turns 2 --games 6 --time 20 --tables %d --seed " SEED "\n", tables);
    make_cup("s=bot:spy\na=ai:greedy\nb=ai:random\nc=ai:greedy\nd=ai:random\ne=ai:greedy\n",
             options, "60");
    server_start();
    spy sp = {0};
    sp.bot = cli_connect();
    snprintf(sp.bot->name, sizeof sp.bot->name, "spy");
    cli_send(sp.bot, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "spy",
                               "token", t1));
    cli_expect(sp.bot, DDZ_EVENT_WELCOME);
    sp.peek[0] = cli_hello("anonymous");
    sp.peek[1] = cli_hello("anonymous2");
    cli_send(sp.bot, json_pack("{s:s}", "type", "enlist"));
    cr_assert_str_eq(cli_expect(sp.bot, DDZ_EVENT_ENLISTED)->enlisted.player, "s");
    spy_play(&sp, "s");
    cr_assert_eq(sp.games, 12, "2 turns x 6 games");
    cr_assert(sp.saw_held, "the spectator was told the games are held");
    /* the end: every game published, listed and served */
    json_t *j = wait_done(10000);
    cr_assert_eq(json_integer_value(json_object_get(j, "held_games")), 0);
    json_t *games = json_object_get(j, "games");
    cr_assert_eq(json_array_size(games), 24);
    for (size_t k = 0; k < json_array_size(games); k++) {
        json_t *rec =
            fetch_game(json_integer_value(json_object_get(json_array_get(games, k), "id")), "");
        json_decref(rec);
    }
    json_decref(j);
    none_held_in_store();
    cr_assert_eq(server_stop(), 0);
}

Test(serve_tourney, a_bot_reads_no_hand_before_it_plays_it_tables_at_once, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(300))
{
    spy_cup(2);
}

Test(serve_tourney, a_bot_reads_no_hand_before_it_plays_it_one_table_at_a_time,
     .init = setup_no_server, .fini = teardown, .timeout = HANG(300))
{
    spy_cup(1);
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

/* ---- issue 26: a held game's analysis is as held as its record ---- */

/* The id and key of a game the store holds back (a key, not aborted), or
 * 0 if none: read in the database itself, beside the server (WAL). */
static long long held_game(char key[DDZ_EVENT_GAME_KEY_HEX + 1])
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(srv.db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, T(2000));
    sqlite3_stmt *st;
    long long id = 0;
    /* a store not yet made has no table: no game held */
    if (sqlite3_prepare_v2(db,
                           "SELECT id, key FROM games WHERE key IS NOT NULL AND aborted = 0"
                           " ORDER BY id LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            id = sqlite3_column_int64(st, 0);
            snprintf(key, DDZ_EVENT_GAME_KEY_HEX + 1, "%s",
                     (const char *)sqlite3_column_text(st, 1));
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return id;
}

/* A tournament's game over at an all-AI table while the bot's table, on
 * the same deal, waits for the bot: held. Its analysis is 404 as its
 * record is, nothing computed; once the bot has played and the game is
 * published, it is served. */
Test(serve_tourney, a_held_games_analysis_is_404_until_published, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(120))
{
    char t1[80];
    token_add("late", t1);
    make_cup("s=bot:late\na=ai:greedy\nb=ai:random\nc=ai:greedy\nd=ai:random\ne=ai:greedy\n",
             "--format swiss --turns 1 --games 1 --time 30 --tables 2 --seed " SEED "\n", "60");
    server_start();
    cli *b = cli_connect();
    snprintf(b->name, sizeof b->name, "late");
    cli_send(b, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "late",
                          "token", t1));
    cli_expect(b, DDZ_EVENT_WELCOME);
    cli_send(b, json_pack("{s:s}", "type", "enlist"));
    cli_expect(b, DDZ_EVENT_ENLISTED);

    /* the bot does not act yet: the other table's game is over and held */
    char key[DDZ_EVENT_GAME_KEY_HEX + 1] = "";
    long long id;
    int64_t deadline = now_ms() + T(20000);
    while (!(id = held_game(key))) {
        cr_assert_lt(now_ms(), deadline, "no game held within %d ms", T(20000));
        poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
    char path[96];
    int status;
    snprintf(path, sizeof path, "/api/games/%lld", id);
    char *body = http_get(path, &status);
    cr_assert_eq(status, 404, "a held game's record: %d", status);
    free(body);
    snprintf(path, sizeof path, "/api/games/%lld/analysis", id);
    body = http_get(path, &status);
    cr_assert_eq(status, 404, "a held game's analysis: %d %s", status, body);
    free(body);
    cr_assert_eq(metric("ddz_analyses_total{result=\"pending\"}"), 0, "nothing was computed");
    /* nor a puzzle made of it: its deal is being played at the other table */
    cr_assert_eq(metric("ddz_puzzle_games_total{result=\"offered\"}"), 0,
                 "a held game handed to the stock of puzzles");

    /* the bot plays its game; the turn ends, every game is published */
    b->act = true;
    act_pending(b);
    deadline = now_ms() + T(60000);
    for (;;) {
        cr_assert_lt(now_ms(), deadline, "the bot was not released within %d ms", T(60000));
        const ddz_event *e = cli_next(b, T(30000));
        cr_assert_not_null(e, "the bot heard nothing for %d ms:%s", T(30000), tail_of(b));
        if (e->type == DDZ_EVENT_RELEASED)
            break;
        if (e->type == DDZ_EVENT_TURN || e->type == DDZ_EVENT_STATE)
            act_pending(b);
    }
    none_held_in_store();
    deadline = now_ms() + T(20000);
    for (;;) {
        body = http_get(path, &status);
        free(body);
        if (status == 200)
            break;
        cr_assert_eq(status, 202, "a published game's analysis: %d", status);
        cr_assert_lt(now_ms(), deadline, "still pending after %d ms", T(20000));
        poll(NULL, 0, 20); /* retry interval of a bounded wait */
    }
    cr_assert_eq(server_stop(), 0);
}
