/* lws_loop.c - ddz_loop on libwebsockets' event loop: pipes are adopted
 * raw descriptors, timers a min-heap behind one adopted timerfd. */
#include "service/net/lws_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int64_t ddz_lws_loop_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- pipes ---- */

/* A watched pipe end. The wsi's opaque user data points here until one of
 * the two lets go: the owner (unwatch: the watch goes on the loop's dead
 * list, and its wsi is closed and the struct freed from a timer of the
 * loop) or the loop (the pipe closed: the owner is told, and the struct
 * lives on until it unwatches). */
struct ddz_watch {
    struct lws *wsi; /* NULL once the loop closed it */
    ddz_watch_cb cb; /* NULL once the owner let go */
    void *ctx;
    ddz_lws_loop *loop; /* whose dead list it goes on */
    ddz_watch *next;    /* on the dead list */
};

static void arm(ddz_loop *l, ddz_timer *t, int64_t delay_us);

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
        /* else it is on the dead list, freed from there */
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
    w->loop = ll;
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

/* Closes the wsis of the watches let go and frees them: from the timerfd's
 * callback, so never inside the callback of a wsi it closes. (lws's own
 * way, lws_set_timeout(LWS_TO_KILL_ASYNC), is an lws timer: with the libev
 * loop of lws 4.1.6 those pipes stayed open for good.) */
static void reap_dead(ddz_timer *t)
{
    ddz_lws_loop *ll = (ddz_lws_loop *)((char *)t - offsetof(ddz_lws_loop, reap));
    ddz_watch *w = ll->dead;
    ll->dead = NULL;
    while (w) {
        ddz_watch *next = w->next;
        struct lws *wsi = w->wsi;
        free(w);
        if (wsi) {
            lws_set_opaque_user_data(wsi, NULL);
            lws_set_timeout(wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_SYNC);
        }
        w = next;
    }
}

/* Stops the callbacks at once; the wsi is closed from the loop, never
 * inside the callback that may be running now. */
static void unwatch(ddz_watch *w)
{
    if (!w)
        return;
    w->cb = NULL;
    ddz_lws_loop *ll = w->loop;
    if (!w->wsi || ll->tfd < 0) {
        /* closed already, or the loop is going (the context closes it) */
        if (w->wsi)
            lws_set_opaque_user_data(w->wsi, NULL);
        free(w);
        return;
    }
    w->next = ll->dead;
    ll->dead = w;
    ll->reap.cb = reap_dead;
    if (!ll->reap.armed)
        arm(&ll->base, &ll->reap, 0);
}

/* ---- timers ---- */

const int64_t ddz_lws_loop_late_le_us[DDZ_LATE_BUCKETS - 1] = {1000, 10000, 100000, 1000000};

/* Sets the timerfd to go off at `at_us` (0: never). */
static void program(ddz_lws_loop *ll, int64_t at_us)
{
    struct itimerspec its = {0};
    if (at_us > 0) {
        its.it_value.tv_sec = at_us / 1000000;
        its.it_value.tv_nsec = (at_us % 1000000) * 1000 + 1; /* never 0: that disarms */
    }
    if (timerfd_settime(ll->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        ll->programmed_us = at_us;
}

/* The timerfd went off: every timer due runs, in due order; the timerfd is
 * set again for the next. A timer a callback arms for "now" runs in the
 * next turn (at once), not in this one, so one that re-arms itself with no
 * delay cannot hold the loop. */
static void on_timerfd(void *ctx, bool writable)
{
    ddz_lws_loop *ll = ctx;
    (void)writable;
    uint64_t n;
    if (read(ll->tfd, &n, sizeof n) < 0 && errno != EAGAIN && errno != EINTR)
        return;
    ll->programmed_us = 0;
    int64_t now = ddz_lws_loop_now_us();
    uint64_t turn = ll->heap.next_seq;
    ddz_timer *t;
    while ((t = ddz_theap_pop_due(&ll->heap, now, turn))) {
        int64_t late = now - t->due_us;
        int b = 0;
        while (b < DDZ_LATE_BUCKETS - 1 && late > ddz_lws_loop_late_le_us[b])
            b++;
        ll->late[b]++;
        ll->late_sum_us += late;
        t->cb(t);
    }
    ddz_timer *top = ddz_theap_top(&ll->heap);
    if (top)
        program(ll, top->due_us);
}

static void arm(ddz_loop *l, ddz_timer *t, int64_t delay_us)
{
    ddz_lws_loop *ll = (ddz_lws_loop *)l;
    if (ll->tfd < 0) {
        t->armed = false; /* after ddz_lws_loop_fini(): the loop is going away */
        return;
    }
    if (ddz_theap_push(&ll->heap, t, ddz_lws_loop_now_us() + delay_us) < 0) {
        /* a lost timer would stall a room for good: a few pointers more
         * could not be had, so nothing else will work either */
        fprintf(stderr, "ddz: out of memory for a timer\n");
        abort();
    }
    /* the timerfd is only set again when this one goes before what it is
     * set for; a disarmed top leaves it early, which costs one wakeup */
    if (ddz_theap_top(&ll->heap) == t && (!ll->programmed_us || t->due_us < ll->programmed_us))
        program(ll, t->due_us);
}

static void disarm(ddz_loop *l, ddz_timer *t)
{
    ddz_theap_remove(&((ddz_lws_loop *)l)->heap, t);
}

static int64_t now_us(ddz_loop *l)
{
    (void)l;
    return ddz_lws_loop_now_us();
}

static const ddz_loop_ops lws_loop_ops = {watch, want_write, unwatch, arm, disarm, now_us};

int ddz_lws_loop_init(ddz_lws_loop *l, struct lws_context *ctx, struct lws_vhost *vhost)
{
    *l = (ddz_lws_loop){.base = {.ops = &lws_loop_ops},
                        .ctx = ctx,
                        .vhost = vhost,
                        .heap = DDZ_THEAP_INIT,
                        .tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)};
    if (l->tfd < 0)
        return -1;
    l->tfd_watch = watch(&l->base, l->tfd, false, on_timerfd, l);
    if (!l->tfd_watch) {
        close(l->tfd);
        l->tfd = -1;
        return -1;
    }
    return 0;
}

void ddz_lws_loop_fini(ddz_lws_loop *l)
{
    if (l->tfd >= 0)
        close(l->tfd);
    l->tfd = -1;
    unwatch(l->tfd_watch);
    l->tfd_watch = NULL;
    for (ddz_watch *w = l->dead, *next; w; w = next) {
        next = w->next;
        if (w->wsi)
            lws_set_opaque_user_data(w->wsi, NULL); /* the context closes it */
        free(w);
    }
    l->dead = NULL;
    ddz_theap_free(&l->heap);
}
