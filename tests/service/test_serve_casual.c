/* test_serve_casual.c - casual play on a real `ddz serve` (issue 15):
 * auto-play (托管) instead of a fault in casual rooms, the "I'm back"
 * request, hints, quick phrases and a player's own games.
 *
 * Competition rooms (custody "fault") keep the spec §6 timeout fault:
 * test_serve.c, timeout_is_a_fault and custody_fault, and here a custody
 * request refused there.
 */
#include "serve_harness.h"
#include "service/store/store.h"

TestSuite(casual, .init = setup, .fini = teardown, .timeout = HANG(300));

/* ---- auto-play ---- */

/* Stops at `ctx`'s own play turn after the first trick's plays. */
static bool my_play_turn_casual(cli *c, const ddz_event *e, void *ctx)
{
    return c == ctx && e->type == DDZ_EVENT_TURN && my_turn(c, &e->turn) &&
           e->turn.action == DDZ_EVENT_ACT_PLAY && c->played >= 3;
}

typedef struct custody_log {
    int seat;        /* the seat watched */
    int on, off;     /* seat events with custody true / false for it */
    bool connected;  /* `connected` in the last custody: true one */
    int64_t first;   /* when the first custody: true arrived */
    bool stop_on_on; /* stop run() at the first custody: true */
} custody_log;

static bool log_custody(cli *c, const ddz_event *e, void *ctx)
{
    (void)c;
    custody_log *l = ctx;
    if (e->type != DDZ_EVENT_SEAT || e->seat.seat != l->seat || !e->seat.player.seated)
        return false;
    if (e->seat.player.custody) {
        if (!l->on++)
            l->first = now_ms();
        l->connected = e->seat.player.connected;
        return l->stop_on_on;
    }
    l->off++;
    return false;
}

static bool wests_turn(cli *c, const ddz_event *e, void *ctx)
{
    return c == ctx && e->type == DDZ_EVENT_TURN && e->turn.seat == 0;
}

/* A casual room (the default): West never acts. Its time runs out, and
 * instead of the fault (−700 before the leftover) the server moves for it
 * once (spec §14: test_serve_absence.c); the second clock in a row a
 * hosted AI takes the seat over, West still connected and told so; the
 * game ends normally, and West's seat stays on auto-play in the next game
 * (a room with no pause: no ready step) until West sends `custody` off
 * ("I'm back"), after which its turns carry `legal` again. */
Test(casual, timeout_puts_the_seat_on_auto_play)
{
    cli *c[3];
    c[0] = cli_hello("West");
    c[0]->act = false;
    const char *room = cli_create(c[0], opts(2, 0, 3), 0);
    c[1] = cli_hello("South");
    c[1]->bidder = true; /* a landlord: West has a play turn after its bid */
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    int64_t t0 = now_ms();
    custody_log l = {.seat = 0};
    cr_assert_eq(run(c, 3, log_custody, &l, T(30000)), -1);
    cr_assert_eq(l.on, 3, "custody: true seen %d times (once per client)", l.on);
    cr_assert(l.connected, "West is connected: auto-play, not a drop");
    cr_assert_geq(l.first - t0, 5500, "the AI came before two 3 s clocks ran out");
    const ddz_event_over *over = c[0]->over;
    check_over(over);
    cr_assert_lt(over->fault_seat, 0, "a timeout in a casual room is no fault: %s",
                 show_over(over));
    cr_assert(over_equal(over, c[1]->over));
    check_record(over);

    /* game 2: West is still on auto-play (no turn of its own) ... */
    reset_over(c, 3);
    c[1]->bidder = true; /* a landlord: game 2 has a play phase, with turns for West */
    cr_assert_eq(run(c, 3, wests_turn, c[0], T(30000)), 0, "West had no turn in game 2");
    const ddz_event *t = ddz_wsc_event(c[0]->ws, ddz_wsc_nread(c[0]->ws) - 1);
    cr_assert_eq(c[0]->game->game, 2);
    cr_assert_not(t->turn.has_legal, "a turn with legal plays while on auto-play: %s", show(t));
    /* ... until it says it is back (or acts: test_serve_absence.c) */
    cli_send(c[0], json_pack("{s:s, s:b}", "type", "custody", "on", 0));
    l = (custody_log){.seat = 0};
    c[0]->act = true;
    bool own_turn = false;
    cr_assert_eq(run(c, 3, log_custody, &l, T(30000)), -1);
    cr_assert_eq(l.off, 3, "custody: false seen %d times", l.off);
    for (size_t i = 0; i < ddz_wsc_nread(c[0]->ws); i++) {
        const ddz_event *e = ddz_wsc_event(c[0]->ws, i);
        if (e && e->type == DDZ_EVENT_GAME)
            own_turn = false; /* count only game 2's turns */
        if (e && e->type == DDZ_EVENT_TURN && e->turn.seat == 0 && e->turn.has_legal)
            own_turn = true;
    }
    cr_assert(own_turn, "West back: its turns carry legal plays again");
    cr_assert_lt(c[0]->over->fault_seat, 0, "%s", show_over(c[0]->over));
    check_record(c[0]->over);

    /* a custody request with no AI playing the seat: refused */
    cli_send(c[0], json_pack("{s:s, s:b}", "type", "custody", "on", 0));
    expect_error(c[0], DDZ_EPHASE, DDZ_REQ_CUSTODY);
}

