/* test_serve_rated.c - rated play on a served `ddz serve` (SPEC §15,
 * service/server/rated.h, room_rated.h, rated_games.h): a guest's rated
 * quick play is refused; one person waits, is seated with two different
 * rated hosted AIs after the fill wait, plays the game out and is told the
 * rating it moved (and /api/players says so, the game public); three
 * people waiting share one table; a rated room refuses a guest, an engine,
 * an AI twice and a fill; a person who leaves a rated game is rated as
 * having lost it. The accounts and their sessions are made in the
 * database before the server starts. test_serve_rated_pg.c runs the same
 * tests with `--db postgres://...`. */
#ifndef RATED_PG
#define RATED_PG 0
#endif
#include "service/serve_harness.h"

#include "service/store/store.h"

#if RATED_PG
/* test_serve_rated_pg.c: the same tests on a PostgreSQL database of their own */
static void rated_setup(void)
{
    setup_no_server();
    pg_db_create(srv.db, sizeof srv.db);
}

static void rated_teardown(void)
{
    teardown();
    pg_db_drop();
}
#else
#define rated_setup setup_no_server
#define rated_teardown teardown
#endif

TestSuite(rated, .init = rated_setup, .fini = rated_teardown);

static char sessions[4][DDZ_SESSION_HEX + 1];
static const char *const names[4] = {"Ann", "Bo", "Cy", "Di"};

/* Makes accounts names[0..n) and a session each, then starts the server
 * with `fill_s` for --rated-fill-s. */
static void start(int n, const char *fill_s)
{
    char err[256] = "";
    ddz_store *s = ddz_store_open(srv.db, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    for (int i = 0; i < n; i++) {
        int64_t id = 0;
        cr_assert_eq(
            ddz_store_account_add(s, names[i], "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", &id),
            0);
        cr_assert_eq(ddz_store_session_new(s, id, sessions[i]), 0);
    }
    ddz_store_close(s);
    serve_extra[0] = "--rated-fill-s";
    serve_extra[1] = fill_s;
    serve_extra[2] = NULL;
    server_start();
}

/* Says hello as account i. */
static cli *person(int i)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s", names[i]);
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "x",
                          "session", sessions[i]));
    const ddz_event *w = cli_expect(c, DDZ_EVENT_WELCOME);
    cr_assert_str_eq(w->welcome.account, names[i]);
    return c;
}

static void rated_quick(cli *c)
{
    cli_send(c, json_pack("{s:s, s:b, s:s}", "type", "quick", "rated", 1, "rules", "caai"));
}

/* Expects `queued` and then a seat at a rated table with `people`
 * people (the rest rated hosted AIs, each once); returns the room id
 * (static per call). */
static const char *seated(cli *c, int fill_s, int people)
{
    const ddz_event *q = cli_expect(c, DDZ_EVENT_QUEUED);
    cr_expect_str_eq(q->queued.rules, "caai");
    cr_expect_eq(q->queued.rating, 1500, "a newcomer's rating");
    cr_expect_eq(q->queued.fill_s, fill_s);
    int64_t deadline = now_ms() + T(10000) + fill_s * 1000;
    const ddz_event *e;
    while ((e = cli_next(c, (int)(deadline - now_ms()))) && e->type != DDZ_EVENT_JOINED)
        ;
    cr_assert_not_null(e, "%s: not seated:%s", c->name, tail_of(c));
    cr_assert_geq(e->joined.seat, 0);
    static char room[4][DDZ_EVENT_ROOM_ID_MAX];
    static int k;
    char *id = room[k++ % 4];
    snprintf(id, DDZ_EVENT_ROOM_ID_MAX, "%s", e->joined.room);
    const ddz_event_state *st = &cli_expect(c, DDZ_EVENT_STATE)->state;
    cr_expect(st->options.rated, "a rated table says so");
    cr_expect_eq(st->games, 1);
    cr_expect(st->options.priv, "the queue seats it, the lobby does not list it");
    /* the others may not have sat yet when this state is sent: every seat
     * is a person, a rated AI (each once) or still empty */
    int ais = 0;
    for (int i = 0; i < 3; i++) {
        const ddz_event_player *pl = &st->players[i];
        if (!pl->seated || pl->kind != DDZ_EVENT_AI)
            continue;
        ais++;
        cr_expect(strcmp(pl->name, "ai:strong") == 0 || strcmp(pl->name, "ai:greedy") == 0 ||
                      strcmp(pl->name, "ai:random") == 0,
                  "%s", pl->name);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(pl->name, st->players[j].name, "an AI is one seat");
    }
    cr_expect_eq(ais, 3 - people);
    return id;
}

