/* timer_heap.h - a binary min-heap of armed ddz_timers (service/table/
 * loop.h), ordered by due time and then by arming order: the lws loop's
 * timers (service/net/lws_loop.c), and the load test's actions waiting
 * for their send time (service/loadtest/loadtest.c), which embed a
 * ddz_timer as the heap's entry.
 *
 * lws's own timers (sul) are a sorted linked list: arming one walks the
 * list, O(n) per re-armed room clock, and with a foreign libev loop lws
 * 4.1.6 fires them late. Here a timer's slot is kept in the timer itself
 * (heap_idx), so arming, re-arming and disarming any timer, top or middle,
 * is O(log n), and the heap's array of pointers only grows by doubling:
 * arming allocates nothing once it has held as many timers before.
 */
#ifndef DDZ_TIMER_HEAP_H
#define DDZ_TIMER_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "service/table/loop.h"

typedef struct ddz_theap {
    ddz_timer **v;     /* v[0] is due first */
    uint32_t n, cap;   /* armed, room */
    uint64_t next_seq; /* the next arming's tie-break */
} ddz_theap;

/* An empty heap; nothing to free until a push. */
#define DDZ_THEAP_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

/* Makes room for `n` timers at least, so that arming up to that many
 * never allocates (nor fails). Returns 0, or DDZ_ENOMEM (the heap is left
 * as it was). */
int ddz_theap_reserve(ddz_theap *h, uint32_t n);

/* Arms `t` at `due_us` (re-arming moves it if it is in `h` already: its
 * `armed` flag says so). Returns 0, or DDZ_ENOMEM if the array could not
 * grow (then `t` is left as it was). */
int ddz_theap_push(ddz_theap *h, ddz_timer *t, int64_t due_us);

/* Takes `t` out of `h` if it is armed there; clears `armed`. Never fails. */
void ddz_theap_remove(ddz_theap *h, ddz_timer *t);

/* Returns the timer due first, NULL if none. */
static inline ddz_timer *ddz_theap_top(const ddz_theap *h)
{
    return h->n ? h->v[0] : NULL;
}

/* Takes out and returns the timer due first if it is due at `now_us` and
 * was armed before the arming numbered `before_seq` (so that a callback
 * re-arming its timer for "now" does not run again in the same turn);
 * clears its `armed`. Returns NULL if there is none. */
ddz_timer *ddz_theap_pop_due(ddz_theap *h, int64_t now_us, uint64_t before_seq);

/* Frees the array; armed timers are forgotten (disarmed). */
void ddz_theap_free(ddz_theap *h);

#endif
