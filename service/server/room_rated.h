/* room_rated.h - a rated room's games (SPEC §15): who plays each one, as
 * the store rates them, taken at the deal; and at its end (or when the
 * table closes on it) the game handed to rated_games.h with the seats
 * that left. Private to the room's files; below the seating
 * (room_seats.c), the series and the events, which call it. */
#ifndef DDZ_ROOM_RATED_H
#define DDZ_ROOM_RATED_H

#include "service/server/room_fields.h"

/* A game of `r` is dealt: its players are taken (a person's account, a
 * rated hosted AI's id). A game whose seats are not three different rated
 * players (an engine, a hosted AI twice) is not rated, and the log says
 * so. Does nothing in a room that is not rated. */
void ddz__room_rated_deal(ddz_room *r);

/* The game of `r` dealt last ended with landlord `landlord` (-1: everyone
 * passed, nothing to rate) who won or lost: its rating goes to the store,
 * each person who held a seat at the deal and does not now (left, stood
 * up) or whose connection is gone rated as having lost it. Does nothing
 * in a room that is not rated, or for a game that is not rated. */
void ddz__room_rated_over(ddz_room *r, int landlord, bool landlord_won);

/* The table closes with its game on (everyone left it): the game is
 * rated as lost for each person who left, the landlord's part played by
 * the game's landlord or, still bidding, by the first of them, and won
 * for the hosted AIs that stayed. */
void ddz__room_rated_abandoned(ddz_room *r);

#endif
