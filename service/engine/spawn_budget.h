/* spawn_budget.h - how many engine processes may be started a second.
 *
 * A client can make the server start processes: a one-shot Botzone bot is
 * started for every request it answers, a room with engine seats starts
 * them when its game begins. Each start costs the machine an exec and the
 * program's start-up, so starts are budgeted per second: in total, per
 * room, and per client address (docs/operations.md, "Budgets"), so that one address
 * cannot spend the server's whole budget. A budget is a token bucket:
 * `rate` tokens a second, at most `rate` held (a second's worth of burst),
 * one token per start. A start is taken from its room's, its address's and
 * the server's buckets together, or from none.
 *
 * Pure arithmetic on the caller's clock: no I/O, no allocation, no lock
 * (the loop's thread owns every bucket).
 */
#ifndef DDZ_SPAWN_BUDGET_H
#define DDZ_SPAWN_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define DDZ_SPAWN_RATE_DEFAULT 50      /* starts a second in total (--spawn-rate) */
#define DDZ_SPAWN_RATE_ROOM_DEFAULT 10 /* starts a second per room (--spawn-rate-room) */
#define DDZ_SPAWN_RATE_IP_DEFAULT 20   /* starts a second per client address (--spawn-rate-ip) */

typedef struct ddz_spawn_budget {
    int rate;      /* tokens a second and the most held; <= 0: no bound */
    double tokens; /* held at `at_us` */
    int64_t at_us; /* when `tokens` was last brought up to date */
    long taken;    /* starts allowed since init */
    long *refused; /* counts starts put off for want of this bucket's tokens; NULL = not counted */
} ddz_spawn_budget;

/* Fills `b` with a full bucket of `rate` tokens a second (<= 0: no bound)
 * as of `now_us`, counting refusals in *refused (may be NULL). */
void ddz_spawn_budget_init(ddz_spawn_budget *b, int rate, int64_t now_us, long *refused);

/* Takes one token from each of `room`, `addr` and `total` (any may be
 * NULL: no bound of that kind) if all have one at `now_us`. Returns 0 if
 * taken, or the microseconds until all will have one (> 0, nothing taken,
 * and each bucket that lacked one counts a refusal). */
int64_t ddz_spawn_budget_take(ddz_spawn_budget *room, ddz_spawn_budget *addr,
                              ddz_spawn_budget *total, int64_t now_us);

/* Takes one token from each of `room`, `addr` and `total` (any may be
 * NULL) WHETHER OR NOT they hold one: for a start that does not wait (a
 * CAAI engine's, once per game at most, whose room was admitted only while
 * `addr` and `total` held a token). A bucket may owe up to one second's
 * worth, which the starts that do wait then wait for. Returns nothing;
 * never fails. */
void ddz_spawn_budget_charge(ddz_spawn_budget *room, ddz_spawn_budget *addr,
                             ddz_spawn_budget *total, int64_t now_us);

/* Returns true if `b` (NULL: no bound) holds at least one token at
 * `now_us`; takes nothing, counts nothing. */
bool ddz_spawn_budget_has(ddz_spawn_budget *b, int64_t now_us);

/* Returns the tokens spent out of `b`'s burst at `now_us` (its rate minus
 * what it holds, rounded down): what /metrics shows as used. 0 if unbounded. */
long ddz_spawn_budget_used(ddz_spawn_budget *b, int64_t now_us);

#endif
