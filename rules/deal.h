/* deal.h - the seeded, verifiable deal (spec §2).
 *
 * Pure computation on libsodium's deterministic stream and BLAKE2b: no I/O,
 * no allocation. The caller must have called sodium_init() once (it only
 * selects faster implementations; results are identical either way).
 */
#ifndef DDZ_DEAL_H
#define DDZ_DEAL_H

#include <stdint.h>

#include "cards.h"

enum { DDZ_SEED_BYTES = 32 };

typedef struct ddz_deal {
    ddz_cards hand[3];  /* West (A), South (B), East (C): 17 cards each */
    ddz_cards leftover; /* the three leftover cards */
} ddz_deal;

/* Shuffles the deck with the stream of `seed` and deals it. Returns 0, or
 * DDZ_ESEED if the 1024-byte stream ran out of words below the rejection
 * limit (probability below 2^-5000: never seen, but never silent). */
int ddz_deal_from_seed(const uint8_t seed[DDZ_SEED_BYTES], ddz_deal *out);

/* Writes commit = BLAKE2b-256(seed) to `out`. */
void ddz_deal_commit(const uint8_t seed[DDZ_SEED_BYTES], uint8_t out[DDZ_SEED_BYTES]);

/* Writes the seed of game `k` of master seed `master`:
 * BLAKE2b-256(key = master, message = "ddz-deal" || le32(k)). */
void ddz_deal_game_seed(const uint8_t master[DDZ_SEED_BYTES], uint32_t k,
                        uint8_t out[DDZ_SEED_BYTES]);

#endif
