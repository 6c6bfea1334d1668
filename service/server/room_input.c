/* room_input.c - what a seated player asks of its room: a bid or a play
 * (through its own seat's host, as any seat answers), autopass, custody,
 * a hint, a phrase, a rematch.
 */
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"
#include "ai/greedy.h"
#include "service/server/room_fields.h"
#include "service/server/room_ai.h"
#include "service/server/room_seats.h"
#include "service/server/room_ready.h"
#include "service/server/room_series.h"
#include "service/server/room_view.h"

/* `custody` {on}: a player hands its seat to a hosted AI (托管) or takes
 * it back ("I'm back"). Casual rooms only: in a competition room the seat
 * is its player's, and a bot is a program that answers for itself. */
static void on_custody(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    rseat *s = &r->seats[p->seat];
    if (!q->on) {
        if (!s->custody) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "no hosted AI plays your seat", q);
            return;
        }
        s->missed = 0; /* an action of theirs: the count of missed clocks starts again */
        ddz__room_end_custody(r, s);
        ddz__log(r->srv, "info", r->id, "seat %d: its player takes it back", s->index);
        ddz__room_seat_event(r, s->index);
        return;
    }
    if (r->owned || r->opts.custody != DDZ_CUSTODY_AI || p->bot) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "auto-play is for people in casual rooms", q);
        return;
    }
    if (r->phase != PH_PLAYING && r->phase != PH_BETWEEN) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "no game is being played", q);
        return;
    }
    if (s->custody)
        return; /* already */
    int rc = ddz__room_take_custody(r, s);
    if (rc < 0) {
        ddz__conn_error(p->conn, rc, "no hosted AI is free: try again later", q);
        return;
    }
    ddz_runner_reask(r->run, s->index);
    ddz__log(r->srv, "info", r->id, "seat %d: its player hands it to a hosted AI", s->index);
    ddz__room_seat_event(r, s->index);
}

/* A sliding-window limit: true (and `now` recorded) when the oldest of the
 * `n` times in `t` is at least `span` µs old, else false. */
static bool window_ok(int64_t *t, int n, int64_t now, int64_t span)
{
    if (t[0] && now - t[0] < span)
        return false;
    memmove(t, t + 1, (size_t)(n - 1) * sizeof *t);
    t[n - 1] = now;
    return true;
}

/* `hint`: the plays ai:greedy would consider first for the seat's open
 * request, from the seat's own view (its hand and what everyone saw), so
 * it tells nothing hidden. Only the seat to move, while it plays itself,
 * at most 4 hints in 5 s (the client asks once a turn and cycles). */
static void on_hint(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    if (!room_live(r) || !r->asking || r->ask.seat != ddz_table_seat_of(room_table(r), p->seat) ||
        r->seats[p->seat].custody) {
        ddz__conn_error(p->conn, DDZ_ETURN, "hints are for the seat to move", q);
        return;
    }
    if (r->ask.kind != DDZ_EV_ASK_PLAY) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "hints are for plays, not bids", q);
        return;
    }
    int n = (int)(sizeof p->hints_us / sizeof p->hints_us[0]);
    if (!window_ok(p->hints_us, n, ddz__now_us(), 5000000)) {
        ddz__conn_error(p->conn, DDZ_ERATE, "too many hints: wait a little", q);
        return;
    }
    ddz_move *moves = malloc(DDZ_MOVES_MAX * sizeof *moves);
    if (!moves) {
        ddz__conn_error(p->conn, DDZ_ENOMEM, NULL, q);
        return;
    }
    ddz_view v;
    ddz_view_of(ddz_table_state(room_table(r)), r->ask.seat, &v);
    ddz_event e = {.type = DDZ_EVENT_HINT, .hint = {.seq = r->ask.seq}};
    e.hint.n =
        (size_t)ddz_greedy_hints(&v, moves, DDZ_MOVES_MAX, e.hint.plays, DDZ_EVENT_HINTS_MAX);
    free(moves);
    ddz__conn_send(p->conn, ddz_event_print(&e));
}

