/* test_bridge.c - `ddz bridge`: the translator fed by hand (server events
 * in, a fake seat's table events and requests out), the translator driving
 * a real CAAI engine seat and a real Botzone seat (both modes) on a poll
 * loop, then real bridges playing real engines and Botzone bots in a real
 * `ddz serve`, under caai and botzone-ftl2.
 *
 * Server frames are built as proto/event.h values and printed, so that
 * every frame the translator is fed is one the server could send. The
 * end-to-end tests start the server (DDZ_BIN) on a free loopback port with
 * a fresh database and bot tokens from `ddz token add`; a test client
 * (service/wsclient.h) creates the room, lets the bridges sit, and watches
 * as a spectator. Every wait is on a condition with a bound: /healthz
 * answering, a frame arriving, a process exiting (its pidfd), a line in a
 * file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/event.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "service/bridge/bridge.h"
#include "service/engine/engine.h"
#include "service/match/loop_poll.h"
#include "service/seats/seats.h"
#include "wsclient.h"
#include "test_util.h"
#include "test_clock.h"

/* ---- a fake seat that writes down what it is told ---- */

typedef struct fake {
    ddz_seat base;
    char said[64][96]; /* one line per call: ddz_ev_format, "ask ..." or "cancel" */
    int nsaid;
    const char *name; /* what name() answers */
} fake;

static void fake_say(fake *f, const char *prefix, const ddz_ev *ev)
{
    cr_assert_lt(f->nsaid, 64);
    char line[96];
    if (ev)
        ddz_ev_format(ev, line, sizeof line);
    snprintf(f->said[f->nsaid++], sizeof f->said[0], "%s%s", prefix, ev ? line : "");
}

static void fake_deliver(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    cr_assert_null(t, "the bridge has no table");
    fake_say((fake *)s, "", ev);
}

static void fake_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    cr_assert_null(t);
    fake_say((fake *)s, "ASKED ", ev);
}

static void fake_cancel(ddz_seat *s)
{
    fake_say((fake *)s, "cancel", NULL);
}

static const char *fake_name(const ddz_seat *s)
{
    return ((const fake *)s)->name;
}

static void fake_close(ddz_seat *s)
{
    (void)s;
}

static const ddz_seat_ops fake_ops = {.kind = "engine",
                                      .deliver = fake_deliver,
                                      .ask = fake_ask,
                                      .cancel = fake_cancel,
                                      .name = fake_name,
                                      .close = fake_close};

/* ---- the translator's driver, recording ---- */

typedef struct rec {
    json_t *sent[64]; /* to the server */
    int nsent;
    char log[8192];
    int give_ups;
} rec;

static void r_send(void *ctx, json_t *msg)
{
    rec *r = ctx;
    cr_assert_lt(r->nsent, 64);
    r->sent[r->nsent++] = msg;
}

static void r_log(void *ctx, bool warn, const char *msg)
{
    rec *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s%s\n", warn ? "W " : "", msg);
}

static void r_give_up(void *ctx, const char *why)
{
    rec *r = ctx;
    r->give_ups++;
    r_log(ctx, true, why);
}

static rec R;
static fake F;
static ddz_bridge B;
static const ddz_bridge_io IO = {
    .ctx = &R, .server_send = r_send, .log = r_log, .give_up = r_give_up};

static void setup_bridge(const ddz_bridge_opts *o)
{
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    memset(&R, 0, sizeof R);
    memset(&F, 0, sizeof F);
    F.base = (ddz_seat){.ops = &fake_ops, .player = -1, .program = true};
    F.name = "fake";
    ddz_bridge_init(&B, &F.base, &IO, o);
}

static void teardown(void)
{
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    R.nsent = 0;
}

/* Feeds the server frame `e` (printed as the server would). */
static int feed(const ddz_event *e)
{
    json_t *j = ddz_event_print(e);
    cr_assert(j, "cannot print a %s event", ddz_event_name(e->type));
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    int rc = ddz_bridge_on_frame(&B, text, strlen(text));
    free(text);
    return rc;
}

static int frame(const char *text)
{
    return ddz_bridge_on_frame(&B, text, strlen(text));
}

/* The seat was told exactly `want` since index *at, which moves on. */
static void told(int *at, const char *const *want, int n)
{
    for (int i = 0; i < n; i++) {
        cr_assert_lt(*at + i, F.nsaid, "the seat was not told '%s' (log:\n%s)", want[i], R.log);
        cr_assert_str_eq(F.said[*at + i], want[i], "told #%d (log:\n%s)", *at + i, R.log);
    }
    *at += n;
    cr_assert_eq(*at, F.nsaid, "the seat was told more: '%s'", F.said[*at < F.nsaid ? *at : 0]);
}

/* The last request sent must equal the JSON text `want`. */
static void sent_is(const char *want)
{
    cr_assert_gt(R.nsent, 0, "nothing sent; wanted %s", want);
    json_t *w = json_loads(want, 0, NULL);
    cr_assert(w);
    char *got = json_dumps(R.sent[R.nsent - 1], JSON_COMPACT | JSON_SORT_KEYS);
    cr_assert(json_equal(w, R.sent[R.nsent - 1]), "sent %s, wanted %s", got, want);
    free(got);
    json_decref(w);
}

/* The seat answers through its host, as an engine seat does. */
static int seat_acts(int action, uint32_t seq, int bid, ddz_cards cards)
{
    return F.base.host.act(F.base.host.ctx, &F.base, action, seq, bid, cards);
}

static ddz_table_info info_now(void)
{
    ddz_table_info ti;
    F.base.host.info(F.base.host.ctx, &ti);
    return ti;
}

/* ---- server events as values ---- */

static ddz_cards cards_of(const int *codes, int n)
{
    ddz_cards c = 0;
    for (int i = 0; i < n; i++)
        c |= 1ULL << codes[i];
    return c;
}

