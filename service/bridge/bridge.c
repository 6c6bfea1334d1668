/* bridge.c - `ddz bridge`: the translator (no I/O) and its driver (one
 * libwebsockets loop holding the WebSocket and the engine's stdout). */
#include "service/bridge/bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/engine/engine.h"
#include "proto/caai.h"
#include "proto/msg.h"
#include "rules/error.h"
#include "rules/ruleset.h"

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

/* Reads a JSON card array; returns 0 or -1 (not an array of distinct codes). */
static int get_cards(json_t *a, ddz_cards *out)
{
    if (!json_is_array(a))
        return -1;
    ddz_cards c = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (!json_is_integer(v))
            return -1;
        json_int_t k = json_integer_value(v);
        if (k < 0 || k >= DDZ_NCARDS || (c >> k & 1))
            return -1;
        c |= 1ULL << k;
    }
    *out = c;
    return 0;
}

/* Returns the integer member `key` if it lies in lo..hi, else `dflt`. */
static int get_int(json_t *o, const char *key, int lo, int hi, int dflt)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return dflt;
    return (int)json_integer_value(v);
}

static const char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static void send_req(ddz_bridge *b, const ddz_req *q)
{
    json_t *j = ddz_req_print(q);
    if (j)
        b->io.server_send(b->io.ctx, j);
}

static void clear_expect(ddz_bridge *b)
{
    b->ehead = b->ecount = 0;
}

static void expect(ddz_bridge *b, uint8_t kind, uint8_t ok_of, uint32_t seq)
{
    if (b->ecount == DDZ_BRIDGE_EXPECT_MAX) {
        say(b, true, "the engine owes %d answers; forgetting the oldest", DDZ_BRIDGE_EXPECT_MAX);
        b->ehead = (b->ehead + 1) % DDZ_BRIDGE_EXPECT_MAX;
        b->ecount--;
    }
    ddz_bridge_expect *e = &b->expect[(b->ehead + b->ecount++) % DDZ_BRIDGE_EXPECT_MAX];
    *e = (ddz_bridge_expect){.kind = kind, .ok_of = ok_of, .seq = seq, .serial = b->serial};
}

/* Sends `m` to the engine and notes the answer it owes. */
static void to_engine(ddz_bridge *b, const ddz_caai_msg *m, uint32_t seq)
{
    char line[DDZ_CAAI_FORMAT_MAX];
    if (ddz_caai_format(m, line, sizeof line) < 0) {
        say(b, true, "internal: cannot format a %s line", ddz_caai_keyword(m->kind));
        return;
    }
    b->io.engine_send(b->io.ctx, line);
    switch (m->kind) {
    case DDZ_CAAI_VERSION:
        expect(b, DDZ_CAAI_NAME, 0, 0);
        break;
    case DDZ_CAAI_BID_WHAT:
        expect(b, DDZ_CAAI_BID, 0, seq);
        break;
    case DDZ_CAAI_PLAY_WHAT:
        expect(b, DDZ_CAAI_PLAY, 0, seq);
        break;
    default:
        expect(b, DDZ_CAAI_OK, m->kind, 0);
    }
}

static bool live(const ddz_bridge *b)
{
    return b->engine_up && b->in_game;
}

static void stop_engine(ddz_bridge *b)
{
    if (b->engine_up)
        b->io.engine_stop(b->io.ctx);
    b->engine_up = b->named = b->in_game = b->answered = false;
    clear_expect(b);
}

static int start_engine(ddz_bridge *b)
{
    stop_engine(b);
    if (b->io.engine_start(b->io.ctx) < 0) {
        say(b, true, "cannot start the engine; this game is lost to the clock");
        return -1;
    }
    b->engine_up = true;
    to_engine(b, &(ddz_caai_msg){.kind = DDZ_CAAI_VERSION, .seat = -1, .version = "1.0"}, 0);
    return 0;
}

/* ---- the translator: game events ---- */

/* A new game for the engine: started if needed, then INFO and DEAL. */
static void begin_game(ddz_bridge *b, int game, int games, const char *commit, ddz_cards hand)
{
    if (b->in_game) {
        say(b, true, "game %d ended while we were away; restarting the engine", b->game);
        stop_engine(b);
    }
    if (!b->engine_up && start_engine(b) < 0)
        return;
    b->serial++;
    b->game = game;
    if (games > 0)
        b->games = games;
    snprintf(b->commit, sizeof b->commit, "%s", commit);
    ddz_view_deal(&b->view, b->rules, b->seat, hand);
    b->nplays = 0;
    b->answered = false;
    b->voted = false;
    b->in_game = true;
    int g = b->games > 0 ? b->games : 1;
    ddz_caai_msg info = {.kind = DDZ_CAAI_INFO, .seat = -1};
    info.info = (ddz_caai_info){.turn = 1,
                                .turns = 1,
                                .game = game,
                                .games = g,
                                .up = 0,
                                .maxscore = 350 * g,
                                .time = b->time > 0 ? b->time : 30};
    to_engine(b, &info, 0);
    to_engine(b, &(ddz_caai_msg){.kind = DDZ_CAAI_DEAL, .seat = (int8_t)b->seat, .cards = hand}, 0);
}

