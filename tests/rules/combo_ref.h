/* combo_ref.h - the slow twin of the classifier, for tests only.
 *
 * Instead of reading a play, it builds every legal play from the definitions
 * of spec §4 and §8 (main part first, then every kicker multiset), records
 * each reading, and keeps per multiset the canonical one: the earliest type
 * in the seed's order, then the highest main rank, then (20-card planes) the
 * singles shape. It reads two numbers of the rule set: whether kickers may
 * repeat and whether quad straights exist. Nothing is shared with
 * rules/combo.c but the types, and ddz_combo_beats in ref_brute_moves (the
 * brute-force move list checks the generator's choice of plays, not the
 * comparison).
 */
#ifndef DDZ_TEST_COMBO_REF_H
#define DDZ_TEST_COMBO_REF_H

#include <stdlib.h>
#include <string.h>

#include "rules/combo.h"

typedef struct ref_play {
    ddz_ranks ranks;
    ddz_combo combo;
} ref_play;

typedef struct ref_table {
    ref_play *v;
    size_t n, cap;
    int kickers_may_repeat;
} ref_table;

static void ref_push(ref_table *t, ddz_ranks m, int type, int rank, int len, int kick, int size)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->v = realloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n++] =
        (ref_play){m, {(uint8_t)type, (uint8_t)rank, (uint8_t)len, (uint8_t)kick, (uint8_t)size}};
}

static int ref_count(ddz_ranks m, int r)
{
    return (int)((m >> (4 * r)) & 0xF);
}

/* Every way to add `units` kicker units of `unit` cards from ranks >= r not
 * in [lo, hi]; a rank holds at most 4 cards (jokers 1, and never pairs). */
static void ref_kick(ref_table *t, ddz_ranks m, int r, int lo, int hi, int unit, int units,
                     int type, int rank, int len, int kick)
{
    if (units == 0) {
        int size = 0;
        for (int i = 0; i < DDZ_NRANKS; i++)
            size += ref_count(m, i);
        if (size <= DDZ_HAND_MAX)
            ref_push(t, m, type, rank, len, kick, size);
        return;
    }
    for (; r < DDZ_NRANKS; r++) {
        if (r >= lo && r <= hi)
            continue;
        int cap = r >= DDZ_RANK_SJ ? (unit == 1 ? 1 : 0) : 4;
        for (int k = 1; k * unit <= cap && k <= units; k++) {
            if (!t->kickers_may_repeat && k > 1)
                break;
            ref_kick(t, m + ((uint64_t)(k * unit) << (4 * r)), r + 1, lo, hi, unit, units - k, type,
                     rank, len, kick);
        }
    }
}

static int ref_cmp(const void *a, const void *b)
{
    const ref_play *x = a, *y = b;
    if (x->ranks != y->ranks)
        return x->ranks < y->ranks ? -1 : 1;
    if (x->combo.type != y->combo.type)
        return x->combo.type - y->combo.type;
    if (x->combo.rank != y->combo.rank)
        return y->combo.rank - x->combo.rank;
    return x->combo.kicker - y->combo.kicker; /* singles shape first */
}

/* Builds the table of every legal play under `rs` with its canonical
 * reading, sorted by ranks, one entry per multiset. */
