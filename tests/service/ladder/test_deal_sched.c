/* test_deal_sched.c - the ladder's one scheduler (deal_sched.h) with a
 * side made here: the round plans while tables are free, what a side marks
 * is not planned again, and the side ends the round. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/error.h"
#include "service/ladder/deal_sched.h"

/* A side of `np` programs and `na` hosted AIs after them. */
typedef struct fake {
    int np, na, tables;
    bool ais_alone;
    int gather_rc;   /* < 0: gather fails with it */
    int assign_rc;   /* what assign returns from the `fail_at`th call on */
    int fail_at;     /* 0: never */
    int calls;       /* assign's */
    int seated[64];  /* seats taken by each participant, over the round */
    int tables_used; /* over the round */
} fake;

static int gather(void *ctx, ddz_deal_cand *c, int max, int *max_tables, bool *ais_alone)
{
    fake *f = ctx;
    if (f->gather_rc < 0)
        return f->gather_rc;
    int n = f->np + f->na;
    cr_assert_leq(n, max);
    for (int i = 0; i < n; i++)
        c[i] = (ddz_deal_cand){.mu = 25 + i, .deals = i, .available = true, .ai = i >= f->np};
    *max_tables = f->tables;
    *ais_alone = f->ais_alone;
    return n;
}

static int assign(void *ctx, const ddz_deal_plan *plan, ddz_deal_cand *c)
{
    fake *f = ctx;
    f->calls++;
    if (f->fail_at && f->calls >= f->fail_at)
        return f->assign_rc;
    f->tables_used += plan->tables;
    for (int t = 0; t < plan->tables; t++)
        for (int s = 0; s < 3; s++) {
            int i = plan->who[t][s];
            f->seated[i]++;
            if (!c[i].ai)
                c[i].available = false;
        }
    return 0;
}

static int round_of(fake *f)
{
    ddz_deal_side side = {.ctx = f, .gather = gather, .assign = assign};
    return ddz_deal_sched_round(&side);
}

/* 12 programs, 8 free tables: a deal of 4 tables (12 programs need 4),
 * then none (every program plays); each program seated once. */
Test(deal_sched, programs_play_once_a_round)
{
    fake f = {.np = 12, .tables = 8};
    cr_assert_eq(round_of(&f), 1);
    cr_assert_eq(f.tables_used, 4);
    for (int i = 0; i < 12; i++)
        cr_assert_eq(f.seated[i], 1, "program %d seated %d times", i, f.seated[i]);
}

/* Hosted AIs alone stay available: deals follow one another until the
 * free tables are spent (two at least each). */
Test(deal_sched, free_tables_bound_the_round)
{
    fake f = {.na = 3, .tables = 7, .ais_alone = true};
    int deals = round_of(&f);
    cr_assert_geq(deals, 1);
    cr_assert_leq(f.tables_used, 7);
    cr_assert_lt(7 - f.tables_used, 2, "%d tables left unplanned", 7 - f.tables_used);
    f = (fake){.na = 3, .tables = 7};
    cr_assert_eq(round_of(&f), 0, "AIs alone planned without ais_alone");
}

/* The side ends the round: quietly (1) or with a failure (< 0), and a
 * failed gather plans nothing. */
Test(deal_sched, the_side_ends_the_round)
{
    fake f = {.na = 3, .tables = 8, .ais_alone = true, .fail_at = 2, .assign_rc = 1};
    cr_assert_eq(round_of(&f), 1);
    cr_assert_eq(f.calls, 2);
    f = (fake){.na = 3, .tables = 8, .ais_alone = true, .fail_at = 1, .assign_rc = DDZ_EDB};
    cr_assert_eq(round_of(&f), DDZ_EDB);
    f = (fake){.np = 6, .tables = 8, .gather_rc = DDZ_ENOMEM};
    cr_assert_eq(round_of(&f), DDZ_ENOMEM);
    cr_assert_eq(f.calls, 0);
}

/* Too few tables or players: nothing planned, nothing asked. */
Test(deal_sched, nothing_to_plan)
{
    fake f = {.np = 6, .tables = 1};
    cr_assert_eq(round_of(&f), 0);
    f = (fake){.np = 2, .tables = 8};
    cr_assert_eq(round_of(&f), 0);
    cr_assert_eq(f.calls, 0);
}
