/* deal.c - Fisher-Yates over libsodium's deterministic stream, with
 * rejection sampling so that no index is favoured (spec §2). */
#include "deal.h"

#include <sodium.h>
#include <string.h>

#include "error.h"

enum {
    STREAM_BYTES = 1024,
    STREAM_WORDS = STREAM_BYTES / 4,
    /* The shuffle draws 53 words unless a draw is rejected, which happens
     * with probability below 54 / 2^32 per draw. The stream is ChaCha20's
     * keystream, whose first bytes do not depend on how many are asked for,
     * so the first PREFIX_BYTES are made alone and the whole 1024 only when
     * the shuffle reaches past them: the same words, a quarter of the work
     * (issue 26: the stream was a fifth of a self-play game). */
    PREFIX_BYTES = 256,
    PREFIX_WORDS = PREFIX_BYTES / 4,
};

int ddz_deal_from_seed(const uint8_t seed[DDZ_SEED_BYTES], ddz_deal *out)
{
    uint8_t buf[STREAM_BYTES];
    uint8_t deck[DDZ_NCARDS];
    randombytes_buf_deterministic(buf, PREFIX_BYTES, seed);
    int made = PREFIX_WORDS;
    for (int i = 0; i < DDZ_NCARDS; i++)
        deck[i] = (uint8_t)i;

    int w = 0;
    for (int i = DDZ_NCARDS - 1; i >= 1; i--) {
        uint64_t bound = (uint64_t)i + 1;
        uint64_t limit = (1ULL << 32) - ((1ULL << 32) % bound);
        uint32_t word;
        do {
            if (w == STREAM_WORDS)
                return DDZ_ESEED;
            if (w == made) {
                randombytes_buf_deterministic(buf, sizeof buf, seed);
                made = STREAM_WORDS;
            }
            word = (uint32_t)buf[4 * w] | (uint32_t)buf[4 * w + 1] << 8 |
                   (uint32_t)buf[4 * w + 2] << 16 | (uint32_t)buf[4 * w + 3] << 24;
            w++;
        } while (word >= limit);
        int j = (int)(word % bound);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }

    memset(out, 0, sizeof *out);
    for (int i = 0; i < 51; i++)
        out->hand[i / 17] |= 1ULL << deck[i];
    for (int i = 51; i < DDZ_NCARDS; i++)
        out->leftover |= 1ULL << deck[i];
    return 0;
}

void ddz_deal_commit(const uint8_t seed[DDZ_SEED_BYTES], uint8_t out[DDZ_SEED_BYTES])
{
    crypto_generichash(out, DDZ_SEED_BYTES, seed, DDZ_SEED_BYTES, NULL, 0);
}

void ddz_deal_game_seed(const uint8_t master[DDZ_SEED_BYTES], uint32_t k,
                        uint8_t out[DDZ_SEED_BYTES])
{
    uint8_t msg[12] = {'d', 'd', 'z', '-', 'd', 'e', 'a', 'l'};
    msg[8] = (uint8_t)k;
    msg[9] = (uint8_t)(k >> 8);
    msg[10] = (uint8_t)(k >> 16);
    msg[11] = (uint8_t)(k >> 24);
    crypto_generichash(out, DDZ_SEED_BYTES, msg, sizeof msg, master, DDZ_SEED_BYTES);
}