static void answer_to_server(ddz_bridge *b)
{
    ddz_req q = {.type = b->answer_kind == DDZ_CAAI_BID ? DDZ_REQ_BID : DDZ_REQ_PLAY,
                 .seq = b->answer_seq,
                 .bid = b->answer_bid,
                 .cards = b->answer_cards,
                 .seat = -1};
    send_req(b, &q);
}

static void on_turn(ddz_bridge *b, int seat, bool bid, uint32_t seq)
{
    if (seat != b->seat)
        return;
    if (!live(b)) {
        say(b, true, "asked to %s but no engine is playing this game; the clock decides",
            bid ? "bid" : "play");
        return;
    }
    if (b->answered && b->answer_seq == seq) {
        answer_to_server(b); /* the frame may have been lost with a connection */
        return;
    }
    for (unsigned i = 0; i < b->ecount; i++) {
        const ddz_bridge_expect *e = &b->expect[(b->ehead + i) % DDZ_BRIDGE_EXPECT_MAX];
        if ((e->kind == DDZ_CAAI_BID || e->kind == DDZ_CAAI_PLAY) && e->seq == seq &&
            e->serial == b->serial)
            return; /* already asked; the engine is thinking */
    }
    to_engine(b, &(ddz_caai_msg){.kind = bid ? DDZ_CAAI_BID_WHAT : DDZ_CAAI_PLAY_WHAT, .seat = -1},
              seq);
}

static void relay_bid(ddz_bridge *b, int seat, int bid)
{
    if (!live(b))
        return;
    bool mine =
        seat == b->seat && b->answered && b->answer_kind == DDZ_CAAI_BID && b->answer_bid == bid;
    if (mine)
        b->answered = false; /* the engine knows its own bid */
    else
        to_engine(
            b, &(ddz_caai_msg){.kind = DDZ_CAAI_BID, .seat = (int8_t)seat, .bid = (int8_t)bid}, 0);
    if (ddz_view_bid(&b->view, seat, bid) < 0)
        say(b, true, "the server's bid of seat %d contradicts what the engine knows", seat);
}

static void relay_leftover(ddz_bridge *b, int landlord, ddz_cards cards)
{
    if (!live(b))
        return;
    to_engine(
        b, &(ddz_caai_msg){.kind = DDZ_CAAI_LEFTOVER, .seat = (int8_t)landlord, .cards = cards}, 0);
    if (ddz_view_leftover(&b->view, landlord, cards) < 0)
        say(b, true, "the leftover contradicts what the engine knows");
}

static void relay_play(ddz_bridge *b, int seat, ddz_cards cards, bool autopass)
{
    if (!live(b))
        return;
    bool mine = seat == b->seat && !autopass && b->answered && b->answer_kind == DDZ_CAAI_PLAY &&
                b->answer_cards == cards;
    if (mine)
        b->answered = false;
    else
        to_engine(b, &(ddz_caai_msg){.kind = DDZ_CAAI_PLAY, .seat = (int8_t)seat, .cards = cards},
                  0);
    if (ddz_view_play(&b->view, seat, cards) < 0)
        say(b, true, "the server's play of seat %d contradicts what the engine knows", seat);
    b->nplays++;
}

static void on_over(ddz_bridge *b, json_t *ev)
{
    json_t *fault = json_object_get(ev, "fault");
    int fseat = json_is_object(fault) ? get_int(fault, "seat", 0, 2, -1) : -1;
    int winner = get_int(ev, "winner", 0, 2, -1);
    json_t *sc = json_object_get(ev, "scores"), *tot = json_object_get(ev, "totals");
    if (fseat >= 0)
        say(b, fseat == b->seat, "game %d: fault of seat %c (%s)%s", b->game, seat_letter[fseat],
            get_str(fault, "kind"), fseat == b->seat ? " - ours" : "");
    else
        say(b, false, "game %d: %s; scores %lld %lld %lld, totals %lld %lld %lld", b->game,
            winner < 0 ? "all passed"
            : json_integer_value(json_array_get(sc, (size_t)(b->seat >= 0 ? b->seat : 0))) > 0
                ? "we won"
                : "we lost",
            (long long)json_integer_value(json_array_get(sc, 0)),
            (long long)json_integer_value(json_array_get(sc, 1)),
            (long long)json_integer_value(json_array_get(sc, 2)),
            (long long)json_integer_value(json_array_get(tot, 0)),
            (long long)json_integer_value(json_array_get(tot, 1)),
            (long long)json_integer_value(json_array_get(tot, 2)));
    if (live(b)) {
        if (fseat >= 0)
            to_engine(b, &(ddz_caai_msg){.kind = DDZ_CAAI_ERROR, .seat = (int8_t)fseat}, 0);
        else if (winner >= 0)
            to_engine(b, &(ddz_caai_msg){.kind = DDZ_CAAI_GAMEOVER, .seat = (int8_t)winner}, 0);
    }
    b->in_game = false;
    b->answered = false;
}

