/* test_mailbox.c - the FIFO between threads (service/thread/mailbox.h):
 * order, a blocked taker woken by a put and by the close, the bound
 * counting what is in hand, both ends (drain, drop) with items pending,
 * flush, the doorbell, the descriptor, replace and put_front, and many
 * takers. A thread a test waits for is joined with a deadline, so a lost
 * wakeup fails the test instead of hanging it. */
#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "rules/error.h"
#include "service/thread/mailbox.h"
#include "test_clock.h"

typedef struct item {
    int v;
    ddz_mail mail;
} item;

static int val(ddz_mail *m)
{
    return DDZ_MAIL_ITEM(m, item, mail)->v;
}

/* Joins `th` within T(ms). Returns whether it ended. */
static bool join_within(pthread_t th, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = (int64_t)T(ms) * 1000000;
    until.tv_sec += ns / 1000000000;
    until.tv_nsec += ns % 1000000000;
    if (until.tv_nsec >= 1000000000)
        until.tv_sec++, until.tv_nsec -= 1000000000;
    return pthread_timedjoin_np(th, NULL, &until) == 0;
}

/* Gives a thread that announced it is about to block the time to get
 * there, so that what follows tests the wakeup, not a put that came first
 * (the test passes either way when the box is right). */
static void let_it_block(void)
{
    struct timespec ts = {0, 50 * 1000000};
    nanosleep(&ts, NULL);
}

static bool readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

Test(mailbox, fifo_order_through_get_take_and_batches)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    cr_assert_not_null(mb);
    item it[10];
    for (int i = 0; i < 10; i++) {
        it[i].v = i;
        cr_assert_eq(ddz_mailbox_put(mb, &it[i].mail), 0);
    }
    cr_assert_eq(ddz_mailbox_count(mb), 10);
    cr_assert_eq(val(ddz_mailbox_get(mb)), 0);
    size_t n = 0;
    ddz_mail *m = ddz_mailbox_take(mb, 4, &n);
    cr_assert_eq(n, 4);
    for (int i = 1; i <= 4; i++, m = m->next)
        cr_assert_eq(val(m), i);
    cr_assert_null(m, "a batch ends its chain");
    cr_assert_eq(ddz_mailbox_count(mb), 9, "5 queued and 4 in hand");
    ddz_mailbox_done(mb, 4);
    cr_assert_eq(ddz_mailbox_count(mb), 5);
    m = ddz_mailbox_get_all(mb);
    for (int i = 5; i < 10; i++, m = m->next)
        cr_assert_eq(val(m), i);
    cr_assert_null(m);
    cr_assert_null(ddz_mailbox_get(mb));
    cr_assert_null(ddz_mailbox_get_all(mb));
    cr_assert_null(DDZ_MAIL_ITEM(ddz_mailbox_get(mb), item, mail), "NULL stays NULL");
    cr_assert_eq(DDZ_MAIL_ITEM(&it[3].mail, item, mail), &it[3]);
    cr_assert_eq(ddz_mailbox_count(mb), 0);
    ddz_mailbox_destroy(mb);
}

typedef struct taker {
    ddz_mailbox *mb;
    atomic_bool started;
    ddz_mail *got;
    size_t n;
} taker;

static void *take_one(void *arg)
{
    taker *t = arg;
    atomic_store(&t->started, true);
    t->got = ddz_mailbox_take(t->mb, 8, &t->n);
    return NULL;
}

static void start_taker(taker *t, pthread_t *th)
{
    atomic_store(&t->started, false);
    cr_assert_eq(pthread_create(th, NULL, take_one, t), 0);
    while (!atomic_load(&t->started))
        sched_yield();
    let_it_block();
}

Test(mailbox, a_put_wakes_a_blocked_taker)
{
    taker t = {.mb = ddz_mailbox_create(0, false)};
    pthread_t th;
    start_taker(&t, &th);
    item a = {.v = 7};
    cr_assert_eq(ddz_mailbox_put(t.mb, &a.mail), 0);
    cr_assert(join_within(th, 2000), "the taker was not woken by the put");
    cr_assert_eq(t.got, &a.mail);
    cr_assert_eq(t.n, 1);
    ddz_mailbox_done(t.mb, 1);
    ddz_mailbox_destroy(t.mb);
}

