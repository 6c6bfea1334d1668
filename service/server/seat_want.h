/* seat_want.h - what seat a table wants, as a competition (host.h) and the
 * server's own seating (seating.h) both say it: a type, nothing to run. */
#ifndef DDZ_SEAT_WANT_H
#define DDZ_SEAT_WANT_H

#include <stdbool.h>
#include <stdint.h>

#include "service/engine/spawn_budget.h"
#include "service/server/player.h"

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

#endif
