/* room_seats.c - who sits where in a room: seating and watching, the one
 * way out (ddz__player_leave), a player who drops and comes back, the
 * grace, when a person's seat goes into custody (托管; the hosted AIs
 * themselves are room_ai.c's), and when a room nobody can come back to
 * closes. Every seat is made through seating.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_ai.h"
#include "service/server/room_seats.h"
#include "service/server/room_rated.h"
#include "service/server/room_ready.h"
#include "service/server/room_view.h"

static void check_dead(ddz_room *r);
static void idle_update(ddz_room *r);
static bool anyone_may_come(const ddz_room *r, int skip);

static void on_grace(ddz_timer *t)
{
    rseat *s = (rseat *)((char *)t - offsetof(rseat, grace));
    ddz_room *r = s->room;
    if (!s->player || s->player->conn)
        return;
    if (s->custody) {
        /* an AI already plays the seat (its time ran out first) */
        check_dead(r);
        return;
    }
    if (!r->owned && !anyone_may_come(r, s->index)) {
        /* Nobody will see the seat played: a custody AI would only be
         * made to be freed with the room (5,000 abandoned rooms made
         * 5,000 AIs at once). The room closes. */
        check_dead(r);
        return;
    }
    if (r->opts.custody == DDZ_CUSTODY_FAULT) {
        if (room_live(r))
            ddz_runner_fault(r->run, s->index, DDZ_FAULT_CRASH, "player gone past the grace");
        check_dead(r);
        return;
    }
    if (ddz__room_take_custody(r, s) < 0)
        return;
    ddz_runner_reask(r->run, s->index);
    ddz__log(r->srv, "info", r->id, "seat %d: a hosted AI takes over", s->index);
    ddz__room_seat_event(r, s->index);
    check_dead(r);
}

/* Makes the smallest move for the seat of `player`, whose clock ran out
 * (spec §14): bid 0 while bidding; a pass when it may pass; else its
 * lowest-ranked single card (the lowest card code: codes go up by rank).
 * Returns 0, or the table's error (the caller then falls back to
 * custody). */
static int smallest_move(ddz_room *r, int player)
{
    ddz_seat *st = ddz_runner_seat_of(r->run, player);
    if (!r->asking || !st)
        return DDZ_EPHASE;
    if (r->ask.kind == DDZ_EV_ASK_BID)
        return ddz_runner_act(r->run, st, DDZ_EV_ASK_BID, r->ask.seq, 0, 0);
    const ddz_game *g = ddz_table_state(room_table(r));
    ddz_cards play = 0;
    if (ddz_game_leading(g)) {
        ddz_cards hand = g->hand[r->ask.seat];
        play = hand & (~hand + 1);
    }
    return ddz_runner_act(r->run, st, DDZ_EV_ASK_PLAY, r->ask.seq, 0, play);
}

/* The runner's clock found `player`'s request overdue. In a casual room
 * (custody "ai") a person is not charged a fault (spec §14): the first
 * clock that runs out is one move, the smallest, made for them; the
 * second in a row with no action of theirs between hands the seat to a
 * hosted AI (托管) until the player takes it back, and the runner asks it
 * the request afresh. Bots are programs and keep the spec §6 timeout, as
 * does every seat of a competition room (custody "fault"). */
bool ddz__room_on_timeout(void *ctx, int player)
{
    ddz_room *r = ctx;
    rseat *s = &r->seats[player];
    if (r->owned || r->opts.custody != DDZ_CUSTODY_AI || !s->player || s->player->bot || s->custody)
        return false;
    if (s->missed == 0) {
        s->missed = 1;
        /* told first, so that the move that follows reads as made for them */
        ddz__room_seat_event(r, player);
        if (smallest_move(r, player) == 0) {
            ddz__log(r->srv, "info", r->id, "seat %d: out of time, the smallest move made for it",
                     player);
            return true;
        }
    }
    s->missed = 2;
    if (ddz__room_take_custody(r, s) < 0)
        return false;
    ddz__log(r->srv, "info", r->id, "seat %d: out of time twice, a hosted AI plays for it", player);
    ddz__room_seat_event(r, player);
    return true;
}