/* A player who drops on its turn is not charged either: when its time runs
 * out (long before the 60 s grace) a hosted AI plays the seat; coming back
 * takes it back. */
Test(casual, drop_on_turn_is_auto_play)
{
    cli *c[3];
    c[0] = cli_hello("West");
    const char *room = cli_create(c[0], opts(1, 0, 3), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    c[2]->bidder = true;
    cli_join(c[2], room, 2);
    /* East bids 3 and leads: stop at East's own turn, then drop */
    cr_assert_eq(run(c, 3, my_play_turn_casual, c[2], T(30000)), 2);
    char resume[80];
    snprintf(resume, sizeof resume, "%s", c[2]->resume);
    cli_free(c[2]);
    int64_t t0 = now_ms();
    custody_log l = {.seat = 2, .stop_on_on = true};
    cr_assert_geq(run(c, 2, log_custody, &l, T(15000)), 0, "no auto-play after the drop");
    cr_assert_not(l.connected, "East is gone");
    cr_assert_lt(l.first - t0, BELOW(10000, 60000), "auto-play waited for the 60 s grace");
    /* East comes back: the seat is its own again */
    cli *back = cli_connect();
    snprintf(back->name, sizeof back->name, "East again");
    cli_send(back, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "East",
                             "resume", resume));
    cli_expect(back, DDZ_EVENT_WELCOME);
    const ddz_event *st = cli_expect(back, DDZ_EVENT_STATE);
    cr_assert_eq(st->state.seat, 2);
    cr_assert_not(st->state.players[2].custody, "East back, its seat its own: %s", show(st));
    c[2] = back;
    cr_assert_eq(run(c, 3, NULL, NULL, T(30000)), -1);
    cr_assert_lt(c[0]->over->fault_seat, 0, "a drop in a casual room is no fault: %s",
                 show_over(c[0]->over));
    cr_assert_eq(c[0]->over->landlord, 2);
    check_record(c[0]->over);
}

