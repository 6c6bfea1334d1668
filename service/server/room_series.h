/* room_series.h - a room's games one after another (room_series.c). Private to the room's files;
 * everyone else goes through room.h. */
#ifndef DDZ_ROOM_SERIES_H
#define DDZ_ROOM_SERIES_H

#include "service/server/room_fields.h"

/* The room's pause timer: the next game starts, if every seat is held. */
void ddz__room_on_pause(ddz_timer *t);

/* Sets the runner up for the next series (turn) of a casual room, dealt
 * from the room's master seed after the games dealt so far. */
void ddz__room_new_series(ddz_room *r);

/* Starts the next game (a new series first if the last is done), or
 * waits (PH_WAITING) while a seat is empty. */
void ddz__room_start_game(ddz_room *r);

/* Between games of a casual room: starts the wait for every person's
 * `ready` (the ready clock on the pause timer), or the plain pause when
 * nobody is to be waited for (only programs and bots seated, or a room
 * with no pause). Never fails. */
void ddz__room_begin_between(ddz_room *r);

/* After a game everyone passed, in a room that deals again: the next deal
 * starts after DDZ_REDEAL_MS (at once in a room with no pause), with no
 * ready step. Never fails. */
void ddz__room_begin_redeal(ddz_room *r);

#endif