Test(mailbox, the_close_wakes_a_blocked_taker)
{
    for (int end = DDZ_MAILBOX_DROP; end <= DDZ_MAILBOX_DRAIN; end++) {
        taker t = {.mb = ddz_mailbox_create(0, false)};
        pthread_t th;
        start_taker(&t, &th);
        ddz_mailbox_close(t.mb, end);
        cr_assert(join_within(th, 2000), "end %d: the taker was not woken by the close", end);
        cr_assert_null(t.got);
        ddz_mailbox_destroy(t.mb);
    }
}

Test(mailbox, the_bound_counts_what_is_queued_and_in_hand)
{
    ddz_mailbox *mb = ddz_mailbox_create(3, false);
    item it[6];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(ddz_mailbox_put(mb, &it[i].mail), 0);
    cr_assert_eq(ddz_mailbox_put(mb, &it[3].mail), DDZ_EBUSY);
    size_t n;
    ddz_mail *m = ddz_mailbox_take(mb, 2, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(m, &it[0].mail);
    cr_assert_eq(ddz_mailbox_put(mb, &it[3].mail), DDZ_EBUSY, "taken is still held");
    ddz_mailbox_done(mb, 2);
    cr_assert_eq(ddz_mailbox_put(mb, &it[3].mail), 0);
    cr_assert_eq(ddz_mailbox_put(mb, &it[4].mail), 0);
    cr_assert_eq(ddz_mailbox_put(mb, &it[5].mail), DDZ_EBUSY);
    /* a get finishes at once */
    cr_assert_eq(ddz_mailbox_get(mb), &it[2].mail);
    cr_assert_eq(ddz_mailbox_put(mb, &it[5].mail), 0);
    cr_assert_eq(ddz_mailbox_count(mb), 3);
    /* put_front is not refused by the bound: its items were held already */
    m = ddz_mailbox_get_all(mb);
    item extra = {.v = 99};
    extra.mail.next = m;
    ddz_mailbox_put_front(mb, &extra.mail);
    cr_assert_eq(ddz_mailbox_count(mb), 4);
    ddz_mailbox_get_all(mb);
    ddz_mailbox_destroy(mb);
}

Test(mailbox, drain_takes_what_is_pending_then_ends)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    item it[5];
    for (int i = 0; i < 5; i++) {
        it[i].v = i;
        ddz_mailbox_put(mb, &it[i].mail);
    }
    ddz_mailbox_close(mb, DDZ_MAILBOX_DRAIN);
    cr_assert(ddz_mailbox_closed(mb));
    item late = {.v = 5};
    cr_assert_eq(ddz_mailbox_put(mb, &late.mail), DDZ_EINVAL, "closed: no more puts");
    size_t n;
    ddz_mail *m = ddz_mailbox_take(mb, 3, &n);
    cr_assert_eq(n, 3);
    cr_assert_eq(val(m), 0);
    ddz_mailbox_done(mb, n);
    m = ddz_mailbox_take(mb, 3, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(val(m), 3);
    ddz_mailbox_done(mb, n);
    cr_assert_null(ddz_mailbox_take(mb, 3, &n), "empty and closed: the end");
    cr_assert_eq(n, 0);
    ddz_mailbox_destroy(mb);
}

Test(mailbox, drop_ends_at_once_and_leaves_the_pending_to_the_owner)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    item it[4];
    for (int i = 0; i < 4; i++) {
        it[i].v = i;
        ddz_mailbox_put(mb, &it[i].mail);
    }
    ddz_mailbox_close(mb, DDZ_MAILBOX_DROP);
    ddz_mailbox_close(mb, DDZ_MAILBOX_DRAIN); /* a second close changes nothing */
    size_t n = 77;
    cr_assert_null(ddz_mailbox_take(mb, 1, &n), "dropping: the takers stop with items queued");
    cr_assert_eq(n, 0);
    cr_assert_eq(ddz_mailbox_count(mb), 4);
    ddz_mail *m = ddz_mailbox_get_all(mb);
    for (int i = 0; i < 4; i++, m = m->next)
        cr_assert_eq(val(m), i);
    cr_assert_null(m);
    ddz_mailbox_destroy(mb);
}

typedef struct worker {
    ddz_mailbox *mb;
    atomic_long sum, count;
} worker;

/* Takes batches until the end, counting what it finished. */
static void *work(void *arg)
{
    worker *w = arg;
    ddz_mail *m;
    size_t n;
    while ((m = ddz_mailbox_take(w->mb, 7, &n))) {
        for (; m; m = m->next) {
            atomic_fetch_add(&w->sum, val(m));
            atomic_fetch_add(&w->count, 1);
        }
        ddz_mailbox_done(w->mb, n);
    }
    return NULL;
}

