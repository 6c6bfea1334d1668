/* ruleset.h - a rule set is a named, versioned value (spec §8).
 *
 * The classifier, the move generator, the game state machine and the scoring
 * all take a `const ddz_rules *`. Three exist: `caai` (spec §3-§7),
 * `botzone-ftl` and `botzone-ftl2` (spec §8). Whatever differs between rule
 * sets lives here, as numbers, policies and functions: a new rule set is a
 * new value in ruleset.c, plus new enum values where a policy needs one (and
 * the one branch that implements it). The generator's structure (enumerate
 * shapes, check each candidate with the classifier) does not change, because
 * it asks the classifier which readings are legal.
 */
#ifndef DDZ_RULESET_H
#define DDZ_RULESET_H

#include <stdint.h>

struct ddz_game;        /* game.h */
struct ddz_combo;       /* combo.h */
struct ddz_record_play; /* record.h */

enum ddz_bidding {
    DDZ_BIDDING_LADDER, /* West, South, East bid once each: 0, or higher than every
                           earlier bid up to max_bid (caai, botzone-ftl2) */
    DDZ_BIDDING_NONE,   /* no bidding: West is the landlord at base 1, takes the
                           leftover and leads at once (botzone-ftl) */
};

enum ddz_allpass {
    DDZ_ALLPASS_NOGAME, /* all three pass: game over, every score 0 (caai) */
    DDZ_ALLPASS_WEST,   /* all three pass: West is the landlord at bid 1 (botzone-ftl2) */
};

enum ddz_faultpolicy {
    DDZ_FAULTPOLICY_END,     /* a fault ends the game; the rule set's `penalty` scores
                                it (caai, botzone-ftl) */
    DDZ_FAULTPOLICY_PLAY_ON, /* the game goes on and the referee plays for a seat that
                                faulted (ddz_game_standin_bid/play); once all three
                                have faulted `penalty` ends it (botzone-ftl2) */
};

/* No rule set bids above 3: 0 and 1..3 are the most values a seat can have. */
enum { DDZ_NBIDS_MAX = 4 };

/* Scores are doubles. Every rule set's scores are exact multiples of
 * 1/DDZ_SCORE_DENOM (caai and botzone-ftl2: whole numbers; botzone-ftl:
 * multiples of 0.005), each computed as one correctly rounded division of
 * whole numbers, so that printing them with 15 significant digits and reading
 * them back gives the same double. Sums of scores (a series' totals) stay
 * exact with ddz_score_add(). */
#define DDZ_SCORE_DENOM 1000

/* How a finished game's scores came about, as its rule set counts them: an
 * ordered list of terms (ddz_rules.explain), each one number with what it
 * is. The list reads as the computation does: the factors of the stake and
 * their product, what a side wins; or each seat's win points and its plays
 * by type; or the fault and what it cost. Which fields a kind has is
 * ddz_term_fields(); the names are the JSON ones (proto/PROTOCOL.md). */
