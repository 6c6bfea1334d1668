/* test_serve_ladder.c - `ddz serve`'s rated ladder (spec §12) with real
 * remote bots: two `ddz bridge --ladder` processes (a greedy and a random
 * `ddz engine`), an operator engine (greedy) and two hosted AIs (greedy,
 * random). It must play on its own, each deal at two tables, each program
 * once, rank the greedy players above the random ones within a bounded
 * time, serve every deal's games at /api/games/ID (and `ddz verify` them)
 * with each result compared with the same hand of the same deal, take out
 * a bot that drops and seat it again when it comes back, keep its
 * ratings across a restart, and leave no engine process behind. A bot
 * that faults in most of its games is suspended with a reason and told
 * `released`. A bot that keeps every hand it sees never sees a hand
 * before it plays it, nor on the TV (the game `tv` names: the newest
 * published deal, never a live one). */
#include <math.h>
#include <sys/stat.h>

#include "serve_harness.h"
#include "bot_procs.h"

/* A bridge for the ladder playing `ddz engine --ai AI`. */
static void start_bridge(proc *p, const char *name, const char *token, const char *ai)
{
    char url[64], log[200];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", srv.port);
    snprintf(log, sizeof log, "%s/%s.log", srv.dir, name);
    char *argv[] = {DDZ_BIN, "bridge", "--url",  url,    "--token",  (char *)token, "--ladder",
                    "--",    DDZ_BIN,  "engine", "--ai", (char *)ai, NULL};
    spawn(p, log, argv);
}

static json_t *get_json(const char *path)
{
    int status;
    char *body = http_get(path, &status);
    cr_assert_eq(status, 200, "GET %s: %d %s", path, status, body);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "GET %s: not JSON: %s", path, body);
    free(body);
    return j;
}

/* The entry of `name` in GET /api/ladder's players (borrowed from `j`). */
static json_t *player(json_t *j, const char *name)
{
    json_t *ps = json_object_get(j, "players");
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
            return p;
    }
    return NULL;
}

static double num(json_t *p, const char *key)
{
    return json_number_value(json_object_get(p, key));
}

static const char *const greedy[] = {"alpha", "engine:eng", "ai:greedy"};
static const char *const randoms[] = {"beta", "ai:random"};

/* Every greedy player is rated above every random one, each with `min`
 * deals at least. */
static bool ranked(json_t *j, int min)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 3; i++) {
        json_t *p = player(j, greedy[i]);
        if (!p || num(p, "deals") < min)
            return false;
        lo = fmin(lo, num(p, "rating"));
    }
    for (int i = 0; i < 2; i++) {
        json_t *p = player(j, randoms[i]);
        if (!p || num(p, "deals") < min)
            return false;
        hi = fmax(hi, num(p, "rating"));
    }
    return lo > hi;
}

/* Waits (bounded) until `cond` holds of GET /api/ladder; returns it. */
static json_t *wait_ladder(bool (*cond)(json_t *j, void *ctx), void *ctx, int ms, const char *what)
{
    int64_t deadline = now_ms() + T(ms);
    for (;;) {
        json_t *j = get_json("/api/ladder");
        if (cond(j, ctx))
            return j;
        if (now_ms() >= deadline) {
            char *s = json_dumps(j, JSON_INDENT(1));
            cr_assert_fail("%s: not within %d ms; /api/ladder:\n%s", what, T(ms), s);
        }
        json_decref(j);
        poll(NULL, 0, 100); /* retry interval of a bounded wait */
    }
}

static bool is_ranked(json_t *j, void *ctx)
{
    (void)ctx;
    return ranked(j, 2);
}

typedef struct want {
    const char *name;
    bool connected;
    double deals_over; /* its deals must pass this */
} want;

