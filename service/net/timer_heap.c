/* timer_heap.c - the binary min-heap of armed timers (timer_heap.h). */
#include "service/net/timer_heap.h"

#include <stdlib.h>

#include "rules/error.h"

static bool before(const ddz_timer *a, const ddz_timer *b)
{
    return a->due_us < b->due_us || (a->due_us == b->due_us && a->seq < b->seq);
}

static void place(ddz_theap *h, uint32_t i, ddz_timer *t)
{
    h->v[i] = t;
    t->heap_idx = i;
}

/* Moves `t`, whose slot is `i`, up or down to where it belongs. */
static void sift(ddz_theap *h, uint32_t i, ddz_timer *t)
{
    while (i > 0 && before(t, h->v[(i - 1) / 2])) {
        place(h, i, h->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        ddz_timer *best = t;
        if (l < h->n && before(h->v[l], best))
            m = l, best = h->v[l];
        if (l + 1 < h->n && before(h->v[l + 1], best))
            m = l + 1, best = h->v[l + 1];
        if (m == i)
            break;
        place(h, i, best);
        i = m;
    }
    place(h, i, t);
}

int ddz_theap_reserve(ddz_theap *h, uint32_t n)
{
    if (n <= h->cap)
        return 0;
    ddz_timer **v = realloc(h->v, n * sizeof *v);
    if (!v)
        return DDZ_ENOMEM;
    h->v = v;
    h->cap = n;
    return 0;
}

int ddz_theap_push(ddz_theap *h, ddz_timer *t, int64_t due_us)
{
    if (t->armed && t->heap_idx < h->n && h->v[t->heap_idx] == t) {
        t->due_us = due_us;
        t->seq = h->next_seq++;
        sift(h, t->heap_idx, t);
        return 0;
    }
    if (h->n == h->cap && ddz_theap_reserve(h, h->cap ? h->cap * 2 : 64) < 0)
        return DDZ_ENOMEM;
    t->armed = true;
    t->due_us = due_us;
    t->seq = h->next_seq++;
    sift(h, h->n++, t);
    return 0;
}

void ddz_theap_remove(ddz_theap *h, ddz_timer *t)
{
    if (!t->armed || t->heap_idx >= h->n || h->v[t->heap_idx] != t) {
        t->armed = false;
        return;
    }
    uint32_t i = t->heap_idx;
    t->armed = false;
    ddz_timer *last = h->v[--h->n];
    if (i < h->n)
        sift(h, i, last);
}

ddz_timer *ddz_theap_pop_due(ddz_theap *h, int64_t now_us, uint64_t before_seq)
{
    ddz_timer *t = ddz_theap_top(h);
    if (!t || t->due_us > now_us || t->seq >= before_seq)
        return NULL;
    ddz_theap_remove(h, t);
    return t;
}

void ddz_theap_free(ddz_theap *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        h->v[i]->armed = false;
    free(h->v);
    *h = (ddz_theap)DDZ_THEAP_INIT;
}