enum ddz_term_kind {
    DDZ_TERM_BID = 1,     /* value: the landlord's bid, the stake's base outside the
                             multiplier (caai) */
    DDZ_TERM_START,       /* value: 1, where the multiplier starts (caai) */
    DDZ_TERM_BASE,        /* value: the bid (at least 1), where the stake m starts (ftl2) */
    DDZ_TERM_BOMBS,       /* count: bombs played; value: the factor they give */
    DDZ_TERM_ROCKET,      /* value: the rocket's factor */
    DDZ_TERM_SPRING,      /* value: spring's factor */
    DDZ_TERM_ANTI_SPRING, /* value: anti-spring's factor */
    DDZ_TERM_MULTIPLIER,  /* value: the product of the factors from START on (caai) */
    DDZ_TERM_UNIT,        /* value: bid x multiplier (caai) */
    DDZ_TERM_STAKE,       /* value: the stake m, the product of the factors from BASE on */
    DDZ_TERM_FARMER,      /* value: what each farmer wins or loses (> 0) */
    DDZ_TERM_LANDLORD,    /* value: what the landlord wins or loses (> 0) */
    DDZ_TERM_WIN,         /* seat; value: the win points of its side (botzone-ftl: 2 or 0) */
    DDZ_TERM_PLAYS,       /* seat, combo, count: its plays of one type; value: their points */
    DDZ_TERM_POINTS,      /* seat; value: the points of all its plays */
    DDZ_TERM_MEAN,        /* value: the mean of the farmers' points, which each farmer
                             scores (botzone-ftl) */
    DDZ_TERM_PENALTY,     /* seat, fault: the seat faulted and pays the penalty; value:
                             its unit (caai spec §6: what it pays each farmer, or each
                             other seat before the leftover) */
    DDZ_TERM_FORFEIT,     /* seat, fault: the seat faulted; value: its side's score */
    DDZ_TERM_AWARD,       /* value: the other side's score after a FORFEIT */
    DDZ_TERM_STANDIN,     /* seat, fault: the seat faulted, the referee played on for it
                             and the game was scored as usual (ftl2); no value */
    DDZ_TERM_ALL_FAULTED, /* value: every seat's score once all three faulted (ftl2) */
    DDZ_NTERM_KINDS
};

/* The fields a term kind has besides its kind (ddz_term_fields). */
enum {
    DDZ_TERM_HAS_SEAT = 1,
    DDZ_TERM_HAS_COMBO = 2,
    DDZ_TERM_HAS_COUNT = 4,
    DDZ_TERM_HAS_FAULT = 8,
    DDZ_TERM_HAS_VALUE = 16,
};

/* At most 3 x 12 PLAYS, 3 WIN, 3 POINTS and a MEAN (botzone-ftl); the
 * others write fewer. */
enum { DDZ_TERMS_MAX = 48 };

typedef struct ddz_term {
    uint8_t kind;  /* enum ddz_term_kind */
    int8_t seat;   /* the seat it is about, -1 for none */
    uint8_t combo; /* PLAYS: enum ddz_type; else 0 */
    uint8_t count; /* BOMBS, PLAYS: how many; else 0 */
    uint8_t fault; /* PENALTY, FORFEIT, STANDIN: enum ddz_fault; else 0 */
    double value;  /* its number, on the scores' grid (DDZ_SCORE_DENOM); 0 where the
                      kind has none */
} ddz_term;

