/* combo.h - classification and comparison of plays (spec §4, §8).
 *
 * A play is a multiset of ranks (ddz_ranks). ddz_combo_classify() tries the
 * types in the seed's order (the eleven of spec §4, then the quad straight of
 * the Botzone rule sets) and, within a type, the reading with the highest
 * main rank; ddz_combo_beats() is the comparison rule.
 */
#ifndef DDZ_COMBO_H
#define DDZ_COMBO_H

#include <stdbool.h>

#include "cards.h"
#include "ruleset.h"

enum ddz_type {
    DDZ_INVALID = 0,
    DDZ_ROCKET, /* both jokers */
    DDZ_BOMB,   /* four of a rank */
    DDZ_SINGLE,
    DDZ_PAIR,
    DDZ_TRIO,
    DDZ_TRIO_KICKER,   /* trio + single or trio + pair */
    DDZ_STRAIGHT,      /* 5..12 consecutive singles up to A */
    DDZ_PAIR_STRAIGHT, /* 3..10 consecutive pairs up to A */
    DDZ_TRIO_STRAIGHT, /* 2..6 consecutive trios up to A */
    DDZ_PLANE,         /* n consecutive trios + n singles or n pairs */
    DDZ_FOUR_TWO,      /* four + 2 singles or 2 pairs */
    DDZ_QUAD_STRAIGHT, /* n >= 2 consecutive fours up to A + nothing, 2n singles or
                          2n pairs (rule sets with `quad_straight`: Botzone's) */
    DDZ_PASS,          /* no cards */
    DDZ_NTYPES
};

enum ddz_kicker { DDZ_KICK_NONE = 0, DDZ_KICK_SINGLE, DDZ_KICK_PAIR };

typedef struct ddz_combo {
    uint8_t type;   /* enum ddz_type */
    uint8_t rank;   /* main rank: of the single/pair/trio/four, or a chain's top */
    uint8_t length; /* chain length; 1 for non-chains */
    uint8_t kicker; /* enum ddz_kicker */
    uint8_t size;   /* number of cards */
} ddz_combo;

/* Classifies the play `m` under rule set `rs`. Returns the combo; its type is
 * DDZ_INVALID when `m` is no legal combination and DDZ_PASS when `m` is 0. */
ddz_combo ddz_combo_classify(const ddz_rules *rs, ddz_ranks m);

/* Returns true when play `a` may be played on top of `last` (spec §4
 * comparison; a quad straight compares like a plane, it is no bomb). `a`
 * and `last` must be valid, non-pass combos. */
bool ddz_combo_beats(ddz_combo a, ddz_combo last);

/* Returns the JSON/CLI name of a type ("rocket", ..., "pass", "invalid"). */
const char *ddz_type_name(int type);

/* Returns the JSON/CLI name of a kicker kind ("none", "single", "pair"). */
const char *ddz_kicker_name(int kicker);

#endif
