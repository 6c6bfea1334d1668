/* room_seats.h - who sits where in a room (room_seats.c). Private to the room's files; everyone
 * else goes through room.h. */
#ifndef DDZ_ROOM_SEATS_H
#define DDZ_ROOM_SEATS_H

#include "service/server/room_fields.h"

/* The runner's clock found `player`'s request overdue. In a casual room
 * (custody "ai") a person is not charged a fault: a hosted AI takes the
 * seat over (托管) until the player takes it back, and the runner asks it
 * the request afresh. Bots are programs and keep the SPEC 6 timeout, as
 * does every seat of a competition room (custody "fault"). */
bool ddz__room_on_timeout(void *ctx, int player);

/* Takes `r` out of the idle list, if it is in it. Never fails. */
void ddz__room_idle_unlink(ddz_room *r);

#endif
