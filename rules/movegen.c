/* movegen.c - the generator. One emitter collects moves; `stop` makes it
 * answer "is there any?" after the first without building the list.
 *
 * Speed (issue 26): the hand is read once into rank masks (bit r set when
 * rank r is held at least k times), so every shape walks only the ranks
 * that can take part, and chains come from AND-ing shifted masks. Kicker
 * combinations are no longer classified one by one: a candidate whose
 * kickers hold at most two cards of any rank can be read only the way it
 * was built (the argument is at accept()), so only the rare rest goes
 * through ddz_combo_classify. The moves and their order are those of the
 * generator before (tests/rules/movegen_ref.h, compared in
 * tests/rules/test_movegen.c).
 */
#include "movegen.h"

#include "error.h"

enum {
    ALL_RANKS = (1 << DDZ_NRANKS) - 1,
    BELOW_SJ = (1 << DDZ_RANK_SJ) - 1,         /* ranks 3..2: those that pair and bomb */
    CHAIN_RANKS = (1 << (DDZ_RANK_A + 1)) - 1, /* ranks 3..A: those chains use */
};

typedef struct gen {
    const ddz_rules *rs;
    ddz_ranks hand;
    unsigned has[5]; /* has[k]: bit r set when rank r is held at least k times (k 1..4) */
    unsigned four;   /* ranks held exactly four times (four_two, quad straights) */
    int n;           /* cards in hand */
    bool odd_hand;   /* more than 4 of a rank, 2 of a joker or 21+ cards: classify all */
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

static inline int lowest(unsigned mask)
{
    return __builtin_ctz(mask);
}

/* Ranks above `above` (-1 for all; none above 14). */
static inline unsigned above_mask(int above)
{
    if (above < 0)
        return ALL_RANKS;
    return above >= DDZ_NRANKS - 1 ? 0 : ALL_RANKS & ~((2u << above) - 1);
}

/* n cards of one rank: single, pair, trio or bomb, for main ranks above
 * `above` (-1 for all). Jokers never pair or bomb. */
static void gen_same(gen *g, int type, int n, int above)
{
    unsigned mask = g->has[n] & above_mask(above);
    if (n == 2 || n == 4)
        mask &= BELOW_SJ;
    for (; mask && !done(g); mask &= mask - 1) {
        int r = lowest(mask);
        emit(g, ddz_ranks_add(0, r, n), mk(type, r, 1, DDZ_KICK_NONE, n));
    }
}

static void gen_rocket(gen *g)
{
    if ((g->has[1] >> DDZ_RANK_SJ & 3) == 3)
        emit(g, ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1),
             mk(DDZ_ROCKET, DDZ_RANK_BJ, 1, DDZ_KICK_NONE, 2));
}

/* Ranks r such that r..r+len-1 are all in `mask`: where a chain of `len`
 * may start. */
static inline unsigned starts(unsigned mask, int len)
{
    unsigned s = mask;
    for (int i = 1; i < len && s; i++)
        s &= mask >> i;
    return s;
}

/* The ranks of a chain of `each` cards per rank from `lo` to `hi`. */
static inline ddz_ranks chain_ranks(int lo, int hi, int each)
{
    /* each * (0x1 + 0x10 + ...) over the nibbles lo..hi */
    uint64_t ones = (0x1111111111111111ULL >> (4 * (16 - (hi - lo + 1)))) << (4 * lo);
    return ones * (uint64_t)each;
}

/* Chains of `each` cards per rank; `len` == 0 means every legal length.
 * Order: by lowest rank, then by length, as chains grow from each start. */
static void gen_chain(gen *g, int type, int each, int minlen, int maxlen, int len, int above)
{
    if (len && (len < minlen || len > maxlen))
        return; /* no chain has that length (the generator before emitted none either) */
    unsigned held = g->has[each] & CHAIN_RANKS;
    int first = len ? len : minlen;
    for (unsigned s = starts(held, first); s && !done(g); s &= s - 1) {
        int lo = lowest(s);
        int run = __builtin_ctz(~(held >> lo)); /* consecutive held ranks from lo */
        int top = len ? len : (run < maxlen ? run : maxlen);
        int l = first;
        if (lo + l - 1 <= above) /* the chain's top must exceed `above` */
            l = above - lo + 2;
        for (; l <= top; l++) {
            int hi = lo + l - 1;
            emit(g, chain_ranks(lo, hi, each), mk(type, hi, l, DDZ_KICK_NONE, l * each));
            if (done(g))
                return;
        }
    }
}

