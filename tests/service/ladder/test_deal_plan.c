/* test_deal_plan.c - the ladder's deals: who sits where (the plan's rules
 * on hand-made fields of 3, 4, 5, 6 and 9 programs, and its invariants on
 * random ones) and how a played deal is rated. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "service/ladder/deal_plan.h"

enum { N = 40 };

/* A field of `np` programs (indices 0..np-1, ratings 20 + i, deals i)
 * and `na` hosted AIs after them. */
static int field(ddz_deal_cand *c, int np, int na)
{
    for (int i = 0; i < np; i++)
        c[i] = (ddz_deal_cand){.mu = 20 + i, .deals = i, .available = true};
    for (int i = 0; i < na; i++)
        c[np + i] = (ddz_deal_cand){.mu = 25, .deals = 100, .available = true, .ai = true};
    return np + na;
}

static int plan(const ddz_deal_cand *c, int n, int tables, bool alone, uint32_t spin,
                ddz_deal_plan *p)
{
    ddz_deal_in in = {.c = c, .n = n, .max_tables = tables, .ais_alone = alone, .spin = spin};
    return ddz_deal_plan_make(&in, p);
}

/* What every plan must be: seats of available candidates, no program
 * twice, every hand a program holds held by someone else too (so its
 * result is compared), every hand by two at all when there is more than
 * one AI. Returns the number of program seats. */
static int check(const ddz_deal_cand *c, int n, const ddz_deal_plan *p)
{
    int seen[DDZ_DEAL_CANDIDATES] = {0}, programs = 0;
    cr_assert(p->tables >= 2 && p->tables <= DDZ_DEAL_TABLES, "tables %d", p->tables);
    for (int t = 0; t < p->tables; t++)
        for (int s = 0; s < 3; s++) {
            int w = p->who[t][s];
            cr_assert(w >= 0 && w < n, "table %d seat %d: %d", t, s, w);
            cr_assert(c[w].available, "candidate %d is not available", w);
            if (!c[w].ai) {
                cr_assert_eq(seen[w], 0, "program %d plays the deal twice", w);
                programs++;
            }
            seen[w]++;
        }
    int ais = 0;
    for (int i = 0; i < n; i++)
        ais += c[i].available && c[i].ai;
    for (int s = 0; s < 3; s++) {
        bool program = false, two = false;
        for (int t = 0; t < p->tables; t++) {
            program |= !c[p->who[t][s]].ai;
            two |= p->who[t][s] != p->who[0][s];
        }
        if (program || ais > 1)
            cr_assert(two, "hand %d has one holder", s);
    }
    return programs;
}

Test(deal_plan, bad_input_and_nothing_to_plan)
{
    ddz_deal_cand c[N];
    ddz_deal_plan p;
    ddz_deal_in bad = {.c = NULL, .n = 3, .max_tables = 4};
    cr_expect_eq(ddz_deal_plan_make(&bad, &p), -1);
    bad = (ddz_deal_in){.c = c, .n = DDZ_DEAL_CANDIDATES + 1, .max_tables = 4};
    cr_expect_eq(ddz_deal_plan_make(&bad, &p), -1);
    int n = field(c, 3, 2);
    cr_expect_eq(plan(c, n, 1, true, 0, &p), 0, "one free table is not enough");
    cr_expect_eq(plan(c, 0, 4, true, 0, &p), 0);
    n = field(c, 0, 1);
    cr_expect_eq(plan(c, n, 4, true, 0, &p), 0, "one AI alone has nobody to compare with");
    n = field(c, 0, 3);
    cr_expect_eq(plan(c, n, 4, false, 0, &p), 0, "AIs alone only when allowed");
}

/* The documented fields: N programs need max(2, ceil(N / 3)) tables, the
 * hosted AIs filling the seats left; without AIs, whole tables of
 * programs, six at least. */
