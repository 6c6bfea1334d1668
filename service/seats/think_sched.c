/* think_sched.c - the think pool's fair order and thinking budgets
 * (think_sched.h). */
#include "service/seats/think_sched.h"

#include <stdlib.h>
#include <string.h>

#include "rules/error.h"

enum { BUCKETS = 256 };

#define SWEEP_US 1000000 /* how often idle lanes are looked at for a full bucket */

/* One key's queue, its share of the workers and its bucket. */
typedef struct lane {
    struct lane *hnext;         /* hash chain */
    struct lane *prev, *next;   /* the active list (jobs queued) or the idle list */
    ddz_think_job *head, *tail; /* queued, oldest first, linked by mail.next */
    long queued;                /* jobs in head..tail */
    long running;               /* jobs taken, not yet done */
    int64_t vt;                 /* thinking charged, on the scheduler's virtual clock */
    uint64_t served;            /* when it was last taken from (a count), 0 = never */
    bool metered;               /* a metered job came: its bucket applies */
    bool idle;                  /* on the idle list: no job, remembered for its debt */
    int64_t tokens;             /* thinking it may still use at full budget (µs; < 0: debt) */
    int64_t tokens_at;          /* when `tokens` was last brought up to date */
    char key[DDZ_THINK_KEY_MAX];
} lane;

/* A doubly linked list of lanes, oldest first. */
typedef struct lane_list {
    lane *first, *last;
    long n;
} lane_list;

struct ddz_think_sched {
    ddz_think_budget budget;
    lane *bucket[BUCKETS];
    long lanes;
    lane_list active; /* lanes with jobs queued */
    lane_list idle;   /* metered lanes with no job whose bucket is not yet full */
    int64_t vclock;   /* the virtual time of the lane taken from last: where a lane starts */
    uint64_t serial;  /* takes so far */
    long queued, running, lean;
    int64_t swept_at; /* the last sweep of the idle list */
};

static void list_add(lane_list *ls, lane *l)
{
    l->prev = ls->last;
    l->next = NULL;
    if (ls->last)
        ls->last->next = l;
    else
        ls->first = l;
    ls->last = l;
    ls->n++;
}

static void list_del(lane_list *ls, lane *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        ls->first = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        ls->last = l->prev;
    l->prev = l->next = NULL;
    ls->n--;
}

static unsigned hash(const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h % BUCKETS;
}

static lane *find(ddz_think_sched *s, const char *key)
{
    for (lane *l = s->bucket[hash(key)]; l; l = l->hnext)
        if (strcmp(l->key, key) == 0)
            return l;
    return NULL;
}

static void unhash_free(ddz_think_sched *s, lane *l)
{
    for (lane **p = &s->bucket[hash(l->key)]; *p; p = &(*p)->hnext)
        if (*p == l) {
            *p = l->hnext;
            break;
        }
    s->lanes--;
    free(l);
}

static bool budgeted(const ddz_think_sched *s, const lane *l)
{
    return l->metered && s->budget.rate_us > 0;
}

/* Brings the bucket of `l` up to `now`: `rate_us` a second, up to the burst. */
static void refill(const ddz_think_sched *s, lane *l, int64_t now)
{
    if (now <= l->tokens_at)
        return;
    double add = (double)(now - l->tokens_at) * (double)s->budget.rate_us / 1e6;
    double room = (double)(s->budget.burst_us - l->tokens);
    l->tokens = add >= room ? s->budget.burst_us : l->tokens + (int64_t)add;
    l->tokens_at = now;
}

/* `l` has no job now: forgotten, or remembered on the idle list while its
 * bucket is not full (its debt must outlive a gap between its jobs). */
static void went_idle(ddz_think_sched *s, lane *l, int64_t now)
{
    if (budgeted(s, l)) {
        refill(s, l, now);
        if (l->tokens < s->budget.burst_us) {
            l->idle = true;
            list_add(&s->idle, l);
            if (s->idle.n > DDZ_THINK_IDLE_MAX) { /* the one idle the longest goes */
                lane *old = s->idle.first;
                list_del(&s->idle, old);
                unhash_free(s, old);
            }
            return;
        }
    }
    unhash_free(s, l);
}

/* Forgets the idle lanes whose bucket has refilled (at most once a
 * second: a walk of at most DDZ_THINK_IDLE_MAX lanes). */
static void sweep(ddz_think_sched *s, int64_t now)
{
    if (now - s->swept_at < SWEEP_US && now >= s->swept_at)
        return;
    s->swept_at = now;
    for (lane *l = s->idle.first, *next; l; l = next) {
        next = l->next;
        refill(s, l, now);
        if (l->tokens >= s->budget.burst_us) {
            list_del(&s->idle, l);
            unhash_free(s, l);
        }
    }
}