/* Kicker enumeration: chooses `units` more units (a unit is one card, or a
 * pair when `unit` == 2) from the ranks of `avail` (outside the main part),
 * lowest rank first, adding them to `m`, and hands each complete play to
 * accept(). */
typedef struct kick {
    gen *g;
    int unit;
    bool repeat;    /* kickers may share a rank (the rule set's kickers_may_repeat) */
    bool classify;  /* classify every candidate (see accept()) */
    ddz_combo want; /* the reading being generated */
} kick;

/* Emits `m` when its reading is the one generated; otherwise it is another
 * type (a longer trio chain) or is emitted from its canonical chain or four.
 *
 * Why most candidates need no classifier: the main part's ranks hold exactly
 * 3 (trios) or 4 (fours) cards of `m`, and when no kicker rank holds more
 * than two cards (`odd` false) no other rank does. Then, going down the
 * classifier's order: a straight or pair straight needs every rank at 1 or
 * 2; a trio straight needs every rank at 3, which the kickers are not; a
 * plane needs its chain of exact trios, which is exactly the main part (for
 * pair-kicker planes of 20 cards, the singles shape would need 5 trios and
 * there are 4); four_two reads the only four; a quad straight without
 * repeating kickers (the Botzone sets) has fours only in its chain, so no
 * higher chain and no wingless or singles reading of another length fits,
 * and four_two with pairs fails on its distinct-pair rule. The kickers pass
 * the classifier's kicker rules because they were chosen by them. What is
 * left is classified as before: a kicker rank of three cards (it may extend
 * the trio chain), of four (a four above the four_two's own reads first),
 * and every quad straight when kickers may repeat (33334444 is four_two). */
static void accept(const kick *k, ddz_ranks m, bool odd)
{
    if (!odd && !k->classify) {
        emit(k->g, m, k->want);
        return;
    }
    ddz_combo c = ddz_combo_classify(k->g->rs, m);
    if (c.type == k->want.type && c.rank == k->want.rank && c.length == k->want.length &&
        c.kicker == k->want.kicker)
        emit(k->g, m, c);
}

static void kickers(const kick *k, unsigned avail, int left, ddz_ranks m, bool odd)
{
    gen *g = k->g;
    if (left == 0) {
        accept(k, m, odd);
        return;
    }
    if (left == 1) {
        /* the last unit: one play per rank, no deeper call */
        for (; avail && !done(g); avail &= avail - 1)
            accept(k, m + ((ddz_ranks)k->unit << (4 * lowest(avail))), odd);
        return;
    }
    if (!k->repeat && ddz__mask_count(avail) < left)
        return; /* too few ranks left: nothing below completes */
    for (; avail && !done(g); avail &= avail - 1) {
        int r = lowest(avail);
        int most = ddz_ranks_get(g->hand, r) / k->unit;
        if (!k->repeat && most > 1)
            most = 1;
        if (most > left)
            most = left;
        ddz_ranks add = (ddz_ranks)k->unit << (4 * r);
        ddz_ranks mm = m;
        for (int t = 1; t <= most; t++) {
            mm += add;
            kickers(k, avail & (avail - 1), left - t, mm, odd || t * k->unit >= 3);
        }
    }
}

/* The ranks kickers of unit `unit` may come from, outside `main`. */
static inline unsigned kicker_ranks(const gen *g, int unit, unsigned main)
{
    return (unit == 2 ? g->has[2] & BELOW_SJ : g->has[1]) & ~main;
}

