/* test_think.c - the think pool's order (service/seats/think_sched.h):
 * a quiet key's job is taken by the next free worker however many jobs a
 * flooding key has queued; one key's jobs in order; keys that all want
 * more share by thinking time; a key back from quiet banks no credit; the
 * budget of thinking time marks jobs lean past it and refills; idle lanes
 * are forgotten; and the same order through the pool's real worker
 * thread (service/seats/think.h).
 *
 * The scheduler is driven step by step with a made-up clock, so the order
 * is exact, not timed. The pool test holds its one worker in the `wake`
 * callback after each job, so the test decides what is queued when the
 * worker comes free; its jobs are cancelled ones, which the worker hands
 * back without asking an AI. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/error.h"
#include "service/seats/think.h"
#include "service/seats/think_sched.h"
#include "test_clock.h"

#define MS 1000 /* µs */

static ddz_think_job *job(const char *key, int id)
{
    ddz_think_job *j = calloc(1, sizeof *j);
    cr_assert_not_null(j);
    snprintf(j->key, sizeof j->key, "%s", key);
    j->seq = (uint32_t)id;
    return j;
}

/* Takes the next job at `now`, asserting there is one. */
static ddz_think_job *take(ddz_think_sched *s, int64_t now)
{
    ddz_think_job *j = ddz_think_sched_take(s, now);
    cr_assert_not_null(j, "a job is queued");
    return j;
}

/* Finishes `j` after `think_us` of thinking at `now`, and frees it. */
static void finish(ddz_think_sched *s, ddz_think_job *j, int64_t think_us, int64_t now)
{
    j->think_us = think_us;
    ddz_think_sched_done(s, j, now);
    free(j);
}

static void free_chain(ddz_think_job *j)
{
    while (j) {
        ddz_think_job *next = DDZ_MAIL_ITEM(j->mail.next, ddz_think_job, mail);
        free(j);
        j = next;
    }
}

Test(think_sched, a_quiet_key_is_taken_at_the_next_free_worker)
{
    ddz_think_sched *s = ddz_think_sched_create(NULL);
    cr_assert_not_null(s);
    for (int i = 0; i < 50; i++) /* fifty rooms' AIs of one address */
        cr_assert_eq(ddz_think_sched_put(s, job("10.0.0.1", i), 0), 0);
    /* two workers take two of the flood, and finish and take again */
    ddz_think_job *w1 = take(s, 0), *w2 = take(s, 0);
    cr_assert_str_eq(w1->key, "10.0.0.1");
    finish(s, w1, 900 * MS, 900 * MS);
    w1 = take(s, 900 * MS);
    cr_assert_eq(w1->seq, 2);
    /* the bystander's AI asks while both workers are busy */
    cr_assert_eq(ddz_think_sched_put(s, job("10.0.0.2", 100), 950 * MS), 0);
    finish(s, w2, 1000 * MS, 1000 * MS);
    ddz_think_job *next = take(s, 1000 * MS);
    cr_assert_str_eq(next->key, "10.0.0.2",
                     "the next free worker takes the quiet key's job, "
                     "not the flood's 47 still queued");
    cr_assert_eq(next->seq, 100);
    /* and a third worker would have taken it even while the flood held two */
    cr_assert_eq(ddz_think_sched_put(s, job("10.0.0.3", 200), 1000 * MS), 0);
    ddz_think_job *third = take(s, 1000 * MS);
    cr_assert_str_eq(third->key, "10.0.0.3", "a key with no job running goes first");
    free(next);
    free(third);
    free(w1);
    ddz_think_stats st;
    ddz_think_sched_stats(s, 1000 * MS, &st);
    cr_assert_eq(st.queued, 47);
    cr_assert_eq(st.running, 3);
    free_chain(ddz_think_sched_drain(s));
    ddz_think_sched_destroy(s);
}

Test(think_sched, one_keys_jobs_in_order)
{
    ddz_think_sched *s = ddz_think_sched_create(NULL);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(ddz_think_sched_put(s, job("a", i), i), 0);
    for (int i = 0; i < 10; i++) {
        ddz_think_job *j = take(s, 100 + i);
        cr_assert_eq(j->seq, (uint32_t)i);
        finish(s, j, 5 * MS, 100 + i);
    }
    cr_assert_null(ddz_think_sched_take(s, 200));
    ddz_think_stats st;
    ddz_think_sched_stats(s, 200, &st);
    cr_assert_eq(st.keys, 0, "an unmetered key with no job is forgotten at once");
    ddz_think_sched_destroy(s);
}