static void ref_build(ref_table *t, const ddz_rules *rs)
{
    memset(t, 0, sizeof *t);
    t->kickers_may_repeat = rs->kickers_may_repeat;
    ref_push(t, ((ddz_ranks)1 << (4 * 13)) | ((ddz_ranks)1 << (4 * 14)), DDZ_ROCKET, 14, 1, 0, 2);
    for (int r = 0; r < DDZ_NRANKS; r++) {
        ddz_ranks one = (ddz_ranks)1 << (4 * r);
        ref_push(t, one, DDZ_SINGLE, r, 1, 0, 1);
        if (r >= DDZ_RANK_SJ)
            continue;
        ref_push(t, 2 * one, DDZ_PAIR, r, 1, 0, 2);
        ref_push(t, 3 * one, DDZ_TRIO, r, 1, 0, 3);
        ref_push(t, 4 * one, DDZ_BOMB, r, 1, 0, 4);
        ref_kick(t, 3 * one, 0, r, r, 1, 1, DDZ_TRIO_KICKER, r, 1, DDZ_KICK_SINGLE);
        ref_kick(t, 3 * one, 0, r, r, 2, 1, DDZ_TRIO_KICKER, r, 1, DDZ_KICK_PAIR);
        ref_kick(t, 4 * one, 0, r, r, 1, 2, DDZ_FOUR_TWO, r, 1, DDZ_KICK_SINGLE);
        ref_kick(t, 4 * one, 0, r, r, 2, 2, DDZ_FOUR_TWO, r, 1, DDZ_KICK_PAIR);
    }
    for (int lo = 0; lo <= DDZ_RANK_A; lo++)
        for (int hi = lo; hi <= DDZ_RANK_A; hi++) {
            int len = hi - lo + 1;
            ddz_ranks m1 = 0;
            for (int r = lo; r <= hi; r++)
                m1 += (ddz_ranks)1 << (4 * r);
            if (len >= 5 && len <= 12)
                ref_push(t, m1, DDZ_STRAIGHT, hi, len, 0, len);
            if (len >= 3 && len <= 10)
                ref_push(t, 2 * m1, DDZ_PAIR_STRAIGHT, hi, len, 0, 2 * len);
            if (len >= 2 && len <= 6)
                ref_push(t, 3 * m1, DDZ_TRIO_STRAIGHT, hi, len, 0, 3 * len);
            if (len >= 2 && 4 * len <= DDZ_HAND_MAX)
                ref_kick(t, 3 * m1, 0, lo, hi, 1, len, DDZ_PLANE, hi, len, DDZ_KICK_SINGLE);
            if (len >= 2 && 5 * len <= DDZ_HAND_MAX)
                ref_kick(t, 3 * m1, 0, lo, hi, 2, len, DDZ_PLANE, hi, len, DDZ_KICK_PAIR);
            /* spec §8: fours in a row, bare or with two singles or two pairs
             * per four */
            if (rs->quad_straight && len >= 2 && 4 * len <= DDZ_HAND_MAX)
                ref_push(t, 4 * m1, DDZ_QUAD_STRAIGHT, hi, len, 0, 4 * len);
            if (rs->quad_straight && len >= 2 && 6 * len <= DDZ_HAND_MAX)
                ref_kick(t, 4 * m1, 0, lo, hi, 1, 2 * len, DDZ_QUAD_STRAIGHT, hi, len,
                         DDZ_KICK_SINGLE);
            if (rs->quad_straight && len >= 2 && 8 * len <= DDZ_HAND_MAX)
                ref_kick(t, 4 * m1, 0, lo, hi, 2, 2 * len, DDZ_QUAD_STRAIGHT, hi, len,
                         DDZ_KICK_PAIR);
        }
    qsort(t->v, t->n, sizeof *t->v, ref_cmp);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++)
        if (w == 0 || t->v[w - 1].ranks != t->v[i].ranks)
            t->v[w++] = t->v[i];
    t->n = w;
}

/* Returns the canonical reading of `m`, type DDZ_INVALID if none. */
static ddz_combo ref_classify(const ref_table *t, ddz_ranks m)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->v[mid].ranks < m)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->n && t->v[lo].ranks == m)
        return t->v[lo].combo;
    return (ddz_combo){.type = DDZ_INVALID};
}

/* Brute force: every sub-multiset of `hand` that ref_classify reads as a
 * play and that beats `last` (any play when last is NULL, a lead), plus
 * the pass when following, into res (room for every sub-multiset, plus
 * one). Returns how many. Inline so that tests not using it see no unused
 * function. */
static inline int ref_brute_moves(const ref_table *t, ddz_ranks hand, const ddz_combo *last,
                                  ddz_ranks *res)
{
    int c[DDZ_NRANKS], k[DDZ_NRANKS] = {0}, n = 0;
    for (int r = 0; r < DDZ_NRANKS; r++)
        c[r] = ddz_ranks_get(hand, r);
    for (;;) {
        ddz_ranks m = 0;
        for (int r = 0; r < DDZ_NRANKS; r++)
            m = ddz_ranks_add(m, r, k[r]);
        if (m) {
            ddz_combo cb = ref_classify(t, m);
            if (cb.type != DDZ_INVALID && (!last || ddz_combo_beats(cb, *last)))
                res[n++] = m;
        }
        int r = 0;
        while (r < DDZ_NRANKS && k[r] == c[r])
            k[r++] = 0;
        if (r == DDZ_NRANKS)
            break;
        k[r]++;
    }
    if (last)
        res[n++] = 0;
    return n;
}

#endif
