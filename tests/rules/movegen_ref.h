/* movegen_ref.h - the move generator and classifier as they were before
 * issue 26 made them faster, frozen, for tests only.
 *
 * rules/movegen.c promises the same moves in the same order as this copy
 * (ai:greedy, hints, the solver and recorded games depend on the order), and
 * test_movegen.c compares the two move lists exactly, position by position.
 * The classifier the old generator used to filter its candidates is frozen
 * here too, so that a later change to rules/combo.c cannot move both sides
 * of the comparison at once. Everything is static and prefixed mref_.
 */
#ifndef DDZ_TEST_MOVEGEN_REF_H
#define DDZ_TEST_MOVEGEN_REF_H

#include "rules/error.h"
#include "rules/movegen.h"

typedef struct mref_counts {
    uint8_t c[DDZ_NRANKS]; /* cards per rank */
    uint8_t h[5];          /* h[k] = number of ranks held exactly k times */
    int n;                 /* total cards */
} mref_counts;

static void mref_unpack(ddz_ranks m, mref_counts *k)
{
    for (int i = 0; i < 5; i++)
        k->h[i] = 0;
    k->n = 0;
    for (int r = 0; r < DDZ_NRANKS; r++) {
        int v = ddz_ranks_get(m, r);
        k->c[r] = (uint8_t)v;
        if (v <= 4) /* a count above 4 is in no h[], which classify rejects */
            k->h[v]++;
        k->n += v;
    }
}

/* Rank held exactly `want` times, the highest if several; -1 if none. */
static int mref_rank_with(const mref_counts *k, int want)
{
    for (int r = DDZ_NRANKS - 1; r >= 0; r--)
        if (k->c[r] == want)
            return r;
    return -1;
}

/* True when the ranks held are exactly `len` consecutive ranks, each held
 * `each` times, ending at most at A; sets *top to the highest. */
static bool mref_is_chain(const mref_counts *k, int each, int len, int *top)
{
    if (k->h[each] != len || k->n != each * len)
        return false;
    int hi = mref_rank_with(k, each);
    if (hi > DDZ_RANK_A)
        return false;
    for (int r = hi - len + 1; r <= hi; r++)
        if (r < 0 || k->c[r] != each)
            return false;
    *top = hi;
    return true;
}

/* The kicker cards (all ranks outside [lo, hi] or other than `skip`) must be
 * `units` singles or `units` pairs. Ranks inside the main part must not
 * appear among kickers, which the caller ensures by requiring exact mref_counts. */
static bool mref_kickers_ok(const ddz_rules *rs, const mref_counts *k, int lo, int hi, int units,
                            int kind)
{
    int got = 0;
    for (int r = 0; r < DDZ_NRANKS; r++) {
        if (r >= lo && r <= hi)
            continue;
        int v = k->c[r];
        if (v == 0)
            continue;
        if (kind == DDZ_KICK_PAIR) {
            /* Jokers are never a pair; a four mref_counts as two pairs. */
            if (r >= DDZ_RANK_SJ || v % 2 != 0)
                return false;
            if (!rs->kickers_may_repeat && v != 2)
                return false;
            got += v / 2;
        } else {
            if (!rs->kickers_may_repeat && v != 1)
                return false;
            got += v;
        }
    }
    return got == units;
}

static ddz_combo mref_mk(int type, int rank, int length, int kicker, int size)
{
    return (ddz_combo){(uint8_t)type, (uint8_t)rank, (uint8_t)length, (uint8_t)kicker,
                       (uint8_t)size};
}

/* Plane with `len` trios and kicker kind `kind`: highest chain first. */
static bool mref_plane(const ddz_rules *rs, const mref_counts *k, int len, int kind, ddz_combo *out)
{
    for (int hi = DDZ_RANK_A; hi - len + 1 >= 0; hi--) {
        int lo = hi - len + 1, r;
        for (r = lo; r <= hi && k->c[r] == 3; r++)
            ;
        if (r <= hi)
            continue;
        if (mref_kickers_ok(rs, k, lo, hi, len, kind)) {
            *out = mref_mk(DDZ_PLANE, hi, len, kind, k->n);
            return true;
        }
    }
    return false;
}

