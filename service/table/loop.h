/* loop.h - what seat adapters and table drivers need of an event loop.
 *
 * An engine process has pipes to watch and acknowledgements to time; a
 * hosted AI acts from a timer, never inside the call that asked it; a table
 * has a clock. `ddz match` runs them on a poll(2) loop (service/match/
 * loop_poll.c), `ddz serve` and `ddz bridge` on libwebsockets' loop
 * (service/net/lws_loop.c): the adapters are written once against this
 * interface, the way redis keeps ae_epoll.c and ae_kqueue.c behind ae.h.
 *
 * Timers are embedded in the object they belong to, so arming one
 * allocates nothing (the lws backend keeps them in a binary min-heap of
 * pointers, service/net/timer_heap.h, that only grows by doubling); a disarmed or never-armed timer
 * may be disarmed again. Callbacks run on the loop's thread, never inside the call that armed or
 * watched.
 */
#ifndef DDZ_LOOP_H
#define DDZ_LOOP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ddz_loop ddz_loop;
typedef struct ddz_timer ddz_timer;
typedef struct ddz_watch ddz_watch;

struct ddz_timer {
    void (*cb)(ddz_timer *t); /* runs on the loop when the timer is due */
    bool armed;               /* set while armed, cleared before cb runs */
    int64_t due_us;           /* when it is due (loop's monotonic clock) */
    ddz_timer *next;          /* the poll backend's list link */
    uint64_t seq;             /* the heap backend's tie-break: arming order */
    uint32_t heap_idx;        /* the heap backend's slot while armed */
};

/* `fd` is readable (writable = false) or writable (true); after the pipe
 * closes it runs once more with writable = false so the owner reads EOF. */
typedef void (*ddz_watch_cb)(void *ctx, bool writable);

typedef struct ddz_loop_ops {
    /* Watches `fd` (a pipe end). Returns the watch, or NULL if the loop
     * refused it (out of memory, too many descriptors). */
    ddz_watch *(*watch)(ddz_loop *l, int fd, bool for_write, ddz_watch_cb cb, void *ctx);
    /* Asks for one writable callback. */
    void (*want_write)(ddz_watch *w);
    /* Stops the callbacks at once; NULL is fine. */
    void (*unwatch)(ddz_watch *w);
    /* Arms `t` to run `delay_us` from now (re-arming moves it). */
    void (*arm)(ddz_loop *l, ddz_timer *t, int64_t delay_us);
    /* Disarms `t` if armed. */
    void (*disarm)(ddz_loop *l, ddz_timer *t);
    /* Monotonic microseconds. */
    int64_t (*now_us)(ddz_loop *l);
} ddz_loop_ops;

struct ddz_loop {
    const ddz_loop_ops *ops;
};

static inline int64_t ddz_loop_now_us(ddz_loop *l)
{
    return l->ops->now_us(l);
}

static inline void ddz_loop_arm(ddz_loop *l, ddz_timer *t, void (*cb)(ddz_timer *),
                                int64_t delay_us)
{
    t->cb = cb;
    l->ops->arm(l, t, delay_us < 0 ? 0 : delay_us);
}

static inline void ddz_loop_disarm(ddz_loop *l, ddz_timer *t)
{
    if (t->armed)
        l->ops->disarm(l, t);
}

#endif