static int on_turn_over(ddz_bridge *b)
{
    b->turns_done++;
    b->voted = true;
    stop_engine(b); /* a CAAI engine serves one turn; the next turn gets a fresh one */
    if (b->opts.turns > 0 && b->turns_done >= b->opts.turns) {
        say(b, false, "played %d turn%s; done", b->turns_done, b->turns_done == 1 ? "" : "s");
        send_req(b, &(ddz_req){.type = DDZ_REQ_LEAVE, .seat = -1});
        return DDZ_BRIDGE_DONE;
    }
    send_req(b, &(ddz_req){.type = DDZ_REQ_REMATCH, .seat = -1});
    return DDZ_BRIDGE_GO;
}

/* After a (re)connection: bring the engine up to the snapshot. */
static int on_state(ddz_bridge *b, json_t *st)
{
    json_t *seat = json_object_get(st, "seat");
    b->seated = json_is_integer(seat);
    b->seat = b->seated ? get_int(st, "seat", 0, 2, -1) : -1;
    if (!b->seated)
        return DDZ_BRIDGE_GO;
    json_t *room = json_object_get(st, "room"), *opts = json_object_get(room, "options");
    snprintf(b->room, sizeof b->room, "%s", get_str(room, "id"));
    b->time = get_int(opts, "time", 1, 3600, b->time);
    b->games = get_int(opts, "games", 1, 1000, b->games);
    const ddz_rules *rs = ddz_rules_find(get_str(opts, "rules"));
    if (rs)
        b->rules = rs;

    const char *phase = get_str(st, "phase");
    if (strcmp(phase, "bid") != 0 && strcmp(phase, "play") != 0) {
        json_t *result = json_object_get(st, "result");
        if (live(b) && json_is_object(result) && strcmp(get_str(result, "commit"), b->commit) == 0)
            on_over(b, result); /* the end we missed while away */
        if (b->in_game) {
            say(b, true, "game %d ended while we were away; restarting the engine", b->game);
            stop_engine(b);
        }
        if (strcmp(phase, "turn_over") == 0 && !b->voted)
            return on_turn_over(b);
        return DDZ_BRIDGE_GO;
    }

    /* a game is being played */
    json_t *players = json_object_get(st, "players"), *history = json_object_get(st, "history");
    int landlord = get_int(st, "landlord", 0, 2, -1);
    ddz_cards hand = 0, leftover = 0;
    bool has_leftover = get_cards(json_object_get(st, "leftover"), &leftover) == 0;
    if (get_cards(json_object_get(st, "hand"), &hand) < 0 || !json_is_array(history)) {
        say(b, true, "malformed state snapshot");
        return DDZ_BRIDGE_GO;
    }
    const char *commit = get_str(st, "commit");
    if (!live(b) || strcmp(commit, b->commit) != 0) {
        /* the deal as it was: own cards now, plus own plays, less the leftover */
        ddz_cards dealt = hand;
        size_t i;
        json_t *pl;
        json_array_foreach(history, i, pl)
        {
            ddz_cards c;
            if (get_int(pl, "seat", 0, 2, -1) == b->seat &&
                get_cards(json_object_get(pl, "cards"), &c) == 0)
                dealt |= c;
        }
        if (landlord == b->seat && has_leftover)
            dealt &= ~leftover;
        if (live(b)) {
            say(b, true, "missed the end of game %d; restarting the engine", b->game);
            stop_engine(b);
        }
        begin_game(b, get_int(st, "game", 1, 1000, 1), 0, commit, dealt);
        if (!live(b))
            return DDZ_BRIDGE_GO;
    }
    for (int s = 0; s < 3; s++) {
        int bid = get_int(json_array_get(players, (size_t)s), "bid", 0, 3, -1);
        if (bid >= 0 && b->view.bids[s] < 0)
            relay_bid(b, s, bid);
    }
    if (landlord >= 0 && has_leftover && b->view.landlord < 0)
        relay_leftover(b, landlord, leftover);
    for (size_t i = (size_t)b->nplays; i < json_array_size(history); i++) {
        json_t *pl = json_array_get(history, i);
        ddz_cards c;
        int s = get_int(pl, "seat", 0, 2, -1);
        if (s < 0 || get_cards(json_object_get(pl, "cards"), &c) < 0)
            break;
        relay_play(b, s, c, json_is_true(json_object_get(pl, "auto")));
    }
    json_t *turn = json_object_get(st, "turn");
    if (json_is_object(turn))
        on_turn(b, get_int(turn, "seat", 0, 2, -1), strcmp(get_str(turn, "action"), "bid") == 0,
                (uint32_t)get_int(turn, "seq", 0, 0x7fffffff, 0));
    return DDZ_BRIDGE_GO;
}

/* ---- the translator: lobby ---- */

