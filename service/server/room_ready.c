/* room_ready.c - whether a room may deal its next game, and the people it
 * waits for between games (room_ready.h). */
#include "service/server/room_ready.h"

#include "service/server/room_fields.h"

bool ddz__room_dealable(const ddz_room *r)
{
    bool standin = false, person = false;
    for (int s = 0; s < 3; s++) {
        if (!ddz_runner_seat_of(r->run, s))
            return false;
        standin |= r->seats[s].standin && !r->seats[s].player;
        person |= r->seats[s].player && !r->seats[s].player->bot;
    }
    return !standin || person || !room_absence(r);
}

bool ddz__room_mark_ready(ddz_room *r, int s)
{
    if (!r->readying)
        return false;
    r->seats[s].ready = true;
    for (int i = 0; i < 3; i++)
        if (!r->seats[i].ready)
            return true;
    r->readying = false;
    ddz_loop_arm(&r->srv->loop.base, &r->pause, r->on_deal_clock, 0);
    return false;
}

void ddz__room_maybe_start(ddz_room *r)
{
    if (r->phase != PH_WAITING || !ddz__room_dealable(r))
        return;
    /* Started from the loop, so whoever just sat is told `joined` first. */
    ddz_loop_arm(&r->srv->loop.base, &r->pause, r->on_deal_clock, 0);
}