static bool player_is(json_t *j, void *ctx)
{
    want *w = ctx;
    json_t *p = player(j, w->name);
    return p && json_is_true(json_object_get(p, "connected")) == w->connected &&
           num(p, "deals") > w->deals_over &&
           (w->connected || !json_is_true(json_object_get(p, "playing")));
}

static bool deals_over(json_t *j, void *ctx)
{
    return num(j, "deals") > *(double *)ctx;
}

/* A game's seed, from its stored record (verified with `ddz verify`)
 * into `seed`. */
static void verified_seed(long long id, char seed[65])
{
    char path[200];
    json_t *rec = fetch_game(id, "");
    const char *s = json_string_value(json_object_get(rec, "seed"));
    cr_assert_not_null(s);
    snprintf(seed, 65, "%.64s", s);
    snprintf(path, sizeof path, "%s/rec-%lld.jsonl", srv.dir, id);
    cr_assert_eq(json_dump_file(rec, path, JSON_COMPACT), 0);
    json_decref(rec);
    char *out;
    int rc = run_ddz(&out, "verify", path, NULL, NULL);
    cr_assert_eq(rc, 0, "ddz verify game %lld: %s", id, out);
    free(out);
}

/* `name`'s latest deal: the hand it held, its game, served and verified,
 * and those it was compared with: others who held the same hand of the
 * same deal (the same seed) at other tables. A program never plays one
 * deal twice: its history has each deal once. */
static void check_latest_deal(const char *name)
{
    char path[200];
    snprintf(path, sizeof path, "/api/ladder/%s", name);
    json_t *j = get_json(path);
    cr_assert_str_eq(json_string_value(json_object_get(j, "name")), name);
    json_t *hist = json_object_get(j, "history");
    size_t n = json_array_size(hist);
    cr_assert_gt(n, 0, "%s has no history", name);
    json_t *last = json_array_get(hist, n - 1);
    cr_assert_eq(num(last, "rating"), num(j, "rating"), "history ends at the rating");
    const char *hand = json_string_value(json_object_get(last, "hand"));
    cr_assert(hand && (!strcmp(hand, "west") || !strcmp(hand, "south") || !strcmp(hand, "east")),
              "%s: hand %s", name, hand ? hand : "(none)");
    json_t *games = json_object_get(last, "games");
    cr_assert_eq(json_array_size(games), 1, "one game a deal");
    char seed[65], other[65];
    verified_seed(json_integer_value(json_array_get(games, 0)), seed);
    json_t *cmp = json_object_get(last, "compared");
    cr_assert_gt(json_array_size(cmp), 0, "%s compared with nobody", name);
    for (size_t i = 0; i < json_array_size(cmp); i++) {
        json_t *c = json_array_get(cmp, i);
        cr_assert_str_neq(json_string_value(json_object_get(c, "name")), name);
        verified_seed(json_integer_value(json_object_get(c, "game")), other);
        cr_expect_str_eq(seed, other, "compared with another deal");
    }
    json_t *mates = json_object_get(last, "opponents");
    cr_assert_eq(json_array_size(mates), 2);
    if (strncmp(name, "ai:", 3) != 0)
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                cr_assert_neq(num(json_array_get(hist, a), "deal"),
                              num(json_array_get(hist, b), "deal"), "%s played a deal twice", name);
    json_decref(j);
}

static char engine_opt[300];

static void ladder_options(void)
{
    snprintf(engine_opt, sizeof engine_opt, "eng=%s engine --ai greedy", DDZ_BIN);
    const char *extra[] = {
        "--engine",    engine_opt, "--ladder-engine", "eng", "--ladder-ai",     "greedy",
        "--ladder-ai", "random",   "--ladder-time",   "3",   "--ladder-tables", "2",
        NULL};
    memcpy(serve_extra, extra, sizeof extra);
}

