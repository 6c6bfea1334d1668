/* ruleset.h - a rule set is a named, versioned value (SPEC 8).
 *
 * The classifier, the move generator, the game state machine and the scoring
 * all take a `const ddz_rules *`. Only `caai` exists today. Whatever differs
 * between rule sets lives here, as numbers, policies and functions: a new
 * rule set (Botzone's FightTheLandlord2) is a new value in ruleset.c, plus
 * new enum values where a policy needs one (and the branch that implements
 * it). The generator's structure (enumerate shapes, check each candidate
 * with the classifier) does not change, because it asks the classifier which
 * readings are legal.
 */
#ifndef DDZ_RULESET_H
#define DDZ_RULESET_H

#include <stdint.h>

struct ddz_game; /* game.h */

enum ddz_allpass {
    DDZ_ALLPASS_NOGAME, /* all three pass: game over, every score 0 (caai) */
};

enum ddz_faultpolicy {
    DDZ_FAULTPOLICY_END, /* a fault ends the game; the rule set's `penalty` scores it (caai) */
};

/* No rule set bids above 3: 0 and 1..3 are the most values a seat can have. */
enum { DDZ_NBIDS_MAX = 4 };

typedef struct ddz_rules {
    const char *name;       /* stable identifier used in rooms and records */
    int version;            /* bumped whenever the rules' behaviour changes */
    int allpass;            /* enum ddz_allpass */
    int kickers_may_repeat; /* kickers may share a rank with each other */
    int max_bid;            /* highest bid (at most DDZ_NBIDS_MAX - 1); it ends bidding at once */
    int deal_maxscore;      /* max score of one deal: N games have maxscore N x this */
    int fault_policy;       /* enum ddz_faultpolicy */
    /* The multiplier of a won game: g->winner, g->spring, g->anti_spring,
     * g->bombs and g->rocket are set. Returns it (at least 1). */
    int32_t (*multiplier)(const struct ddz_game *g);
    /* Writes the scores of a won game to out[3]: g->multiplier is set too. */
    void (*score)(const struct ddz_game *g, int32_t out[3]);
    /* Writes the scores of a game that `seat` faulted to out[3]; g->phase
     * is still the phase the fault happened in (bid or play). */
    void (*penalty)(const struct ddz_game *g, int seat, int32_t out[3]);
} ddz_rules;

/* The CAAI 1.0 competition rules (SPEC 3-6), the default everywhere. */
extern const ddz_rules ddz_rules_caai;

/* Returns the rule set called `name`, or NULL if there is none. */
const ddz_rules *ddz_rules_find(const char *name);

/* Returns the maxscore of a series of `games` games under `rs`:
 * rs->deal_maxscore x games, games <= 0 counting as 1, at most INT_MAX
 * (the default of INFO's maxscore, SPEC 7). Never fails. */
int ddz_rules_maxscore(const ddz_rules *rs, int games);

/* Returns what a seat that faults before the leftover is given pays each
 * other seat (SPEC 6): maxscore / games (rounded down), or
 * rs->deal_maxscore when maxscore <= 0 or games <= 0 (no series given: the
 * default maxscore of deal_maxscore x games). ddz_game_start() takes this
 * number. Never fails. */
int ddz_rules_early_penalty(const ddz_rules *rs, int maxscore, int games);

/* Writes to out[] the bids the seat to bid may make after the earlier bids
 * `bids` (-1 = not made yet): 0 (pass) first, then every value higher than
 * every earlier bid up to rs->max_bid, ascending. Returns how many (1 to
 * DDZ_NBIDS_MAX; 1, only the pass, once someone bid max_bid). DOES NOT CHECK
 * whose turn it is or whether bidding is over (ddz_game_bid does). Never
 * fails. */
int ddz_rules_legal_bids(const ddz_rules *rs, const int8_t bids[3], int out[DDZ_NBIDS_MAX]);

#endif
