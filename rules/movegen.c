/* movegen.c - the generator. One emitter collects moves; `stop` makes it
 * answer "is there any?" after the first without building the list. */
#include "movegen.h"

#include "error.h"

typedef struct gen {
    const ddz_rules *rs;
    uint8_t c[DDZ_NRANKS]; /* the hand's cards per rank */
    int n;                 /* cards in hand */
    ddz_move *out;
    size_t cap, len;
    bool full; /* a move did not fit */
    bool stop; /* stop at the first move (can_beat) */
} gen;

static void emit(gen *g, ddz_ranks m, ddz_combo c)
{
    if (g->len < g->cap)
        g->out[g->len] = (ddz_move){m, c};
    else
        g->full = true;
    g->len++;
}

static inline bool done(const gen *g)
{
    return g->stop && g->len > 0;
}

static ddz_combo mk(int type, int rank, int length, int kicker, int size)
{
    return (ddz_combo){(uint8_t)type, (uint8_t)rank, (uint8_t)length, (uint8_t)kicker,
                       (uint8_t)size};
}

/* n cards of one rank: single, pair, trio or bomb, for main ranks above
 * `above` (-1 for all). */
static void gen_same(gen *g, int type, int n, int above)
{
    for (int r = above + 1; r < DDZ_NRANKS && !done(g); r++) {
        if (g->c[r] < n || (n == 4 && r >= DDZ_RANK_SJ))
            continue;
        if (n == 2 && r >= DDZ_RANK_SJ)
            continue;
        emit(g, ddz_ranks_add(0, r, n), mk(type, r, 1, DDZ_KICK_NONE, n));
    }
}

static void gen_rocket(gen *g)
{
    if (g->c[DDZ_RANK_SJ] && g->c[DDZ_RANK_BJ])
        emit(g, ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1),
             mk(DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2));
}

/* Chains of `each` cards per rank; `len` == 0 means every legal length. */
static void gen_chain(gen *g, int type, int each, int minlen, int maxlen, int len, int above)
{
    for (int lo = 0; lo <= DDZ_RANK_A && !done(g); lo++) {
        ddz_ranks m = 0;
        for (int hi = lo; hi <= DDZ_RANK_A && hi - lo + 1 <= maxlen; hi++) {
            if (g->c[hi] < each)
                break;
            m = ddz_ranks_add(m, hi, each);
            int l = hi - lo + 1;
            if (l < minlen || (len && l != len) || hi <= above)
                continue;
            emit(g, m, mk(type, hi, l, DDZ_KICK_NONE, l * each));
            if (done(g))
                return;
        }
    }
}

/* Kicker enumeration: chooses `units` more units (a unit is one card, or a
 * pair when `unit` == 2) from ranks >= r outside [lo, hi], adding them to
 * `m`, and hands each complete play to `accept`. */
typedef struct kick {
    gen *g;
    int lo, hi, unit, units;
    ddz_combo want; /* the reading being generated */
} kick;

static void accept(const kick *k, ddz_ranks m)
{
    /* Keep the play only if its canonical reading is the one generated:
     * otherwise it is another type (a longer trio chain) or is emitted from
     * its canonical chain or four. */
    ddz_combo c = ddz_combo_classify(k->g->rs, m);
    if (c.type == k->want.type && c.rank == k->want.rank && c.length == k->want.length &&
        c.kicker == k->want.kicker)
        emit(k->g, m, c);
}

static void kickers(const kick *k, int r, int left, ddz_ranks m)
{
    if (left == 0) {
        accept(k, m);
        return;
    }
    for (; r < DDZ_NRANKS && !done(k->g); r++) {
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
            kickers(k, r + 1, left - t, ddz_ranks_add(m, r, t * k->unit));
    }
}

/* Trio + kicker (len 1, kind given) or plane (len >= 2), main rank > above. */
static void gen_trio_kick(gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, size = len * (3 + unit);
    if (size > g->n)
        return;
    for (int hi = len - 1; hi < (len == 1 ? DDZ_RANK_SJ : DDZ_RANK_A + 1) && !done(g); hi++) {
        int lo = hi - len + 1;
        if (hi <= above)
            continue;
        ddz_ranks m = 0;
        int r;
        for (r = lo; r <= hi && g->c[r] >= 3; r++)
            m = ddz_ranks_add(m, r, 3);
        if (r <= hi)
            continue;
        kick k = {g,    lo,  hi,
                  unit, len, mk(len == 1 ? DDZ_TRIO_KICKER : DDZ_PLANE, hi, len, kind, size)};
        kickers(&k, 0, len, m);
    }
}

static void gen_four_two(gen *g, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1;
    if (4 + 2 * unit > g->n)
        return;
    for (int f = above + 1; f <= DDZ_RANK_2 && !done(g); f++) {
        if (g->c[f] != 4)
            continue;
        kick k = {g, f, f, unit, 2, mk(DDZ_FOUR_TWO, f, 1, kind, 4 + 2 * unit)};
        kickers(&k, 0, 2, ddz_ranks_add(0, f, 4));
    }
}