Test(serve_ladder, plays_ranks_survives_drops_and_restarts, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(300))
{
    char ta[80], tb[80];
    token_add("alpha", ta);
    token_add("beta", tb);
    ladder_options();
    server_start();
    proc a = {0}, b = {0};
    start_bridge(&a, "alpha", ta, "greedy");
    start_bridge(&b, "beta", tb, "random");

    /* it plays by itself, and the greedy players rise above the random */
    int64_t t0 = now_ms();
    json_t *j = wait_ladder(is_ranked, NULL, 60000, "greedy above random");
    cr_log_info("ranked after %lld ms, %g deals", (long long)(now_ms() - t0), num(j, "deals"));
    cr_assert_str_eq(json_string_value(json_object_get(j, "rules")), "caai");
    json_t *ps = json_object_get(j, "players");
    cr_assert_eq(json_array_size(ps), 5);
    for (size_t i = 1; i < json_array_size(ps); i++) /* ordered by rating */
        cr_assert_geq(num(json_array_get(ps, i - 1), "rating"),
                      num(json_array_get(ps, i), "rating"));
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        cr_assert_gt(num(p, "uncertainty"), 0);
        cr_assert_lt(num(p, "uncertainty"), 25.0 / 3);
        /* one game a seat of a deal, and those of the deal being played
         * (a hosted AI may hold several seats of it) */
        cr_assert_geq(num(p, "games"), num(p, "deals"));
        cr_assert_leq(num(p, "games"), num(p, "deals") + 6);
        cr_assert_eq(num(p, "faults"), 0, "%s faulted",
                     json_string_value(json_object_get(p, "name")));
    }
    json_decref(j);
    check_latest_deal("alpha");
    check_latest_deal("ai:greedy");
    int status;
    char *body = http_get("/api/ladder/nobody", &status);
    cr_expect_eq(status, 404);
    free(body);

    /* beta drops: it is taken out, the ladder goes on without it */
    j = get_json("/api/ladder");
    want w = {"beta", false, num(player(j, "beta"), "deals") - 1};
    json_decref(j);
    proc_kill(&b);
    j = wait_ladder(player_is, &w, 20000, "beta shown disconnected and idle");
    double deals = num(j, "deals");
    double beta_deals = num(player(j, "beta"), "deals");
    json_decref(j);
    j = wait_ladder(deals_over, &deals, 20000, "deals go on without beta");
    cr_assert_eq(num(player(j, "beta"), "deals"), beta_deals, "beta was seated while gone");
    json_decref(j);
    /* ... and comes back */
    start_bridge(&b, "beta2", tb, "random");
    w = (want){"beta", true, beta_deals};
    json_decref(wait_ladder(player_is, &w, 30000, "beta back and playing"));

    /* a restart keeps the ratings. The hosted players never stop playing,
     * so their deals may still grow between the last read and the stop;
     * the bots stop first, and their standings are final once they are
     * shown idle: those must come back exactly. */
    proc_kill(&a);
    proc_kill(&b);
    want idle[2] = {{"alpha", false, -1}, {"beta", false, -1}};
    for (int i = 0; i < 2; i++)
        json_decref(wait_ladder(player_is, &idle[i], 20000, "the bots shown gone and idle"));
    j = get_json("/api/ladder");
    cr_assert_eq(server_stop(), 0);
    const char *only[] = {"--ladder", NULL}; /* nobody plays: the stored standings stay */
    memcpy(serve_extra, only, sizeof only);
    server_start();
    json_t *k = get_json("/api/ladder");
    cr_assert_eq(json_array_size(json_object_get(k, "players")), 5);
    for (size_t i = 0; i < 5; i++) {
        json_t *before = json_array_get(json_object_get(j, "players"), i);
        const char *name = json_string_value(json_object_get(before, "name"));
        json_t *after = player(k, name);
        cr_assert_not_null(after, "%s is gone after the restart", name);
        cr_assert_geq(num(after, "deals"), num(before, "deals"));
        if (num(after, "deals") == num(before, "deals")) {
            cr_assert_float_eq(num(after, "rating"), num(before, "rating"), 1e-6, "%s", name);
            cr_assert_float_eq(num(after, "uncertainty"), num(before, "uncertainty"), 1e-6);
        }
        cr_assert_not(json_is_true(json_object_get(after, "connected")), "%s", name);
        if (strcmp(name, "alpha") == 0 || strcmp(name, "beta") == 0)
            cr_assert_eq(num(after, "deals"), num(before, "deals"), "%s played while gone", name);
    }
    json_decref(j);
    json_decref(k);
    check_latest_deal("beta");
    cr_assert_eq(server_stop(), 0);
    cr_assert_eq(count_descendants("engine --ai"), 0, "an engine process outlived the server");
}

