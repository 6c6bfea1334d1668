/* room.h - a room: a table with its seats and spectators; the face of
 * the room's files (room_life.c and the other room_*.c). */
#ifndef DDZ_ROOM_H
#define DDZ_ROOM_H

#include "proto/event.h"
#include "proto/msg.h"
#include "service/engine/spawn_budget.h"
#include "service/server/player.h"
#include "service/table/runner.h"

typedef struct ddz_srv ddz_srv;
typedef struct ddz_addr ddz_addr;
typedef struct ddz_tries ddz_tries;

/* Creates a room with `opts` (already range-checked) for a client at
 * address `owner` (NULL: none; the room counts in its rooms until freed),
 * reserving its engine seats in the engines budget until it is freed. Returns the room or NULL
 * with *err set (DDZ_ERULESET, DDZ_ENOTFOUND for an unknown AI or engine,
 * DDZ_EBUSY when a budget is spent, DDZ_ENOMEM) and *why a message for
 * the client (static; NULL: the code says it all). */
ddz_room *ddz__room_create(ddz_srv *srv, const ddz_room_opts *opts, ddz_addr *owner, int *err,
                           const char **why);

/* Fills the open seats with the `fill` AI of the options (after the
 * creator sat). Returns 0 or DDZ_ENOTFOUND (unknown AI). */
int ddz__room_fill(ddz_room *r);

/* ddz__room_sit(): the seat open to the person is a stand-in's while a
 * game is on; the person watches, and sits when the game ends. */
#define DDZ_ROOM_SEAT_NEXT 3

/* Seats player `p` (seat -1 = any free), after it left any room it was
 * in (a spectator of `r` stays in its audience if it cannot sit). A seat
 * is free when nobody holds it or a hosted AI stands in there for a
 * person who left (spec §14: the stand-in gives way); the seat `p` held
 * last comes first. Returns the seat, DDZ_ROOM_SEAT_NEXT (only a
 * stand-in's seat and a game on: `p` watches until it ends), or
 * DDZ_EFULL, DDZ_EAUTH (bots not allowed; in a rated room: a guest or a
 * bot, refused before `p` leaves where it is), DDZ_EPHASE (a rated room
 * where its account sits already), DDZ_EINVAL (seat taken), DDZ_ENOMEM. */
int ddz__room_sit(ddz_room *r, ddz_player *p, int seat);

/* Adds `p` as a spectator, after it left any room it was in. Returns 0 or
 * DDZ_ENOMEM. */
int ddz__room_watch(ddz_room *r, ddz_player *p);

/* `p` leaves the room it is in, if any (its seat or the audience), and is
 * in no room after: the one way out of a room, which every path takes
 * (leave, a join or create elsewhere, enlisting, a competition seating it,
 * revocation, reaping), so that a player is never in two rooms. A casual
 * room's seat left mid-turn is played on by a hosted AI; a competition's
 * seat is held by a `gone` seat, charged when asked. Never fails. */
void ddz__player_leave(ddz_player *p);

/* `p` dropped (true) or came back (false). */
void ddz__room_connection(ddz_room *r, ddz_player *p, bool connected);

/* A bid, play, autopass or rematch request from a seated player. */
void ddz__room_request(ddz_room *r, ddz_player *p, const ddz_req *q);

/* Sends `p` the full state snapshot. */
void ddz__room_send_state(ddz_room *r, ddz_player *p);

/* Fills `out` with the lobby's view of a room (a `rooms` entry). Never
 * fails. */
void ddz__room_summary(const ddz_room *r, ddz_event_room *out);

/* Accessors the lobby needs. */
const char *ddz__room_id(const ddz_room *r);
bool ddz__room_listed(const ddz_room *r);
bool ddz__room_password_ok(const ddz_room *r, const char *password);
bool ddz__room_dead(const ddz_room *r);
bool ddz__room_has_free_seat(const ddz_room *r);
bool ddz__room_has_password(const ddz_room *r);
bool ddz__room_rated(const ddz_room *r);         /* a rated room (SPEC §15) */
ddz_tries *ddz__room_tries(ddz_room *r);         /* wrong passwords sent to it */
ddz_spawn_budget *ddz__room_spawns(ddz_room *r); /* its engines' start budget */
ddz_room *ddz__room_next(ddz_room *r);
ddz_room **ddz__room_nextp(ddz_room *r); /* the lobby's list link */

/* ---- tables run by their owner (a competition, through host.h) ----
 *
 * Such a table is a room around its owner's runner (borrowed): the owner
 * seats it and starts its games; the room shows it (state,
 * events, spectators), lets its bots act, stores its games, and applies
 * the grace of a dropped bot with custody "fault". It never closes by
 * itself; ddz__room_detach() ends it when its table ends. */

/* Returns a competition table's room around `run` with `opts`, its
 * seats shown as their seats' names and held by nobody yet, not in the
 * server's rooms; NULL when out of memory. ddz__room_open_table() is the
 * way in from outside the room's files. */
ddz_room *ddz__room_create_table(ddz_srv *srv, const ddz_room_opts *opts, ddz_runner *run);

/* Opens the room of a competition table around `run` (its seats already
 * made through seating.h), not yet in the server's rooms (rooms.h: the
 * caller adds it), shows seat s as
 * labels[s] (the participant's name or ID) and seats bots[s] (NULL: none)
 * where its seat is its own, not an absent one. Returns the room or NULL
 * when out of memory. */
ddz_room *ddz__room_open_table(ddz_srv *srv, const ddz_room_opts *opts, ddz_runner *run,
                               const char *const labels[3], ddz_player *const bots[3]);

/* Competition bot `p` came back while seat `seat` of table `r` is held by
 * an absent seat: it takes the seat back and is asked what is open.
 * Returns true if it did; false if the seat is already its own (or a
 * program's) or when out of memory (the absent seat stays, charged). */
bool ddz__room_reseat(ddz_room *r, int seat, ddz_player *p);

/* An event of the table, and the end of a game. Returns the game's id in
 * the store. */
void ddz__room_table_event(ddz_room *r, const ddz_ev *ev);
int64_t ddz__room_table_over(ddz_room *r, const ddz_record *rec);

/* The table ended: everyone in the room is told `joined` with no room;
 * the runner is let go and the room is reaped. */
void ddz__room_detach(ddz_room *r);

/* Returns whether `r` is run by its owner (a competition's table). */
bool ddz__room_is_owned(const ddz_room *r);

/* Server shutting down: record a running game as aborted. */
void ddz__room_abort(ddz_room *r);

/* Frees a room: timers cancelled, engines stopped, seats and watchers
 * released (players keep no pointer to it: the caller clears them). */
void ddz__room_destroy(ddz_room *r);

#endif