/* Trio + kicker (len 1, kind given) or plane (len >= 2), main rank > above. */
static void gen_trio_kick(gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, size = len * (3 + unit);
    if (len < 1 || len > DDZ_RANK_A + 1 || (kind != DDZ_KICK_SINGLE && kind != DDZ_KICK_PAIR) ||
        size > g->n)
        return; /* no such play (the generator before classified and dropped every one) */
    /* a trio with a kicker may be of 2s; a plane's chain ends at most at A */
    unsigned held = g->has[3] & (len == 1 ? BELOW_SJ : CHAIN_RANKS);
    unsigned s = starts(held, len);
    if (above - len + 1 >= 0)
        s &= above_mask(above - len + 1); /* the top lo + len - 1 must exceed `above` */
    kick k = {g, unit, g->rs->kickers_may_repeat != 0, g->odd_hand, mk(0, 0, 0, 0, 0)};
    for (; s && !done(g); s &= s - 1) {
        int lo = lowest(s), hi = lo + len - 1;
        unsigned main = ((1u << len) - 1) << lo;
        k.want = mk(len == 1 ? DDZ_TRIO_KICKER : DDZ_PLANE, hi, len, kind, size);
        kickers(&k, kicker_ranks(g, unit, main), len, chain_ranks(lo, hi, 3), false);
    }
}

static void gen_four_two(gen *g, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1;
    if ((kind != DDZ_KICK_SINGLE && kind != DDZ_KICK_PAIR) || 4 + 2 * unit > g->n)
        return; /* as in gen_trio_kick */
    unsigned fours = g->four & BELOW_SJ & above_mask(above);
    kick k = {g, unit, g->rs->kickers_may_repeat != 0, g->odd_hand, mk(0, 0, 0, 0, 0)};
    for (; fours && !done(g); fours &= fours - 1) {
        int f = lowest(fours);
        k.want = mk(DDZ_FOUR_TWO, f, 1, kind, 4 + 2 * unit);
        kickers(&k, kicker_ranks(g, unit, 1u << f), 2, ddz_ranks_add(0, f, 4), false);
    }
}

/* Quad straight of `len` fours with wings `kind` (spec §8), top > above. */
static void gen_quad(gen *g, int len, int kind, int above)
{
    int unit = kind == DDZ_KICK_PAIR ? 2 : 1, units = kind == DDZ_KICK_NONE ? 0 : 2 * len;
    int size = 4 * len + unit * units;
    if (len < 2 || kind > DDZ_KICK_PAIR || size > g->n || size > DDZ_HAND_MAX)
        return; /* as in gen_trio_kick */
    unsigned s = starts(g->four & CHAIN_RANKS, len);
    if (above - len + 1 >= 0)
        s &= above_mask(above - len + 1);
    bool repeat = g->rs->kickers_may_repeat != 0;
    kick k = {g, unit, repeat, repeat || g->odd_hand, mk(0, 0, 0, 0, 0)};
    for (; s && !done(g); s &= s - 1) {
        int lo = lowest(s), hi = lo + len - 1;
        unsigned main = ((1u << len) - 1) << lo;
        k.want = mk(DDZ_QUAD_STRAIGHT, hi, len, kind, size);
        kickers(&k, kicker_ranks(g, unit, main), units, chain_ranks(lo, hi, 4), false);
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

/* Reads the hand into the rank masks ("exactly 4" is "at least 4" unless
 * some rank holds more). */
static void setup(gen *g, const ddz_rules *rs, ddz_ranks hand)
{
    hand &= (1ULL << (4 * DDZ_NRANKS)) - 1; /* the 16th nibble is no rank */
    uint64_t lanes = ddz__ranks_at_least(hand);
    unsigned over4 = ddz__ranks_over_four(hand);
    g->rs = rs;
    g->hand = hand;
    g->has[0] = ALL_RANKS;
    g->has[1] = (unsigned)lanes & 0xFFFF;
    g->has[2] = (unsigned)(lanes >> 16) & 0xFFFF;
    g->has[3] = (unsigned)(lanes >> 32) & 0xFFFF;
    g->has[4] = (unsigned)(lanes >> 48);
    g->four = g->has[4] & ~over4;
    g->n = ddz_ranks_total(hand);
    /* no hand dealt from one deck, but a caller may ask: accept() then
     * classifies every candidate, as the generator before did */
    g->odd_hand = over4 != 0 || (g->has[2] & ~(unsigned)BELOW_SJ) != 0 || g->n > DDZ_HAND_MAX;
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
