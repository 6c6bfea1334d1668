/* event.c - server events in and out: a printer and a reader per type, in
 * the order of PROTOCOL.md's table, sharing the nested parts (a player, a
 * turn, an over event). */
#include "event.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fail.h"
#include "proto/record_json.h"
#include "proto/terms.h"
#include "proto/text.h"
#include "proto/utf8.h"
#include "rules/combo.h"
#include "rules/error.h"
#include "rules/game.h"
#include "rules/movegen.h"

enum {
    MAX_BOMBS = 13,       /* one four per rank 3..2 */
    MAX_FACTOR = 1000000, /* multiplier: as proto/record_json */
};

static const char *const event_names[DDZ_NEVENT] = {
    NULL,       "welcome",  "rooms",  "joined", "state",     "seat",   "game", "turn",
    "bid_made", "leftover", "played", "over",   "turn_over", "error",  "bye",  "fault",
    "enlisted", "released", "hint",   "phrase", "redirect",  "queued", "rated"};
static const char *const kind_names[] = {"human", "bot", "ai", "engine"};
static const char *const action_names[] = {"bid", "play"};
static const char *const phase_names[] = {"waiting", "bid", "play", "between", "turn_over"};
static const char *const role_names[] = {NULL, "landlord", "farmer"};
static const char *const custody_names[] = {"ai", "fault"};

#define NAMES(a) (a), (int)(sizeof(a) / sizeof((a)[0]))

/* names[i], or "?" for a value outside the table (print does not check) */
static const char *name_of(const char *const *names, int n, int i)
{
    return i >= 0 && i < n && names[i] ? names[i] : "?";
}

const char *ddz_event_name(int type)
{
    return type > 0 && type < DDZ_NEVENT ? event_names[type] : "unknown";
}

int ddz_event_type_of(const char *name)
{
    for (int t = 1; t < DDZ_NEVENT; t++)
        if (strcmp(name, event_names[t]) == 0)
            return t;
    return DDZ_EUNKNOWN;
}

/* ---- printing ---------------------------------------------------------- */

/* Sets key = v in o, stealing v; any failure (v or o NULL) clears *ok. */
static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
    if (json_object_set_new(o, key, v) < 0)
        *ok = false;
}

static void add(json_t *a, json_t *v, bool *ok)
{
    if (json_array_append_new(a, v) < 0)
        *ok = false;
}

/* Returns o, or NULL (o released) when something failed. */
static json_t *done(json_t *o, bool ok)
{
    if (ok && o)
        return o;
    json_decref(o);
    return NULL;
}

static json_t *cards_json(ddz_cards c)
{
    json_t *a = json_array();
    bool ok = true;
    for (; a && c; c &= c - 1)
        add(a, json_integer(__builtin_ctzll(c)), &ok);
    return done(a, ok);
}

static json_t *cards_or_null(bool has, ddz_cards c)
{
    return has ? cards_json(c) : json_null();
}

