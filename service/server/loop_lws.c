/* loop_lws.c - ddz_loop on libwebsockets' event loop: pipes are adopted
 * raw descriptors (server.c's ddz__pipe_*), timers are lws sorted-usec-list
 * entries living inside the ddz_timer, so arming one allocates nothing. */
#include <stddef.h>

#include "service/server/srv_internal.h"

_Static_assert(sizeof(lws_sorted_usec_list_t) <= sizeof(((ddz_timer *)0)->impl),
               "ddz_timer must hold an lws timer");

static ddz_srv *srv_of(ddz_loop *l)
{
    return (ddz_srv *)((char *)l - offsetof(ddz_srv, loop));
}

static ddz_watch *watch(ddz_loop *l, int fd, bool for_write, ddz_watch_cb cb, void *ctx)
{
    return (ddz_watch *)ddz__pipe_watch(srv_of(l), fd, for_write, cb, ctx);
}

static void want_write(ddz_watch *w)
{
    if (w)
        ddz__pipe_want_write((ddz_pipe *)w);
}

static void unwatch(ddz_watch *w)
{
    ddz__pipe_close((ddz_pipe *)w);
}

static void on_sul(lws_sorted_usec_list_t *sul)
{
    ddz_timer *t = (ddz_timer *)((char *)sul - offsetof(ddz_timer, impl));
    t->armed = false;
    t->cb(t);
}

static void arm(ddz_loop *l, ddz_timer *t, int64_t delay_us)
{
    t->armed = true;
    t->due_us = ddz__now_us() + delay_us;
    lws_sul_schedule(srv_of(l)->ctx, 0, (lws_sorted_usec_list_t *)t->impl, on_sul, delay_us);
}

static void disarm(ddz_loop *l, ddz_timer *t)
{
    (void)l;
    lws_sul_cancel((lws_sorted_usec_list_t *)t->impl);
    t->armed = false;
}

static int64_t now_us(ddz_loop *l)
{
    (void)l;
    return ddz__now_us();
}

static const ddz_loop_ops lws_loop_ops = {watch, want_write, unwatch, arm, disarm, now_us};

void ddz__loop_init(ddz_srv *srv)
{
    srv->loop.ops = &lws_loop_ops;
}
