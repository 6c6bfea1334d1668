/* hand.c - hand decomposition and scoring (see hand.h); moved here from
 * greedy.c so that ai:strong shares it. */
#include "hand.h"

#include <string.h>

enum {
    HAND_COST = DDZ_HAND_COST,
    RANK_UNIT = 4,   /* score per rank of a combination's main rank */
    RANK_PIVOT = 10, /* main rank worth 0: the K */
    BOMB_VALUE = 36, /* a bomb is a free combination that takes the lead */
    ROCKET_VALUE = 44,
    KICK_MAX = 10,      /* highest rank (K) used as a kicker when splitting */
    SEARCH_LEAVES = 600 /* bound on the chain search per evaluation */
};

#define NEG_INF (-1000000)

/* ---------------------------------------------------------------------- */
/* Hand evaluation                                                         */

typedef struct chain {
    uint8_t lo, len, width; /* ranks lo..lo+len-1, width cards each */
} chain;

enum { MAX_CHAINS = 10 };

typedef ddz_hand_split split;

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

int ddz_hand_evaluate(ddz_ranks m, ddz_hand_split *out, ddz_hand_cache *cache)
{
    if (out || !cache)
        return evaluate(m, out);
    uint64_t h = m * 0x9E3779B97F4A7C15ULL;
    uint32_t i = (uint32_t)(h >> (64 - DDZ_HAND_CACHE_BITS));
    uint64_t key = m | (1ULL << 63);
    if (cache->key[i] == key)
        return cache->score[i];
    int score = evaluate(m, NULL);
    cache->key[i] = key;
    cache->score[i] = score;
    return score;
}

bool ddz_hand_breaks_bomb(ddz_ranks hand, ddz_ranks m)
{
    for (int r = 0; r <= DDZ_RANK_2; r++) {
        int k = ddz_ranks_get(m, r);
        if (ddz_ranks_get(hand, r) == 4 && k > 0 && (k < 4 || m != ddz_ranks_add(0, r, 4)))
            return true;
    }
    int sj = ddz_ranks_get(m, DDZ_RANK_SJ), bj = ddz_ranks_get(m, DDZ_RANK_BJ);
    return ddz_ranks_get(hand, DDZ_RANK_SJ) && ddz_ranks_get(hand, DDZ_RANK_BJ) && sj != bj;
}