/* Quad straight of `len` fours with wings `kind` (SPEC 8), top > above. */
static void gen_quad(gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, units = kind == DDZ_KICK_NONE ? 0 : 2 * len;
    int size = 4 * len + unit * units;
    if (size > g->n || size > DDZ_HAND_MAX)
        return;
    for (int hi = len - 1; hi <= DDZ_RANK_A && !done(g); hi++) {
        int lo = hi - len + 1, r;
        if (hi <= above)
            continue;
        ddz_ranks m = 0;
        for (r = lo; r <= hi && g->c[r] == 4; r++)
            m = ddz_ranks_add(m, r, 4);
        if (r <= hi)
            continue;
        kick k = {g, lo, hi, unit, units, mk(DDZ_QUAD_STRAIGHT, hi, len, kind, size)};
        kickers(&k, 0, units, m);
    }
}

static void lead(gen *g)
{
    gen_same(g, DDZ_SINGLE, 1, -1);
    gen_same(g, DDZ_PAIR, 2, -1);
    gen_same(g, DDZ_TRIO, 3, -1);
    gen_same(g, DDZ_BOMB, 4, -1);
    gen_rocket(g);
    gen_trio_kick(g, 1, DDZ_KICK_SINGLE, -1);
    gen_trio_kick(g, 1, DDZ_KICK_PAIR, -1);
    gen_chain(g, DDZ_STRAIGHT, 1, 5, 12, 0, -1);
    gen_chain(g, DDZ_PAIR_STRAIGHT, 2, 3, 10, 0, -1);
    gen_chain(g, DDZ_TRIO_STRAIGHT, 3, 2, 6, 0, -1);
    for (int len = 2; len <= 5; len++) {
        gen_trio_kick(g, len, DDZ_KICK_SINGLE, -1);
        gen_trio_kick(g, len, DDZ_KICK_PAIR, -1);
    }
    gen_four_two(g, DDZ_KICK_SINGLE, -1);
    gen_four_two(g, DDZ_KICK_PAIR, -1);
    if (g->rs->quad_straight)
        for (int len = 2; len <= DDZ_HAND_MAX / 4; len++)
            for (int kind = DDZ_KICK_NONE; kind <= DDZ_KICK_PAIR; kind++)
                gen_quad(g, len, kind, -1);
}

/* Plays of the same shape as `last` with a higher main rank. */
static void follow_same(gen *g, ddz_combo last)
{
    int above = last.rank;
    switch (last.type) {
    case DDZ_SINGLE:
        gen_same(g, DDZ_SINGLE, 1, above);
        break;
    case DDZ_PAIR:
        gen_same(g, DDZ_PAIR, 2, above);
        break;
    case DDZ_TRIO:
        gen_same(g, DDZ_TRIO, 3, above);
        break;
    case DDZ_TRIO_KICKER:
    case DDZ_PLANE:
        gen_trio_kick(g, last.length, last.kicker, above);
        break;
    case DDZ_STRAIGHT:
        gen_chain(g, DDZ_STRAIGHT, 1, 5, 12, last.length, above);
        break;
    case DDZ_PAIR_STRAIGHT:
        gen_chain(g, DDZ_PAIR_STRAIGHT, 2, 3, 10, last.length, above);
        break;
    case DDZ_TRIO_STRAIGHT:
        gen_chain(g, DDZ_TRIO_STRAIGHT, 3, 2, 6, last.length, above);
        break;
    case DDZ_FOUR_TWO:
        gen_four_two(g, last.kicker, above);
        break;
    case DDZ_QUAD_STRAIGHT:
        if (g->rs->quad_straight)
            gen_quad(g, last.length, last.kicker, above);
        break;
    default:
        break;
    }
}

static void follow(gen *g, ddz_combo last)
{
    if (last.type == DDZ_ROCKET)
        return;
    if (last.type != DDZ_BOMB)
        follow_same(g, last);
    gen_same(g, DDZ_BOMB, 4, last.type == DDZ_BOMB ? last.rank : -1);
    gen_rocket(g);
}

static void setup(gen *g, const ddz_rules *rs, ddz_ranks hand)
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

int ddz_movegen(const ddz_rules *rs, ddz_ranks hand, const ddz_combo *last, ddz_move *out,
                size_t cap)
{
    gen g;
    setup(&g, rs, hand);
    g.out = out;
    g.cap = cap;
    g.stop = false;
    if (last == NULL || last->type == DDZ_PASS) {
        lead(&g);
    } else {
        follow(&g, *last);
        emit(&g, 0, mk(DDZ_PASS, 0, 0, DDZ_KICK_NONE, 0));
    }
    return g.full ? DDZ_ENOSPC : (int)g.len;
}

bool ddz_movegen_can_beat(const ddz_rules *rs, ddz_ranks hand, ddz_combo last)
{
    ddz_move one;
    gen g;
    setup(&g, rs, hand);
    g.out = &one;
    g.cap = 1;
    g.stop = true;
    follow(&g, last);
    return g.len > 0;
}