Test(think_sched, keys_that_all_want_more_share_by_thinking_time)
{
    /* one worker; A's decisions take 100 ms, B's 10 ms: B gets ten for
     * each of A's, and in the same time */
    ddz_think_sched *s = ddz_think_sched_create(NULL);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(ddz_think_sched_put(s, job("A", i), 0), 0);
        cr_assert_eq(ddz_think_sched_put(s, job("B", i), 0), 0);
    }
    int64_t now = 0, thought[2] = {0};
    int taken[2] = {0};
    for (int k = 0; k < 44; k++) {
        ddz_think_job *j = take(s, now);
        int b = strcmp(j->key, "B") == 0;
        int64_t cost = b ? 10 * MS : 100 * MS;
        now += cost;
        thought[b] += cost;
        taken[b]++;
        finish(s, j, cost, now);
    }
    cr_assert_eq(taken[0], 4, "A: %d jobs", taken[0]);
    cr_assert_eq(taken[1], 40, "B: %d jobs", taken[1]);
    cr_assert_eq(thought[0], thought[1]);
    free_chain(ddz_think_sched_drain(s));
    ddz_think_sched_destroy(s);
}

Test(think_sched, a_key_back_from_quiet_banks_no_credit)
{
    /* A thinks alone for a while; B then comes with as much to do: they
     * alternate, B does not get A's past thinking as a head start */
    ddz_think_sched *s = ddz_think_sched_create(NULL);
    int64_t now = 0;
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(ddz_think_sched_put(s, job("A", i), now), 0);
        ddz_think_job *j = take(s, now);
        now += 10 * MS;
        finish(s, j, 10 * MS, now);
    }
    for (int i = 0; i < 20; i++) {
        cr_assert_eq(ddz_think_sched_put(s, job("A", 100 + i), now), 0);
        cr_assert_eq(ddz_think_sched_put(s, job("B", i), now), 0);
    }
    int b_in_a_row = 0, most = 0;
    for (int k = 0; k < 20; k++) {
        ddz_think_job *j = take(s, now);
        b_in_a_row = strcmp(j->key, "B") == 0 ? b_in_a_row + 1 : 0;
        if (b_in_a_row > most)
            most = b_in_a_row;
        now += 10 * MS;
        finish(s, j, 10 * MS, now);
    }
    cr_assert_leq(most, 2, "B took %d in a row", most);
    free_chain(ddz_think_sched_drain(s));
    ddz_think_sched_destroy(s);
}

Test(think_sched, past_its_budget_a_metered_key_decides_lean)
{
    /* 100 ms of thinking a second, 200 ms at once */
    ddz_think_budget b = {.rate_us = 100 * MS, .burst_us = 200 * MS, .lean_ms = 20};
    ddz_think_sched *s = ddz_think_sched_create(&b);
    int64_t now = 0;
    bool lean[4];
    for (int i = 0; i < 4; i++) {
        ddz_think_job *j = job("client", i);
        j->metered = true;
        cr_assert_eq(ddz_think_sched_put(s, j, now), 0);
        j = take(s, now);
        lean[i] = j->lean;
        finish(s, j, j->lean ? 20 * MS : 100 * MS, now);
    }
    cr_assert_not(lean[0]);
    cr_assert_not(lean[1]);
    cr_assert(lean[2], "its 200 ms are spent");
    cr_assert(lean[3], "lean decisions do not refill it");
    ddz_think_stats st;
    ddz_think_sched_stats(s, now, &st);
    cr_assert_eq(st.lean, 2);
    cr_assert_eq(st.spent_us, 200 * MS);
    cr_assert_eq(st.keys, 1, "a key in debt is remembered while it has no job");

    /* a second later it has 100 ms again */
    now += 1000 * MS;
    ddz_think_job *j = job("client", 9);
    j->metered = true;
    cr_assert_eq(ddz_think_sched_put(s, j, now), 0);
    j = take(s, now);
    cr_assert_not(j->lean);
    finish(s, j, 100 * MS, now);

    /* the server's own keys are never cut */
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(ddz_think_sched_put(s, job("(ladder)", i), now), 0);
        j = take(s, now);
        cr_assert_not(j->lean);
        finish(s, j, 1000 * MS, now);
    }

    /* full again after its burst's worth of time: forgotten */
    now += 3000 * MS;
    ddz_think_sched_stats(s, now, &st);
    cr_assert_eq(st.spent_us, 0);
    cr_assert_eq(ddz_think_sched_put(s, job("other", 0), now), 0); /* sweeps */
    ddz_think_sched_stats(s, now, &st);
    cr_assert_eq(st.keys, 1, "only the key with a job: %ld", st.keys);
    free_chain(ddz_think_sched_drain(s));
    ddz_think_sched_destroy(s);
}

