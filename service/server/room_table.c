/* room_table.c - a table run by its owner (a competition, through host.h) as a
 * room: opened around the competition's runner with its participants'
 * labels and bots, a bot re-seated when it comes back, the games the
 * competition reports, and the end of the table.
 */
#include <stdio.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_events.h"
#include "service/server/room_seats.h"
#include "service/server/room_view.h"

/* `p` (a bot, or NULL: nobody) holds seat `seat` of competition table
 * `r`, after it left any other room or seat (one table at a time): it is
 * told `joined` and `state`, and everyone at the table who holds the seat
 * now. The seat's player whom `p` replaces no longer points at `r`. */
static void bind_seat(ddz_room *r, int seat, ddz_player *p)
{
    rseat *s = &r->seats[seat];
    if (s->player && s->player != p && s->player->room == r)
        s->player->room = NULL, s->player->seat = -1;
    if (p && (p->room != r || p->seat != seat))
        ddz__player_leave(p); /* from any other room or seat: one at a time */
    ddz_loop_disarm(&r->srv->loop.base, &s->grace);
    s->player = p;
    s->custody = false;
    if (!p) {
        ddz__room_seat_event(r, seat);
        return;
    }
    p->room = r;
    p->seat = seat;
    if (p->conn) {
        ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = seat}};
        snprintf(e.joined.room, sizeof e.joined.room, "%s", r->id);
        ddz__conn_send(p->conn, ddz_event_print(&e));
        ddz__room_send_state(r, p);
    }
    ddz__room_seat_event(r, seat);
}

ddz_room *ddz__room_open_table(ddz_srv *srv, const ddz_room_opts *opts, ddz_runner *run,
                               const char *const labels[3], ddz_player *const bots[3])
{
    ddz_room *r = ddz__room_create_table(srv, opts, run);
    if (!r)
        return NULL;
    for (int s = 0; s < 3; s++) {
        const ddz_seat *st = ddz_runner_seat_of(run, s);
        snprintf(r->seats[s].label, sizeof r->seats[s].label, "%s", labels[s]);
        if (bots[s] && st && !ddz_seat_is_absent(st))
            bind_seat(r, s, bots[s]);
    }
    return r;
}

bool ddz__room_reseat(ddz_room *r, int seat, ddz_player *p)
{
    if (!r->run || r->dead)
        return false;
    ddz_seat *cur = ddz_runner_seat_of(r->run, seat);
    if (!cur || !ddz_seat_is_absent(cur))
        return false; /* its own seat already, or a program's */
    ddz_seat_want w = {.player = p};
    char msg[100];
    int err = 0;
    ddz_seat *st = ddz__seat_make(r->srv, &w, &err, msg, sizeof msg);
    if (!st)
        return false;
    ddz_runner_seat(r->run, seat, st);
    bind_seat(r, seat, p);
    ddz_runner_reask(r->run, seat);
    return true;
}

void ddz__room_table_event(ddz_room *r, const ddz_ev *ev)
{
    if (!r->run)
        return;
    if (ev->kind == DDZ_EV_GAME && r->phase != PH_PLAYING) {
        /* the director started a game */
        r->game_id = ddz_store_reserve_game_id(r->srv->store);
        r->game_key[0] = '\0';
        r->srv->m.games_started++;
        r->phase = PH_PLAYING;
    }
    ddz__room_on_event(r, ev);
}

int64_t ddz__room_table_over(ddz_room *r, const ddz_record *rec)
{
    if (!r->run)
        return 0;
    ddz__room_on_over(r, rec);
    return r->game_id;
}

void ddz__room_detach(ddz_room *r)
{
    if (!r->run)
        return;
    ddz_event e = {.type = DDZ_EVENT_JOINED, .joined = {.seat = -1}};
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        ddz_loop_disarm(&r->srv->loop.base, &s->grace);
        ddz_player *p = s->player;
        s->player = NULL;
        if (p && p->room == r) {
            p->room = NULL;
            p->seat = -1;
            if (p->conn)
                ddz__conn_send(p->conn, ddz_event_print(&e));
        }
    }
    for (size_t i = 0; i < r->nwatch; i++) {
        ddz_player *p = r->watch[i];
        if (p->room == r) {
            p->room = NULL;
            p->seat = -1;
            if (p->conn)
                ddz__conn_send(p->conn, ddz_event_print(&e));
        }
    }
    r->nwatch = 0;
    r->asking = false;
    r->run = NULL; /* the director's: it goes on to the next table */
    r->dead = true;
    ddz__reap_soon(r->srv);
}