static json_t *int_or_null(int v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

/* A multiplier: 0 (none) is null. */
static json_t *mult_or_null(int v)
{
    return v > 0 ? json_integer(v) : json_null();
}

static json_t *hex_json(const uint8_t b[DDZ_SEED_BYTES])
{
    char hex[65];
    ddz_text_format_seed(b, hex);
    return json_string(hex);
}

/* A shown rating or deviation as sent: to 0.1 (what people read, and no
 * float noise in the JSON). */
static double tenth(double x)
{
    return round(x * 10.0) / 10.0;
}

/* Three scores or totals: integers when whole, else reals. */
static json_t *three(const double v[3])
{
    json_t *a = json_array();
    bool ok = true;
    for (int i = 0; i < 3; i++)
        add(a, ddz_score_json(v[i]), &ok);
    return done(a, ok);
}

static json_t *player_json(const ddz_event_player *p, bool state)
{
    if (!p->seated)
        return json_null();
    json_t *o = json_object();
    bool ok = true;
    put(o, "name", json_string(p->name), &ok);
    put(o, "kind", json_string(name_of(NAMES(kind_names), p->kind)), &ok);
    put(o, "connected", json_boolean(p->connected), &ok);
    put(o, "custody", json_boolean(p->custody), &ok);
    if (p->missed > 0)
        put(o, "missed", json_integer(p->missed), &ok);
    if (p->standin[0])
        put(o, "standin", json_string(p->standin), &ok);
    if (state && p->in_game) {
        put(o, "left", json_integer(p->left), &ok);
        put(o, "bid", int_or_null(p->bid), &ok);
        put(o, "role",
            p->role == DDZ_EVENT_ROLE_NONE ? json_null()
                                           : json_string(name_of(NAMES(role_names), p->role)),
            &ok);
        json_t *last = json_null();
        if (p->has_last) {
            last = json_object();
            put(last, "cards", cards_json(p->last), &ok);
            put(last, "combo", json_string(ddz_type_name(p->last_combo)), &ok);
        }
        put(o, "last", last, &ok);
        put(o, "faulted", json_boolean(p->faulted), &ok);
    }
    return done(o, ok);
}

static json_t *welcome_json(json_t *o, const ddz_event_welcome *w, bool *ok)
{
    put(o, "version", json_integer(w->version), ok);
    json_t *you = json_object();
    put(you, "id", json_string(w->id), ok);
    put(you, "name", json_string(w->name), ok);
    put(you, "bot", json_boolean(w->bot), ok);
    put(o, "you", you, ok);
    put(o, "resume", json_string(w->resume), ok);
    put(o, "server", json_string(w->server), ok);
    if (w->account[0])
        put(o, "account", json_string(w->account), ok);
    return o;
}

static json_t *names_json(const char *const *names, size_t n)
{
    json_t *a = json_array();
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        add(a, json_string(names[i]), &ok);
    return done(a, ok);
}

static json_t *room_json(const ddz_event_room *r)
{
    json_t *o = json_object();
    bool ok = true;
    put(o, "id", json_string(r->id), &ok);
    put(o, "name", json_string(r->name), &ok);
    put(o, "rules", json_string(r->rules), &ok);
    put(o, "time", json_integer(r->time), &ok);
    put(o, "games", json_integer(r->games), &ok);
    put(o, "private", json_boolean(r->priv), &ok);
    put(o, "bots", json_boolean(r->bots), &ok);
    put(o, "password", json_boolean(r->password), &ok);
    json_t *seats = json_array();
    for (int s = 0; s < 3; s++)
        add(seats, player_json(&r->seats[s], false), &ok);
    put(o, "seats", seats, &ok);
    put(o, "spectators", json_integer(r->spectators), &ok);
    put(o, "playing", json_boolean(r->playing), &ok);
    if (r->rated)
        put(o, "rated", json_true(), &ok);
    return done(o, ok);
}

static json_t *rooms_json(json_t *o, const ddz_event_rooms *r, bool *ok)
{
    json_t *rooms = json_array();
    for (size_t i = 0; i < r->nrooms; i++)
        add(rooms, room_json(&r->rooms[i]), ok);
    put(o, "rooms", rooms, ok);
    put(o, "ais", names_json(r->ais, r->nais), ok);
    put(o, "engines", names_json(r->engines, r->nengines), ok);
    put(o, "rules", names_json(r->rules, r->nrules), ok);
    return o;
}

static json_t *turn_json(json_t *o, const ddz_event_turn *t, bool *ok)
{
    put(o, "seat", json_integer(t->seat), ok);
    put(o, "action", json_string(name_of(NAMES(action_names), t->action)), ok);
    put(o, "seq", json_integer(t->seq), ok);
    put(o, "deadline_ms", json_integer(t->deadline_ms), ok);
    if (!t->has_legal)
        return o;
    json_t *legal = json_array();
    if (t->action == DDZ_EVENT_ACT_BID) {
        for (int b = 0; b <= 3; b++)
            if (t->legal_bids & (1u << b))
                add(legal, json_integer(b), ok);
    } else {
        for (size_t i = 0; i < t->nlegal; i++)
            add(legal, cards_json(t->legal[i]), ok);
    }
    put(o, "legal", legal, ok);
    return o;
}

static json_t *over_json(json_t *o, const ddz_event_over *v, bool *ok)
{
    put(o, "game", json_integer(v->game), ok);
    put(o, "winner", int_or_null(v->winner), ok);
    put(o, "landlord", int_or_null(v->landlord), ok);
    json_t *fault = json_null();
    if (v->fault_seat >= 0) {
        fault = json_object();
        put(fault, "seat", json_integer(v->fault_seat), ok);
        put(fault, "kind", json_string(ddz_fault_name(v->fault_kind)), ok);
    }
    put(o, "fault", fault, ok);
    put(o, "scores", three(v->scores), ok);
    json_t *b = json_object();
    put(b, "bid", json_integer(v->bid), ok);
    put(b, "bombs", json_integer(v->bombs), ok);
    put(b, "rocket", json_boolean(v->rocket), ok);
    put(b, "spring", json_boolean(v->spring), ok);
    put(b, "anti_spring", json_boolean(v->anti_spring), ok);
    put(b, "multiplier", json_integer(v->multiplier), ok);
    put(b, "terms", ddz_terms_json(v->terms, v->nterms), ok);
    put(o, "breakdown", b, ok);
    json_t *hands = json_array(), *dealt = json_array();
    for (int s = 0; s < 3; s++) {
        add(hands, cards_json(v->hands[s]), ok);
        add(dealt, cards_json(v->dealt[s]), ok);
    }
    put(o, "hands", hands, ok);
    put(o, "dealt", dealt, ok);
    put(o, "leftover", cards_json(v->leftover), ok);
    put(o, "seed", hex_json(v->seed), ok);
    put(o, "commit", hex_json(v->commit), ok);
    put(o, "game_id", json_integer(v->game_id), ok);
    put(o, "game_key", v->game_key[0] ? json_string(v->game_key) : json_null(), ok);
    put(o, "totals", three(v->totals), ok);
    if (v->redeal)
        put(o, "redeal", json_true(), ok);
    return o;
}

void ddz_event_over_fill(ddz_event_over *o, const ddz_game *g, const ddz_record *rec)
{
    *o = (ddz_event_over){
        .game = rec->game + 1,
        .winner = g->winner,
        .landlord = g->landlord,
        .fault_seat = rec->fault_seat,
        .fault_kind = rec->fault_kind,
        .bid = g->bid,
        .bombs = g->bombs,
        .rocket = g->rocket,
        .spring = g->spring,
        .anti_spring = g->anti_spring,
        .multiplier = g->multiplier,
        .leftover = g->deal.leftover,
    };
    for (int s = 0; s < 3; s++) {
        o->scores[s] = rec->scores[s];
        o->hands[s] = g->hand[s];
        o->dealt[s] = g->deal.hand[s];
    }
    o->nterms = ddz_record_explain(rec, g, o->terms);
    memcpy(o->seed, rec->seed, sizeof o->seed);
    memcpy(o->commit, rec->commit, sizeof o->commit);
}

/* A nested event (a state's turn or result): {"type": name, ...}. */
static json_t *nested(const char *type, bool *ok)
{
    json_t *o = json_object();
    put(o, "type", json_string(type), ok);
    return o;
}

static json_t *state_json(json_t *o, const ddz_event_state *s, bool *ok)
{
    json_t *room = json_object(), *opts = json_object();
    const ddz_event_options *op = &s->options;
    put(room, "id", json_string(s->room), ok);
    put(room, "name", json_string(s->room_name), ok);
    put(room, "password", json_boolean(s->password), ok);
    put(opts, "rules", json_string(op->rules), ok);
    put(opts, "time", json_integer(op->time), ok);
    put(opts, "games", json_integer(op->games), ok);
    put(opts, "private", json_boolean(op->priv), ok);
    put(opts, "bots", json_boolean(op->bots), ok);
    put(opts, "autopass", json_boolean(op->autopass), ok);
    put(opts, "grace", json_integer(op->grace), ok);
    put(opts, "custody", json_string(name_of(NAMES(custody_names), op->custody)), ok);
    put(opts, "pause", json_integer(op->pause), ok);
    put(opts, "redeal", json_boolean(op->redeal), ok);
    if (op->rated)
        put(opts, "rated", json_true(), ok);
    put(room, "options", opts, ok);
    put(o, "room", room, ok);
    put(o, "seat", int_or_null(s->seat), ok);
    put(o, "phase", json_string(name_of(NAMES(phase_names), s->phase)), ok);
    put(o, "game", json_integer(s->game), ok);
    put(o, "games", json_integer(s->games), ok);
    put(o, "commit", s->has_commit ? hex_json(s->commit) : json_null(), ok);
    json_t *players = json_array();
    for (int i = 0; i < 3; i++)
        add(players, player_json(&s->players[i], true), ok);
    put(o, "players", players, ok);
    put(o, "hand", cards_or_null(s->has_hand, s->hand), ok);
    put(o, "leftover", cards_or_null(s->has_leftover, s->leftover), ok);
    put(o, "landlord", int_or_null(s->landlord), ok);
    put(o, "bid", int_or_null(s->bid), ok);
    put(o, "multiplier", mult_or_null(s->multiplier), ok);
    json_t *history = json_array();
    for (int i = 0; i < s->nhistory; i++) {
        json_t *p = json_object();
        put(p, "seat", json_integer(s->history[i].seat), ok);
        put(p, "cards", cards_json(s->history[i].cards), ok);
        put(p, "combo", json_string(ddz_type_name(s->history[i].combo)), ok);
        put(p, "auto", json_boolean(s->history[i].autopass), ok);
        add(history, p, ok);
    }
    put(o, "history", history, ok);
    put(o, "turn", s->has_turn ? turn_json(nested("turn", ok), &s->turn, ok) : json_null(), ok);
    put(o, "totals", three(s->totals), ok);
    put(o, "autopass", json_boolean(s->autopass), ok);
    put(o, "result", s->has_result ? over_json(nested("over", ok), &s->result, ok) : json_null(),
        ok);
    if (s->has_ready) { /* printed only while a casual room waits for its players */
        json_t *ready = json_object(), *seats = json_array();
        for (int i = 0; i < 3; i++)
            add(seats, json_boolean(s->ready[i]), ok);
        put(ready, "seats", seats, ok);
        put(ready, "ms", json_integer(s->ready_ms), ok);
        put(o, "ready", ready, ok);
    }
    if (s->held)
        put(o, "held", json_true(), ok);
    if (s->stood_up)
        put(o, "stood_up", json_true(), ok);
    if (s->seat_next)
        put(o, "seat_next", json_true(), ok);
    return o;
}

static json_t *error_json(json_t *o, const ddz_event_error *e, bool *ok)
{
    put(o, "code", json_string(ddz_errname(e->code)), ok);
    put(o, "message", json_string(e->message[0] ? e->message : ddz_strerror(e->code)), ok);
    if (e->about)
        put(o, "about", json_string(ddz_req_name(e->about)), ok);
    if (e->id[0])
        put(o, "id", json_loads(e->id, JSON_DECODE_ANY, NULL), ok);
    return o;
}

/* ---- the events of a move, written straight ---- */

/* Text being written: grows by doubling; a failed growth sets `fail`. */
typedef struct text_out {
    char *p;
    size_t len, cap;
    bool fail;
} text_out;

static void out_n(text_out *t, const char *s, size_t n)
{
    if (t->fail)
        return;
    if (n + 1 > t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 256;
        while (n + 1 > cap - t->len)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->fail = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

/* A literal or a name: ASCII with nothing to escape (the protocol's
 * names are lower case words). */
static void out_s(text_out *t, const char *s)
{
    out_n(t, s, strlen(s));
}

/* An integer as jansson prints it (%lld). */
static void out_i(text_out *t, long long v)
{
    char b[24], *e = b + sizeof b, *q = e;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--q = '-';
    out_n(t, q, (size_t)(e - q));
}

/* A set of cards as cards_json() prints it: their indexes, ascending. */
static void out_cards(text_out *t, ddz_cards c)
{
    out_n(t, "[", 1);
    for (bool first = true; c; c &= c - 1, first = false) {
        if (!first)
            out_n(t, ",", 1);
        out_i(t, __builtin_ctzll(c));
    }
    out_n(t, "]", 1);
}

static void out_turn(text_out *t, const ddz_event_turn *v)
{
    out_s(t, "{\"type\":\"turn\",\"seat\":");
    out_i(t, v->seat);
    out_s(t, ",\"action\":\"");
    out_s(t, name_of(NAMES(action_names), v->action));
    out_s(t, "\",\"seq\":");
    out_i(t, v->seq);
    out_s(t, ",\"deadline_ms\":");
    out_i(t, v->deadline_ms);
    if (v->has_legal) {
        out_s(t, ",\"legal\":[");
        bool first = true;
        if (v->action == DDZ_EVENT_ACT_BID) {
            for (int b = 0; b <= 3; b++)
                if (v->legal_bids & (1u << b)) {
                    if (!first)
                        out_n(t, ",", 1);
                    out_i(t, b);
                    first = false;
                }
        } else {
            for (size_t i = 0; i < v->nlegal; i++, first = false) {
                if (!first)
                    out_n(t, ",", 1);
                out_cards(t, v->legal[i]);
            }
        }
        out_n(t, "]", 1);
    }
    out_n(t, "}", 1);
}

char *ddz_event_dump(const ddz_event *e)
{
    text_out t = {0};
    switch (e->type) {
    case DDZ_EVENT_TURN:
        out_turn(&t, &e->turn);
        break;
    case DDZ_EVENT_BID_MADE:
        out_s(&t, "{\"type\":\"bid_made\",\"seat\":");
        out_i(&t, e->bid_made.seat);
        out_s(&t, ",\"bid\":");
        out_i(&t, e->bid_made.bid);
        out_n(&t, "}", 1);
        break;
    case DDZ_EVENT_PLAYED:
        out_s(&t, "{\"type\":\"played\",\"seat\":");
        out_i(&t, e->played.seat);
        out_s(&t, ",\"cards\":");
        out_cards(&t, e->played.cards);
        out_s(&t, ",\"combo\":\"");
        out_s(&t, ddz_type_name(e->played.combo));
        out_s(&t,
              e->played.autopass ? "\",\"auto\":true,\"left\":" : "\",\"auto\":false,\"left\":");
        out_i(&t, e->played.left);
        out_s(&t, ",\"multiplier\":");
        if (e->played.multiplier > 0)
            out_i(&t, e->played.multiplier);
        else
            out_s(&t, "null");
        out_n(&t, "}", 1);
        break;
    default:
        return ddz_msg_dump(ddz_event_print(e));
    }
    if (t.fail) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

json_t *ddz_event_print(const ddz_event *e)
{
    if (e->type <= 0 || e->type >= DDZ_NEVENT)
        return NULL;
    bool ok = true;
    json_t *o = nested(event_names[e->type], &ok);
    switch (e->type) {
    case DDZ_EVENT_WELCOME:
        welcome_json(o, &e->welcome, &ok);
        break;
    case DDZ_EVENT_ROOMS:
        rooms_json(o, &e->rooms, &ok);
        break;
    case DDZ_EVENT_JOINED:
        put(o, "room", e->joined.room[0] ? json_string(e->joined.room) : json_null(), &ok);
        put(o, "seat", int_or_null(e->joined.seat), &ok);
        break;
    case DDZ_EVENT_STATE:
        state_json(o, &e->state, &ok);
        break;
    case DDZ_EVENT_SEAT:
        put(o, "seat", json_integer(e->seat.seat), &ok);
        put(o, "player", player_json(&e->seat.player, false), &ok);
        break;
    case DDZ_EVENT_GAME:
        put(o, "game", json_integer(e->game.game), &ok);
        put(o, "games", json_integer(e->game.games), &ok);
        put(o, "commit", hex_json(e->game.commit), &ok);
        put(o, "hand", cards_or_null(e->game.has_hand, e->game.hand), &ok);
        break;
    case DDZ_EVENT_TURN:
        turn_json(o, &e->turn, &ok);
        break;
    case DDZ_EVENT_BID_MADE:
        put(o, "seat", json_integer(e->bid_made.seat), &ok);
        put(o, "bid", json_integer(e->bid_made.bid), &ok);
        break;
    case DDZ_EVENT_LEFTOVER:
        put(o, "landlord", json_integer(e->leftover.landlord), &ok);
        put(o, "cards", cards_json(e->leftover.cards), &ok);
        put(o, "bid", json_integer(e->leftover.bid), &ok);
        put(o, "multiplier", mult_or_null(e->leftover.multiplier), &ok);
        break;
    case DDZ_EVENT_PLAYED:
        put(o, "seat", json_integer(e->played.seat), &ok);
        put(o, "cards", cards_json(e->played.cards), &ok);
        put(o, "combo", json_string(ddz_type_name(e->played.combo)), &ok);
        put(o, "auto", json_boolean(e->played.autopass), &ok);
        put(o, "left", json_integer(e->played.left), &ok);
        put(o, "multiplier", mult_or_null(e->played.multiplier), &ok);
        break;
    case DDZ_EVENT_OVER:
        over_json(o, &e->over, &ok);
        break;
    case DDZ_EVENT_TURN_OVER:
        put(o, "totals", three(e->turn_over.totals), &ok);
        put(o, "games", json_integer(e->turn_over.games), &ok);
        break;
    case DDZ_EVENT_ERROR:
        error_json(o, &e->error, &ok);
        break;
    case DDZ_EVENT_BYE:
        put(o, "reason", json_string(e->bye.reason), &ok);
        break;
    case DDZ_EVENT_FAULT:
        put(o, "seat", json_integer(e->fault.seat), &ok);
        put(o, "kind", json_string(ddz_fault_name(e->fault.kind)), &ok);
        break;
    case DDZ_EVENT_ENLISTED:
        put(o, "competition", json_string(e->enlisted.competition), &ok);
        put(o, "player", json_string(e->enlisted.player), &ok);
        break;
    case DDZ_EVENT_RELEASED:
        put(o, "reason", json_string(e->released.reason), &ok);
        break;
    case DDZ_EVENT_HINT: {
        put(o, "seq", json_integer(e->hint.seq), &ok);
        json_t *plays = json_array();
        for (size_t i = 0; plays && i < e->hint.n && i < DDZ_EVENT_HINTS_MAX; i++)
            add(plays, cards_json(e->hint.plays[i]), &ok);
        put(o, "plays", plays, &ok);
        break;
    }
    case DDZ_EVENT_PHRASE:
        put(o, "seat", json_integer(e->phrase.seat), &ok);
        put(o, "phrase", json_integer(e->phrase.phrase), &ok);
        break;
    case DDZ_EVENT_QUEUED:
        put(o, "rules", json_string(e->queued.rules), &ok);
        put(o, "rating", ddz_score_json(tenth(e->queued.rating)), &ok);
        put(o, "fill_s", json_integer(e->queued.fill_s), &ok);
        break;
    case DDZ_EVENT_RATED:
        put(o, "game", json_integer(e->rated.game), &ok);
        put(o, "rules", json_string(e->rated.rules), &ok);
        put(o, "before", ddz_score_json(tenth(e->rated.before)), &ok);
        put(o, "rating", ddz_score_json(tenth(e->rated.rating)), &ok);
        put(o, "deviation", ddz_score_json(tenth(e->rated.deviation)), &ok);
        put(o, "games", json_integer(e->rated.games), &ok);
        put(o, "forfeit", json_boolean(e->rated.forfeit), &ok);
        break;
    case DDZ_EVENT_REDIRECT:
        put(o, "url", json_string(e->redirect.url), &ok);
        put(o, "about", json_string(ddz_req_name(e->redirect.about)), &ok);
        if (e->redirect.id[0])
            put(o, "id", json_loads(e->redirect.id, JSON_DECODE_ANY, NULL), &ok);
        if (e->redirect.room[0])
            put(o, "room", json_string(e->redirect.room), &ok);
        put(o, "reason", json_string(e->redirect.reason), &ok);
        break;
    }
    return done(o, ok);
}

/* ---- parsing ----------------------------------------------------------- */

/* A parse in progress: where its error message goes. Every reader below
 * returns 0 or a negative code with the message written; `at` is the path
 * of the object read ("" for the frame, "result", "rooms[2]") and `key` the
 * field in it ("" when `at` names the value itself). */
typedef struct rd {
    char *err;
    size_t errlen;
} rd;

/* ddz_failv() after the path: "at.key: message". */
static int failv(rd *r, int code, const char *at, const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static int failv(rd *r, int code, const char *at, const char *key, const char *fmt, va_list ap)
{
    if (!r->err || !r->errlen)
        return code;
    int n = 0;
    if (at[0] || key[0])
        n = snprintf(r->err, r->errlen, "%s%s%s: ", at, at[0] && key[0] ? "." : "", key);
    if (n >= 0 && (size_t)n < r->errlen)
        ddz_failv(code, r->err + n, r->errlen - (size_t)n, fmt, ap);
    return code;
}

static int fail(rd *r, int code, const char *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(rd *r, int code, const char *at, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, code, at, key, fmt, ap);
    va_end(ap);
    return code;
}

static int bad(rd *r, const char *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(rd *r, const char *at, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, DDZ_EFIELD, at, key, fmt, ap);
    va_end(ap);
    return DDZ_EFIELD;
}

/* at[i] into buf */
static const char *sub(char *buf, size_t cap, const char *at, const char *key, size_t i)
{
    /* a path cut short only shortens an error message */
    return snprintf(buf, cap, "%s%s%s[%zu]", at, at[0] && key[0] ? "." : "", key, i) < 0 ? "" : buf;
}

/* at.key into buf */
static const char *child(char *buf, size_t cap, const char *at, const char *key)
{
    return snprintf(buf, cap, "%s%s%s", at, at[0] ? "." : "", key) < 0 ? "" : buf;
}

enum { PATH = 80 };

static int member(rd *r, const json_t *o, const char *at, const char *key, const json_t **v)
{
    *v = key[0] ? json_object_get(o, key) : o;
    return *v ? 0 : bad(r, at, key, "missing");
}

static int val_int(rd *r, const json_t *v, const char *at, const char *key, long long lo,
                   long long hi, long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(r, at, key, "must be an integer from %lld to %lld", lo, hi);
    *out = json_integer_value(v);
    return 0;
}

static int get_ll(rd *r, const json_t *o, const char *at, const char *key, long long lo,
                  long long hi, long long *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    return rc ? rc : val_int(r, v, at, key, lo, hi, out);
}

static int get_int(rd *r, const json_t *o, const char *at, const char *key, int lo, int hi,
                   int *out)
{
    long long v = 0;
    int rc = get_ll(r, o, at, key, lo, hi, &v);
    if (!rc)
        *out = (int)v;
    return rc;
}

/* null = -1, else lo..hi (lo >= 0) */
static int get_int_or_null(rd *r, const json_t *o, const char *at, const char *key, int lo, int hi,
                           int *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    if (rc)
        return rc;
    if (json_is_null(v)) {
        *out = -1;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(r, at, key, "must be null or an integer from %d to %d", lo, hi);
    *out = (int)json_integer_value(v);
    return 0;
}

/* A multiplier: a positive integer, or null (stored as 0: none). */
static int get_mult(rd *r, const json_t *o, int *out)
{
    int rc = get_int_or_null(r, o, "", "multiplier", 1, DDZ_EVENT_MULTIPLIER_MAX, out);
    if (rc == 0 && *out < 0)
        *out = 0;
    return rc;
}

static int get_bool(rd *r, const json_t *o, const char *at, const char *key, bool *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    if (rc)
        return rc;
    if (!json_is_boolean(v))
        return bad(r, at, key, "must be true or false");
    *out = json_is_true(v);
    return 0;
}

enum str_flags { TEXT = 1 }; /* no control characters */

/* A string of min..cap-1 bytes (and at most maxchars characters, 0 = any),
 * without NUL, copied into out. */
static int val_str(rd *r, const json_t *v, const char *at, const char *key, char *out, size_t cap,
                   size_t min, size_t maxchars, int flags)
{
    if (!json_is_string(v))
        return bad(r, at, key, "must be a string");
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (strlen(s) != len)
        return bad(r, at, key, "must not hold NUL");
    /* characters counted as valid UTF-8: jansson rejects any other */
    if (len < min || len >= cap || (maxchars && ddz_utf8_chars(s) > maxchars))
        return maxchars ? bad(r, at, key, "must be %zu to %zu characters", min, maxchars)
                        : bad(r, at, key, "must be %zu to %zu bytes", min, cap - 1);
    if ((flags & TEXT) && ddz_utf8_has_controls(s, len))
        return bad(r, at, key, "control characters are not allowed");
    memcpy(out, s, len + 1);
    return 0;
}

static int get_str(rd *r, const json_t *o, const char *at, const char *key, char *out, size_t cap,
                   size_t min, size_t maxchars, int flags)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    return rc ? rc : val_str(r, v, at, key, out, cap, min, maxchars, flags);
}

/* One of names[0..n) (NULL entries never match); *out = its index. */
static int get_enum(rd *r, const json_t *o, const char *at, const char *key,
                    const char *const *names, int n, int *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    if (rc)
        return rc;
    const char *s = json_string_value(v);
    if (s && strlen(s) == json_string_length(v))
        for (int i = 0; i < n; i++)
            if (names[i] && strcmp(s, names[i]) == 0) {
                *out = i;
                return 0;
            }
    char list[160] = "";
    for (int i = 0; i < n; i++)
        if (names[i])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"",
                     list[0] ? ", " : "", names[i]);
    return bad(r, at, key, "must be one of %s", list);
}

/* A combination's type name (rules/combo.h), "pass" included. */
static int get_combo(rd *r, const json_t *o, const char *at, const char *key, int *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    if (rc)
        return rc;
    const char *s = json_string_value(v);
    for (int t = DDZ_ROCKET; s && t < DDZ_NTYPES; t++)
        if (strcmp(s, ddz_type_name(t)) == 0 && strlen(s) == json_string_length(v)) {
            *out = t;
            return 0;
        }
    return bad(r, at, key, "must be a combination type (\"single\", ..., \"pass\")");
}

/* An array of min..max distinct card codes. */
static int val_cards(rd *r, const json_t *a, const char *at, const char *key, int min, int max,
                     ddz_cards *out)
{
    if (!json_is_array(a))
        return bad(r, at, key, "must be an array of card codes");
    size_t n = json_array_size(a);
    if (n < (size_t)min || n > (size_t)max)
        return min == max ? bad(r, at, key, "must hold %d cards", min)
                          : bad(r, at, key, "must hold %d to %d cards", min, max);
    ddz_cards c = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        char p[PATH];
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= DDZ_NCARDS)
            return bad(r, sub(p, sizeof p, at, key, i), "", "must be a card code 0..53");
        ddz_cards bit = 1ULL << json_integer_value(v);
        if (c & bit)
            return bad(r, sub(p, sizeof p, at, key, i), "", "card %lld repeated",
                       (long long)json_integer_value(v));
        c |= bit;
    }
    *out = c;
    return 0;
}

static int get_cards(rd *r, const json_t *o, const char *at, const char *key, int min, int max,
                     ddz_cards *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    return rc ? rc : val_cards(r, v, at, key, min, max, out);
}

static int get_cards_or_null(rd *r, const json_t *o, const char *at, const char *key, int min,
                             int max, bool *has, ddz_cards *out)
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    if (rc)
        return rc;
    *has = !json_is_null(v);
    return *has ? val_cards(r, v, at, key, min, max, out) : 0;
}

/* 64 lower-case hex digits */
static int val_hex(rd *r, const json_t *v, const char *at, const char *key,
                   uint8_t out[DDZ_SEED_BYTES])
{
    const char *s = json_string_value(v);
    bool ok = s && json_string_length(v) == 64;
    for (int i = 0; ok && i < 64; i++)
        ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (!ok || ddz_text_parse_seed(s, out) < 0)
        return bad(r, at, key, "must be 64 lower-case hex digits");
    return 0;
}

static int get_hex(rd *r, const json_t *o, const char *at, const char *key,
                   uint8_t out[DDZ_SEED_BYTES])
{
    const json_t *v;
    int rc = member(r, o, at, key, &v);
    return rc ? rc : val_hex(r, v, at, key, out);
}

/* An over's game_key: null (out "") or DDZ_EVENT_GAME_KEY_HEX lower-case
 * hex digits. */
static int get_game_key(rd *r, const json_t *o, const char *at,
                        char out[DDZ_EVENT_GAME_KEY_HEX + 1])
{
    const json_t *v;
    int rc = member(r, o, at, "game_key", &v);
    if (rc)
        return rc;
    out[0] = '\0';
    if (json_is_null(v))
        return 0;
    const char *s = json_string_value(v);
    bool ok = s && json_string_length(v) == DDZ_EVENT_GAME_KEY_HEX;
    for (int i = 0; ok && i < DDZ_EVENT_GAME_KEY_HEX; i++)
        ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (!ok)
        return bad(r, at, "game_key", "must be null or %d lower-case hex digits",
                   DDZ_EVENT_GAME_KEY_HEX);
    memcpy(out, s, DDZ_EVENT_GAME_KEY_HEX + 1);
    return 0;
}

/* An array of exactly three scores (finite numbers, ddz_score_from_json). */
static int get_three(rd *r, const json_t *o, const char *at, const char *key, double out[3])
{
    const json_t *a;
    int rc = member(r, o, at, key, &a);
    if (rc)
        return rc;
    if (!json_is_array(a) || json_array_size(a) != 3)
        return bad(r, at, key, "must be an array of 3 numbers");
    for (size_t i = 0; i < 3; i++) {
        char p[PATH];
        if (ddz_score_from_json(json_array_get(a, i), &out[i]) < 0)
            return bad(r, sub(p, sizeof p, at, key, i), "",
                       "must be a number within -2147483648..2147483647, in steps of 0.001");
    }
    return 0;
}

/* An object (required). */
static int get_object(rd *r, const json_t *o, const char *at, const char *key, const json_t **v)
{
    int rc = member(r, o, at, key, v);
    if (!rc && !json_is_object(*v))
        return bad(r, at, key, "must be an object");
    return rc;
}

/* An array of n items (n = 0: any number up to max). */
static int get_array(rd *r, const json_t *o, const char *at, const char *key, size_t n, size_t max,
                     const json_t **v)
{
    int rc = member(r, o, at, key, v);
    if (rc)
        return rc;
    if (!json_is_array(*v))
        return bad(r, at, key, "must be an array");
    size_t len = json_array_size(*v);
    if (n && len != n)
        return bad(r, at, key, "must hold %zu items", n);
    if (len > max)
        return bad(r, at, key, "must hold at most %zu items", max);
    return 0;
}

static int nomem(rd *r, const char *at, const char *key)
{
    return fail(r, DDZ_ENOMEM, at, key, "out of memory");
}

/* The value v at `at`: null, or a player; with the game fields when
 * `state`. */
static int read_player(rd *r, const json_t *v, const char *at, bool state, ddz_event_player *p)
{
    memset(p, 0, sizeof *p);
    p->bid = -1;
    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return bad(r, at, "", "must be null or an object");
    p->seated = true;
    int rc;
    if ((rc = get_str(r, v, at, "name", p->name, sizeof p->name, 1, 0, TEXT)) ||
        (rc = get_enum(r, v, at, "kind", NAMES(kind_names), &p->kind)) ||
        (rc = get_bool(r, v, at, "connected", &p->connected)) ||
        (rc = get_bool(r, v, at, "custody", &p->custody)))
        return rc;
    /* optional: printed only when there is something to say */
    if ((json_object_get(v, "missed") && (rc = get_int(r, v, at, "missed", 1, 2, &p->missed))) ||
        (json_object_get(v, "standin") &&
         (rc = get_str(r, v, at, "standin", p->standin, sizeof p->standin, 1, 0, TEXT))))
        return rc;
    if (!state || !json_object_get(v, "left"))
        return 0;
    p->in_game = true;
    const json_t *last;
    if ((rc = get_int(r, v, at, "left", 0, DDZ_HAND_MAX, &p->left)) ||
        (rc = get_int_or_null(r, v, at, "bid", 0, 3, &p->bid)) ||
        (rc = member(r, v, at, "role", &last)))
        return rc;
    if (!json_is_null(last) && (rc = get_enum(r, v, at, "role", NAMES(role_names), &p->role)))
        return rc;
    if ((rc = member(r, v, at, "last", &last)))
        return rc;
    if (!json_is_null(last)) {
        char p2[PATH];
        child(p2, sizeof p2, at, "last");
        if (!json_is_object(last))
            return bad(r, p2, "", "must be null or an object");
        p->has_last = true;
        if ((rc = get_cards(r, last, p2, "cards", 0, DDZ_HAND_MAX, &p->last)) ||
            (rc = get_combo(r, last, p2, "combo", &p->last_combo)))
            return rc;
    }
    return get_bool(r, v, at, "faulted", &p->faulted);
}

static int read_welcome(rd *r, const json_t *o, ddz_event_welcome *w)
{
    const json_t *you;
    int rc;
    if ((rc = get_int(r, o, "", "version", DDZ_PROTOCOL_VERSION, DDZ_PROTOCOL_VERSION,
                      &w->version)) ||
        (rc = get_object(r, o, "", "you", &you)) ||
        (rc = get_str(r, you, "you", "id", w->id, sizeof w->id, 1, 0, 0)) ||
        (rc = get_str(r, you, "you", "name", w->name, sizeof w->name, 1, 0, 0)) ||
        (rc = get_bool(r, you, "you", "bot", &w->bot)) ||
        (rc = get_str(r, o, "", "resume", w->resume, sizeof w->resume, 16, 0, 0)) ||
        (rc = get_str(r, o, "", "server", w->server, sizeof w->server, 0, 0, 0)))
        return rc;
    if (json_object_get(o, "account") &&
        (rc = get_str(r, o, "", "account", w->account, sizeof w->account, 1, 0, 0)))
        return rc;
    return 0;
}

/* A list of distinct names, 1..DDZ_EVENT_NAME_MAX-1 bytes each, as one
 * allocation: the pointers, then the strings. */
static int read_names(rd *r, const json_t *o, const char *key, const char *const **out, size_t *n)
{
    const json_t *a;
    int rc = get_array(r, o, "", key, 0, DDZ_EVENT_LIST_MAX, &a);
    if (rc)
        return rc;
    size_t count = json_array_size(a), bytes = 0;
    for (size_t i = 0; i < count; i++) {
        const json_t *v = json_array_get(a, i);
        char p[PATH], tmp[DDZ_EVENT_NAME_MAX];
        if ((rc = val_str(r, v, sub(p, sizeof p, "", key, i), "", tmp, sizeof tmp, 1, 0, 0)))
            return rc;
        for (size_t k = 0; k < i; k++)
            if (strcmp(tmp, json_string_value(json_array_get(a, k))) == 0)
                return bad(r, p, "", "\"%s\" repeated", tmp);
        bytes += strlen(tmp) + 1;
    }
    if (!count)
        return 0;
    char **names = malloc(count * sizeof *names + bytes);
    if (!names)
        return nomem(r, "", key);
    char *text = (char *)(names + count);
    for (size_t i = 0; i < count; i++) {
        size_t len = json_string_length(json_array_get(a, i));
        names[i] = memcpy(text, json_string_value(json_array_get(a, i)), len + 1);
        text += len + 1;
    }
    *out = (const char *const *)names;
    *n = count;
    return 0;
}

static int read_room(rd *r, const json_t *v, const char *at, ddz_event_room *room)
{
    if (!json_is_object(v))
        return bad(r, at, "", "must be an object");
    const json_t *seats;
    int rc;
    if ((rc = get_str(r, v, at, "id", room->id, sizeof room->id, 1, 0, 0)) ||
        (rc = get_str(r, v, at, "name", room->name, sizeof room->name, 0, 40, TEXT)) ||
        (rc = get_str(r, v, at, "rules", room->rules, sizeof room->rules, 1, 0, TEXT)) ||
        (rc = get_int(r, v, at, "time", 3, 300, &room->time)) ||
        (rc = get_int(r, v, at, "games", 1, 100, &room->games)) ||
        (rc = get_bool(r, v, at, "private", &room->priv)) ||
        (rc = get_bool(r, v, at, "bots", &room->bots)) ||
        (rc = get_bool(r, v, at, "password", &room->password)) ||
        (rc = get_array(r, v, at, "seats", 3, 3, &seats)))
        return rc;
    for (size_t s = 0; s < 3; s++) {
        char p[PATH];
        if ((rc = read_player(r, json_array_get(seats, s), sub(p, sizeof p, at, "seats", s), false,
                              &room->seats[s])))
            return rc;
    }
    if ((rc = get_int(r, v, at, "spectators", 0, 0x7fffffff, &room->spectators)) ||
        (rc = get_bool(r, v, at, "playing", &room->playing)))
        return rc;
    if (json_object_get(v, "rated") && (rc = get_bool(r, v, at, "rated", &room->rated)))
        return rc;
    return 0;
}

static int read_rooms(rd *r, const json_t *o, ddz_event *e)
{
    ddz_event_rooms *rs = &e->rooms;
    const json_t *a;
    int rc = get_array(r, o, "", "rooms", 0, (size_t)-1, &a);
    if (rc)
        return rc;
    e->owned = true;
    size_t n = json_array_size(a);
    if (n) {
        ddz_event_room *rooms = calloc(n, sizeof *rooms);
        if (!rooms)
            return nomem(r, "", "rooms");
        rs->rooms = rooms;
        rs->nrooms = n;
        for (size_t i = 0; i < n; i++) {
            char p[PATH];
            if ((rc = read_room(r, json_array_get(a, i), sub(p, sizeof p, "", "rooms", i),
                                &rooms[i])))
                return rc;
        }
    }
    if ((rc = read_names(r, o, "ais", &rs->ais, &rs->nais)) ||
        (rc = read_names(r, o, "engines", &rs->engines, &rs->nengines)) ||
        (rc = read_names(r, o, "rules", &rs->rules, &rs->nrules)))
        return rc;
    return 0;
}

static int read_joined(rd *r, const json_t *o, ddz_event_joined *j)
{
    const json_t *room;
    int rc = member(r, o, "", "room", &room);
    if (rc)
        return rc;
    if (!json_is_null(room) &&
        (rc = val_str(r, room, "", "room", j->room, sizeof j->room, 1, 0, 0)))
        return rc;
    return get_int_or_null(r, o, "", "seat", 0, 2, &j->seat);
}

/* A turn object at `at` (the event itself, or a state's turn). */
static int read_turn(rd *r, const json_t *o, const char *at, ddz_event_turn *t, ddz_event *e)
{
    long long seq, deadline;
    const json_t *legal;
    int rc;
    if ((rc = get_int(r, o, at, "seat", 0, 2, &t->seat)) ||
        (rc = get_enum(r, o, at, "action", NAMES(action_names), &t->action)) ||
        (rc = get_ll(r, o, at, "seq", 0, 0x7fffffff, &seq)) ||
        (rc = get_ll(r, o, at, "deadline_ms", 0, LLONG_MAX, &deadline)))
        return rc;
    t->seq = (uint32_t)seq;
    t->deadline_ms = deadline;
    if (!json_object_get(o, "legal"))
        return 0;
    t->has_legal = true;
    size_t max = t->action == DDZ_EVENT_ACT_BID ? 4 : DDZ_MOVES_MAX;
    if ((rc = get_array(r, o, at, "legal", 0, max, &legal)))
        return rc;
    size_t n = json_array_size(legal);
    if (n == 0)
        return bad(r, at, "legal", "must not be empty");
    for (size_t i = 0; t->action == DDZ_EVENT_ACT_BID && i < n; i++) {
        char p[PATH];
        long long b = 0;
        if ((rc = val_int(r, json_array_get(legal, i), sub(p, sizeof p, at, "legal", i), "", 0, 3,
                          &b)))
            return rc;
        if (t->legal_bids & (1u << b))
            return bad(r, p, "", "bid %lld repeated", b);
        t->legal_bids |= (uint8_t)(1u << b);
    }
    if (t->action == DDZ_EVENT_ACT_BID)
        return 0;
    ddz_cards *plays = calloc(n, sizeof *plays);
    if (!plays)
        return nomem(r, at, "legal");
    e->owned = true;
    t->legal = plays;
    t->nlegal = n;
    for (size_t i = 0; i < n; i++) {
        char p[PATH];
        if ((rc = val_cards(r, json_array_get(legal, i), sub(p, sizeof p, at, "legal", i), "", 0,
                            DDZ_HAND_MAX, &plays[i])))
            return rc;
    }
    return 0;
}

/* breakdown.terms at `at` (the breakdown's path) */
static int read_terms(rd *r, const json_t *b, const char *at, ddz_event_over *v)
{
    const json_t *a;
    char e[160];
    int rc = member(r, b, at, "terms", &a);
    if (rc)
        return rc;
    if (ddz_terms_parse(a, v->terms, &v->nterms, e, sizeof e) < 0) {
        /* e is "[2].count: ..." for a term, else the list's own problem */
        char p[PATH];
        return bad(r, "", "", "%s%s%s", child(p, sizeof p, at, "terms"), e[0] == '[' ? "" : ": ",
                   e);
    }
    return 0;
}

/* An over object at `at` (the event itself, or a state's result). */
static int read_over(rd *r, const json_t *o, const char *at, ddz_event_over *v)
{
    const json_t *fault, *b, *hands, *dealt;
    char p[PATH], q[PATH];
    long long x;
    int rc;
    if ((rc = get_int(r, o, at, "game", 1, 100, &v->game)) ||
        (rc = get_int_or_null(r, o, at, "winner", 0, 2, &v->winner)) ||
        (rc = get_int_or_null(r, o, at, "landlord", 0, 2, &v->landlord)) ||
        (rc = member(r, o, at, "fault", &fault)))
        return rc;
    v->fault_seat = -1;
    if (!json_is_null(fault)) {
        child(p, sizeof p, at, "fault");
        const json_t *kind;
        if (!json_is_object(fault))
            return bad(r, p, "", "must be null or an object");
        if ((rc = get_int(r, fault, p, "seat", 0, 2, &v->fault_seat)) ||
            (rc = member(r, fault, p, "kind", &kind)))
            return rc;
        const char *k = json_string_value(kind);
        v->fault_kind = k && strlen(k) == json_string_length(kind) ? ddz_fault_from_name(k) : -1;
        if (v->fault_kind < 0)
            return bad(r, p, "kind", "must be \"timeout\", \"illegal\", \"protocol\" or \"crash\"");
    }
    if ((rc = get_three(r, o, at, "scores", v->scores)))
        return rc;
    child(p, sizeof p, at, "breakdown");
    if ((rc = get_object(r, o, at, "breakdown", &b)) ||
        (rc = get_int(r, b, p, "bid", 0, 3, &v->bid)) ||
        (rc = get_int(r, b, p, "bombs", 0, MAX_BOMBS, &v->bombs)) ||
        (rc = get_bool(r, b, p, "rocket", &v->rocket)) ||
        (rc = get_bool(r, b, p, "spring", &v->spring)) ||
        (rc = get_bool(r, b, p, "anti_spring", &v->anti_spring)) ||
        (rc = get_int(r, b, p, "multiplier", 0, MAX_FACTOR, &v->multiplier)) ||
        (rc = read_terms(r, b, p, v)) || (rc = get_array(r, o, at, "hands", 3, 3, &hands)) ||
        (rc = get_array(r, o, at, "dealt", 3, 3, &dealt)))
        return rc;
    for (size_t s = 0; s < 3; s++)
        if ((rc = val_cards(r, json_array_get(hands, s), sub(p, sizeof p, at, "hands", s), "", 0,
                            DDZ_HAND_MAX, &v->hands[s])) ||
            (rc = val_cards(r, json_array_get(dealt, s), sub(q, sizeof q, at, "dealt", s), "", 17,
                            17, &v->dealt[s])))
            return rc;
    if ((rc = get_cards(r, o, at, "leftover", 3, 3, &v->leftover)) ||
        (rc = get_hex(r, o, at, "seed", v->seed)) ||
        (rc = get_hex(r, o, at, "commit", v->commit)) ||
        (rc = get_ll(r, o, at, "game_id", 1, LLONG_MAX, &x)) ||
        (rc = get_game_key(r, o, at, v->game_key)) ||
        (rc = get_three(r, o, at, "totals", v->totals)))
        return rc;
    /* optional: only an all-pass deal that is dealt again says it */
    if (json_object_get(o, "redeal") && (rc = get_bool(r, o, at, "redeal", &v->redeal)))
        return rc;
    v->game_id = x;
    return 0;
}

static int read_history(rd *r, const json_t *o, ddz_event_state *s, ddz_event *e)
{
    const json_t *a;
    int rc = get_array(r, o, "", "history", 0, DDZ_RECORD_MAX_PLAYS, &a);
    size_t n = rc ? 0 : json_array_size(a);
    if (rc || !n)
        return rc;
    ddz_record_play *plays = calloc(n, sizeof *plays);
    if (!plays)
        return nomem(r, "", "history");
    e->owned = true;
    s->history = plays;
    s->nhistory = (int)n;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        char p[PATH];
        int seat = 0, combo = 0;
        bool autopass = false;
        sub(p, sizeof p, "", "history", i);
        if (!json_is_object(v))
            return bad(r, p, "", "must be an object");
        if ((rc = get_int(r, v, p, "seat", 0, 2, &seat)) ||
            (rc = get_cards(r, v, p, "cards", 0, DDZ_HAND_MAX, &plays[i].cards)) ||
            (rc = get_combo(r, v, p, "combo", &combo)) ||
            (rc = get_bool(r, v, p, "auto", &autopass)))
            return rc;
        plays[i].seat = (uint8_t)seat;
        plays[i].combo = (uint8_t)combo;
        plays[i].autopass = autopass;
    }
    return 0;
}