/* A Botzone bot that bids 0 and answers every play request with 3 and 4 of
 * spades, which is no combination: an illegal play, charged at once. */
static const char bad_bot[] = "import json, sys\n"
                              "full = json.loads(sys.stdin.readline())\n"
                              "last = full['requests'][-1]\n"
                              "print(json.dumps({'response': 0 if 'bid' in last else [0, 4]}))\n";

static bool suspended(json_t *j, void *ctx)
{
    json_t *p = player(j, ctx);
    return p && json_is_string(json_object_get(p, "suspended"));
}

Test(serve_ladder, a_faulting_bot_is_suspended, .init = setup_no_server, .fini = teardown,
     .timeout = HANG(120))
{
    char tok[80];
    token_add("faulty", tok);
    snprintf(engine_opt, sizeof engine_opt, "eng=%s engine --ai greedy", DDZ_BIN);
    const char *extra[] = {
        "--engine",    engine_opt, "--ladder-engine", "eng", "--ladder-ai", "greedy",
        "--ladder-ai", "random",   "--ladder-time",   "3",   NULL};
    memcpy(serve_extra, extra, sizeof extra);
    server_start();
    char script[200], url[64], log[200];
    snprintf(script, sizeof script, "%s/bad.py", srv.dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fputs(bad_bot, f);
    fclose(f);
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", srv.port);
    snprintf(log, sizeof log, "%s/faulty.log", srv.dir);
    char *argv[] = {DDZ_BIN, "bridge",   "--url",     url,  "--token",
                    tok,     "--ladder", "--botzone", "--", "/usr/bin/python3",
                    script,  NULL};
    proc b = {0};
    spawn(&b, log, argv);
    json_t *j = wait_ladder(suspended, "faulty", 60000, "faulty suspended");
    json_t *p = player(j, "faulty");
    const char *why = json_string_value(json_object_get(p, "suspended"));
    cr_assert(strstr(why, "faulted in ") && strstr(why, "(last: illegal)"), "%s", why);
    cr_assert_gt(num(p, "faults"), num(p, "games") / 2);
    json_decref(j);
    /* it is told, and the bridge ends */
    cr_assert(proc_wait(&b, T(30000)), "the bridge did not end when released");
    char *out = slurp(log);
    cr_assert(strstr(out, "released: suspended: faulted in "), "%s", out);
    free(out);
    /* and it is not seated any more */
    j = get_json("/api/ladder");
    double games = num(player(j, "faulty"), "games");
    json_decref(j);
    double deals = 0;
    j = get_json("/api/ladder");
    deals = num(j, "deals");
    json_decref(j);
    json_decref(wait_ladder(deals_over, &deals, 20000, "the AIs play on"));
    j = get_json("/api/ladder");
    cr_assert_eq(num(player(j, "faulty"), "games"), games);
    json_decref(j);
    cr_assert_eq(server_stop(), 0);
}

/* ---- a bot that wants to win by any means (issue 23) ---- */

/* What a spy remembers: every hand it ever saw, as card sets. */
typedef struct spy {
    uint64_t seen[4096];
    int nseen;
    long long max_id; /* the highest game id it has read */
} spy;

static bool spy_saw(const spy *s, uint64_t hand)
{
    for (int i = 0; i < s->nseen; i++)
        if (s->seen[i] == hand)
            return true;
    return false;
}

static void spy_keep(spy *s, uint64_t hand)
{
    if (hand && !spy_saw(s, hand) && s->nseen < (int)(sizeof s->seen / sizeof s->seen[0]))
        s->seen[s->nseen++] = hand;
}

/* The three hands a record (spec §10) was dealt. */
static void record_hands(json_t *rec, uint64_t out[3])
{
    json_t *hands = json_object_get(rec, "hands");
    for (int s = 0; s < 3; s++) {
        out[s] = 0;
        json_t *h = json_array_get(hands, (size_t)s);
        for (size_t i = 0; i < json_array_size(h); i++)
            out[s] |= 1ull << json_integer_value(json_array_get(h, i));
    }
}

/* Reads every game the server will serve past the highest id the spy
 * knows (ids are handed out in order: the games of the tables that play
 * its deal beside it are the next ones), keeping every hand it finds.
 * Returns whether one of them is `mine`. */
static bool spy_probe(spy *s, uint64_t mine)
{
    bool leak = false;
    for (long long id = s->max_id > 8 ? s->max_id - 8 : 1; id <= s->max_id + 8; id++) {
        char path[64];
        snprintf(path, sizeof path, "/api/games/%lld", id);
        int status;
        char *body = http_get(path, &status);
        json_t *rec = status == 200 ? json_loads(body, 0, NULL) : NULL;
        free(body);
        if (!rec)
            continue;
        uint64_t h[3];
        record_hands(rec, h);
        for (int k = 0; k < 3; k++) {
            leak |= h[k] == mine;
            spy_keep(s, h[k]);
        }
        if (id > s->max_id)
            s->max_id = id;
        json_decref(rec);
    }
    return leak;
}

/* A ladder of two hosted AIs at `tables` tables, and "spy", a bot with a
 * token, enlisted in it. Returns the spy's client. */
static cli *spy_enlisted(const char *tables)
{
    char tok[80];
    token_add("spy", tok);
    const char *extra[] = {"--ladder-ai",     "greedy",        "--ladder-ai",
                           "random",          "--ladder-time", "3",
                           "--ladder-tables", tables,          NULL};
    memcpy(serve_extra, extra, sizeof extra);
    server_start();
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "spy");
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "spy",
                          "token", tok));
    cli_expect(c, DDZ_EVENT_WELCOME);
    cli_send(c, json_pack("{s:s, s:s}", "type", "enlist", "competition", "ladder"));
    cli_expect(c, DDZ_EVENT_ENLISTED);
    return c;
}

