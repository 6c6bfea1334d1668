/* bridge.c - `ddz bridge`: the translator (server events to a seat's table
 * events, its answers to requests; no I/O) and its driver (one
 * libwebsockets loop holding the WebSocket and the program's seat: a CAAI
 * engine or a Botzone bot). */
#include "service/bridge/bridge.h"

#include <fcntl.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/event.h"
#include "proto/fail.h"
#include "proto/msg.h"
#include "rules/error.h"
#include "rules/game.h"
#include "service/net/evloop.h"
#include "service/net/lws_loop.h"
#include "service/net/ws_conn.h"
#include "service/seats/seats.h"

/* ---- URLs ---- */

int ddz_url_parse(const char *url, ddz_url *out)
{
    memset(out, 0, sizeof *out);
    const char *p;
    if (strncmp(url, "ws://", 5) == 0) {
        p = url + 5;
    } else if (strncmp(url, "wss://", 6) == 0) {
        p = url + 6;
        out->tls = true;
    } else {
        return DDZ_EINVAL;
    }
    const char *host = p, *host_end;
    if (*p == '[') {
        host = ++p;
        host_end = strchr(p, ']');
        if (!host_end)
            return DDZ_EINVAL;
        p = host_end + 1;
    } else {
        host_end = p + strcspn(p, ":/");
        p = host_end;
    }
    size_t hlen = (size_t)(host_end - host);
    if (hlen == 0 || hlen >= sizeof out->host)
        return DDZ_EINVAL;
    memcpy(out->host, host, hlen);
    out->port = out->tls ? 443 : 80;
    if (*p == ':') {
        char *end;
        long port = strtol(p + 1, &end, 10);
        if (end == p + 1 || port < 1 || port > 65535 || (*end && *end != '/'))
            return DDZ_EINVAL;
        out->port = (int)port;
        p = end;
    }
    if (*p && *p != '/')
        return DDZ_EINVAL;
    if (strlen(*p ? p : "/") >= sizeof out->path)
        return DDZ_EINVAL;
    snprintf(out->path, sizeof out->path, "%s", *p ? p : "/");
    snprintf(out->hostport, sizeof out->hostport, strchr(out->host, ':') ? "[%s]:%d" : "%s:%d",
             out->host, out->port);
    return 0;
}

int ddz_bridge_redirect_ok(const ddz_url *from, const ddz_url *to, char *err, size_t errlen)
{
    if (from->tls && !to->tls)
        return ddz_fail(DDZ_EINVAL, err, errlen,
                        "refused: it would take us from wss:// to ws://, and our token "
                        "would go in clear");
    if (to->tls && !from->tls)
        return ddz_fail(DDZ_EINVAL, err, errlen,
                        "refused: it needs TLS, which is set up only for a wss:// start: start "
                        "with a wss:// URL");
    return 0;
}

/* ---- the translator: small helpers ---- */

static const char seat_letter[] = "ABC";

static void say(ddz_bridge *b, bool warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(ddz_bridge *b, bool warn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warn)
        b->warnings++;
    b->io.log(b->io.ctx, warn, msg);
}

static void send_req(ddz_bridge *b, const ddz_req *q)
{
    json_t *j = ddz_req_print(q);
    if (j)
        b->io.server_send(b->io.ctx, j);
}

/* What plays our seat, for log lines: "engine", "bot". */
static const char *what(const ddz_bridge *b)
{
    return ddz_seat_what(b->adapter);
}

/* The seat plays the current game and has not failed in it. */
static bool live(const ddz_bridge *b)
{
    return b->in_game && !b->failed;
}

/* Hands `ev` of the current game to the seat, if it is still in it. */
static void deliver(ddz_bridge *b, ddz_ev ev)
{
    if (!live(b) || !b->adapter->ops->deliver)
        return;
    ev.game = b->game - 1;
    b->adapter->ops->deliver(b->adapter, &ev, NULL);
}

/* The table moved on without the seat's answer: it drops it. */
static void cancel_ask(ddz_bridge *b)
{
    bool owed = b->asked && !b->answered;
    b->asked = b->answered = false;
    if (owed && b->adapter->ops->cancel)
        b->adapter->ops->cancel(b->adapter);
}

static void send_answer(ddz_bridge *b)
{
    ddz_req q = {.type = b->ask_action == DDZ_EV_ASK_BID ? DDZ_REQ_BID : DDZ_REQ_PLAY,
                 .seq = b->ask_seq,
                 .bid = b->answer_bid,
                 .cards = b->answer_cards,
                 .seat = -1};
    send_req(b, &q);
}

/* ---- the translator: the seat's host ---- */

static int host_act(void *ctx, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards)
{
    ddz_bridge *b = ctx;
    if (s != b->adapter || !live(b) || !b->asked || b->answered || seq != b->ask_seq ||
        action != b->ask_action) {
        say(b, false, "the %s's %s for request %u came after the table moved on: not sent", what(b),
            action == DDZ_EV_ASK_BID ? "bid" : "play", (unsigned)seq);
        return DDZ_ESTALE;
    }
    b->answered = true;
    b->proven = true; /* it can play */
    b->answer_bid = bid;
    b->answer_cards = action == DDZ_EV_ASK_PLAY ? cards : 0;
    send_answer(b);
    return 0; /* legality is the server's: it charges a bot's illegal action */
}

