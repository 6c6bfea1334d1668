/* mailbox.c - a FIFO between threads (mailbox.h). */
#include "service/thread/mailbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rules/error.h"

struct ddz_mailbox {
    pthread_mutex_t mu;      /* everything below */
    pthread_cond_t more;     /* an item, a poke or the close: takers and waiters */
    pthread_cond_t finished; /* items finished: ddz_mailbox_flush */
    ddz_mail *head, *tail;   /* queued, oldest first */
    size_t queued;           /* items in head..tail */
    size_t in_hand;          /* taken with ddz_mailbox_take, not yet done */
    size_t max;              /* bound on queued + in_hand; 0: none */
    uint64_t puts;           /* items ever queued */
    uint64_t done;           /* items ever finished */
    bool closed, drain, poked;
    int fd[2]; /* the news pipe (read end, write end), or -1 */
};

ddz_mailbox *ddz_mailbox_create(size_t max, bool with_fd)
{
    ddz_mailbox *mb = calloc(1, sizeof *mb);
    if (!mb)
        return NULL;
    mb->fd[0] = mb->fd[1] = -1;
    /* A pipe rather than an eventfd: a poll(2) loop reads it the same way
     * on any POSIX system. Non-blocking: a full pipe already says there
     * is news, and emptying it stops at its end. */
    if (with_fd && pipe2(mb->fd, O_CLOEXEC | O_NONBLOCK) < 0) {
        free(mb);
        return NULL;
    }
    mb->max = max;
    pthread_mutex_init(&mb->mu, NULL);
    /* the monotonic clock for ddz_mailbox_wait's timeout: a change of the
     * wall clock neither cuts it short nor stretches it */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&mb->more, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&mb->finished, NULL);
    return mb;
}

void ddz_mailbox_destroy(ddz_mailbox *mb)
{
    if (!mb)
        return;
    if (mb->fd[0] >= 0) {
        close(mb->fd[0]);
        close(mb->fd[1]);
    }
    pthread_cond_destroy(&mb->finished);
    pthread_cond_destroy(&mb->more);
    pthread_mutex_destroy(&mb->mu);
    free(mb);
}

/* Tells the descriptor's poller there is news. Caller holds mu. */
static void news(ddz_mailbox *mb)
{
    if (mb->fd[1] >= 0) {
        ssize_t w = write(mb->fd[1], "", 1);
        (void)w; /* full: it is readable already */
    }
}

/* The poller looks now: the news so far is read. Caller holds mu, so a put
 * after this writes again. */
static void news_read(ddz_mailbox *mb)
{
    char buf[64];
    if (mb->fd[0] >= 0)
        while (read(mb->fd[0], buf, sizeof buf) > 0)
            ;
}

/* Takes up to `max` items off the front. Returns their chain and sets *n.
 * Caller holds mu. */
static ddz_mail *unlink_front(ddz_mailbox *mb, size_t max, size_t *n)
{
    ddz_mail *first = mb->head, *last = first;
    size_t k = first ? 1 : 0;
    if (!first) {
        *n = 0;
        return NULL;
    }
    while (last->next && k < max) {
        last = last->next;
        k++;
    }
    mb->head = last->next;
    if (!mb->head)
        mb->tail = NULL;
    last->next = NULL;
    mb->queued -= k;
    *n = k;
    return first;
}

/* Counts `n` items finished. Caller holds mu. */
static void finish(ddz_mailbox *mb, size_t n)
{
    if (n == 0)
        return;
    mb->done += n;
    pthread_cond_broadcast(&mb->finished);
}

int ddz_mailbox_put(ddz_mailbox *mb, ddz_mail *m)
{
    pthread_mutex_lock(&mb->mu);
    int rc = mb->closed                                       ? DDZ_EINVAL
             : mb->max && mb->queued + mb->in_hand >= mb->max ? DDZ_EBUSY
                                                              : 0;
    if (rc == 0) {
        m->next = NULL;
        if (mb->tail)
            mb->tail->next = m;
        else
            mb->head = m;
        mb->tail = m;
        mb->queued++;
        mb->puts++;
        pthread_cond_signal(&mb->more); /* one item: one taker */
        news(mb);
    }
    pthread_mutex_unlock(&mb->mu);
    return rc;
}

void ddz_mailbox_put_front(ddz_mailbox *mb, ddz_mail *first)
{
    if (!first)
        return;
    ddz_mail *last = first;
    size_t k = 1;
    for (; last->next; last = last->next)
        k++;
    pthread_mutex_lock(&mb->mu);
    last->next = mb->head;
    if (!mb->head)
        mb->tail = last;
    mb->head = first;
    mb->queued += k;
    mb->puts += k;
    pthread_cond_broadcast(&mb->more);
    news(mb);
    pthread_mutex_unlock(&mb->mu);
}

