/* cards.c - the few card helpers that are not worth inlining. */
#include "cards.h"

#define GE2(b, k) ((uint64_t)(((b)&15) >= (k)) | (uint64_t)(((b) >> 4) >= (k)) << 1)
#define LANES(b) (GE2(b, 1) | GE2(b, 2) << 16 | GE2(b, 3) << 32 | GE2(b, 4) << 48)
#define LANES4(b) LANES(b), LANES((b) + 1), LANES((b) + 2), LANES((b) + 3)
#define LANES16(b) LANES4(b), LANES4((b) + 4), LANES4((b) + 8), LANES4((b) + 12)
#define LANES64(b) LANES16(b), LANES16((b) + 16), LANES16((b) + 32), LANES16((b) + 48)
const uint64_t ddz__at_least[256] = {LANES64(0), LANES64(64), LANES64(128), LANES64(192)};
#undef LANES64
#undef LANES16
#undef LANES4
#undef LANES
#undef GE2

bool ddz_ranks_within(ddz_ranks sub, ddz_ranks m)
{
    for (int r = 0; r < DDZ_NRANKS; r++)
        if (ddz_ranks_get(sub, r) > ddz_ranks_get(m, r))
            return false;
    return true;
}

/* Visits only the ranks `m` asks for, and takes the lowest cards one at a
 * time (a play asks for four of a rank at most): no population count, which
 * without -mpopcnt is a library call (issue 26). */
ddz_cards ddz_cards_pick(ddz_cards hand, ddz_ranks m)
{
    ddz_cards out = 0;
    m &= (1ULL << (4 * DDZ_NRANKS)) - 1; /* the 16th nibble is no rank */
    while (m) {
        int r = __builtin_ctzll(m) / 4;
        int need = (int)(m >> (4 * r) & 0xF);
        ddz_cards avail = ddz_cards_of_rank(hand, r);
        m &= ~(0xFULL << (4 * r));
        while (need-- > 0) {
            if (!avail)
                return 0; /* fewer cards of rank r than asked for */
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
