/* seat_ai.c - a hosted AI in a seat.
 *
 * Without a think pool (`ddz match`, benchmarks) the AI decides inside
 * ask(), in the workspace its environment lends (one for every seat of a
 * match: the decisions run one at a time on the loop thread) or else in
 * one of its own; the runner queues what its answer causes, so this
 * recurses no deeper than one call. With a pool (`ddz serve`) the decision
 * is made on a worker thread, in that worker's workspace, after the host's
 * think delay and comes back through ddz_seat_ai_done() on the loop
 * thread; a request cancelled meanwhile drops the answer, and a seat
 * closed meanwhile leaves the job to free the AI. Its jobs carry the key
 * its environment gave (whose share of the pool they take: think_sched.h)
 * and its own budget, which a lean decision borrows and gives back. The AI
 * decides from the seat's view only (rules/view.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai/ai.h"
#include "rules/error.h"
#include "service/seats/seats.h"

typedef struct ai_seat {
    ddz_seat base;
    ddz_ai *ai;
    char name[48];               /* "ai:NAME" */
    ddz_think *think;            /* NULL: decide on the loop thread */
    ddz_ai_workspace *ws;        /* where it decides without `think` */
    bool own_ws;                 /* ws is this seat's, to free on close */
    ddz_timer delay;             /* the think delay before a pool decision */
    bool asked;                  /* a request is open */
    ddz_ev ask;                  /* that request */
    const ddz_table *table;      /* where the request came from */
    ddz_think_job *job;          /* a decision in flight, at most one */
    long *alive;                 /* the environment's count of AI objects, or NULL */
    char key[DDZ_THINK_KEY_MAX]; /* its jobs' owner key */
    bool metered;                /* the key's budget applies to its jobs */
    int budget_ms;               /* its AI's budget per decision, 0 = the AI's default */
} ai_seat;

static void decide_now(ai_seat *a)
{
    ddz_view v;
    ddz_view_of(ddz_table_state(a->table), a->ask.seat, &v);
    a->asked = false;
    int bid = 0;
    ddz_cards cards = 0;
    if (a->ask.kind == DDZ_EV_ASK_BID)
        bid = ddz_ai_bid(a->ai, &v, a->ws);
    else
        cards = ddz_ai_play(a->ai, &v, a->ws);
    a->base.host.act(a->base.host.ctx, &a->base, a->ask.kind, a->ask.seq, bid, cards);
}

static void submit(ai_seat *a)
{
    if (a->job)
        return; /* the AI is busy with an old request; ddz_seat_ai_done asks again */
    ddz_think_job *j = calloc(1, sizeof *j);
    if (!j)
        return; /* the table's clock will charge the seat: better than a crash */
    j->ai = a->ai;
    ddz_view_of(ddz_table_state(a->table), a->ask.seat, &j->view);
    j->kind = a->ask.kind;
    j->seq = a->ask.seq;
    j->seat = a->ask.seat;
    memcpy(j->key, a->key, sizeof j->key);
    j->metered = a->metered;
    j->budget_ms = a->budget_ms;
    j->owner = a;
    a->job = j;
    if (ddz_think_submit(a->think, j) < 0) {
        a->job = NULL;
        free(j);
    }
}

static void on_delay(ddz_timer *t)
{
    ai_seat *a = (ai_seat *)((char *)t - offsetof(ai_seat, delay));
    if (a->asked)
        submit(a);
}

void ddz_seat_ai_done(ddz_think_job *j)
{
    ai_seat *a = j->owner;
    if (!a) { /* the seat closed while its AI thought */
        if (j->own_ai) {
            ddz_ai_destroy(j->ai);
            if (j->ai_count)
                --*j->ai_count;
        }
        free(j);
        return;
    }
    a->job = NULL;
    bool current = a->asked && !atomic_load(&j->cancel) && j->seq == a->ask.seq;
    if (current) {
        a->asked = false;
        a->base.host.act(a->base.host.ctx, &a->base, j->kind, j->seq, j->bid, j->cards);
    } else if (a->asked) {
        submit(a); /* the request moved on while the AI thought: think again */
    }
    free(j);
}

static void ai_ask(ddz_seat *s, const ddz_ev *ev, const ddz_table *t)
{
    ai_seat *a = (ai_seat *)s;
    a->ask = *ev;
    a->table = t;
    a->asked = true;
    if (!a->think) {
        decide_now(a);
        return;
    }
    int64_t delay = s->host.think_delay_us ? s->host.think_delay_us(s->host.ctx) : 0;
    ddz_loop_arm(s->loop, &a->delay, on_delay, delay);
}

static void ai_cancel(ddz_seat *s)
{
    ai_seat *a = (ai_seat *)s;
    a->asked = false;
    ddz_loop_disarm(s->loop, &a->delay);
    if (a->job)
        atomic_store(&a->job->cancel, 1);
}

static const char *ai_name(const ddz_seat *s)
{
    return ((const ai_seat *)s)->name;
}

static void ai_close(ddz_seat *s)
{
    ai_seat *a = (ai_seat *)s;
    ddz_loop_disarm(s->loop, &a->delay);
    if (a->job) { /* in flight: the worker owns the AI until it comes back */
        atomic_store(&a->job->cancel, 1);
        a->job->owner = NULL;
        a->job->own_ai = 1;
        a->job->ai_count = a->alive; /* the AI still counts until the job frees it */
    } else {
        ddz_ai_destroy(a->ai);
        if (a->alive)
            --*a->alive;
    }
    if (a->own_ws)
        ddz_ai_workspace_destroy(a->ws);
    free(a);
}

static const ddz_seat_ops ai_ops = {
    .kind = "ai",
    .deliver = NULL, /* the AI reads its seat's view from the table when asked */
    .ask = ai_ask,
    .cancel = ai_cancel,
    .name = ai_name,
    .close = ai_close,
};

ddz_seat *ddz_seat_ai_create(const char *name, const ddz_seat_env *env, int *err)
{
    ai_seat *a = calloc(1, sizeof *a);
    if (!a) {
        *err = DDZ_ENOMEM;
        return NULL;
    }
    a->ai = ddz_ai_create(name, env->ai_seed, env->ai_budget_ms, err);
    if (!a->ai) {
        free(a);
        return NULL;
    }
    a->think = env->think;
    snprintf(a->key, sizeof a->key, "%s", env->think_key ? env->think_key : "");
    a->metered = env->think_metered;
    a->budget_ms = env->ai_budget_ms;
    if (!a->think) {
        a->ws = env->workspace;
        if (!a->ws) {
            a->ws = ddz_ai_workspace_create();
            a->own_ws = true;
        }
        if (!a->ws) {
            ddz_ai_destroy(a->ai);
            free(a);
            *err = DDZ_ENOMEM;
            return NULL;
        }
    }
    a->base = (ddz_seat){.ops = &ai_ops, .loop = env->loop, .player = -1, .program = true};
    a->alive = env->ais_alive;
    if (a->alive)
        ++*a->alive;
    if (env->ais_created)
        ++*env->ais_created;
    snprintf(a->name, sizeof a->name, "ai:%s", name);
    return &a->base;
}