/* The next `rated` event of `c`. */
static ddz_event_rated rated_of(cli *c)
{
    return cli_expect(c, DDZ_EVENT_RATED)->rated;
}

static json_t *get_json(const char *path)
{
    int status = 0;
    char *body = http_get(path, &status);
    cr_assert_eq(status, 200, "GET %s: %d %s", path, status, body ? body : "");
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j);
    free(body);
    return j;
}

/* Rated caai games of account `name`, as its profile says. */
static long long games_of(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/api/players/%s", name);
    json_t *j = get_json(path);
    long long n = json_integer_value(
        json_object_get(json_object_get(json_object_get(j, "ratings"), "caai"), "games"));
    json_decref(j);
    return n;
}

Test(rated, a_guest_is_refused)
{
    start(0, "1");
    cli *g = cli_hello("guest");
    rated_quick(g);
    const ddz_event_error *e = expect_error(g, DDZ_EAUTH, DDZ_REQ_QUICK);
    cr_expect_str_eq(e->message, "rated play needs an account");
    cli_send(g, json_pack("{s:s, s:b}", "type", "quick", "rated", 1)); /* the default rule set */
    expect_error(g, DDZ_EAUTH, DDZ_REQ_QUICK);
}

/* After the fill wait (1 s here) one person plays two different rated
 * AIs; the game is public (no key), and the person is told the rating it
 * moved, which the profile shows. `leave` while waiting stops the wait. */
Test(rated, one_person_plays_two_rated_ais_and_is_told)
{
    start(1, "1");
    cli *ann = person(0);
    cli_send(ann, json_pack("{s:s, s:b, s:s}", "type", "quick", "rated", 1, "rules", "nonesuch"));
    expect_error(ann, DDZ_ERULESET, DDZ_REQ_QUICK);

    /* waiting, then leaving: no table comes */
    rated_quick(ann);
    cli_expect(ann, DDZ_EVENT_QUEUED);
    cli_send(ann, json_pack("{s:s}", "type", "leave"));
    const ddz_event *j = cli_expect(ann, DDZ_EVENT_JOINED);
    cr_expect_str_eq(j->joined.room, "");
    const ddz_event *e = cli_next(ann, T(2500));
    cr_expect(e == NULL, "nothing after leaving the queue: %s", e ? show(e) : "");

    rated_quick(ann);
    seated(ann, 1, 1);
    ann->act = true;
    ann->bidder = true;
    cli *cs[1] = {ann};
    run(cs, 1, NULL, NULL, T(120000));
    cr_assert_not_null(ann->over);
    cr_expect_str_eq(ann->over->game_key, "", "a rated game is public");
    long long id = ann->over->game_id;
    ddz_event_rated r = rated_of(ann);
    cr_expect_eq(r.game, id);
    cr_expect_str_eq(r.rules, "caai");
    cr_expect_eq(r.before, 1500);
    cr_expect_neq(r.rating, 1500, "a game moves the rating");
    cr_expect_lt(r.deviation, 333.4);
    cr_expect_eq(r.games, 1);
    cr_expect_not(r.forfeit);
    cr_expect_eq(games_of("Ann"), 1);
    json_t *g = fetch_game(id, "");
    cr_expect_not_null(g, "the game is read without a key");
    json_decref(g);
}

/* Three people waiting at once share one table, all people; an account
 * waits once (a second connection of it is refused). */
Test(rated, three_people_share_one_table)
{
    start(3, "60");
    cli *cs[3];
    cs[0] = person(0);
    rated_quick(cs[0]);
    cli *again = person(0);
    rated_quick(again);
    expect_error(again, DDZ_EPHASE, DDZ_REQ_QUICK);
    for (int i = 1; i < 3; i++) {
        cs[i] = person(i);
        rated_quick(cs[i]);
    }
    const char *room[3];
    for (int i = 0; i < 3; i++)
        room[i] = seated(cs[i], 60, 3);
    cr_expect_str_eq(room[0], room[1]);
    cr_expect_str_eq(room[1], room[2]);
    for (int i = 0; i < 3; i++)
        cs[i]->act = true;
    cs[0]->bidder = true;
    run(cs, 3, NULL, NULL, T(60000));
    double before = 0, after = 0;
    for (int i = 0; i < 3; i++) {
        ddz_event_rated r = rated_of(cs[i]);
        cr_expect_eq(r.games, 1);
        cr_expect_not(r.forfeit);
        before += r.before;
        after += r.rating;
    }
    cr_expect_eq(before, 3 * 1500);
    cr_expect_neq(after, before);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(games_of(names[i]), 1, "%s", names[i]);
}