/* Asking for auto-play, and where it is refused. */
Test(casual, custody_request)
{
    /* a competition room: no auto-play on request */
    cli *f = cli_hello("Fair");
    json_t *o = opts(1, 0, 30);
    json_object_set_new(o, "custody", json_string("fault"));
    json_object_set_new(o, "fill", json_string("ai:greedy"));
    cli_create(f, o, 0);
    cli_send(f, json_pack("{s:s, s:b}", "type", "custody", "on", 1));
    expect_error(f, DDZ_EPHASE, DDZ_REQ_CUSTODY);

    /* a casual room: the seat goes to the AI, which plays the whole game */
    cli *c = cli_hello("Lazy");
    c->act = false;
    o = opts(1, 0, 30);
    json_object_set_new(o, "fill", json_string("ai:greedy"));
    cli_create(c, o, 0);
    cli_expect(c, DDZ_EVENT_GAME);
    cli_send(c, json_pack("{s:s, s:b}", "type", "custody", "on", 1));
    custody_log l = {.seat = 0};
    int64_t t0 = now_ms();
    cr_assert_eq(run(&c, 1, log_custody, &l, T(30000)), -1);
    cr_assert_eq(l.on, 1);
    cr_assert(l.connected);
    cr_assert_lt(now_ms() - t0, BELOW(25000, 30000),
                 "the AI played at once, not at the 30 s clock");
    cr_assert_lt(c->over->fault_seat, 0, "%s", show_over(c->over));
    check_record(c->over);
}

/* ---- hints ---- */

/* Hints go to the seat to move only, for plays, from its own cards, with
 * the first one its client's legal plays hold; at most 4 in 5 s. */
Test(casual, hint)
{
    cli *c[3];
    c[0] = cli_hello("West");
    c[0]->bidder = true;
    const char *room = cli_create(c[0], opts(1, 0, 30), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    /* bidding: West is asked first; a hint is refused for a bid */
    const ddz_event_turn *t = NULL;
    for (;;) {
        const ddz_event *e = cli_expect(c[0], DDZ_EVENT_TURN);
        if (e->turn.seat == 0) {
            t = &e->turn;
            break;
        }
    }
    cr_assert_eq(t->action, DDZ_EVENT_ACT_BID);
    cli_send(c[0], json_pack("{s:s, s:s}", "type", "hint", "id", "b"));
    expect_error(c[0], DDZ_EPHASE, DDZ_REQ_HINT);
    /* South asks out of turn */
    cli_send(c[1], json_pack("{s:s}", "type", "hint"));
    expect_error(c[1], DDZ_ETURN, DDZ_REQ_HINT);
    /* West bids 3 and leads */
    act_pending(c[0]);
    const ddz_event *e;
    do
        e = cli_expect(c[0], DDZ_EVENT_TURN);
    while (!(e->turn.seat == 0 && e->turn.action == DDZ_EVENT_ACT_PLAY));
    t = &e->turn;
    cr_assert(t->has_legal);
    uint32_t seq = t->seq;
    ddz_cards hand = c[0]->hand;
    cr_assert_eq(ddz_cards_count(hand), 20);
    cli_send(c[0], json_pack("{s:s}", "type", "hint"));
    const ddz_event *h = cli_expect(c[0], DDZ_EVENT_HINT);
    cr_assert_eq(h->hint.seq, seq);
    cr_assert_geq(h->hint.n, 1, "a leader always has a hint");
    bool bombed = false;
    for (size_t i = 0; i < h->hint.n; i++) {
        cr_assert_eq(h->hint.plays[i] & ~hand, 0, "hint %zu names cards not in hand", i);
        bool legal = false;
        for (size_t k = 0; k < t->nlegal; k++)
            legal |= t->legal[k] == h->hint.plays[i];
        cr_assert(legal, "hint %zu is not among the legal plays", i);
        /* bombs and the rocket stay whole (ai/greedy.h): no hint holds
         * part of a four West holds, or one joker of the two; the bombs
         * and the rocket come after every other play. (The deal is the
         * room's: ai/test_greedy.c has the hands made for it.) */
        ddz_cards p = h->hint.plays[i];
        int size = ddz_cards_count(p);
        for (int r = 0; r <= DDZ_RANK_BJ; r++) {
            ddz_cards held = r >= DDZ_RANK_SJ ? ddz_cards_of_rank(hand, DDZ_RANK_SJ) |
                                                    ddz_cards_of_rank(hand, DDZ_RANK_BJ)
                                              : ddz_cards_of_rank(hand, r);
            int whole = r >= DDZ_RANK_SJ ? 2 : 4, used = ddz_cards_count(p & held);
            cr_assert(ddz_cards_count(held) < whole || used == 0 ||
                          (used == whole && size == whole),
                      "hint %zu spends a bomb or the rocket: %#llx", i, (unsigned long long)p);
        }
        int type = ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(p)).type;
        bool bomb = type == DDZ_BOMB || type == DDZ_ROCKET;
        cr_assert(bomb || !bombed, "hint %zu: a play that is no bomb after a bomb", i);
        bombed |= bomb;
    }
    /* nobody else heard it */
    cli_send(c[1], json_pack("{s:s, s:b}", "type", "autopass", "on", 1));
    cli_expect(c[1], DDZ_EVENT_STATE);
    for (size_t i = 0; i < ddz_wsc_nread(c[1]->ws); i++) {
        const ddz_event *x = ddz_wsc_event(c[1]->ws, i);
        cr_assert(!x || x->type != DDZ_EVENT_HINT, "South received West's hint");
    }
    /* the rate limit: 4 in 5 s */
    for (int i = 0; i < 3; i++) {
        cli_send(c[0], json_pack("{s:s}", "type", "hint"));
        cli_expect(c[0], DDZ_EVENT_HINT);
    }
    cli_send(c[0], json_pack("{s:s}", "type", "hint"));
    expect_error(c[0], DDZ_ERATE, DDZ_REQ_HINT);
}

