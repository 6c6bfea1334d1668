/* cards.h - cards as bits, ranks as packed counts.
 *
 * A set of cards is one uint64_t with bit `code` set for each card code held
 * (spec §1: code = 4*rank + suit for code < 52, 52 = small joker, 53 = big
 * joker). A play is identified by its ranks only, so move generation works on
 * a multiset of ranks packed as one uint64_t: nibble r holds how many cards
 * of rank r (0..4). Converting is a few shifts and masks (ddz_cards_ranks).
 * Every helper here has a slow twin in tests/rules/test_cards.c.
 */
#ifndef DDZ_CARDS_H
#define DDZ_CARDS_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t ddz_cards; /* bit c set = card code c present (0..53) */
typedef uint64_t ddz_ranks; /* nibble r = number of cards of rank r (0..4) */

enum {
    DDZ_NCARDS = 54,
    DDZ_NRANKS = 15,
    DDZ_HAND_MAX = 20, /* 17 dealt + 3 leftover */
    DDZ_RANK_A = 11,   /* highest rank a chain may reach */
    DDZ_RANK_2 = 12,
    DDZ_RANK_SJ = 13, /* small joker */
    DDZ_RANK_BJ = 14, /* big joker */
    DDZ_CARD_SJ = 52,
    DDZ_CARD_BJ = 53,
};

#define DDZ_CARDS_ALL ((ddz_cards)((1ULL << DDZ_NCARDS) - 1))

/* Returns the rank index 0..14 of card `code` (0..53). DOES NOT CHECK RANGE. */
static inline int ddz_card_rank(int code)
{
    return code < 52 ? code / 4 : code - 39;
}

/* Returns the number of cards in `c`. */
static inline int ddz_cards_count(ddz_cards c)
{
    return __builtin_popcountll(c);
}

/* Returns the rank counts of the cards in `c`: per nibble of the 52 suited
 * bits, a SWAR popcount; the two jokers move to nibbles 13 and 14. */
static inline ddz_ranks ddz_cards_ranks(ddz_cards c)
{
    uint64_t x = c & 0x000FFFFFFFFFFFFFULL;
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x |= ((c >> DDZ_CARD_SJ) & 1) << (4 * DDZ_RANK_SJ);
    x |= ((c >> DDZ_CARD_BJ) & 1) << (4 * DDZ_RANK_BJ);
    return x;
}

/* Returns how many cards of rank `r` (0..14) the multiset `m` holds. */
static inline int ddz_ranks_get(ddz_ranks m, int r)
{
    return (int)((m >> (4 * r)) & 0xF);
}

/* Returns `m` with `n` more cards of rank `r`. DOES NOT CHECK OVERFLOW. */
static inline ddz_ranks ddz_ranks_add(ddz_ranks m, int r, int n)
{
    return m + ((uint64_t)n << (4 * r));
}

/* Returns the total number of cards in the multiset `m` (0..54). */
static inline int ddz_ranks_total(ddz_ranks m)
{
    uint64_t t = (m & 0x0F0F0F0F0F0F0F0FULL) + ((m >> 4) & 0x0F0F0F0F0F0F0F0FULL);
    return (int)((t * 0x0101010101010101ULL) >> 56);
}

/* Internal to rules/ (movegen.c): the rank masks of a multiset.
 * ddz__at_least[b] holds, for the two ranks of byte b of a multiset, in
 * lane k-1 (the 16 bits from bit 16*(k-1)) bit 0 when the low nibble is at
 * least k and bit 1 when the high nibble is (k = 1..4). */
extern const uint64_t ddz__at_least[256];

/* Returns the four "at least k" rank masks of `m` (ranks 0..14), lane k-1
 * of the result (bits 16*(k-1) + r) for k = 1..4: eight table loads
 * instead of a loop over fifteen ranks. */
static inline uint64_t ddz__ranks_at_least(ddz_ranks m)
{
    uint64_t lanes = 0;
    m &= (1ULL << (4 * DDZ_NRANKS)) - 1; /* the 16th nibble is no rank */
    for (int i = 0; i < 8; i++)
        lanes |= ddz__at_least[m >> (8 * i) & 0xFF] << (2 * i);
    return lanes;
}

/* Returns the ranks (bit r) of `m` holding more than four cards: none in a
 * play or a hand from one deck. */
static inline unsigned ddz__ranks_over_four(ddz_ranks m)
{
    const uint64_t ones = 0x0111111111111111ULL; /* bit 0 of the 15 rank nibbles */
    uint64_t b0 = m & ones, b1 = m >> 1 & ones, b2 = m >> 2 & ones, b3 = m >> 3 & ones;
    uint64_t x = b3 | (b2 & (b0 | b1));
    if (!x)
        return 0; /* the usual case: no gathering */
    /* gather bit 4r into bit r */
    x = (x | x >> 3) & 0x0303030303030303ULL;
    x = (x | x >> 6) & 0x000F000F000F000FULL;
    x = (x | x >> 12) & 0x000000FF000000FFULL;
    return (unsigned)(x | x >> 24) & 0xFFFF;
}

/* Returns the number of bits set in the rank mask `x` (16 bits). No
 * __builtin_popcount: without -mpopcnt it is a library call. */
static inline int ddz__mask_count(unsigned x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (int)((x + (x >> 8)) & 0x1Fu);
}

/* Returns true when every count in `sub` is at most the count in `m`. */
bool ddz_ranks_within(ddz_ranks sub, ddz_ranks m);

/* Returns the cards of `hand` that realise the rank multiset `m`, taking the
 * lowest suits first, or 0 when `hand` lacks some of them (and `m` != 0). */
ddz_cards ddz_cards_pick(ddz_cards hand, ddz_ranks m);

/* Returns the cards of `hand` of rank `r`. */
static inline ddz_cards ddz_cards_of_rank(ddz_cards hand, int r)
{
    if (r < DDZ_RANK_SJ)
        return hand & (0xFULL << (4 * r));
    return hand & (1ULL << (r + 39));
}

/* Writes the codes of `c` ascending into out[] (room for 54) and returns how
 * many were written. */
int ddz_cards_list(ddz_cards c, uint8_t *out);

#endif
