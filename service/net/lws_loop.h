/* lws_loop.h - the ddz_loop interface (service/table/loop.h) on a
 * libwebsockets context, for every program whose loop is lws's: `ddz serve`
 * (its rooms' engines, AIs and clocks) and `ddz bridge` (its engine seat).
 *
 * Pipes are adopted into the context as raw file descriptors under the
 * protocol DDZ_LWS_LOOP_PROTOCOL, which the owner puts in its vhost's
 * protocol list. A watch adopts a dup() of the fd (lws closes what it
 * adopts; the owner keeps and closes its own), stops rx flow control on a
 * write end (a pipe's write end is never readable), calls back once more
 * with writable = false when the loop sees the pipe close (so the owner
 * reads the end of file), and is never freed inside its own callback's
 * wsi: unwatching marks it and lets the loop close its copy.
 *
 * Timers are not lws's (sul): those are a sorted linked list (O(n) to arm),
 * and with a foreign libev loop lws 4.1.6 fires them late, by up to a
 * second (docs/decisions.md). They are a binary min-heap (service/net/
 * timer_heap.h) behind ONE timerfd, adopted into the context like a pipe
 * and set for the heap's first timer; arming allocates nothing and costs a
 * timerfd_settime() only when the timer armed becomes the first.
 *
 * The clock is CLOCK_MONOTONIC in microseconds, the same as
 * ddz_lws_loop_now_us(), so deadlines computed from it can be shown to
 * clients as time left.
 */
#ifndef DDZ_LWS_LOOP_H
#define DDZ_LWS_LOOP_H

#include <libwebsockets.h>
#include <stdint.h>

#include "service/net/timer_heap.h"
#include "service/table/loop.h"

/* How late timers fire, counted in ddz_lws_loop (a histogram for
 * /metrics): the bounds of its buckets in microseconds, the last unbounded.
 * Tests read it instead of timing the server from outside, which on a
 * loaded machine measures the machine. */
enum { DDZ_LATE_BUCKETS = 5 };
extern const int64_t ddz_lws_loop_late_le_us[DDZ_LATE_BUCKETS - 1];

typedef struct ddz_lws_loop {
    ddz_loop base;           /* what seats, runners and rooms are given */
    struct lws_context *ctx; /* the loop */
    struct lws_vhost *vhost; /* pipes and the timerfd are adopted here */
    ddz_theap heap;          /* armed timers */
    int tfd;                 /* the timerfd, -1 if none */
    ddz_watch *tfd_watch;    /* its watch */
    int64_t programmed_us;   /* when the timerfd goes off, 0 never */
    ddz_watch *dead;         /* watches let go, their wsis to close */
    ddz_timer reap;          /* closes them */
    /* timers fired, by how late (now - due) when the loop woke for them:
     * late[i] counts those within ddz_lws_loop_late_le_us[i] and over the
     * bound before (the last: over every bound) */
    uint64_t late[DDZ_LATE_BUCKETS];
    int64_t late_sum_us; /* their lateness in all */
} ddz_lws_loop;

/* The protocol callback for adopted pipes. Do not call it yourself: list
 * DDZ_LWS_LOOP_PROTOCOL in the vhost's protocols. Returns 0. */
int ddz_lws_loop_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len);

/* The lws_protocols entry (an initializer) pipes are adopted under. */
#define DDZ_LWS_LOOP_PROTOCOL                                                                      \
    {                                                                                              \
        "ddz-pipe", ddz_lws_loop_callback, 0, 0, 0, NULL, 0                                        \
    }

/* Prepares `l` on `ctx`, adopting pipes and its timerfd into `vhost`,
 * whose protocols include DDZ_LWS_LOOP_PROTOCOL. Returns 0, or -1 if the
 * timerfd could not be created or adopted (out of descriptors or memory).
 * Every watch must be unwatched before the context is destroyed, and
 * ddz_lws_loop_fini() called before it too. */
int ddz_lws_loop_init(ddz_lws_loop *l, struct lws_context *ctx, struct lws_vhost *vhost);

/* Lets the timerfd go and forgets every timer still armed (they are
 * disarmed); a timer armed afterwards (a close callback while the context
 * is destroyed) never runs. Call before lws_context_destroy(). Never
 * fails. */
void ddz_lws_loop_fini(ddz_lws_loop *l);

/* Returns the loop's clock: monotonic microseconds. Never fails. */
int64_t ddz_lws_loop_now_us(void);

#endif
