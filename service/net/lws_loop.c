/* lws_loop.c - ddz_loop on libwebsockets' event loop: pipes are adopted
 * raw descriptors, timers are lws sorted-usec-list entries. */
#include "service/net/lws_loop.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(lws_sorted_usec_list_t) <= sizeof(((ddz_timer *)0)->impl),
               "ddz_timer must hold an lws timer");

int64_t ddz_lws_loop_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- pipes ---- */

/* A watched pipe end. The wsi's opaque user data points here until one of
 * the two lets go: the owner (unwatch: the struct is freed, the wsi killed
 * from the loop) or the loop (the pipe closed: the owner is told, and the
 * struct lives on until it unwatches). */
struct ddz_watch {
    struct lws *wsi; /* NULL once the loop closed it */
    ddz_watch_cb cb; /* NULL once the owner let go */
    void *ctx;
};

int ddz_lws_loop_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len)
{
    ddz_watch *w = lws_get_opaque_user_data(wsi);
    (void)user, (void)in, (void)len;
    switch (reason) {
    case LWS_CALLBACK_RAW_RX_FILE:
        if (w && w->cb)
            w->cb(w->ctx, false);
        return 0;
    case LWS_CALLBACK_RAW_WRITEABLE_FILE:
        if (w && w->cb)
            w->cb(w->ctx, true);
        return 0;
    case LWS_CALLBACK_RAW_CLOSE_FILE:
        if (!w)
            return 0;
        lws_set_opaque_user_data(wsi, NULL);
        w->wsi = NULL;
        if (w->cb)
            w->cb(w->ctx, false); /* let the owner read the end of file */
        else
            free(w);
        return 0;
    default:
        return 0;
    }
}

static ddz_watch *watch(ddz_loop *l, int fd, bool for_write, ddz_watch_cb cb, void *ctx)
{
    ddz_lws_loop *ll = (ddz_lws_loop *)l;
    ddz_watch *w = calloc(1, sizeof *w);
    int copy = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
    if (!w || copy < 0) {
        free(w);
        if (copy >= 0)
            close(copy);
        return NULL;
    }
    w->cb = cb;
    w->ctx = ctx;
    lws_adopt_desc_t desc = {
        .vh = ll->vhost, .type = LWS_ADOPT_RAW_FILE_DESC, .vh_prot_name = "ddz-pipe", .opaque = w};
    desc.fd.filefd = copy;
    w->wsi = lws_adopt_descriptor_vhost_via_info(&desc);
    if (!w->wsi) {
        close(copy);
        free(w);
        return NULL;
    }
    if (for_write)
        lws_rx_flow_control(w->wsi, 0); /* a pipe's write end is never readable */
    return w;
}

static void want_write(ddz_watch *w)
{
    if (w && w->wsi)
        lws_callback_on_writable(w->wsi);
}

/* Stops the callbacks at once; the wsi is closed from the loop, never
 * inside the callback that may be running now. */
static void unwatch(ddz_watch *w)
{
    if (!w)
        return;
    w->cb = NULL;
    if (w->wsi) {
        lws_set_opaque_user_data(w->wsi, NULL);
        lws_set_timeout(w->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
    }
    free(w);
}

/* ---- timers ---- */

static void on_sul(lws_sorted_usec_list_t *sul)
{
    ddz_timer *t = (ddz_timer *)((char *)sul - offsetof(ddz_timer, impl));
    t->armed = false;
    t->cb(t);
}

static void arm(ddz_loop *l, ddz_timer *t, int64_t delay_us)
{
    t->armed = true;
    t->due_us = ddz_lws_loop_now_us() + delay_us;
    lws_sul_schedule(((ddz_lws_loop *)l)->ctx, 0, (lws_sorted_usec_list_t *)t->impl, on_sul,
                     delay_us);
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
    return ddz_lws_loop_now_us();
}

static const ddz_loop_ops lws_loop_ops = {watch, want_write, unwatch, arm, disarm, now_us};

void ddz_lws_loop_init(ddz_lws_loop *l, struct lws_context *ctx, struct lws_vhost *vhost)
{
    *l = (ddz_lws_loop){.base = {.ops = &lws_loop_ops}, .ctx = ctx, .vhost = vhost};
}
