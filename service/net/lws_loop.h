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
 * wsi: unwatching marks it and lets the loop close its copy. Timers are lws
 * sorted-usec-list entries living inside the ddz_timer, so arming one
 * allocates nothing.
 *
 * The clock is CLOCK_MONOTONIC in microseconds, the same as
 * ddz_lws_loop_now_us(), so deadlines computed from it can be shown to
 * clients as time left.
 */
#ifndef DDZ_LWS_LOOP_H
#define DDZ_LWS_LOOP_H

#include <libwebsockets.h>
#include <stdint.h>

#include "service/table/loop.h"

typedef struct ddz_lws_loop {
    ddz_loop base;           /* what seats, runners and rooms are given */
    struct lws_context *ctx; /* timers are scheduled here */
    struct lws_vhost *vhost; /* pipes are adopted here */
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

/* Prepares `l` on `ctx`, adopting pipes into `vhost`, whose protocols
 * include DDZ_LWS_LOOP_PROTOCOL. Never fails; nothing to free. Every watch
 * must be unwatched and every timer disarmed before the context is
 * destroyed. */
void ddz_lws_loop_init(ddz_lws_loop *l, struct lws_context *ctx, struct lws_vhost *vhost);

/* Returns the loop's clock: monotonic microseconds. Never fails. */
int64_t ddz_lws_loop_now_us(void);

#endif
