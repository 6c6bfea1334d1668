/* rated_queue.c - who plays whom in rated quick play (rated_queue.h). */
#include "service/rating/rated_queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules/error.h"

#define CANDIDATES 8 /* the nearest acceptable people tried as a pair, at most */

typedef struct waiter {
    int64_t player;
    double rating;
    int64_t since_us;
} waiter;

struct ddz_rated_queue {
    ddz_rated_queue_cfg cfg;
    int cap, n;
    waiter w[]; /* in the order they came: the longest waiter first */
};

void ddz_rated_queue_cfg_default(ddz_rated_queue_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->w0 = 100;
    c->growth = 10;
    c->wmax = 500;
    c->fill_us = INT64_C(20) * 1000000;
}

ddz_rated_queue *ddz_rated_queue_create(const ddz_rated_queue_cfg *c, int cap)
{
    if (!c || cap < 1 || cap > 100000 || c->nais < 0 || c->nais > DDZ_RATED_QUEUE_AIS)
        return NULL;
    ddz_rated_queue *q = calloc(1, sizeof *q + (size_t)cap * sizeof(waiter));
    if (!q)
        return NULL;
    q->cfg = *c;
    q->cap = cap;
    return q;
}

void ddz_rated_queue_destroy(ddz_rated_queue *q)
{
    free(q);
}

static int find(const ddz_rated_queue *q, int64_t player)
{
    for (int i = 0; i < q->n; i++)
        if (q->w[i].player == player)
            return i;
    return -1;
}

int ddz_rated_queue_add(ddz_rated_queue *q, int64_t player, double rating, int64_t now_us)
{
    if (!q || player == 0 || !isfinite(rating))
        return DDZ_EINVAL;
    if (find(q, player) >= 0)
        return DDZ_EEXIST;
    if (q->n == q->cap)
        return DDZ_ENOSPC;
    q->w[q->n++] = (waiter){.player = player, .rating = rating, .since_us = now_us};
    return 0;
}

static void take(ddz_rated_queue *q, int i)
{
    memmove(&q->w[i], &q->w[i + 1], (size_t)(q->n - i - 1) * sizeof(waiter));
    q->n--;
}

bool ddz_rated_queue_remove(ddz_rated_queue *q, int64_t player)
{
    int i = q ? find(q, player) : -1;
    if (i < 0)
        return false;
    take(q, i);
    return true;
}

int ddz_rated_queue_len(const ddz_rated_queue *q)
{
    return q ? q->n : 0;
}

int ddz_rated_queue_set_ai_rating(ddz_rated_queue *q, int64_t player, double rating)
{
    if (!q || !isfinite(rating))
        return DDZ_EINVAL;
    for (int a = 0; a < q->cfg.nais; a++)
        if (q->cfg.ai[a] == player) {
            q->cfg.ai_rating[a] = rating;
            return 0;
        }
    return DDZ_ENOTFOUND;
}

double ddz_rated_queue_window(const ddz_rated_queue_cfg *c, int64_t waited_us)
{
    double w = c->w0 + c->growth * (double)(waited_us < 0 ? 0 : waited_us) / 1e6;
    return w < c->wmax ? w : c->wmax;
}

static double window_of(const ddz_rated_queue *q, const waiter *w, int64_t now_us)
{
    return ddz_rated_queue_window(&q->cfg, now_us - w->since_us);
}

/* Whether a and b accept each other: each within the other's window. */
static bool accept(const ddz_rated_queue *q, const waiter *a, const waiter *b, int64_t now_us)
{
    double d = fabs(a->rating - b->rating);
    return d <= window_of(q, a, now_us) && d <= window_of(q, b, now_us);
}

/* The up to CANDIDATES people who accept waiter `p` (and whom it
 * accepts), nearest in rating first: their indexes in `out`; returns how
 * many. */
static int candidates(const ddz_rated_queue *q, int p, int64_t now_us, int out[CANDIDATES])
{
    int n = 0;
    for (int i = 0; i < q->n; i++) {
        if (i == p || !accept(q, &q->w[p], &q->w[i], now_us))
            continue;
        double d = fabs(q->w[i].rating - q->w[p].rating);
        /* insertion into the nearest CANDIDATES, the farthest dropped */
        int at = n < CANDIDATES ? n++ : CANDIDATES;
        while (at > 0 && fabs(q->w[out[at - 1]].rating - q->w[p].rating) > d) {
            if (at < CANDIDATES)
                out[at] = out[at - 1];
            at--;
        }
        if (at < CANDIDATES)
            out[at] = i;
    }
    return n;
}

/* The hosted AIs nearest in rating to `rating`, `k` of them, distinct:
 * their numbers into `out`. Returns false when there are fewer than k. */
static bool nearest_ais(const ddz_rated_queue *q, double rating, int k, int64_t *out)
{
    if (k > q->cfg.nais)
        return false;
    bool used[DDZ_RATED_QUEUE_AIS] = {false};
    for (int j = 0; j < k; j++) {
        int best = -1;
        for (int a = 0; a < q->cfg.nais; a++)
            if (!used[a] && (best < 0 || fabs(q->cfg.ai_rating[a] - rating) <
                                             fabs(q->cfg.ai_rating[best] - rating)))
                best = a;
        used[best] = true;
        out[j] = q->cfg.ai[best];
    }
    return true;
}

/* Takes the people at indexes idx[0..n) (n <= 3) out of the queue, in
 * that order into `m`, and fills the rest of `m` with AIs `ais`. */
static void seat(ddz_rated_queue *q, const int *idx, int n, const int64_t *ais, ddz_rated_match *m)
{
    memset(m, 0, sizeof *m);
    m->people = n;
    for (int i = 0; i < n; i++)
        m->player[i] = q->w[idx[i]].player;
    for (int i = n; i < 3; i++) {
        m->player[i] = ais[i - n];
        m->ai[i] = true;
    }
    /* out of the queue, the highest index first so the others stay put */
    int sorted[3];
    memcpy(sorted, idx, (size_t)n * sizeof *idx);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (sorted[j] > sorted[i]) {
                int t = sorted[i];
                sorted[i] = sorted[j];
                sorted[j] = t;
            }
    for (int i = 0; i < n; i++)
        take(q, sorted[i]);
}

int ddz_rated_queue_match(ddz_rated_queue *q, int64_t now_us, ddz_rated_match *out)
{
    if (!q || !out)
        return 0;
    /* The longest waiter first: q->w is in the order people came. */
    for (int p = 0; p < q->n; p++) {
        int c[CANDIDATES];
        int nc = candidates(q, p, now_us, c);
        /* three people: the nearest pair that also accept each other */
        for (int i = 0; i < nc; i++)
            for (int j = i + 1; j < nc; j++) {
                if (!accept(q, &q->w[c[i]], &q->w[c[j]], now_us))
                    continue;
                int idx[3] = {p, c[i], c[j]};
                seat(q, idx, 3, NULL, out);
                return 1;
            }
        /* waited long enough: the nearest person, if any, and AIs */
        if (now_us - q->w[p].since_us < q->cfg.fill_us)
            continue;
        int64_t ais[2];
        int idx[2] = {p, nc ? c[0] : -1};
        int people = nc ? 2 : 1;
        if (!nearest_ais(q, q->w[p].rating, 3 - people, ais))
            continue; /* too few AIs to fill with */
        seat(q, idx, people, ais, out);
        return 1;
    }
    return 0;
}