/* Adds `p` to `r`'s audience. Returns 0 or DDZ_ENOMEM. */
static int watch_add(ddz_room *r, ddz_player *p)
{
    if (r->nwatch == r->capwatch) {
        size_t cap = r->capwatch ? 2 * r->capwatch : 4;
        ddz_player **w = realloc(r->watch, cap * sizeof *w);
        if (!w)
            return DDZ_ENOMEM;
        r->watch = w;
        r->capwatch = cap;
    }
    r->watch[r->nwatch++] = p;
    p->room = r;
    p->seat = -1;
    return 0;
}

/* Takes `p` out of `r`'s audience, if it is in it; the room is not
 * checked for closing (the caller seats `p` at once). */
static void watch_remove(ddz_room *r, ddz_player *p)
{
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i] == p) {
            r->watch[i] = r->watch[--r->nwatch];
            return;
        }
}

/* Whether a person may take seat `i` of `r`: nobody holds it, or a
 * hosted AI stands in there for someone who left. */
static bool seat_open_to(const ddz_room *r, int i)
{
    return !ddz_runner_seat_of(r->run, i) || (r->seats[i].standin && !r->seats[i].player);
}

/* The seat `p` is given (`want` -1 = any): the one it held last if open
 * to it, else the first free one, else the first a stand-in keeps.
 * Returns the seat, DDZ_EINVAL (`want` taken) or DDZ_EFULL. */
static int pick_seat(const ddz_room *r, const ddz_player *p, int want)
{
    if (want >= 0)
        return seat_open_to(r, want) ? want : DDZ_EINVAL;
    for (int i = 0; i < 3; i++)
        if (seat_open_to(r, i) && strcmp(r->seats[i].last_id, p->id) == 0)
            return i;
    for (int i = 0; i < 3; i++)
        if (!ddz_runner_seat_of(r->run, i))
            return i;
    for (int i = 0; i < 3; i++)
        if (seat_open_to(r, i))
            return i;
    return DDZ_EFULL;
}

int ddz__room_sit(ddz_room *r, ddz_player *p, int want)
{
    bool watching = p->room == r && p->seat < 0;
    if (r->opts.rated) {
        /* rated play needs an account (SPEC §15), and an account is one
         * player of a game: the store rates no game with one player twice */
        if (p->bot || p->account <= 0)
            return DDZ_EAUTH;
        for (int i = 0; i < 3; i++)
            if (r->seats[i].player && r->seats[i].player != p &&
                r->seats[i].player->account == p->account)
                return DDZ_EPHASE;
    }
    if (!watching)
        ddz__player_leave(p); /* one room at a time */
    if (p->bot && !r->opts.bots)
        return DDZ_EAUTH;
    int seat_no = pick_seat(r, p, want);
    if (seat_no < 0)
        return seat_no; /* one watching stays in the audience */
    if (watching)
        watch_remove(r, p); /* from the audience to a seat: the room stays */
    p->stood_up = p->seat_next = false;
    rseat *s = &r->seats[seat_no];
    if (s->standin && room_live(r)) {
        /* the stand-in finishes the game: the person watches until it
         * ends, then sits (the settle step) */
        int rc = watch_add(r, p);
        if (rc < 0)
            return rc;
        p->seat_next = true;
        idle_update(r);
        return DDZ_ROOM_SEAT_NEXT;
    }
    ddz_seat *st = ddz__seat_player_create(r->srv, p);
    if (!st) {
        if (watching)
            (void)watch_add(r, p); /* the slot it had is still there */
        return DDZ_ENOMEM;
    }
    if (s->standin) /* the stand-in gives way */
        ddz__log(r->srv, "info", r->id, "seat %d: the stand-in gives way to %s", seat_no, p->id);
    s->player = p;
    s->custody = false;
    s->standin = false;
    s->standin_for[0] = '\0';
    s->missed = 0;
    snprintf(s->last_id, sizeof s->last_id, "%s", p->id);
    ddz_runner_seat(r->run, seat_no, st);
    p->room = r;
    p->seat = seat_no;
    p->autopass = r->opts.autopass;
    ddz_runner_set_autopass(r->run, seat_no, p->autopass);
    ddz__room_seat_event(r, seat_no);
    idle_update(r);
    /* sitting down between games is saying ready: the next deal waits for
     * nobody else on this seat's account */
    if (r->phase == PH_BETWEEN && r->readying && ddz__room_mark_ready(r, seat_no))
        ddz__room_send_states(r);
    ddz__room_maybe_start(r);
    return seat_no;
}

