/* room_series.c - a room's games one after another: the first starts when
 * every seat is held, the next after a pause, and a rematch deals a new
 * series from the room's master seed.
 */
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_series.h"

void ddz__room_on_pause(ddz_timer *t)
{
    ddz_room *r = (ddz_room *)((char *)t - offsetof(ddz_room, pause));
    if (r->phase == PH_BETWEEN || r->phase == PH_WAITING)
        ddz__room_start_game(r);
}

void ddz__room_new_series(ddz_room *r)
{
    ddz_table_cfg tc = {
        .rules = r->rules,
        .deals = r->opts.games,
        .time_ms = r->opts.time * 1000,
        .turn = r->turn_no + 1,
        .turns = r->turn_no + 1,
        .first_deal = r->dealt,
    };
    memcpy(tc.master, r->master, sizeof tc.master);
    for (int s = 0; s < 3; s++)
        tc.autopass[s] = r->seats[s].player && r->seats[s].player->autopass;
    ddz_runner_series(r->run, &tc);
}

void ddz__room_start_game(ddz_room *r)
{
    for (int s = 0; s < 3; s++)
        if (!ddz_runner_seat_of(r->run, s)) {
            r->phase = PH_WAITING;
            return;
        }
    if (ddz_table_done(room_table(r)))
        ddz__room_new_series(r);
    r->game_id = ddz_store_reserve_game_id(r->srv->store);
    /* a game of a room not listed, or behind a password, is read only
     * under a key its players get (docs/decisions.md) */
    if (r->opts.priv || r->opts.password[0])
        ddz_store_new_game_key(r->game_key);
    else
        r->game_key[0] = '\0';
    r->srv->m.games_started++;
    r->phase = PH_PLAYING;
    r->dealt++;
    if (ddz_runner_start(r->run) < 0)
        r->phase = PH_WAITING;
}

void ddz__room_maybe_start(ddz_room *r)
{
    if (r->phase != PH_WAITING)
        return;
    for (int s = 0; s < 3; s++)
        if (!ddz_runner_seat_of(r->run, s))
            return;
    /* Started from the loop, so whoever just sat is told `joined` first. */
    ddz_loop_arm(&r->srv->loop.base, &r->pause, ddz__room_on_pause, 0);
}