static void host_fault(void *ctx, ddz_seat *s, int kind, int game, const char *why)
{
    ddz_bridge *b = ctx;
    bool current = live(b) && (game < 0 || game == b->game - 1);
    const char *name = s->ops->name(s);
    say(b, true, "%s%s%s failed (%s): %s%s", what(b), name[0] ? " " : "", name,
        ddz_fault_name(kind), why,
        !current                   ? " (no game of it is being played)"
        : b->asked && !b->answered ? "; it owed an answer: the server's clock decides"
                                   : "; it sits out the rest of the game");
    if (current) {
        b->failed = true; /* it owes nothing: the seat stopped its program */
        b->asked = b->answered = false;
    }
    /* a program that never once said its name (CAAI) nor answered a
     * request cannot play at all: a wrong command line, a missing
     * interpreter */
    if (!name[0] && !b->proven && ++b->early_failures >= DDZ_BRIDGE_GIVE_UP && b->io.give_up) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "the %s failed %d times without ever answering or saying its name; giving up",
                 what(b), b->early_failures);
        b->io.give_up(b->io.ctx, msg);
    }
}

static void host_note(void *ctx, ddz_seat *s, const char *msg)
{
    ddz_bridge *b = ctx;
    const char *name = s->ops->name(s);
    say(b, false, "%s%s%s: %s", what(b), name[0] ? " " : "", name, msg);
}

static void host_info(void *ctx, ddz_table_info *out)
{
    ddz_bridge *b = ctx;
    ddz_room_opts dflt;
    ddz_room_opts_default(&dflt);
    int turn = b->turns_done + 1, games = b->games > 0 ? b->games : 1;
    *out = (ddz_table_info){
        .turn = turn,
        .turns = b->opts.turns > turn ? b->opts.turns : turn,
        .game = b->game,
        .games = games,
        .up = 0,
        .maxscore = ddz_rules_maxscore(b->rules, games),
        .time_s = b->time > 0 ? b->time : dflt.time,
    };
}

/* ---- the translator: game events ---- */

/* The game the seat was in ended while we were away, and how is not known
 * (a new game has begun since): it is told the end without a winner, as
 * after all passed, which CAAI engines hear as nothing before the next
 * INFO (a Botzone bot's process for the game is ended). */
static void end_unknown(ddz_bridge *b)
{
    if (!b->in_game)
        return;
    if (live(b))
        say(b, true, "game %d ended while we were away; the %s hears no end of it", b->game,
            what(b));
    cancel_ask(b);
    deliver(b, (ddz_ev){.kind = DDZ_EV_OVER, .to = DDZ_TO_ALL, .seat = -1, .fault_seat = -1});
    b->in_game = false;
}

/* A new game: the seat is dealt `hand`. */
static void begin_game(ddz_bridge *b, int game, int games, const uint8_t commit[DDZ_SEED_BYTES],
                       ddz_cards hand)
{
    end_unknown(b);
    b->in_game = true;
    b->failed = false;
    b->game = game;
    b->games = games;
    memcpy(b->commit, commit, DDZ_SEED_BYTES);
    memset(b->heard_bid, -1, sizeof b->heard_bid);
    b->heard_leftover = false;
    b->heard_plays = 0;
    b->heard_ask = -1;
    b->asked = b->answered = false;
    b->voted = false;
    deliver(b, (ddz_ev){.kind = DDZ_EV_GAME, .to = 0, .seat = (int8_t)b->seat, .cards = hand});
}

static void on_turn(ddz_bridge *b, const ddz_event_turn *t)
{
    int action = t->action == DDZ_EVENT_ACT_BID ? DDZ_EV_ASK_BID : DDZ_EV_ASK_PLAY;
    int64_t now_ms = b->adapter->loop ? ddz_loop_now_us(b->adapter->loop) / 1000 : 0;
    ddz_ev ev = {.kind = (uint8_t)action,
                 .to = DDZ_TO_ALL,
                 .seat = (int8_t)t->seat,
                 .seq = t->seq,
                 .game = b->game - 1,
                 .deadline_ms = now_ms + t->deadline_ms};
    if (t->seat != b->seat) {
        if (t->seq != b->heard_ask) {
            b->heard_ask = t->seq;
            deliver(b, ev);
        }
        return;
    }
    if (!live(b)) {
        say(b, true, "asked to %s, but no %s plays this game: the server's clock decides",
            action == DDZ_EV_ASK_BID ? "bid" : "play", what(b));
        return;
    }
    if (b->asked && b->ask_seq == t->seq) {
        if (b->answered)
            send_answer(b); /* it may have been lost with a connection */
        return;             /* else it is thinking */
    }
    cancel_ask(b);
    b->asked = true;
    b->ask_seq = t->seq;
    b->ask_action = (uint8_t)action;
    b->heard_ask = t->seq;
    b->adapter->ops->ask(b->adapter, &ev, NULL); /* may answer at once */
}

