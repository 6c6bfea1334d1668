/* room_view.c - what a room's audience sees: who holds each seat, events
 * serialised once for every connection at the table, and the state
 * snapshot for whoever arrives or comes back (only the cards its seat may
 * see).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_view.h"

/* a state's phase for each room phase (a game being bid is DDZ_EVENT_PH_BID) */
static const int state_phase[] = {DDZ_EVENT_PH_WAITING, DDZ_EVENT_PH_PLAY, DDZ_EVENT_PH_BETWEEN,
                                  DDZ_EVENT_PH_TURN_OVER};

/* A seat's kind (enum ddz_event_kind): a person's or bot's own, else the
 * program's (service/seats: "ai" or "engine"). */
static int seat_kind(const rseat *s, const ddz_seat *st)
{
    if (s->player)
        return s->player->bot ? DDZ_EVENT_BOT : DDZ_EVENT_HUMAN;
    static const char *const kinds[] = {[DDZ_EVENT_HUMAN] = "human",
                                        [DDZ_EVENT_BOT] = "bot",
                                        [DDZ_EVENT_AI] = "ai",
                                        [DDZ_EVENT_ENGINE] = "engine"};
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(st->ops->kind, kinds[k]) == 0)
            return k;
    return DDZ_EVENT_AI;
}

/* Fills `p` with who holds seat `s` (not seated if nobody), without the
 * fields a state adds. Never fails. */
static void seat_player(const rseat *s, ddz_event_player *p)
{
    const ddz_seat *st = ddz_runner_seat_of(s->room->run, s->index);
    *p = (ddz_event_player){.bid = -1};
    if (!st && !s->player)
        return;
    const char *name = s->label[0]            ? s->label
                       : s->player            ? s->player->name
                       : st->ops->name(st)[0] ? st->ops->name(st)
                                              : s->spec;
    p->seated = true;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->kind = seat_kind(s, st);
    p->connected = s->player ? s->player->conn != NULL : ddz_seat_connected(st);
    p->custody = s->custody;
    p->missed = s->player ? s->missed : 0;
    if (s->standin && !s->player)
        snprintf(p->standin, sizeof p->standin, "%s", s->standin_for);
}

void ddz__room_totals(const ddz_room *r, double out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = ddz_table_total(room_table(r), s);
}

/* Whether a spectator of a held room (opts.held: a competition's table,
 * whose deal other tables may still have to play) is sent an event of
 * type `type`: who holds the seats, that a game starts (a spectator's
 * `game` has no cards) and the quick phrases; never a bid, a play, the
 * leftover, a fault, a result or a total, since a faster table's plays
 * and results tell the hands of the same deal (docs/decisions.md). */
static bool held_shows(int type)
{
    return type == DDZ_EVENT_SEAT || type == DDZ_EVENT_GAME || type == DDZ_EVENT_PHRASE;
}

/* Sends `e`, serialised once, to every spectator and, if `seated`, to
 * every seated player but `skip` (NULL-safe: it is sent its own version).
 * A held room's spectators get only what held_shows() allows. Nothing goes
 * out before the room's latest game record is durable (r->hold). */
void ddz__room_send_event(ddz_room *r, const ddz_event *e, bool seated, const ddz_player *skip)
{
    bool watchers = r->nwatch > 0 && (!r->opts.held || held_shows(e->type));
    if (!watchers && !seated)
        return;
    char *text = ddz_event_dump(e);
    if (!text)
        return;
    size_t len = strlen(text);
    for (int i = 0; seated && i < 3; i++) {
        const ddz_player *p = r->seats[i].player;
        if (p && p != skip && p->conn)
            ddz__conn_send_text_held(p->conn, text, len, r->hold);
    }
    for (size_t i = 0; watchers && i < r->nwatch; i++)
        ddz__conn_send_text_held(r->watch[i]->conn, text, len, r->hold);
    free(text);
}

/* Sends `e` to every seated player and spectator, serialised once. */
void ddz__room_broadcast(ddz_room *r, const ddz_event *e)
{
    ddz__room_send_event(r, e, true, NULL);
}

void ddz__room_seat_event(ddz_room *r, int s)
{
    ddz_event e = {.type = DDZ_EVENT_SEAT, .seat = {.seat = s}};
    seat_player(&r->seats[s], &e.seat.player);
    ddz__room_broadcast(r, &e);
}

/* Names as the room knows them: a person in custody keeps its name. */
void ddz__room_name_seats(const ddz_room *r, ddz_record *rec)
{
    for (int s = 0; s < 3; s++)
        if (r->seats[s].player)
            snprintf(rec->names[s], sizeof rec->names[s], "%.*s", (int)sizeof rec->names[s] - 1,
                     r->seats[s].player->name);
}

/* Sets `p`'s latest action in the current trick, if seat `s` has one. */
static void last_play(const ddz_room *r, int s, ddz_event_player *p)
{
    const ddz_record *rec = ddz_table_record(room_table(r));
    for (int i = rec->nplays - 1; i >= 0 && i >= rec->nplays - 3; i--)
        if (rec->plays[i].seat == s) {
            p->has_last = true;
            p->last = rec->plays[i].cards;
            p->last_combo = rec->plays[i].combo; /* as the referee classified it */
            return;
        }
}

/* The games of the room's turn: its option, and one more for each deal
 * everyone passed and was dealt again (opts.redeal), as the `game` event
 * says. */
static int series_games(const ddz_room *r)
{
    int dealt = room_table(r)->games;
    return dealt > r->opts.games ? dealt : r->opts.games;
}

/* The game number a snapshot shows: the game being played, the last one
 * between games, all of them after the turn. */