static int read_state(rd *r, const json_t *o, ddz_event *e)
{
    ddz_event_state *s = &e->state;
    ddz_event_options *op = &s->options;
    const json_t *room, *opts, *players, *v;
    int rc;
    if ((rc = get_object(r, o, "", "room", &room)) ||
        (rc = get_str(r, room, "room", "id", s->room, sizeof s->room, 1, 0, 0)) ||
        (rc = get_str(r, room, "room", "name", s->room_name, sizeof s->room_name, 0, 40, TEXT)))
        return rc;
    /* optional in the schema; the server always sends it */
    if (json_object_get(room, "password") &&
        (rc = get_bool(r, room, "room", "password", &s->password)))
        return rc;
    if ((rc = get_object(r, room, "room", "options", &opts)) ||
        (rc = get_str(r, opts, "room.options", "rules", op->rules, sizeof op->rules, 1, 0, TEXT)) ||
        (rc = get_int(r, opts, "room.options", "time", 3, 300, &op->time)) ||
        (rc = get_int(r, opts, "room.options", "games", 1, 100, &op->games)) ||
        (rc = get_bool(r, opts, "room.options", "private", &op->priv)) ||
        (rc = get_bool(r, opts, "room.options", "bots", &op->bots)) ||
        (rc = get_bool(r, opts, "room.options", "autopass", &op->autopass)) ||
        (rc = get_int(r, opts, "room.options", "grace", 0, 600, &op->grace)) ||
        (rc = get_enum(r, opts, "room.options", "custody", NAMES(custody_names), &op->custody)) ||
        (rc = get_int(r, opts, "room.options", "pause", 0, 30, &op->pause)) ||
        (rc = get_bool(r, opts, "room.options", "redeal", &op->redeal)))
        return rc;
    if (json_object_get(opts, "rated") &&
        (rc = get_bool(r, opts, "room.options", "rated", &op->rated)))
        return rc;
    if ((rc = get_int_or_null(r, o, "", "seat", 0, 2, &s->seat)) ||
        (rc = get_enum(r, o, "", "phase", NAMES(phase_names), &s->phase)) ||
        (rc = get_int(r, o, "", "game", 0, 100, &s->game)) ||
        (rc = get_int(r, o, "", "games", 1, 100, &s->games)) ||
        (rc = member(r, o, "", "commit", &v)))
        return rc;
    s->has_commit = !json_is_null(v);
    if (s->has_commit && (rc = val_hex(r, v, "", "commit", s->commit)))
        return rc;
    /* optional: printed only when true */
    if ((json_object_get(o, "stood_up") && (rc = get_bool(r, o, "", "stood_up", &s->stood_up))) ||
        (json_object_get(o, "seat_next") && (rc = get_bool(r, o, "", "seat_next", &s->seat_next))))
        return rc;
    if (json_object_get(o, "held") && (rc = get_bool(r, o, "", "held", &s->held)))
        return rc;
    /* optional: printed only while a casual room waits for its players */
    if ((v = json_object_get(o, "ready"))) {
        const json_t *seats;
        if (!json_is_object(v))
            return bad(r, "", "ready", "must be an object");
        if ((rc = get_array(r, v, "ready", "seats", 3, 3, &seats)) ||
            (rc = get_int(r, v, "ready", "ms", 0, 600000, &s->ready_ms)))
            return rc;
        for (size_t i = 0; i < 3; i++) {
            const json_t *b = json_array_get(seats, i);
            if (!json_is_boolean(b))
                return bad(r, "ready", "seats", "must hold three booleans");
            s->ready[i] = json_is_true(b);
        }
        s->has_ready = true;
    }
    bool in_game = (s->phase == DDZ_EVENT_PH_BID || s->phase == DDZ_EVENT_PH_PLAY ||
                    s->phase == DDZ_EVENT_PH_BETWEEN) &&
                   !s->held;
    if ((rc = get_array(r, o, "", "players", 3, 3, &players)))
        return rc;
    for (size_t i = 0; i < 3; i++) {
        char p[PATH];
        ddz_event_player *pl = &s->players[i];
        if ((rc = read_player(r, json_array_get(players, i), sub(p, sizeof p, "", "players", i),
                              true, pl)))
            return rc;
        if (in_game && pl->seated && !pl->in_game)
            return bad(r, p, "left", "missing (a game is on: left, bid, role and last)");
    }
    if ((rc = get_cards_or_null(r, o, "", "hand", 0, DDZ_HAND_MAX, &s->has_hand, &s->hand)) ||
        (rc = get_cards_or_null(r, o, "", "leftover", 3, 3, &s->has_leftover, &s->leftover)) ||
        (rc = get_int_or_null(r, o, "", "landlord", 0, 2, &s->landlord)) ||
        (rc = get_int_or_null(r, o, "", "bid", 1, 3, &s->bid)) ||
        (rc = get_mult(r, o, &s->multiplier)) || (rc = read_history(r, o, s, e)) ||
        (rc = member(r, o, "", "turn", &v)))
        return rc;
    s->has_turn = !json_is_null(v);
    if (s->has_turn) {
        if (!json_is_object(v) || !json_is_string(json_object_get(v, "type")) ||
            strcmp(json_string_value(json_object_get(v, "type")), "turn") != 0)
            return bad(r, "turn", "", "must be null or a turn event");
        if ((rc = read_turn(r, v, "turn", &s->turn, e)))
            return rc;
    }
    if ((rc = get_three(r, o, "", "totals", s->totals)) ||
        (rc = get_bool(r, o, "", "autopass", &s->autopass)) ||
        (rc = member(r, o, "", "result", &v)))
        return rc;
    s->has_result = !json_is_null(v);
    if (!s->has_result)
        return 0;
    if (!json_is_object(v) || !json_is_string(json_object_get(v, "type")) ||
        strcmp(json_string_value(json_object_get(v, "type")), "over") != 0)
        return bad(r, "result", "", "must be null or an over event");
    if (s->phase == DDZ_EVENT_PH_BID || s->phase == DDZ_EVENT_PH_PLAY)
        return bad(r, "result", "", "must be null while a game is played");
    return read_over(r, v, "result", &s->result);
}