/* Our seat bid or played: the request is closed (answered, or taken over
 * by someone else while we were away). */
static void own_action(ddz_bridge *b, int seat)
{
    if (seat == b->seat)
        cancel_ask(b);
}

static void relay_bid(ddz_bridge *b, int seat, int bid)
{
    if (!live(b))
        return;
    own_action(b, seat);
    b->heard_bid[seat] = (int8_t)bid;
    deliver(
        b,
        (ddz_ev){.kind = DDZ_EV_BID, .to = DDZ_TO_ALL, .seat = (int8_t)seat, .bid = (uint8_t)bid});
}

static void relay_leftover(ddz_bridge *b, int landlord, ddz_cards cards)
{
    if (!live(b))
        return;
    b->heard_leftover = true;
    deliver(b, (ddz_ev){.kind = DDZ_EV_LEFTOVER,
                        .to = DDZ_TO_ALL,
                        .seat = (int8_t)landlord,
                        .cards = cards});
}

static void relay_play(ddz_bridge *b, int seat, ddz_cards cards, bool autopass)
{
    if (!live(b))
        return;
    own_action(b, seat);
    b->heard_plays++;
    deliver(b, (ddz_ev){.kind = DDZ_EV_PLAY,
                        .to = DDZ_TO_ALL,
                        .seat = (int8_t)seat,
                        .autopass = autopass,
                        .cards = cards});
}

static void on_over(ddz_bridge *b, const ddz_event_over *o)
{
    int me = b->seat >= 0 ? b->seat : 0;
    if (o->fault_seat >= 0)
        say(b, o->fault_seat == b->seat, "game %d: fault of seat %c (%s)%s", o->game,
            seat_letter[o->fault_seat], ddz_fault_name(o->fault_kind),
            o->fault_seat == b->seat ? " - ours" : "");
    else
        say(b, false, "game %d: %s; scores %.15g %.15g %.15g, totals %.15g %.15g %.15g", o->game,
            /* by side, not by score: under botzone-ftl a losing side may
             * score above 0 (its plays' weights) */
            o->winner < 0 && o->landlord < 0                    ? "all passed"
            : o->winner < 0                                     ? "no winner"
            : (o->winner == o->landlord) == (me == o->landlord) ? "we won"
                                                                : "we lost",
            o->scores[0], o->scores[1], o->scores[2], o->totals[0], o->totals[1], o->totals[2]);
    if (memcmp(o->commit, b->commit, DDZ_SEED_BYTES) != 0) {
        end_unknown(b); /* not the game the seat was dealt */
        return;
    }
    if (!b->in_game)
        return;
    cancel_ask(b);
    deliver(b, (ddz_ev){.kind = DDZ_EV_OVER,
                        .to = DDZ_TO_ALL,
                        .seat = (int8_t)o->winner,
                        .fault_seat = (int8_t)o->fault_seat,
                        .fault_kind = (uint8_t)(o->fault_seat >= 0 ? o->fault_kind : 0)});
    b->in_game = false;
}

static int on_turn_over(ddz_bridge *b)
{
    end_unknown(b);
    if (b->adapter->ops->deliver) /* a CAAI engine may exit now (spec §7) */
        b->adapter->ops->deliver(b->adapter,
                                 &(ddz_ev){.kind = DDZ_EV_SERIES,
                                           .to = DDZ_TO_ALL,
                                           .seat = -1,
                                           .game = b->game > 0 ? b->game - 1 : 0},
                                 NULL);
    b->turns_done++;
    b->voted = true;
    if (b->opts.enlist)
        return DDZ_BRIDGE_GO; /* the server seats us at the next table */
    if (b->opts.turns > 0 && b->turns_done >= b->opts.turns) {
        say(b, false, "played %d turn%s; done", b->turns_done, b->turns_done == 1 ? "" : "s");
        send_req(b, &(ddz_req){.type = DDZ_REQ_LEAVE, .seat = -1});
        return DDZ_BRIDGE_DONE;
    }
    send_req(b, &(ddz_req){.type = DDZ_REQ_REMATCH, .seat = -1});
    return DDZ_BRIDGE_GO;
}

