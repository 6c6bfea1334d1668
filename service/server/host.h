/* host.h - the table host as a competition sees it (host.c): the server
 * (`ddz serve`) hosts competitions as plug-ins, each in its own folder
 * (service/tourney/, service/ladder/), and they reach the server through
 * this header only, never through context.h, room.h, rooms.h, conn.h or
 * seating.h. So the server's insides can change without touching them,
 * and the room knows no competition by name: a competition's table is a
 * room "run by its owner" (room.h).
 *
 * What a competition gets: tables (a room around the competition's own
 * runner, which the host adds to its rooms and shows, whose games it
 * stores), the seats of its participants, its players' connections, HTTP
 * routes, the loop (timers), the store, the configuration, the log, and
 * run-once jobs (one leader, on one node as on several). What it gives: a `ddz_plugin`,
 * whose callbacks the host calls where a player enlists or is forgotten,
 * /metrics is written, a lock moves and the server stops.
 *
 * Everything here runs ON THE LOOP, but where it says otherwise. */
#ifndef DDZ_HOST_H
#define DDZ_HOST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/msg.h"
#include "rules/record.h"
#include "service/cluster/leader.h"
#include "service/server/http_routes.h"
#include "service/server/player.h"
#include "service/server/plugin.h"
#include "service/server/seat_want.h"
#include "service/server/server_cfg.h"
#include "service/store/store.h"
#include "service/table/loop.h"
#include "service/table/runner.h"

/* ---- tables ----
 * A table the competition runs is a room around its runner (borrowed: the
 * competition starts the games and frees the runner after closing the
 * table). */

/* Opens a table around `run` (its seats made by ddz_host_seat_make()) with
 * `opts`, shows seat s as labels[s] and seats bots[s] (NULL: none) where
 * its seat is its own, and adds it to the host's rooms (listed, watched
 * like any). Returns the table, or NULL when out of memory. */
ddz_room *ddz_host_table_open(ddz_host *h, const ddz_room_opts *opts, ddz_runner *run,
                              const char *const labels[3], ddz_player *const bots[3]);

/* An event of the table's runner: shown to who may see it. Never fails. */
void ddz_host_table_event(ddz_room *t, const ddz_ev *ev);

/* A game of the table ended with `rec`: stored (by the store's writer)
 * and announced. Returns the id the game is stored under; 0 or less when
 * it has none (the table has no runner any more). */
int64_t ddz_host_table_over(ddz_room *t, const ddz_record *rec);

/* Bot `p` came back while seat `seat` is held by an absent seat: it takes
 * the seat back. Returns true if it did; false if the seat is its own or a
 * program's already, or when out of memory. */
bool ddz_host_table_reseat(ddz_room *t, int seat, ddz_player *p);

/* The table ended: everyone in it is told so, the runner is let go (the
 * caller frees it after) and the room is reaped later. Never fails. */
void ddz_host_table_close(ddz_room *t);

/* The server or the competition stops mid-game: a running game is
 * recorded as aborted. Never fails. */
void ddz_host_table_abort(ddz_room *t);

/* Returns the table's room id (static while the table lives). */
const char *ddz_host_table_id(const ddz_room *t);

/* Returns whether the table was closed (its room is gone or going). */
bool ddz_host_table_gone(const ddz_room *t);

/* ---- seats: ddz_seat_want (seat_want.h) ---- */

/* Makes the seat `w` describes (not yet placed at a table). Returns it, or
 * NULL with *err as ddz__seat_make() (seating.h) says and `msg` a message
 * for the log. */
ddz_seat *ddz_host_seat_make(ddz_host *h, const ddz_seat_want *w, int *err, char *msg,
                             size_t msglen);

/* ---- players ----
 * A player's connection may be gone (NULL): then nothing is sent. */

/* Sends `msg` (taken) to `p`. Never fails (a full queue closes it). */
void ddz_host_send(ddz_player *p, json_t *msg);

/* Sends `p` an error `code` (a DDZ_E... code) with `message` about request
 * `q` (NULL: none). Never fails. */
void ddz_host_error(ddz_player *p, int code, const char *message, const ddz_req *q);

