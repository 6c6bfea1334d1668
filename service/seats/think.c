/* think.c - a small pool of worker threads running hosted AI decisions.
 *
 * Each worker owns an AI workspace (ai/ai.h): the search tables of a
 * decision belong to the thread that runs it, not to the AI objects, so
 * the memory that decisions need is a few MB per worker however many AIs
 * are seated. */
#include "service/seats/think.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "service/table/referee.h"
#include "service/thread/mailbox.h"

enum { THREADS_MAX = 8 };

/* One worker thread and the scratch memory of its decisions. */
typedef struct worker {
    struct ddz_think *pool;
    pthread_t th;
    ddz_ai_workspace *ws;
} worker;

struct ddz_think {
    ddz_mailbox *todo; /* jobs for the workers; closed (dropping) to stop them */
    ddz_mailbox *done; /* finished jobs for the loop */
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

static void *work(void *arg)
{
    worker *w = arg;
    ddz_think *t = w->pool;
    ddz_mail *m;
    /* NULL once the pool stops: the jobs still queued are not run */
    while ((m = ddz_mailbox_take(t->todo, 1, NULL))) {
        ddz_think_job *j = DDZ_MAIL_ITEM(m, ddz_think_job, mail);

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

        ddz_mailbox_put(t->done, &j->mail); /* unbounded and never closed */
        /* Woken after the put, which holds no lock of ours any more: `wake`
         * may take locks of its own (lws's). */
        t->wake(t->ctx);
        ddz_mailbox_done(t->todo, 1);
    }
    return NULL;
}

ddz_think *ddz_think_create(int threads, void (*wake)(void *ctx), void *ctx)
{
    ddz_think *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->todo = ddz_mailbox_create(0, false);
    t->done = ddz_mailbox_create(0, false);
    if (!t->todo || !t->done) {
        ddz_think_destroy(t);
        return NULL;
    }
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
    /* never refused: unbounded, and closed only by ddz_think_destroy */
    return ddz_mailbox_put(t->todo, &job->mail);
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
    if (t->todo) /* the workers stop after their current job */
        ddz_mailbox_close(t->todo, DDZ_MAILBOX_DROP);
    for (int i = 0; i < t->nthreads; i++) {
        pthread_join(t->w[i].th, NULL);
        ddz_ai_workspace_destroy(t->w[i].ws);
    }
    if (t->todo)
        free_list(ddz_mailbox_get_all(t->todo));
    if (t->done)
        free_list(ddz_mailbox_get_all(t->done));
    ddz_mailbox_destroy(t->todo);
    ddz_mailbox_destroy(t->done);
    free(t);
}
