/* greedy.c - ai:greedy, a deterministic rule-based player.
 *
 * It decides only from its ddz_view and always answers a move that
 * ddz_movegen lists. The rules, in the order they are tried:
 *
 * Hand evaluation (ai/hand.h). A hand (rank multiset) is split into few
 * combinations (bombs whole, the best set of chains, then trios with
 * kickers, pairs, singles) and scored: high main ranks are assets, low ones
 * liabilities, and every combination costs a fixed amount.
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
 *
 * Where the rule set's scores count plays (botzone-ftl: rules->play_weight),
 * a won hand is played out by its heaviest sure line (a safe play, then the
 * rest's split; a bomb and two singles weigh 12, the four_two of the same
 * cards 8), even when one play would empty the hand, and a lead's score
 * gains WEIGHT_BONUS per unit of the play's weight: between plays that leave
 * hands of about the same strength, the heavier one. Measured against the
 * plain policy (docs/ai.md), nothing else helped: spending bombs more
 * freely lost games, and weighing the rest's split changed little.
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

#include "ai/hand.h"
#include "rules/combo.h"

enum {
    HAND_COST = DDZ_HAND_COST,
    SHED_BONUS = 2,   /* lead score per card shed beyond the first */
    WEIGHT_BONUS = 1, /* lead score per unit of play weight (rule sets that count plays) */
    FOLLOW_MIN = -4,  /* least hand score change accepted to follow */
    BREAK_COST = DDZ_HAND_BREAK_COST,
};

#define NEG_INF (-1000000)

typedef ddz_hand_split split;

/* ---------------------------------------------------------------------- */
/* What the seat knows                                                     */

typedef struct ctx {
    const ddz_view *v;
    ddz_ranks hand;        /* own cards as ranks */
    ddz_ranks unseen;      /* cards neither ours nor played */
    int seat, ll;          /* own seat, the landlord */
    int partner;           /* the other farmer, -1 for the landlord */
    int opp_min;           /* fewest cards an opponent holds */
    int opp_max;           /* most cards an opponent holds */
    bool four_unseen;      /* the unseen cards hold a four */
    bool rocket_unseen;    /* the unseen cards hold both jokers */
    ddz_hand_cache *cache; /* memo of hand scores, or NULL */
} ctx;