/* After a (re)connection: tell the seat what it has not heard. */
static int on_state(ddz_bridge *b, const ddz_event_state *st)
{
    b->seated = st->seat >= 0;
    b->seat = st->seat;
    if (!b->seated)
        return DDZ_BRIDGE_GO;
    snprintf(b->room, sizeof b->room, "%s", st->room);
    b->time = st->options.time;
    const ddz_rules *rs = ddz_rules_find(st->options.rules);
    if (rs)
        b->rules = rs;

    if (st->phase != DDZ_EVENT_PH_BID && st->phase != DDZ_EVENT_PH_PLAY) {
        if (st->has_result && b->in_game &&
            memcmp(st->result.commit, b->commit, DDZ_SEED_BYTES) == 0)
            on_over(b, &st->result); /* the end we missed while away */
        end_unknown(b);
        if (st->phase == DDZ_EVENT_PH_TURN_OVER && !b->voted)
            return on_turn_over(b);
        return DDZ_BRIDGE_GO;
    }

    /* a game is being played */
    if (!st->has_hand || !st->has_commit) {
        say(b, true, "a state snapshot of a game without our hand");
        return DDZ_BRIDGE_GO;
    }
    if (!b->in_game || memcmp(st->commit, b->commit, DDZ_SEED_BYTES) != 0) {
        /* the deal as it was: own cards now, plus own plays, less the leftover */
        ddz_cards dealt = st->hand;
        for (int i = 0; i < st->nhistory; i++)
            if (st->history[i].seat == b->seat)
                dealt |= st->history[i].cards;
        if (st->landlord == b->seat && st->has_leftover)
            dealt &= ~st->leftover;
        begin_game(b, st->game, st->games, st->commit, dealt);
    }
    for (int s = 0; s < 3; s++)
        if (st->players[s].in_game && st->players[s].bid >= 0 && b->heard_bid[s] < 0)
            relay_bid(b, s, st->players[s].bid);
    if (st->landlord >= 0 && st->has_leftover && !b->heard_leftover)
        relay_leftover(b, st->landlord, st->leftover);
    for (int i = b->heard_plays; live(b) && i < st->nhistory; i++)
        relay_play(b, st->history[i].seat, st->history[i].cards, st->history[i].autopass);
    if (st->has_turn)
        on_turn(b, &st->turn);
    return DDZ_BRIDGE_GO;
}

/* ---- the translator: lobby ---- */

static void choose_room(ddz_bridge *b, const ddz_event_rooms *rooms)
{
    ddz_req q = {.type = DDZ_REQ_JOIN, .seat = b->opts.seat};
    if (b->opts.password)
        snprintf(q.password, sizeof q.password, "%s", b->opts.password);
    if (b->target_room[0] || b->opts.room) {
        /* a room another node redirected us to is the one we chose there */
        snprintf(q.room, sizeof q.room, "%s", b->target_room[0] ? b->target_room : b->opts.room);
        send_req(b, &q);
        b->joining = true;
        return;
    }
    for (size_t i = 0; i < rooms->nrooms; i++) {
        const ddz_event_room *r = &rooms->rooms[i];
        if (!r->bots || r->password || r->playing)
            continue;
        bool free_seat = false;
        for (int s = 0; s < 3; s++)
            if ((b->opts.seat < 0 || b->opts.seat == s) && !r->seats[s].seated)
                free_seat = true;
        if (!free_seat)
            continue;
        snprintf(q.room, sizeof q.room, "%s", r->id);
        q.password[0] = '\0';
        say(b, false, "joining room %s (%s)", q.room, r->name);
        send_req(b, &q);
        b->joining = true;
        return;
    }
    ddz_req c = {.type = DDZ_REQ_CREATE, .seat = b->opts.seat >= 0 ? b->opts.seat : 0};
    ddz_room_opts_default(&c.opts);
    c.opts.bots = true;
    /* not the `fill` option: it fills our seat too */
    for (int s = 0; s < 3 && b->opts.fill; s++)
        if (s != c.seat)
            snprintf(c.opts.seats[s], sizeof c.opts.seats[s], "%s", b->opts.fill);
    if (b->opts.time > 0)
        c.opts.time = b->opts.time;
    if (b->opts.games > 0)
        c.opts.games = b->opts.games;
    if (b->opts.rules)
        snprintf(c.opts.rules, sizeof c.opts.rules, "%s", b->opts.rules);
    say(b, false, "no open room takes bots: creating one");
    send_req(b, &c);
    b->joining = true;
}

static void on_welcome(ddz_bridge *b, const ddz_event_welcome *w)
{
    if (b->resumed && strcmp(w->id, b->player) != 0)
        say(b, true, "the server no longer knew us (restarted?): joining again");
    else if (b->resumed)
        say(b, false, "reconnected");
    else
        say(b, false, "connected as %s (%s)", w->name, w->id);
    snprintf(b->player, sizeof b->player, "%s", w->id);
    snprintf(b->resume, sizeof b->resume, "%s", w->resume);
    if (b->opts.enlist) { /* again after a reconnection: harmless if still enlisted */
        ddz_req q = {.type = DDZ_REQ_ENLIST, .seat = -1};
        if (b->opts.competition)
            snprintf(q.competition, sizeof q.competition, "%s", b->opts.competition);
        send_req(b, &q);
        return;
    }
    /* a resumed seat is followed by `state` before the `rooms` answer */
    send_req(b, &(ddz_req){.type = DDZ_REQ_LIST, .seat = -1});
}

static void on_joined(ddz_bridge *b, const ddz_event_joined *j)
{
    b->joining = false;
    b->seated = j->room[0] && j->seat >= 0;
    if (!b->seated)
        return;
    b->seat = j->seat;
    b->hops = 0;
    b->target_room[0] = '\0';
    snprintf(b->room, sizeof b->room, "%s", j->room);
    say(b, false, "seated in room %s as %c (seat %d)", b->room, seat_letter[b->seat], b->seat);
}