#define CARDS(...)                                                                                 \
    cards_of((const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

static const ddz_cards hand_a = 0x1ffff; /* codes 0..16 */

static void commit_of(int n, uint8_t out[DDZ_SEED_BYTES])
{
    memset(out, 0, DDZ_SEED_BYTES);
    out[0] = (uint8_t)n;
}

static ddz_event ev_welcome(void)
{
    ddz_event e = {.type = DDZ_EVENT_WELCOME};
    e.welcome = (ddz_event_welcome){.version = 1, .bot = true};
    snprintf(e.welcome.id, sizeof e.welcome.id, "p1");
    snprintf(e.welcome.name, sizeof e.welcome.name, "bot");
    snprintf(e.welcome.resume, sizeof e.welcome.resume, "0123456789abcdef");
    snprintf(e.welcome.server, sizeof e.welcome.server, "ddz");
    return e;
}

static ddz_event ev_game(int game, int games, int commit, ddz_cards hand)
{
    ddz_event e = {.type = DDZ_EVENT_GAME};
    e.game = (ddz_event_game){.game = game, .games = games, .has_hand = true, .hand = hand};
    commit_of(commit, e.game.commit);
    return e;
}

static ddz_event ev_turn(int seat, int action, uint32_t seq)
{
    return (ddz_event){.type = DDZ_EVENT_TURN,
                       .turn = {.seat = seat, .action = action, .seq = seq, .deadline_ms = 5000}};
}

static ddz_event ev_bid(int seat, int bid)
{
    return (ddz_event){.type = DDZ_EVENT_BID_MADE, .bid_made = {.seat = seat, .bid = bid}};
}

static ddz_event ev_leftover(int landlord, ddz_cards cards, int bid)
{
    return (ddz_event){.type = DDZ_EVENT_LEFTOVER,
                       .leftover = {.landlord = landlord, .cards = cards, .bid = bid}};
}

static ddz_event ev_played(int seat, ddz_cards cards, bool autopass)
{
    int combo = cards ? ddz_combo_classify(&ddz_rules_caai, ddz_cards_ranks(cards)).type : DDZ_PASS;
    return (ddz_event){
        .type = DDZ_EVENT_PLAYED,
        .played = {.seat = seat, .cards = cards, .combo = combo, .autopass = autopass, .left = 10}};
}

static ddz_event_over over_of(int game, int commit, int winner, int fault_seat, int fault_kind)
{
    ddz_event_over o = {.game = game,
                        .winner = winner,
                        .landlord = winner,
                        .fault_seat = fault_seat,
                        .fault_kind = fault_kind,
                        .bid = 1,
                        .multiplier = 1,
                        .leftover = CARDS(51, 52, 53),
                        .game_id = 1};
    for (int s = 0; s < 3; s++)
        o.dealt[s] = o.hands[s] = 0x1ffffULL << (17 * s);
    commit_of(commit, o.commit);
    return o;
}

static ddz_event ev_over(int game, int commit, int winner, int fault_seat, int fault_kind)
{
    return (ddz_event){.type = DDZ_EVENT_OVER,
                       .over = over_of(game, commit, winner, fault_seat, fault_kind)};
}

static ddz_event ev_turn_over(int games)
{
    return (ddz_event){.type = DDZ_EVENT_TURN_OVER, .turn_over = {.games = games}};
}

static ddz_event ev_error(int code, int about)
{
    ddz_event e = {.type = DDZ_EVENT_ERROR, .error = {.code = code, .about = about}};
    return e;
}

/* A state snapshot of room r1 (time 5, 2 games) with us at seat 0. */
static ddz_event ev_state(int phase)
{
    ddz_event e = {.type = DDZ_EVENT_STATE};
    ddz_event_state *s = &e.state;
    snprintf(s->room, sizeof s->room, "r1");
    s->options = (ddz_event_options){.time = 5, .games = 2, .bots = true, .pause = 3};
    snprintf(s->options.rules, sizeof s->options.rules, "caai");
    s->seat = 0;
    s->phase = phase;
    s->game = 1;
    s->games = 2;
    s->landlord = s->bid = -1;
    bool in_game = phase != DDZ_EVENT_PH_WAITING && phase != DDZ_EVENT_PH_TURN_OVER;
    for (int i = 0; i < 3; i++) {
        s->players[i] = (ddz_event_player){.seated = true, .kind = DDZ_EVENT_BOT, .bid = -1};
        snprintf(s->players[i].name, sizeof s->players[i].name, "p%d", i);
        s->players[i].in_game = in_game;
        s->players[i].left = 17;
    }
    return e;
}

/* The bridge sat in room r1 at seat 0 (A), time 5 and 2 games. */
static void seated_at_a(void)
{
    setup_bridge(&(ddz_bridge_opts){.token = "tok", .name = "me", .room = "r1", .seat = 0});
    cr_assert_eq(F.base.player, 0, "the bridge drives player 0");
    ddz_bridge_connected(&B);
    sent_is("{\"type\":\"hello\",\"version\":1,\"name\":\"me\",\"token\":\"tok\"}");
    ddz_event e = ev_welcome();
    feed(&e);
    sent_is("{\"type\":\"list\"}");
    frame("{\"type\":\"rooms\",\"rooms\":[],\"ais\":[],\"engines\":[],\"rules\":[\"caai\"]}");
    sent_is("{\"type\":\"join\",\"room\":\"r1\",\"seat\":0}");
    frame("{\"type\":\"joined\",\"room\":\"r1\",\"seat\":0}");
    e = ev_state(DDZ_EVENT_PH_WAITING);
    feed(&e);
    cr_assert(B.seated);
    cr_assert_eq(F.nsaid, 0, "nothing for the seat before a game: %s", F.said[0]);
}

static void feed_game(int game, int games, int commit)
{
    ddz_event e = ev_game(game, games, commit, hand_a);
    feed(&e);
}

static const char game1_a[] = "p0 game 1 seat A hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16";

Test(bridge_xlate, a_whole_game, .fini = teardown)
{
    seated_at_a();
    int at = 0;
    feed_game(1, 2, 1);
    const char *t1[] = {game1_a};
    told(&at, t1, 1);
    ddz_table_info ti = info_now();
    cr_assert_eq(ti.turn, 1);
    cr_assert_eq(ti.turns, 1);
    cr_assert_eq(ti.game, 1);
    cr_assert_eq(ti.games, 2);
    cr_assert_eq(ti.up, 0);
    cr_assert_eq(ti.maxscore, ddz_rules_maxscore(&ddz_rules_caai, 2));
    cr_assert_eq(ti.time_s, 5, "the room's time");

    /* our turn: the seat is asked, its answer goes out with the seq */
    ddz_event e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    const char *t2[] = {"ASKED all ask A bid seq 1 due 5000"};
    told(&at, t2, 1);
    int n = R.nsent;
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 1, 2, 0), 0);
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":2}");
    cr_assert_eq(R.nsent, n + 1);
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 1, 2, 0), DDZ_ESTALE, "one answer per request");
    cr_assert_eq(R.nsent, n + 1);

    e = ev_bid(0, 2);
    feed(&e);
    e = ev_turn(1, DDZ_EVENT_ACT_BID, 2);
    feed(&e);
    e = ev_bid(1, 0);
    feed(&e);
    e = ev_turn(2, DDZ_EVENT_ACT_BID, 3);
    feed(&e);
    e = ev_bid(2, 3);
    feed(&e);
    e = ev_leftover(2, CARDS(50, 51, 53), 3);
    feed(&e);
    e = ev_turn(2, DDZ_EVENT_ACT_PLAY, 4);
    feed(&e);
    e = ev_played(2, CARDS(20), false);
    feed(&e);
    e = ev_turn(0, DDZ_EVENT_ACT_PLAY, 5);
    feed(&e);
    const char *t3[] = {"all bid A 2",
                        "all ask B bid seq 2 due 5000",
                        "all bid B 0",
                        "all ask C bid seq 3 due 5000",
                        "all bid C 3",
                        "all leftover C 50,51,53",
                        "all ask C play seq 4 due 5000",
                        "all play C 20",
                        "ASKED all ask A play seq 5 due 5000"};
    told(&at, t3, 9);
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 5, 1, 0), DDZ_ESTALE, "a bid does not answer a play");
    cr_assert_eq(seat_acts(DDZ_EV_ASK_PLAY, 4, 0, CARDS(3)), DDZ_ESTALE, "an old seq");
    cr_assert_eq(seat_acts(DDZ_EV_ASK_PLAY, 5, 0, 0), 0);
    sent_is("{\"type\":\"play\",\"seq\":5,\"cards\":[]}");
    e = ev_played(0, 0, false);
    feed(&e);
    e = ev_played(1, 0, true);
    feed(&e);
    e = ev_played(2, CARDS(24, 25), false);
    feed(&e);
    e = ev_played(0, 0, true);
    feed(&e);
    e = ev_over(1, 1, 2, -1, 0);
    /* a losing farmer above 0, as botzone-ftl scores its plays' weights:
     * the bridge tells who won by side, not by the sign of its score */
    e.over.scores[0] = 0.12;
    feed(&e);
    const char *t4[] = {"all play A pass", "all play B pass auto", "all play C 24,25",
                        "all play A pass auto", "all over winner C"};
    told(&at, t4, 5);
    cr_assert(strstr(R.log, "game 1: we lost"), "log:\n%s", R.log);
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);

    /* the second game: a fault of seat B ends it, our request is void */
    feed_game(2, 2, 2);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    e = ev_over(2, 2, -1, 1, DDZ_FAULT_TIMEOUT);
    feed(&e);
    const char *t5[] = {"p0 game 2 seat A hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                        "ASKED all ask A bid seq 1 due 5000", "cancel", "all over fault B timeout"};
    told(&at, t5, 4);
    n = R.nsent;
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 1, 3, 0), DDZ_ESTALE, "too late: not sent");
    cr_assert_eq(R.nsent, n);
    cr_assert_eq(info_now().game, 2);

    /* the turn is over: the seat hears it, a rematch is asked; the next
     * turn's INFO counts it */
    e = ev_turn_over(2);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_GO);
    sent_is("{\"type\":\"rematch\"}");
    feed_game(1, 2, 3);
    const char *t6[] = {"all series", game1_a};
    told(&at, t6, 2);
    ti = info_now();
    cr_assert_eq(ti.turn, 2);
    cr_assert_eq(ti.turns, 2);
    cr_assert_eq(ti.game, 1);
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);
}

Test(bridge_xlate, all_pass_tells_the_end_and_turns_end, .fini = teardown)
{
    seated_at_a();
    B.opts.turns = 1;
    int at = 0;
    feed_game(1, 1, 1);
    cr_assert_eq(info_now().turns, 1);
    cr_assert_eq(info_now().maxscore, ddz_rules_maxscore(&ddz_rules_caai, 1));
    for (int s = 0; s < 3; s++) {
        ddz_event e = ev_bid(s, 0);
        feed(&e);
    }
    ddz_event e = ev_over(1, 1, -1, -1, 0);
    feed(&e);
    const char *t[] = {"p0 game 1 seat A hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                       "all bid A 0", "all bid B 0", "all bid C 0", "all over winner -"};
    told(&at, t, 5);
    e = ev_turn_over(1);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_DONE);
    sent_is("{\"type\":\"leave\"}");
    const char *t2[] = {"all series"};
    told(&at, t2, 1);
}

Test(bridge_xlate, a_failed_seat_owes_nothing_and_is_dealt_the_next_game, .fini = teardown)
{
    seated_at_a();
    F.name = ""; /* an engine that never said its name */
    int at = 0;
    feed_game(1, 2, 1);
    ddz_event e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    /* the engine died thinking: the engine seat stopped it and says so */
    F.base.host.fault(F.base.host.ctx, &F.base, DDZ_FAULT_CRASH, 0, "engine exited");
    cr_assert_eq(B.warnings, 1, "log:\n%s", R.log);
    cr_assert(strstr(R.log, "crash") && strstr(R.log, "owed an answer"), "%s", R.log);
    int n = R.nsent;
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 1, 1, 0), DDZ_ESTALE, "nothing owed");
    /* the rest of the game is not its business; the server's clock decides */
    e = ev_over(1, 1, -1, 0, DDZ_FAULT_TIMEOUT);
    feed(&e);
    cr_assert_eq(R.nsent, n, "nothing is sent for a failed seat");
    const char *t1[] = {game1_a, "ASKED all ask A bid seq 1 due 5000"};
    told(&at, t1, 2);
    cr_assert_eq(R.give_ups, 0);

    /* the next game is dealt to it again (the engine seat restarts its engine) */
    feed_game(2, 2, 2);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    const char *t2[] = {"p0 game 2 seat A hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                        "ASKED all ask A bid seq 1 due 5000"};
    told(&at, t2, 2);

    /* a failure of a game already over is only logged */
    e = ev_over(2, 2, -1, 1, DDZ_FAULT_TIMEOUT);
    feed(&e);
    F.base.host.fault(F.base.host.ctx, &F.base, DDZ_FAULT_TIMEOUT, 1, "no OK ERROR");
    cr_assert_eq(R.give_ups, 0);
    /* the third failure of a program that never said its name nor
     * answered gives up: it cannot play at all */
    F.base.host.fault(F.base.host.ctx, &F.base, DDZ_FAULT_CRASH, -1, "engine exited");
    cr_assert_eq(R.give_ups, 1, "log:\n%s", R.log);
    cr_assert(strstr(R.log, "engine failed 3 times without ever answering or saying its name"),
              "%s", R.log);
}

