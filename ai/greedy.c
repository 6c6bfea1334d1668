/* greedy.c - ai:greedy, a deterministic rule-based player.
 *
 * It decides only from its ddz_view and always answers a move that
 * ddz_movegen lists. The rules, in the order they are tried:
 *
 * Hand evaluation. A hand (rank multiset) is split into combinations: the
 * rocket and every four stay whole (bombs); then a small search picks the
 * set of chains (straights, pair straights, trio straights) that scores
 * best; what is left becomes trios, pairs and singles, and trios and trio
 * chains take the lowest singles or pairs up to K as kickers. The score is
 * the sum of the combinations' values (main rank minus that of a Q, so low
 * cards are liabilities and 2s and jokers assets; bombs and the rocket are
 * worth a lot) minus a fixed cost per combination: few combinations with few
 * small singles score best.
 *
 * A combination is "safe" when no opponent can beat it: the unseen cards
 * (neither ours nor played) hold nothing that beats it, or no opponent has
 * enough cards left to play one. A hand is "won" when its split has at most
 * one combination that is not safe: lead the safe ones, then the last.
 *
 * Bidding: jokers 4 and 3, each 2 counts 2, each A 1, bombs 6, the rocket 2
 * more, plus a bonus for a hand that splits into few combinations; the
 * score maps to 0..3 by thresholds, and a bid that is not above the highest
 * so far becomes 0.
 *
 * Leading: a play that empties the hand; else a safe play that leaves a won
 * hand; else the play leaving the best-scoring rest, with a small bonus per
 * card shed. Bombs and the rocket are led only when nothing else is left.
 * When an opponent has one card left, singles are led only if safe or if
 * nothing else is left (then the highest); with two cards left, pairs
 * likewise. A farmer whose partner, sitting next, has one card left leads
 * the lowest single.
 *
 * Following: a play that empties the hand; else a safe play (bombs
 * included) that leaves a won hand. Over the partner's play a farmer passes,
 * with two exceptions for the farmer who moves just before the landlord
 * (the other one follows the partner only after the landlord has passed):
 * when the landlord has at most two cards and could beat the partner's play,
 * it plays its highest beating play of the same type; and when the partner
 * led a low single or pair and the farmer holds a middle one (J..A) that
 * costs its hand nothing, it tops the partner to push the landlord up.
 * Over an opponent's play: when an opponent has at most two cards, the
 * highest beating play of the same type; otherwise the beating play of the
 * same type that hurts the hand least, if the hurt is small (larger hurt is
 * accepted when an opponent has five cards or fewer), not spending a 2 or a
 * joker on a low card early in the game. Bombs and the rocket (smallest
 * first) only when an opponent has at most four cards or they leave a won
 * hand. Otherwise pass.
 */
#include "greedy.h"

#include <string.h>

#include "rules/combo.h"

enum {
    HAND_COST = 28,  /* score cost of one more combination to play out */
    RANK_UNIT = 4,   /* score per rank of a combination's main rank */
    RANK_PIVOT = 10, /* main rank worth 0: the K */
    BOMB_VALUE = 36, /* a bomb is a free combination that takes the lead */
    ROCKET_VALUE = 44,
    KICK_MAX = 10,      /* highest rank (K) used as a kicker when splitting */
    SHED_BONUS = 2,     /* lead score per card shed beyond the first */
    FOLLOW_MIN = -4,    /* least hand score change accepted to follow */
    BREAK_COST = 60,    /* playing part of a bomb or of the rocket */
    SEARCH_LEAVES = 600 /* bound on the chain search per evaluation */
};

#define NEG_INF (-1000000)

/* ---------------------------------------------------------------------- */
/* Hand evaluation                                                         */

typedef struct chain {
    uint8_t lo, len, width; /* ranks lo..lo+len-1, width cards each */
} chain;

enum { MAX_CHAINS = 10, MAX_PARTS = DDZ_HAND_MAX };

typedef struct split {
    int score;                 /* the hand's score (higher is better) */
    int n;                     /* number of combinations */
    ddz_ranks part[MAX_PARTS]; /* the combinations */
} split;

typedef struct search {
    uint8_t c[DDZ_NRANKS]; /* cards per rank not yet in a chain */
    chain cur[MAX_CHAINS];
    int ncur;
    chain best[MAX_CHAINS];
    int nbest;
    int best_score;
    int leaves; /* evaluated so far; the search stops at SEARCH_LEAVES */
} search;

static int rank_value(int r)
{
    return (r - RANK_PIVOT) * RANK_UNIT;
}