/* Quad straight (spec §8): for each chain top, highest first, the shapes
 * without wings, with 2 singles and with 2 pairs per four; the chain's ranks
 * hold exactly four cards. The first that fits is the reading. */
static bool mref_quad(const ddz_rules *rs, const mref_counts *k, ddz_combo *out)
{
    static const int per_four[3] = {4, 6, 8}; /* cards per four: none, singles, pairs */
    for (int hi = DDZ_RANK_A; hi >= 1; hi--)
        for (int kind = DDZ_KICK_NONE; kind <= DDZ_KICK_PAIR; kind++) {
            if (k->n % per_four[kind] != 0)
                continue;
            int len = k->n / per_four[kind], lo = hi - len + 1, r;
            if (len < 2 || lo < 0)
                continue;
            for (r = lo; r <= hi && k->c[r] == 4; r++)
                ;
            if (r <= hi)
                continue;
            if (kind == DDZ_KICK_NONE ? k->n == 4 * len
                                      : mref_kickers_ok(rs, k, lo, hi, 2 * len, kind)) {
                *out = mref_mk(DDZ_QUAD_STRAIGHT, hi, len, kind, k->n);
                return true;
            }
        }
    return false;
}

static inline ddz_combo mref_classify(const ddz_rules *rs, ddz_ranks m)
{
    mref_counts k;
    mref_unpack(m, &k);
    int n = k.n, top, r;
    ddz_combo out = mref_mk(DDZ_INVALID, 0, 0, 0, n);

    if (n == 0)
        return mref_mk(DDZ_PASS, 0, 0, DDZ_KICK_NONE, 0);
    if (k.h[0] + k.h[1] + k.h[2] + k.h[3] + k.h[4] != DDZ_NRANKS || n > DDZ_HAND_MAX ||
        k.c[DDZ_RANK_SJ] > 1 || k.c[DDZ_RANK_BJ] > 1)
        return out; /* a count above 4, or more jokers than exist */
    if (n == 2 && k.c[DDZ_RANK_SJ] && k.c[DDZ_RANK_BJ])
        return mref_mk(DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2);
    if (n == 4 && k.h[4] == 1)
        return mref_mk(DDZ_BOMB, mref_rank_with(&k, 4), 1, DDZ_KICK_NONE, 4);
    if (n == 1)
        return mref_mk(DDZ_SINGLE, mref_rank_with(&k, 1), 1, DDZ_KICK_NONE, 1);
    if (n == 2 && k.h[2] == 1)
        return mref_mk(DDZ_PAIR, mref_rank_with(&k, 2), 1, DDZ_KICK_NONE, 2);
    if (n == 3 && k.h[3] == 1)
        return mref_mk(DDZ_TRIO, mref_rank_with(&k, 3), 1, DDZ_KICK_NONE, 3);
    if (n == 4 && k.h[3] == 1)
        return mref_mk(DDZ_TRIO_KICKER, mref_rank_with(&k, 3), 1, DDZ_KICK_SINGLE, 4);
    if (n == 5 && k.h[3] == 1 && k.h[2] == 1)
        return mref_mk(DDZ_TRIO_KICKER, mref_rank_with(&k, 3), 1, DDZ_KICK_PAIR, 5);
    if (n >= 5 && n <= 12 && mref_is_chain(&k, 1, n, &top))
        return mref_mk(DDZ_STRAIGHT, top, n, DDZ_KICK_NONE, n);
    if (n % 2 == 0 && n / 2 >= 3 && n / 2 <= 10 && mref_is_chain(&k, 2, n / 2, &top))
        return mref_mk(DDZ_PAIR_STRAIGHT, top, n / 2, DDZ_KICK_NONE, n);
    if (n % 3 == 0 && n / 3 >= 2 && n / 3 <= 6 && mref_is_chain(&k, 3, n / 3, &top))
        return mref_mk(DDZ_TRIO_STRAIGHT, top, n / 3, DDZ_KICK_NONE, n);
    /* Singles shape first: for 20 cards it wins over the pairs shape. */
    if (n % 4 == 0 && n / 4 >= 2 && mref_plane(rs, &k, n / 4, DDZ_KICK_SINGLE, &out))
        return out;
    if (n % 5 == 0 && n / 5 >= 2 && mref_plane(rs, &k, n / 5, DDZ_KICK_PAIR, &out))
        return out;
    if (n == 6 && (r = mref_rank_with(&k, 4)) >= 0 &&
        mref_kickers_ok(rs, &k, r, r, 2, DDZ_KICK_SINGLE))
        return mref_mk(DDZ_FOUR_TWO, r, 1, DDZ_KICK_SINGLE, 6);
    if (n == 8)
        for (r = DDZ_RANK_2; r >= 0; r--)
            if (k.c[r] == 4 && mref_kickers_ok(rs, &k, r, r, 2, DDZ_KICK_PAIR))
                return mref_mk(DDZ_FOUR_TWO, r, 1, DDZ_KICK_PAIR, 8);
    if (rs->quad_straight && n >= 8 && mref_quad(rs, &k, &out))
        return out;
    return out;
}