/* Tells `p` where it now is: `joined`, then its state. */
static void tell_place(ddz_room *r, ddz_player *p)
{
    if (!p->conn)
        return;
    ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = p->seat}};
    snprintf(e.joined.room, sizeof e.joined.room, "%s", r->id);
    ddz__conn_send_held(p->conn, ddz_event_print(&e), r->hold);
    ddz__room_send_state(r, p);
}

/* Puts a hosted AI stand-in in seat `s`, which `name` left, where the
 * room fills its seats with AIs; else leaves the seat empty (it waits for
 * a person). */
static void stand_in_or_wait(ddz_room *r, rseat *s, const char *name)
{
    s->standin = false;
    s->standin_for[0] = '\0';
    s->spec[0] = '\0';
    if (r->opts.fill[0] && ddz__room_seat_ai(r, s, r->opts.fill) == 0) {
        s->standin = true;
        snprintf(s->standin_for, sizeof s->standin_for, "%s", name);
        snprintf(s->spec, sizeof s->spec, "%s", r->opts.fill);
        return;
    }
    ddz_runner_seat(r->run, s->index, NULL);
}

void ddz__room_stand_up(ddz_room *r, rseat *s)
{
    ddz_player *p = s->player;
    if (!p)
        return;
    ddz_loop_disarm(&r->srv->loop.base, &s->grace);
    s->player = NULL;
    ddz_seat_close(s->away);
    s->away = NULL;
    s->custody = false;
    s->missed = 0;
    s->ready = true; /* nobody to wait for in this seat now */
    snprintf(s->last_id, sizeof s->last_id, "%s", p->id);
    stand_in_or_wait(r, s, p->name);
    ddz__log(r->srv, "info", r->id, "seat %d: %s is stood up%s", s->index, p->id,
             s->standin ? ", a hosted AI stands in" : ", the seat waits");
    p->seat = -1;
    if (p->conn && watch_add(r, p) == 0) {
        p->stood_up = true;
        tell_place(r, p);
    } else {
        p->room = NULL; /* gone: it joins again to play */
    }
    ddz__room_seat_event(r, s->index);
    check_dead(r);
}

/* The settle step after a game: people waiting to sit take the seats
 * open to them (stand-ins give way), then, in a room that waits for
 * players (no fill; not one made with pause 0, where the AI plays on as
 * before), the stand-ins left go and their seats wait. */
static void on_settle(ddz_timer *t)
{
    ddz_room *r = (ddz_room *)((char *)t - offsetof(ddz_room, settle));
    if (r->dead || r->owned || room_live(r))
        return;
    for (size_t i = 0; i < r->nwatch;) {
        ddz_player *p = r->watch[i];
        if (!p->seat_next || pick_seat(r, p, -1) < 0) {
            i++;
            continue;
        }
        /* ddz__room_sit takes it out of the audience (the list moves) */
        if (ddz__room_sit(r, p, -1) >= 0)
            tell_place(r, p);
        else
            i++;
    }
    for (int i = 0; i < 3 && !r->opts.fill[0] && room_absence(r); i++) {
        rseat *s = &r->seats[i];
        if (!s->standin || s->player)
            continue;
        s->standin = false;
        s->standin_for[0] = '\0';
        s->spec[0] = '\0';
        ddz_runner_seat(r->run, i, NULL);
        ddz__room_seat_event(r, i);
    }
    check_dead(r);
}

void ddz__room_settle_soon(ddz_room *r)
{
    ddz_loop_arm(&r->srv->loop.base, &r->settle, on_settle, 0);
}

int ddz__room_watch(ddz_room *r, ddz_player *p)
{
    ddz__player_leave(p); /* one room at a time */
    int rc = watch_add(r, p);
    if (rc < 0)
        return rc;
    idle_update(r);
    return 0;
}

