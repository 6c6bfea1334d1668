/* think.c - a small pool of worker threads running hosted AI decisions.
 *
 * Each worker owns an AI workspace (ai/ai.h): the search tables of a
 * decision belong to the thread that runs it, not to the AI objects, so
 * the memory that decisions need is a few MB per worker however many AIs
 * are seated. Which job a free worker takes is think_sched.c's: fair
 * between keys, under the pool's lock.
 */
#include "service/seats/think.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "service/seats/think_sched.h"
#include "service/table/referee.h"
#include "service/thread/mailbox.h"

enum { THREADS_MAX = 8 };

#define LEAN_MS_DEFAULT 50 /* a lean decision's budget when the budget gives none */

/* One worker thread and the scratch memory of its decisions. */
typedef struct worker {
    struct ddz_think *pool;
    pthread_t th;
    ddz_ai_workspace *ws;
} worker;

struct ddz_think {
    pthread_mutex_t lock; /* guards sched and stop */
    pthread_cond_t more;  /* a job was queued, or the pool stops */
    ddz_think_sched *sched;
    bool stop;         /* the workers stop after their current job */
    ddz_mailbox *done; /* finished jobs for the loop */
    int lean_ms;       /* a lean decision's budget */
    int nthreads;      /* workers running: w[0..nthreads) */
    worker w[THREADS_MAX];
    void (*wake)(void *ctx);
    void *ctx;
};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Runs the decision of `j` in the workspace of `w`. A lean job decides
 * within the pool's lean budget, and the AI gets its own budget back. */
static void decide(worker *w, ddz_think_job *j)
{
    int64_t t0 = now_us();
    /* A job cancelled while it waited (the game ended, the seat was given
     * back) is not worked on: it only goes back to be freed. */
    if (!atomic_load(&j->cancel)) {
        int lean = w->pool->lean_ms;
        if (j->lean)
            ddz_ai_set_budget(j->ai, j->budget_ms > 0 && j->budget_ms < lean ? j->budget_ms : lean,
                              0);
        if (j->kind == DDZ_EV_ASK_BID)
            j->bid = ddz_ai_bid(j->ai, &j->view, w->ws);
        else
            j->cards = ddz_ai_play(j->ai, &j->view, w->ws);
        if (j->lean)
            ddz_ai_set_budget(j->ai, j->budget_ms, 0);
    }
    j->think_us = now_us() - t0;
}

static void *work(void *arg)
{
    worker *w = arg;
    ddz_think *t = w->pool;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        ddz_think_job *j = NULL;
        while (!t->stop && !(j = ddz_think_sched_take(t->sched, now_us())))
            pthread_cond_wait(&t->more, &t->lock);
        if (t->stop) /* the jobs still queued are not run */
            break;
        pthread_mutex_unlock(&t->lock);
        decide(w, j);
        pthread_mutex_lock(&t->lock);
        /* charged before the loop may free the job */
        ddz_think_sched_done(t->sched, j, now_us());
        pthread_mutex_unlock(&t->lock);
        ddz_mailbox_put(t->done, &j->mail); /* unbounded and never closed */
        /* Woken after the put, which holds no lock of ours any more: `wake`
         * may take locks of its own (lws's). */
        t->wake(t->ctx);
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

ddz_think *ddz_think_create(int threads, const ddz_think_budget *budget, void (*wake)(void *ctx),
                            void *ctx)
{
    ddz_think *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        free(t);
        return NULL;
    }
    if (pthread_cond_init(&t->more, NULL) != 0) {
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
    }
    t->sched = ddz_think_sched_create(budget);
    t->done = ddz_mailbox_create(0, false);
    if (!t->sched || !t->done) {
        ddz_think_destroy(t);
        return NULL;
    }
    t->lean_ms = budget && budget->lean_ms > 0 ? budget->lean_ms : LEAN_MS_DEFAULT;
    t->wake = wake;
    t->ctx = ctx;
    if (threads < 1)
        threads = 1;
    if (threads > THREADS_MAX)
        threads = THREADS_MAX;
    for (int i = 0; i < threads; i++) {
        worker *w = &t->w[i];
        w->pool = t;
        w->ws = ddz_ai_workspace_create();
        if (!w->ws)
            break;
        if (pthread_create(&w->th, NULL, work, w) != 0) {
            ddz_ai_workspace_destroy(w->ws);
            w->ws = NULL;
            break;
        }
        t->nthreads++;
    }
    if (t->nthreads == 0) {
        ddz_think_destroy(t);
        return NULL;
    }
    return t;
}

int ddz_think_submit(ddz_think *t, ddz_think_job *job)
{
    pthread_mutex_lock(&t->lock);
    int rc = ddz_think_sched_put(t->sched, job, now_us());
    if (rc == 0)
        pthread_cond_signal(&t->more);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void ddz_think_get_stats(ddz_think *t, ddz_think_stats *out)
{
    pthread_mutex_lock(&t->lock);
    ddz_think_sched_stats(t->sched, now_us(), out);
    pthread_mutex_unlock(&t->lock);
}

ddz_think_job *ddz_think_done(ddz_think *t)
{
    return DDZ_MAIL_ITEM(ddz_mailbox_get(t->done), ddz_think_job, mail);
}

/* Frees every job of the chain `m`. */
static void free_list(ddz_mail *m)
{
    while (m) {
        ddz_think_job *j = DDZ_MAIL_ITEM(m, ddz_think_job, mail);
        m = m->next;
        if (j->own_ai) {
            ddz_ai_destroy(j->ai);
            if (j->ai_count)
                --*j->ai_count;
        }
        free(j);
    }
}

void ddz_think_destroy(ddz_think *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock); /* the workers stop after their current job */
    t->stop = true;
    pthread_cond_broadcast(&t->more);
    pthread_mutex_unlock(&t->lock);
    for (int i = 0; i < t->nthreads; i++) {
        pthread_join(t->w[i].th, NULL);
        ddz_ai_workspace_destroy(t->w[i].ws);
    }
    if (t->sched) {
        ddz_think_job *left = ddz_think_sched_drain(t->sched);
        free_list(left ? &left->mail : NULL);
    }
    if (t->done)
        free_list(ddz_mailbox_get_all(t->done));
    ddz_think_sched_destroy(t->sched);
    ddz_mailbox_destroy(t->done);
    pthread_cond_destroy(&t->more);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
