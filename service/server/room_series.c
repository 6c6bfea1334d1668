/* room_series.c - a room's games one after another: the first starts when
 * every seat is held, the next after a pause, and a rematch deals a new
 * series from the room's master seed.
 */
#include <string.h>

#include "rules/error.h"
#include "service/server/room_fields.h"
#include "service/server/room_ai.h"
#include "service/server/room_rated.h"
#include "service/server/room_ready.h"
#include "service/server/room_seats.h"
#include "service/server/room_series.h"
#include "service/server/room_view.h"

/* Whether seat `s` is waited for between games: a person (not a bot, not
 * a program) holds it. One in custody or away is waited for too: the clock
 * decides for them, so that the AI playing for an absent person does not
 * run through the series while nobody watches. */
static bool waits_for(const rseat *s)
{
    return s->player && !s->player->bot;
}

/* Before a deal between games of a room that follows spec §14: nobody is
 * dealt in while away. A person is stood up who did not say ready before
 * the ready clock ran out (`clock_out`), whose connection is gone, or
 * whom a hosted AI plays for (custody asked for after `ready`). */
static void stand_up_absent(ddz_room *r, bool clock_out)
{
    for (int i = 0; i < 3; i++) {
        rseat *s = &r->seats[i];
        if (waits_for(s) && ((clock_out && !s->ready) || !s->player->conn || s->custody))
            ddz__room_stand_up(r, s);
    }
}

void ddz__room_on_pause(ddz_timer *t)
{
    ddz_room *r = (ddz_room *)((char *)t - offsetof(ddz_room, pause));
    bool clock_out = r->readying;
    r->readying = false;
    if (r->phase == PH_BETWEEN && room_absence(r)) {
        stand_up_absent(r, clock_out);
        if (r->dead)
            return;
    } else if (clock_out) {
        /* a room outside spec §14's stand-up: whoever did not answer is
         * treated as a turn clock's timeout is, a hosted AI plays for
         * them (托管) */
        for (int s = 0; s < 3; s++) {
            rseat *st = &r->seats[s];
            if (!st->ready && waits_for(st) && !st->custody && r->opts.custody == DDZ_CUSTODY_AI)
                if (ddz__room_take_custody(r, st) == 0) /* none free: it stays its player's */
                    ddz__room_seat_event(r, s);
        }
    }
    if (r->phase == PH_BETWEEN || r->phase == PH_WAITING)
        ddz__room_start_game(r);
}

void ddz__room_begin_between(ddz_room *r)
{
    r->phase = PH_BETWEEN;
    bool wait = false;
    for (int s = 0; s < 3; s++) {
        r->seats[s].ready = !waits_for(&r->seats[s]);
        wait |= !r->seats[s].ready;
    }
    /* A room made with no pause (load tests, scripts) and a competition's
     * held games keep the automatic start. */
    r->readying = wait && r->opts.pause > 0 && !r->opts.held;
    int64_t delay_us = (int64_t)r->opts.pause * 1000000;
    if (r->readying) {
        delay_us = (int64_t)room_ready_s(r) * 1000000;
        r->ready_until_us = ddz__now_us() + delay_us;
    }
    ddz_loop_arm(&r->srv->loop.base, &r->pause, ddz__room_on_pause, delay_us);
    if (r->readying) /* the ready clock, and who is waited for */
        ddz__room_send_states(r);
}

void ddz__room_begin_redeal(ddz_room *r)
{
    /* Nothing was played, so nobody is asked to be ready: the new cards
     * come after a moment to read that everyone passed. */
    r->phase = PH_BETWEEN;
    r->readying = false;
    int64_t delay_us = r->opts.pause > 0 ? (int64_t)DDZ_REDEAL_MS * 1000 : 0;
    ddz_loop_arm(&r->srv->loop.base, &r->pause, ddz__room_on_pause, delay_us);
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
        .redeal = r->opts.redeal,
    };
    memcpy(tc.master, r->master, sizeof tc.master);
    for (int s = 0; s < 3; s++)
        tc.autopass[s] = r->seats[s].player && r->seats[s].player->autopass;
    ddz_runner_series(r->run, &tc);
}

void ddz__room_start_game(ddz_room *r)
{
    r->readying = false;
    if (!ddz__room_dealable(r)) {
        bool was_between = r->phase == PH_BETWEEN;
        r->phase = PH_WAITING;
        if (was_between) /* everyone sees the room wait for players, not for a deal */
            ddz__room_send_states(r);
        return;
    }
    /* Nobody is dealt a game before the last one's end reached them: it
     * waits for its record to be durable (conn.h), and a `turn` queued
     * behind it would lose its clock meanwhile. */
    for (int s = 0; s < 3; s++)
        if (r->seats[s].player && !ddz__conn_settled(r->seats[s].player->conn)) {
            r->phase = PH_BETWEEN;
            ddz_loop_arm(&r->srv->loop.base, &r->pause, ddz__room_on_pause, DDZ_SETTLE_POLL_US);
            return;
        }
    if (ddz_table_done(room_table(r)))
        ddz__room_new_series(r);
    r->game_id = ddz_store_reserve_game_id(r->srv->store);
    /* a game of a room not listed, or behind a password, is read only
     * under a key its players get (docs/decisions.md), but a rated one */
    if ((r->opts.priv || r->opts.password[0]) && !r->opts.rated)
        ddz_store_new_game_key(r->game_key);
    else /* a rated game is public, as its ratings are (SPEC §15) */
        r->game_key[0] = '\0';
    ddz__room_rated_deal(r);
    r->srv->m.games_started++;
    r->phase = PH_PLAYING;
    r->dealt++;
    if (ddz_runner_start(r->run) < 0)
        r->phase = PH_WAITING;
}