/* The `about` (a request type; required when `need_about`) and `id` (a
 * string or integer, kept as compact JSON text) of an error or redirect. */
static int read_about_id(rd *r, const json_t *o, bool need_about, int *about_out, char *id,
                         size_t idcap)
{
    const json_t *v;
    if ((v = json_object_get(o, "about"))) {
        const char *about = json_string_value(v);
        for (int t = 1; about && t < DDZ_NREQ; t++)
            if (strcmp(about, ddz_req_name(t)) == 0 && strlen(about) == json_string_length(v))
                *about_out = t;
        if (!*about_out)
            return bad(r, "", "about", "must be a request type (\"hello\", ...)");
    } else if (need_about) {
        return bad(r, "", "about", "is missing");
    }
    if ((v = json_object_get(o, "id"))) {
        if (!json_is_string(v) && !json_is_integer(v))
            return bad(r, "", "id", "must be a string or an integer");
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        if (!text)
            return nomem(r, "", "id");
        size_t len = strlen(text);
        if (len < idcap)
            memcpy(id, text, len + 1);
        free(text);
        if (len >= idcap)
            return bad(r, "", "id", "must be at most %zu bytes of JSON", idcap - 1);
    }
    return 0;
}

static int read_error(rd *r, const json_t *o, ddz_event_error *e)
{
    const json_t *v;
    int rc = member(r, o, "", "code", &v);
    if (rc)
        return rc;
    const char *code = json_string_value(v);
    if (code && strlen(code) == json_string_length(v)) {
#define DDZ__EVENT_CODE(name, num, msg)                                                            \
    if (strcmp(code, #name) == 0)                                                                  \
        e->code = DDZ_##name;
        DDZ_ERRNO_MAP(DDZ__EVENT_CODE)
#undef DDZ__EVENT_CODE
    }
    if (!e->code)
        return bad(r, "", "code", "must be an error code of rules/error.h (\"EWEAK\", ...)");
    if ((rc = get_str(r, o, "", "message", e->message, sizeof e->message, 1, 0, 0)))
        return rc;
    return read_about_id(r, o, false, &e->about, e->id, sizeof e->id);
}

/* A shown rating (any finite JSON number; rated.h's scale puts people
 * within a few thousand points). */
static int get_rating(rd *r, const json_t *o, const char *key, double *out)
{
    const json_t *v;
    int rc = member(r, o, "", key, &v);
    if (rc)
        return rc;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || fabs(json_number_value(v)) > 1e9)
        return bad(r, "", key, "must be a number");
    *out = json_number_value(v);
    return 0;
}

static int read_fields(rd *r, const json_t *o, ddz_event *e)
{
    int rc;
    long long ll = 0;
    switch (e->type) {
    case DDZ_EVENT_WELCOME:
        return read_welcome(r, o, &e->welcome);
    case DDZ_EVENT_ROOMS:
        return read_rooms(r, o, e);
    case DDZ_EVENT_JOINED:
        return read_joined(r, o, &e->joined);
    case DDZ_EVENT_STATE:
        return read_state(r, o, e);
    case DDZ_EVENT_SEAT:
        if ((rc = get_int(r, o, "", "seat", 0, 2, &e->seat.seat)))
            return rc;
        const json_t *v;
        return (rc = member(r, o, "", "player", &v))
                   ? rc
                   : read_player(r, v, "player", false, &e->seat.player);
    case DDZ_EVENT_GAME:
        if ((rc = get_int(r, o, "", "game", 1, 100, &e->game.game)) ||
            (rc = get_int(r, o, "", "games", 1, 100, &e->game.games)) ||
            (rc = get_hex(r, o, "", "commit", e->game.commit)))
            return rc;
        return get_cards_or_null(r, o, "", "hand", 17, 17, &e->game.has_hand, &e->game.hand);
    case DDZ_EVENT_TURN:
        return read_turn(r, o, "", &e->turn, e);
    case DDZ_EVENT_BID_MADE:
        if ((rc = get_int(r, o, "", "seat", 0, 2, &e->bid_made.seat)))
            return rc;
        return get_int(r, o, "", "bid", 0, 3, &e->bid_made.bid);
    case DDZ_EVENT_LEFTOVER:
        if ((rc = get_int(r, o, "", "landlord", 0, 2, &e->leftover.landlord)) ||
            (rc = get_cards(r, o, "", "cards", 3, 3, &e->leftover.cards)))
            return rc;
        if ((rc = get_int(r, o, "", "bid", 1, 3, &e->leftover.bid)))
            return rc;
        return get_mult(r, o, &e->leftover.multiplier);
    case DDZ_EVENT_PLAYED:
        if ((rc = get_int(r, o, "", "seat", 0, 2, &e->played.seat)) ||
            (rc = get_cards(r, o, "", "cards", 0, DDZ_HAND_MAX, &e->played.cards)) ||
            (rc = get_combo(r, o, "", "combo", &e->played.combo)) ||
            (rc = get_bool(r, o, "", "auto", &e->played.autopass)) ||
            (rc = get_int(r, o, "", "left", 0, DDZ_HAND_MAX, &e->played.left)))
            return rc;
        return get_mult(r, o, &e->played.multiplier);
    case DDZ_EVENT_OVER:
        return read_over(r, o, "", &e->over);
    case DDZ_EVENT_TURN_OVER:
        if ((rc = get_three(r, o, "", "totals", e->turn_over.totals)))
            return rc;
        return get_int(r, o, "", "games", 1, 100, &e->turn_over.games);
    case DDZ_EVENT_ERROR:
        return read_error(r, o, &e->error);
    case DDZ_EVENT_BYE:
        return get_str(r, o, "", "reason", e->bye.reason, sizeof e->bye.reason, 0, 0, 0);
    case DDZ_EVENT_FAULT: {
        const json_t *kind;
        if ((rc = get_int(r, o, "", "seat", 0, 2, &e->fault.seat)) ||
            (rc = member(r, o, "", "kind", &kind)))
            return rc;
        const char *k = json_string_value(kind);
        e->fault.kind = k && strlen(k) == json_string_length(kind) ? ddz_fault_from_name(k) : -1;
        if (e->fault.kind < 0)
            return bad(r, "", "kind",
                       "must be \"timeout\", \"illegal\", \"protocol\" or \"crash\"");
        return 0;
    }
    case DDZ_EVENT_ENLISTED:
        if ((rc = get_str(r, o, "", "competition", e->enlisted.competition,
                          sizeof e->enlisted.competition, 1, 0, 0)))
            return rc;
        return get_str(r, o, "", "player", e->enlisted.player, sizeof e->enlisted.player, 1, 0, 0);
    case DDZ_EVENT_RELEASED:
        return get_str(r, o, "", "reason", e->released.reason, sizeof e->released.reason, 0, 0, 0);
    case DDZ_EVENT_HINT: {
        long long seq;
        const json_t *plays;
        if ((rc = get_ll(r, o, "", "seq", 0, 0x7fffffff, &seq)) ||
            (rc = get_array(r, o, "", "plays", 0, DDZ_EVENT_HINTS_MAX, &plays)))
            return rc;
        e->hint.seq = (uint32_t)seq;
        e->hint.n = json_array_size(plays);
        for (size_t i = 0; i < e->hint.n; i++) {
            char p[PATH];
            if ((rc = val_cards(r, json_array_get(plays, i), sub(p, sizeof p, "", "plays", i), "",
                                1, DDZ_HAND_MAX, &e->hint.plays[i])))
                return rc;
        }
        return 0;
    }
    case DDZ_EVENT_PHRASE:
        if ((rc = get_int(r, o, "", "seat", 0, 2, &e->phrase.seat)))
            return rc;
        return get_int(r, o, "", "phrase", 0, DDZ_PHRASES - 1, &e->phrase.phrase);
    case DDZ_EVENT_QUEUED:
        if ((rc =
                 get_str(r, o, "", "rules", e->queued.rules, sizeof e->queued.rules, 1, 0, TEXT)) ||
            (rc = get_rating(r, o, "rating", &e->queued.rating)))
            return rc;
        return get_int(r, o, "", "fill_s", 0, 3600, &e->queued.fill_s);
    case DDZ_EVENT_RATED:
        if ((rc = get_ll(r, o, "", "game", 1, INT64_MAX, &ll)) ||
            (rc = get_str(r, o, "", "rules", e->rated.rules, sizeof e->rated.rules, 1, 0, TEXT)) ||
            (rc = get_rating(r, o, "before", &e->rated.before)) ||
            (rc = get_rating(r, o, "rating", &e->rated.rating)) ||
            (rc = get_rating(r, o, "deviation", &e->rated.deviation)) ||
            (rc = get_ll(r, o, "", "games", 1, INT64_MAX, &e->rated.games)) ||
            (rc = get_bool(r, o, "", "forfeit", &e->rated.forfeit)))
            return rc;
        e->rated.game = ll;
        if (e->rated.deviation < 0)
            return bad(r, "", "deviation", "must not be negative");
        return 0;
    case DDZ_EVENT_REDIRECT: {
        if ((rc = get_str(r, o, "", "url", e->redirect.url, sizeof e->redirect.url, 1, 0, TEXT)))
            return rc;
        if (strncmp(e->redirect.url, "ws://", 5) != 0 && strncmp(e->redirect.url, "wss://", 6) != 0)
            return bad(r, "", "url", "must be a ws:// or wss:// URL");
        if ((rc = read_about_id(r, o, true, &e->redirect.about, e->redirect.id,
                                sizeof e->redirect.id)))
            return rc;
        if (json_object_get(o, "room") &&
            (rc = get_str(r, o, "", "room", e->redirect.room, sizeof e->redirect.room, 1, 0, 0)))
            return rc;
        return get_str(r, o, "", "reason", e->redirect.reason, sizeof e->redirect.reason, 1, 0,
                       TEXT);
    }
    }
    return 0;
}

int ddz_event_parse(const json_t *j, ddz_event *out, char *err, size_t errlen)
{
    rd r = {err, errlen};
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!json_is_object(j))
        return fail(&r, DDZ_ESYNTAX, "", "", "an event must be a JSON object");
    const json_t *tv = json_object_get(j, "type");
    const char *type = json_string_value(tv);
    if (!type)
        return fail(&r, DDZ_ESYNTAX, "", "", "an event needs a string \"type\"");
    int t = strlen(type) == json_string_length(tv) ? ddz_event_type_of(type) : DDZ_EUNKNOWN;
    if (t < 0)
        return fail(&r, DDZ_EUNKNOWN, "", "", "unknown event type \"%.40s\"", type);
    out->type = t;
    int rc = read_fields(&r, j, out);
    if (rc < 0) {
        ddz_event_clear(out);
        out->type = t;
    }
    return rc;
}