Test(deal_plan, fields_of_3_4_5_6_9)
{
    static const struct {
        int np, tables_with_ais, tables_without;
    } want[] = {{3, 2, 0}, {4, 2, 0}, {5, 2, 0}, {6, 2, 2}, {9, 3, 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ddz_deal_cand c[N];
        ddz_deal_plan p;
        for (uint32_t spin = 0; spin < 12; spin++) {
            int n = field(c, want[i].np, 2);
            cr_assert_eq(plan(c, n, 4, true, spin, &p), want[i].tables_with_ais, "%d programs",
                         want[i].np);
            cr_expect_eq(check(c, n, &p), want[i].np, "every program seated");
            n = field(c, want[i].np, 0);
            cr_assert_eq(plan(c, n, 4, true, spin, &p), want[i].tables_without,
                         "%d programs, no AI", want[i].np);
            if (p.tables)
                cr_expect_eq(check(c, n, &p), want[i].np);
        }
    }
}

/* Three programs and two AIs: one hand is program against program, the
 * other two program against AI, and an AI never holds one hand twice. */
Test(deal_plan, three_programs_two_ais)
{
    ddz_deal_cand c[N];
    ddz_deal_plan p;
    int n = field(c, 3, 2);
    cr_assert_eq(plan(c, n, 4, true, 0, &p), 2);
    int pvp = 0;
    for (int s = 0; s < 3; s++) {
        bool a = !c[p.who[0][s]].ai, b = !c[p.who[1][s]].ai;
        pvp += a && b;
        cr_expect_neq(p.who[0][s], p.who[1][s], "hand %d: one AI holds it twice", s);
    }
    cr_expect_eq(pvp, 1);
}

/* Fewest deals first when not all fit; the chosen ones grouped by rating:
 * a hand's holders are neighbours in the rating order. */
Test(deal_plan, fewest_deals_first_close_ratings_together)
{
    ddz_deal_cand c[N];
    ddz_deal_plan p;
    int n = field(c, 20, 1);
    for (int i = 0; i < 20; i++)
        c[i].deals = 100 - i;                    /* the last ones have played least */
    cr_assert_eq(plan(c, n, 2, true, 0, &p), 2); /* 6 seats */
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 3; s++)
            cr_expect_geq(p.who[t][s], 14, "program %d has played more than others left out",
                          p.who[t][s]);
    for (int s = 0; s < 3; s++) {
        int a = p.who[0][s], b = p.who[1][s];
        cr_expect_eq(abs(a - b), 1, "hand %d: %d and %d are not neighbours in rating", s, a, b);
    }
}

/* The first hand turns with spin, so a program does not always hold the
 * same cards' direction. */
Test(deal_plan, spin_turns_the_hands)
{
    ddz_deal_cand c[N];
    ddz_deal_plan p;
    int n = field(c, 6, 0);
    bool held[3] = {0};
    for (uint32_t spin = 0; spin < 6; spin++) {
        cr_assert_eq(plan(c, n, 4, true, spin, &p), 2);
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 3; s++)
                if (p.who[t][s] == 5) /* the best rated */
                    held[s] = true;
    }
    cr_expect(held[0] && held[1] && held[2]);
}

/* Hosted AIs alone: a Latin square, every hand held by different AIs. */
Test(deal_plan, ais_alone_latin_square)
{
    ddz_deal_cand c[N];
    ddz_deal_plan p;
    int n = field(c, 0, 3);
    cr_assert_eq(plan(c, n, 4, true, 7, &p), 3);
    check(c, n, &p);
    for (int s = 0; s < 3; s++)
        for (int t = 0; t < 3; t++)
            for (int u = t + 1; u < 3; u++)
                cr_expect_neq(p.who[t][s], p.who[u][s]);
    for (int t = 0; t < 3; t++)
        cr_expect(p.who[t][0] != p.who[t][1] && p.who[t][1] != p.who[t][2] &&
                  p.who[t][0] != p.who[t][2]);
}

/* Random fields: every plan keeps the invariants, seats as many programs
 * as fit, and never leaves a program out for one with more deals. */
Test(deal_plan, random_fields)
{
    srand(12345);
    for (int run = 0; run < 20000; run++) {
        ddz_deal_cand c[N];
        int n = 1 + rand() % N;
        for (int i = 0; i < n; i++)
            c[i] = (ddz_deal_cand){.mu = rand() % 50,
                                   .deals = rand() % 5,
                                   .available = rand() % 4 != 0,
                                   .ai = rand() % 5 == 0};
        int tables = rand() % 8;
        ddz_deal_plan p;
        int m = plan(c, n, tables, rand() % 2, (uint32_t)rand(), &p);
        cr_assert_geq(m, 0);
        if (!m)
            continue;
        cr_assert_leq(m, tables);
        int seated = check(c, n, &p);
        int avail = 0, na = 0;
        for (int i = 0; i < n; i++)
            avail += c[i].available && !c[i].ai, na += c[i].available && c[i].ai;
        int cap = 3 * (tables < DDZ_DEAL_TABLES ? tables : DDZ_DEAL_TABLES);
        int fit = avail < cap ? avail : cap;
        if (!na)
            fit -= fit % 3;
        cr_assert_eq(seated, fit, "run %d: %d of %d programs seated", run, seated, fit);
        long most = -1;
        bool in[N] = {0};
        for (int t = 0; t < m; t++)
            for (int s = 0; s < 3; s++)
                if (!c[p.who[t][s]].ai) {
                    in[p.who[t][s]] = true;
                    if (c[p.who[t][s]].deals > most)
                        most = c[p.who[t][s]].deals;
                }
        for (int i = 0; i < n; i++)
            if (c[i].available && !c[i].ai && !in[i])
                cr_assert_geq(c[i].deals, most, "run %d: %d left out for more played", run, i);
    }
}

