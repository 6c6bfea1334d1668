/* evloop.c - an lws context on libev's epoll, or on lws's poll() (evloop.h).
 *
 * libev is linked rather than dlopen()ed: its header gives the types, and
 * the package (libev-dev, deploy/deps.sh) is a build dependency like the
 * others. What may be missing at run time is lws's plugin, which lws loads
 * itself; that is the case the fallback is for. */
#include "service/net/evloop.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often lws is made to look at its own timers on libev (see kick). */
#define KICK_S 0.1

/* lws 4.1.6's libev plugin looks at lws's own timers (sul: its timeouts,
 * PING/PONG checks, closing what lws_set_timeout(LWS_TO_KILL_ASYNC)
 * marked) only in an ev_idle callback it starts after a descriptor event,
 * and in one ev_timer that it re-arms with ev_timer_set() while that timer
 * may still be active, which libev ignores (the heap keeps the old time).
 * So a timer lws schedules while the loop is quiet waits for the next
 * descriptor event, or for the earlier, longer deadline: measured, lws's
 * 10 s timeout for a connection that sends no request fired after 14.2 s.
 * This ev_timer of ours wakes lws through its own event pipe
 * (lws_cancel_service()) every KICK_S, which runs that idle callback: the
 * same timeout then fires after 10.02 s, for ten cheap wakeups a second. */
typedef struct kick {
    ev_timer w;
    struct lws_context *ctx;
} kick;

static void kick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop, (void)revents;
    kick *k = (kick *)w;
    lws_cancel_service(k->ctx);
}

int ddz_evloop_parse(const char *s, ddz_evloop_kind *out)
{
    static const char *const names[] = {"auto", "epoll", "poll"};
    for (int k = 0; k < 3; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = (ddz_evloop_kind)k;
            return 0;
        }
    return -1;
}

struct lws_context *ddz_evloop_create(ddz_evloop *e, struct lws_context_creation_info *info,
                                      ddz_evloop_kind kind, const char *who)
{
    memset(e, 0, sizeof *e);
    uint64_t options = info->options;
    void **foreign = info->foreign_loops;
    if (kind != DDZ_EVLOOP_POLL) {
        /* NOSIGMASK: libev leaves the signal mask alone (our handlers only
         * set a flag and wake lws with lws_cancel_service()) */
        struct ev_loop *loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOSIGMASK);
        if (loop) {
            void *loops[1] = {loop};
            info->options |= LWS_SERVER_OPTION_LIBEV;
            info->foreign_loops = loops;
            e->ctx = lws_create_context(info);
            info->options = options;
            info->foreign_loops = foreign;
            kick *k = e->ctx ? malloc(sizeof *k) : NULL;
            if (k) {
                e->ev = loop;
                e->kick = k;
                k->ctx = e->ctx;
                ev_timer_init(&k->w, kick_cb, KICK_S, KICK_S);
                ev_timer_start(loop, &k->w);
            } else {
                if (e->ctx)
                    lws_context_destroy(e->ctx);
                e->ctx = NULL;
                ev_loop_destroy(loop);
            }
        }
        if (e->ctx || kind == DDZ_EVLOOP_EPOLL) {
            if (!e->ctx)
                fprintf(stderr, "%s: the epoll event loop (lws's libev plugin) cannot start\n",
                        who);
            return e->ctx;
        }
    }
    e->ctx = lws_create_context(info);
    if (e->ctx && kind == DDZ_EVLOOP_AUTO)
        fprintf(stderr,
                "%s: warning: the epoll event loop (lws's libev plugin, package "
                "libwebsockets-evlib-ev) cannot start; using poll()\n",
                who);
    return e->ctx;
}

int ddz_evloop_run_once(ddz_evloop *e)
{
    if (e->ev) {
        ev_run(e->ev, EVRUN_ONCE);
        return 0;
    }
    return lws_service(e->ctx, 0) < 0 ? -1 : 0;
}

const char *ddz_evloop_name(const ddz_evloop *e)
{
    return e->ev ? "epoll" : "poll";
}

void ddz_evloop_destroy(ddz_evloop *e)
{
    if (e->kick)
        ev_timer_stop(e->ev, &((kick *)e->kick)->w);
    if (e->ctx)
        lws_context_destroy(e->ctx);
    if (e->ev)
        ev_loop_destroy(e->ev);
    free(e->kick);
    e->ctx = NULL;
    e->ev = NULL;
    e->kick = NULL;
}
