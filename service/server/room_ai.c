/* room_ai.c - hosted AIs and engines in a room's seats: for good (a seat
 * the room was made with, or one a player left mid-turn) or in custody of
 * a person (托管). Below both the seating (room_seats.c) and the series
 * (room_series.c), which put seats into custody; it calls neither.
 */
#include <stdio.h>
#include <string.h>

#include "service/server/room_ai.h"

const char *ddz__room_default_ai(const ddz_room *r)
{
    if (r->srv->cfg.default_ai)
        return r->srv->cfg.default_ai;
    return ddz_ai_exists("strong") ? "strong" : "greedy";
}

static ddz_seat *make_program(ddz_room *r, int index, const char *spec, int *err)
{
    char log_name[300], msg[200];
    snprintf(log_name, sizeof log_name, "%s-%s-%d",
             strncmp(spec, "engine:", 7) == 0 ? spec + 7 : spec, r->id, index);
    ddz_seat_want w = {
        .spec = spec,
        .ai_budget = true,
        /* its AIs think on its creator's share (custody ones too: the room
         * is what the creator asked for) */
        .think_key = r->owner ? r->owner->key : NULL,
        .time_ms = r->opts.time * 1000,
        /* a quarter of the table's time limit, at most a second */
        .ai_budget_ms = r->opts.time * 250 < 1000 ? r->opts.time * 250 : 1000,
        .log_name = log_name,
        .spawns_room = &r->spawns,
        .spawns_addr = ddz__budget_addr_spawns(r->srv, r->owner),
    };
    return ddz__seat_make(r->srv, &w, err, msg, sizeof msg);
}

/* A hosted AI in seat `s`, for good (spec) or in custody of its player. */
int ddz__room_seat_ai(ddz_room *r, rseat *s, const char *spec)
{
    int err = 0;
    ddz_seat *ai = make_program(r, s->index, spec, &err);
    if (!ai)
        return err;
    ddz_runner_seat(r->run, s->index, ai);
    return 0;
}

/* Puts seat `s` in the custody of a hosted AI (its player's own seat kept
 * aside), without asking it anything: the caller asks it the open request
 * or lets the runner do so. Returns 0, or DDZ_EBUSY when the AI budget is
 * spent (the seat then stays its player's). */
int ddz__room_take_custody(ddz_room *r, rseat *s)
{
    char spec[48];
    snprintf(spec, sizeof spec, "ai:%s", ddz__room_default_ai(r));
    ddz_seat *mine = ddz_runner_unseat(r->run, s->index);
    int rc = ddz__room_seat_ai(r, s, spec);
    if (rc < 0) {
        /* no AI to be had (the AI budget is spent): the seat stays its
         * player's, and the clock charges it as it would an absent one */
        ddz_runner_seat(r->run, s->index, mine);
        ddz__log(r->srv, "warn", r->id, "seat %d: no hosted AI free for custody", s->index);
        return rc;
    }
    s->away = mine;
    s->custody = true;
    return 0;
}

/* Gives seat `s` back to its player (the custody AI goes) and asks it the
 * open request, if it is its turn. */
void ddz__room_end_custody(ddz_room *r, rseat *s)
{
    if (!s->custody)
        return;
    s->custody = false;
    ddz_runner_seat(r->run, s->index, s->away);
    s->away = NULL;
    ddz_runner_reask(r->run, s->index);
}