typedef struct mref_gen {
    const ddz_rules *rs;
    uint8_t c[DDZ_NRANKS]; /* the hand's cards per rank */
    int n;                 /* cards in hand */
    ddz_move *out;
    size_t cap, len;
    bool full; /* a move did not fit */
    bool stop; /* stop at the first move (can_beat) */
} mref_gen;

static void mref_emit(mref_gen *g, ddz_ranks m, ddz_combo c)
{
    if (g->len < g->cap)
        g->out[g->len] = (ddz_move){m, c};
    else
        g->full = true;
    g->len++;
}

static inline bool mref_done(const mref_gen *g)
{
    return g->stop && g->len > 0;
}

/* n cards of one rank: single, pair, trio or bomb, for main ranks above
 * `above` (-1 for all). */
static void mref_gen_same(mref_gen *g, int type, int n, int above)
{
    for (int r = above + 1; r < DDZ_NRANKS && !mref_done(g); r++) {
        if (g->c[r] < n || (n == 4 && r >= DDZ_RANK_SJ))
            continue;
        if (n == 2 && r >= DDZ_RANK_SJ)
            continue;
        mref_emit(g, ddz_ranks_add(0, r, n), mref_mk(type, r, 1, DDZ_KICK_NONE, n));
    }
}

static void mref_gen_rocket(mref_gen *g)
{
    if (g->c[DDZ_RANK_SJ] && g->c[DDZ_RANK_BJ])
        mref_emit(g, ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1),
                  mref_mk(DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2));
}

/* Chains of `each` cards per rank; `len` == 0 means every legal length. */
static void mref_gen_chain(mref_gen *g, int type, int each, int minlen, int maxlen, int len,
                           int above)
{
    for (int lo = 0; lo <= DDZ_RANK_A && !mref_done(g); lo++) {
        ddz_ranks m = 0;
        for (int hi = lo; hi <= DDZ_RANK_A && hi - lo + 1 <= maxlen; hi++) {
            if (g->c[hi] < each)
                break;
            m = ddz_ranks_add(m, hi, each);
            int l = hi - lo + 1;
            if (l < minlen || (len && l != len) || hi <= above)
                continue;
            mref_emit(g, m, mref_mk(type, hi, l, DDZ_KICK_NONE, l * each));
            if (mref_done(g))
                return;
        }
    }
}

/* Kicker enumeration: chooses `units` more units (a unit is one card, or a
 * pair when `unit` == 2) from ranks >= r outside [lo, hi], adding them to
 * `m`, and hands each complete play to `accept`. */
typedef struct mref_kick {
    mref_gen *g;
    int lo, hi, unit, units;
    ddz_combo want; /* the reading being generated */
} mref_kick;

