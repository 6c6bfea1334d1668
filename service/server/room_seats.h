/* room_seats.h - who sits where in a room (room_seats.c). Private to the room's files; everyone
 * else goes through room.h. */
#ifndef DDZ_ROOM_SEATS_H
#define DDZ_ROOM_SEATS_H

#include "service/server/room_fields.h"

/* A hosted AI in seat `s`, for good (spec) or in custody of its player. */
int ddz__room_seat_ai(ddz_room *r, rseat *s, const char *spec);

/* Puts seat `s` in the custody of a hosted AI (its player's own seat kept
 * aside), without asking it anything: the caller asks it the open request
 * or lets the runner do so. Returns 0, or DDZ_EBUSY when the AI budget is
 * spent (the seat then stays its player's). */
int ddz__room_take_custody(ddz_room *r, rseat *s);

/* Gives seat `s` back to its player (the custody AI goes) and asks it the
 * open request, if it is its turn. */
void ddz__room_end_custody(ddz_room *r, rseat *s);

/* The runner's clock found `player`'s request overdue. In a casual room
 * (custody "ai") a person is not charged a fault: a hosted AI takes the
 * seat over (托管) until the player takes it back, and the runner asks it
 * the request afresh. Bots are programs and keep the SPEC 6 timeout, as
 * does every seat of a competition room (custody "fault"). */
bool ddz__room_on_timeout(void *ctx, int player);

/* Takes `r` out of the idle list, if it is in it. Never fails. */
void ddz__room_idle_unlink(ddz_room *r);

#endif