static void choose_room(ddz_bridge *b, json_t *rooms)
{
    ddz_req q = {.type = DDZ_REQ_JOIN, .seat = b->opts.seat};
    if (b->opts.password)
        snprintf(q.password, sizeof q.password, "%s", b->opts.password);
    if (b->opts.room) {
        snprintf(q.room, sizeof q.room, "%s", b->opts.room);
        send_req(b, &q);
        b->joining = true;
        return;
    }
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(rooms, "rooms"), i, r)
    {
        if (!json_is_true(json_object_get(r, "bots")) ||
            json_is_true(json_object_get(r, "password")) ||
            json_is_true(json_object_get(r, "playing")))
            continue;
        json_t *seats = json_object_get(r, "seats");
        bool free_seat = false;
        for (int s = 0; s < 3; s++)
            if ((b->opts.seat < 0 || b->opts.seat == s) && json_is_null(json_array_get(seats, s)))
                free_seat = true;
        if (!free_seat)
            continue;
        snprintf(q.room, sizeof q.room, "%s", get_str(r, "id"));
        q.password[0] = '\0';
        say(b, false, "joining room %s (%s)", q.room, get_str(r, "name"));
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
    say(b, false, "no open room takes bots: creating one");
    send_req(b, &c);
    b->joining = true;
}

void ddz_bridge_init(ddz_bridge *b, const ddz_bridge_io *io, const ddz_bridge_opts *opts)
{
    memset(b, 0, sizeof *b);
    b->io = *io;
    b->opts = *opts;
    if (!b->opts.name || !*b->opts.name)
        b->opts.name = "bridge";
    b->seat = -1;
    b->rules = &ddz_rules_caai;
}

int ddz_bridge_start(ddz_bridge *b)
{
    return start_engine(b);
}

void ddz_bridge_connected(ddz_bridge *b)
{
    ddz_req q = {.type = DDZ_REQ_HELLO, .version = DDZ_PROTOCOL_VERSION, .seat = -1};
    snprintf(q.name, sizeof q.name, "%.32s", b->opts.name);
    if (b->opts.token)
        snprintf(q.token, sizeof q.token, "%s", b->opts.token);
    snprintf(q.resume, sizeof q.resume, "%s", b->resume);
    b->resumed = b->resume[0] != '\0';
    b->seated = b->joining = false;
    send_req(b, &q);
}

int ddz_bridge_on_frame(ddz_bridge *b, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *ev = json_loadb(text, len, 0, &jerr);
    const char *type = get_str(ev, "type");
    int rc = DDZ_BRIDGE_GO;
    if (!json_is_object(ev) || !*type) {
        say(b, true, "the server sent a malformed frame (%s)", jerr.text);
    } else if (strcmp(type, "welcome") == 0) {
        json_t *you = json_object_get(ev, "you");
        const char *id = get_str(you, "id");
        if (b->resumed && strcmp(id, b->player) != 0)
            say(b, true, "the server no longer knew us (restarted?): joining again");
        else if (b->resumed)
            say(b, false, "reconnected");
        else
            say(b, false, "connected as %s (%s)", get_str(you, "name"), id);
        snprintf(b->player, sizeof b->player, "%s", id);
        snprintf(b->resume, sizeof b->resume, "%s", get_str(ev, "resume"));
        /* a resumed seat is followed by `state` before the `rooms` answer */
        send_req(b, &(ddz_req){.type = DDZ_REQ_LIST, .seat = -1});
    } else if (strcmp(type, "rooms") == 0) {
        if (!b->seated && !b->joining)
            choose_room(b, ev);
    } else if (strcmp(type, "joined") == 0) {
        b->joining = false;
        if (json_is_string(json_object_get(ev, "room")) &&
            json_is_integer(json_object_get(ev, "seat"))) {
            b->seated = true;
            b->seat = get_int(ev, "seat", 0, 2, -1);
            snprintf(b->room, sizeof b->room, "%s", get_str(ev, "room"));
            say(b, false, "seated in room %s as %c (seat %d)", b->room, seat_letter[b->seat],
                b->seat);
        } else {
            b->seated = false;
        }
    } else if (strcmp(type, "state") == 0) {
        rc = on_state(b, ev);
    } else if (strcmp(type, "game") == 0) {
        ddz_cards hand;
        if (!b->seated || get_cards(json_object_get(ev, "hand"), &hand) < 0 ||
            ddz_cards_count(hand) != 17)
            say(b, true, "a game event without our hand");
        else
            begin_game(b, get_int(ev, "game", 1, 1000, 1), get_int(ev, "games", 1, 1000, 0),
                       get_str(ev, "commit"), hand);
    } else if (strcmp(type, "turn") == 0) {
        on_turn(b, get_int(ev, "seat", 0, 2, -1), strcmp(get_str(ev, "action"), "bid") == 0,
                (uint32_t)get_int(ev, "seq", 0, 0x7fffffff, 0));
    } else if (strcmp(type, "bid_made") == 0) {
        int s = get_int(ev, "seat", 0, 2, -1), bid = get_int(ev, "bid", 0, 3, -1);
        if (s >= 0 && bid >= 0)
            relay_bid(b, s, bid);
    } else if (strcmp(type, "leftover") == 0) {
        ddz_cards c;
        int s = get_int(ev, "landlord", 0, 2, -1);
        if (s >= 0 && get_cards(json_object_get(ev, "cards"), &c) == 0 && ddz_cards_count(c) == 3)
            relay_leftover(b, s, c);
    } else if (strcmp(type, "played") == 0) {
        ddz_cards c;
        int s = get_int(ev, "seat", 0, 2, -1);
        if (s >= 0 && get_cards(json_object_get(ev, "cards"), &c) == 0)
            relay_play(b, s, c, json_is_true(json_object_get(ev, "auto")));
    } else if (strcmp(type, "over") == 0) {
        on_over(b, ev);
    } else if (strcmp(type, "turn_over") == 0) {
        rc = on_turn_over(b);
    } else if (strcmp(type, "error") == 0) {
        const char *code = get_str(ev, "code"), *about = get_str(ev, "about");
        bool lobby = strcmp(about, "hello") == 0 || strcmp(about, "join") == 0 ||
                     strcmp(about, "create") == 0;
        if (strcmp(code, "ESTALE") == 0) {
            say(b, false, "the server had already taken our %s", about);
        } else if (lobby && strcmp(about, "join") == 0 && !b->opts.room &&
                   strcmp(code, "EFULL") == 0) {
            b->joining = false; /* lost a race for the seat: look again */
            send_req(b, &(ddz_req){.type = DDZ_REQ_LIST, .seat = -1});
        } else {
            say(b, true, "the server refused our %s: %s %s", *about ? about : "frame", code,
                get_str(ev, "message"));
            if (lobby || strcmp(code, "EAUTH") == 0)
                rc = DDZ_BRIDGE_REFUSED;
        }
    } else if (strcmp(type, "bye") == 0) {
        say(b, true, "the server said bye: %s", get_str(ev, "reason"));
        rc = DDZ_BRIDGE_BYE;
    }
    json_decref(ev);
    return rc;
}

