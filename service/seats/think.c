/* think.c - a small pool of worker threads running hosted AI decisions.
 *
 * Each worker owns an AI workspace (ai/ai.h): the search tables of a
 * decision belong to the thread that runs it, not to the AI objects, so
 * the memory that decisions need is a few MB per worker however many AIs
 * are seated. */
#include "service/seats/think.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "service/table/referee.h"
#include "rules/error.h"

enum { THREADS_MAX = 8 };

/* One worker thread and the scratch memory of its decisions. */
typedef struct worker {
    struct ddz_think *pool;
    pthread_t th;
    ddz_ai_workspace *ws;
} worker;

struct ddz_think {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ddz_think_job *todo, *todo_tail; /* FIFO */
    ddz_think_job *done;             /* LIFO is fine: jobs are independent */
    bool stop;
    int nthreads; /* workers running: w[0..nthreads) */
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

static void *work(void *arg)
{
    worker *w = arg;
    ddz_think *t = w->pool;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->todo && !t->stop)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->stop)
            break;
        ddz_think_job *j = t->todo;
        t->todo = j->next;
        if (!t->todo)
            t->todo_tail = NULL;
        pthread_mutex_unlock(&t->mu);

        /* A job cancelled while it waited (the game ended, the seat was
         * given back) is not worked on: it only goes back to be freed. */
        int64_t t0 = now_us();
        if (atomic_load(&j->cancel))
            ;
        else if (j->kind == DDZ_EV_ASK_BID)
            j->bid = ddz_ai_bid(j->ai, &j->view, w->ws);
        else
            j->cards = ddz_ai_play(j->ai, &j->view, w->ws);
        j->think_us = now_us() - t0;

        pthread_mutex_lock(&t->mu);
        j->next = t->done;
        t->done = j;
        /* Woken without the lock held: `wake` may take locks of its own
         * (lws's), and the loop it wakes takes ours in ddz_think_done(). */
        pthread_mutex_unlock(&t->mu);
        t->wake(t->ctx);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

ddz_think *ddz_think_create(int threads, void (*wake)(void *ctx), void *ctx)
{
    ddz_think *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
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
    job->next = NULL;
    pthread_mutex_lock(&t->mu);
    if (t->todo_tail)
        t->todo_tail->next = job;
    else
        t->todo = job;
    t->todo_tail = job;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

ddz_think_job *ddz_think_done(ddz_think *t)
{
    pthread_mutex_lock(&t->mu);
    ddz_think_job *j = t->done;
    if (j)
        t->done = j->next;
    pthread_mutex_unlock(&t->mu);
    return j;
}

static void free_list(ddz_think_job *j)
{
    while (j) {
        ddz_think_job *n = j->next;
        if (j->own_ai) {
            ddz_ai_destroy(j->ai);
            if (j->ai_count)
                --*j->ai_count;
        }
        free(j);
        j = n;
    }
}

void ddz_think_destroy(ddz_think *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->nthreads; i++) {
        pthread_join(t->w[i].th, NULL);
        ddz_ai_workspace_destroy(t->w[i].ws);
    }
    free_list(t->todo);
    free_list(t->done);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t);
}