/* ---- quick phrases ---- */

/* A phrase reaches every player and spectator of the table, with the seat;
 * at most 3 in 10 s; numbers outside the list and spectators are refused. */
Test(casual, phrases)
{
    cli *c[3];
    c[0] = cli_hello("West");
    const char *room = cli_create(c[0], opts(1, 0, 30), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    cli *w = cli_hello("Watcher");
    cli_send(w, json_pack("{s:s, s:s}", "type", "spectate", "room", room));
    cli_expect(w, DDZ_EVENT_STATE);
    for (int k = 0; k < 3; k++) {
        cli_send(c[1], json_pack("{s:s, s:i}", "type", "phrase", "phrase", 3 + k));
        cli *to[] = {c[0], c[1], w};
        for (int i = 0; i < 3; i++) {
            const ddz_event *e = cli_expect(to[i], DDZ_EVENT_PHRASE);
            cr_assert(e->phrase.seat == 1 && e->phrase.phrase == 3 + k, "%s", show(e));
        }
    }
    cli_send(c[1], json_pack("{s:s, s:i}", "type", "phrase", "phrase", 0));
    expect_error(c[1], DDZ_ERATE, DDZ_REQ_PHRASE);
    /* West's budget is its own */
    cli_send(c[0], json_pack("{s:s, s:i}", "type", "phrase", "phrase", 11));
    const ddz_event *e = cli_expect(w, DDZ_EVENT_PHRASE);
    cr_assert(e->phrase.seat == 0 && e->phrase.phrase == 11, "%s", show(e));
    _Static_assert(DDZ_PHRASES == 12, "the phrase below is one past the list");
    cli_send_bad(c[0], "{\"type\":\"phrase\",\"phrase\":12}");
    expect_error(c[0], DDZ_EFIELD, DDZ_REQ_PHRASE);
    cli_send(w, json_pack("{s:s, s:i}", "type", "phrase", "phrase", 1));
    expect_error(w, DDZ_EPHASE, DDZ_REQ_PHRASE);
    /* nothing but the three phrases and West's reached South */
    int n = 0;
    for (size_t i = 0; i < ddz_wsc_nread(c[1]->ws); i++) {
        const ddz_event *x = ddz_wsc_event(c[1]->ws, i);
        n += x && x->type == DDZ_EVENT_PHRASE;
    }
    cr_assert_eq(n, 3, "South read %d phrases so far", n);
}

/* ---- my games ---- */

/* Connects and says hello with the browser key `me`. */
static cli *cli_hello_me(const char *name, const char *me)
{
    cli *c = cli_connect();
    snprintf(c->name, sizeof c->name, "%s", name);
    cli_send(c, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", name, "me",
                          me));
    cli_expect(c, DDZ_EVENT_WELCOME);
    return c;
}