void ddz__room_abort(ddz_room *r)
{
    if (!room_live(r))
        return;
    ddz_record rec;
    ddz_runner_abort(r->run, &rec);
    ddz__room_name_seats(r, &rec);
    r->asking = false;
    char key[DDZ_STORE_KEY_HEX + 1];
    ddz_store_add_game(r->srv->store, r->game_id, r->id, room_store_key(r, key), &rec, true);
    r->srv->m.games_aborted++;
    r->phase = PH_WAITING;
}

/* Whether anyone but seat `skip` (-1: none) is connected to `r`, watches
 * it, or may still come back (a dropped player within the grace period). */
static bool anyone_may_come(const ddz_room *r, int skip)
{
    bool anyone = r->nwatch > 0;
    int64_t now = ddz__now_us(), grace = (int64_t)r->opts.grace * 1000000;
    for (int i = 0; i < 3; i++) {
        const rseat *s = &r->seats[i];
        if (!s->player || i == skip)
            continue;
        if (s->player->conn || (r->phase != PH_WAITING && now - s->player->gone_us < grace))
            anyone = true;
    }
    return anyone;
}

/* Whether anyone is connected to `r` (seated or watching). */
static bool anyone_connected(const ddz_room *r)
{
    if (r->nwatch > 0)
        return true;
    for (int i = 0; i < 3; i++)
        if (r->seats[i].player && r->seats[i].player->conn)
            return true;
    return false;
}

/* Closes `r`: its game is recorded as aborted, it is reaped on the loop's
 * next turn (its engines and AIs go then, not at the next tick). */
static void close_room(ddz_room *r, const char *why)
{
    if (r->dead)
        return;
    r->dead = true;
    ddz__room_rated_abandoned(r); /* before the game is recorded as aborted */
    ddz__reap_soon(r->srv);
    ddz_loop_disarm(&r->srv->loop.base, &r->pause);
    ddz_loop_disarm(&r->srv->loop.base, &r->settle);
    ddz__room_abort(r);
    ddz__log(r->srv, "info", r->id, "room closed%s", why);
}

void ddz__room_idle_unlink(ddz_room *r)
{
    ddz_budget *b = &r->srv->budget;
    if (!r->idle)
        return;
    *(r->idle_prev ? &r->idle_prev->idle_next : &b->idle_head) = r->idle_next;
    *(r->idle_next ? &r->idle_next->idle_prev : &b->idle_tail) = r->idle_prev;
    r->idle_prev = r->idle_next = NULL;
    r->idle = false;
    b->idle_rooms--;
}

/* Keeps `r` in the idle list while it lives and nobody is connected to it.
 * Past --max-idle-rooms, the room idle the longest closes: rooms kept for
 * absent players are what an attacker can pile up without holding a
 * connection (5,000 create-and-drop: 0.69 GB), and under that pressure the
 * oldest is the least likely to see its players back. */
static void idle_update(ddz_room *r)
{
    ddz_budget *b = &r->srv->budget;
    bool idle = !r->dead && !r->owned && !anyone_connected(r);
    if (idle == r->idle)
        return;
    if (!idle) {
        ddz__room_idle_unlink(r);
        return;
    }
    r->idle = true;
    r->idle_prev = b->idle_tail;
    *(b->idle_tail ? &b->idle_tail->idle_next : &b->idle_head) = r;
    b->idle_tail = r;
    b->idle_rooms++;
    while (b->idle_rooms > ddz__budget_max_idle_rooms(r->srv)) {
        ddz_room *oldest = b->idle_head;
        ddz__budget_refused(r->srv, DDZ_BUDGET_IDLE_ROOMS);
        close_room(oldest, ": too many rooms nobody is connected to");
        ddz__room_idle_unlink(oldest);
    }
}

/* A room lives while someone is connected to it, watches it, or may still
 * come back (a dropped player within the grace period). A room left to
 * hosted AIs and absent players closes; a game cut that way is recorded as
 * aborted. */
static void check_dead(ddz_room *r)
{
    if (r->owned)
        return; /* it lives as long as its table: the director ends it */
    if (!anyone_may_come(r, -1))
        close_room(r, "");
    if (r->dead)
        ddz__room_idle_unlink(r);
    else
        idle_update(r);
}

