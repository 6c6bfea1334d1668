/* combo.c - the classifier. Counts per rank are unpacked once; every type
 * test is then a look at those counts. The slow twin (every play built from
 * the definitions) lives in tests/rules/combo_ref.h. */
#include "combo.h"

typedef struct counts {
    uint8_t c[DDZ_NRANKS]; /* cards per rank */
    uint8_t h[5];          /* h[k] = number of ranks held exactly k times */
    int n;                 /* total cards */
} counts;

static void unpack(ddz_ranks m, counts *k)
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
static int rank_with(const counts *k, int want)
{
    for (int r = DDZ_NRANKS - 1; r >= 0; r--)
        if (k->c[r] == want)
            return r;
    return -1;
}

/* True when the ranks held are exactly `len` consecutive ranks, each held
 * `each` times, ending at most at A; sets *top to the highest. */
static bool is_chain(const counts *k, int each, int len, int *top)
{
    if (k->h[each] != len || k->n != each * len)
        return false;
    int hi = rank_with(k, each);
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
 * appear among kickers, which the caller ensures by requiring exact counts. */
static bool kickers_ok(const ddz_rules *rs, const counts *k, int lo, int hi, int units, int kind)
{
    int got = 0;
    for (int r = 0; r < DDZ_NRANKS; r++) {
        if (r >= lo && r <= hi)
            continue;
        int v = k->c[r];
        if (v == 0)
            continue;
        if (kind == DDZ_KICK_PAIR) {
            /* Jokers are never a pair; a four counts as two pairs. */
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

static ddz_combo mk(int type, int rank, int length, int kicker, int size)
{
    return (ddz_combo){(uint8_t)type, (uint8_t)rank, (uint8_t)length, (uint8_t)kicker,
                       (uint8_t)size};
}

/* Plane with `len` trios and kicker kind `kind`: highest chain first. */
static bool plane(const ddz_rules *rs, const counts *k, int len, int kind, ddz_combo *out)
{
    for (int hi = DDZ_RANK_A; hi - len + 1 >= 0; hi--) {
        int lo = hi - len + 1, r;
        for (r = lo; r <= hi && k->c[r] == 3; r++)
            ;
        if (r <= hi)
            continue;
        if (kickers_ok(rs, k, lo, hi, len, kind)) {
            *out = mk(DDZ_PLANE, hi, len, kind, k->n);
            return true;
        }
    }
    return false;
}

/* Quad straight (spec §8): for each chain top, highest first, the shapes
 * without wings, with 2 singles and with 2 pairs per four; the chain's ranks
 * hold exactly four cards. The first that fits is the reading. */
static bool quad(const ddz_rules *rs, const counts *k, ddz_combo *out)
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
                                      : kickers_ok(rs, k, lo, hi, 2 * len, kind)) {
                *out = mk(DDZ_QUAD_STRAIGHT, hi, len, kind, k->n);
                return true;
            }
        }
    return false;
}

ddz_combo ddz_combo_classify(const ddz_rules *rs, ddz_ranks m)
{
    counts k;
    unpack(m, &k);
    int n = k.n, top, r;
    ddz_combo out = mk(DDZ_INVALID, 0, 0, 0, n);

    if (n == 0)
        return mk(DDZ_PASS, 0, 0, DDZ_KICK_NONE, 0);
    if (k.h[0] + k.h[1] + k.h[2] + k.h[3] + k.h[4] != DDZ_NRANKS || n > DDZ_HAND_MAX ||
        k.c[DDZ_RANK_SJ] > 1 || k.c[DDZ_RANK_BJ] > 1)
        return out; /* a count above 4, or more jokers than exist */
    if (n == 2 && k.c[DDZ_RANK_SJ] && k.c[DDZ_RANK_BJ])
        return mk(DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2);
    if (n == 4 && k.h[4] == 1)
        return mk(DDZ_BOMB, rank_with(&k, 4), 1, DDZ_KICK_NONE, 4);
    if (n == 1)
        return mk(DDZ_SINGLE, rank_with(&k, 1), 1, DDZ_KICK_NONE, 1);
    if (n == 2 && k.h[2] == 1)
        return mk(DDZ_PAIR, rank_with(&k, 2), 1, DDZ_KICK_NONE, 2);
    if (n == 3 && k.h[3] == 1)
        return mk(DDZ_TRIO, rank_with(&k, 3), 1, DDZ_KICK_NONE, 3);
    if (n == 4 && k.h[3] == 1)
        return mk(DDZ_TRIO_KICKER, rank_with(&k, 3), 1, DDZ_KICK_SINGLE, 4);
    if (n == 5 && k.h[3] == 1 && k.h[2] == 1)
        return mk(DDZ_TRIO_KICKER, rank_with(&k, 3), 1, DDZ_KICK_PAIR, 5);
    if (n >= 5 && n <= 12 && is_chain(&k, 1, n, &top))
        return mk(DDZ_STRAIGHT, top, n, DDZ_KICK_NONE, n);
    if (n % 2 == 0 && n / 2 >= 3 && n / 2 <= 10 && is_chain(&k, 2, n / 2, &top))
        return mk(DDZ_PAIR_STRAIGHT, top, n / 2, DDZ_KICK_NONE, n);
    if (n % 3 == 0 && n / 3 >= 2 && n / 3 <= 6 && is_chain(&k, 3, n / 3, &top))
        return mk(DDZ_TRIO_STRAIGHT, top, n / 3, DDZ_KICK_NONE, n);
    /* Singles shape first: for 20 cards it wins over the pairs shape. */
    if (n % 4 == 0 && n / 4 >= 2 && plane(rs, &k, n / 4, DDZ_KICK_SINGLE, &out))
        return out;
    if (n % 5 == 0 && n / 5 >= 2 && plane(rs, &k, n / 5, DDZ_KICK_PAIR, &out))
        return out;
    if (n == 6 && (r = rank_with(&k, 4)) >= 0 && kickers_ok(rs, &k, r, r, 2, DDZ_KICK_SINGLE))
        return mk(DDZ_FOUR_TWO, r, 1, DDZ_KICK_SINGLE, 6);
    if (n == 8)
        for (r = DDZ_RANK_2; r >= 0; r--)
            if (k.c[r] == 4 && kickers_ok(rs, &k, r, r, 2, DDZ_KICK_PAIR))
                return mk(DDZ_FOUR_TWO, r, 1, DDZ_KICK_PAIR, 8);
    if (rs->quad_straight && n >= 8 && quad(rs, &k, &out))
        return out;
    return out;
}

bool ddz_combo_beats(ddz_combo a, ddz_combo last)
{
    if (a.type == DDZ_ROCKET)
        return last.type != DDZ_ROCKET;
    if (last.type == DDZ_ROCKET)
        return false;
    if (a.type == DDZ_BOMB)
        return last.type != DDZ_BOMB || a.rank > last.rank;
    if (last.type == DDZ_BOMB)
        return false;
    return a.type == last.type && a.size == last.size && a.length == last.length &&
           a.kicker == last.kicker && a.rank > last.rank;
}

const char *ddz_type_name(int type)
{
    static const char *const names[DDZ_NTYPES] = {
        "invalid", "rocket",      "bomb",          "single",        "pair",
        "trio",    "trio_kicker", "straight",      "pair_straight", "trio_straight",
        "plane",   "four_two",    "quad_straight", "pass"};
    return type >= 0 && type < DDZ_NTYPES ? names[type] : "invalid";
}

const char *ddz_kicker_name(int kicker)
{
    static const char *const names[] = {"none", "single", "pair"};
    return kicker >= 0 && kicker <= DDZ_KICK_PAIR ? names[kicker] : "none";
}
