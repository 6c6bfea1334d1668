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
 * run-once jobs on a cluster (lead locks). What it gives: a `ddz_plugin`,
 * whose callbacks the host calls where a player enlists or is forgotten,
 * /metrics is written, a lock moves and the server stops.
 *
 * Everything here runs ON THE LOOP. */
#ifndef DDZ_HOST_H
#define DDZ_HOST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/msg.h"
#include "rules/record.h"
#include "service/cluster/lead.h"
#include "service/engine/spawn_budget.h"
#include "service/server/http_routes.h"
#include "service/server/player.h"
#include "service/server/server.h"
#include "service/store/store.h"
#include "service/table/loop.h"
#include "service/table/runner.h"

/* The host: the server's context, opaque to a competition. */
typedef struct ddz_srv ddz_host;

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
void ddz_host_table_event(ddz_room *t, const ddz_tev *ev);

/* A game of the table ended with `rec`: stored and announced. Returns the
 * game's id in the store, or 0 when it could not be queued. */
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

/* ---- seats ---- */

/* What seat a table wants. Either `spec` (a program) or `player` (a seat for
 * a player who may not be here). */
typedef struct ddz_seat_want {
    const char *spec;              /* "ai:NAME", "engine:NAME", and with allow_exec "exec:CMD" or
                                      "botzone:CMD"; NULL: the seat of `player` */
    ddz_player *player;            /* spec NULL: its own seat when connected, else an absent seat */
    const char *name;              /* spec NULL: the absent seat's name (the participant's) */
    bool charge_at_once;           /* an absent seat is charged a crash when asked (the ladder:
                                      a deal does not wait), else by the clock (a tournament) */
    bool allow_exec;               /* the operator's own list (a tournament's players file) */
    bool ai_budget;                /* a client's room: a hosted AI counts against its budget,
                                      and its thinking against its key's (think.h) */
    const char *think_key;         /* whose thinking a hosted AI's is (think.h): a client's
                                      room's owner address, a competition's own key; NULL =
                                      "?" in a client's room, else "(server)" */
    int time_ms;                   /* the table's time per action */
    int ai_budget_ms;              /* a hosted AI's time per decision; 0 = the AI's default */
    uint64_t ai_seed;              /* a hosted AI's random stream; 0 = a fresh random one */
    const char *log_name;          /* an engine's stderr goes to DIR/LOG_NAME.stderr.log under
                                      --engine-log-dir; NULL = discarded */
    ddz_spawn_budget *spawns_room; /* the room's engine start budget; NULL = none */
    ddz_spawn_budget *spawns_addr; /* its creator's address's (ddz__budget_addr_spawns);
                                      NULL = none */
} ddz_seat_want;

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

/* Microseconds between two looks at whether a table's players have been
 * told the last game's end (ddz_host_settled(), ddz__conn_settled()) before
 * the next is dealt: a commit's time while the database answers,
 * --db-timeout at most once when it stops answering. */
#define DDZ_SETTLE_POLL_US 20000

/* ---- what else the host offers ---- */

/* Registers `fn` for `path` (static; with `prefix`, every path under it):
 * the handler is given the host as its `srv`. Call before the server
 * runs (from ddz_plugin.create). Returns 0 or what ddz__http_route_add()
 * returns (DDZ_ENOMEM: the table is full, DDZ_EINVAL: a bad path). */
int ddz_host_route_add(ddz_host *h, const char *path, bool prefix, ddz_http_handler fn);

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

/* ---- run-once jobs (several nodes: service/cluster/lead.h) ---- */

/* Asks for the lock of job `name` (copied), which one node holds at a
 * time. Call from ddz_plugin.create. Returns its index for
 * ddz_host_lead_state(), DDZ_EINVAL on one node (no locks: everything runs
 * here) or DDZ_ENOMEM when DDZ_LEAD_JOBS are asked already. */
int ddz_host_lead_want(ddz_host *h, const char *name);

/* Fills `out` with job `job`'s state as the loop last saw it. Returns
 * false on one node (nothing filled). */
bool ddz_host_lead_state(ddz_host *h, int job, ddz_lead_job *out);

/* ---- plug-ins ---- */

/* A competition the host runs. Every callback but create may be NULL and
 * gets create()'s result as `self`. */
typedef struct ddz_plugin {
    const char *kind; /* what `enlist` names ("tournament", "ladder") */
    /* Before the loop: its state, its routes and lead jobs. Returns the
     * state, or NULL with a one-line reason in `err`. */
    void *(*create)(ddz_host *h, char *err, size_t errlen);
    /* After the loop, the store and the locks exist. Returns 0, or -1
     * with a one-line reason in `err` (the server does not start). */
    int (*start)(void *self, char *err, size_t errlen);
    /* Whether an `enlist` naming no competition is this one's. */
    bool (*takes_default)(void *self);
    /* `p` asked to enlist (`q`, for answers): answered here. */
    void (*enlist)(void *self, ddz_player *p, const ddz_req *q);
    /* The host frees enlisted player `p`: forget it. */
    void (*forget)(void *self, ddz_player *p);
    /* A lead lock moved, a wake (ddz_host_wake()), or a tick: look again.
     * Several nodes only. */
    void (*poll)(void *self);
    /* ON THE LEAD THREAD, several nodes only: work for the jobs it wants,
     * with the lead session (lead.h's ddz_lead_cfg.work: nothing kept, no
     * transaction left open); jobs[i] is ddz_host_lead_want()'s i. */
    void (*lead_work)(void *self, PGconn *pg, const ddz_lead_job *jobs, int njobs);
    /* Its lines of /metrics (Prometheus text). */
    void (*metrics)(void *self, FILE *f);
    /* The server stops: end its tables (their games were recorded as
     * aborted first). */
    void (*stop)(void *self);
    /* Frees it (after stop). */
    void (*destroy)(void *self);
} ddz_plugin;

#define DDZ_HOST_PLUGINS 4 /* plug-ins one server runs */

#endif