/* ---- rating a deal ---- */

/* Each hand is one event among its holders: the same as rating.h on the
 * hand's holders alone; the hands one after another. */
Test(deal_rate, each_hand_is_one_event)
{
    ddz_rating_cfg cfg;
    ddz_rating_cfg_default(&cfg);
    ddz_rating r[6], want[6];
    for (int i = 0; i < 6; i++)
        r[i] = want[i] = (ddz_rating){25 + i, 8};
    ddz_deal_plan p = {.tables = 2, .who = {{0, 1, 2}, {3, 4, 5}}};
    double score[DDZ_DEAL_TABLES][3] = {{2, -1, -1}, {-4, 2, 2}};
    cr_assert_eq(ddz_deal_rate(&cfg, &p, r, 6, score), 3);
    for (int s = 0; s < 3; s++) {
        ddz_rating ev[2] = {want[s], want[3 + s]};
        double sc[2] = {score[0][s], score[1][s]};
        cr_assert_eq(ddz_rating_update(&cfg, ev, sc, 2), 0);
        want[s] = ev[0], want[3 + s] = ev[1];
    }
    for (int i = 0; i < 6; i++) {
        cr_expect_float_eq(r[i].mu, want[i].mu, 1e-12, "player %d", i);
        cr_expect_float_eq(r[i].sigma, want[i].sigma, 1e-12, "player %d", i);
    }
    cr_expect_gt(r[0].mu, 25, "West at table 1 did better than at table 2");
    cr_expect_lt(r[3].mu, 28);
}

/* A hosted AI holding one hand at two tables counts once in it; a hand
 * held by one participant only is not rated. */
Test(deal_rate, repeats_count_once)
{
    ddz_rating_cfg cfg;
    ddz_rating_cfg_default(&cfg);
    ddz_rating r[4];
    for (int i = 0; i < 4; i++)
        r[i] = (ddz_rating){25, 8};
    /* AI 3 holds East at both tables: East is not rated */
    ddz_deal_plan p = {.tables = 2, .who = {{0, 1, 3}, {2, 3, 3}}};
    double score[DDZ_DEAL_TABLES][3] = {{2, -1, -1}, {-2, 1, 1}};
    cr_assert_eq(ddz_deal_rate(&cfg, &p, r, 4, score), 2);
    cr_expect_gt(r[0].mu, 25);
    cr_expect_lt(r[2].mu, 25);
    cr_expect_lt(r[1].mu, 25, "South: -1 against the AI's 1");
    cr_expect_gt(r[3].mu, 25);
}

Test(deal_rate, bad_input_changes_nothing)
{
    ddz_rating_cfg cfg;
    ddz_rating_cfg_default(&cfg);
    ddz_rating r[6];
    for (int i = 0; i < 6; i++)
        r[i] = (ddz_rating){25, 8};
    double score[DDZ_DEAL_TABLES][3] = {{1, 1, 1}, {1, 1, 1}};
    ddz_deal_plan p = {.tables = 2, .who = {{0, 1, 2}, {3, 4, 9}}};
    cr_expect_eq(ddz_deal_rate(&cfg, &p, r, 6, score), -1, "an index past n");
    p.who[1][2] = 5;
    p.tables = 1;
    cr_expect_eq(ddz_deal_rate(&cfg, &p, r, 6, score), -1, "one table");
    p.tables = 2;
    r[5].sigma = 0;
    cr_expect_eq(ddz_deal_rate(&cfg, &p, r, 6, score), -1, "a bad rating");
    for (int i = 0; i < 5; i++)
        cr_expect_eq(r[i].mu, 25);
}

/* Who sits with whom changes from deal to deal (rule 7): with three
 * programs and two AIs, the lowest-rated program shares a table with the
 * highest-rated one in some deals, not in all (it did in every deal
 * before, and its comparisons then always faced stronger company than
 * the holder it was compared with). */
Test(deal_plan, table_company_turns)
{
    ddz_deal_cand c[N];
    int n = field(c, 3, 2); /* programs 0 (lowest rating), 1, 2 (highest) */
    int together = 0, deals = 600;
    for (int k = 0; k < deals; k++) {
        ddz_deal_plan p;
        cr_assert_eq(plan(c, n, 4, true, (uint32_t)k * 7919u + 13u, &p), 2);
        check(c, n, &p);
        for (int t = 0; t < p.tables; t++) {
            bool lo = false, hi = false;
            for (int s = 0; s < 3; s++)
                lo |= p.who[t][s] == 0, hi |= p.who[t][s] == 2;
            together += lo && hi;
        }
    }
    cr_expect(together > deals / 4 && together < 3 * deals / 4,
              "the lowest and highest programs shared a table in %d of %d deals", together, deals);
}
