/* room_ready.h - whether a room may deal its next game, and the people
 * it waits for between games (room_ready.c). Private to the room's files;
 * everyone else goes through room.h.
 *
 * It sits below both who sits where (room_seats.c) and the series of
 * games (room_series.c): a seat taken or let go says so here, and the
 * deal clock it arms runs the series through the room's `on_deal_clock`,
 * so neither of the two names the other's step. */
#ifndef DDZ_ROOM_READY_H
#define DDZ_ROOM_READY_H

#include <stdbool.h>

#include "service/server/room_fields.h"

/* Returns whether `r` may deal: every seat is held and, where a hosted AI
 * stands in for someone, a person sits too (stand-ins play for people,
 * never only for each other while the people watch; a room made with
 * pause 0 plays on as before). */
bool ddz__room_dealable(const ddz_room *r);

/* Seat `s` is ready (or no longer needs waiting for); the deal clock
 * rings at once when every seat is. Returns whether the room is still
 * waiting (false too when it was not waiting at all). */
bool ddz__room_mark_ready(ddz_room *r, int s);

/* A waiting room whose seats are all held deals on the loop's next turn
 * (so whoever just sat is told `joined` first). Never fails. */
void ddz__room_maybe_start(ddz_room *r);

#endif
