/* test_serve_absence.c - spec §14 on a real `ddz serve`: a person who is
 * away from a casual table. One missed clock is one move (the smallest),
 * two in a row are custody, an action of theirs ends it; a person who
 * does not say ready is stood up and not dealt in; a seat is given back to
 * a person who joins again (a stand-in gives way; mid-game they watch,
 * then sit).
 *
 * The server runs with a 3 s ready clock (--ready-clock) so that the waits
 * are short, and no frame rate limit to speak of (--rate 1000). Competition rooms keep spec §6: test_serve.c's
 * timeout_is_a_fault and custody_fault.
 */
#include "serve_harness.h"

static void setup_absence(void)
{
    setup_no_server();
    serve_extra[0] = "--ready-clock";
    serve_extra[1] = "3";
    /* the clients answer every turn at once and the AIs act at once: a
     * loaded machine that hands a client a backlog of turns makes it
     * answer faster than the default 20 frames a second, and a dropped
     * play (ERATE) is a missed clock this suite did not ask for. The rate
     * limit is test_attack_*'s. */
    serve_extra[2] = "--rate";
    serve_extra[3] = "1000";
    serve_extra[4] = NULL;
    server_start();
}

TestSuite(absence, .init = setup_absence, .fini = teardown, .timeout = HANG(300));

/* ---- helpers ---- */

typedef bool (*pred_fn)(const ddz_event *e, const void *ctx);

/* Reads `c`'s events until `pred` holds for one (returned); fails the test
 * if none comes within `ms`. `c` acts on its own turns meanwhile when its
 * `act` is set. */
static const ddz_event *wait_for(cli *c, pred_fn pred, const void *ctx, int ms, const char *what)
{
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int64_t left = deadline - now_ms();
        const ddz_event *e = cli_next(c, left > 0 ? (int)left : 0);
        cr_assert_not_null(e, "%s: %s: nothing within %d ms; last frames:%s", c->name, what, ms,
                           tail_of(c));
        if (pred(e, ctx))
            return e;
        if (e->type == DDZ_EVENT_TURN)
            act_pending(c);
    }
}

/* The seat event of seat `*ctx`. */
static bool seat_event_of(const ddz_event *e, const void *ctx)
{
    return e->type == DDZ_EVENT_SEAT && e->seat.seat == *(const int *)ctx;
}

/* A state that says the connection was stood up. */
static bool stood_up_state(const ddz_event *e, const void *ctx)
{
    (void)ctx;
    return e->type == DDZ_EVENT_STATE && e->state.stood_up;
}

/* A seat event of seat `*ctx` held by a stand-in. */
static bool standin_seat(const ddz_event *e, const void *ctx)
{
    return seat_event_of(e, ctx) && e->seat.player.seated && e->seat.player.standin[0];
}

static bool of_type(const ddz_event *e, const void *ctx)
{
    return e->type == *(const int *)ctx;
}

/* What one client (`eye`) saw of seat `seat` while run() went on. */
typedef struct seat_log {
    cli *eye;
    int seat;
    int bid;           /* its first bid_made since reset: -1 none */
    int64_t bid_ms;    /* when that came */
    int64_t turn_ms;   /* when its latest turn came */
    int turns;         /* its turns seen */
    int custody_on;    /* seat events with custody true */
    int missed_one;    /* seat events with missed 1 and custody false */
    int custody_off;   /* seat events with custody false and missed 0 */
    bool stop_bid;     /* stop run() at its first bid_made */
    bool stop_custody; /* stop run() at the first custody: true */
    bool stop_missed;  /* stop run() at the first missed: 1 */
} seat_log;

