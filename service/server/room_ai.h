/* room_ai.h - hosted AIs and engines in a room's seats (room_ai.c).
 * Private to the room's files; everyone else goes through room.h. */
#ifndef DDZ_ROOM_AI_H
#define DDZ_ROOM_AI_H

#include "service/server/room_fields.h"

/* Returns the hosted AI a room puts in a seat when it has to (custody, a
 * seat left mid-turn): the server's --default-ai, else the strongest
 * built in. Never NULL. */
const char *ddz__room_default_ai(const ddz_room *r);

/* A hosted AI in seat `s`, for good (spec) or in custody of its player.
 * Returns 0, or the negative code of why the seat could not be made
 * (DDZ_EBUSY when the AI or engine budget is spent). */
int ddz__room_seat_ai(ddz_room *r, rseat *s, const char *spec);

/* Puts seat `s` in the custody of a hosted AI (its player's own seat kept
 * aside), without asking it anything: the caller asks it the open request
 * or lets the runner do so. Returns 0, or DDZ_EBUSY when the AI budget is
 * spent (the seat then stays its player's). */
int ddz__room_take_custody(ddz_room *r, rseat *s);

/* Gives seat `s` back to its player (the custody AI goes) and asks it the
 * open request, if it is its turn. Never fails. */
void ddz__room_end_custody(ddz_room *r, rseat *s);

#endif
