/* cards.c - the few card helpers that are not worth inlining. */
#include "cards.h"

bool ddz_ranks_within(ddz_ranks sub, ddz_ranks m)
{
    for (int r = 0; r < DDZ_NRANKS; r++)
        if (ddz_ranks_get(sub, r) > ddz_ranks_get(m, r))
            return false;
    return true;
}

ddz_cards ddz_cards_pick(ddz_cards hand, ddz_ranks m)
{
    ddz_cards out = 0;
    for (int r = 0; r < DDZ_NRANKS && m; r++, m >>= 4) {
        int need = (int)(m & 0xF);
        ddz_cards avail = ddz_cards_of_rank(hand, r);
        if (__builtin_popcountll(avail) < need)
            return 0;
        while (need-- > 0) {
            ddz_cards low = avail & (~avail + 1);
            out |= low;
            avail ^= low;
        }
    }
    return out;
}

int ddz_cards_list(ddz_cards c, uint8_t *out)
{
    int n = 0;
    while (c) {
        out[n++] = (uint8_t)__builtin_ctzll(c);
        c &= c - 1;
    }
    return n;
}
