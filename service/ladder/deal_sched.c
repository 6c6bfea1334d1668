/* deal_sched.c - the ladder's one scheduler (deal_sched.h). */
#include "service/ladder/deal_sched.h"

#include <sodium.h>

int ddz_deal_sched_round(const ddz_deal_side *side)
{
    ddz_deal_cand c[DDZ_DEAL_CANDIDATES];
    int max_tables = 0;
    bool ais_alone = false;
    int n = side->gather(side->ctx, c, DDZ_DEAL_CANDIDATES, &max_tables, &ais_alone);
    if (n < 0)
        return n;
    int deals = 0;
    /* every deal takes two tables at least (ddz_deal_plan_make() plans
     * none with fewer): bounded */
    for (;;) {
        ddz_deal_in in = {.c = c,
                          .n = n,
                          .max_tables = max_tables,
                          .ais_alone = ais_alone,
                          .spin = randombytes_random()};
        ddz_deal_plan plan;
        int m = ddz_deal_plan_make(&in, &plan);
        if (m <= 0)
            return deals;
        int rc = side->assign(side->ctx, &plan, c);
        if (rc < 0)
            return rc;
        if (rc > 0)
            return deals;
        deals++;
        max_tables -= m;
    }
}