/* ---- the translator: the engine's lines ---- */

static const char *expect_name(const ddz_bridge_expect *e)
{
    switch (e->kind) {
    case DDZ_CAAI_NAME:
        return "NAME (to DOUDIZHUVER)";
    case DDZ_CAAI_BID:
        return "a bid (to BID WHAT)";
    case DDZ_CAAI_PLAY:
        return "a play (to PLAY WHAT)";
    default:
        switch (e->ok_of) {
        case DDZ_CAAI_INFO:
            return "OK INFO";
        case DDZ_CAAI_DEAL:
            return "OK DEAL";
        case DDZ_CAAI_BID:
            return "OK BID";
        case DDZ_CAAI_LEFTOVER:
            return "OK LEFTOVER";
        case DDZ_CAAI_PLAY:
            return "OK PLAY";
        case DDZ_CAAI_GAMEOVER:
            return "OK GAMEOVER";
        default:
            return "OK ERROR";
        }
    }
}

static bool satisfies(const ddz_caai_msg *m, const ddz_bridge_expect *e)
{
    if (m->kind != e->kind)
        return false;
    return m->kind != DDZ_CAAI_OK || m->ok_of == e->ok_of;
}

/* The engine's answer `m` to the WHAT `e`. */
static void on_answer(ddz_bridge *b, const ddz_caai_msg *m, const ddz_bridge_expect *e,
                      const char *line)
{
    if (m->seat != b->seat) {
        say(b, true, "engine answered '%s' with seat %c, but ours is %c: not sent", line,
            seat_letter[m->seat], seat_letter[b->seat]);
        return;
    }
    if (e->serial != b->serial || !b->in_game) {
        say(b, true, "engine answered '%s' after its game ended: dropped", line);
        return;
    }
    b->answered = true;
    b->answer_kind = m->kind;
    b->answer_seq = e->seq;
    b->answer_bid = m->bid;
    b->answer_cards = m->kind == DDZ_CAAI_PLAY ? m->cards : 0;
    answer_to_server(b);
}