/* GET /api/my-games with `me` as the bearer (NULL: no header); returns the
 * parsed body and sets *status. */
static json_t *my_games(const char *me, int *status)
{
    char hdr[128] = "";
    if (me)
        snprintf(hdr, sizeof hdr, "Authorization: Bearer %s\r\n", me);
    char *body = NULL;
    int rc = ddz_wsc_http_get_with("127.0.0.1", srv.port, "/api/my-games", me ? hdr : NULL, T(5000),
                                   status, &body);
    cr_assert_eq(rc, 0, "GET /api/my-games failed (%d)", rc);
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j, "not JSON: %s", body);
    free(body);
    return j;
}

/* My games lists the games a browser's key played, with their results and
 * the link to their replay (a private room's under its key), and nobody
 * else's; no key or a malformed one is refused. */
Test(casual, my_games)
{
    static const char alice[] = "00112233445566778899aabbccddeeff";
    static const char bob[] = "ffeeddccbbaa99887766554433221100";
    int status;
    json_t *j = my_games(alice, &status);
    cr_assert_eq(status, 200);
    cr_assert_eq(json_array_size(json_object_get(j, "games")), 0, "a new key has played nothing");
    json_decref(j);

    /* Alice and Bob at one table with an AI, two games */
    cli *c[2];
    c[0] = cli_hello_me("Alice", alice);
    json_t *o = opts(2, 0, 30);
    json_object_set_new(o, "private", json_true());
    json_object_set_new(o, "seats", json_pack("[n, n, s]", "ai:greedy"));
    const char *room = cli_create(c[0], o, 0);
    c[1] = cli_hello_me("Bob", bob);
    cli_join(c[1], room, 1);
    cr_assert_eq(run(c, 2, NULL, NULL, T(30000)), -1);
    const ddz_event_over first = *c[0]->over;
    reset_over(c, 2);
    cr_assert_eq(run(c, 2, NULL, NULL, T(30000)), -1);
    const ddz_event_over *second = c[0]->over;
    /* the store writes on its own thread: wait for both */
    int64_t deadline = now_ms() + T(5000);
    json_t *games;
    for (;;) {
        j = my_games(alice, &status);
        cr_assert_eq(status, 200);
        games = json_object_get(j, "games");
        if (json_array_size(games) == 2)
            break;
        cr_assert_lt(now_ms(), deadline, "Alice's games were not listed: %zu",
                     json_array_size(games));
        json_decref(j);
        usleep(20000);
    }
    cr_assert_eq(json_integer_value(json_object_get(j, "max")), DDZ_STORE_MINE_MAX);
    /* newest first, each with what the over said */
    const ddz_event_over *overs[2] = {second, &first};
    for (size_t i = 0; i < 2; i++) {
        json_t *g = json_array_get(games, i);
        cr_assert_eq(json_integer_value(json_object_get(g, "id")), overs[i]->game_id);
        cr_assert_str_eq(json_string_value(json_object_get(g, "key")), overs[i]->game_key,
                         "a private room's game comes with its key");
        cr_assert_str_eq(json_string_value(json_object_get(g, "room")), room);
        cr_assert_eq(json_integer_value(json_object_get(g, "seat")), 0);
        cr_assert_str_eq(json_string_value(json_array_get(json_object_get(g, "names"), 1)), "Bob");
        json_t *sc = json_object_get(g, "scores");
        for (int s = 0; s < 3; s++)
            cr_assert_eq(json_number_value(json_array_get(sc, s)), overs[i]->scores[s]);
        json_t *ll = json_object_get(g, "landlord");
        cr_assert_eq(json_is_null(ll) ? -1 : (int)json_integer_value(ll), overs[i]->landlord);
        /* the replay link works */
        json_t *rec = fetch_game(overs[i]->game_id, overs[i]->game_key);
        json_decref(rec);
    }
    json_decref(j);
    /* Bob sees the same games from his seat */
    j = my_games(bob, &status);
    games = json_object_get(j, "games");
    cr_assert_eq(json_array_size(games), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(games, 0), "seat")), 1);
    json_decref(j);
    /* someone else: nothing; no key, a malformed one: refused */
    j = my_games("0123456789abcdef0123456789abcdef", &status);
    cr_assert_eq(status, 200);
    cr_assert_eq(json_array_size(json_object_get(j, "games")), 0, "another key sees nothing");
    json_decref(j);
    j = my_games(NULL, &status);
    cr_assert_eq(status, 401);
    json_decref(j);
    j = my_games("0011223344556677", &status);
    cr_assert_eq(status, 401);
    json_decref(j);
    /* a hello with a malformed key is refused */
    cli *bad = cli_connect();
    cli_send_bad(bad, "{\"type\":\"hello\",\"version\":1,\"name\":\"Eve\",\"me\":"
                      "\"NOT-HEX-NOT-HEX-NOT-HEX-NOT-HEX!\"}");
    expect_error(bad, DDZ_EFIELD, DDZ_REQ_HELLO);
}

