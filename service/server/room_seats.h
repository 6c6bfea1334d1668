/* room_seats.h - who sits where in a room (room_seats.c). Private to the room's files; everyone
 * else goes through room.h. */
#ifndef DDZ_ROOM_SEATS_H
#define DDZ_ROOM_SEATS_H

#include "service/server/room_fields.h"

/* The runner's clock found `player`'s request overdue. In a casual room
 * (custody "ai") a person is not charged a fault (spec §14): the first
 * time the smallest move is made for them; the second in a row a hosted
 * AI takes the seat over (托管) until the player takes it back. Returns
 * true when either was done (the runner then charges nothing), false for
 * the spec §6 timeout (bots, competition rooms, no AI to be had). */
bool ddz__room_on_timeout(void *ctx, int player);

/* Stands up the person in seat `s` (spec §14: away when the next game is
 * dealt): the seat no longer holds them; a hosted AI stands in where the
 * room fills with AIs, else the seat waits. A person still connected
 * watches the room, told `joined` and a state with `stood_up`; one gone
 * is out of the room. Never fails (no AI to be had: the seat waits). */
void ddz__room_stand_up(ddz_room *r, rseat *s);

/* Arms the settle step after a game, on the loop's next turn (not from
 * inside the runner's report of the game's end, where the seats that
 * answered are still on the stack): people waiting to sit take their
 * seats, and a room with no fill lets its stand-ins go. Never fails. */
void ddz__room_settle_soon(ddz_room *r);

/* Takes `r` out of the idle list, if it is in it. Never fails. */
void ddz__room_idle_unlink(ddz_room *r);

#endif