/* A closed connection waits no more: its account is not matched with the
 * others, and it may queue again at once from a new connection. */
Test(rated, a_closed_connection_leaves_the_queue)
{
    start(3, "60");
    cli *gone = person(0);
    rated_quick(gone);
    cli_expect(gone, DDZ_EVENT_QUEUED);
    cli_close(gone);
    cli *bo = person(1), *cy = person(2);
    rated_quick(bo);
    rated_quick(cy);
    cli_expect(bo, DDZ_EVENT_QUEUED);
    cli_expect(cy, DDZ_EVENT_QUEUED);
    const ddz_event *e = cli_next(bo, T(1500));
    cr_expect(e == NULL, "no table with the one who left: %s", e ? show(e) : "");
    cli *ann = person(0);
    rated_quick(ann); /* not EPHASE: the old wait is gone */
    const char *room = seated(ann, 60, 3);
    const ddz_event *j = cli_expect(bo, DDZ_EVENT_JOINED);
    cr_expect_str_eq(j->joined.room, room);
    j = cli_expect(cy, DDZ_EVENT_JOINED);
    cr_expect_str_eq(j->joined.room, room);
}

static json_t *seats(const char *a, const char *b, const char *c)
{
    return json_pack("[s?, s?, s?]", a, b, c);
}

static void create_rated(cli *c, json_t *o)
{
    cli_send(c, json_pack("{s:s, s:o, s:i, s:b}", "type", "create", "options", o, "seat", 0,
                          "rated", 1));
}

/* A rated room: people signed in, rated AIs once each, no engine, no
 * bots, no fill; a guest may not sit. */
Test(rated, a_rated_room_refuses_a_guest_and_an_engine)
{
    start(2, "20");
    cli *g = cli_hello("guest");
    create_rated(g, json_pack("{}"));
    expect_error(g, DDZ_EAUTH, DDZ_REQ_CREATE);

    cli *ann = person(0);
    create_rated(ann, json_pack("{s:o}", "seats", seats(NULL, "engine:testbot", NULL)));
    expect_error(ann, DDZ_EFIELD, DDZ_REQ_CREATE);
    create_rated(ann, json_pack("{s:o}", "seats", seats(NULL, "ai:strong", "ai:strong")));
    expect_error(ann, DDZ_EFIELD, DDZ_REQ_CREATE);
    create_rated(ann, json_pack("{s:s}", "fill", "ai:greedy"));
    expect_error(ann, DDZ_EFIELD, DDZ_REQ_CREATE);
    create_rated(ann, json_pack("{s:b}", "bots", 1));
    expect_error(ann, DDZ_EFIELD, DDZ_REQ_CREATE);

    create_rated(
        ann, json_pack("{s:s, s:o}", "name", "Friends", "seats", seats(NULL, NULL, "ai:greedy")));
    const char *room = cli_expect(ann, DDZ_EVENT_JOINED)->joined.room;
    char id[DDZ_EVENT_ROOM_ID_MAX];
    snprintf(id, sizeof id, "%s", room);
    cr_expect(cli_expect(ann, DDZ_EVENT_STATE)->state.options.rated);

    cli_send(g, json_pack("{s:s}", "type", "list"));
    const ddz_event_rooms *l = &cli_expect(g, DDZ_EVENT_ROOMS)->rooms;
    cr_assert_eq(l->nrooms, 1);
    cr_expect(l->rooms[0].rated, "the lobby says it is rated");

    cli_send(g, json_pack("{s:s, s:s}", "type", "join", "room", id));
    const ddz_event_error *e = expect_error(g, DDZ_EAUTH, DDZ_REQ_JOIN);
    cr_expect_str_eq(e->message, "rated play needs an account");
    cli *bo = person(1);
    cli_join(bo, id, 1);
}

/* A person who leaves a rated game mid-game is rated as having lost it:
 * told so (forfeit), and the profile counts the game. */
Test(rated, a_leaver_is_counted_as_a_loss)
{
    start(1, "1");
    cli *ann = person(0);
    rated_quick(ann);
    seated(ann, 1, 1);
    cli_expect(ann, DDZ_EVENT_TURN); /* the game is on */
    cli_send(ann, json_pack("{s:s}", "type", "leave"));
    ddz_event_rated r = rated_of(ann);
    cr_expect(r.forfeit);
    cr_expect_eq(r.before, 1500);
    cr_expect_lt(r.rating, 1500, "a loss");
    cr_expect_eq(r.games, 1);
    cr_expect_eq(games_of("Ann"), 1);
}