/* ---- a move's events read straight ---- */

/* The text being read: `p` moves on as it matches; `ok` falls at the
 * first byte that is not the canonical form. */
typedef struct text_in {
    const char *p, *end;
    bool ok;
} text_in;

static void in_lit(text_in *t, const char *s)
{
    size_t n = strlen(s);
    if (t->ok && (size_t)(t->end - t->p) >= n && memcmp(t->p, s, n) == 0)
        t->p += n;
    else
        t->ok = false;
}

static bool in_peek(const text_in *t, char c)
{
    return t->ok && t->p < t->end && *t->p == c;
}

/* A non-negative integer as JSON writes it (no sign, no leading zero, no
 * fraction), at most `max`. */
static long long in_int(text_in *t, long long max)
{
    if (!t->ok || t->p >= t->end || *t->p < '0' || *t->p > '9') {
        t->ok = false;
        return 0;
    }
    if (*t->p == '0') {
        t->p++;
        return 0;
    }
    unsigned long long v = 0;
    int digits = 0;
    while (t->p < t->end && *t->p >= '0' && *t->p <= '9' && digits < 19) {
        v = v * 10 + (unsigned long long)(*t->p++ - '0');
        digits++;
    }
    if ((t->p < t->end && *t->p >= '0' && *t->p <= '9') || v > (unsigned long long)max)
        t->ok = false;
    return (long long)v;
}