void ddz_bridge_on_engine_line(ddz_bridge *b, const char *line, size_t len, bool bad)
{
    char shown[96];
    snprintf(shown, sizeof shown, "%.*s", (int)(len < 80 ? len : 80), line);
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    ddz_caai_msg m;
    char why[128] = "a NUL byte in the line";
    bool ok = !bad && ddz_caai_parse(line, len, &m, why, sizeof why) == 0;
    const ddz_bridge_expect *head = b->ecount ? &b->expect[b->ehead % DDZ_BRIDGE_EXPECT_MAX] : NULL;
    unsigned found = b->ecount;
    for (unsigned i = 0; ok && i < b->ecount; i++)
        if (satisfies(&m, &b->expect[(b->ehead + i) % DDZ_BRIDGE_EXPECT_MAX])) {
            found = i;
            break;
        }
    if (found == b->ecount) {
        /* no owed answer fits: the line is a bad answer to the oldest */
        if (!head)
            say(b, true, "engine said '%s' unasked%s%s", shown, ok ? "" : ": ", ok ? "" : why);
        else if (head->kind == DDZ_CAAI_OK &&
                 (head->ok_of == DDZ_CAAI_GAMEOVER || head->ok_of == DDZ_CAAI_ERROR))
            say(b, false, "engine acknowledged %s with '%s' (not charged: the game is scored)",
                ddz_caai_keyword(head->ok_of), shown);
        else
            say(b, true, "engine said '%s' where %s was due%s%s%s", shown, expect_name(head),
                ok ? "" : " (", ok ? "" : why, ok ? "" : ")");
        if (head && (head->kind == DDZ_CAAI_BID || head->kind == DDZ_CAAI_PLAY))
            say(b, true, "nothing sent for that %s; the server's clock decides",
                head->kind == DDZ_CAAI_BID ? "bid" : "play");
        if (head) {
            b->ehead = (b->ehead + 1) % DDZ_BRIDGE_EXPECT_MAX;
            b->ecount--;
        }
        return;
    }
    for (unsigned i = 0; i < found; i++)
        say(b, true, "engine never gave %s",
            expect_name(&b->expect[(b->ehead + i) % DDZ_BRIDGE_EXPECT_MAX]));
    ddz_bridge_expect e = b->expect[(b->ehead + found) % DDZ_BRIDGE_EXPECT_MAX];
    b->ehead = (b->ehead + found + 1) % DDZ_BRIDGE_EXPECT_MAX;
    b->ecount -= found + 1;
    if (e.kind == DDZ_CAAI_NAME) {
        char name[DDZ_CAAI_NAME_UTF8_MAX];
        ddz_caai_name_utf8(m.name, name, sizeof name);
        b->named = true;
        say(b, false, "engine '%s' is ready", name);
    } else if (e.kind == DDZ_CAAI_BID || e.kind == DDZ_CAAI_PLAY) {
        on_answer(b, &m, &e, shown);
    }
}

void ddz_bridge_engine_died(ddz_bridge *b)
{
    bool owed = false;
    for (unsigned i = 0; i < b->ecount; i++) {
        uint8_t k = b->expect[(b->ehead + i) % DDZ_BRIDGE_EXPECT_MAX].kind;
        owed |= k == DDZ_CAAI_BID || k == DDZ_CAAI_PLAY;
    }
    if (b->in_game)
        say(b, true, "the engine died during game %d%s; a new one starts at the next game", b->game,
            owed ? " owing an answer (the server's clock decides)" : "");
    b->engine_up = b->named = b->in_game = b->answered = false;
    clear_expect(b);
}

/* ---- the driver ---- */

typedef struct outmsg {
    struct outmsg *next;
    size_t len;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the text */
} outmsg;

typedef struct runner {
    const ddz_bridge_cfg *cfg;
    ddz_url url;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    struct lws *ws;      /* the WebSocket, NULL while disconnected */
    outmsg *head, *tail; /* frames waiting for WRITEABLE */
    char *rx;            /* fragments of the current frame */
    size_t rxlen, rxcap;
    ddz_bridge b;
    ddz_engine *eng;        /* the engine process, NULL when none */
    struct lws *eng_wsi;    /* its stdout (a dup) adopted into the loop */
    const char *engine_log; /* NULL = /dev/null */
    int start_failures;     /* engines that died before saying NAME, in a row */
    lws_sorted_usec_list_t flush_sul, retry_sul, pace_sul, leave_sul;
    bool leaving;  /* done: stop once the `leave` is written */
    double tokens; /* frames we may send now (below the server's rate limit) */
    int64_t tokens_us;
    int attempts;  /* reconnects since the last welcome */
    bool welcomed; /* a welcome was ever received */
    bool done;
    int status; /* exit status once done */
} runner;

/* Our own frame rate stays under the server's default limit (20 frames/s,
 * bursts of 40), so that a fast engine against hosted AIs never loses an
 * action to ERATE. */
#define FRAMES_PER_S 15.0
#define FRAMES_BURST 20.0

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

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

static void r_server_send(void *ctx, json_t *msg)
{
    runner *r = ctx;
    char *s = ddz_msg_dump(msg);
    if (!s || !r->ws) {
        free(s);
        return;
    }
    size_t len = strlen(s);
    outmsg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m) {
        free(s);
        return;
    }
    m->next = NULL;
    m->len = len;
    memcpy(m->buf + LWS_PRE, s, len);
    free(s);
    if (r->tail)
        r->tail->next = m;
    else
        r->head = m;
    r->tail = m;
    lws_callback_on_writable(r->ws);
}

static void drop_queue(runner *r)
{
    while (r->head) {
        outmsg *n = r->head->next;
        free(r->head);
        r->head = n;
    }
    r->tail = NULL;
}