/* A Botzone bot has no name to say: a seat that has answered once has
 * shown it can play, and is not given up on however often it fails. */
Test(bridge_xlate, a_seat_that_answered_is_never_given_up_on, .fini = teardown)
{
    seated_at_a();
    F.name = "";
    feed_game(1, 2, 1);
    ddz_event e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    cr_assert_eq(seat_acts(DDZ_EV_ASK_BID, 1, 1, 0), 0);
    for (int i = 0; i < 5; i++)
        F.base.host.fault(F.base.host.ctx, &F.base, DDZ_FAULT_PROTOCOL, -1, "not JSON");
    cr_assert_eq(R.give_ups, 0, "log:\n%s", R.log);
    cr_assert_eq(B.warnings, 5, "log:\n%s", R.log);
}

Test(bridge_xlate, garbage_frames_are_logged_and_ignored, .fini = teardown)
{
    seated_at_a();
    feed_game(1, 2, 1);
    int at = F.nsaid;
    long w = B.warnings;
    cr_assert_eq(frame("not json"), DDZ_BRIDGE_GO);
    cr_assert_eq(frame("{\"type\":\"turn\",\"seat\":0,\"action\":\"bid\"}"), DDZ_BRIDGE_GO);
    cr_assert_eq(frame("{\"type\":\"played\",\"seat\":5,\"cards\":[],\"combo\":\"pass\","
                       "\"auto\":false,\"left\":3}"),
                 DDZ_BRIDGE_GO);
    cr_assert_eq(B.warnings, w + 3, "log:\n%s", R.log);
    cr_assert(strstr(R.log, "malformed turn frame"), "%s", R.log);
    told(&at, NULL, 0);
}

/* A snapshot of game 1 (commit 9) in play: landlord A took 17,18,19 and
 * played 0 and 17, B auto-passed, C played 30; `extra` more plays (B
 * passes, C plays 34, A passes), then the turn of `turn_seat` with `seq`. */
static ddz_event state_in_play(int extra, int turn_seat, uint32_t seq)
{
    static ddz_record_play hist[8];
    const ddz_record_play plays[] = {{0, 0, DDZ_SINGLE, CARDS(0)},
                                     {1, 1, DDZ_PASS, 0},
                                     {2, 0, DDZ_SINGLE, CARDS(30)},
                                     {0, 0, DDZ_SINGLE, CARDS(17)},
                                     {1, 0, DDZ_PASS, 0},
                                     {2, 0, DDZ_SINGLE, CARDS(34)},
                                     {0, 0, DDZ_PASS, 0}};
    memcpy(hist, plays, sizeof plays);
    ddz_event e = ev_state(DDZ_EVENT_PH_PLAY);
    ddz_event_state *s = &e.state;
    commit_of(9, s->commit);
    s->has_commit = true;
    s->players[0].bid = 3;
    s->players[0].role = DDZ_EVENT_ROLE_LANDLORD;
    s->has_hand = true;
    s->hand = (hand_a | CARDS(18, 19)) & ~CARDS(0);
    s->has_leftover = true;
    s->leftover = CARDS(17, 18, 19);
    s->landlord = 0;
    s->bid = 3;
    s->history = hist;
    s->nhistory = 4 + extra;
    s->has_turn = true;
    s->turn = (ddz_event_turn){
        .seat = turn_seat, .action = DDZ_EVENT_ACT_PLAY, .seq = seq, .deadline_ms = 5000};
    return e;
}

Test(bridge_xlate, resume_catches_the_seat_up_once, .fini = teardown)
{
    seated_at_a();
    /* reconnected mid-game of a game the seat never heard of */
    ddz_bridge_connected(&B);
    sent_is("{\"type\":\"hello\",\"version\":1,\"name\":\"me\",\"token\":\"tok\","
            "\"resume\":\"0123456789abcdef\"}");
    ddz_event e = ev_welcome();
    feed(&e);
    int at = F.nsaid;
    e = state_in_play(0, 1, 9);
    feed(&e);
    const char *t1[] = {game1_a,
                        "all bid A 3",
                        "all leftover A 17,18,19",
                        "all play A 0",
                        "all play B pass auto",
                        "all play C 30",
                        "all play A 17",
                        "all ask B play seq 9 due 5000"};
    told(&at, t1, 8);
    sent_is("{\"type\":\"list\"}");
    /* the `rooms` answer after a resumed seat changes nothing */
    int nsent = R.nsent;
    frame("{\"type\":\"rooms\",\"rooms\":[],\"ais\":[],\"engines\":[],\"rules\":[\"caai\"]}");
    cr_assert_eq(R.nsent, nsent);
    /* the same snapshot again tells nothing new */
    e = state_in_play(0, 1, 9);
    feed(&e);
    told(&at, NULL, 0);

    /* B passes, C plays, our turn: asked once, answered */
    e = ev_played(1, 0, false);
    feed(&e);
    e = ev_played(2, CARDS(34), false);
    feed(&e);
    e = ev_turn(0, DDZ_EVENT_ACT_PLAY, 12);
    feed(&e);
    const char *t2[] = {"all play B pass", "all play C 34", "ASKED all ask A play seq 12 due 5000"};
    told(&at, t2, 3);
    cr_assert_eq(seat_acts(DDZ_EV_ASK_PLAY, 12, 0, 0), 0);
    sent_is("{\"type\":\"play\",\"seq\":12,\"cards\":[]}");

    /* the answer was lost with the connection: the state's turn gets it
     * again, the seat hears nothing twice */
    int before = R.nsent;
    ddz_bridge_connected(&B);
    e = ev_welcome();
    feed(&e);
    e = state_in_play(2, 0, 12);
    feed(&e);
    told(&at, NULL, 0);
    cr_assert_eq(R.nsent, before + 3); /* hello, list, and the answer again */
    sent_is("{\"type\":\"play\",\"seq\":12,\"cards\":[]}");
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);

    /* a snapshot of our turn the seat was not asked yet asks it */
    e = ev_played(0, 0, false);
    feed(&e);
    e = state_in_play(3, 0, 15);
    feed(&e);
    const char *t3[] = {"all play A pass", "ASKED all ask A play seq 15 due 5000"};
    told(&at, t3, 2);
}

Test(bridge_xlate, resume_after_the_game_ended, .fini = teardown)
{
    seated_at_a();
    feed_game(1, 2, 1);
    int at = 1;
    /* away during the end of game 1: the state's result tells how it ended */
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    e = ev_state(DDZ_EVENT_PH_BETWEEN);
    e.state.has_result = true;
    e.state.result = over_of(1, 1, 1, -1, 0);
    feed(&e);
    const char *t1[] = {"all over winner B"};
    told(&at, t1, 1);
    feed(&e); /* once */
    told(&at, NULL, 0);
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);

    /* away across the end of game 2 and into the turn's end: the seat hears
     * the game's end without a winner (nothing for a CAAI engine), then
     * the series' end; a rematch is asked */
    feed_game(2, 2, 2);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    e = ev_state(DDZ_EVENT_PH_TURN_OVER);
    e.state.game = 2;
    cr_assert_eq(feed(&e), DDZ_BRIDGE_GO);
    const char *t2[] = {"p0 game 2 seat A hand 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                        "ASKED all ask A bid seq 1 due 5000", "cancel", "all over winner -",
                        "all series"};
    told(&at, t2, 5);
    sent_is("{\"type\":\"rematch\"}");
    cr_assert_eq(B.warnings, 1, "the missed end is reported:\n%s", R.log);
}

Test(bridge_xlate, picks_a_room_or_creates_one, .fini = teardown)
{
    setup_bridge(&(ddz_bridge_opts){
        .token = "t", .seat = -1, .fill = "ai:greedy", .time = 7, .rules = "botzone-ftl2"});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    ddz_event_room rooms[4] = {0};
    const char *ids[] = {"nobots", "locked", "full", "good"};
    for (int i = 0; i < 4; i++) {
        snprintf(rooms[i].id, sizeof rooms[i].id, "%s", ids[i]);
        snprintf(rooms[i].rules, sizeof rooms[i].rules, "caai");
        rooms[i].time = 30;
        rooms[i].games = 6;
        rooms[i].bots = i > 0;
        rooms[i].password = i == 1;
        for (int s = 0; s < 3; s++) {
            rooms[i].seats[s].seated = i == 2 || (i == 3 && s != 1);
            snprintf(rooms[i].seats[s].name, sizeof rooms[i].seats[s].name, "x");
        }
    }
    e = (ddz_event){.type = DDZ_EVENT_ROOMS, .rooms = {.rooms = rooms, .nrooms = 4}};
    feed(&e);
    sent_is("{\"type\":\"join\",\"room\":\"good\"}");
    /* someone was quicker: look again, nothing fits, create */
    e = ev_error(DDZ_EFULL, DDZ_REQ_JOIN);
    feed(&e);
    sent_is("{\"type\":\"list\"}");
    e = (ddz_event){.type = DDZ_EVENT_ROOMS};
    feed(&e);
    json_t *c = R.sent[R.nsent - 1];
    cr_assert_str_eq(json_string_value(json_object_get(c, "type")), "create");
    json_t *o = json_object_get(c, "options");
    cr_assert(json_is_true(json_object_get(o, "bots")));
    cr_assert_eq(json_integer_value(json_object_get(o, "time")), 7);
    cr_assert_str_eq(json_string_value(json_object_get(o, "rules")), "botzone-ftl2");
    cr_assert_eq(json_integer_value(json_object_get(c, "seat")), 0);
    json_t *seats = json_object_get(o, "seats");
    cr_assert(json_is_null(json_array_get(seats, 0)));
    cr_assert_str_eq(json_string_value(json_array_get(seats, 1)), "ai:greedy");
    cr_assert_str_eq(json_string_value(json_array_get(seats, 2)), "ai:greedy");
    /* a stale action is a note; refusals end the bridge */
    e = ev_error(DDZ_ESTALE, DDZ_REQ_PLAY);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_GO);
    cr_assert_eq(B.warnings, 0, "log:\n%s", R.log);
    e = ev_error(DDZ_ENOTHELD, DDZ_REQ_PLAY);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_GO, "a refused play is the server's to charge");
    cr_assert(strstr(R.log, "refused our play: ENOTHELD"), "%s", R.log);
    /* a database away is no refusal: the bridge comes back later */
    e = ev_error(DDZ_EDB, DDZ_REQ_HELLO);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_RETRY);
    e = ev_error(DDZ_EAUTH, DDZ_REQ_CREATE);
    cr_assert_eq(feed(&e), DDZ_BRIDGE_REFUSED);
    e = (ddz_event){.type = DDZ_EVENT_BYE};
    snprintf(e.bye.reason, sizeof e.bye.reason, "shutting down");
    cr_assert_eq(feed(&e), DDZ_BRIDGE_BYE);
}

