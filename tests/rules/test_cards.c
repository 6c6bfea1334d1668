/* test_cards.c - the bit tricks of rules/cards.h against slow twins. */
#include <criterion/criterion.h>

#include "ai/rng.h"
#include "rules/cards.h"

static ddz_cards random_cards(ddz_rng *r)
{
    return ddz_rng_next(r) & ddz_rng_next(r) & DDZ_CARDS_ALL; /* about 1/4 of the deck */
}

static int slow_rank_count(ddz_cards c, int rank)
{
    int n = 0;
    for (int code = 0; code < DDZ_NCARDS; code++)
        if ((c >> code) & 1)
            n += ddz_card_rank(code) == rank;
    return n;
}

Test(cards, rank_of_codes)
{
    cr_assert_eq(ddz_card_rank(0), 0);
    cr_assert_eq(ddz_card_rank(3), 0);
    cr_assert_eq(ddz_card_rank(4), 1);
    cr_assert_eq(ddz_card_rank(47), 11);
    cr_assert_eq(ddz_card_rank(48), 12);
    cr_assert_eq(ddz_card_rank(51), 12);
    cr_assert_eq(ddz_card_rank(52), DDZ_RANK_SJ);
    cr_assert_eq(ddz_card_rank(53), DDZ_RANK_BJ);
}

Test(cards, ranks_match_slow_count)
{
    ddz_rng r;
    ddz_rng_seed(&r, 7);
    for (int i = 0; i < 20000; i++) {
        ddz_cards c = i == 0 ? DDZ_CARDS_ALL : random_cards(&r);
        ddz_ranks m = ddz_cards_ranks(c);
        int total = 0;
        for (int rank = 0; rank < DDZ_NRANKS; rank++) {
            cr_assert_eq(ddz_ranks_get(m, rank), slow_rank_count(c, rank), "rank %d of %llx", rank,
                         (unsigned long long)c);
            total += slow_rank_count(c, rank);
        }
        cr_assert_eq(ddz_ranks_total(m), total);
        cr_assert_eq(ddz_cards_count(c), total);
    }
}

Test(cards, pick_takes_lowest_suits_and_refuses_missing)
{
    ddz_rng r;
    ddz_rng_seed(&r, 8);
    for (int i = 0; i < 20000; i++) {
        ddz_cards hand = random_cards(&r), sub = hand & random_cards(&r);
        ddz_ranks want = ddz_cards_ranks(sub);
        ddz_cards got = ddz_cards_pick(hand, want);
        cr_assert_eq(ddz_cards_ranks(got), want);
        cr_assert_eq(got & ~hand, 0);
        cr_assert(ddz_ranks_within(want, ddz_cards_ranks(hand)));
        /* lowest suits: no unpicked card of a picked rank lies below a picked one */
        for (int code = 0; code < DDZ_NCARDS; code++)
            if ((got >> code) & 1)
                for (int low = code - 1; low >= 0 && ddz_card_rank(low) == ddz_card_rank(code);
                     low--)
                    if ((hand >> low) & 1)
                        cr_assert((got >> low) & 1);
    }
    /* a rank the hand lacks */
    cr_assert_eq(ddz_cards_pick(1ULL << 0, ddz_ranks_add(0, 1, 1)), 0);
    cr_assert_eq(ddz_cards_pick(1ULL << 0, ddz_ranks_add(0, 0, 2)), 0);
    cr_assert(!ddz_ranks_within(ddz_ranks_add(0, 0, 2), ddz_ranks_add(0, 0, 1)));
}

/* The obvious pick: cards in code order, each taken while its rank still
 * wants one; 0 when some rank wants more than the hand has. */
static ddz_cards slow_pick(ddz_cards hand, ddz_ranks m)
{
    ddz_cards out = 0;
    int want[DDZ_NRANKS];
    for (int rank = 0; rank < DDZ_NRANKS; rank++)
        want[rank] = ddz_ranks_get(m, rank);
    for (int code = 0; code < DDZ_NCARDS; code++)
        if ((hand >> code) & 1 && want[ddz_card_rank(code)] > 0) {
            out |= 1ULL << code;
            want[ddz_card_rank(code)]--;
        }
    for (int rank = 0; rank < DDZ_NRANKS; rank++)
        if (want[rank] > 0)
            return 0;
    return out;
}

/* Any wanted counts, held or not (up to 15 of a rank, the 16th nibble
 * too): the fast pick answers as the slow one. */
Test(cards, pick_matches_slow_pick)
{
    ddz_rng r;
    ddz_rng_seed(&r, 9);
    for (int i = 0; i < 200000; i++) {
        ddz_cards hand = random_cards(&r);
        ddz_ranks want = ddz_cards_ranks(hand & random_cards(&r));
        if (i % 4 == 1)
            want = ddz_cards_ranks(random_cards(&r)); /* often not held */
        else if (i % 4 == 2)
            want = ddz_rng_next(&r) & ddz_rng_next(&r) & ddz_rng_next(&r);
        cr_assert_eq(ddz_cards_pick(hand, want), slow_pick(hand, want), "hand %llx want %llx",
                     (unsigned long long)hand, (unsigned long long)want);
    }
}

/* The rank masks of any multiset (any nibbles) against a loop over ranks. */
Test(cards, rank_masks_match_slow_masks)
{
    ddz_rng r;
    ddz_rng_seed(&r, 10);
    for (int i = 0; i < 200000; i++) {
        ddz_ranks m = i % 2 ? ddz_rng_next(&r) : ddz_cards_ranks(random_cards(&r));
        uint64_t lanes = ddz__ranks_at_least(m);
        unsigned over = 0;
        for (int k = 1; k <= 4; k++) {
            unsigned want = 0;
            for (int rank = 0; rank < DDZ_NRANKS; rank++)
                want |= (unsigned)(ddz_ranks_get(m, rank) >= k) << rank;
            cr_assert_eq((unsigned)(lanes >> (16 * (k - 1)) & 0xFFFF), want, "k %d of %llx", k,
                         (unsigned long long)m);
        }
        for (int rank = 0; rank < DDZ_NRANKS; rank++)
            over |= (unsigned)(ddz_ranks_get(m, rank) > 4) << rank;
        cr_assert_eq(ddz__ranks_over_four(m), over);
        unsigned x = (unsigned)m & 0xFFFF;
        cr_assert_eq(ddz__mask_count(x), __builtin_popcount(x));
    }
}

Test(cards, list_is_ascending)
{
    uint8_t out[DDZ_NCARDS];
    int n = ddz_cards_list((1ULL << 53) | (1ULL << 0) | (1ULL << 17), out);
    cr_assert_eq(n, 3);
    cr_assert_eq(out[0], 0);
    cr_assert_eq(out[1], 17);
    cr_assert_eq(out[2], 53);
    cr_assert_eq(ddz_cards_list(0, out), 0);
}