static int state_game(const ddz_room *r)
{
    int started = room_table(r)->next;
    switch (r->phase) {
    case PH_TURN_OVER:
        return series_games(r);
    case PH_WAITING:
        return started > 0 && !ddz_table_done(room_table(r)) ? started : 1;
    default:
        return started;
    }
}

void ddz__room_send_state(ddz_room *r, ddz_player *p)
{
    if (!p->conn || !r->run)
        return;
    const ddz_table *t = room_table(r);
    const ddz_game *g = ddz_table_state(t);
    const ddz_record *rec = ddz_table_record(t);
    bool in_game = r->phase == PH_PLAYING || r->phase == PH_BETWEEN;
    bool is_live = room_live(r);
    /* a spectator of a held room sees who sits and that a game is on,
     * nothing of its cards (held_shows()) */
    bool held = r->opts.held && p->seat < 0;
    bool dealt = in_game && g->landlord >= 0 && !held; /* the leftover is revealed */
    ddz_event e = {.type = DDZ_EVENT_STATE};
    ddz_event_state *st = &e.state;
    snprintf(st->room, sizeof st->room, "%s", r->id);
    snprintf(st->room_name, sizeof st->room_name, "%s", r->opts.name);
    st->password = r->opts.password[0] != '\0'; /* the password itself is never sent */
    st->options = (ddz_event_options){
        .time = r->opts.time,
        .games = r->opts.games,
        .priv = r->opts.priv,
        .bots = r->opts.bots,
        .autopass = r->opts.autopass,
        .grace = r->opts.grace,
        .custody = r->opts.custody == DDZ_CUSTODY_FAULT ? DDZ_CUSTODY_FAULT : DDZ_CUSTODY_AI,
        .pause = r->opts.pause,
        .redeal = r->opts.redeal,
        .rated = r->opts.rated,
    };
    snprintf(st->options.rules, sizeof st->options.rules, "%s", r->opts.rules);
    st->seat = p->seat;
    st->phase =
        is_live && g->phase == DDZ_PHASE_BID && !held ? DDZ_EVENT_PH_BID : state_phase[r->phase];
    st->game = state_game(r);
    st->games = series_games(r);
    st->held = held;
    st->stood_up = p->seat < 0 && p->stood_up;
    st->seat_next = p->seat < 0 && p->seat_next;
    st->has_commit = is_live;
    memcpy(st->commit, rec->commit, sizeof st->commit);
    for (int s = 0; s < 3; s++) {
        ddz_event_player *pl = &st->players[s];
        seat_player(&r->seats[s], pl);
        if (!pl->seated || !in_game || held)
            continue;
        pl->in_game = true;
        pl->left = ddz_cards_count(g->hand[s]);
        pl->bid = g->bids[s];
        pl->role = g->landlord < 0    ? DDZ_EVENT_ROLE_NONE
                   : g->landlord == s ? DDZ_EVENT_ROLE_LANDLORD
                                      : DDZ_EVENT_ROLE_FARMER;
        pl->faulted = g->rules->fault_policy == DDZ_FAULTPOLICY_PLAY_ON && (g->faulted >> s & 1);
        last_play(r, s, pl);
    }
    st->has_hand = p->seat >= 0 && in_game;
    st->hand = st->has_hand ? g->hand[p->seat] : 0;
    st->has_leftover = dealt;
    st->leftover = g->deal.leftover;
    st->landlord = dealt ? g->landlord : -1;
    st->bid = dealt ? g->bid : -1;
    st->multiplier = dealt ? g->rules->multiplier_so_far(g) : 0;
    st->history = rec->plays;
    st->nhistory = in_game && !held ? rec->nplays : 0;
    st->has_turn = is_live && r->asking && !held;
    bool mine = st->has_turn && p->seat == r->ask.seat && !r->seats[p->seat].custody;
    ddz_cards *plays = st->has_turn ? ddz__turn_event(t, &r->ask, mine, &st->turn) : NULL;
    if (!held)
        ddz__room_totals(r, st->totals);
    st->autopass = p->autopass;
    /* between games or after a turn, the last result (a player who comes
     * back then still sees how the game ended and its replay id) */
    st->has_result = !is_live && r->has_last_over && !held;
    st->result = r->last_over;
    st->has_ready = r->readying && r->phase == PH_BETWEEN;
    if (st->has_ready) {
        int64_t left = (r->ready_until_us - ddz__now_us()) / 1000;
        st->ready_ms = left < 0 ? 0 : left > 600000 ? 600000 : (int)left;
        for (int s = 0; s < 3; s++)
            st->ready[s] = r->seats[s].ready;
    }
    /* a snapshot shows the last result: not before it is durable either */
    ddz__conn_send_held(p->conn, ddz_event_print(&e), r->hold);
    free(plays);
}

void ddz__room_send_states(ddz_room *r)
{
    for (int s = 0; s < 3; s++)
        if (r->seats[s].player) /* one in custody watches its AI: told as well */
            ddz__room_send_state(r, r->seats[s].player);
    for (size_t i = 0; i < r->nwatch; i++)
        ddz__room_send_state(r, r->watch[i]);
}

void ddz__room_summary(const ddz_room *r, ddz_event_room *out)
{
    *out = (ddz_event_room){
        .time = r->opts.time,
        .games = r->opts.games,
        .priv = r->opts.priv,
        .bots = r->opts.bots,
        .password = r->opts.password[0] != '\0',
        .spectators = (int)r->nwatch,
        .playing = r->phase != PH_WAITING,
        .rated = r->opts.rated,
    };
    snprintf(out->id, sizeof out->id, "%s", r->id);
    snprintf(out->name, sizeof out->name, "%s", r->opts.name);
    snprintf(out->rules, sizeof out->rules, "%s", r->opts.rules);
    for (int s = 0; s < 3; s++)
        seat_player(&r->seats[s], &out->seats[s]);
}