static ddz_ranks run(int lo, int len, int width)
{
    ddz_ranks m = 0;
    for (int r = lo; r < lo + len; r++)
        m = ddz_ranks_add(m, r, width);
    return m;
}

/* Scores the counts `c` with the chains `ch` already taken out: groups the
 * rest by count and attaches kickers. Writes the combinations to `out`
 * unless it is NULL. */
static int leaf_score(const uint8_t *c, const chain *ch, int nch, split *out)
{
    int singles[DDZ_NRANKS], pairs[DDZ_NRANKS], ns = 0, np = 0;
    bool used_s[DDZ_NRANKS] = {0}, used_p[DDZ_NRANKS] = {0};
    for (int r = 0; r < DDZ_NRANKS; r++) {
        if (c[r] == 1)
            singles[ns++] = r;
        else if (c[r] == 2)
            pairs[np++] = r;
    }
    int score = 0, hands = 0, si = 0, pi = 0;
    ddz_ranks kick[MAX_CHAINS + DDZ_NRANKS] = {0};
    int nk = 0;

    /* chains; trio chains take n low singles, else n low pairs */
    for (int i = 0; i < nch; i++) {
        int top = ch[i].lo + ch[i].len - 1;
        score += rank_value(top) + RANK_UNIT - HAND_COST;
        hands++;
        ddz_ranks k = 0;
        if (ch[i].width == 3) {
            int n = ch[i].len, sl = 0, pl = 0;
            for (int j = si; j < ns && singles[j] <= KICK_MAX; j++)
                sl++;
            for (int j = pi; j < np && pairs[j] <= KICK_MAX; j++)
                pl++;
            if (sl >= n) {
                for (int j = 0; j < n; j++, si++) {
                    used_s[si] = true;
                    k = ddz_ranks_add(k, singles[si], 1);
                }
            } else if (pl >= n) {
                for (int j = 0; j < n; j++, pi++) {
                    used_p[pi] = true;
                    k = ddz_ranks_add(k, pairs[pi], 2);
                }
            }
        }
        kick[nk++] = k;
    }
    /* trios, lowest first, each with the lower of the lowest free single
     * and the lowest free pair (up to K) */
    for (int r = 0; r < DDZ_NRANKS; r++) {
        if (c[r] != 3)
            continue;
        score += rank_value(r) - HAND_COST;
        hands++;
        bool s_ok = si < ns && singles[si] <= KICK_MAX;
        bool p_ok = pi < np && pairs[pi] <= KICK_MAX;
        ddz_ranks k = 0;
        if (s_ok && (!p_ok || singles[si] < pairs[pi])) {
            used_s[si] = true;
            k = ddz_ranks_add(0, singles[si++], 1);
        } else if (p_ok) {
            used_p[pi] = true;
            k = ddz_ranks_add(0, pairs[pi++], 2);
        }
        kick[nk++] = k;
    }
    for (int j = 0; j < ns; j++)
        if (!used_s[j]) {
            score += rank_value(singles[j]) - HAND_COST;
            hands++;
        }
    for (int j = 0; j < np; j++)
        if (!used_p[j]) {
            score += rank_value(pairs[j]) - HAND_COST;
            hands++;
        }

    if (out) {
        int t = 0;
        for (int i = 0; i < nch; i++, t++)
            out->part[out->n++] = run(ch[i].lo, ch[i].len, ch[i].width) + kick[t];
        for (int r = 0; r < DDZ_NRANKS; r++)
            if (c[r] == 3)
                out->part[out->n++] = ddz_ranks_add(0, r, 3) + kick[t++];
        for (int j = 0; j < ns; j++)
            if (!used_s[j])
                out->part[out->n++] = ddz_ranks_add(0, singles[j], 1);
        for (int j = 0; j < np; j++)
            if (!used_p[j])
                out->part[out->n++] = ddz_ranks_add(0, pairs[j], 2);
    }
    return score;
}

/* Chain options at one rank are numbered width * 16 + length; chains that
 * start at the same rank are taken in non-decreasing option order, so each
 * set of chains is met once. */
