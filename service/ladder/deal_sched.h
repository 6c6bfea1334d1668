/* deal_sched.h - the ladder's one scheduler: a round plans deals with
 * deal_plan.h from the candidates a side gathers and hands each to the
 * side to assign, while free tables last.
 *
 * The ladder has two sides, and this is all they differ in:
 *   - one node (ladder_srv.c): this node's participants in memory, a deal
 *     assigned by starting its tables here;
 *   - several nodes (ladder_net.c), on the leader's lead thread in its
 *     transaction: the cluster's presence rows, ratings and busy
 *     participants, one node's share at a time, a deal assigned by a row of
 *     cluster_ladder_deals that its node then starts.
 * The order of the plans, the free tables counted down and the draw of
 * each plan's `spin` are the same for both. */
#ifndef DDZ_DEAL_SCHED_H
#define DDZ_DEAL_SCHED_H

#include <stdbool.h>

#include "service/ladder/deal_plan.h"

typedef struct ddz_deal_side {
    void *ctx;
    /* Fills c[0..max) with the round's candidates, *max_tables with the
     * tables free for it and *ais_alone with whether a deal of hosted AIs
     * alone may be planned (deal_plan.h). Returns the number of candidates
     * (0..max), or a negative DDZ_E... code: no round. */
    int (*gather)(void *ctx, ddz_deal_cand *c, int max, int *max_tables, bool *ais_alone);
    /* Assigns `plan` (indices into c, which the side marks: who plays it
     * and may not play another is no longer `available`). Returns 0 when
     * assigned, 1 to end the round quietly (a budget is spent, a deal this
     * side does not host, out of memory), or a negative DDZ_E... code: a
     * failure, which ends the round. */
    int (*assign)(void *ctx, const ddz_deal_plan *plan, ddz_deal_cand *c);
} ddz_deal_side;

/* Runs one round of `side`: gathers, then plans (ddz_deal_plan_make(),
 * each plan with a new random `spin`) and assigns until no deal can be
 * planned, the free tables are spent or the side ends it. Returns the
 * number of deals assigned (0 or more), or the negative code of the
 * side's gather or assign (deals assigned before it stay assigned). */
int ddz_deal_sched_round(const ddz_deal_side *side);

#endif
