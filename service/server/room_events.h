/* room_events.h - the runner's callbacks of a room (room_events.c). Private to the room's files;
 * everyone else goes through room.h. */
#ifndef DDZ_ROOM_EVENTS_H
#define DDZ_ROOM_EVENTS_H

#include "service/server/room_fields.h"

/* The runner's end of a game: stored, told to everyone with how the
 * score came about, and the series goes on (a competition's runner
 * starts its next game itself). */
void ddz__room_on_over(void *ctx, const ddz_record *record);

/* What everyone at the table hears; the seats already had their own. */
void ddz__room_on_event(void *ctx, const ddz_ev *ev);

/* The runner's log lines, under the room's id. */
void ddz__room_on_log(void *ctx, int player, bool warn, const char *msg);

/* A short, human-friendly pause before a hosted AI acts when people play
 * or watch. A bot (a bridge) is no person: a table of programs plays at
 * their speed. */
int64_t ddz__room_think_delay(void *ctx);

#endif