static void dfs(search *s, int r, int minopt)
{
    while (r <= DDZ_RANK_A && s->c[r] == 0) {
        r++;
        minopt = 0;
    }
    if (r > DDZ_RANK_A || s->leaves >= SEARCH_LEAVES) {
        s->leaves++;
        int sc = leaf_score(s->c, s->cur, s->ncur, NULL);
        if (sc > s->best_score) {
            s->best_score = sc;
            s->nbest = s->ncur;
            memcpy(s->best, s->cur, sizeof s->cur[0] * (size_t)s->ncur);
        }
        return;
    }
    dfs(s, r + 1, 0);
    if (s->ncur == MAX_CHAINS)
        return;
    static const uint8_t minlen[4] = {0, 5, 3, 2};
    for (int w = 1; w <= 3; w++) {
        int len = 0;
        while (r + len <= DDZ_RANK_A && s->c[r + len] >= w)
            len++;
        for (int l = minlen[w]; l <= len; l++) {
            if (w * 16 + l < minopt || (w == 2 && l > 10) || (w == 3 && l > 6))
                continue;
            for (int i = r; i < r + l; i++)
                s->c[i] = (uint8_t)(s->c[i] - w);
            s->cur[s->ncur++] = (chain){(uint8_t)r, (uint8_t)l, (uint8_t)w};
            dfs(s, r, w * 16 + l);
            s->ncur--;
            for (int i = r; i < r + l; i++)
                s->c[i] = (uint8_t)(s->c[i] + w);
        }
    }
}

/* Returns the score of hand `m` and, unless `out` is NULL, writes its split. */
static int evaluate(ddz_ranks m, split *out)
{
    search s;
    int score = 0;
    if (out)
        out->n = 0;
    for (int r = 0; r < DDZ_NRANKS; r++)
        s.c[r] = (uint8_t)ddz_ranks_get(m, r);
    if (s.c[DDZ_RANK_SJ] && s.c[DDZ_RANK_BJ]) {
        s.c[DDZ_RANK_SJ] = s.c[DDZ_RANK_BJ] = 0;
        score += ROCKET_VALUE - HAND_COST;
        if (out)
            out->part[out->n++] = ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1);
    }
    for (int r = 0; r <= DDZ_RANK_2; r++)
        if (s.c[r] == 4) {
            s.c[r] = 0;
            score += BOMB_VALUE + r - HAND_COST;
            if (out)
                out->part[out->n++] = ddz_ranks_add(0, r, 4);
        }
    s.ncur = s.nbest = s.leaves = 0;
    s.best_score = NEG_INF;
    dfs(&s, 0, 0);
    if (out)
        leaf_score(s.c, s.best, s.nbest, out);
    score += s.best_score;
    if (out)
        out->score = score;
    return score;
}

/* ---------------------------------------------------------------------- */
/* What the seat knows                                                     */

typedef struct ctx {
    const ddz_view *v;
    ddz_ranks hand;     /* own cards as ranks */
    ddz_ranks unseen;   /* cards neither ours nor played */
    int seat, ll;       /* own seat, the landlord */
    int partner;        /* the other farmer, -1 for the landlord */
    int opp_min;        /* fewest cards an opponent holds */
    int opp_max;        /* most cards an opponent holds */
    bool four_unseen;   /* the unseen cards hold a four */
    bool rocket_unseen; /* the unseen cards hold both jokers */
} ctx;

static void ctx_init(ctx *x, const ddz_view *v)
{
    x->v = v;
    x->hand = ddz_cards_ranks(v->hand);
    ddz_cards seen = v->hand | v->played[0] | v->played[1] | v->played[2];
    x->unseen = ddz_cards_ranks(DDZ_CARDS_ALL & ~seen);
    x->seat = v->seat;
    x->ll = v->landlord;
    /* a view without a landlord (not from a real play phase) has no partner */
    x->partner = v->landlord < 0 || v->seat == v->landlord ? -1 : 3 - v->seat - v->landlord;
    x->opp_min = DDZ_HAND_MAX + 1;
    x->opp_max = 0;
    for (int s = 0; s < 3; s++) {
        if (s == x->seat || s == x->partner)
            continue;
        if (v->left[s] < x->opp_min)
            x->opp_min = v->left[s];
        if (v->left[s] > x->opp_max)
            x->opp_max = v->left[s];
    }
    x->four_unseen = false;
    for (int r = 0; r <= DDZ_RANK_2; r++)
        x->four_unseen |= ddz_ranks_get(x->unseen, r) == 4;
    x->rocket_unseen =
        ddz_ranks_get(x->unseen, DDZ_RANK_SJ) && ddz_ranks_get(x->unseen, DDZ_RANK_BJ);
}

static bool is_bomb(ddz_combo c)
{
    return c.type == DDZ_BOMB || c.type == DDZ_ROCKET;
}

/* Returns true when no opponent can beat `c`. Conservative: all unseen
 * cards count as the opponents' (a farmer's partner's included). */