static bool log_seat(cli *c, const ddz_event *e, void *ctx)
{
    seat_log *l = ctx;
    if (c != l->eye)
        return false;
    if (e->type == DDZ_EVENT_TURN && e->turn.seat == l->seat) {
        l->turns++;
        l->turn_ms = now_ms();
    }
    if (e->type == DDZ_EVENT_BID_MADE && e->bid_made.seat == l->seat && l->bid < 0) {
        l->bid = e->bid_made.bid;
        l->bid_ms = now_ms();
        return l->stop_bid;
    }
    if (e->type == DDZ_EVENT_SEAT && e->seat.seat == l->seat && e->seat.player.seated) {
        const ddz_event_player *p = &e->seat.player;
        if (p->custody) {
            l->custody_on++;
            return l->stop_custody;
        }
        l->missed_one += p->missed == 1;
        l->custody_off += p->missed == 0;
        return p->missed == 1 && l->stop_missed;
    }
    return false;
}

/* Three people at a casual room of `games` games with a 1 s pause (the
 * ready step is on) and a `time` s clock: West creates, South and East
 * join. `extra` (stolen, may be NULL) adds options. */
static const char *three(cli *c[3], int games, int time, json_t *extra)
{
    c[0] = cli_hello("West");
    json_t *o = opts(games, 1, time);
    if (extra) {
        json_object_update(o, extra);
        json_decref(extra);
    }
    const char *room = cli_create(c[0], o, 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[2] = cli_hello("East");
    cli_join(c[2], room, 2);
    return room;
}

static void say_ready(cli *c)
{
    cli_send(c, json_pack("{s:s}", "type", "ready"));
}

/* ---- one missed clock is one move; two are custody ---- */

/* West lets its bid clock run out once: the server bids 0 for it (an
 * ordinary bid_made, when the 3 s clock ran out), its seat says missed 1
 * and custody stays off. Its next decision is its own, with a full clock:
 * in the deal after (everyone passed: dealt again) West's turn carries
 * its legal bids and West answers itself; no custody at all. */
Test(absence, first_timeout_bids_zero)
{
    cli *c[3];
    three(c, 1, 3, json_pack("{s:b}", "redeal", 1));
    c[0]->act = false;
    seat_log l = {.eye = c[1], .seat = 0, .bid = -1, .stop_bid = true};
    cr_assert_geq(run(c, 3, log_seat, &l, T(30000)), 0, "West's bid was never made");
    cr_assert_eq(l.bid, 0, "the server's move for West: bid 0, got %d", l.bid);
    cr_assert_geq(l.bid_ms - l.turn_ms, 2500, "West's bid came before its 3 s clock ran out");
    cr_assert_geq(l.missed_one, 1, "West's seat never said missed 1");
    cr_assert_eq(l.custody_on, 0, "custody after one missed clock");
    /* the rest of the deal, then the next: West answers itself */
    c[0]->act = true;
    l = (seat_log){.eye = c[1], .seat = 0, .bid = -1};
    cr_assert_eq(run(c, 3, log_seat, &l, T(30000)), -1);
    reset_over(c, 3);
    cr_assert_eq(run(c, 3, log_seat, &l, T(30000)), -1);
    cr_assert_eq(l.custody_on, 0, "custody with West answering");
    cr_assert_eq(l.bid, 0, "West's own bid (it bids 0)");
    cr_assert_geq(l.custody_off, 1, "West's action did not clear its missed clock");
    bool own = false;
    int stales = 0;
    for (size_t i = 0; i < ddz_wsc_nread(c[0]->ws); i++) {
        const ddz_event *e = ddz_wsc_event(c[0]->ws, i);
        if (e && e->type == DDZ_EVENT_GAME)
            own = false; /* only the last deal's turns count */
        if (e && e->type == DDZ_EVENT_TURN && e->turn.seat == 0 && e->turn.has_legal)
            own = e->turn.deadline_ms >= 2000;
        /* West, told to act again, may still answer the turn the server
         * already moved for it (it had not read the bid yet): that one
         * answer is refused as stale, as any late answer is; nothing else */
        bool stale = e && e->type == DDZ_EVENT_ERROR && e->error.code == DDZ_ESTALE;
        stales += stale;
        cr_assert(!e || e->type != DDZ_EVENT_ERROR || stale, "an error: %s", show(e));
    }
    cr_assert_leq(stales, 1, "West's answers refused as stale: %d", stales);
    cr_assert(own, "West's turn in the next deal: its own, with a full clock");
}

static bool west_custody_off(const ddz_event *e, const void *ctx)
{
    (void)ctx;
    return e->type == DDZ_EVENT_SEAT && e->seat.seat == 0 && e->seat.player.seated &&
           !e->seat.player.custody;
}

static bool west_played(const ddz_event *e, const void *ctx)
{
    (void)ctx;
    return (e->type == DDZ_EVENT_PLAYED && e->played.seat == 0) ||
           (e->type == DDZ_EVENT_BID_MADE && e->bid_made.seat == 0);
}

/* Two of West's clocks in a row with nothing of West's between (South is
 * landlord, so the deal has a play phase): the first is one move, the
 * second custody. West then acts (a play, stale: refused): custody is off
 * at once, and the count starts again: its next missed clock is one move
 * again, not custody. */
Test(absence, two_timeouts_are_custody_and_an_action_ends_it)
{
    cli *c[3];
    three(c, 1, 3, NULL);
    c[0]->act = false;
    c[1]->bidder = true;
    seat_log l = {.eye = c[1], .seat = 0, .bid = -1, .stop_custody = true};
    int64_t t0 = now_ms();
    cr_assert_geq(run(c, 3, log_seat, &l, T(40000)), 0, "West was never put in custody");
    cr_assert_geq(now_ms() - t0, 5500, "custody before two 3 s clocks ran out");
    cr_assert_geq(l.missed_one, 1, "custody at the first missed clock");
    cr_assert_geq(l.turns, 2, "custody before West's second turn: %d turns", l.turns);
    cr_assert(l.bid <= 0, "West's bid made for it: 0, not %d", l.bid);
    cr_assert_eq(l.custody_on, 1);
    /* South and East wait (their clocks run): the game stays on while West
     * acts, and custody is off at once */
    c[1]->act = c[2]->act = false;
    cli_send(c[0], json_pack("{s:s, s:i, s:[]}", "type", "play", "seq", 0, "cards"));
    wait_for(c[0], west_custody_off, NULL, T(5000), "custody did not end on West's action");
    /* the count starts again: West's next missed clock is one move */
    c[1]->act = c[2]->act = true;
    l = (seat_log){.eye = c[1], .seat = 0, .bid = -1, .stop_custody = true, .stop_missed = true};
    cr_assert_geq(run(c, 3, log_seat, &l, T(30000)), 0, "the game ended before West's turn");
    cr_assert_eq(l.custody_on, 0, "custody at West's first missed clock after its action");
    cr_assert_eq(l.missed_one, 1);
    wait_for(c[1], west_played, NULL, T(5000), "no move made for West");
}

/* ---- nobody is dealt in while away ---- */

/* Game 1 of 2 ends; West and South say ready, East does not. When the
 * ready clock (3 s) runs out East is stood up: it is told (joined with no
 * seat, a state with stood_up) and watches; its seat is open (the room
 * waits for players: no fill) and no game is dealt. East sits down again
 * with one `join`: game 2 is dealt with East in it. */
Test(absence, not_ready_is_stood_up_and_sits_again)
{
    cli *c[3];
    const char *room = three(c, 2, 30, NULL);
    c[1]->bidder = true;
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    say_ready(c[0]);
    say_ready(c[1]);
    int64_t t0 = now_ms();
    const ddz_event *e = wait_for(c[2], stood_up_state, NULL, T(15000), "East not stood up");
    cr_assert_geq(now_ms() - t0, 2000, "stood up before the 3 s ready clock ran out");
    cr_assert_eq(e->state.seat, -1, "stood up but still seated: %s", show(e));
    cr_assert_not(e->state.players[2].seated, "East's seat still held: %s", show(e));
    cr_assert_eq(c[2]->seat, -1, "no joined with no seat for East");
    int two = 2;
    e = wait_for(c[0], seat_event_of, &two, T(5000), "West saw no change of East's seat");
    cr_assert_not(e->seat.player.seated, "East's seat is not open: %s", show(e));
    /* the room waits: nobody is dealt a game without East's seat held */
    int game = DDZ_EVENT_GAME;
    while ((e = cli_next(c[0], 1500)))
        cr_assert_neq(e->type, game, "a game dealt with East's seat open: %s", show(e));
    /* one tap: East sits again and the game is dealt with it */
    cli_join(c[2], room, -1);
    cr_assert_eq(c[2]->seat, 2, "East not given its seat back");
    e = wait_for(c[2], of_type, &game, T(10000), "game 2 not dealt to East");
    cr_assert(e->game.has_hand, "East dealt no hand: %s", show(e));
    cr_assert_eq(e->game.game, 2);
    reset_over(c, 3);
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
}

static bool seat_opens(const ddz_event *e, const void *ctx)
{
    return seat_event_of(e, ctx) && !e->seat.player.seated;
}

static bool east_ready(const ddz_event *e, const void *ctx)
{
    (void)ctx;
    return e->type == DDZ_EVENT_STATE && e->state.has_ready && e->state.ready[2];
}

static bool east_gone(const ddz_event *e, const void *ctx)
{
    (void)ctx;
    return e->type == DDZ_EVENT_SEAT && e->seat.seat == 2 && e->seat.player.seated &&
           !e->seat.player.connected;
}

/* East says ready, then its connection drops (within the grace): when the
 * others are ready and the game would be dealt East is gone, so it is
 * stood up, not dealt in; the room waits with its seat open. Coming back
 * (a resume) East is in no room: it joins again to play. */
Test(absence, gone_at_the_deal_is_stood_up)
{
    cli *c[3];
    three(c, 2, 30, NULL);
    c[1]->bidder = true;
    cr_assert_eq(run(c, 3, NULL, NULL, T(60000)), -1);
    say_ready(c[2]);
    wait_for(c[0], east_ready, NULL, T(5000), "East's ready not seen");
    char resume[80];
    snprintf(resume, sizeof resume, "%s", c[2]->resume);
    cli_free(c[2]);
    int two = 2;
    wait_for(c[0], east_gone, NULL, T(5000), "East's drop not seen");
    say_ready(c[0]);
    say_ready(c[1]);
    wait_for(c[0], seat_opens, &two, T(5000), "East's seat not opened at the deal");
    const ddz_event *e;
    while ((e = cli_next(c[0], 1500)))
        cr_assert_neq(e->type, DDZ_EVENT_GAME, "a game dealt while East was gone: %s", show(e));
    cli *back = cli_connect();
    snprintf(back->name, sizeof back->name, "East again");
    cli_send(back, json_pack("{s:s, s:i, s:s, s:s}", "type", "hello", "version", 1, "name", "East",
                             "resume", resume));
    cli_expect(back, DDZ_EVENT_WELCOME);
    while ((e = cli_next(back, 1000)))
        cr_assert(e->type != DDZ_EVENT_STATE || e->state.seat < 0, "East still seated: %s",
                  show(e));
}

/* A room that fills with AIs (one person, two AIs): West does not say
 * ready and is stood up; a hosted AI stands in ("standin": West) and no
 * game is dealt, since nobody is left to play for. West sits again: the
 * stand-in gives way and game 2 is dealt with West. */
Test(absence, stood_up_in_a_filled_room)
{
    cli *w = cli_hello("West");
    json_t *o = opts(2, 1, 30);
    json_object_set_new(o, "fill", json_string("ai:greedy"));
    const char *room = cli_create(w, o, 0);
    cr_assert_eq(run(&w, 1, NULL, NULL, T(60000)), -1);
    const ddz_event *e = wait_for(w, stood_up_state, NULL, T(15000), "West not stood up");
    cr_assert_eq(e->state.seat, -1);
    cr_assert(e->state.players[0].seated, "no stand-in in a room that fills: %s", show(e));
    cr_assert_str_eq(e->state.players[0].standin, "West", "%s", show(e));
    cr_assert_eq(e->state.players[0].kind, DDZ_EVENT_AI);
    int game = DDZ_EVENT_GAME;
    while ((e = cli_next(w, 1500)))
        cr_assert_neq(e->type, game, "AIs dealt a game among themselves: %s", show(e));
    cli_join(w, room, -1);
    cr_assert_eq(w->seat, 0, "West did not get its seat back");
    e = wait_for(w, of_type, &game, T(10000), "game 2 not dealt");
    cr_assert(e->game.has_hand);
    cr_assert_eq(e->game.game, 2);
}

/* ---- a seat is given back ---- */

static void leave(cli *c)
{
    cli_send(c, json_pack("{s:s}", "type", "leave"));
    const ddz_event *j = cli_expect(c, DDZ_EVENT_JOINED);
    cr_assert_str_eq(j->joined.room, "");
}

/* The private room: two friends and an AI, no fill (wait for
 * players). South leaves between games and opens the invite again: she
 * gets her seat (not "the room is full"). Then she leaves mid-game: a
 * stand-in AI finishes the game for her; she comes back while it is on
 * and watches (seat_next), and is seated when the game ends. */
Test(absence, friend_gets_her_seat_back)
{
    cli *c[3];
    c[0] = cli_hello("West");
    json_t *o = opts(3, 1, 30);
    json_object_set_new(o, "private", json_true());
    json_object_set_new(o, "seats", json_pack("[n, n, s]", "ai:greedy"));
    const char *room = cli_create(c[0], o, 0);
    c[1] = cli_hello("South");
    cli_join(c[1], room, 1);
    c[0]->bidder = true;
    cr_assert_eq(run(c, 2, NULL, NULL, T(60000)), -1);
    /* between games: South leaves, and the seat waits for a person */
    leave(c[1]);
    say_ready(c[0]);
    int one = 1;
    const ddz_event *e = wait_for(c[0], seat_event_of, &one, T(5000), "South's seat");
    cr_assert_not(e->seat.player.seated, "South's seat held by %s", show(e));
    cli_free(c[1]);
    /* she opens the invite again (a new connection): her seat */
    c[1] = cli_hello("South");
    cli_join(c[1], room, -1);
    cr_assert_eq(c[1]->seat, 1, "South not seated again");
    reset_over(c, 2);
    int game = DDZ_EVENT_GAME;
    wait_for(c[1], of_type, &game, T(10000), "game 2 not dealt to South");
    /* mid-game she leaves: a stand-in finishes the game */
    leave(c[1]);
    e = wait_for(c[0], standin_seat, &one, T(5000), "no stand-in in South's seat mid-game");
    cr_assert(e->seat.player.seated, "nobody plays South's seat: %s", show(e));
    cr_assert_str_eq(e->seat.player.standin, "South", "%s", show(e));
    /* she comes back while the game is on: she watches, then sits */
    cli_send(c[1], json_pack("{s:s, s:s}", "type", "join", "room", room));
    e = cli_expect(c[1], DDZ_EVENT_JOINED);
    cr_assert_eq(e->joined.seat, -1, "seated in a game the stand-in plays: %s", show(e));
    e = cli_expect(c[1], DDZ_EVENT_STATE);
    cr_assert(e->state.seat_next, "not told she sits when the game ends: %s", show(e));
    /* South is serviced too while the game goes on: a client that reads
     * nothing answers no ping, and after the server's idle time (20 s) and
     * its pong wait (10 s) it is dropped as a dead connection (a long game
     * under load: South's recv ended at a close, her seat never came) */
    cr_assert_eq(run(c, 2, NULL, NULL, T(60000)), -1, "game 2 did not end");
    /* West says ready at once: the 3 s ready clock runs from the game's
     * end, and a loaded run took longer than that to see South seated
     * (West was stood up, and game 3 waited for a player) */
    say_ready(c[0]);
    int joined = DDZ_EVENT_JOINED;
    e = wait_for(c[1], of_type, &joined, T(10000), "South not seated after the game");
    cr_assert_eq(e->joined.seat, 1);
    cr_assert_not_null(c[1]->over, "seated before the game she watched ended");
    /* and game 3 is dealt with her */
    say_ready(c[1]);
    reset_over(c, 2);
    e = wait_for(c[1], of_type, &game, T(10000), "game 3 not dealt to South");
    cr_assert(e->game.has_hand);
    cr_assert_eq(e->game.game, 3);
}