/* An `enlist` goes to a competition plug-in of the host (host.h): one
 * naming none is the ladder's when it runs and no tournament is
 * configured; one naming the tournament while none runs is told so; and a
 * bot enlisted in the ladder is refused the tournament (one competition at
 * a time), then may enlist in the ladder again. */
Test(serve_ladder, an_enlist_goes_to_its_competition, .init = setup_no_server, .fini = teardown,
     .timeout = HANG(60))
{
    char tok[80];
    token_add("router", tok);
    const char *extra[] = {"--ladder-ai", "greedy", "--ladder-ai", "random", NULL};
    memcpy(serve_extra, extra, sizeof extra);
    server_start();
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "router");
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "router",
                          "token", tok));
    cli_expect(c, DDZ_EVENT_WELCOME);
    cli_send(c, json_pack("{s:s, s:s}", "type", "enlist", "competition", "tournament"));
    const ddz_event_error *err = expect_error(c, DDZ_ENOTFOUND, DDZ_REQ_ENLIST);
    cr_assert(strstr(err->message, "no tournament"), "%s", err->message);
    cli_send(c, json_pack("{s:s}", "type", "enlist"));
    const ddz_event *e = cli_expect(c, DDZ_EVENT_ENLISTED);
    cr_assert_str_eq(e->enlisted.competition, "ladder");
    cli_send(c, json_pack("{s:s, s:s}", "type", "enlist", "competition", "tournament"));
    err = expect_error(c, DDZ_EPHASE, DDZ_REQ_ENLIST);
    cr_assert_str_eq(err->message, "you are enlisted in the ladder: one competition at a time");
    cli_send(c, json_pack("{s:s, s:s}", "type", "enlist", "competition", "ladder"));
    e = cli_expect(c, DDZ_EVENT_ENLISTED);
    cr_assert_str_eq(e->enlisted.competition, "ladder");
}

