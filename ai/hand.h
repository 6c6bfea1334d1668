/* hand.h - hand decomposition: splitting a rank multiset into few strong
 * combinations, and a score for how good the hand is to play out.
 *
 * Shared by ai:greedy (which scores every candidate play by what it leaves)
 * and ai:strong (which uses the same scores to order and prune candidates
 * and runs ai:greedy as its fast playout policy). Pure computation on
 * rules/cards.h values; no allocation, no I/O.
 *
 * The split: the rocket and every four stay whole (bombs); then a bounded
 * search picks the set of chains (straights, pair straights, trio
 * straights) that scores best; what is left becomes trios, pairs and
 * singles, and trios and trio chains take the lowest singles or pairs up to
 * K as kickers. The score is the sum of the combinations' values (main rank
 * minus that of a K, so low cards are liabilities and 2s and jokers assets;
 * bombs and the rocket are worth a lot) minus a fixed cost per combination:
 * few combinations with few small singles score best.
 */
#ifndef DDZ_AI_HAND_H
#define DDZ_AI_HAND_H

#include <stdbool.h>

#include "rules/cards.h"

enum {
    DDZ_HAND_COST = 28, /* score cost of one more combination to play out */
    DDZ_HAND_PARTS_MAX = DDZ_HAND_MAX,
    DDZ_HAND_BREAK_COST = 60, /* playing part of a bomb or of the rocket */
};

typedef struct ddz_hand_split {
    int score;                          /* the hand's score (higher is better) */
    int n;                              /* number of combinations */
    ddz_ranks part[DDZ_HAND_PARTS_MAX]; /* the combinations, bombs first */
} ddz_hand_split;

/* A memo of hand scores, owned by the caller (about 1 MB): scoring the same
 * multiset twice is a lookup. Zero-filled is empty. */
enum { DDZ_HAND_CACHE_BITS = 16 };
typedef struct ddz_hand_cache {
    uint64_t key[1u << DDZ_HAND_CACHE_BITS]; /* ranks | valid bit 63; 0 = empty */
    int32_t score[1u << DDZ_HAND_CACHE_BITS];
} ddz_hand_cache;

/* Returns the score of hand `m` (a rank multiset) and, unless `out` is NULL,
 * writes its split. `cache` may be NULL; it is only used when `out` is. */
int ddz_hand_evaluate(ddz_ranks m, ddz_hand_split *out, ddz_hand_cache *cache);

/* Returns true when playing `m` from `hand` spends a four other than as a
 * bomb (part of it, or all of it with kickers) or one joker of the rocket. */
bool ddz_hand_breaks_bomb(ddz_ranks hand, ddz_ranks m);

#endif
