/* test_timer_heap.c - the timer heap against a slow obvious twin (a plain
 * array scanned for its minimum): ordering, ties in arming order,
 * re-arming, disarming the top and the middle, reserving room, many
 * timers. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "ai/rng.h"
#include "service/net/timer_heap.h"

/* Checks the heap property and every timer's slot. */
static void check(const ddz_theap *h)
{
    for (uint32_t i = 0; i < h->n; i++) {
        cr_assert_eq(h->v[i]->heap_idx, i);
        cr_assert(h->v[i]->armed);
        if (i > 0) {
            const ddz_timer *p = h->v[(i - 1) / 2], *c = h->v[i];
            cr_assert(p->due_us < c->due_us || (p->due_us == c->due_us && p->seq < c->seq),
                      "slot %u is before its parent", i);
        }
    }
}

Test(timer_heap, pops_in_due_order_ties_in_arming_order)
{
    ddz_theap h = DDZ_THEAP_INIT;
    ddz_timer t[6] = {0};
    int64_t due[6] = {50, 10, 30, 10, 70, 30};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(ddz_theap_push(&h, &t[i], due[i]), 0);
    check(&h);
    int want[6] = {1, 3, 2, 5, 0, 4};
    for (int i = 0; i < 6; i++) {
        ddz_timer *x = ddz_theap_pop_due(&h, 1000, UINT64_MAX);
        cr_assert_eq(x, &t[want[i]], "pop %d", i);
        cr_assert_not(x->armed);
        check(&h);
    }
    cr_assert_null(ddz_theap_pop_due(&h, 1000, UINT64_MAX));
    ddz_theap_free(&h);
}

Test(timer_heap, not_due_and_armed_this_turn_wait)
{
    ddz_theap h = DDZ_THEAP_INIT;
    ddz_timer a = {0}, b = {0};
    ddz_theap_push(&h, &a, 100);
    cr_assert_null(ddz_theap_pop_due(&h, 99, UINT64_MAX));
    uint64_t turn = h.next_seq;
    ddz_theap_push(&h, &b, 50); /* armed "now" by a callback of this turn */
    cr_assert_null(ddz_theap_pop_due(&h, 100, turn), "b waits for the next turn");
    cr_assert_eq(ddz_theap_pop_due(&h, 100, UINT64_MAX), &b);
    cr_assert_eq(ddz_theap_pop_due(&h, 100, UINT64_MAX), &a);
    ddz_theap_free(&h);
}

Test(timer_heap, rearm_moves_without_growing)
{
    ddz_theap h = DDZ_THEAP_INIT;
    ddz_timer t[3] = {0};
    for (int i = 0; i < 3; i++)
        ddz_theap_push(&h, &t[i], 10 * (i + 1));
    ddz_theap_push(&h, &t[0], 100); /* the top goes last */
    check(&h);
    cr_assert_eq(h.n, 3);
    cr_assert_eq(ddz_theap_top(&h), &t[1]);
    ddz_theap_push(&h, &t[2], 1); /* the last goes first */
    check(&h);
    cr_assert_eq(h.n, 3);
    cr_assert_eq(ddz_theap_top(&h), &t[2]);
    ddz_theap_free(&h);
    cr_assert_not(t[0].armed);
}

/* The load test reserves a slot for each of its connections up front:
 * arming that many then never reallocates (so never fails). */
Test(timer_heap, reserve_makes_room_once)
{
    ddz_theap h = DDZ_THEAP_INIT;
    enum { N = 300 }; /* past the first doubling's 64 and 128 */
    static ddz_timer t[N];
    cr_assert_eq(ddz_theap_reserve(&h, N), 0);
    ddz_timer **v = h.v;
    cr_assert_eq(h.cap, N);
    cr_assert_eq(ddz_theap_reserve(&h, 10), 0, "a smaller reserve keeps the room");
    cr_assert_eq(h.cap, N);
    for (int i = 0; i < N; i++)
        cr_assert_eq(ddz_theap_push(&h, &t[i], (i * 7919) % N), 0);
    cr_assert_eq(h.v, v, "no reallocation");
    cr_assert_eq(h.cap, N);
    check(&h);
    for (int i = 0; i < N; i++)
        cr_assert_eq(ddz_theap_pop_due(&h, N, UINT64_MAX)->due_us, i);
    ddz_theap_free(&h);
}

Test(timer_heap, disarm_top_middle_and_twice)
{
    ddz_theap h = DDZ_THEAP_INIT;
    ddz_timer t[7] = {0};
    for (int i = 0; i < 7; i++)
        ddz_theap_push(&h, &t[i], i);
    ddz_theap_remove(&h, &t[0]); /* the top */
    check(&h);
    ddz_theap_remove(&h, &t[4]); /* the middle */
    check(&h);
    ddz_theap_remove(&h, &t[4]); /* again: nothing */
    ddz_theap_remove(&h, &t[6]); /* the last slot */
    check(&h);
    cr_assert_eq(h.n, 4);
    int want[4] = {1, 2, 3, 5};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ddz_theap_pop_due(&h, 100, UINT64_MAX), &t[want[i]]);
    ddz_theap_free(&h);
}

/* 20,000 timers, random arm / re-arm / disarm / pop against the twin. */
Test(timer_heap, many_timers_match_a_scanned_array)
{
    enum { N = 20000, OPS = 200000 };
    ddz_timer *t = calloc(N, sizeof *t);
    cr_assert_not_null(t);
    ddz_theap h = DDZ_THEAP_INIT;
    ddz_rng rng;
    ddz_rng_seed(&rng, 16);
    int64_t now = 0;
    for (int op = 0; op < OPS; op++) {
        uint32_t k = ddz_rng_below(&rng, N), what = ddz_rng_below(&rng, 10);
        if (what < 6) {
            cr_assert_eq(ddz_theap_push(&h, &t[k], now + ddz_rng_below(&rng, 1000)), 0);
        } else if (what < 8) {
            ddz_theap_remove(&h, &t[k]);
        } else {
            now += ddz_rng_below(&rng, 20);
            ddz_timer *x = ddz_theap_pop_due(&h, now, UINT64_MAX);
            /* the twin: the armed timer with the least (due, seq) */
            ddz_timer *best = NULL;
            for (int i = 0; i < N; i++)
                if (t[i].armed && (!best || t[i].due_us < best->due_us ||
                                   (t[i].due_us == best->due_us && t[i].seq < best->seq)))
                    best = &t[i];
            if (x) {
                cr_assert(!best || x->due_us < best->due_us ||
                              (x->due_us == best->due_us && x->seq < best->seq),
                          "op %d popped a timer that is not the first", op);
                cr_assert_leq(x->due_us, now);
            } else {
                cr_assert(!best || best->due_us > now, "op %d: a due timer was not popped", op);
            }
        }
        if (op % 10000 == 0)
            check(&h);
    }
    check(&h);
    uint32_t armed = 0;
    for (int i = 0; i < N; i++)
        armed += t[i].armed;
    cr_assert_eq(armed, h.n);
    ddz_theap_free(&h);
    free(t);
}