/* Closes `p`'s connection with the WebSocket `status` and `reason`. */
void ddz_host_close(ddz_player *p, int status, const char *reason);

/* Returns whether everything sent to `p` has been written out (true with
 * no connection): a competition waits for it before the next deal. */
bool ddz_host_settled(const ddz_player *p);

/* ---- what else the host offers ---- */

/* Registers `fn` for `path` (static; with `prefix`, every path under it):
 * the handler is given the host as its `srv`. Call before the server
 * runs (from ddz_plugin.create). Returns 0 or what ddz__http_route_add()
 * returns (DDZ_ENOMEM: the table is full, DDZ_EINVAL: a bad path). */
int ddz_host_route_add(ddz_host *h, const char *path, bool prefix, ddz_http_handler fn);

/* Registers `fn` for `path` as ddz_host_route_add() does, for the
 * `methods` of ddz__http_route_add_methods() (a body route; with
 * DDZ_HTTP_ROUTE_GET, GET and HEAD too). Returns as it. */
int ddz_host_route_add_methods(ddz_host *h, const char *path, unsigned methods,
                               ddz_http_handler fn);

/* Copies the session of request `req`'s "Authorization: Bearer S" (64
 * hex digits and a NUL) into `out`: the signed-in person who asks, for
 * the store's ddz_store_session_check(). Returns 1 (copied), 0 (no such
 * header: a guest) or -1 (a header that is no session: refuse it, 401). */
int ddz_host_bearer(ddz_http_req *req, char out[65]);

/* Returns the competition a route handler's host runs of `kind` (its
 * create()'s result), or NULL. */
void *ddz_host_plugin_self(ddz_host *h, const char *kind);

ddz_loop *ddz_host_loop(ddz_host *h);                  /* timers, on the server's loop */
ddz_store *ddz_host_store(ddz_host *h);                /* NULL before the store opens */
const ddz_server_cfg *ddz_host_cfg(const ddz_host *h); /* the server's configuration */
int64_t ddz_host_now_us(void);                         /* the loop's clock, microseconds */

/* Reserves `engines` engine seats in the host's engines budget (given back
 * by ddz_host_release()) and checks that `ais` more hosted AIs fit its AI
 * budget (they count when made). Returns 0, or DDZ_EBUSY when either is
 * spent (counted as refused; nothing reserved). */
int ddz_host_reserve(ddz_host *h, int engines, int ais);

/* Gives back `engines` engine seats of ddz_host_reserve(). */
void ddz_host_release(ddz_host *h, int engines);

/* Wakes the host's loop, which then asks every plug-in to look (its poll).
 * Safe FROM ANY THREAD. */
void ddz_host_wake(ddz_host *h);

/* What ends every wait on the database once the server stops (pg_conn.h),
 * for a competition's own PostgreSQL sessions. */
struct ddz_pg_stop *ddz_host_pg_stop(ddz_host *h);

/* A structured log line (context.h's ddz__log): `room` may be NULL. */
void ddz_host_log(ddz_host *h, const char *level, const char *room, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- run-once jobs (service/cluster/leader.h) ----
 * One node is a cluster of one: a job asked for is held here from the
 * start, for good (term 1, `solo`); on several nodes one node at a time
 * holds it (the advisory locks of service/cluster/lead.h). */

/* Asks for job `name` (copied), which one node holds at a time. Call from
 * ddz_plugin.create. Returns its index for ddz_host_lead_state(), or
 * DDZ_ENOMEM when DDZ_LEADER_JOBS are asked already. */
int ddz_host_lead_want(ddz_host *h, const char *name);

/* Returns whether this node is one of several (a node id and a
 * PostgreSQL database: leader.h's ddz_leader_clustered()), which a
 * competition needs to know for what only other nodes need (the ladder's
 * presence rows, a tournament's lease). Any time after the configuration
 * is read. */
bool ddz_host_clustered(const ddz_host *h);

/* Fills `out` with job `job`'s state as the leader last saw it. Returns
 * false before the leader starts (after the plug-ins' create) or for a
 * bad index (nothing filled). */
bool ddz_host_lead_state(ddz_host *h, int job, ddz_lead_job *out);

/* ---- plug-ins: ddz_plugin (plugin.h) ---- */

#endif