/* ---- between games: every person says `ready` (issue 25, item 3) ---- */

/* Reads `c`'s events until a `state` carrying `ready`; NULL if none came
 * within `ms`. */
static const ddz_event_state *ready_state(cli *c, int ms)
{
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int64_t left = deadline - now_ms();
        const ddz_event *e = cli_next(c, left > 0 ? (int)left : 0);
        if (!e)
            return NULL;
        if (e->type == DDZ_EVENT_STATE && e->state.has_ready)
            return &e->state;
    }
}

static bool game_started(cli *c, const ddz_event *e, void *ctx)
{
    return c == ctx && e->type == DDZ_EVENT_GAME;
}

/* A casual room with a pause of 1 s: after game 1 it does not start game 2
 * on its own, it waits for every person's `ready` under a 20 s clock; the
 * state says who is ready, and the last `ready` starts the game at once. */
Test(casual, next_game_waits_for_ready)
{
    cli *c[3];
    c[0] = cli_hello("West");
    const char *room = cli_create(c[0], opts(3, 1, 30), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    cli_send(c[0], json_pack("{s:s}", "type", "ready"));
    cli_send(c[1], json_pack("{s:s}", "type", "ready"));
    /* the states: at the game's end (nobody ready), then after each ready */
    const ddz_event_state *st;
    do {
        st = ready_state(c[2], T(10000));
        cr_assert_not_null(st, "no state with West and South ready");
        cr_assert_not(st->ready[2], "East ready before it said so");
    } while (!(st->ready[0] && st->ready[1]));
    cr_assert_gt(st->ready_ms, 10000, "the ready clock (20 s), not the 1 s pause: %d",
                 st->ready_ms);
    /* three times the pause: the old automatic start would have come */
    const ddz_event *e;
    while ((e = cli_next(c[2], 3000)))
        cr_assert_neq(e->type, DDZ_EVENT_GAME, "game 2 started before East was ready");
    int64_t t0 = now_ms();
    cli_send(c[2], json_pack("{s:s}", "type", "ready"));
    reset_over(c, 3);
    cr_assert_eq(run(c, 3, game_started, c[2], T(10000)), 2);
    cr_assert_lt(now_ms() - t0, T(5000), "the last ready starts the game at once");
    /* a late or early ready is no error */
    cli_send(c[0], json_pack("{s:s}", "type", "ready"));
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    for (size_t i = 0; i < ddz_wsc_nread(c[0]->ws); i++) {
        const ddz_event *f = ddz_wsc_event(c[0]->ws, i);
        cr_assert(!f || f->type != DDZ_EVENT_ERROR, "an error: %s", show(f));
    }
}

/* Nobody answers for East: when the (default, 20 s) ready clock runs out
 * East is stood up (spec §14), never dealt in under custody: it watches,
 * told so, and the room (no fill) waits with East's seat open: game 2 is
 * not dealt. test_serve_absence.c has the rest, on a shorter clock. */
Test(casual, ready_clock_runs_out_to_stand_up)
{
    cli *c[3];
    c[0] = cli_hello("West");
    const char *room = cli_create(c[0], opts(2, 1, 30), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    int64_t t0 = now_ms();
    cli_send(c[0], json_pack("{s:s}", "type", "ready"));
    cli_send(c[1], json_pack("{s:s}", "type", "ready"));
    const ddz_event *e;
    int64_t deadline = now_ms() + T(40000);
    do {
        e = cli_next(c[2], (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0));
        cr_assert_not_null(e, "East was never stood up");
        cr_assert_neq(e->type, DDZ_EVENT_GAME, "East dealt in: %s", show(e));
        cr_assert(e->type != DDZ_EVENT_SEAT || !e->seat.player.custody, "custody: %s", show(e));
    } while (e->type != DDZ_EVENT_STATE || !e->state.stood_up);
    cr_assert_geq(now_ms() - t0, 15000, "stood up before the 20 s ready clock ran out");
    cr_assert_eq(e->state.seat, -1, "%s", show(e));
    cr_assert_not(e->state.players[2].seated, "East's seat not open: %s", show(e));
    while ((e = cli_next(c[0], 2000)))
        cr_assert_neq(e->type, DDZ_EVENT_GAME, "game 2 dealt without East: %s", show(e));
}

/* ---- an all-pass deal dealt again (issue 25, item 11) ---- */

/* A room with `redeal`: the three seats pass (the harness's clients bid 0),
 * the game ends with `redeal`, and the next deal comes without a ready
 * step, the turn one game longer; its record stays (verifiable). When a
 * landlord plays the game that counts, the turn (one game) is over. */
Test(casual, all_pass_deals_again)
{
    cli *c[3];
    c[0] = cli_hello("West");
    json_t *o = opts(1, 1, 30);
    json_object_set_new(o, "redeal", json_true());
    const char *room = cli_create(c[0], o, 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    const ddz_event_over *first = c[2]->over;
    cr_assert_eq(first->landlord, -1);
    cr_assert(first->redeal, "an all-pass game of a redeal room says so");
    json_t *rec = fetch_game(first->game_id, first->game_key);
    json_decref(rec); /* stored like any game */
    /* no ready step: the new deal comes after the short redeal pause */
    int64_t t0 = now_ms();
    reset_over(c, 3);
    c[0]->bidder = true;
    for (int i = 0; i < 3; i++) {
        const ddz_event *g = cli_expect(c[i], DDZ_EVENT_GAME);
        cr_assert_eq(g->game.game, 2);
        cr_assert_eq(g->game.games, 2, "the turn grows by the deal dealt again");
    }
    cr_assert_lt(now_ms() - t0, T(5000), "the new deal waited for something");
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    cr_assert_eq(c[1]->over->landlord, 0);
    cr_assert_not(c[1]->over->redeal);
    const ddz_event *to = cli_expect(c[1], DDZ_EVENT_TURN_OVER);
    cr_assert_eq(to->turn_over.games, 1, "the turn is its one game that counted");
}

/* Without `redeal` (the protocol's default, CAAI's rule) everyone passing
 * is a game with no score, and a one-game turn is over after it. */
Test(casual, all_pass_counts_without_redeal)
{
    cli *c[3];
    c[0] = cli_hello("West");
    const char *room = cli_create(c[0], opts(1, 1, 30), 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    cr_assert_eq(c[0]->over->landlord, -1);
    cr_assert_not(c[0]->over->redeal);
    cli_expect(c[0], DDZ_EVENT_TURN_OVER);
}
