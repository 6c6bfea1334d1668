/* random.c - ai:random. */
#include "random.h"

#include "rules/movegen.h"

int ddz_random_bid(ddz_rng *r, const ddz_view *v)
{
    int bids[DDZ_NBIDS_MAX];
    int n = ddz_rules_legal_bids(v->rules, v->bids, bids);
    return bids[ddz_rng_below(r, (uint32_t)n)];
}

ddz_cards ddz_random_play(ddz_rng *r, const ddz_view *v, ddz_move *moves, size_t cap)
{
    int n = ddz_movegen(v->rules, ddz_cards_ranks(v->hand), v->last_seat < 0 ? NULL : &v->last,
                        moves, cap);
    if (n > (int)cap || n < 0)
        n = (int)cap; /* choose among the moves that fit */
    if (n == 0)
        return 0;
    return ddz_cards_pick(v->hand, moves[ddz_rng_below(r, (uint32_t)n)].ranks);
}
