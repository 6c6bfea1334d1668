/* loop_poll.h - the ddz_loop interface on poll(2), for `ddz match` and the
 * benchmarks: a handful of pipes and timers, one thread. */
#ifndef DDZ_LOOP_POLL_H
#define DDZ_LOOP_POLL_H

#include "service/table/loop.h"

/* Returns a new loop, or NULL on allocation failure. */
ddz_loop *ddz_poll_loop_create(void);

/* Runs due timers and, if none was due, waits at most `max_wait_ms` for a
 * watched pipe or the next timer, then handles what happened. Returns 0,
 * or DDZ_EIO if poll(2) failed for another reason than a signal. */
int ddz_poll_loop_once(ddz_loop *l, int max_wait_ms);

/* Frees the loop; every watch must be gone and every timer disarmed.
 * NULL is fine. */
void ddz_poll_loop_destroy(ddz_loop *l);

#endif