static int on_error(ddz_bridge *b, const ddz_event_error *e)
{
    const char *about = e->about ? ddz_req_name(e->about) : "frame";
    bool lobby = e->about == DDZ_REQ_HELLO || e->about == DDZ_REQ_JOIN ||
                 e->about == DDZ_REQ_CREATE || e->about == DDZ_REQ_ENLIST;
    if (e->code == DDZ_EDB && lobby) {
        /* not a verdict on us: the server could not check our token (or
         * seat us) without its database, which is away for now */
        say(b, true, "the server cannot take our %s now: %s", about, e->message);
        return DDZ_BRIDGE_RETRY;
    } else if (e->code == DDZ_ESTALE) {
        say(b, false, "the server had already taken our %s", about);
    } else if (e->about == DDZ_REQ_JOIN && !b->opts.room && e->code == DDZ_EFULL) {
        b->joining = false; /* lost a race for the seat: look again */
        send_req(b, &(ddz_req){.type = DDZ_REQ_LIST, .seat = -1});
    } else {
        say(b, true, "the server refused our %s: %s %s", about, ddz_errname(e->code), e->message);
        if (lobby || e->code == DDZ_EAUTH)
            return DDZ_BRIDGE_REFUSED;
    }
    return DDZ_BRIDGE_GO;
}

static int on_redirect(ddz_bridge *b, const ddz_event_redirect *rd)
{
    if (++b->hops > DDZ_BRIDGE_MAX_HOPS) {
        say(b, true, "the server redirected our %s %d times in a row: giving up",
            ddz_req_name(rd->about), b->hops);
        return DDZ_BRIDGE_REFUSED;
    }
    say(b, false, "redirected to %s for our %s%s%s: %s", rd->url, ddz_req_name(rd->about),
        rd->room[0] ? " of room " : "", rd->room, rd->reason);
    snprintf(b->redirect, sizeof b->redirect, "%s", rd->url);
    snprintf(b->target_room, sizeof b->target_room, "%s", rd->room);
    /* The token is the other node's: a hello there with it would be refused
     * as unknown and start a new session anyway. */
    b->resume[0] = '\0';
    b->player[0] = '\0';
    b->joining = false;
    return DDZ_BRIDGE_REDIRECT;
}

void ddz_bridge_init(ddz_bridge *b, ddz_seat *adapter, const ddz_bridge_io *io,
                     const ddz_bridge_opts *opts)
{
    memset(b, 0, sizeof *b);
    b->io = *io;
    b->opts = *opts;
    if (!b->opts.name || !*b->opts.name)
        b->opts.name = "bridge";
    b->adapter = adapter;
    adapter->player = 0; /* the bridge drives one player */
    adapter->host = (ddz_seat_host){b, host_act, host_fault, host_note, NULL, host_info};
    b->seat = -1;
    b->rules = &ddz_rules_caai;
    b->heard_ask = -1;
}

void ddz_bridge_connected(ddz_bridge *b)
{
    ddz_req q = {.type = DDZ_REQ_HELLO, .version = DDZ_PROTOCOL_VERSION, .seat = -1};
    snprintf(q.name, sizeof q.name, "%.32s", b->opts.name);
    if (b->opts.token)
        snprintf(q.token, sizeof q.token, "%s", b->opts.token);
    snprintf(q.resume, sizeof q.resume, "%s", b->resume);
    b->resumed = b->resume[0] != '\0';
    b->seated = b->joining = b->enlisted = false;
    send_req(b, &q);
}

int ddz_bridge_on_frame(ddz_bridge *b, const char *text, size_t len)
{
    ddz_event ev;
    char err[160];
    if (ddz_event_parse_text(text, len, &ev, err, sizeof err) < 0) {
        say(b, true, "the server sent a malformed %s%sframe (%s)",
            ev.type ? ddz_event_name(ev.type) : "", ev.type ? " " : "", err);
        return DDZ_BRIDGE_GO;
    }
    int rc = DDZ_BRIDGE_GO;
    switch (ev.type) {
    case DDZ_EVENT_WELCOME:
        on_welcome(b, &ev.welcome);
        break;
    case DDZ_EVENT_ENLISTED:
        b->hops = 0; /* where a redirect led: the count starts again */
        b->enlisted = true;
        say(b, false, "enlisted in the %s as %s: waiting to be seated", ev.enlisted.competition,
            ev.enlisted.player);
        break;
    case DDZ_EVENT_RELEASED:
        say(b, false, "released: %s; played %d table%s", ev.released.reason, b->turns_done,
            b->turns_done == 1 ? "" : "s");
        rc = DDZ_BRIDGE_DONE;
        break;
    case DDZ_EVENT_ROOMS:
        if (!b->seated && !b->joining && !b->opts.enlist)
            choose_room(b, &ev.rooms);
        break;
    case DDZ_EVENT_JOINED:
        on_joined(b, &ev.joined);
        break;
    case DDZ_EVENT_STATE:
        rc = on_state(b, &ev.state);
        break;
    case DDZ_EVENT_GAME:
        if (!b->seated || !ev.game.has_hand)
            say(b, true, "a game event without our hand");
        else
            begin_game(b, ev.game.game, ev.game.games, ev.game.commit, ev.game.hand);
        break;
    case DDZ_EVENT_TURN:
        on_turn(b, &ev.turn);
        break;
    case DDZ_EVENT_BID_MADE:
        relay_bid(b, ev.bid_made.seat, ev.bid_made.bid);
        break;
    case DDZ_EVENT_LEFTOVER:
        relay_leftover(b, ev.leftover.landlord, ev.leftover.cards);
        break;
    case DDZ_EVENT_PLAYED:
        relay_play(b, ev.played.seat, ev.played.cards, ev.played.autopass);
        break;
    case DDZ_EVENT_OVER:
        on_over(b, &ev.over);
        break;
    case DDZ_EVENT_TURN_OVER:
        rc = on_turn_over(b);
        break;
    case DDZ_EVENT_ERROR:
        rc = on_error(b, &ev.error);
        break;
    case DDZ_EVENT_BYE:
        say(b, true, "the server said bye: %s", ev.bye.reason);
        rc = DDZ_BRIDGE_BYE;
        break;
    case DDZ_EVENT_REDIRECT:
        rc = on_redirect(b, &ev.redirect);
        break;
    default: /* seat: who sits where is not our program's business */
        break;
    }
    ddz_event_clear(&ev);
    return rc;
}