Test(think_sched, idle_lanes_are_bounded)
{
    ddz_think_budget b = {.rate_us = 1 * MS, .burst_us = 10 * MS};
    ddz_think_sched *s = ddz_think_sched_create(&b);
    char key[32];
    for (int i = 0; i < DDZ_THINK_IDLE_MAX + 500; i++) {
        snprintf(key, sizeof key, "10.%d.%d.%d", i >> 16, (i >> 8) & 255, i & 255);
        ddz_think_job *j = job(key, i);
        j->metered = true;
        cr_assert_eq(ddz_think_sched_put(s, j, 0), 0);
        finish(s, take(s, 0), 1000 * MS, 0); /* each goes idle in debt */
    }
    ddz_think_stats st;
    ddz_think_sched_stats(s, 0, &st);
    cr_assert_eq(st.keys, DDZ_THINK_IDLE_MAX);
    ddz_think_sched_destroy(s);
}

Test(think_sched, drain_hands_back_every_queued_job)
{
    ddz_think_sched *s = ddz_think_sched_create(NULL);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(ddz_think_sched_put(s, job(i % 2 ? "x" : "y", i), 0), 0);
    ddz_think_job *running = take(s, 0);
    int n = 0;
    for (ddz_think_job *j = ddz_think_sched_drain(s), *next; j; j = next) {
        next = DDZ_MAIL_ITEM(j->mail.next, ddz_think_job, mail);
        free(j);
        n++;
    }
    cr_assert_eq(n, 5);
    cr_assert_null(ddz_think_sched_take(s, 0));
    finish(s, running, 0, 0);
    ddz_think_sched_destroy(s);
}

/* ---- the pool: its worker takes in the same order ---- */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int wakes;   /* jobs the worker finished (it calls wake after each) */
    int allowed; /* how many wakes may return: the worker waits in the rest */
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

/* The pool's wake: counts the job and holds the worker until the test
 * lets it go on. */
static void gate_wake(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&gate.lock);
    int me = ++gate.wakes;
    pthread_cond_broadcast(&gate.cond);
    while (me > gate.allowed)
        pthread_cond_wait(&gate.cond, &gate.lock);
    pthread_mutex_unlock(&gate.lock);
}

/* Waits (bounded) until the worker has finished `n` jobs. */
static void wait_wakes(int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += T(5000) / 1000 + 1;
    pthread_mutex_lock(&gate.lock);
    while (gate.wakes < n)
        if (pthread_cond_timedwait(&gate.cond, &gate.lock, &until) != 0)
            break;
    int got = gate.wakes;
    pthread_mutex_unlock(&gate.lock);
    cr_assert_geq(got, n, "the worker finished %d jobs, not %d", got, n);
}

static void let_go(int n)
{
    pthread_mutex_lock(&gate.lock);
    gate.allowed = n;
    pthread_cond_broadcast(&gate.cond);
    pthread_mutex_unlock(&gate.lock);
}

static ddz_think_job *cancelled(const char *key, int id)
{
    ddz_think_job *j = job(key, id);
    atomic_store(&j->cancel, 1); /* handed back without an AI */
    return j;
}

Test(think_pool, the_worker_takes_a_quiet_keys_job_before_the_flood, .timeout = HANG(30))
{
    ddz_think *t = ddz_think_create(1, NULL, gate_wake, NULL);
    cr_assert_not_null(t);
    /* the worker is held after a first job, so the flood is all queued
     * before it comes free */
    cr_assert_eq(ddz_think_submit(t, cancelled("gate", 0)), 0);
    wait_wakes(1);
    for (int i = 1; i <= 20; i++)
        cr_assert_eq(ddz_think_submit(t, cancelled("flood", i)), 0);
    let_go(1);
    wait_wakes(2); /* the flood's first */
    cr_assert_eq(ddz_think_submit(t, cancelled("quiet", 99)), 0);
    let_go(1000);

    int order[22], n = 0;
    int64_t until = now_ms() + T(5000);
    while (n < 22 && now_ms() < until) {
        ddz_think_job *j = ddz_think_done(t);
        if (!j) {
            struct timespec ts = {0, 1000000}; /* the pool wakes us with gate_wake only */
            nanosleep(&ts, NULL);
            continue;
        }
        order[n++] = (int)j->seq;
        free(j);
    }
    cr_assert_eq(n, 22, "%d jobs came back", n);
    cr_assert_eq(order[0], 0);
    cr_assert_eq(order[1], 1);
    int at = 0;
    while (at < 22 && order[at] != 99)
        at++;
    cr_assert_eq(at, 2, "the quiet key's job came back at %d, not next after the flood's first",
                 at);
    for (int i = 3; i < 22; i++)
        cr_assert_eq(order[i], i - 1, "the flood in its order");
    ddz_think_destroy(t);
}