Test(bridge_xlate, follows_a_redirect_to_the_room_a_few_times_at_most, .fini = teardown)
{
    setup_bridge(&(ddz_bridge_opts){.token = "t", .seat = -1});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    cr_assert(B.resume[0]);
    ddz_event_room room = {
        .id = "n2-abcdefgh", .rules = "caai", .time = 30, .games = 6, .bots = true};
    e = (ddz_event){.type = DDZ_EVENT_ROOMS, .rooms = {.rooms = &room, .nrooms = 1}};
    feed(&e);
    sent_is("{\"type\":\"join\",\"room\":\"n2-abcdefgh\"}");
    /* the room is another node's: go there, hello without the old token,
     * and join the same room once the lobby answers */
    cr_assert_eq(frame("{\"type\":\"redirect\",\"url\":\"ws://127.0.0.1:9/ws\",\"about\":\"join\","
                       "\"room\":\"n2-abcdefgh\",\"reason\":\"room n2-abcdefgh is on node n2\"}"),
                 DDZ_BRIDGE_REDIRECT);
    cr_assert_str_eq(B.redirect, "ws://127.0.0.1:9/ws");
    cr_assert_str_eq(B.target_room, "n2-abcdefgh");
    ddz_bridge_connected(&B);
    json_t *hello = R.sent[R.nsent - 1];
    cr_assert_str_eq(json_string_value(json_object_get(hello, "type")), "hello");
    cr_assert_null(json_object_get(hello, "resume"), "the old node's token stays there");
    feed(&(ddz_event){
        .type = DDZ_EVENT_WELCOME,
        .welcome = {.version = 1, .id = "p9", .name = "b", .resume = "0123456789abcdef"}});
    sent_is("{\"type\":\"list\"}");
    e = (ddz_event){.type = DDZ_EVENT_ROOMS}; /* even when not listed (yet) */
    feed(&e);
    sent_is("{\"type\":\"join\",\"room\":\"n2-abcdefgh\"}");
    /* nodes that keep sending us on: the fourth redirect in a row ends it */
    const char *rd = "{\"type\":\"redirect\",\"url\":\"ws://127.0.0.1:10/ws\",\"about\":\"join\","
                     "\"reason\":\"elsewhere\"}";
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REFUSED);
    cr_assert(strstr(R.log, "redirected our join 4 times"), "%s", R.log);
    /* being seated starts the count again */
    setup_bridge(&(ddz_bridge_opts){.room = "n2-abcdefgh", .seat = -1});
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
        feed(&(ddz_event){.type = DDZ_EVENT_JOINED, .joined = {.room = "n2-abcdefgh", .seat = 1}});
    }
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
}

/* A redirect may not lower the scheme: from wss:// to ws:// our token
 * would go in clear (before, the bridge followed it and said hello with
 * the token to the ws:// address). Another host is followed, over the
 * scheme we came by. */
Test(bridge_xlate, a_redirect_never_lowers_the_scheme)
{
    ddz_url wss, ws, other_wss, other_ws;
    cr_assert_eq(ddz_url_parse("wss://ddz.example.org/n/n1/ws", &wss), 0);
    cr_assert_eq(ddz_url_parse("ws://ddz.example.org/n/n2/ws", &ws), 0);
    cr_assert_eq(ddz_url_parse("wss://n2.example.org:8443/ws", &other_wss), 0);
    cr_assert_eq(ddz_url_parse("ws://127.0.0.1:9/ws", &other_ws), 0);
    char err[160];
    cr_assert_eq(ddz_bridge_redirect_ok(&wss, &ws, err, sizeof err), DDZ_EINVAL);
    cr_assert(strstr(err, "in clear"), "%s", err);
    cr_assert_eq(ddz_bridge_redirect_ok(&wss, &other_ws, err, sizeof err), DDZ_EINVAL);
    cr_assert_eq(ddz_bridge_redirect_ok(&ws, &wss, err, sizeof err), DDZ_EINVAL);
    cr_assert(strstr(err, "start with a wss:// URL"), "%s", err);
    cr_assert_eq(ddz_bridge_redirect_ok(&wss, &other_wss, err, sizeof err), 0);
    cr_assert_eq(ddz_bridge_redirect_ok(&ws, &other_ws, err, sizeof err), 0);
}

Test(bridge_xlate, urls)
{
    ddz_url u;
    cr_assert_eq(ddz_url_parse("ws://127.0.0.1:8080/ws", &u), 0);
    cr_assert(!u.tls);
    cr_assert_str_eq(u.host, "127.0.0.1");
    cr_assert_eq(u.port, 8080);
    cr_assert_str_eq(u.path, "/ws");
    cr_assert_str_eq(u.hostport, "127.0.0.1:8080");
    cr_assert_eq(ddz_url_parse("wss://ddz.example", &u), 0);
    cr_assert(u.tls);
    cr_assert_eq(u.port, 443);
    cr_assert_str_eq(u.path, "/");
    cr_assert_eq(ddz_url_parse("ws://[::1]:9/ws", &u), 0);
    cr_assert_str_eq(u.host, "::1");
    cr_assert_str_eq(u.hostport, "[::1]:9");
    const char *bad[] = {"http://x/ws",   "ws://",       "ws://:80/", "ws://h:0/",
                         "ws://h:99999/", "ws://h:12x/", "ws://[::1/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(ddz_url_parse(bad[i], &u), DDZ_EINVAL, "%s", bad[i]);
}

/* ---- the translator with a real engine seat, on a poll loop ---- */

/* Whether the file `path` holds the line `line` (compared without its \r\n). */
static bool file_has_line(const char *path, const char *line)
{
    char *text = slurp(path);
    bool found = false;
    for (char *p = strtok(text, "\r\n"); p && !found; p = strtok(NULL, "\r\n"))
        found = strcmp(p, line) == 0;
    free(text);
    return found;
}

/* Runs `loop` until `cond` holds, at most `ms`. Returns whether it held. */
#define RUN_UNTIL(loop, cond, ms)                                                                  \
    ({                                                                                             \
        int64_t until_ = now_ms() + T(ms);                                                         \
        while (!(cond) && now_ms() < until_)                                                       \
            ddz_poll_loop_once(loop, 20);                                                          \
        (cond);                                                                                    \
    })

Test(bridge_seat, a_caai_engine_plays_through_the_translator, .fini = teardown, .timeout = HANG(60))
{
    char tmp[] = "/tmp/ddz-bridge-seat-XXXXXX";
    cr_assert(mkdtemp(tmp));
    char lines[128], cmd[512], err_log[128];
    snprintf(lines, sizeof lines, "%s/lines", tmp);
    snprintf(err_log, sizeof err_log, "%s/stderr", tmp);
    /* the engine answers garbage to its second request */
    snprintf(cmd, sizeof cmd, "'%s' --name tester --garbage-at 2 --log '%s'", DDZ_TESTENGINE,
             lines);
    ddz_loop *loop = ddz_poll_loop_create();
    cr_assert(loop);
    ddz_seat_env env = {.loop = loop, .stderr_log = err_log, .time_ms = 5000, .kill_grace_ms = -1};
    int err = 0;
    ddz_seat *s = ddz_seat_engine_create(cmd, "", &env, &err);
    cr_assert(s, "%s", ddz_strerror(err));
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    memset(&R, 0, sizeof R);
    ddz_bridge_init(&B, s, &IO, &(ddz_bridge_opts){.room = "r1", .seat = 0});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    frame("{\"type\":\"joined\",\"room\":\"r1\",\"seat\":0}");
    e = ev_state(DDZ_EVENT_PH_WAITING);
    feed(&e);

    /* game 1: INFO with the room's numbers, DEAL, and our bid goes out */
    feed_game(1, 2, 1);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    int n = R.nsent;
    cr_assert(RUN_UNTIL(loop, R.nsent > n, 5000), "no bid from the engine (log:\n%s)", R.log);
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":0}");
    char info[64];
    snprintf(info, sizeof info, "INFO 1,1,1,2,0,%d,5", ddz_rules_maxscore(&ddz_rules_caai, 2));
    const char *want[] = {"DOUDIZHUVER 1.0", info, "DEAL A0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                          "BID WHAT"};
    for (int i = 0; i < 4; i++)
        cr_assert(file_has_line(lines, want[i]), "the engine never read '%s'", want[i]);
    cr_assert(ddz_seat_connected(s));
    e = ev_bid(0, 0);
    feed(&e);
    e = ev_bid(1, 1);
    feed(&e);
    cr_assert(RUN_UNTIL(loop, file_has_line(lines, "BID B1"), 5000), "BID B1 never reached it");

    /* its garbage answer to the next request: the engine seat stops it,
     * nothing is sent, the server's clock is left to decide */
    e = ev_bid(2, 2);
    feed(&e);
    e = ev_leftover(2, CARDS(51, 52, 53), 2);
    feed(&e);
    e = ev_played(2, CARDS(20), false);
    feed(&e);
    e = ev_turn(0, DDZ_EVENT_ACT_PLAY, 5);
    feed(&e);
    n = R.nsent;
    cr_assert(RUN_UNTIL(loop, !ddz_seat_connected(s), 5000), "the engine still runs");
    cr_assert(strstr(R.log, "W engine tester failed (protocol)") && strstr(R.log, "XYZZY") &&
                  strstr(R.log, "the server's clock decides"),
              "%s", R.log);
    cr_assert_eq(R.nsent, n);
    e = ev_over(1, 1, -1, 0, DDZ_FAULT_TIMEOUT);
    feed(&e);

    /* game 2 starts it again */
    long restarts = ddz_seat_engine_restarts(s);
    feed_game(2, 2, 2);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    n = R.nsent;
    cr_assert(RUN_UNTIL(loop, R.nsent > n, 5000), "no bid in game 2 (log:\n%s)", R.log);
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":0}");
    cr_assert_eq(ddz_seat_engine_restarts(s), restarts + 1);
    ddz_seat_close(s);
    ddz_poll_loop_destroy(loop);
    unlink(lines);
    unlink(err_log);
    rmdir(tmp);
}

