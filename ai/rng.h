/* rng.h - a small, fast, seedable generator for play (not for deals).
 *
 * Deals come from libsodium (rules/deal.h). Hosted AIs and benchmarks need
 * millions of cheap, reproducible draws instead: xoshiro256** seeded through
 * splitmix64. State is a value owned by the caller.
 */
#ifndef DDZ_RNG_H
#define DDZ_RNG_H

#include <stdint.h>

typedef struct ddz_rng {
    uint64_t s[4];
} ddz_rng;

static inline uint64_t ddz__splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Seeds `r` from one 64-bit value; any value (0 included) is fine. */
static inline void ddz_rng_seed(ddz_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = ddz__splitmix64(&seed);
}

static inline uint64_t ddz__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Returns the next 64 random bits. */
static inline uint64_t ddz_rng_next(ddz_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = ddz__rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ddz__rotl(s[3], 45);
    return out;
}

/* Returns a uniform integer in [0, n) for n >= 1 (Lemire's method with
 * rejection, so no bias). */
static inline uint32_t ddz_rng_below(ddz_rng *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)ddz_rng_next(r) * n;
    if ((uint32_t)m < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while ((uint32_t)m < t)
            m = (uint64_t)(uint32_t)ddz_rng_next(r) * n;
    }
    return (uint32_t)(m >> 32);
}

#endif