/* `phrase`: one of the fixed quick phrases, to everyone at the table; at
 * most 3 in 10 s a player (a number, never free text: strangers can't
 * write to each other). */
static void on_phrase(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    int n = (int)(sizeof p->phrases_us / sizeof p->phrases_us[0]);
    if (!window_ok(p->phrases_us, n, ddz__now_us(), 10000000)) {
        ddz__conn_error(p->conn, DDZ_ERATE, "too many phrases: wait a little", q);
        return;
    }
    ddz_event e = {.type = DDZ_EVENT_PHRASE, .phrase = {.seat = p->seat, .phrase = q->phrase}};
    ddz__room_broadcast(r, &e);
}

void ddz__room_request(ddz_room *r, ddz_player *p, const ddz_req *q)
{
    int64_t t0 = ddz__now_us();
    if (q->type == DDZ_REQ_AUTOPASS) {
        p->autopass = q->on;
        if (p->seat >= 0)
            ddz_runner_set_autopass(r->run, p->seat, q->on);
        ddz__room_send_state(r, p);
        return;
    }
    if (p->seat < 0) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "spectators cannot act", q);
        return;
    }
    if (q->type == DDZ_REQ_CUSTODY) {
        on_custody(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_HINT) {
        on_hint(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_PHRASE) {
        on_phrase(r, p, q);
        return;
    }
    if (q->type == DDZ_REQ_READY) {
        /* Late (the clock already started the game) or early: nothing to
         * do, and no error, since a client cannot know the race's winner. */
        /* Said twice: nothing new to tell the room (a client repeating
         * it cannot make the room resend every state each time). */
        if (r->phase == PH_BETWEEN && !r->seats[p->seat].ready) {
            /* an action of theirs (spec §14): back from custody, nothing
             * missed, and dealt in as themselves */
            rseat *s = &r->seats[p->seat];
            bool changed = s->custody || s->missed;
            s->missed = 0;
            ddz__room_end_custody(r, s);
            if (changed)
                ddz__room_seat_event(r, p->seat);
            if (ddz__room_mark_ready(r, p->seat))
                ddz__room_send_states(r);
        }
        return;
    }
    if (q->type == DDZ_REQ_REMATCH) {
        if (r->owned) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "a competition's table: the competition seats you",
                            q);
            return;
        }
        if (r->phase != PH_TURN_OVER) {
            ddz__conn_error(p->conn, DDZ_EPHASE, "the turn is not over", q);
            return;
        }
        r->seats[p->seat].rematch = true;
        for (int i = 0; i < 3; i++)
            if (!r->seats[i].rematch)
                return;
        r->turn_no++;
        ddz__room_new_series(r);
        ddz__room_start_game(r);
        return;
    }
    if (!room_live(r)) {
        ddz__conn_error(p->conn, DDZ_EPHASE, "no game is being played", q);
        return;
    }
    rseat *s = &r->seats[p->seat];
    if (s->custody && !r->owned) {
        /* any action of theirs turns custody off (spec §14): the seat is
         * theirs again, and this answer is tried as theirs */
        ddz__room_end_custody(r, s);
        ddz__log(r->srv, "info", r->id, "seat %d: its player acts, custody ends", s->index);
        s->missed = 0;
        ddz__room_seat_event(r, s->index);
    }
    ddz_seat *st = ddz_runner_seat_of(r->run, p->seat);
    int rc = ddz__seat_player_act(st, p, q->type == DDZ_REQ_BID ? DDZ_EV_ASK_BID : DDZ_EV_ASK_PLAY,
                                  q->seq, q->bid, q->cards);
    if (rc < 0) {
        ddz__conn_error(p->conn, rc, NULL, q);
        return;
    }
    if (s->missed) { /* an action of theirs: the count of missed clocks starts again */
        s->missed = 0;
        ddz__room_seat_event(r, s->index);
    }
    ddz__metrics_latency(r->srv, ddz__now_us() - t0);
}