/* A ladder bot (a token, enlisted) that keeps every hand it sees: its own
 * at each game, every hand of each `over`, and every game it can read
 * from the API, before each game and at each of its turns. It must never
 * be dealt a hand it saw before, nor read its own hand of the game it is
 * playing anywhere. With the deal played three times at one table (the
 * ladder before issue 23), the second game of every deal gave it a hand
 * from the first one's `over`. */
Test(serve_ladder, a_bot_never_sees_a_hand_before_it_plays_it, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(180))
{
    cli *c = spy_enlisted("4");
    spy s = {0};
    int games = 0, probes = 0;
    int64_t deadline = now_ms() + T(120000);
    while (games < 6) {
        int64_t left = deadline - now_ms();
        cr_assert_gt(left, 0, "6 games not played within %d ms (%d played)", T(120000), games);
        const ddz_event *e = cli_next(c, (int)left);
        cr_assert_not_null(e, "the spy's connection closed:%s", tail_of(c));
        if (e->type == DDZ_EVENT_JOINED && e->joined.seat >= 0) {
            /* before the game: read what the API serves */
            spy_probe(&s, 0);
            probes++;
        } else if (e->type == DDZ_EVENT_GAME) {
            cr_assert(e->game.has_hand);
            cr_assert_not(spy_saw(&s, e->game.hand),
                          "game %d: the spy was dealt a hand it had seen before (%d hands seen)",
                          games + 1, s.nseen);
        } else if (e->type == DDZ_EVENT_TURN && my_turn(c, &e->turn)) {
            /* while playing: its own hand must be nowhere to read */
            cr_assert_not(spy_probe(&s, c->game->hand),
                          "game %d: the spy read its own hand in a game served during it",
                          games + 1);
            probes++;
            act(c, &e->turn);
        } else if (e->type == DDZ_EVENT_OVER) {
            for (int k = 0; k < 3; k++)
                spy_keep(&s, e->over.dealt[k]);
            if (e->over.game_id > s.max_id)
                s.max_id = e->over.game_id;
            games++;
        }
    }
    cr_log_info("the spy played %d games, probed the API %d times, saw %d hands", games, probes,
                s.nseen);
    cr_assert_geq(s.nseen, 3 * games, "it saw every hand of its own games at least");
    /* the stock of puzzles is made of games anyone may read at once: a
     * ladder deal's games are held while other tables play it */
    cr_assert_eq(metric("ddz_puzzle_games_total{result=\"offered\"}"), 0,
                 "a held game handed to the stock of puzzles");
    cli_free(c);
    cr_assert_eq(server_stop(), 0);
}

/* ---- the TV: a delayed broadcast of the published deals (watching) ---- */

/* The `tv` of GET /api/ladder names the game the watch page replays: a
 * game of the deal published last, never one of a deal being played. A
 * bot (the spy, a program, so in one table of every deal) asks at each of
 * its turns, as any watcher could: the game named is served at once by
 * its id alone (the page is not answered before the publication is
 * durable), it holds none of the spy's hand, its deal is not the one the
 * tables play, and with one deal at a time (two tables) it is the deal
 * just before: the newest published. Its players are named as in the
 * record, with their ratings. */