static void mref_accept(const mref_kick *k, ddz_ranks m)
{
    /* Keep the play only if its canonical reading is the one generated:
     * otherwise it is another type (a longer trio chain) or is emitted from
     * its canonical chain or four. */
    ddz_combo c = mref_classify(k->g->rs, m);
    if (c.type == k->want.type && c.rank == k->want.rank && c.length == k->want.length &&
        c.kicker == k->want.kicker)
        mref_emit(k->g, m, c);
}

static void mref_kickers(const mref_kick *k, int r, int left, ddz_ranks m)
{
    if (left == 0) {
        mref_accept(k, m);
        return;
    }
    for (; r < DDZ_NRANKS && !mref_done(k->g); r++) {
        if (r >= k->lo && r <= k->hi)
            continue;
        if (k->unit == 2 && r >= DDZ_RANK_SJ)
            break;
        int most = k->g->c[r] / k->unit;
        if (!k->g->rs->kickers_may_repeat && most > 1)
            most = 1;
        if (most > left)
            most = left;
        for (int t = 1; t <= most; t++)
            mref_kickers(k, r + 1, left - t, ddz_ranks_add(m, r, t * k->unit));
    }
}

/* Trio + kicker (len 1, kind given) or plane (len >= 2), main rank > above. */
static void mref_gen_trio_kick(mref_gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, size = len * (3 + unit);
    if (size > g->n)
        return;
    for (int hi = len - 1; hi < (len == 1 ? DDZ_RANK_SJ : DDZ_RANK_A + 1) && !mref_done(g); hi++) {
        int lo = hi - len + 1;
        if (hi <= above)
            continue;
        ddz_ranks m = 0;
        int r;
        for (r = lo; r <= hi && g->c[r] >= 3; r++)
            m = ddz_ranks_add(m, r, 3);
        if (r <= hi)
            continue;
        mref_kick k = {g,   lo,
                       hi,  unit,
                       len, mref_mk(len == 1 ? DDZ_TRIO_KICKER : DDZ_PLANE, hi, len, kind, size)};
        mref_kickers(&k, 0, len, m);
    }
}

static void mref_gen_four_two(mref_gen *g, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1;
    if (4 + 2 * unit > g->n)
        return;
    for (int f = above + 1; f <= DDZ_RANK_2 && !mref_done(g); f++) {
        if (g->c[f] != 4)
            continue;
        mref_kick k = {g, f, f, unit, 2, mref_mk(DDZ_FOUR_TWO, f, 1, kind, 4 + 2 * unit)};
        mref_kickers(&k, 0, 2, ddz_ranks_add(0, f, 4));
    }
}

/* Quad straight of `len` fours with wings `kind` (spec §8), top > above. */
static void mref_gen_quad(mref_gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, units = kind == DDZ_KICK_NONE ? 0 : 2 * len;
    int size = 4 * len + unit * units;
    if (size > g->n || size > DDZ_HAND_MAX)
        return;
    for (int hi = len - 1; hi <= DDZ_RANK_A && !mref_done(g); hi++) {
        int lo = hi - len + 1, r;
        if (hi <= above)
            continue;
        ddz_ranks m = 0;
        for (r = lo; r <= hi && g->c[r] == 4; r++)
            m = ddz_ranks_add(m, r, 4);
        if (r <= hi)
            continue;
        mref_kick k = {g, lo, hi, unit, units, mref_mk(DDZ_QUAD_STRAIGHT, hi, len, kind, size)};
        mref_kickers(&k, 0, units, m);
    }
}

