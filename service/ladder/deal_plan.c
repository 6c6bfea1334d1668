/* deal_plan.c - the ladder's deals (deal_plan.h). */
#include "service/ladder/deal_plan.h"

#include <math.h>
#include <string.h>

_Static_assert(DDZ_DEAL_TABLES <= DDZ_RATING_MAX_PLAYERS, "a hand's holders are one event");

/* The six orders of the three hands; `spin` picks one. */
static const int hand_orders[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                      {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

/* Sorts idx[0..n) by key: fewest deals (by_deals) or highest rating, ties
 * by the lower index. An insertion sort: n is a few hundred at most. */
static void sort_by(int *idx, int n, const ddz_deal_cand *c, bool by_deals)
{
    for (int i = 1; i < n; i++) {
        int v = idx[i], j = i;
        for (; j > 0; j--) {
            const ddz_deal_cand *a = &c[idx[j - 1]], *b = &c[v];
            bool after = by_deals ? a->deals > b->deals || (a->deals == b->deals && idx[j - 1] > v)
                                  : a->mu < b->mu || (a->mu == b->mu && idx[j - 1] > v);
            if (!after)
                break;
            idx[j] = idx[j - 1];
        }
        idx[j] = v;
    }
}

/* Whether candidate `who` already holds hand `s` at one of the first
 * `tables` tables. */
static bool holds(const ddz_deal_plan *p, int tables, int s, int who)
{
    for (int t = 0; t < tables; t++)
        if (p->who[t][s] == who)
            return true;
    return false;
}

int ddz_deal_plan_make(const ddz_deal_in *in, ddz_deal_plan *out)
{
    if (!in || !out || in->n < 0 || in->n > DDZ_DEAL_CANDIDATES || in->max_tables < 0 ||
        (in->n > 0 && !in->c))
        return -1;
    int cap = in->max_tables < DDZ_DEAL_TABLES ? in->max_tables : DDZ_DEAL_TABLES;
    if (cap < 2)
        return 0;
    int prog[DDZ_DEAL_CANDIDATES], ai[DDZ_DEAL_CANDIDATES], np = 0, na = 0;
    for (int i = 0; i < in->n; i++)
        if (in->c[i].available) {
            if (in->c[i].ai)
                ai[na++] = i;
            else
                prog[np++] = i;
        }
    memset(out, 0, sizeof *out);
    if (np == 0) { /* rule 6 */
        if (!in->ais_alone || na < 2)
            return 0;
        int m = na < cap ? na : cap;
        for (int t = 0; t < m; t++)
            for (int s = 0; s < 3; s++)
                out->who[t][s] = ai[((uint32_t)(t + s) + in->spin) % (uint32_t)na];
        out->tables = m;
        return m;
    }
    /* rule 1 */
    sort_by(prog, np, in->c, true);
    int k = np < 3 * cap ? np : 3 * cap;
    if (na == 0) { /* rule 5 */
        k -= k % 3;
        if (k < 6)
            return 0;
    }
    int m = (k + 2) / 3; /* rule 2 */
    if (m < 2)
        m = 2;
    /* rule 3 */
    sort_by(prog, k, in->c, false);
    const int *order = hand_orders[in->spin % 6];
    for (int t = 0; t < m; t++)
        for (int s = 0; s < 3; s++)
            out->who[t][s] = -1;
    for (int j = 0; j < k; j++)
        out->who[j % m][order[j / m]] = prog[j];
    /* rule 4 */
    uint32_t next = in->spin;
    for (int h = 0; h < 3; h++) {
        int s = order[h];
        for (int t = 0; t < m; t++) {
            if (out->who[t][s] >= 0)
                continue;
            int pick = ai[next % (uint32_t)na];
            for (int tries = 0; tries < na; tries++) {
                int cand = ai[(next + (uint32_t)tries) % (uint32_t)na];
                if (!holds(out, m, s, cand)) {
                    pick = cand;
                    next += (uint32_t)tries;
                    break;
                }
            }
            out->who[t][s] = pick;
            next++;
        }
    }
    /* rule 7: each hand's holders turned round the tables by their own
     * offset, so that who sits with whom changes from deal to deal */
    uint32_t mix = in->spin * 2654435761u; /* Knuth's multiplicative hash */
    for (int s = 0; s < 3; s++) {
        int col[DDZ_DEAL_TABLES], rot = (int)((mix >> (8 + 8 * s)) % (uint32_t)m);
        for (int t = 0; t < m; t++)
            col[t] = out->who[t][s];
        for (int t = 0; t < m; t++)
            out->who[t][s] = col[(t + rot) % m];
    }
    out->tables = m;
    return m;
}

int ddz_deal_rate(const ddz_rating_cfg *cfg, const ddz_deal_plan *p, ddz_rating *r, int n,
                  const double score[DDZ_DEAL_TABLES][3])
{
    if (!cfg || !p || !r || !score || p->tables < 2 || p->tables > DDZ_DEAL_TABLES)
        return -1;
    for (int t = 0; t < p->tables; t++)
        for (int s = 0; s < 3; s++)
            if (p->who[t][s] < 0 || p->who[t][s] >= n || !isfinite(score[t][s]))
                return -1;
    /* check every rating first, so that a bad one changes nothing */
    for (int t = 0; t < p->tables; t++)
        for (int s = 0; s < 3; s++) {
            const ddz_rating *x = &r[p->who[t][s]];
            if (!isfinite(x->mu) || !isfinite(x->sigma) || x->sigma <= 0)
                return -1;
        }
    int rated = 0;
    for (int s = 0; s < 3; s++) {
        int who[DDZ_DEAL_TABLES], m = 0;
        double sc[DDZ_DEAL_TABLES];
        ddz_rating ev[DDZ_DEAL_TABLES];
        for (int t = 0; t < p->tables; t++) {
            bool seen = false;
            for (int k = 0; k < m && !seen; k++)
                seen = who[k] == p->who[t][s];
            if (seen)
                continue;
            who[m] = p->who[t][s];
            sc[m] = score[t][s];
            ev[m] = r[who[m]];
            m++;
        }
        if (m < 2)
            continue;
        if (ddz_rating_update(cfg, ev, sc, m) < 0)
            return -1; /* not reached: checked above */
        for (int k = 0; k < m; k++)
            r[who[k]] = ev[k];
        rated++;
    }
    return rated;
}