/* `p` leaves `r`'s audience or seat (ddz__player_leave says how). */
static void room_leave(ddz_room *r, ddz_player *p)
{
    for (size_t i = 0; i < r->nwatch; i++)
        if (r->watch[i] == p) {
            r->watch[i] = r->watch[--r->nwatch];
            check_dead(r);
            return;
        }
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        if (s->player != p)
            continue;
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        s->player = NULL;
        ddz_seat_close(s->away);
        s->away = NULL;
        bool was_custody = s->custody;
        s->custody = false;
        s->missed = 0;
        if (!r->owned)
            snprintf(s->last_id, sizeof s->last_id, "%s", p->id);
        if (r->owned) {
            /* a competition's seat is played to the end: nobody holds it
             * now, and it is charged when asked */
            ddz_seat_want w = {.name = s->label[0] ? s->label : p->name, .charge_at_once = true};
            char msg[100];
            int err;
            ddz_seat *gone = ddz__seat_make(r->srv, &w, &err, msg, sizeof msg);
            if (r->run) {
                ddz_runner_seat(r->run, i, gone);
                ddz_runner_reask(r->run, i);
            } else {
                ddz_seat_close(gone);
            }
        } else if (r->phase == PH_WAITING || r->phase == PH_TURN_OVER) {
            ddz_runner_seat(r->run, i, NULL);
            s->spec[0] = '\0';
            if (r->phase == PH_TURN_OVER)
                r->phase = PH_WAITING;
        } else if (r->phase == PH_BETWEEN && room_absence(r)) {
            /* between games: a stand-in where the room fills with AIs,
             * else the seat waits for a person (spec §14) */
            stand_in_or_wait(r, s, p->name);
            (void)ddz__room_mark_ready(r, i); /* nobody to wait for in this seat now */
        } else {
            /* mid-turn: a hosted AI finishes the game in this seat, if
             * anyone is left to see it (else the room closes below); it
             * stands in for the person, who may take the seat back */
            snprintf(s->spec, sizeof s->spec, "ai:%s", ddz__room_default_ai(r));
            if (!was_custody && (!anyone_may_come(r, i) || ddz__room_seat_ai(r, s, s->spec) < 0))
                ddz_runner_seat(r->run, i, NULL);
            s->standin = !p->bot && ddz_runner_seat_of(r->run, i) != NULL; /* a bot's: for good */
            snprintf(s->standin_for, sizeof s->standin_for, "%s", s->standin ? p->name : "");
            ddz_runner_reask(r->run, i);
            if (r->phase == PH_BETWEEN) /* nobody to wait for in this seat now */
                (void)ddz__room_mark_ready(r, i);
        }
        ddz__room_seat_event(r, i);
        break;
    }
    check_dead(r);
}

void ddz__player_leave(ddz_player *p)
{
    ddz_room *r = p->room;
    p->room = NULL;
    p->seat = -1;
    p->stood_up = p->seat_next = false;
    if (r)
        room_leave(r, p); /* a closed room not reaped yet too: it must not keep `p` */
}

void ddz__room_connection(ddz_room *r, ddz_player *p, bool connected)
{
    if (p->seat < 0) {
        if (!connected)
            ddz__player_leave(p); /* a spectator that drops simply goes */
        return;
    }
    rseat *s = &r->seats[p->seat];
    if (s->player != p)
        return;
    if (connected) {
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        /* the player takes the seat back: the AI goes (the state snapshot
         * that follows the resume carries the open request) */
        if (s->custody) {
            s->custody = false;
            ddz_runner_seat(r->run, s->index, s->away);
            s->away = NULL;
        }
        s->missed = 0; /* coming back is the player saying it is there */
    } else if (r->phase == PH_WAITING && !r->owned) {
        ddz__player_leave(p);
        return;
    } else {
        ddz_loop_arm(&r->srv->loop.base, &s->grace, on_grace, (int64_t)r->opts.grace * 1000000);
    }
    ddz__room_seat_event(r, p->seat);
    check_dead(r);
}