ddz_mail *ddz_mailbox_replace(ddz_mailbox *mb, ddz_mail *m)
{
    pthread_mutex_lock(&mb->mu);
    if (mb->closed) {
        pthread_mutex_unlock(&mb->mu);
        m->next = NULL;
        return m;
    }
    ddz_mail *old = mb->head;
    finish(mb, mb->queued);
    m->next = NULL;
    mb->head = mb->tail = m;
    mb->queued = 1;
    mb->puts++;
    pthread_cond_signal(&mb->more);
    news(mb);
    pthread_mutex_unlock(&mb->mu);
    return old;
}

/* The deadline `timeout_ms` from now on the monotonic clock. */
static struct timespec deadline(int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms > 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
    }
    return until;
}

ddz_mail *ddz_mailbox_take_for(ddz_mailbox *mb, size_t max, size_t *n, int timeout_ms)
{
    size_t k = 0;
    ddz_mail *first = NULL;
    struct timespec until = deadline(timeout_ms);
    pthread_mutex_lock(&mb->mu);
    while (!mb->head && !mb->closed) {
        if (timeout_ms < 0)
            pthread_cond_wait(&mb->more, &mb->mu);
        else if (pthread_cond_timedwait(&mb->more, &mb->mu, &until) == ETIMEDOUT)
            break;
    }
    if (!mb->closed || mb->drain) {
        first = unlink_front(mb, max ? max : 1, &k);
        mb->in_hand += k;
    }
    pthread_mutex_unlock(&mb->mu);
    if (n)
        *n = k;
    return first;
}

ddz_mail *ddz_mailbox_take(ddz_mailbox *mb, size_t max, size_t *n)
{
    return ddz_mailbox_take_for(mb, max, n, -1);
}

void ddz_mailbox_done(ddz_mailbox *mb, size_t n)
{
    pthread_mutex_lock(&mb->mu);
    mb->in_hand -= n <= mb->in_hand ? n : mb->in_hand;
    finish(mb, n);
    pthread_mutex_unlock(&mb->mu);
}

/* ddz_mailbox_get and get_all: up to `max` items, finished. */
static ddz_mail *get(ddz_mailbox *mb, size_t max)
{
    size_t k;
    pthread_mutex_lock(&mb->mu);
    news_read(mb);
    ddz_mail *first = unlink_front(mb, max, &k);
    finish(mb, k);
    pthread_mutex_unlock(&mb->mu);
    return first;
}

ddz_mail *ddz_mailbox_get(ddz_mailbox *mb)
{
    return get(mb, 1);
}

ddz_mail *ddz_mailbox_get_all(ddz_mailbox *mb)
{
    return get(mb, SIZE_MAX);
}

void ddz_mailbox_close(ddz_mailbox *mb, enum ddz_mailbox_end end)
{
    pthread_mutex_lock(&mb->mu);
    if (!mb->closed) {
        mb->closed = true;
        mb->drain = end == DDZ_MAILBOX_DRAIN;
        pthread_cond_broadcast(&mb->more);
        news(mb);
    }
    pthread_mutex_unlock(&mb->mu);
}

bool ddz_mailbox_closed(ddz_mailbox *mb)
{
    pthread_mutex_lock(&mb->mu);
    bool closed = mb->closed;
    pthread_mutex_unlock(&mb->mu);
    return closed;
}

void ddz_mailbox_poke(ddz_mailbox *mb)
{
    pthread_mutex_lock(&mb->mu);
    mb->poked = true;
    pthread_cond_broadcast(&mb->more);
    news(mb);
    pthread_mutex_unlock(&mb->mu);
}

bool ddz_mailbox_wait(ddz_mailbox *mb, int timeout_ms)
{
    /* one deadline for the whole wait, however often it wakes for nothing */
    struct timespec until = deadline(timeout_ms);
    pthread_mutex_lock(&mb->mu);
    while (!mb->closed && !mb->poked) {
        if (timeout_ms < 0)
            pthread_cond_wait(&mb->more, &mb->mu);
        else if (pthread_cond_timedwait(&mb->more, &mb->mu, &until) == ETIMEDOUT)
            break;
    }
    bool woken = mb->closed || mb->poked;
    mb->poked = false;
    pthread_mutex_unlock(&mb->mu);
    return woken;
}

void ddz_mailbox_flush(ddz_mailbox *mb)
{
    pthread_mutex_lock(&mb->mu);
    uint64_t target = mb->puts;
    while (mb->done < target)
        pthread_cond_wait(&mb->finished, &mb->mu);
    pthread_mutex_unlock(&mb->mu);
}

size_t ddz_mailbox_count(ddz_mailbox *mb)
{
    pthread_mutex_lock(&mb->mu);
    size_t n = mb->queued + mb->in_hand;
    pthread_mutex_unlock(&mb->mu);
    return n;
}

int ddz_mailbox_fd(const ddz_mailbox *mb)
{
    return mb->fd[0];
}
