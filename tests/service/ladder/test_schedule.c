/* test_schedule.c - the ladder's choice of tables: its properties on
 * hand-made and random fields. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "service/ladder/schedule.h"

enum { N = 12 };

static long pairs[N * N];

static void set_pair(int n, int i, int j, long v)
{
    pairs[i * n + j] = pairs[j * n + i] = v;
}

static int run(ddz_sched_player *p, int n, int max_tables, long slack, int (*out)[3])
{
    ddz_sched_in in = {
        .p = p, .n = n, .pairs = pairs, .max_tables = max_tables, .pair_slack = slack};
    return ddz_schedule(&in, out);
}

Test(schedule, too_few)
{
    memset(pairs, 0, sizeof pairs);
    ddz_sched_player p[4] = {{25, 0, true}, {25, 0, true}, {25, 0, false}, {25, 0, false}};
    int out[4][3];
    cr_expect_eq(run(p, 4, 4, 2, out), 0);
    cr_expect_eq(run(p, 0, 4, 2, out), 0);
    ddz_sched_in bad = {.p = NULL, .n = 3, .pairs = pairs, .max_tables = 1};
    cr_expect_eq(ddz_schedule(&bad, out), -1);
}

/* Only available participants are seated, each at most once. */
Test(schedule, only_available_once)
{
    memset(pairs, 0, sizeof pairs);
    ddz_sched_player p[N];
    for (int i = 0; i < N; i++)
        p[i] = (ddz_sched_player){.mu = 20 + i, .deals = i, .available = i % 4 != 1};
    int out[N][3];
    int t = run(p, N, N, 2, out);
    cr_expect_eq(t, 3); /* 9 available */
    bool seen[N] = {0};
    for (int k = 0; k < t; k++)
        for (int s = 0; s < 3; s++) {
            int i = out[k][s];
            cr_expect(p[i].available, "player %d is not available", i);
            cr_expect(!seen[i], "player %d seated twice", i);
            seen[i] = true;
        }
}

/* The table is built around the participant with the fewest deals, with
 * the two whose ratings are closest to it. */
Test(schedule, fewest_deals_then_close_ratings)
{
    memset(pairs, 0, sizeof pairs);
    ddz_sched_player p[6] = {
        {.mu = 40, .deals = 50, .available = true}, {.mu = 10, .deals = 3, .available = true},
        {.mu = 12, .deals = 40, .available = true}, {.mu = 30, .deals = 40, .available = true},
        {.mu = 9, .deals = 60, .available = true},  {.mu = 25, .deals = 20, .available = true},
    };
    int out[1][3];
    cr_assert_eq(run(p, 6, 1, 2, out), 1);
    cr_expect_eq(out[0][0], 1);
    cr_expect_eq(out[0][1], 2);
    cr_expect_eq(out[0][2], 4);
}

/* Close ratings give way to a pair played too often. */
Test(schedule, no_pair_over_played)
{
    memset(pairs, 0, sizeof pairs);
    ddz_sched_player p[5] = {
        {.mu = 25, .deals = 0, .available = true},   {.mu = 25.1, .deals = 9, .available = true},
        {.mu = 25.2, .deals = 9, .available = true}, {.mu = 40, .deals = 9, .available = true},
        {.mu = 45, .deals = 9, .available = true},
    };
    set_pair(5, 0, 1, 3); /* 0 and 1 have met 3 times, every other pair once */
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (!(i == 0 && j == 1))
                set_pair(5, i, j, 1);
    int out[1][3];
    cr_assert_eq(run(p, 5, 1, 1, out), 1);
    cr_expect_eq(out[0][0], 0);
    cr_expect_neq(out[0][1], 1, "the over-played pair 0-1 was seated again");
    cr_expect_eq(out[0][1], 2);
    /* with a looser bound the closest ratings win */
    cr_assert_eq(run(p, 5, 1, 2, out), 1);
    cr_expect_eq(out[0][1], 1);
    cr_expect_eq(out[0][2], 2);
}

/* Random fields: every rule holds against a brute-force check. */
Test(schedule, random_fields)
{
    srand(7);
    for (int iter = 0; iter < 500; iter++) {
        int n = 3 + rand() % (N - 2);
        ddz_sched_player p[N];
        for (int i = 0; i < n; i++)
            p[i] = (ddz_sched_player){
                .mu = (rand() % 400) / 10.0, .deals = rand() % 6, .available = rand() % 5 != 0};
        for (int i = 0; i < n; i++) {
            pairs[i * n + i] = 0;
            for (int j = i + 1; j < n; j++)
                set_pair(n, i, j, rand() % 5);
        }
        long slack = rand() % 3;
        int out[N][3];
        int t = run(p, n, 1, slack, out);
        int avail = 0;
        for (int i = 0; i < n; i++)
            avail += p[i].available;
        cr_assert_eq(t, avail >= 3 ? 1 : 0);
        if (!t)
            continue;
        long min_deals = 1L << 40, least = 1L << 40;
        for (int i = 0; i < n; i++)
            if (p[i].available) {
                if (p[i].deals < min_deals)
                    min_deals = p[i].deals;
                for (int j = i + 1; j < n; j++)
                    if (p[j].available && pairs[i * n + j] < least)
                        least = pairs[i * n + j];
            }
        int *x = out[0];
        bool has_min = false;
        for (int s = 0; s < 3; s++)
            has_min |= p[x[s]].deals == min_deals;
        cr_assert(has_min, "no participant with the fewest deals");
        /* if some triple with an anchor of fewest deals respects the
         * bound, the chosen one does, and none such is closer */
        long bound = least + slack;
        bool ok = pairs[x[0] * n + x[1]] <= bound && pairs[x[0] * n + x[2]] <= bound &&
                  pairs[x[1] * n + x[2]] <= bound;
        double lo = p[x[0]].mu, hi = lo;
        for (int s = 1; s < 3; s++) {
            if (p[x[s]].mu < lo)
                lo = p[x[s]].mu;
            if (p[x[s]].mu > hi)
                hi = p[x[s]].mu;
        }
        int anchor = -1;
        for (int i = 0; i < n && anchor < 0; i++)
            if (p[i].available && p[i].deals == min_deals)
                anchor = i;
        for (int b = 0; b < n; b++)
            for (int c = b + 1; c < n; c++) {
                if (b == anchor || c == anchor || !p[b].available || !p[c].available)
                    continue;
                bool fits = pairs[anchor * n + b] <= bound && pairs[anchor * n + c] <= bound &&
                            pairs[b * n + c] <= bound;
                if (!fits)
                    continue;
                cr_assert(ok, "iter %d: a triple within the pair bound existed", iter);
                double l = p[anchor].mu, h = l;
                double v[2] = {p[b].mu, p[c].mu};
                for (int s = 0; s < 2; s++) {
                    if (v[s] < l)
                        l = v[s];
                    if (v[s] > h)
                        h = v[s];
                }
                cr_assert(hi - lo <= h - l + 1e-9, "iter %d: a closer triple existed", iter);
            }
    }
}