/* A set of cards as out_cards() writes it: distinct codes 0..53,
 * ascending, at most DDZ_HAND_MAX. */
static ddz_cards in_cards(text_in *t)
{
    ddz_cards c = 0;
    int n = 0;
    long long last = -1;
    in_lit(t, "[");
    while (t->ok && !in_peek(t, ']')) {
        if (n)
            in_lit(t, ",");
        long long k = in_int(t, DDZ_NCARDS - 1);
        if (k <= last || ++n > DDZ_HAND_MAX)
            t->ok = false;
        last = k;
        c |= 1ULL << (k & 63);
    }
    in_lit(t, "]");
    return c;
}

static const char *action_name(int i)
{
    return action_names[i];
}

/* A name between quotes: name(i) for an i of first..n-1 (the protocol's
 * names have nothing to escape). Returns that i, or -1. */
static int in_name(text_in *t, const char *(*name)(int), int first, int n)
{
    in_lit(t, "\"");
    const char *q = t->ok ? memchr(t->p, '"', (size_t)(t->end - t->p)) : NULL;
    for (int i = first; q && i < n; i++) {
        const char *s = name(i);
        if (strlen(s) == (size_t)(q - t->p) && memcmp(s, t->p, (size_t)(q - t->p)) == 0) {
            t->p = q + 1;
            return i;
        }
    }
    t->ok = false;
    return -1;
}

