/* test_deal.c - the deal of spec §2, bit-exact. */
#include <criterion/criterion.h>
#include <sodium.h>

#include "proto/text.h"
#include "rules/deal.h"
#include "rules/error.h"

static void init(void)
{
    cr_assert_geq(sodium_init(), 0);
}

static ddz_cards cards(const char *codes)
{
    ddz_cards c;
    cr_assert_eq(ddz_text_parse_cards(codes, &c, NULL, 0), 0);
    return c;
}

static void seed_0_to_31(uint8_t s[32])
{
    for (int i = 0; i < 32; i++)
        s[i] = (uint8_t)i;
}

Test(deal, known_answer_of_spec, .init = init)
{
    uint8_t seed[32], commit[32], game0[32];
    char hex[65];
    seed_0_to_31(seed);
    ddz_deal d;
    cr_assert_eq(ddz_deal_from_seed(seed, &d), 0);
    cr_assert_eq(d.hand[0], cards("6,8,14,16,18,21,24,30,34,35,40,41,43,44,46,47,49"));
    cr_assert_eq(d.hand[1], cards("10,11,13,17,20,23,27,28,29,31,32,33,36,38,42,51,52"));
    cr_assert_eq(d.hand[2], cards("0,1,2,3,4,7,9,12,15,19,25,26,37,39,45,48,53"));
    cr_assert_eq(d.leftover, cards("5,22,50"));
    ddz_deal_commit(seed, commit);
    ddz_text_format_seed(commit, hex);
    cr_assert_str_eq(hex, "cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6");
    ddz_deal_game_seed(seed, 0, game0);
    ddz_text_format_seed(game0, hex);
    cr_assert_str_eq(hex, "e55164c4359dbad5684a59ceae24de217587fd374f40acf1182082d00a14b749");
}

Test(deal, every_deal_partitions_the_deck, .init = init)
{
    uint8_t master[32] = {42}, seed[32];
    ddz_cards first_hands[64];
    for (uint32_t k = 0; k < 2000; k++) {
        ddz_deal d;
        ddz_deal_game_seed(master, k, seed);
        cr_assert_eq(ddz_deal_from_seed(seed, &d), 0);
        for (int s = 0; s < 3; s++)
            cr_assert_eq(ddz_cards_count(d.hand[s]), 17);
        cr_assert_eq(ddz_cards_count(d.leftover), 3);
        cr_assert_eq(d.hand[0] | d.hand[1] | d.hand[2] | d.leftover, DDZ_CARDS_ALL);
        cr_assert_eq(d.hand[0] & d.hand[1], 0);
        cr_assert_eq((d.hand[0] | d.hand[1]) & d.hand[2], 0);
        cr_assert_eq((d.hand[0] | d.hand[1] | d.hand[2]) & d.leftover, 0);
        if (k < 64)
            first_hands[k] = d.hand[0];
    }
    /* different game numbers give different deals */
    for (int i = 0; i < 64; i++)
        for (int j = i + 1; j < 64; j++)
            cr_assert_neq(first_hands[i], first_hands[j]);
}

Test(deal, same_seed_same_deal_and_cards_are_spread, .init = init)
{
    uint8_t master[32] = {7}, seed[32];
    int west[DDZ_NCARDS] = {0};
    const int games = 6000;
    for (int k = 0; k < games; k++) {
        ddz_deal a, b;
        ddz_deal_game_seed(master, (uint32_t)k, seed);
        ddz_deal_from_seed(seed, &a);
        ddz_deal_from_seed(seed, &b);
        cr_assert(memcmp(&a, &b, sizeof a) == 0);
        for (int c = 0; c < DDZ_NCARDS; c++)
            west[c] += (int)(a.hand[0] >> c & 1);
    }
    /* Each card lands in West's hand with probability 17/54; 6000 deals put
     * that at 1889 +- 36 (1 sigma). A broken shuffle (say, no swap or a
     * modulo slip) misses this by far. */
    for (int c = 0; c < DDZ_NCARDS; c++)
        cr_assert(west[c] > 1700 && west[c] < 2080, "card %d in West %d times", c, west[c]);
}

/* The deal as spec §2 words it: the whole 1024-byte stream made first. */
static int slow_deal(const uint8_t seed[32], ddz_deal *out)
{
    uint8_t buf[1024], deck[DDZ_NCARDS];
    randombytes_buf_deterministic(buf, sizeof buf, seed);
    for (int i = 0; i < DDZ_NCARDS; i++)
        deck[i] = (uint8_t)i;
    int w = 0;
    for (int i = DDZ_NCARDS - 1; i >= 1; i--) {
        uint64_t bound = (uint64_t)i + 1, limit = (1ULL << 32) - ((1ULL << 32) % bound);
        uint32_t word;
        do {
            if (w == 256)
                return DDZ_ESEED;
            memcpy(&word, buf + 4 * w++, 4); /* little-endian machines only, as the tests run */
        } while (word >= limit);
        int j = (int)(word % bound);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    memset(out, 0, sizeof *out);
    for (int i = 0; i < DDZ_NCARDS; i++)
        *(i < 51 ? &out->hand[i / 17] : &out->leftover) |= 1ULL << deck[i];
    return 0;
}

/* rules/deal.c makes only the stream's first 256 bytes unless the shuffle
 * needs more (issue 26). That rests on the stream's first bytes being the
 * same however many are asked for, checked here, and gives the deals of the
 * whole stream, compared here. */
Test(deal, a_short_stream_is_the_start_of_the_long_one, .init = init)
{
    uint8_t master[32] = {9}, seed[32], longer[1024], shorter[256];
    for (uint32_t k = 0; k < 20000; k++) {
        ddz_deal_game_seed(master, k, seed);
        if (k < 1000) {
            randombytes_buf_deterministic(longer, sizeof longer, seed);
            randombytes_buf_deterministic(shorter, sizeof shorter, seed);
            cr_assert(memcmp(longer, shorter, sizeof shorter) == 0);
        }
        ddz_deal fast, slow;
        cr_assert_eq(ddz_deal_from_seed(seed, &fast), slow_deal(seed, &slow));
        cr_assert(memcmp(&fast, &slow, sizeof fast) == 0, "game %u", k);
    }
}
