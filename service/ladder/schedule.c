/* schedule.c - the ladder's choice of tables (schedule.h). */
#include "service/ladder/schedule.h"

#include <string.h>

static long pairs_of(const ddz_sched_in *in, int i, int j)
{
    return in->pairs[i * in->n + j];
}

/* How far the triple's pairs go past the bound (0 = within it). */
static long excess(const ddz_sched_in *in, long bound, int a, int b, int c)
{
    long e = 0, v;
    if ((v = pairs_of(in, a, b) - bound) > 0)
        e += v;
    if ((v = pairs_of(in, a, c) - bound) > 0)
        e += v;
    if ((v = pairs_of(in, b, c) - bound) > 0)
        e += v;
    return e;
}

static double spread(const ddz_sched_player *p, int a, int b, int c)
{
    double lo = p[a].mu, hi = p[a].mu;
    if (p[b].mu < lo)
        lo = p[b].mu;
    if (p[b].mu > hi)
        hi = p[b].mu;
    if (p[c].mu < lo)
        lo = p[c].mu;
    if (p[c].mu > hi)
        hi = p[c].mu;
    return hi - lo;
}

static void sort3(int *t)
{
    int x;
    if (t[0] > t[1])
        x = t[0], t[0] = t[1], t[1] = x;
    if (t[1] > t[2])
        x = t[1], t[1] = t[2], t[2] = x;
    if (t[0] > t[1])
        x = t[0], t[0] = t[1], t[1] = x;
}

int ddz_schedule(const ddz_sched_in *in, int (*out)[3])
{
    if (!in || in->n < 0 || in->n > DDZ_SCHEDULE_MAX || in->max_tables < 0 || in->pair_slack < 0 ||
        (in->n > 0 && (!in->p || !in->pairs)))
        return -1;
    bool free_[DDZ_SCHEDULE_MAX];
    int n = in->n, tables = 0;
    for (int i = 0; i < n; i++)
        free_[i] = in->p[i].available;
    while (tables < in->max_tables) {
        int cand[DDZ_SCHEDULE_MAX], m = 0;
        for (int i = 0; i < n; i++)
            if (free_[i])
                cand[m++] = i;
        if (m < 3)
            break;
        /* rule 1: the anchor */
        int a = cand[0];
        for (int k = 1; k < m; k++)
            if (in->p[cand[k]].deals < in->p[a].deals)
                a = cand[k];
        /* rule 2: the bound, from the least-played pair among the free */
        long least = -1;
        for (int x = 0; x < m; x++)
            for (int y = x + 1; y < m; y++) {
                long v = pairs_of(in, cand[x], cand[y]);
                if (least < 0 || v < least)
                    least = v;
            }
        long bound = least + in->pair_slack;
        /* rules 2 and 3: the best pair of partners */
        int bb = -1, bc = -1;
        long best_ex = 0, best_deals = 0;
        double best_spread = 0;
        for (int x = 0; x < m; x++) {
            int b = cand[x];
            if (b == a)
                continue;
            for (int y = x + 1; y < m; y++) {
                int c = cand[y];
                if (c == a)
                    continue;
                long ex = excess(in, bound, a, b, c);
                double sp = spread(in->p, a, b, c);
                long deals = in->p[b].deals + in->p[c].deals;
                bool better =
                    bb < 0 || ex < best_ex ||
                    (ex == best_ex && (sp < best_spread - 1e-12 ||
                                       (sp <= best_spread + 1e-12 && deals < best_deals)));
                if (better)
                    bb = b, bc = c, best_ex = ex, best_spread = sp, best_deals = deals;
            }
        }
        out[tables][0] = a, out[tables][1] = bb, out[tables][2] = bc;
        sort3(out[tables]);
        free_[a] = free_[bb] = free_[bc] = false;
        tables++;
    }
    return tables;
}
