/* runner.h - drives one table with three seats on an event loop.
 *
 * The game flow exists once, here: the table's events go to the seats that
 * may know them, the seat to move is asked, an answer goes back to the
 * table, a program's illegal answer or failure is charged as a fault, the
 * clock charges a timeout, a request the table moved past is cancelled,
 * and each finished game's record (with the seats' names) is handed to the
 * driver. Drivers add only what is theirs: `ddz match` its records file
 * and totals table, a room its spectators, lobby and storage, a tournament
 * its pairings.
 *
 * Re-entrancy: a seat may answer or fail inside any call (an engine that
 * cannot start fails while the game is being dealt); the runner queues
 * what that causes and delivers it in order from the outermost call.
 */
#ifndef DDZ_RUNNER_H
#define DDZ_RUNNER_H

#include "service/table/seat.h"

typedef struct ddz_runner ddz_runner;

typedef struct ddz_runner_cb {
    void *ctx;
    /* Every event after the seats have had it (spectators, logs, the
     * driver's own state). NULL = none. */
    void (*event)(void *ctx, const ddz_ev *ev);
    /* A game ended (also by a fault); `rec` carries the seats' names. */
    void (*over)(void *ctx, const ddz_record *rec);
    /* A line for the log about `player`'s seat; `warn` marks a problem. */
    void (*log)(void *ctx, int player, bool warn, const char *msg);
    /* How long hosted AIs wait before acting; NULL = no wait. */
    int64_t (*think_delay_us)(void *ctx);
    /* `player`'s request is overdue. Returns true if the driver answered
     * it for the seat (through ddz_runner_act(), with the seat's own
     * ddz_seat: a casual room's first timeout, spec §14), or seated someone
     * else to answer it (a casual room's hosted AI in custody): the
     * request then gets a fresh time limit and is asked of the new seat.
     * Either way no timeout is charged. NULL or false: the timeout fault. */
    bool (*timeout)(void *ctx, int player);
} ddz_runner_cb;

/* Creates a runner on `loop` with no series and no seats. Returns NULL on
 * allocation failure. */
ddz_runner *ddz_runner_create(ddz_loop *loop, const ddz_runner_cb *cb);

/* Begins a new series under `cfg` (totals reset, no game running). Returns
 * 0, DDZ_EPHASE while a game runs, or DDZ_EINVAL for a bad cfg. */
int ddz_runner_series(ddz_runner *r, const ddz_table_cfg *cfg);

/* Places `s` (ownership passes to the runner; NULL leaves the seat empty)
 * for `player`, closing the seat it replaces. A request already open for
 * that player is not asked of the new seat: see ddz_runner_reask. */
void ddz_runner_seat(ddz_runner *r, int player, ddz_seat *s);

/* Asks `player`'s seat the request open for it, if any (a hosted AI that
 * just took over must answer it; a person who came back is sent a state
 * snapshot instead). */
void ddz_runner_reask(ddz_runner *r, int player);

/* Takes `player`'s seat back without closing it (the caller owns it
 * again); the seat is left empty. Returns the seat or NULL. */
ddz_seat *ddz_runner_unseat(ddz_runner *r, int player);

/* Returns the seat of `player`, or NULL. */
ddz_seat *ddz_runner_seat_of(const ddz_runner *r, int player);

/* Starts the next game of the series now. Returns 0, DDZ_EPHASE (a game
 * runs, the series is over), DDZ_EINVAL (a seat is empty) or DDZ_ESEED. */
int ddz_runner_start(ddz_runner *r);

/* `s`'s player answers `seq` (the host's act, for drivers that receive
 * answers themselves). Returns the table's verdict; an illegal answer from
 * a program is charged (spec §6). */
int ddz_runner_act(ddz_runner *r, ddz_seat *s, int action, uint32_t seq, int bid, ddz_cards cards);

/* Charges `player` with fault `kind` if a game is running (the grace of a
 * dropped player ran out). Returns 0 or DDZ_EPHASE. */
int ddz_runner_fault(ddz_runner *r, int player, int kind, const char *why);

/* Sets `player`'s auto-pass (spec §4) from the next request on. */
void ddz_runner_set_autopass(ddz_runner *r, int player, bool on);

/* Abandons a running game without scoring it; `rec` (may be NULL)
 * receives its record so far with the names. Returns 0 or DDZ_EPHASE. */
int ddz_runner_abort(ddz_runner *r, ddz_record *rec);

/* Returns true when no game runs and every seat is idle (engines have
 * acknowledged the end): the next game may start. */
bool ddz_runner_idle(const ddz_runner *r);

/* Returns the table (read only: inputs go through the runner). */
const ddz_table *ddz_runner_table(const ddz_runner *r);

/* Copies the record of the current or last game with the names of the
 * seats now seated. */
void ddz_runner_record(const ddz_runner *r, ddz_record *out);

/* Closes every seat and frees the runner; NULL is fine. */
void ddz_runner_destroy(ddz_runner *r);

#endif