/* ---- the driver ---- */

typedef struct runner {
    const ddz_bridge_cfg *cfg;
    ddz_url url;
    char url_text[256]; /* the URL connected to: cfg->url, or where a redirect sent us */
    struct lws_context *ctx;
    struct lws_vhost *vh;
    ddz_lws_loop loop; /* the program seat's pipes and timers */
    ddz_seat *program; /* our seat: a CAAI engine or a Botzone bot */
    struct lws *ws;    /* the WebSocket, NULL while disconnected */
    ddz_wsc_queue q;   /* frames waiting for WRITEABLE */
    ddz_wsc_rx rx;     /* the current message, its fragments so far */
    ddz_bridge b;
    ddz_evloop evl;                                 /* ctx's loop: epoll or poll */
    ddz_timer retry_timer, pace_timer, leave_timer; /* on `loop`, not lws's sul */
    bool leaving;                                   /* done: stop once the `leave` is written */
    ddz_wsc_rate rate; /* frames we may send now (below the server's rate limit) */
    int attempts;      /* reconnects since the last welcome */
    bool welcomed;     /* a welcome was ever received */
    bool done;
    int status; /* exit status once done */
} runner;

/* Our own frame rate stays under the server's default limit (20 frames/s,
 * bursts of 40), so that a fast engine against hosted AIs never loses an
 * action to ERATE. */
#define FRAMES_PER_S 15.0
#define FRAMES_BURST 20.0
/* the largest message taken from the server: events are small; a state
 * may be a few KiB */
#define RX_MAX (DDZ_MSG_MAX * 64)

static volatile sig_atomic_t stop_signal; /* SIGINT or SIGTERM seen */
static struct lws_context *signal_ctx;    /* the only way a signal reaches the loop */

static void on_signal(int sig)
{
    stop_signal = sig;
    if (signal_ctx)
        lws_cancel_service(signal_ctx);
}

static void finish(runner *r, int status)
{
    if (!r->done) {
        r->done = true;
        r->status = status;
    }
    lws_cancel_service(r->ctx);
}

static void r_log(void *ctx, bool warn, const char *msg)
{
    runner *r = ctx;
    if (warn || !r->cfg->quiet)
        fprintf(stderr, "ddz bridge: %s%s\n", warn ? "warning: " : "", msg);
}

static void r_give_up(void *ctx, const char *why)
{
    runner *r = ctx;
    fprintf(stderr, "ddz bridge: %s\n", why);
    finish(r, 1);
}

static void r_server_send(void *ctx, json_t *msg)
{
    runner *r = ctx;
    char *s = ddz_msg_dump(msg);
    if (!s || !r->ws) {
        free(s);
        return;
    }
    int rc = ddz_wsc_queue_push(&r->q, s, strlen(s), 0, 0);
    free(s);
    if (rc == 0)
        lws_callback_on_writable(r->ws);
}

static void connect_now(runner *r);

#define RUNNER_OF(t, field) ((runner *)((char *)(t)-offsetof(runner, field)))

static void leave_tick(ddz_timer *t)
{
    finish(RUNNER_OF(t, leave_timer), 0);
}

static void pace_tick(ddz_timer *t)
{
    runner *r = RUNNER_OF(t, pace_timer);
    if (r->ws && !ddz_wsc_queue_empty(&r->q))
        lws_callback_on_writable(r->ws);
}

static void retry_tick(ddz_timer *t)
{
    connect_now(RUNNER_OF(t, retry_timer));
}

/* The connection is gone (or is being closed by us, `retry`: the server
 * could not take us for now): connect again after a backoff, up to the
 * configured retries; a first connection that fails is not retried. */