Test(mailbox, many_takers_take_every_item_once)
{
    enum { N = 20000, T = 4 };
    static item it[N];
    worker w = {.mb = ddz_mailbox_create(0, false)};
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, work, &w), 0);
    long want = 0;
    for (int i = 0; i < N; i++) {
        it[i].v = i;
        want += i;
        cr_assert_eq(ddz_mailbox_put(w.mb, &it[i].mail), 0);
    }
    ddz_mailbox_close(w.mb, DDZ_MAILBOX_DRAIN);
    for (int i = 0; i < T; i++)
        cr_assert(join_within(th[i], 5000));
    cr_assert_eq(atomic_load(&w.count), N);
    cr_assert_eq(atomic_load(&w.sum), want);
    ddz_mailbox_destroy(w.mb);
}

typedef struct flusher {
    ddz_mailbox *mb;
    atomic_bool done;
} flusher;

static void *flush(void *arg)
{
    flusher *f = arg;
    ddz_mailbox_flush(f->mb);
    atomic_store(&f->done, true);
    return NULL;
}

Test(mailbox, flush_waits_for_what_was_put_before_it)
{
    flusher f = {.mb = ddz_mailbox_create(0, false)};
    item it[3];
    for (int i = 0; i < 3; i++)
        ddz_mailbox_put(f.mb, &it[i].mail);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, flush, &f), 0);
    size_t n;
    ddz_mailbox_take(f.mb, 2, &n);
    let_it_block();
    cr_assert_not(atomic_load(&f.done), "returned with 3 unfinished");
    ddz_mailbox_done(f.mb, 2);
    let_it_block();
    cr_assert_not(atomic_load(&f.done), "returned with 1 unfinished");
    ddz_mailbox_get(f.mb); /* taken and finished at once */
    cr_assert(join_within(th, 2000), "flush did not return once all were finished");
    cr_assert(atomic_load(&f.done));
    ddz_mailbox_flush(f.mb); /* nothing put since: at once */
    ddz_mailbox_destroy(f.mb);
}

typedef struct sleeper {
    ddz_mailbox *mb;
    atomic_bool started;
    bool woken;
} sleeper;

static void *sleep_on(void *arg)
{
    sleeper *s = arg;
    atomic_store(&s->started, true);
    s->woken = ddz_mailbox_wait(s->mb, -1);
    return NULL;
}

Test(mailbox, doorbell_poke_close_and_timeout)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    int64_t t0 = now_ms();
    cr_assert_not(ddz_mailbox_wait(mb, 100), "nothing rang");
    cr_assert_geq(now_ms() - t0, 100, "the timeout is kept");
    cr_assert_not(ddz_mailbox_wait(mb, 0));
    ddz_mailbox_poke(mb);
    ddz_mailbox_poke(mb); /* two before a wait count as one */
    cr_assert(ddz_mailbox_wait(mb, 10000));
    cr_assert_not(ddz_mailbox_wait(mb, 20), "the poke was consumed");
    item a;
    ddz_mailbox_put(mb, &a.mail);
    cr_assert_not(ddz_mailbox_wait(mb, 20), "an item is no poke");
    ddz_mailbox_get(mb);

    /* a sleeper without a timeout, woken by a poke, then by the close */
    for (int by_close = 0; by_close < 2; by_close++) {
        sleeper s = {.mb = mb};
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, sleep_on, &s), 0);
        while (!atomic_load(&s.started))
            sched_yield();
        let_it_block();
        if (by_close)
            ddz_mailbox_close(mb, DDZ_MAILBOX_DROP);
        else
            ddz_mailbox_poke(mb);
        cr_assert(join_within(th, 2000), "the sleeper was not woken (close %d)", by_close);
        cr_assert(s.woken);
    }
    cr_assert(ddz_mailbox_wait(mb, 10000), "closed: every wait returns at once");
    ddz_mailbox_destroy(mb);
}

Test(mailbox, the_descriptor_says_there_is_news_until_the_next_get)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, true);
    int fd = ddz_mailbox_fd(mb);
    cr_assert_geq(fd, 0);
    cr_assert_not(readable(fd));
    item it[2];
    ddz_mailbox_put(mb, &it[0].mail);
    ddz_mailbox_put(mb, &it[1].mail);
    cr_assert(readable(fd), "after a put");
    cr_assert_eq(ddz_mailbox_get(mb), &it[0].mail);
    cr_assert_not(readable(fd), "read by the get, though an item is left");
    cr_assert_eq(ddz_mailbox_get(mb), &it[1].mail);
    ddz_mailbox_poke(mb);
    cr_assert(readable(fd), "after a poke");
    cr_assert_null(ddz_mailbox_get(mb));
    cr_assert_not(readable(fd));
    ddz_mailbox_close(mb, DDZ_MAILBOX_DROP);
    cr_assert(readable(fd), "after the close");
    ddz_mailbox_destroy(mb);

    mb = ddz_mailbox_create(0, false);
    cr_assert_eq(ddz_mailbox_fd(mb), -1);
    ddz_mailbox_destroy(mb);
}