static void flush_tick(lws_sorted_usec_list_t *sul)
{
    runner *r = lws_container_of(sul, runner, flush_sul);
    if (r->eng && ddz_engine_flush(r->eng) == 0 && ddz_engine_wants_write(r->eng))
        lws_sul_schedule(r->ctx, 0, &r->flush_sul, flush_tick, 10 * LWS_US_PER_MS);
}

static void r_engine_send(void *ctx, const char *line)
{
    runner *r = ctx;
    if (!r->eng)
        return;
    ddz_engine_send(r->eng, line); /* write errors surface as ECRASH on its stdout */
    if (ddz_engine_wants_write(r->eng))
        lws_sul_schedule(r->ctx, 0, &r->flush_sul, flush_tick, 10 * LWS_US_PER_MS);
}

static void r_engine_stop(void *ctx)
{
    runner *r = ctx;
    lws_sul_cancel(&r->flush_sul);
    if (r->eng_wsi) {
        /* closed from the loop, never inside someone's callback */
        lws_set_timeout(r->eng_wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
        r->eng_wsi = NULL;
    }
    if (r->eng) {
        ddz_engine_destroy(r->eng);
        r->eng = NULL;
    }
}

static int r_engine_start(void *ctx)
{
    runner *r = ctx;
    r_engine_stop(r);
    if (r->start_failures >= 3) {
        fprintf(stderr, "ddz bridge: the engine died %d times before saying its name; giving up\n",
                r->start_failures);
        finish(r, 1);
        return -1;
    }
    int err = 0;
    r->eng = ddz_engine_spawn(r->cfg->engine_cmd, r->engine_log, NULL, &err);
    if (!r->eng) {
        fprintf(stderr, "ddz bridge: cannot start the engine: %s\n", ddz_strerror(err));
        finish(r, 1);
        return -1;
    }
    /* lws closes the fds it adopts: give it a duplicate, the engine keeps its own */
    int fd = dup(ddz_engine_read_fd(r->eng));
    lws_adopt_desc_t ad = {.vh = r->vh,
                           .type = LWS_ADOPT_RAW_FILE_DESC,
                           .fd = {.filefd = fd},
                           .vh_prot_name = "ddz-engine"};
    r->eng_wsi = fd < 0 ? NULL : lws_adopt_descriptor_vhost_via_info(&ad);
    if (!r->eng_wsi) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "ddz bridge: cannot watch the engine's output\n");
        ddz_engine_destroy(r->eng);
        r->eng = NULL;
        finish(r, 1);
        return -1;
    }
    return 0;
}

/* Stops a dead or misbehaving engine and tells the translator. */
static void engine_gone(runner *r, int why)
{
    ddz_engine_stop(r->eng);
    int st = ddz_engine_exit_status(r->eng);
    if (why == DDZ_ECRASH)
        fprintf(stderr, "ddz bridge: warning: the engine exited (status %d)\n", st);
    else
        fprintf(stderr, "ddz bridge: warning: the engine was stopped: %s\n", ddz_strerror(why));
    if (!r->b.named)
        r->start_failures++;
    r_engine_stop(r);
    ddz_bridge_engine_died(&r->b);
}