static void disconnected_for(runner *r, const char *why, bool retry)
{
    r->ws = NULL;
    ddz_wsc_queue_clear(&r->q);
    ddz_wsc_rx_reset(&r->rx);
    if (r->done)
        return;
    if (r->leaving) {
        finish(r, 0);
        return;
    }
    if (!r->welcomed && !retry) {
        fprintf(stderr, "ddz bridge: cannot connect to %s: %s\n", r->url_text, why);
        finish(r, 3);
        return;
    }
    if (++r->attempts > r->cfg->retries) {
        fprintf(stderr, "ddz bridge: connection lost (%s); gave up after %d attempts\n", why,
                r->cfg->retries);
        finish(r, 3);
        return;
    }
    int delay = r->attempts >= 6 ? 30 : 1 << (r->attempts - 1);
    if (strcmp(r->url_text, r->cfg->url) != 0) {
        /* a redirect sent us to another node, and that node is gone: its
         * work (a tournament) moves to another node, which the entry point
         * knows and redirects us to again */
        ddz_url u;
        if (ddz_url_parse(r->cfg->url, &u) == 0) {
            r->url = u;
            snprintf(r->url_text, sizeof r->url_text, "%s", r->cfg->url);
            r->b.hops = 0;
        }
    }
    fprintf(stderr, "ddz bridge: warning: connection lost (%s); reconnecting to %s in %d s\n", why,
            r->url_text, delay);
    ddz_loop_arm(&r->loop.base, &r->retry_timer, retry_tick, (int64_t)delay * 1000000);
}

static void disconnected(runner *r, const char *why)
{
    disconnected_for(r, why, false);
}

/* The server redirected us (another node of the cluster serves the room):
 * close this connection and connect to the URL it gave at once. Returns
 * what the receive callback returns: -1 closes the old connection. */
static int follow(runner *r)
{
    const char *to = r->b.redirect;
    ddz_url u;
    if (strcmp(to, r->url_text) == 0) {
        fprintf(stderr, "ddz bridge: the server redirected us to where we are (%s)\n", to);
        finish(r, 1);
        return -1;
    }
    if (ddz_url_parse(to, &u) < 0) {
        fprintf(stderr, "ddz bridge: the server redirected us to '%s', no ws:// or wss:// URL\n",
                to);
        finish(r, 1);
        return -1;
    }
    char why[160];
    if (ddz_bridge_redirect_ok(&r->url, &u, why, sizeof why) < 0) {
        fprintf(stderr, "ddz bridge: the server at %s redirected us to %s: %s\n", r->url_text, to,
                why);
        finish(r, 1);
        return -1;
    }
    r->url = u;
    snprintf(r->url_text, sizeof r->url_text, "%s", to);
    r->ws = NULL; /* its CLOSED is not a lost connection */
    ddz_wsc_queue_clear(&r->q);
    ddz_wsc_rx_reset(&r->rx);
    ddz_loop_arm(&r->loop.base, &r->retry_timer, retry_tick, 0);
    return -1;
}