/* The last line of the file `path`, parsed (NULL if none or not JSON). */
static json_t *last_json_line(const char *path)
{
    char *text = slurp(path);
    char *last = NULL;
    for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
        last = p;
    json_t *j = last ? json_loads(last, 0, NULL) : NULL;
    free(text);
    return j;
}

/* The request `want` (JSON text) is the last the bot read: alone, from a
 * bot kept running, or else last of the whole `requests` of a fresh
 * process, whose `responses` are then `responses` (JSON text). */
static void bot_read(const char *lines, bool keep_form, const char *want, const char *responses)
{
    json_t *got = last_json_line(lines), *w = json_loads(want, 0, NULL);
    cr_assert(got && w, "the bot read nothing parseable (%s)", want);
    char *text = json_dumps(got, JSON_COMPACT);
    if (keep_form) {
        cr_assert(json_equal(got, w), "the bot read %s, not %s alone", text, want);
    } else {
        json_t *reqs = json_object_get(got, "requests");
        json_t *resp = json_loads(responses, 0, NULL);
        cr_assert(json_equal(json_array_get(reqs, json_array_size(reqs) - 1), w),
                  "the bot read %s, not ending with %s", text, want);
        cr_assert(json_equal(json_object_get(got, "responses"), resp), "%s: responses not %s", text,
                  responses);
        json_decref(resp);
    }
    free(text);
    json_decref(got);
    json_decref(w);
}

/* A Botzone bot behind the translator, in either mode: it is asked with
 * spec §11's requests made from the room's events, its answers go out as
 * requests; an answer that is not JSON fails the seat and sends nothing
 * (the server's clock decides), and the next game it plays again. */
static void botzone_through_translator(bool keep)
{
    char tmp[] = "/tmp/ddz-bridge-bz-XXXXXX";
    cr_assert(mkdtemp(tmp));
    char lines[128], once[128], cmd[512], err_log[128];
    snprintf(lines, sizeof lines, "%s/lines", tmp);
    snprintf(once, sizeof once, "%s/once", tmp);
    snprintf(err_log, sizeof err_log, "%s/stderr", tmp);
    /* its second ask (the first play request) is answered with garbage */
    snprintf(cmd, sizeof cmd, "'%s'%s --garbage-at 2 --once '%s' --log '%s'", DDZ_TESTBOT,
             keep ? " --keep-running" : "", once, lines);
    ddz_loop *loop = ddz_poll_loop_create();
    cr_assert(loop);
    ddz_seat_env env = {.loop = loop, .stderr_log = err_log, .kill_grace_ms = -1};
    int err = 0;
    ddz_seat *s = ddz_seat_program_create(DDZ_SEAT_BOTZONE, cmd, "", &env, &err);
    cr_assert(s, "%s", ddz_strerror(err));
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    memset(&R, 0, sizeof R);
    ddz_bridge_init(&B, s, &IO, &(ddz_bridge_opts){.room = "r1", .seat = 0});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    frame("{\"type\":\"joined\",\"room\":\"r1\",\"seat\":0}");
    e = ev_state(DDZ_EVENT_PH_WAITING);
    feed(&e);

    /* game 1: the bid request, in the whole form (a fresh process) */
    feed_game(1, 2, 1);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    int n = R.nsent;
    cr_assert(RUN_UNTIL(loop, R.nsent > n, 5000), "no bid from the bot (log:\n%s)", R.log);
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":1}");
    json_t *first = last_json_line(lines);
    json_t *want = json_loads(
        "{\"requests\":[{\"own\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],\"bid\":[]}],"
        "\"responses\":[],\"data\":\"\",\"globaldata\":\"\"}",
        0, NULL);
    cr_assert(json_equal(first, want), "first request: %s", json_dumps(first, JSON_COMPACT));
    json_decref(first);
    json_decref(want);

    /* the others bid, C is the landlord at 3 and leads; our play request
     * carries the hand, the last two plays, the leftover, the landlord, our
     * position and the final bid; the bot answers it with garbage */
    e = ev_bid(0, 1);
    feed(&e);
    e = ev_bid(1, 2);
    feed(&e);
    e = ev_bid(2, 3);
    feed(&e);
    e = ev_leftover(2, CARDS(51, 52, 53), 3);
    feed(&e);
    e = ev_played(2, CARDS(20), false);
    feed(&e);
    e = ev_turn(0, DDZ_EVENT_ACT_PLAY, 5);
    feed(&e);
    n = R.nsent;
    cr_assert(RUN_UNTIL(loop, strstr(R.log, "failed (protocol)"), 5000), "no failure:\n%s", R.log);
    bot_read(lines, keep,
             "{\"own\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],\"history\":[[],[20]],"
             "\"publiccard\":[51,52,53],\"landlord\":2,\"pos\":0,\"finalbid\":3}",
             "[1]");
    cr_assert(strstr(R.log, "W bot failed (protocol)") && strstr(R.log, "not a JSON object") &&
                  strstr(R.log, "the server's clock decides"),
              "%s", R.log);
    cr_assert_eq(R.nsent, n, "nothing is sent for a failed seat");
    cr_assert_eq(ddz_engine_settle(T(5000)), 0); /* stops finish off the caller's thread */
    cr_assert_eq(count_program(DDZ_TESTBOT, NULL), 0, "the failed bot still runs");
    e = ev_over(1, 1, -1, 0, DDZ_FAULT_TIMEOUT);
    feed(&e);

    /* game 2: the bot is asked afresh (a new game, a new process) and
     * plays; a kept bot then gets its next request alone */
    feed_game(2, 2, 2);
    e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
    feed(&e);
    n = R.nsent;
    cr_assert(RUN_UNTIL(loop, R.nsent > n, 5000), "no bid in game 2 (log:\n%s)", R.log);
    sent_is("{\"type\":\"bid\",\"seq\":1,\"bid\":1}");
    e = ev_bid(0, 1);
    feed(&e);
    e = ev_bid(1, 0);
    feed(&e);
    e = ev_bid(2, 0);
    feed(&e);
    e = ev_leftover(0, CARDS(51, 52, 53), 1);
    feed(&e);
    e = ev_turn(0, DDZ_EVENT_ACT_PLAY, 4);
    feed(&e);
    n = R.nsent;
    cr_assert(RUN_UNTIL(loop, R.nsent > n, 5000), "no play in game 2 (log:\n%s)", R.log);
    sent_is("{\"type\":\"play\",\"seq\":4,\"cards\":[0]}"); /* its lowest single */
    bot_read(lines, keep,
             "{\"own\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],\"history\":[[],[]],"
             "\"publiccard\":[51,52,53],\"landlord\":0,\"pos\":0,\"finalbid\":1}",
             "[1]");
    cr_assert_eq(R.give_ups, 0);
    cr_assert_leq(count_program(DDZ_TESTBOT, NULL), 1);
    ddz_seat_close(s);
    cr_assert_eq(ddz_engine_settle(T(5000)), 0); /* stops finish off the caller's thread */
    cr_assert_eq(count_program(DDZ_TESTBOT, NULL), 0, "closing the seat ends its bot");
    ddz_poll_loop_destroy(loop);
    unlink(lines);
    unlink(once);
    unlink(err_log);
    rmdir(tmp);
}

Test(bridge_seat, a_one_shot_botzone_bot_plays_through_the_translator, .fini = teardown,
     .timeout = HANG(60))
{
    botzone_through_translator(false);
}

Test(bridge_seat, a_kept_botzone_bot_plays_through_the_translator, .fini = teardown,
     .timeout = HANG(60))
{
    botzone_through_translator(true);
}

/* How often `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A bot that cannot even start fails every game before it ever answered:
 * at the third failure the bridge gives up (exit 1 in `ddz bridge`). */