static void in_turn(text_in *t, ddz_event *e)
{
    ddz_event_turn *v = &e->turn;
    v->seat = (int)in_int(t, 2);
    in_lit(t, ",\"action\":");
    v->action = in_name(t, action_name, 0, 2);
    in_lit(t, ",\"seq\":");
    v->seq = (uint32_t)in_int(t, 0x7fffffff);
    in_lit(t, ",\"deadline_ms\":");
    v->deadline_ms = in_int(t, LLONG_MAX);
    if (in_peek(t, '}'))
        return;
    in_lit(t, ",\"legal\":[");
    v->has_legal = true;
    if (v->action == DDZ_EVENT_ACT_BID) {
        int last = -1;
        while (t->ok && !in_peek(t, ']')) {
            if (last >= 0)
                in_lit(t, ",");
            int b = (int)in_int(t, 3);
            if (b <= last)
                t->ok = false; /* ascending, as written; a repeat too */
            last = b;
            v->legal_bids |= (uint8_t)(1u << (b & 3));
        }
        if (last < 0)
            t->ok = false; /* an empty list is refused */
    } else {
        /* as many plays as sets in the text: "[" starts each */
        size_t n = 0;
        for (const char *q = t->p; q < t->end; q++)
            n += *q == '[';
        ddz_cards *plays = t->ok && n && n <= DDZ_MOVES_MAX ? malloc(n * sizeof *plays) : NULL;
        if (!plays) {
            t->ok = false;
            return;
        }
        e->owned = true;
        v->legal = plays;
        while (t->ok && !in_peek(t, ']')) {
            if (v->nlegal)
                in_lit(t, ",");
            if (v->nlegal == n) {
                t->ok = false;
                break;
            }
            plays[v->nlegal++] = in_cards(t);
        }
        if (!v->nlegal)
            t->ok = false;
    }
    in_lit(t, "]");
}

int ddz_event_parse_move(const char *text, size_t len, ddz_event *out)
{
    memset(out, 0, sizeof *out);
    text_in t = {text, text + len, true};
    in_lit(&t, "{\"type\":\"");
    if (!t.ok)
        return 0;
    if (t.end - t.p > 5 && memcmp(t.p, "turn\"", 5) == 0) {
        in_lit(&t, "turn\",\"seat\":");
        out->type = DDZ_EVENT_TURN;
        in_turn(&t, out);
    } else if (t.end - t.p > 9 && memcmp(t.p, "bid_made\"", 9) == 0) {
        in_lit(&t, "bid_made\",\"seat\":");
        out->type = DDZ_EVENT_BID_MADE;
        out->bid_made.seat = (int)in_int(&t, 2);
        in_lit(&t, ",\"bid\":");
        out->bid_made.bid = (int)in_int(&t, 3);
    } else if (t.end - t.p > 7 && memcmp(t.p, "played\"", 7) == 0) {
        in_lit(&t, "played\",\"seat\":");
        out->type = DDZ_EVENT_PLAYED;
        ddz_event_played *v = &out->played;
        v->seat = (int)in_int(&t, 2);
        in_lit(&t, ",\"cards\":");
        v->cards = in_cards(&t);
        in_lit(&t, ",\"combo\":");
        v->combo = in_name(&t, ddz_type_name, DDZ_ROCKET, DDZ_NTYPES);
        in_lit(&t, ",\"auto\":");
        if (in_peek(&t, 't')) {
            in_lit(&t, "true");
            v->autopass = true;
        } else {
            in_lit(&t, "false");
        }
        in_lit(&t, ",\"left\":");
        v->left = (int)in_int(&t, DDZ_HAND_MAX);
        in_lit(&t, ",\"multiplier\":");
        if (in_peek(&t, 'n'))
            in_lit(&t, "null");
        else if ((v->multiplier = (int)in_int(&t, DDZ_EVENT_MULTIPLIER_MAX)) < 1)
            t.ok = false;
    } else {
        return 0;
    }
    in_lit(&t, "}");
    if (t.ok && t.p == t.end)
        return 1;
    ddz_event_clear(out);
    memset(out, 0, sizeof *out);
    return 0;
}

int ddz_event_parse_text(const char *text, size_t len, ddz_event *out, char *err, size_t errlen)
{
    if (ddz_event_parse_move(text, len, out)) {
        if (err && errlen)
            err[0] = '\0';
        return 0;
    }
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        memset(out, 0, sizeof *out);
        rd r = {err, errlen};
        return fail(&r, DDZ_ESYNTAX, "", "", "not JSON: %s", je.text);
    }
    int rc = ddz_event_parse(j, out, err, errlen);
    json_decref(j);
    return rc;
}

void ddz_event_clear(ddz_event *e)
{
    if (e->owned) {
        switch (e->type) {
        case DDZ_EVENT_ROOMS:
            free((void *)e->rooms.rooms);
            free((void *)e->rooms.ais);
            free((void *)e->rooms.engines);
            free((void *)e->rooms.rules);
            break;
        case DDZ_EVENT_TURN:
            free((void *)e->turn.legal);
            break;
        case DDZ_EVENT_STATE:
            free((void *)e->state.history);
            free((void *)e->state.turn.legal);
            break;
        }
    }
    memset(e, 0, sizeof *e);
}

