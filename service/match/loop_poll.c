/* loop_poll.c - ddz_loop on poll(2): watches in a list, timers in a list
 * (a table has at most a dozen of each, so lists beat anything cleverer). */
#include "service/match/loop_poll.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "rules/error.h"

struct ddz_watch {
    int fd;
    bool for_write, want, dead;
    ddz_watch_cb cb;
    void *ctx;
    ddz_watch *next;
};

typedef struct poll_loop {
    ddz_loop base;
    ddz_watch *watches;
    ddz_timer *timers; /* armed timers, unsorted */
} poll_loop;

/* The coarse clock (a few ms of resolution) is plenty for time limits of
 * seconds and costs a fraction of the precise one, which a table reads on
 * every action: at 60,000 games/s in-process that was 5% of the time. */
static int64_t now_us(ddz_loop *l)
{
    (void)l;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static ddz_watch *watch(ddz_loop *l, int fd, bool for_write, ddz_watch_cb cb, void *ctx)
{
    poll_loop *pl = (poll_loop *)l;
    ddz_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    *w = (ddz_watch){.fd = fd, .for_write = for_write, .cb = cb, .ctx = ctx, .next = pl->watches};
    pl->watches = w;
    return w;
}

static void want_write(ddz_watch *w)
{
    if (w)
        w->want = true;
}

/* Marked now, freed by the loop: the caller may be inside a callback that
 * the loop is still iterating over. */
static void unwatch(ddz_watch *w)
{
    if (w)
        w->dead = true;
}

static void disarm(ddz_loop *l, ddz_timer *t)
{
    poll_loop *pl = (poll_loop *)l;
    for (ddz_timer **p = &pl->timers; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    t->armed = false;
}

static void arm(ddz_loop *l, ddz_timer *t, int64_t delay_us)
{
    poll_loop *pl = (poll_loop *)l;
    if (t->armed)
        disarm(l, t);
    t->due_us = now_us(l) + delay_us;
    t->armed = true;
    t->next = pl->timers;
    pl->timers = t;
}

static const ddz_loop_ops poll_ops = {watch, want_write, unwatch, arm, disarm, now_us};

ddz_loop *ddz_poll_loop_create(void)
{
    poll_loop *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    pl->base.ops = &poll_ops;
    return &pl->base;
}

/* Runs every timer due at `now`; returns how many ran. */
static int run_timers(poll_loop *pl, int64_t now)
{
    int ran = 0;
    for (;;) {
        ddz_timer *due = NULL;
        for (ddz_timer *t = pl->timers; t; t = t->next)
            if (t->due_us <= now) {
                due = t;
                break;
            }
        if (!due)
            return ran;
        disarm(&pl->base, due);
        due->cb(due);
        ran++;
    }
}

static void reap(poll_loop *pl)
{
    for (ddz_watch **p = &pl->watches; *p;) {
        ddz_watch *w = *p;
        if (w->dead) {
            *p = w->next;
            free(w);
        } else {
            p = &w->next;
        }
    }
}

int ddz_poll_loop_once(ddz_loop *l, int max_wait_ms)
{
    poll_loop *pl = (poll_loop *)l;
    if (run_timers(pl, now_us(l)) > 0) {
        reap(pl);
        return 0;
    }
    enum { MAXFD = 16 };
    struct pollfd fds[MAXFD];
    ddz_watch *who[MAXFD];
    nfds_t n = 0;
    for (ddz_watch *w = pl->watches; w && n < MAXFD; w = w->next) {
        if (w->dead || (w->for_write && !w->want))
            continue;
        fds[n] = (struct pollfd){.fd = w->fd, .events = w->for_write ? POLLOUT : POLLIN};
        who[n++] = w;
    }
    int64_t wait = (int64_t)max_wait_ms * 1000, now = now_us(l);
    for (ddz_timer *t = pl->timers; t; t = t->next)
        if (t->due_us - now < wait)
            wait = t->due_us - now;
    int rc = poll(fds, n, wait <= 0 ? 0 : (int)((wait + 999) / 1000));
    if (rc < 0 && errno != EINTR)
        return DDZ_EIO;
    for (nfds_t i = 0; i < n && rc > 0; i++) {
        ddz_watch *w = who[i];
        if (!fds[i].revents || w->dead)
            continue;
        if (w->for_write)
            w->want = false;
        w->cb(w->ctx, w->for_write);
    }
    run_timers(pl, now_us(l));
    reap(pl);
    return 0;
}

void ddz_poll_loop_destroy(ddz_loop *l)
{
    if (!l)
        return;
    poll_loop *pl = (poll_loop *)l;
    reap(pl);
    for (ddz_watch *w = pl->watches, *next; w; w = next) {
        next = w->next;
        free(w);
    }
    free(pl);
}