Test(serve_ladder, the_tv_names_the_newest_published_deal_never_a_live_one, .init = setup_no_server,
     .fini = teardown, .timeout = HANG(180))
{
    cli *c = spy_enlisted("2");
    int games = 0, looks = 0;
    long long last_deal = 0, last_game = 0;
    int changes = 0;
    int64_t deadline = now_ms() + T(120000);
    while (games < 6) {
        int64_t left = deadline - now_ms();
        cr_assert_gt(left, 0, "6 games not played within %d ms (%d played)", T(120000), games);
        const ddz_event *e = cli_next(c, (int)left);
        cr_assert_not_null(e, "the spy's connection closed:%s", tail_of(c));
        if (e->type == DDZ_EVENT_OVER) {
            games++;
            continue;
        }
        if (e->type != DDZ_EVENT_TURN || !my_turn(c, &e->turn))
            continue;
        json_t *j = get_json("/api/ladder");
        json_t *tv = json_object_get(j, "tv");
        /* the spy's deal is live: the ladder has rated every deal before it */
        json_t *tables = json_object_get(j, "tables");
        cr_assert_gt(json_array_size(tables), 0, "the spy's deal is listed");
        long long live = json_integer_value(json_object_get(json_array_get(tables, 0), "deal"));
        for (size_t k = 0; k < json_array_size(tables); k++)
            cr_assert_eq(json_integer_value(json_object_get(json_array_get(tables, k), "deal")),
                         live, "one deal at a time with two tables");
        if (live == 1) {
            cr_assert(json_is_null(tv), "nothing published yet, yet the TV names a game");
            json_decref(j);
            act(c, &e->turn);
            continue;
        }
        cr_assert(json_is_object(tv), "deal %lld is played: the TV names none", live);
        long long deal = json_integer_value(json_object_get(tv, "deal"));
        long long id = json_integer_value(json_object_get(tv, "game"));
        cr_assert_neq(deal, live, "the TV names the deal being played");
        cr_assert_eq(deal, live - 1, "the TV names deal %lld, the newest published is %lld", deal,
                     live - 1);
        cr_assert_eq(json_integer_value(json_object_get(j, "deals")), deal,
                     "every deal up to the TV's is rated, none after it");
        json_t *table = json_object_get(tv, "table");
        cr_assert(json_integer_value(table) >= 1 &&
                  json_integer_value(table) <= json_integer_value(json_object_get(tv, "tables")));
        /* served at once by its id alone, and none of it is the spy's */
        char path[64];
        snprintf(path, sizeof path, "/api/games/%lld", id);
        json_t *rec = get_json(path); /* asserts 200: no retry */
        uint64_t h[3];
        record_hands(rec, h);
        for (int k = 0; k < 3; k++) {
            cr_assert_neq(h[k], c->game->hand, "the TV's game holds the spy's live hand");
            const char *n = json_string_value(json_array_get(json_object_get(rec, "names"), k));
            const char *p = json_string_value(json_array_get(json_object_get(tv, "players"), k));
            cr_assert(n && p && strcmp(n, p) == 0, "seat %d: the record says %s, the TV %s", k,
                      n ? n : "(none)", p ? p : "(none)");
            cr_assert(json_is_number(json_array_get(json_object_get(tv, "ratings"), k)));
            cr_assert(json_is_number(json_array_get(json_object_get(tv, "uncertainties"), k)));
        }
        json_decref(rec);
        cr_assert_geq(deal, last_deal, "the TV went back from deal %lld to %lld", last_deal, deal);
        changes += id != last_game && last_game != 0;
        last_deal = deal, last_game = id;
        looks++;
        json_decref(j);
        act(c, &e->turn);
    }
    cr_log_info("the spy looked at the TV %d times, saw it move on %d times", looks, changes);
    cr_assert_geq(looks, 3, "the TV was looked at during the spy's games");
    cr_assert_geq(changes, 1, "the TV moved on to a newer deal");
    cli_free(c);
    cr_assert_eq(server_stop(), 0);
}