static bool safe(const ctx *x, ddz_combo c)
{
    if (!ddz_movegen_can_beat(x->v->rules, x->unseen, c))
        return true;
    if (x->opp_max >= c.size && !is_bomb(c))
        return false;
    if (x->opp_max >= 4 && x->four_unseen)
        return false;
    if (x->opp_max >= 2 && x->rocket_unseen)
        return false;
    return true;
}

/* Returns true when `rest` splits into combinations all safe but one (the
 * seat on lead then plays the safe ones and the last one). */
static bool won(const ctx *x, ddz_ranks rest)
{
    split sp;
    evaluate(rest, &sp);
    int unsafe = 0;
    for (int i = 0; i < sp.n && unsafe < 2; i++) {
        ddz_combo c = ddz_combo_classify(x->v->rules, sp.part[i]);
        if (c.type == DDZ_INVALID || !safe(x, c))
            unsafe++;
    }
    return unsafe <= 1;
}

/* ---------------------------------------------------------------------- */
/* Bidding                                                                 */

int ddz_greedy_bid(const ddz_view *v)
{
    ddz_ranks m = ddz_cards_ranks(v->hand);
    int pts = 0;
    bool sj = ddz_ranks_get(m, DDZ_RANK_SJ), bj = ddz_ranks_get(m, DDZ_RANK_BJ);
    pts += 3 * sj + 4 * bj + 2 * (sj && bj);
    pts += 2 * ddz_ranks_get(m, DDZ_RANK_2) + ddz_ranks_get(m, DDZ_RANK_A);
    for (int r = 0; r <= DDZ_RANK_2; r++)
        pts += 6 * (ddz_ranks_get(m, r) == 4);
    split sp;
    evaluate(m, &sp);
    if (sp.n <= 9)
        pts += 9 - sp.n;
    int want = pts >= 13 ? 3 : pts >= 9 ? 2 : pts >= 6 ? 1 : 0;
    return want > ddz_view_high_bid(v) ? want : 0;
}

/* ---------------------------------------------------------------------- */
/* Playing                                                                 */

/* Returns true when playing `m` from `hand` spends a four other than as a
 * bomb (part of it, or all of it with kickers) or one joker of the rocket. */
static bool breaks_bomb(ddz_ranks hand, ddz_ranks m)
{
    for (int r = 0; r <= DDZ_RANK_2; r++) {
        int k = ddz_ranks_get(m, r);
        if (ddz_ranks_get(hand, r) == 4 && k > 0 && (k < 4 || m != ddz_ranks_add(0, r, 4)))
            return true;
    }
    int sj = ddz_ranks_get(m, DDZ_RANK_SJ), bj = ddz_ranks_get(m, DDZ_RANK_BJ);
    return ddz_ranks_get(hand, DDZ_RANK_SJ) && ddz_ranks_get(hand, DDZ_RANK_BJ) && sj != bj;
}

/* Returns the score of the hand left after playing `m`, less BREAK_COST
 * when `m` breaks a bomb. */
static int after(const ctx *x, ddz_ranks m)
{
    return evaluate(x->hand - m, NULL) - (breaks_bomb(x->hand, m) ? BREAK_COST : 0);
}

static ddz_cards pick(const ddz_view *v, const ddz_move *m)
{
    return ddz_cards_pick(v->hand, m->ranks);
}

static int lead(const ctx *x, const ddz_move *mv, int n)
{
    const ddz_view *v = x->v;
    /* a safe play that leaves a won hand; bombs last */
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!safe(x, mv[i].combo) || !won(x, x->hand - mv[i].ranks))
            continue;
        if (best < 0 || (is_bomb(mv[best].combo) && !is_bomb(mv[i].combo)))
            best = i;
    }
    if (best >= 0)
        return best;

    /* a farmer whose partner sits next with one card: the lowest single */
    if (x->partner >= 0 && x->partner == (x->seat + 1) % 3 && v->left[x->partner] == 1) {
        for (int i = 0; i < n; i++)
            if (mv[i].combo.type == DDZ_SINGLE &&
                (best < 0 || mv[i].combo.rank < mv[best].combo.rank))
                best = i;
        if (best >= 0)
            return best;
    }

    int best_score = NEG_INF;
    for (int i = 0; i < n; i++) {
        ddz_combo c = mv[i].combo;
        int sc = after(x, mv[i].ranks) + SHED_BONUS * (c.size - 1);
        if (is_bomb(c))
            sc -= 100000;
        if (x->opp_min == 1 && c.type == DDZ_SINGLE && !safe(x, c))
            sc = -50000 + c.rank; /* only singles left: the highest */
        else if (x->opp_min == 2 && c.type == DDZ_PAIR && !safe(x, c))
            sc -= 20000;
        if (sc > best_score) {
            best_score = sc;
            best = i;
        }
    }
    return best;
}

