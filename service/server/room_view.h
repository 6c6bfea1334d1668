/* room_view.h - what a room's audience sees (room_view.c). Private to the room's files; everyone
 * else goes through room.h. */
#ifndef DDZ_ROOM_VIEW_H
#define DDZ_ROOM_VIEW_H

#include "service/server/room_fields.h"

/* Writes the series' totals so far, by seat. Never fails. */
void ddz__room_totals(const ddz_room *r, double out[3]);

/* Sends `e`, serialised once, to every spectator and, if `seated`, to
 * every seated player but `skip` (NULL-safe: it is sent its own version). */
void ddz__room_send_event(ddz_room *r, const ddz_event *e, bool seated, const ddz_player *skip);

/* Sends `e` to every seated player and spectator, serialised once. */
void ddz__room_broadcast(ddz_room *r, const ddz_event *e);

/* Tells everyone at the table who holds seat `s` now. */
void ddz__room_seat_event(ddz_room *r, int s);

/* Names as the room knows them: a person in custody keeps its name. */
/* Sends everyone in the room (seats, then spectators) its state: after a
 * change the events do not tell, such as who is ready between games. */
void ddz__room_send_states(ddz_room *r);

void ddz__room_name_seats(const ddz_room *r, ddz_record *rec);

#endif