static void mref_lead(mref_gen *g)
{
    mref_gen_same(g, DDZ_SINGLE, 1, -1);
    mref_gen_same(g, DDZ_PAIR, 2, -1);
    mref_gen_same(g, DDZ_TRIO, 3, -1);
    mref_gen_same(g, DDZ_BOMB, 4, -1);
    mref_gen_rocket(g);
    mref_gen_trio_kick(g, 1, DDZ_KICK_SINGLE, -1);
    mref_gen_trio_kick(g, 1, DDZ_KICK_PAIR, -1);
    mref_gen_chain(g, DDZ_STRAIGHT, 1, 5, 12, 0, -1);
    mref_gen_chain(g, DDZ_PAIR_STRAIGHT, 2, 3, 10, 0, -1);
    mref_gen_chain(g, DDZ_TRIO_STRAIGHT, 3, 2, 6, 0, -1);
    for (int len = 2; len <= 5; len++) {
        mref_gen_trio_kick(g, len, DDZ_KICK_SINGLE, -1);
        mref_gen_trio_kick(g, len, DDZ_KICK_PAIR, -1);
    }
    mref_gen_four_two(g, DDZ_KICK_SINGLE, -1);
    mref_gen_four_two(g, DDZ_KICK_PAIR, -1);
    if (g->rs->quad_straight)
        for (int len = 2; len <= DDZ_HAND_MAX / 4; len++)
            for (int kind = DDZ_KICK_NONE; kind <= DDZ_KICK_PAIR; kind++)
                mref_gen_quad(g, len, kind, -1);
}

/* Plays of the same shape as `last` with a higher main rank. */
static void mref_follow_same(mref_gen *g, ddz_combo last)
{
    int above = last.rank;
    switch (last.type) {
    case DDZ_SINGLE:
        mref_gen_same(g, DDZ_SINGLE, 1, above);
        break;
    case DDZ_PAIR:
        mref_gen_same(g, DDZ_PAIR, 2, above);
        break;
    case DDZ_TRIO:
        mref_gen_same(g, DDZ_TRIO, 3, above);
        break;
    case DDZ_TRIO_KICKER:
    case DDZ_PLANE:
        mref_gen_trio_kick(g, last.length, last.kicker, above);
        break;
    case DDZ_STRAIGHT:
        mref_gen_chain(g, DDZ_STRAIGHT, 1, 5, 12, last.length, above);
        break;
    case DDZ_PAIR_STRAIGHT:
        mref_gen_chain(g, DDZ_PAIR_STRAIGHT, 2, 3, 10, last.length, above);
        break;
    case DDZ_TRIO_STRAIGHT:
        mref_gen_chain(g, DDZ_TRIO_STRAIGHT, 3, 2, 6, last.length, above);
        break;
    case DDZ_FOUR_TWO:
        mref_gen_four_two(g, last.kicker, above);
        break;
    case DDZ_QUAD_STRAIGHT:
        if (g->rs->quad_straight)
            mref_gen_quad(g, last.length, last.kicker, above);
        break;
    default:
        break;
    }
}

static void mref_follow(mref_gen *g, ddz_combo last)
{
    if (last.type == DDZ_ROCKET)
        return;
    if (last.type != DDZ_BOMB)
        mref_follow_same(g, last);
    mref_gen_same(g, DDZ_BOMB, 4, last.type == DDZ_BOMB ? last.rank : -1);
    mref_gen_rocket(g);
}

static void mref_setup(mref_gen *g, const ddz_rules *rs, ddz_ranks hand)
{
    g->rs = rs;
    g->n = 0;
    for (int r = 0; r < DDZ_NRANKS; r++) {
        g->c[r] = (uint8_t)ddz_ranks_get(hand, r);
        g->n += g->c[r];
    }
    g->len = 0;
    g->full = false;
}

static inline int mref_movegen(const ddz_rules *rs, ddz_ranks hand, const ddz_combo *last,
                               ddz_move *out, size_t cap)
{
    mref_gen g;
    mref_setup(&g, rs, hand);
    g.out = out;
    g.cap = cap;
    g.stop = false;
    if (last == NULL || last->type == DDZ_PASS) {
        mref_lead(&g);
    } else {
        mref_follow(&g, *last);
        mref_emit(&g, 0, mref_mk(DDZ_PASS, 0, 0, DDZ_KICK_NONE, 0));
    }
    return g.full ? DDZ_ENOSPC : (int)g.len;
}

static inline bool mref_can_beat(const ddz_rules *rs, ddz_ranks hand, ddz_combo last)
{
    ddz_move one;
    mref_gen g;
    mref_setup(&g, rs, hand);
    g.out = &one;
    g.cap = 1;
    g.stop = true;
    mref_follow(&g, last);
    return g.len > 0;
}

#endif