typedef struct ddz_rules {
    const char *name;       /* stable identifier used in rooms and records */
    int version;            /* bumped whenever the rules' behaviour changes */
    int bidding;            /* enum ddz_bidding */
    int allpass;            /* enum ddz_allpass (DDZ_BIDDING_LADDER only) */
    int kickers_may_repeat; /* kickers may share a rank with each other (never with the
                               trios or four they are attached to) */
    int quad_straight;      /* 2+ consecutive fours (with no wings, two distinct singles or
                               two distinct pairs per four) are DDZ_QUAD_STRAIGHT */
    int max_bid;            /* highest bid (at most DDZ_NBIDS_MAX - 1); it ends bidding at once */
    int deal_maxscore;      /* max score of one deal: N games have maxscore N x this
                               (0: the rule set has none; INFO then says 0) */
    int default_time_ms;    /* per-action time limit when a match gives none */
    int fault_policy;       /* enum ddz_faultpolicy */
    int score_unit;         /* a landlord who wins at bid 1 with multiplier 1 and no play
                               weights scores 2 x this (caai 100, botzone 1): hosted AIs
                               divide scores by score_unit x bid, so that values mean the
                               same under every rule set */
    /* What one play of `c` adds to its player's weight (g->weight), or NULL
     * when the scores do not count plays. Returns it (>= 0). */
    int (*play_weight)(const struct ddz_combo *c);
    /* The multiplier of a won game: g->winner, g->spring, g->anti_spring,
     * g->bombs and g->rocket are set. Returns it (at least 1). */
    int32_t (*multiplier)(const struct ddz_game *g);
    /* The multiplier the bombs and the rocket played so far give (spring is
     * not known before the end; the bid is not in it): what a table shows
     * during a game. Returns it (at least 1), or 0 where the rule set has
     * none (its scores count plays). */
    int32_t (*multiplier_so_far)(const struct ddz_game *g);
    /* Writes the scores of a won game to out[3]: g->multiplier is set too. */
    void (*score)(const struct ddz_game *g, double out[3]);
    /* Writes the scores of a game that faults ended to out[3]: under
     * DDZ_FAULTPOLICY_END the fault of `seat`, under DDZ_FAULTPOLICY_PLAY_ON
     * the third seat's fault (`seat` faulted last). g->phase is still the
     * phase the fault happened in (bid or play). */
    void (*penalty)(const struct ddz_game *g, int seat, double out[3]);
    /* Writes to out[] the terms that say how the scores of g, a game over,
     * came about, in the order they are computed; plays[0..nplays) are its
     * plays, passes included (only seat and cards are read). Returns how
     * many (0..DDZ_TERMS_MAX): 0 where nothing was scored (all passed). */
    int (*explain)(const struct ddz_game *g, const struct ddz_record_play *plays, int nplays,
                   ddz_term out[DDZ_TERMS_MAX]);
} ddz_rules;

/* The CAAI 1.0 competition rules (spec §3-§6), the default everywhere. */
extern const ddz_rules ddz_rules_caai;

/* Botzone's FightTheLandlord (spec §8, seed 002): no bidding, West is the
 * landlord; distinct kickers and quad straights; scores 2/0 + weights / 100,
 * the farmers averaged; a fault ends the game (-1 / 2.5). */
extern const ddz_rules ddz_rules_botzone_ftl;

/* Botzone's FightTheLandlord2 (spec §8): the same plays, with bidding (all
 * pass: West at bid 1); landlord +-2m, farmers -+m with m = max(bid, 1) x
 * 2^(bombs + rocket + spring + anti-spring); after a fault the referee plays
 * for the faulty seat, and three faulty seats end the game at -1 each. */
extern const ddz_rules ddz_rules_botzone_ftl2;

/* Returns the JSON name of term kind `kind` ("bid", "bombs", "plays", ...),
 * or "invalid" for a value outside enum ddz_term_kind. Never NULL. */
const char *ddz_term_name(int kind);

/* Returns the term kind named `name`, or -1. */
int ddz_term_from_name(const char *name);

/* Returns the DDZ_TERM_HAS_... bits of the fields term kind `kind` has, 0
 * for a value outside enum ddz_term_kind. */
unsigned ddz_term_fields(int kind);

/* Returns the rule set called `name`, or NULL if there is none. */
const ddz_rules *ddz_rules_find(const char *name);

/* Returns rule set `i` of the registered ones (0 is caai, the default),
 * or NULL past the last: for listing them. */
const ddz_rules *ddz_rules_at(int i);

/* Returns the names of every rule set, comma-separated ("caai, botzone-ftl,
 * ..."), for usage messages. Never fails. */
const char *ddz_rules_names(void);

/* Returns a + b rounded to the nearest multiple of 1/DDZ_SCORE_DENOM: the
 * sum of two scores, kept exact however many are added (totals). Never
 * fails. */
double ddz_score_add(double a, double b);

/* Returns the maxscore of a series of `games` games under `rs`:
 * rs->deal_maxscore x games, games <= 0 counting as 1, at most INT_MAX
 * (the default of INFO's maxscore, spec §7). Never fails. */
int ddz_rules_maxscore(const ddz_rules *rs, int games);

/* Returns what a seat that faults before the leftover is given pays each
 * other seat (spec §6): maxscore / games (rounded down), or
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