Test(mailbox, replace_keeps_only_the_newest)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, true);
    item a = {.v = 1}, b = {.v = 2}, c = {.v = 3};
    cr_assert_null(ddz_mailbox_replace(mb, &a.mail), "nothing replaced");
    ddz_mailbox_put(mb, &b.mail);
    ddz_mail *old = ddz_mailbox_replace(mb, &c.mail);
    cr_assert_eq(old, &a.mail, "the replaced come back, oldest first");
    cr_assert_eq(old->next, &b.mail);
    cr_assert_null(old->next->next);
    cr_assert(readable(ddz_mailbox_fd(mb)));
    cr_assert_eq(ddz_mailbox_count(mb), 1);
    cr_assert_eq(ddz_mailbox_get(mb), &c.mail);
    cr_assert_null(ddz_mailbox_get(mb));
    ddz_mailbox_close(mb, DDZ_MAILBOX_DROP);
    cr_assert_eq(ddz_mailbox_replace(mb, &a.mail), &a.mail, "closed: refused, given back");
    cr_assert_null(ddz_mailbox_get(mb));
    ddz_mailbox_destroy(mb);
}

Test(mailbox, put_front_goes_before_what_came_meanwhile)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    item it[5];
    for (int i = 0; i < 5; i++)
        it[i].v = i;
    ddz_mailbox_put(mb, &it[0].mail);
    ddz_mailbox_put(mb, &it[1].mail);
    ddz_mail *again = ddz_mailbox_get_all(mb);
    ddz_mailbox_put(mb, &it[2].mail);
    ddz_mailbox_put(mb, &it[3].mail);
    ddz_mailbox_put_front(mb, again);
    ddz_mailbox_put_front(mb, NULL);
    ddz_mailbox_put(mb, &it[4].mail); /* the tail is still right */
    ddz_mail *m = ddz_mailbox_get_all(mb);
    for (int i = 0; i < 5; i++, m = m->next)
        cr_assert_eq(val(m), i);
    cr_assert_null(m);
    /* into an empty box, and past the close */
    ddz_mailbox_close(mb, DDZ_MAILBOX_DROP);
    it[0].mail.next = NULL;
    ddz_mailbox_put_front(mb, &it[0].mail);
    cr_assert_eq(ddz_mailbox_get(mb), &it[0].mail);
    ddz_mailbox_destroy(mb);
}

/* The timed take (the store's writer, which must also wake to replay its
 * journal): nothing within the time is NULL on an open box, an item is
 * taken at once, a close ends it as the untimed take does. */
Test(mailbox, a_timed_take_ends_with_the_time_an_item_or_the_close)
{
    ddz_mailbox *mb = ddz_mailbox_create(0, false);
    cr_assert_not_null(mb);
    size_t n = 7;
    int64_t t0 = now_ms();
    cr_assert_null(ddz_mailbox_take_for(mb, 4, &n, 30));
    cr_assert_geq(now_ms() - t0, 29, "it gave up before its time");
    cr_assert_eq(n, 0);
    cr_assert_not(ddz_mailbox_closed(mb));
    cr_assert_null(ddz_mailbox_take_for(mb, 4, &n, 0), "0: a look, no wait");
    item it[2] = {{.v = 1}, {.v = 2}};
    ddz_mailbox_put(mb, &it[0].mail);
    ddz_mailbox_put(mb, &it[1].mail);
    ddz_mail *m = ddz_mailbox_take_for(mb, 4, &n, T(1000));
    cr_assert_eq(n, 2);
    cr_assert_eq(val(m), 1);
    cr_assert_eq(val(m->next), 2);
    ddz_mailbox_done(mb, n);
    ddz_mailbox_close(mb, DDZ_MAILBOX_DRAIN);
    cr_assert_null(ddz_mailbox_take_for(mb, 4, &n, -1), "closed and empty: at once");
    cr_assert(ddz_mailbox_closed(mb));
    ddz_mailbox_destroy(mb);
}