Test(bridge_seat, a_bot_that_cannot_start_gives_up, .fini = teardown, .timeout = HANG(60))
{
    ddz_loop *loop = ddz_poll_loop_create();
    cr_assert(loop);
    ddz_seat_env env = {.loop = loop, .kill_grace_ms = -1};
    int err = 0;
    ddz_seat *s = ddz_seat_program_create(DDZ_SEAT_BOTZONE, "/nonexistent/ddz-bot", "", &env, &err);
    cr_assert(s, "%s", ddz_strerror(err));
    for (int i = 0; i < R.nsent; i++)
        json_decref(R.sent[i]);
    memset(&R, 0, sizeof R);
    ddz_bridge_init(&B, s, &IO, &(ddz_bridge_opts){.room = "r1", .seat = 0});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    frame("{\"type\":\"joined\",\"room\":\"r1\",\"seat\":0}");
    e = ev_state(DDZ_EVENT_PH_WAITING);
    feed(&e);
    int n = R.nsent;
    for (int g = 1; g <= 3; g++) {
        feed_game(g, 3, g);
        e = ev_turn(0, DDZ_EVENT_ACT_BID, 1);
        feed(&e);
        cr_assert(RUN_UNTIL(loop, occurrences(R.log, "W bot failed (crash)") == g, 5000),
                  "game %d: no failure:\n%s", g, R.log);
        cr_assert_eq(R.give_ups, g == 3, "game %d:\n%s", g, R.log);
        e = ev_over(g, g, -1, 0, DDZ_FAULT_TIMEOUT);
        feed(&e);
    }
    cr_assert(strstr(R.log, "W bot failed (crash)"), "%s", R.log);
    cr_assert(strstr(R.log, "the bot failed 3 times without ever answering"), "%s", R.log);
    cr_assert_eq(R.nsent, n, "nothing is sent for a bot that never answered");
    ddz_seat_close(s);
    ddz_poll_loop_destroy(loop);
}

/* `ddz bridge --help` says how to run a Botzone bot; a missing command
 * after -- and an unknown rule set are usage errors. */
Test(bridge_cli, help_and_usage)
{
    char cmd[400], buf[8192];
    snprintf(cmd, sizeof cmd, "'%s' bridge --help", DDZ_BIN);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    cr_assert_eq(pclose(f), 0);
    cr_assert(strstr(buf, "--botzone           COMMAND is a Botzone bot"), "%s", buf);
    snprintf(cmd, sizeof cmd, "'%s' bridge --url ws://127.0.0.1:1/ws --botzone 2>&1", DDZ_BIN);
    f = popen(cmd, "r");
    cr_assert(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    int status = pclose(f);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s", buf);
    cr_assert(strstr(buf, "the program's command is missing after --"), "%s", buf);
    snprintf(cmd, sizeof cmd, "'%s' bridge --url ws://127.0.0.1:1/ws --rules ftl -- x 2>&1",
             DDZ_BIN);
    f = popen(cmd, "r");
    cr_assert(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    status = pclose(f);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s", buf);
    cr_assert(strstr(buf, "--rules: unknown rule set (known: caai, botzone-ftl, botzone-ftl2)"),
              "%s", buf);
}

/* ---- real processes ---- */

typedef struct proc {
    pid_t pid; /* 0 once reaped */
    int pidfd;
    int code; /* exit status, or 128 + signal */
    char log[160];
} proc;

static char dir[64];
static char db[128];
static int port;
static proc server;
static const char *ai_delay_ms = "0"; /* the server's --ai-delay-ms */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes the test's directory (left in place when a test fails, for its logs). */
static void remove_dir(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Starts argv (NULL-terminated) with stdout and stderr appended to `log`. */
static void spawn(proc *p, const char *log, char *const argv[])
{
    snprintf(p->log, sizeof p->log, "%s", log);
    pid_t pid = spawn_logged(log, argv);
    p->pid = pid;
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    cr_assert_geq(p->pidfd, 0, "pidfd_open: %s", strerror(errno));
}

/* Waits up to `ms` for `p` to exit and reaps it. Returns true if it did. */
static bool reap_within(proc *p, int ms)
{
    if (!p->pid)
        return true;
    struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int status;
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            p->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            p->pid = 0;
            close(p->pidfd);
            return true;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        poll(&pf, 1, (int)left);
    }
}

static void kill_and_reap(proc *p)
{
    if (p->pid) {
        kill(p->pid, SIGKILL);
        reap_within(p, T(5000));
    }
}

static bool healthy(void)
{
    int status;
    char *body;
    if (ddz_wsc_http_get("127.0.0.1", port, "/healthz", 1000, &status, &body) < 0)
        return false;
    bool ok = status == 200 && strcmp(body, "ok\n") == 0;
    free(body);
    return ok;
}

static void server_start(void)
{
    snprintf(dir, sizeof dir, "/tmp/ddz-bridge-XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/ddz.db", dir);
    for (int attempt = 0; attempt < 5; attempt++) {
        port = free_port();
        char ps[16], log[128];
        snprintf(ps, sizeof ps, "%d", port);
        snprintf(log, sizeof log, "%s/serve.log", dir);
        char *argv[] = {DDZ_BIN,         "serve",
                        "--port",        ps,
                        "--bind",        "127.0.0.1",
                        "--db",          db,
                        "--web",         DDZ_SOURCE_DIR "/web",
                        "--ai-delay-ms", (char *)ai_delay_ms,
                        "--quiet",       NULL};
        spawn(&server, log, argv);
        int64_t deadline = now_ms() + T(10000);
        while (now_ms() < deadline) {
            if (healthy())
                return;
            if (reap_within(&server, 5))
                break;
        }
        if (server.pid) {
            kill_and_reap(&server);
            cr_assert_fail("the server did not answer /healthz within %d ms", T(10000));
        }
    }
    cr_assert_fail("the server would not start");
}

/* `ddz token add NAME`: returns the token (static buffer per call site). */
static void token_add(const char *name, char out[80])
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' token add '%s' --db '%s' 2>/dev/null", DDZ_BIN, name, db);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    cr_assert(fgets(out, 80, f), "ddz token add printed nothing");
    out[strcspn(out, "\r\n")] = '\0';
    cr_assert_eq(pclose(f), 0);
    cr_assert_gt(strlen(out), 16);
}

static json_t *recv_type(ddz_wsc *c, const char *type, int ms)
{
    json_t *f = ddz_wsc_recv_type(c, type, T(ms));
    cr_assert(f, "no '%s' frame within %d ms", type, T(ms));
    return f;
}

static ddz_wsc *watcher;
static char room[32];

static ddz_wsc *hello(const char *name)
{
    char err[160], h[128];
    ddz_wsc *c = ddz_wsc_connect("127.0.0.1", port, "/ws", T(5000), err, sizeof err);
    cr_assert(c, "%s", err);
    snprintf(h, sizeof h, "{\"type\":\"hello\",\"version\":1,\"name\":\"%s\"}", name);
    ddz_wsc_send(c, h);
    recv_type(c, "welcome", 5000);
    return c;
}

/* A room for bots under `rules` with `games` games a turn, a hosted AI in
 * seat 2 and two open seats, watched by `watcher`. Its creator must sit, so
 * it sits until the watcher is in, then leaves (the room lives on while
 * someone watches). */
static void make_room_of(int time, const char *rules, int games)
{
    ddz_wsc *creator = hello("creator");
    char create[300];
    snprintf(create, sizeof create,
             "{\"type\":\"create\",\"seat\":0,\"options\":{\"bots\":true,\"time\":%d,"
             "\"games\":%d,\"pause\":0,\"rules\":\"%s\",\"seats\":[null,null,\"ai:greedy\"]}}",
             time, games, rules);
    ddz_wsc_send(creator, create);
    json_t *j = recv_type(creator, "joined", 5000);
    snprintf(room, sizeof room, "%s", json_string_value(json_object_get(j, "room")));
    cr_assert(room[0]);
    watcher = hello("watcher");
    char sp[96];
    snprintf(sp, sizeof sp, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    ddz_wsc_send(watcher, sp);
    j = recv_type(watcher, "joined", 5000);
    cr_assert(json_is_null(json_object_get(j, "seat")));
    ddz_wsc_send(creator, "{\"type\":\"leave\"}");
    j = recv_type(creator, "joined", 5000);
    cr_assert(json_is_null(json_object_get(j, "room")));
    ddz_wsc_close(creator);
}

static void make_room(int time)
{
    make_room_of(time, "caai", 1);
}

/* Starts `ddz bridge` for seat `seat` of the room with options `opts`
 * (NULL-terminated, or NULL) and the program `engine` after `--`. */
static void start_bridge_with(proc *p, const char *name, const char *token, int seat,
                              char *const *opts, char *const *engine)
{
    char url[64], seat_s[4], log[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", port);
    snprintf(seat_s, sizeof seat_s, "%d", seat);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    char *argv[48] = {DDZ_BIN,  "bridge", "--url",  url,    "--token", (char *)token,
                      "--room", room,     "--seat", seat_s, "--name",  (char *)name};
    int n = 12;
    for (int i = 0; opts && opts[i]; i++)
        argv[n++] = opts[i];
    argv[n++] = "--";
    for (int i = 0; engine[i]; i++)
        argv[n++] = engine[i];
    argv[n] = NULL;
    spawn(p, log, argv);
}

static void start_bridge(proc *p, const char *name, const char *token, int seat, char **engine)
{
    start_bridge_with(p, name, token, seat, NULL, engine);
}

/* Whether the engine whose shell wrote `pidfile` is running (false while
 * the file is missing or empty). */
static bool pid_alive(const char *pidfile)
{
    char *s = slurp(pidfile);
    int pid = atoi(s);
    free(s);
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* A server, bot tokens for "west" (t1) and "south" (t2), and a room with
 * `time` seconds per action (make_room). */
static void server_and_room(char t1[80], char t2[80], int time)
{
    server_start();
    token_add("west", t1);
    token_add("south", t2);
    make_room(time);
}

Test(bridge_e2e, two_bridges_and_an_ai_play_then_the_server_leaves, .timeout = HANG(120))
{
    char t1[80], t2[80];
    server_and_room(t1, t2, 10);

    char pid1[128], pid2[128], sh1[256], sh2[256];
    snprintf(pid1, sizeof pid1, "%s/engine1.pid", dir);
    snprintf(pid2, sizeof pid2, "%s/engine2.pid", dir);
    snprintf(sh1, sizeof sh1, "echo $$ > '%s'; exec '%s' engine --ai greedy", pid1, DDZ_BIN);
    snprintf(sh2, sizeof sh2, "echo $$ > '%s'; exec '%s' engine --ai greedy --seed 7", pid2,
             DDZ_BIN);
    char *e1[] = {"/bin/sh", "-c", sh1, NULL}, *e2[] = {"/bin/sh", "-c", sh2, NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "south", t2, 1, e1);
    start_bridge(&b2, "west", t1, 0, e2);

    /* the game is played to its end, without a fault */
    json_t *over = recv_type(watcher, "over", 30000);
    json_t *fault = json_object_get(over, "fault");
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(json_is_null(fault), "fault %s\nsouth:\n%s\nwest:\n%s",
              json_dumps(fault, JSON_COMPACT), b1log, b2log);
    cr_assert(json_is_integer(json_object_get(over, "winner")) ||
              json_is_null(json_object_get(over, "landlord")));
    /* the bridges ask for a rematch: a second turn starts */
    recv_type(watcher, "turn_over", 10000);
    recv_type(watcher, "game", 10000);
    free(b1log);
    free(b2log);

    /* the server shuts down: the bridges stop their engines and exit 3 */
    /* the new turn's engines are up (the engine seat serves every turn,
     * starting an engine again if one exited after the last game) */
    int64_t deadline = now_ms() + T(5000);
    while (!(pid_alive(pid1) && pid_alive(pid2)) && now_ms() < deadline)
        poll(NULL, 0, 5);
    cr_assert(pid_alive(pid1) && pid_alive(pid2), "the engines of the second turn are not running");
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)), "the server did not stop");
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    b1log = slurp(b1.log);
    b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not exit\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert_eq(b1.code, 3, "south:\n%s", b1log);
    cr_assert_eq(b2.code, 3, "west:\n%s", b2log);
    cr_assert(strstr(b1log, "bye"), "south:\n%s", b1log);
    cr_assert(!strstr(b1log, "warning: engine"), "south:\n%s", b1log);
    cr_assert(!strstr(b2log, "warning: engine"), "west:\n%s", b2log);
    cr_assert(!pid_alive(pid1) && !pid_alive(pid2), "an engine outlived its bridge");
    free(b1log);
    free(b2log);
    ddz_wsc_close(watcher);
    remove_dir();
}

/* Garbage from the engine: the engine seat finds it, stops the engine and
 * sends nothing. The bridge cannot charge its own seat, so the server's
 * clock times the seat out (the room's 3 s); the engine is started again
 * for the next game. */
Test(bridge_e2e, garbage_from_the_engine_is_a_timeout_fault, .timeout = HANG(120))
{
    char t1[80], t2[80];
    server_and_room(t1, t2, 3);
    char *greedy[] = {DDZ_BIN, "engine", "--ai", "greedy", NULL};
    char *garbage[] = {DDZ_TESTENGINE, "--garbage-at", "1", NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "south", t2, 1, greedy);
    start_bridge(&b2, "west", t1, 0, garbage); /* seat 0 bids first */

    json_t *over = recv_type(watcher, "over", 20000);
    json_t *fault = json_object_get(over, "fault");
    cr_assert(json_is_object(fault), "no fault: %s", json_dumps(over, JSON_COMPACT));
    cr_assert_eq(json_integer_value(json_object_get(fault, "seat")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(fault, "kind")), "timeout");

    /* SIGTERM: the bridge stops its engine and exits 0 */
    kill(b2.pid, SIGTERM);
    kill(b1.pid, SIGINT);
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not exit on a signal\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert_eq(b2.code, 0, "west:\n%s", b2log);
    cr_assert_eq(b1.code, 0, "south:\n%s", b1log);
    cr_assert(strstr(b2log, "failed (protocol)") && strstr(b2log, "XYZZY"),
              "the bad answer is reported:\n%s", b2log);
    cr_assert(strstr(b2log, "the server's clock decides"), "west:\n%s", b2log);
    free(b1log);
    free(b2log);
    ddz_wsc_close(watcher);
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)));
    remove_dir();
}