static void ctx_init(ctx *x, const ddz_view *v, ddz_hand_cache *cache)
{
    x->v = v;
    x->cache = cache;
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

/* Returns what playing `c` adds to the player's weight (0 when the rule
 * set's scores do not count plays). */
static int weight_of(const ctx *x, ddz_combo c)
{
    return x->v->rules->play_weight ? x->v->rules->play_weight(&c) : 0;
}

/* Returns true when `rest` splits into combinations all safe but one (the
 * seat on lead then plays the safe ones and the last one). Unless `weight`
 * is NULL, writes there the weight of playing the split out. */
static bool won(const ctx *x, ddz_ranks rest, int *weight)
{
    split sp;
    ddz_hand_evaluate(rest, &sp, NULL);
    int unsafe = 0, w = 0;
    for (int i = 0; i < sp.n && unsafe < 2; i++) {
        ddz_combo c = ddz_combo_classify(x->v->rules, sp.part[i]);
        if (c.type == DDZ_INVALID || !safe(x, c))
            unsafe++;
        if (c.type != DDZ_INVALID)
            w += weight_of(x, c);
    }
    if (weight)
        *weight = w;
    return unsafe <= 1;
}

/* Returns the safe play among mv[0..n) that leaves a won hand, or -1: when
 * the rule set counts plays, the one whose line (it, then the rest's split)
 * weighs most, else the first that is not a bomb. *line gets the line's
 * weight. */
static int won_line(const ctx *x, const ddz_move *mv, int n, int *line)
{
    int best = -1, best_w = -1;
    bool weighted = x->v->rules->play_weight != NULL;
    for (int i = 0; i < n; i++) {
        int w;
        if (!safe(x, mv[i].combo) || !won(x, x->hand - mv[i].ranks, &w))
            continue;
        w += weight_of(x, mv[i].combo);
        if (best < 0 ||
            (weighted ? w > best_w : is_bomb(mv[best].combo) && !is_bomb(mv[i].combo))) {
            best = i;
            best_w = w;
        }
    }
    *line = best_w;
    return best;
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
    ddz_hand_evaluate(m, &sp, NULL);
    if (sp.n <= 9)
        pts += 9 - sp.n;
    int want = pts >= 13 ? 3 : pts >= 9 ? 2 : pts >= 6 ? 1 : 0;
    return want > ddz_view_high_bid(v) ? want : 0;
}

/* ---------------------------------------------------------------------- */
/* Playing                                                                 */

/* Returns the score of the hand left after playing `m`, less BREAK_COST
 * when `m` breaks a bomb. */
static int after(const ctx *x, ddz_ranks m)
{
    return ddz_hand_evaluate(x->hand - m, NULL, x->cache) -
           (ddz_hand_breaks_bomb(x->hand, m) ? BREAK_COST : 0);
}

/* Returns the score of leading `m` before the rules for short-handed
 * opponents: what it leaves, a bonus per card shed and per unit of play
 * weight, bombs and the rocket last. */
static int lead_score(const ctx *x, const ddz_move *m)
{
    ddz_combo c = m->combo;
    return after(x, m->ranks) + SHED_BONUS * (c.size - 1) + WEIGHT_BONUS * weight_of(x, c) -
           (is_bomb(c) ? 100000 : 0);
}

static ddz_cards pick(const ddz_view *v, const ddz_move *m)
{
    return ddz_cards_pick(v->hand, m->ranks);
}

static int lead(const ctx *x, const ddz_move *mv, int n)
{
    const ddz_view *v = x->v;
    /* a safe play that leaves a won hand */
    int line, best = won_line(x, mv, n, &line);
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
        int sc = lead_score(x, &mv[i]);
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
        int base = ddz_hand_evaluate(x->hand, NULL, x->cache), best_gain = 0;
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
        int base = ddz_hand_evaluate(x->hand, NULL, x->cache);
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
    /* a safe play that leaves a won hand */
    bool partner = x->partner >= 0 && x->v->last_seat == x->partner;
    int line, best = won_line(x, mv, n, &line);
    if (best >= 0)
        return best;
    return partner ? follow_partner(x, mv, n) : follow_opponent(x, mv, n);
}

ddz_cards ddz_greedy_play(const ddz_view *v, ddz_move *moves, size_t cap)
{
    return ddz_greedy_play_cached(v, moves, cap, NULL);
}

ddz_cards ddz_greedy_play_cached(const ddz_view *v, ddz_move *moves, size_t cap,
                                 ddz_hand_cache *cache)
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
    ctx x;
    ctx_init(&x, v, cache);
    for (int i = 0; i < n; i++) {
        if (moves[i].ranks != hand)
            continue;
        /* a play that empties the hand, unless the rule set counts plays
         * and a sure line of several plays weighs more */
        int line;
        if (v->rules->play_weight) {
            int j = won_line(&x, moves, n, &line);
            if (j >= 0 && line > weight_of(&x, moves[i].combo))
                return pick(v, &moves[j]);
        }
        return pick(v, &moves[i]);
    }
    int i = leading ? lead(&x, moves, n) : follow(&x, moves, n);
    if (i < 0)
        return leading ? pick(v, &moves[0]) : 0;
    return pick(v, &moves[i]);
}

/* Returns whether plays `a` and `b` are the same shape: the same kind of
 * combination on the same main rank and length, with the same kind of
 * kicker (which kickers, is what differs). */
static bool same_shape(ddz_combo a, ddz_combo b)
{
    return a.type == b.type && a.rank == b.rank && a.length == b.length && a.kicker == b.kicker;
}

/* The order hints are cycled in: the smallest first (by main rank, then
 * the shorter, then the fewer cards), bombs after every other play and the
 * rocket last. */