static int cb_ws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                 size_t len)
{
    runner *r = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        r->ws = wsi;
        ddz_bridge_connected(&r->b);
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        disconnected(r, in ? (const char *)in : "connection failed");
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (wsi == r->ws)
            disconnected(r, "connection closed");
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        if (wsi != r->ws)
            return -1;
        int got = ddz_wsc_rx_take_lws(&r->rx, wsi, in, len);
        if (got < 0) /* past RX_MAX, or no memory */
            return -1;
        if (got == DDZ_WSC_MORE || r->done)
            return 0;
        int st = ddz_bridge_on_frame(&r->b, r->rx.buf, r->rx.len);
        if (r->b.player[0] && !r->welcomed)
            r->welcomed = true;
        if (r->b.seated || r->b.enlisted)
            r->attempts = 0; /* where it belongs: a later drop starts a new count */
        if (st == DDZ_BRIDGE_DONE) {
            /* the `leave` goes out first; bounded by a second */
            r->leaving = true;
            ddz_loop_arm(&r->loop.base, &r->leave_timer, leave_tick, 1000000);
            if (ddz_wsc_queue_empty(&r->q))
                finish(r, 0);
        } else if (st == DDZ_BRIDGE_REFUSED)
            finish(r, 1);
        else if (st == DDZ_BRIDGE_BYE)
            finish(r, 3);
        else if (st == DDZ_BRIDGE_REDIRECT)
            return follow(r);
        else if (st == DDZ_BRIDGE_RETRY) {
            disconnected_for(r, "the server's database is away", true);
            return -1; /* its CLOSED is not a lost connection: r->ws is NULL */
        }
        return 0;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (wsi != r->ws)
            return -1;
        if (ddz_wsc_queue_empty(&r->q))
            return 0;
        int64_t wait =
            ddz_wsc_rate_take(&r->rate, FRAMES_PER_S, FRAMES_BURST, ddz_lws_loop_now_us());
        if (wait > 0) {
            ddz_loop_arm(&r->loop.base, &r->pace_timer, pace_tick, wait);
            return 0;
        }
        /* one message a callback: the pacing above counts each */
        if (ddz_wsc_write(wsi, &r->q, &(ddz_wsc_writer){.max = 1}) < 0)
            return -1;
        if (ddz_wsc_queue_empty(&r->q) && r->leaving)
            finish(r, 0);
        return 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {{"ddz-bridge", cb_ws, 0, 4096, 0, NULL, 0},
                                                 DDZ_LWS_LOOP_PROTOCOL,
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

static void connect_now(runner *r)
{
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = r->ctx;
    ci.vhost = r->vh;
    ci.address = r->url.host;
    ci.port = r->url.port;
    ci.path = r->url.path;
    ci.host = r->url.hostport;
    ci.origin = r->url.hostport;
    ci.local_protocol_name = "ddz-bridge";
    ci.ssl_connection = r->url.tls ? LCCSCF_USE_SSL : 0;
    if (r->url.tls && r->cfg->insecure)
        ci.ssl_connection |=
            LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK | LCCSCF_ALLOW_EXPIRED;
    struct lws *wsi = lws_client_connect_via_info(&ci);
    if (!wsi && !r->ws)
        disconnected(r, "cannot start a connection");
}

/* The program's seat on the bridge's loop, of the protocol asked for.
 * Returns it, or NULL (logged). */
static ddz_seat *make_program(runner *r)
{
    const char *log = r->cfg->engine_log;
    if (!log) {
        /* inherit our stderr when it can be reopened (a tty, file or pipe) */
        int fd = open("/dev/stderr", O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            log = "/dev/stderr";
        }
    }
    ddz_room_opts dflt;
    ddz_room_opts_default(&dflt);
    ddz_seat_env env = {
        .loop = &r->loop.base,
        .stderr_log = log,
        /* a CAAI engine's acknowledgements: the time asked of a room we
         * create, else the protocol's default (the room's own is not known
         * yet); a Botzone bot only answers, timed by the room's clock */
        .time_ms = (r->cfg->opts.time > 0 ? r->cfg->opts.time : dflt.time) * 1000,
    };
    int err = 0;
    /* no label: its name stays "" until a CAAI engine says its own (a
     * Botzone bot has none); the server shows the token's name anyway */
    ddz_seat *s = ddz_seat_program_create(r->cfg->protocol, r->cfg->engine_cmd, "", &env, &err);
    if (!s)
        fprintf(stderr, "ddz bridge: cannot prepare the program: %s\n", ddz_strerror(err));
    return s;
}

int ddz_bridge_run(const ddz_bridge_cfg *cfg)
{
    runner storage, *r = &storage;
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    ddz_wsc_queue_init(&r->q, SIZE_MAX); /* what our one program says: small, paced */
    ddz_wsc_rx_init(&r->rx, RX_MAX);
    snprintf(r->url_text, sizeof r->url_text, "%s", cfg->url);
    if (ddz_url_parse(cfg->url, &r->url) < 0) {
        fprintf(stderr, "ddz bridge: '%s' is no ws:// or wss:// URL\n", cfg->url);
        return 2;
    }
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = r;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if (r->url.tls)
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    r->ctx = ddz_evloop_create(&r->evl, &info, (ddz_evloop_kind)cfg->event_loop, "ddz bridge");
    if (r->ctx)
        r->vh = lws_create_vhost(r->ctx, &info);
    if (!r->vh || ddz_lws_loop_init(&r->loop, r->ctx, r->vh) < 0) {
        fprintf(stderr, "ddz bridge: cannot create the event loop\n");
        ddz_evloop_destroy(&r->evl);
        return 1;
    }
    r->program = make_program(r);
    if (!r->program) {
        ddz_lws_loop_fini(&r->loop);
        ddz_evloop_destroy(&r->evl);
        return 1;
    }
    ddz_bridge_io io = {.ctx = r, .server_send = r_server_send, .log = r_log, .give_up = r_give_up};
    ddz_bridge_init(&r->b, r->program, &io, &cfg->opts);
    ddz_wsc_rate_init(&r->rate, FRAMES_BURST, ddz_lws_loop_now_us());

    signal_ctx = r->ctx;
    stop_signal = 0;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    connect_now(r);
    while (!r->done && !stop_signal)
        if (ddz_evloop_run_once(&r->evl) < 0)
            break;
    if (stop_signal && !r->done) {
        fprintf(stderr, "ddz bridge: %s: stopping\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        finish(r, 0);
    }
    /* the program stops while the loop it watches from still exists */
    ddz_seat_close(r->program);
    ddz_loop_disarm(&r->loop.base, &r->retry_timer);
    ddz_loop_disarm(&r->loop.base, &r->pace_timer);
    ddz_loop_disarm(&r->loop.base, &r->leave_timer);
    ddz_wsc_queue_clear(&r->q);
    ddz_lws_loop_fini(&r->loop);
    ddz_evloop_destroy(&r->evl);
    signal_ctx = NULL;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    ddz_wsc_rx_free(&r->rx);
    return r->status;
}