/* ---- equality ---------------------------------------------------------- */

static bool player_eq(const ddz_event_player *a, const ddz_event_player *b, bool state)
{
    if (a->seated != b->seated)
        return false;
    if (!a->seated)
        return true;
    if (strcmp(a->name, b->name) != 0 || a->kind != b->kind || a->connected != b->connected ||
        a->custody != b->custody || a->missed != b->missed || strcmp(a->standin, b->standin) != 0)
        return false;
    if (!state || a->in_game != b->in_game || !a->in_game)
        return !state || a->in_game == b->in_game;
    return a->left == b->left && a->bid == b->bid && a->role == b->role &&
           a->faulted == b->faulted && a->has_last == b->has_last &&
           (!a->has_last || (a->last == b->last && a->last_combo == b->last_combo));
}

static bool names_eq(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

static bool rooms_eq(const ddz_event_rooms *a, const ddz_event_rooms *b)
{
    if (a->nrooms != b->nrooms || !names_eq(a->ais, a->nais, b->ais, b->nais) ||
        !names_eq(a->engines, a->nengines, b->engines, b->nengines) ||
        !names_eq(a->rules, a->nrules, b->rules, b->nrules))
        return false;
    for (size_t i = 0; i < a->nrooms; i++) {
        const ddz_event_room *x = &a->rooms[i], *y = &b->rooms[i];
        if (strcmp(x->id, y->id) != 0 || strcmp(x->name, y->name) != 0 ||
            strcmp(x->rules, y->rules) != 0 || x->time != y->time || x->games != y->games ||
            x->priv != y->priv || x->bots != y->bots || x->password != y->password ||
            x->spectators != y->spectators || x->playing != y->playing || x->rated != y->rated)
            return false;
        for (int s = 0; s < 3; s++)
            if (!player_eq(&x->seats[s], &y->seats[s], false))
                return false;
    }
    return true;
}

static bool turn_eq(const ddz_event_turn *a, const ddz_event_turn *b)
{
    if (a->seat != b->seat || a->action != b->action || a->seq != b->seq ||
        a->deadline_ms != b->deadline_ms || a->has_legal != b->has_legal)
        return false;
    if (!a->has_legal)
        return true;
    if (a->action == DDZ_EVENT_ACT_BID)
        return a->legal_bids == b->legal_bids;
    return a->nlegal == b->nlegal &&
           (a->nlegal == 0 || memcmp(a->legal, b->legal, a->nlegal * sizeof *a->legal) == 0);
}

static bool same3(const double a[3], const double b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static bool over_eq(const ddz_event_over *a, const ddz_event_over *b)
{
    return a->game == b->game && a->winner == b->winner && a->landlord == b->landlord &&
           a->fault_seat == b->fault_seat &&
           (a->fault_seat < 0 || a->fault_kind == b->fault_kind) && same3(a->scores, b->scores) &&
           a->bid == b->bid && a->bombs == b->bombs && a->rocket == b->rocket &&
           a->spring == b->spring && a->anti_spring == b->anti_spring &&
           a->multiplier == b->multiplier &&
           ddz_terms_equal(a->terms, a->nterms, b->terms, b->nterms) &&
           memcmp(a->hands, b->hands, sizeof a->hands) == 0 &&
           memcmp(a->dealt, b->dealt, sizeof a->dealt) == 0 && a->leftover == b->leftover &&
           memcmp(a->seed, b->seed, sizeof a->seed) == 0 &&
           memcmp(a->commit, b->commit, sizeof a->commit) == 0 && a->game_id == b->game_id &&
           strcmp(a->game_key, b->game_key) == 0 && same3(a->totals, b->totals) &&
           a->redeal == b->redeal;
}

static bool state_eq(const ddz_event_state *a, const ddz_event_state *b)
{
    const ddz_event_options *x = &a->options, *y = &b->options;
    if (strcmp(a->room, b->room) != 0 || strcmp(a->room_name, b->room_name) != 0 ||
        a->password != b->password || strcmp(x->rules, y->rules) != 0 || x->time != y->time ||
        x->games != y->games || x->priv != y->priv || x->bots != y->bots ||
        x->autopass != y->autopass || x->grace != y->grace || x->custody != y->custody ||
        x->pause != y->pause || x->redeal != y->redeal || x->rated != y->rated)
        return false;
    if (a->seat != b->seat || a->phase != b->phase || a->game != b->game || a->games != b->games ||
        a->has_commit != b->has_commit ||
        (a->has_commit && memcmp(a->commit, b->commit, sizeof a->commit) != 0))
        return false;
    for (int s = 0; s < 3; s++)
        if (!player_eq(&a->players[s], &b->players[s], true))
            return false;
    if (a->has_hand != b->has_hand || (a->has_hand && a->hand != b->hand) ||
        a->has_leftover != b->has_leftover || (a->has_leftover && a->leftover != b->leftover) ||
        a->landlord != b->landlord || a->bid != b->bid || a->multiplier != b->multiplier ||
        a->nhistory != b->nhistory)
        return false;
    for (int i = 0; i < a->nhistory; i++)
        if (a->history[i].seat != b->history[i].seat ||
            a->history[i].cards != b->history[i].cards ||
            a->history[i].combo != b->history[i].combo ||
            !a->history[i].autopass != !b->history[i].autopass)
            return false;
    if (a->has_turn != b->has_turn || (a->has_turn && !turn_eq(&a->turn, &b->turn)))
        return false;
    if (a->has_ready != b->has_ready ||
        (a->has_ready && (a->ready_ms != b->ready_ms || a->ready[0] != b->ready[0] ||
                          a->ready[1] != b->ready[1] || a->ready[2] != b->ready[2])))
        return false;
    return same3(a->totals, b->totals) && a->autopass == b->autopass && a->held == b->held &&
           a->stood_up == b->stood_up && a->seat_next == b->seat_next &&
           a->has_result == b->has_result && (!a->has_result || over_eq(&a->result, &b->result));
}

bool ddz_event_equal(const ddz_event *a, const ddz_event *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case DDZ_EVENT_WELCOME: {
        const ddz_event_welcome *x = &a->welcome, *y = &b->welcome;
        return x->version == y->version && strcmp(x->id, y->id) == 0 &&
               strcmp(x->name, y->name) == 0 && x->bot == y->bot &&
               strcmp(x->resume, y->resume) == 0 && strcmp(x->server, y->server) == 0 &&
               strcmp(x->account, y->account) == 0;
    }
    case DDZ_EVENT_ROOMS:
        return rooms_eq(&a->rooms, &b->rooms);
    case DDZ_EVENT_JOINED:
        return strcmp(a->joined.room, b->joined.room) == 0 && a->joined.seat == b->joined.seat;
    case DDZ_EVENT_STATE:
        return state_eq(&a->state, &b->state);
    case DDZ_EVENT_SEAT:
        return a->seat.seat == b->seat.seat && player_eq(&a->seat.player, &b->seat.player, false);
    case DDZ_EVENT_GAME:
        return a->game.game == b->game.game && a->game.games == b->game.games &&
               memcmp(a->game.commit, b->game.commit, sizeof a->game.commit) == 0 &&
               a->game.has_hand == b->game.has_hand &&
               (!a->game.has_hand || a->game.hand == b->game.hand);
    case DDZ_EVENT_TURN:
        return turn_eq(&a->turn, &b->turn);
    case DDZ_EVENT_BID_MADE:
        return a->bid_made.seat == b->bid_made.seat && a->bid_made.bid == b->bid_made.bid;
    case DDZ_EVENT_LEFTOVER:
        return a->leftover.landlord == b->leftover.landlord &&
               a->leftover.cards == b->leftover.cards && a->leftover.bid == b->leftover.bid &&
               a->leftover.multiplier == b->leftover.multiplier;
    case DDZ_EVENT_PLAYED:
        return a->played.seat == b->played.seat && a->played.cards == b->played.cards &&
               a->played.combo == b->played.combo && a->played.autopass == b->played.autopass &&
               a->played.left == b->played.left && a->played.multiplier == b->played.multiplier;
    case DDZ_EVENT_OVER:
        return over_eq(&a->over, &b->over);
    case DDZ_EVENT_TURN_OVER:
        return same3(a->turn_over.totals, b->turn_over.totals) &&
               a->turn_over.games == b->turn_over.games;
    case DDZ_EVENT_ERROR:
        return a->error.code == b->error.code && strcmp(a->error.message, b->error.message) == 0 &&
               a->error.about == b->error.about && strcmp(a->error.id, b->error.id) == 0;
    case DDZ_EVENT_BYE:
        return strcmp(a->bye.reason, b->bye.reason) == 0;
    case DDZ_EVENT_FAULT:
        return a->fault.seat == b->fault.seat && a->fault.kind == b->fault.kind;
    case DDZ_EVENT_ENLISTED:
        return strcmp(a->enlisted.competition, b->enlisted.competition) == 0 &&
               strcmp(a->enlisted.player, b->enlisted.player) == 0;
    case DDZ_EVENT_RELEASED:
        return strcmp(a->released.reason, b->released.reason) == 0;
    case DDZ_EVENT_HINT:
        return a->hint.seq == b->hint.seq && a->hint.n == b->hint.n &&
               memcmp(a->hint.plays, b->hint.plays, a->hint.n * sizeof *a->hint.plays) == 0;
    case DDZ_EVENT_PHRASE:
        return a->phrase.seat == b->phrase.seat && a->phrase.phrase == b->phrase.phrase;
    case DDZ_EVENT_QUEUED:
        return strcmp(a->queued.rules, b->queued.rules) == 0 &&
               tenth(a->queued.rating) == tenth(b->queued.rating) &&
               a->queued.fill_s == b->queued.fill_s;
    case DDZ_EVENT_RATED:
        return a->rated.game == b->rated.game && strcmp(a->rated.rules, b->rated.rules) == 0 &&
               tenth(a->rated.before) == tenth(b->rated.before) &&
               tenth(a->rated.rating) == tenth(b->rated.rating) &&
               tenth(a->rated.deviation) == tenth(b->rated.deviation) &&
               a->rated.games == b->rated.games && a->rated.forfeit == b->rated.forfeit;
    case DDZ_EVENT_REDIRECT:
        return strcmp(a->redirect.url, b->redirect.url) == 0 &&
               a->redirect.about == b->redirect.about &&
               strcmp(a->redirect.id, b->redirect.id) == 0 &&
               strcmp(a->redirect.room, b->redirect.room) == 0 &&
               strcmp(a->redirect.reason, b->redirect.reason) == 0;
    }
    return true; /* two events of no known type */
}