/* The bug: a CAAI engine played through `ddz bridge` in a room that allows
 * bots sent an illegal play; the server answered it with an error, as a
 * person's misclick, and the table waited the whole clock (30 s) before
 * charging a timeout. A bot is a program: its illegal action is a fault at
 * once (spec §6). The engine bids 3, so it leads, and its first play is a
 * card it does not hold. */
Test(bridge_e2e, an_illegal_play_is_a_fault_at_once, .timeout = HANG(120))
{
    char t1[80], t2[80];
    server_and_room(t1, t2, 30);
    char lines[128];
    snprintf(lines, sizeof lines, "%s/west-engine.lines", dir);
    char *greedy[] = {DDZ_BIN, "engine", "--ai", "greedy", NULL};
    char *cheat[] = {DDZ_TESTENGINE, "--bid", "3", "--play-missing-at", "1", "--log", lines, NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge(&b1, "south", t2, 1, greedy);
    start_bridge(&b2, "west", t1, 0, cheat);

    recv_type(watcher, "game", 20000);
    int64_t dealt = now_ms();
    /* far less than the room's 30 s clock (T: slower under sanitizers) */
    json_t *over = recv_type(watcher, "over", 8000);
    int64_t took = now_ms() - dealt;
    char *b2log = slurp(b2.log);
    json_t *fault = json_object_get(over, "fault");
    cr_assert(json_is_object(fault), "no fault: %s\nwest:\n%s", json_dumps(over, JSON_COMPACT),
              b2log);
    cr_assert_eq(json_integer_value(json_object_get(fault, "seat")), 0, "west:\n%s", b2log);
    cr_assert_str_eq(json_string_value(json_object_get(fault, "kind")), "illegal", "west:\n%s",
                     b2log);
    cr_assert_lt(took, BELOW(8000, 30000), "the fault took %lld ms", (long long)took);
    free(b2log);
    /* the engine hears its fault (ERROR A), as from any CAAI referee */
    int64_t deadline = now_ms() + T(5000);
    while (!file_has_line(lines, "ERROR A") && now_ms() < deadline)
        poll(NULL, 0, 5);
    cr_assert(file_has_line(lines, "ERROR A"), "the engine was not told");
    /* the server sends its refusal after the `over` its charge made */
    deadline = now_ms() + T(5000);
    for (;;) {
        b2log = slurp(b2.log);
        if (strstr(b2log, "refused our play: ENOTHELD") || now_ms() >= deadline)
            break;
        free(b2log);
        poll(NULL, 0, 5);
    }
    cr_assert(strstr(b2log, "refused our play: ENOTHELD"), "west:\n%s", b2log);
    free(b2log);

    kill(b2.pid, SIGTERM);
    kill(b1.pid, SIGTERM);
    cr_assert(reap_within(&b1, T(10000)) && reap_within(&b2, T(10000)));
    b2log = slurp(b2.log);
    cr_assert(b1.code == 0 && b2.code == 0, "exit %d and %d\nwest:\n%s", b1.code, b2.code, b2log);
    free(b2log);
    ddz_wsc_close(watcher);
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)));
    remove_dir();
}

/* ---- Botzone bots behind real bridges ---- */

/* The record of the game `over` (a frame) is served at /api/games/ID and
 * `ddz verify` accepts it (the store writes on its own thread: a game just
 * over may take a moment to be served; bounded). */
static void verify_record(json_t *over)
{
    long long id = json_integer_value(json_object_get(over, "game_id"));
    cr_assert_gt(id, 0, "over without a game_id");
    char path[64];
    snprintf(path, sizeof path, "/api/games/%lld", id);
    int64_t deadline = now_ms() + T(5000);
    json_t *rec = NULL;
    while (!rec) {
        int status;
        char *body = NULL;
        cr_assert_eq(ddz_wsc_http_get("127.0.0.1", port, path, T(5000), &status, &body), 0);
        if (status == 200)
            rec = json_loads(body, 0, NULL);
        else
            cr_assert_eq(status, 404, "GET %s: %d", path, status);
        free(body);
        cr_assert(rec || now_ms() < deadline, "GET %s: still 404", path);
        if (!rec)
            poll(NULL, 0, 10); /* retry interval of a bounded wait */
    }
    char file[160], cmd[400], out[256] = "";
    snprintf(file, sizeof file, "%s/game-%lld.jsonl", dir, id);
    cr_assert_eq(json_dump_file(rec, file, JSON_COMPACT), 0);
    json_decref(rec);
    snprintf(cmd, sizeof cmd, "'%s' verify '%s' 2>&1", DDZ_BIN, file);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    if (!fgets(out, sizeof out, f))
        out[0] = '\0';
    int rc = pclose(f);
    cr_assert(rc == 0 && strcmp(out, "1 records verified\n") == 0, "ddz verify %s: %s", file, out);
}

/* The `fault` of an `over` frame: its seat, or -1 if none; its kind into
 * `kind`. */
static int fault_of(json_t *over, const char **kind)
{
    json_t *f = json_object_get(over, "fault");
    *kind = json_is_object(f) ? json_string_value(json_object_get(f, "kind")) : "";
    return json_is_object(f) ? (int)json_integer_value(json_object_get(f, "seat")) : -1;
}

/* The bridges' bots, and every bot process they ran, are gone: waits
 * (bounded) for the test bot to leave the process tree (this test reaps
 * orphans, so a bot its bridge left behind would still be counted). */
static void no_bot_left(void)
{
    int64_t deadline = now_ms() + T(3000);
    while (count_program(DDZ_TESTBOT, NULL) > 0 && now_ms() < deadline)
        poll(NULL, 0, 20); /* the interval of a bounded wait */
    cr_assert_eq(count_program(DDZ_TESTBOT, NULL), 0, "a bot process outlived its bridge");
}