ddz_think_sched *ddz_think_sched_create(const ddz_think_budget *b)
{
    ddz_think_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (b && b->rate_us > 0) {
        s->budget = *b;
        if (s->budget.burst_us < s->budget.rate_us)
            s->budget.burst_us = s->budget.rate_us;
    }
    return s;
}

void ddz_think_sched_destroy(ddz_think_sched *s)
{
    if (!s)
        return;
    for (int i = 0; i < BUCKETS; i++)
        for (lane *l = s->bucket[i], *next; l; l = next) {
            next = l->hnext;
            free(l);
        }
    free(s);
}

int ddz_think_sched_put(ddz_think_sched *s, ddz_think_job *j, int64_t now)
{
    sweep(s, now);
    j->key[sizeof j->key - 1] = '\0';
    lane *l = find(s, j->key);
    if (!l) {
        l = calloc(1, sizeof *l);
        if (!l)
            return DDZ_ENOMEM;
        memcpy(l->key, j->key, sizeof l->key);
        l->tokens = s->budget.burst_us;
        l->tokens_at = now;
        unsigned h = hash(l->key);
        l->hnext = s->bucket[h];
        s->bucket[h] = l;
        s->lanes++;
    }
    if (l->idle) {
        list_del(&s->idle, l);
        l->idle = false;
    }
    l->metered |= j->metered;
    if (l->queued == 0 && l->running == 0 && l->vt < s->vclock)
        l->vt = s->vclock; /* back from quiet: level with the key served last */
    j->mail.next = NULL;
    if (l->tail)
        l->tail->mail.next = &j->mail;
    else
        l->head = j;
    l->tail = j;
    if (l->queued++ == 0)
        list_add(&s->active, l);
    s->queued++;
    return 0;
}

/* Whether lane `a` goes before lane `b`: fewer jobs running, then less
 * thinking charged, then served longer ago. */
static bool before(const lane *a, const lane *b)
{
    if (a->running != b->running)
        return a->running < b->running;
    if (a->vt != b->vt)
        return a->vt < b->vt;
    return a->served < b->served;
}

ddz_think_job *ddz_think_sched_take(ddz_think_sched *s, int64_t now)
{
    sweep(s, now);
    lane *best = NULL;
    for (lane *l = s->active.first; l; l = l->next)
        if (!best || before(l, best))
            best = l;
    if (!best)
        return NULL;
    ddz_think_job *j = best->head;
    best->head = DDZ_MAIL_ITEM(j->mail.next, ddz_think_job, mail);
    if (!best->head)
        best->tail = NULL;
    j->mail.next = NULL;
    if (--best->queued == 0)
        list_del(&s->active, best);
    best->running++;
    best->served = ++s->serial;
    if (best->vt > s->vclock)
        s->vclock = best->vt;
    s->queued--;
    s->running++;
    j->lean = false;
    if (j->metered && budgeted(s, best)) {
        refill(s, best, now);
        j->lean = best->tokens <= 0;
        s->lean += j->lean;
    }
    return j;
}

void ddz_think_sched_done(ddz_think_sched *s, ddz_think_job *j, int64_t now)
{
    lane *l = find(s, j->key);
    if (!l || l->running == 0)
        return; /* not taken from here: nothing to charge */
    l->running--;
    s->running--;
    int64_t used = j->think_us > 0 ? j->think_us : 0;
    l->vt += used;
    /* A lean decision is what a key gets past its budget: it costs the
     * bucket nothing, so the bucket refills while the key runs lean and its
     * debt stays within what its full-strength jobs in flight used. */
    if (j->metered && !j->lean && budgeted(s, l)) {
        refill(s, l, now);
        l->tokens -= used;
    }
    if (l->queued == 0 && l->running == 0)
        went_idle(s, l, now);
}

ddz_think_job *ddz_think_sched_drain(ddz_think_sched *s)
{
    ddz_think_job *first = NULL, *last = NULL;
    while (s->active.first) {
        lane *l = s->active.first;
        if (last)
            last->mail.next = &l->head->mail;
        else
            first = l->head;
        last = l->tail;
        s->queued -= l->queued;
        l->head = l->tail = NULL;
        l->queued = 0;
        list_del(&s->active, l);
    }
    return first;
}

void ddz_think_sched_stats(ddz_think_sched *s, int64_t now, ddz_think_stats *out)
{
    *out = (ddz_think_stats){
        .queued = s->queued, .running = s->running, .keys = s->lanes, .lean = s->lean};
    for (int i = 0; i < BUCKETS; i++)
        for (lane *l = s->bucket[i]; l; l = l->hnext)
            if (budgeted(s, l)) {
                refill(s, l, now);
                if (s->budget.burst_us - l->tokens > out->spent_us)
                    out->spent_us = s->budget.burst_us - l->tokens;
            }
}