static int hint_order(ddz_combo c)
{
    int tier = c.type == DDZ_ROCKET ? 2 : c.type == DDZ_BOMB ? 1 : 0;
    return ((tier * 16 + c.rank) * 16 + c.length) * 32 + c.size;
}

/* Returns true when playing `m` from `hand` spends a bomb or the rocket
 * as something else: greedy's own test (part of a four, a four with
 * kickers, one joker of the two), and both jokers as kickers. A hint never
 * offers such a play: following it cost players a bomb played out as a
 * pair, a straight's card and a single. */
static bool hint_spends_bomb(ddz_ranks hand, ddz_ranks m)
{
    const ddz_ranks rocket = ddz_ranks_add(ddz_ranks_add(0, DDZ_RANK_SJ, 1), DDZ_RANK_BJ, 1);
    return ddz_hand_breaks_bomb(hand, m) ||
           ((hand & rocket) == rocket && (m & rocket) == rocket && m != rocket);
}

int ddz_greedy_hints(const ddz_view *v, ddz_move *moves, size_t cap, ddz_cards *out, int max)
{
    if (max <= 0)
        return 0;
    ddz_cards first = ddz_greedy_play(v, moves, cap);
    bool leading = v->last_seat < 0;
    ddz_ranks hand = ddz_cards_ranks(v->hand);
    int n = ddz_movegen(v->rules, hand, leading ? NULL : &v->last, moves, cap);
    if (n < 0 || n > (int)cap)
        n = (int)cap;
    if (n > 0 && moves[n - 1].ranks == 0)
        n--; /* the pass: the client offers it on its own */
    if (n > DDZ_MOVES_MAX)
        n = DDZ_MOVES_MAX;
    ctx x;
    ctx_init(&x, v, NULL);
    ddz_combo first_combo = ddz_combo_classify(v->rules, ddz_cards_ranks(first));
    /* greedy's own choice leads only when it keeps every bomb whole and is
     * no bomb itself: bombs and the rocket come after every other play */
    if (first && (hint_spends_bomb(hand, ddz_cards_ranks(first)) || is_bomb(first_combo)))
        first = 0;
    /* One play per shape: the kicker choice greedy scores best as a lead
     * (ai:greedy's lead_score) among those that spend no bomb; the shape
     * of greedy's own choice is that. */
    int rep[DDZ_MOVES_MAX], score[DDZ_MOVES_MAX], nrep = 0;
    for (int i = 0; i < n; i++) {
        if (first && same_shape(moves[i].combo, first_combo))
            continue;
        if (hint_spends_bomb(hand, moves[i].ranks))
            continue;
        int sc = lead_score(&x, &moves[i]), r = 0;
        while (r < nrep && !same_shape(moves[rep[r]].combo, moves[i].combo))
            r++;
        if (r == nrep) {
            rep[nrep] = i;
            score[nrep++] = sc;
        } else if (sc > score[r]) {
            rep[r] = i;
            score[r] = sc;
        }
    }
    int k = 0, nbombs = 0;
    if (first)
        out[k++] = first;
    for (int r = 0; r < nrep; r++)
        nbombs += is_bomb(moves[rep[r]].combo);
    /* then the shapes from the smallest, bombs and the rocket last (a
     * selection sort: max is small); when they do not all fit, the
     * largest other shapes give way to the bombs, which are never cut */
    while (k < max && nrep > 0) {
        int best = 0;
        for (int r = 1; r < nrep; r++)
            if (hint_order(moves[rep[best]].combo) > hint_order(moves[rep[r]].combo))
                best = r;
        bool bomb = is_bomb(moves[rep[best]].combo);
        if (!bomb && k + nbombs >= max) {
            rep[best] = rep[--nrep]; /* no room left but the bombs' */
            continue;
        }
        nbombs -= bomb;
        out[k++] = pick(v, &moves[rep[best]]);
        rep[best] = rep[--nrep];
    }
    return k;
}