/* Botzone bots in a caai room, one-shot at West and keep-running at South,
 * for one turn of three games (--turns 1: they leave and exit 0). West's bot
 * crashes at its first request (its bid in game 1): its seat fails, the
 * bridge sends nothing, the room's clock charges a timeout and, under caai,
 * the game ends; the bridge plays the next games. */
Test(bridge_e2e, botzone_bots_play_a_caai_room, .timeout = HANG(120))
{
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    char t1[80], t2[80];
    server_start();
    token_add("west", t1);
    token_add("south", t2);
    make_room_of(3, "caai", 3);
    char once[128];
    snprintf(once, sizeof once, "%s/west.once", dir);
    char *turns[] = {"--botzone", "--turns", "1", NULL};
    char *west[] = {DDZ_TESTBOT, "--crash-at", "1", "--once", once, NULL};
    char *south[] = {DDZ_TESTBOT, "--keep-running", NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge_with(&b1, "south", t2, 1, turns, south);
    start_bridge_with(&b2, "west", t1, 0, turns, west);

    for (int g = 1; g <= 3; g++) {
        json_t *over = recv_type(watcher, "over", 20000);
        const char *kind;
        int seat = fault_of(over, &kind);
        char *w = slurp(b2.log);
        if (g == 1) {
            cr_assert_eq(seat, 0, "game 1: %s\nwest:\n%s", json_dumps(over, JSON_COMPACT), w);
            cr_assert_str_eq(kind, "timeout");
        } else {
            cr_assert_eq(seat, -1, "game %d: %s\nwest:\n%s", g, json_dumps(over, JSON_COMPACT), w);
        }
        free(w);
        verify_record(over);
        cr_assert_leq(count_program(DDZ_TESTBOT, NULL), 2, "one bot process a seat at most");
    }
    recv_type(watcher, "turn_over", 10000);
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not leave\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert(b1.code == 0 && b2.code == 0, "exit %d, %d\nsouth:\n%s\nwest:\n%s", b1.code, b2.code,
              b1log, b2log);
    cr_assert(strstr(b2log, "warning: bot failed (crash)") &&
                  strstr(b2log, "the server's clock decides"),
              "west:\n%s", b2log);
    cr_assert(!strstr(b1log, "warning: bot"), "south:\n%s", b1log);
    cr_assert(strstr(b1log, "played 1 turn; done"), "south:\n%s", b1log);
    free(b1log);
    free(b2log);
    no_bot_left();
    ddz_wsc_close(watcher);
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)));
    remove_dir();
}

/* Botzone bots in a botzone-ftl2 room, keep-running at West and one-shot at
 * South. West's bot answers its first request (its bid) with garbage: its
 * seat fails, the room's clock charges a timeout and, under botzone-ftl2,
 * the referee plays West to the end: the game has a winner. The next game
 * is played as usual; in the next turn, with West's bot running, both
 * bridges get SIGTERM: they exit 0 and leave no bot process behind. */
Test(bridge_e2e, botzone_bots_play_an_ftl2_room_then_sigterm, .timeout = HANG(120))
{
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    char t1[80], t2[80];
    server_start();
    token_add("west", t1);
    token_add("south", t2);
    make_room_of(3, "botzone-ftl2", 2);
    char once[128];
    snprintf(once, sizeof once, "%s/west.once", dir);
    char *bz[] = {"--botzone", NULL};
    char *west[] = {DDZ_TESTBOT,
                    "--keep-running",
                    "--rules",
                    "botzone-ftl2",
                    "--garbage-at",
                    "1",
                    "--once",
                    once,
                    NULL};
    char *south[] = {DDZ_TESTBOT, "--rules", "botzone-ftl2", NULL};
    proc b1 = {0}, b2 = {0};
    start_bridge_with(&b1, "south", t2, 1, bz, south);
    start_bridge_with(&b2, "west", t1, 0, bz, west);

    for (int g = 1; g <= 2; g++) {
        json_t *over = recv_type(watcher, "over", 20000);
        const char *kind;
        int seat = fault_of(over, &kind);
        char *w = slurp(b2.log);
        cr_assert(json_is_integer(json_object_get(over, "winner")),
                  "game %d: played to the end: %s\nwest:\n%s", g, json_dumps(over, JSON_COMPACT),
                  w);
        if (g == 1) {
            cr_assert_eq(seat, 0, "game 1: %s\nwest:\n%s", json_dumps(over, JSON_COMPACT), w);
            cr_assert_str_eq(kind, "timeout");
        } else {
            cr_assert_eq(seat, -1, "game %d: %s\nwest:\n%s", g, json_dumps(over, JSON_COMPACT), w);
        }
        free(w);
        verify_record(over);
    }
    /* the bridges ask for a rematch: West's kept bot runs in the new game */
    recv_type(watcher, "turn_over", 10000);
    recv_type(watcher, "game", 10000);
    int64_t deadline = now_ms() + T(5000);
    while (count_program(DDZ_TESTBOT, "--keep-running") < 1 && now_ms() < deadline)
        poll(NULL, 0, 5);
    cr_assert_eq(count_program(DDZ_TESTBOT, "--keep-running"), 1, "West's bot is not running");

    kill(b2.pid, SIGTERM);
    kill(b1.pid, SIGTERM);
    bool r1 = reap_within(&b1, T(10000)), r2 = reap_within(&b2, T(10000));
    char *b1log = slurp(b1.log), *b2log = slurp(b2.log);
    cr_assert(r1 && r2, "a bridge did not exit on SIGTERM\nsouth:\n%s\nwest:\n%s", b1log, b2log);
    cr_assert(b1.code == 0 && b2.code == 0, "exit %d, %d\nsouth:\n%s\nwest:\n%s", b1.code, b2.code,
              b1log, b2log);
    cr_assert(strstr(b2log, "warning: bot failed (protocol)") && strstr(b2log, "XYZZY"),
              "west:\n%s", b2log);
    cr_assert(!strstr(b1log, "warning: bot"), "south:\n%s", b1log);
    free(b1log);
    free(b2log);
    no_bot_left();
    ddz_wsc_close(watcher);
    kill(server.pid, SIGTERM);
    cr_assert(reap_within(&server, T(10000)));
    remove_dir();
}

/* A bot is no person: hosted AIs at a table of programs do not pause for
 * people to follow (--ai-delay-ms). With 5 s a decision, a game with two
 * hosted AIs would last minutes; the bridge's one-game turn, in a room it
 * makes with --fill, is over long before that. */
Test(bridge_e2e, hosted_ais_do_not_pause_for_a_bot, .timeout = HANG(120))
{
    ai_delay_ms = "5000";
    server_start();
    ai_delay_ms = "0";
    char t1[80];
    token_add("west", t1);
    char url[64], log[128], sh[256];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/ws", port);
    snprintf(log, sizeof log, "%s/west.log", dir);
    snprintf(sh, sizeof sh, "exec '%s' engine --ai greedy", DDZ_BIN);
    char *argv[] = {DDZ_BIN,     "bridge",  "--url", url,       "--token", t1,       "--fill",
                    "ai:greedy", "--games", "1",     "--turns", "1",       "--time", "10",
                    "--",        "/bin/sh", "-c",    sh,        NULL};
    proc b = {0};
    spawn(&b, log, argv);
    bool done = reap_within(&b, T(25000));
    char *blog = slurp(b.log);
    cr_assert(done, "the game with two hosted AIs took over 25 s:\n%s", blog);
    cr_assert_eq(b.code, 0, "%s", blog);
    free(blog);
    kill_and_reap(&server);
    remove_dir();
}

/* A ladder bot is sent, unasked, to the node that gathers the ladder's
 * bots: it goes there and enlists again, and each `enlisted` starts the
 * count of redirects again (so being moved now and then never ends it). */
Test(bridge_xlate, an_enlisted_bot_follows_unasked_redirects_and_enlists_again, .fini = teardown)
{
    setup_bridge(
        &(ddz_bridge_opts){.token = "t", .seat = -1, .enlist = true, .competition = "ladder"});
    ddz_bridge_connected(&B);
    ddz_event e = ev_welcome();
    feed(&e);
    sent_is("{\"type\":\"enlist\",\"competition\":\"ladder\"}");
    const char *rd = "{\"type\":\"redirect\",\"url\":\"ws://127.0.0.1:11/ws\",\"about\":\"enlist\","
                     "\"reason\":\"the ladder gathers its bots on node n1\"}";
    for (int i = 0; i < 5; i++) {
        feed(&(ddz_event){.type = DDZ_EVENT_ENLISTED,
                          .enlisted = {.competition = "ladder", .player = "alpha"}});
        cr_assert(B.enlisted);
        cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT, "redirect %d", i + 1);
        cr_assert_str_eq(B.redirect, "ws://127.0.0.1:11/ws");
        ddz_bridge_connected(&B);
        cr_assert(!B.enlisted, "enlisted survives a new connection");
        json_t *hello = R.sent[R.nsent - 1];
        cr_assert_str_eq(json_string_value(json_object_get(hello, "type")), "hello");
        feed(&(ddz_event){
            .type = DDZ_EVENT_WELCOME,
            .welcome = {.version = 1, .id = "p9", .name = "b", .resume = "0123456789abcdef"}});
        sent_is("{\"type\":\"enlist\",\"competition\":\"ladder\"}");
    }
    /* without `enlisted` between them (the loop's last redirect is the
     * first), the fourth in a row ends it */
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REDIRECT);
    cr_assert_eq(frame(rd), DDZ_BRIDGE_REFUSED);
    cr_assert(strstr(R.log, "redirected our enlist 4 times"), "%s", R.log);
}
