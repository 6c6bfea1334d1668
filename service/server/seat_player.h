/* seat_player.h - a person or bot at a table, over its connection
 * (seat_player.c), and the per-player events it sends. */
#ifndef DDZ_SEAT_PLAYER_H
#define DDZ_SEAT_PLAYER_H

#include "proto/event.h"
#include "service/server/player.h"
#include "service/table/seat.h"

typedef struct ddz_srv ddz_srv;

/* Returns a seat adapter for `p` (a person or a bot), or NULL when out of
 * memory. */
ddz_seat *ddz__seat_player_create(ddz_srv *srv, ddz_player *p);

/* Player `p` answers the open request of seat `s`: the answer goes where
 * every seat's answer goes, to the table through the seat's host, and only
 * if `s` is `p`'s own seat (not an AI in custody of it, nor an absent
 * seat). Returns the table's verdict (0 or a DDZ_E... code: a bot's
 * illegal answer is then charged as a fault; a person may try again), or
 * DDZ_ETURN when `s` (NULL-safe) is not `p`'s seat or is at no table. */
int ddz__seat_player_act(ddz_seat *s, const ddz_player *p, int action, uint32_t seq, int bid,
                         ddz_cards cards);

/* Fills `out` with the `turn` event for `ask` (the deadline counted from
 * now), with the legal answers if `with_legal`: the bids, or the plays
 * (pass last when following) in an array allocated here. Returns that
 * array, for the caller to free() once the event is printed; NULL for a
 * bid, without legal, or when out of memory (the plays are then an empty
 * list). */
ddz_cards *ddz__turn_event(const ddz_table *t, const ddz_ev *ask, bool with_legal,
                           ddz_event_turn *out);

/* Fills `out` with the `game` event that starts `ev`'s game, with the hand
 * or null. Never fails. */
void ddz__game_event(const ddz_table *t, const ddz_ev *ev, bool with_hand, ddz_event *out);

#endif