/* Returns the move to play over the partner, or -1 to pass. */
static int follow_partner(const ctx *x, const ddz_move *mv, int n)
{
    const ddz_view *v = x->v;
    if ((x->seat + 1) % 3 != x->ll)
        return -1; /* the landlord already passed on the partner's play */
    ddz_combo last = v->last;
    int best = -1;
    if (v->left[x->ll] <= 2 && v->left[x->ll] >= last.size && !safe(x, last)) {
        for (int i = 0; i < n; i++)
            if (!is_bomb(mv[i].combo) && (best < 0 || mv[i].combo.rank > mv[best].combo.rank))
                best = i;
        return best;
    }
    if ((last.type == DDZ_SINGLE || last.type == DDZ_PAIR) && last.rank <= 7 &&
        v->left[x->partner] > 5 && v->left[x->ll] > 2) {
        int base = evaluate(x->hand, NULL), best_gain = 0;
        for (int i = 0; i < n; i++) {
            ddz_combo c = mv[i].combo;
            if (is_bomb(c) || c.rank < 8 || c.rank > DDZ_RANK_A)
                continue;
            int gain = after(x, mv[i].ranks) - base;
            if (gain > best_gain) {
                best_gain = gain;
                best = i;
            }
        }
    }
    return best;
}

/* Returns the move to play over an opponent, or -1 to pass. */
static int follow_opponent(const ctx *x, const ddz_move *mv, int n)
{
    const ddz_view *v = x->v;
    int best = -1;
    if (x->opp_min <= 2) {
        for (int i = 0; i < n; i++)
            if (!is_bomb(mv[i].combo) && (best < 0 || mv[i].combo.rank > mv[best].combo.rank))
                best = i;
    } else {
        int base = evaluate(x->hand, NULL);
        int floor = x->opp_min <= 5 ? -HAND_COST : FOLLOW_MIN, best_gain = NEG_INF;
        bool early = x->opp_min > 10 && v->last.rank < 8;
        for (int i = 0; i < n; i++) {
            ddz_combo c = mv[i].combo;
            if (is_bomb(c) || (early && c.rank >= DDZ_RANK_2))
                continue;
            int gain = after(x, mv[i].ranks) - base;
            if (gain >= floor && gain > best_gain) {
                best_gain = gain;
                best = i;
            }
        }
    }
    if (best >= 0)
        return best;
    /* bombs: the smallest first (the rocket's rank is above every four's) */
    if (x->opp_min <= 4)
        for (int i = 0; i < n; i++)
            if (is_bomb(mv[i].combo) && (best < 0 || mv[i].combo.rank < mv[best].combo.rank))
                best = i;
    return best;
}

static int follow(const ctx *x, const ddz_move *mv, int n)
{
    /* a safe play that leaves a won hand, bombs last */
    int best = -1;
    bool partner = x->partner >= 0 && x->v->last_seat == x->partner;
    for (int i = 0; i < n; i++) {
        if (!safe(x, mv[i].combo) || !won(x, x->hand - mv[i].ranks))
            continue;
        if (best < 0 || (is_bomb(mv[best].combo) && !is_bomb(mv[i].combo)))
            best = i;
    }
    if (best >= 0)
        return best;
    return partner ? follow_partner(x, mv, n) : follow_opponent(x, mv, n);
}

ddz_cards ddz_greedy_play(const ddz_view *v, ddz_move *moves, size_t cap)
{
    bool leading = v->last_seat < 0;
    int n = ddz_movegen(v->rules, ddz_cards_ranks(v->hand), leading ? NULL : &v->last, moves, cap);
    if (n < 0 || n > (int)cap)
        n = (int)cap; /* choose among the moves that fit */
    if (n > 0 && moves[n - 1].ranks == 0)
        n--; /* the pass: chosen below by returning 0 */
    if (n == 0)
        return 0;
    ddz_ranks hand = ddz_cards_ranks(v->hand);
    for (int i = 0; i < n; i++)
        if (moves[i].ranks == hand)
            return pick(v, &moves[i]);
    ctx x;
    ctx_init(&x, v);
    int i = leading ? lead(&x, moves, n) : follow(&x, moves, n);
    if (i < 0)
        return leading ? pick(v, &moves[0]) : 0;
    return pick(v, &moves[i]);
}