static int cb_engine(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                     size_t len)
{
    runner *r = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_RAW_RX_FILE: {
        if (wsi != r->eng_wsi || !r->eng)
            return -1; /* an old engine's pipe */
        int rc = ddz_engine_on_readable(r->eng);
        char line[DDZ_ENGINE_MAX_LINE + 1];
        size_t n;
        int got;
        while (r->eng && (got = ddz_engine_next_line(r->eng, line, sizeof line, &n)) != 0) {
            if (got == DDZ_ENOSPC)
                break;
            if (got == 1)
                r->start_failures = 0;
            ddz_bridge_on_engine_line(&r->b, line, n, got == DDZ_ESYNTAX);
        }
        if (rc < 0 && r->eng && wsi == r->eng_wsi) {
            r->eng_wsi = NULL; /* closed by our -1 */
            engine_gone(r, rc);
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_RAW_CLOSE_FILE:
        if (wsi == r->eng_wsi) {
            r->eng_wsi = NULL;
            if (r->eng)
                engine_gone(r, DDZ_ECRASH);
        }
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void connect_now(runner *r);

static void leave_tick(lws_sorted_usec_list_t *sul)
{
    finish(lws_container_of(sul, runner, leave_sul), 0);
}

static void pace_tick(lws_sorted_usec_list_t *sul)
{
    runner *r = lws_container_of(sul, runner, pace_sul);
    if (r->ws && r->head)
        lws_callback_on_writable(r->ws);
}

static void retry_tick(lws_sorted_usec_list_t *sul)
{
    runner *r = lws_container_of(sul, runner, retry_sul);
    connect_now(r);
}

static void disconnected(runner *r, const char *why)
{
    r->ws = NULL;
    drop_queue(r);
    r->rxlen = 0;
    if (r->done)
        return;
    if (r->leaving) {
        finish(r, 0);
        return;
    }
    if (!r->welcomed) {
        fprintf(stderr, "ddz bridge: cannot connect to %s: %s\n", r->cfg->url, why);
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
    fprintf(stderr, "ddz bridge: warning: connection lost (%s); reconnecting in %d s\n", why,
            delay);
    lws_sul_schedule(r->ctx, 0, &r->retry_sul, retry_tick, (lws_usec_t)delay * LWS_US_PER_SEC);
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
        if (r->rxlen + len > DDZ_MSG_MAX * 64) /* events are small; a state may be a few KiB */
            return -1;
        if (r->rxlen + len > r->rxcap) {
            size_t cap = (r->rxlen + len) * 2;
            char *nb = realloc(r->rx, cap);
            if (!nb)
                return -1;
            r->rx = nb;
            r->rxcap = cap;
        }
        memcpy(r->rx + r->rxlen, in, len);
        r->rxlen += len;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
            return 0;
        size_t n = r->rxlen;
        r->rxlen = 0;
        if (r->done)
            return 0;
        int st = ddz_bridge_on_frame(&r->b, r->rx, n);
        if (r->b.player[0] && !r->welcomed)
            r->welcomed = true;
        if (r->b.seated)
            r->attempts = 0;
        if (st == DDZ_BRIDGE_DONE) {
            /* the `leave` goes out first; bounded by a second */
            r->leaving = true;
            lws_sul_schedule(r->ctx, 0, &r->leave_sul, leave_tick, LWS_US_PER_SEC);
            if (!r->head)
                finish(r, 0);
        } else if (st == DDZ_BRIDGE_REFUSED)
            finish(r, 1);
        else if (st == DDZ_BRIDGE_BYE)
            finish(r, 3);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (wsi != r->ws)
            return -1;
        outmsg *m = r->head;
        if (!m)
            return 0;
        int64_t now = mono_us();
        r->tokens += (double)(now - r->tokens_us) / 1e6 * FRAMES_PER_S;
        if (r->tokens > FRAMES_BURST)
            r->tokens = FRAMES_BURST;
        r->tokens_us = now;
        if (r->tokens < 1) {
            lws_sul_schedule(r->ctx, 0, &r->pace_sul, pace_tick,
                             (lws_usec_t)((1 - r->tokens) / FRAMES_PER_S * 1e6) + 1);
            return 0;
        }
        r->tokens -= 1;
        r->head = m->next;
        if (!r->head)
            r->tail = NULL;
        int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
        free(m);
        if (n < 0)
            return -1;
        if (r->head)
            lws_callback_on_writable(wsi);
        else if (r->leaving)
            finish(r, 0);
        return 0;
    }
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {{"ddz-bridge", cb_ws, 0, 4096, 0, NULL, 0},
                                                 {"ddz-engine", cb_engine, 0, 0, 0, NULL, 0},
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

int ddz_bridge_run(const ddz_bridge_cfg *cfg)
{
    static runner storage; /* big (the translator holds a view); one per process */
    runner *r = &storage;
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    if (ddz_url_parse(cfg->url, &r->url) < 0) {
        fprintf(stderr, "ddz bridge: '%s' is no ws:// or wss:// URL\n", cfg->url);
        return 2;
    }
    r->engine_log = cfg->engine_log;
    if (!r->engine_log) {
        /* inherit our stderr when it can be reopened (a tty, file or pipe) */
        int fd = open("/dev/stderr", O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            r->engine_log = "/dev/stderr";
        }
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
    r->ctx = lws_create_context(&info);
    if (r->ctx)
        r->vh = lws_create_vhost(r->ctx, &info);
    if (!r->ctx || !r->vh) {
        fprintf(stderr, "ddz bridge: cannot create the event loop\n");
        if (r->ctx)
            lws_context_destroy(r->ctx);
        return 1;
    }
    ddz_bridge_io io = {.ctx = r,
                        .engine_start = r_engine_start,
                        .engine_stop = r_engine_stop,
                        .engine_send = r_engine_send,
                        .server_send = r_server_send,
                        .log = r_log};
    ddz_bridge_init(&r->b, &io, &cfg->opts);
    r->tokens = FRAMES_BURST;
    r->tokens_us = mono_us();

    signal_ctx = r->ctx;
    stop_signal = 0;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    /* The engine starts at once, so a broken command shows before any game. */
    if (ddz_bridge_start(&r->b) == 0)
        connect_now(r);
    while (!r->done && !stop_signal)
        if (lws_service(r->ctx, 0) < 0)
            break;
    if (stop_signal && !r->done) {
        fprintf(stderr, "ddz bridge: %s: stopping\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        finish(r, 0);
    }
    r_engine_stop(r);
    lws_sul_cancel(&r->retry_sul);
    lws_sul_cancel(&r->pace_sul);
    lws_sul_cancel(&r->leave_sul);
    drop_queue(r);
    lws_context_destroy(r->ctx);
    signal_ctx = NULL;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(r->rx);
    r->rx = NULL;
    return r->status;
}
